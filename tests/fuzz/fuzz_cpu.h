/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU fuzzer (fuzz_cpu.c and the fuzz_cpu_*.c beside it): declarations shared by its pieces. */
#ifndef MB_FUZZ_CPU_H
#define MB_FUZZ_CPU_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h> /* OpenBLAS's: the signatures the layer exports */
#include "check.h"
#include "miniblas_cblas.h"

/* The layer's Fortran entry points (gfortran convention), as src/cblas/entry.c defines them. */
void sgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const float *, const float *, const blasint *, const float *, const blasint *,
            const float *, float *, const blasint *, size_t, size_t);
void dgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const double *, const double *, const blasint *, const double *, const blasint *,
            const double *, double *, const blasint *, size_t, size_t);
float sasum_(const blasint *, const float *, const blasint *);
double dasum_(const blasint *, const double *, const blasint *);
float sdot_(const blasint *, const float *, const blasint *, const float *, const blasint *);
double ddot_(const blasint *, const double *, const blasint *, const double *, const blasint *);

#ifndef FUZZ_CPU_BLAS_PATH
#define FUZZ_CPU_BLAS_PATH ""
#endif

/* Everything below is the fuzzer's own: not exported to the libraries it loads (the program's
 * cblas_xerbla and xerbla_ are). */
#pragma GCC visibility push(hidden)

/* ------------------------------------------------------------------ random numbers */

typedef struct { uint64_t s; } rng_t;
static inline uint64_t next(rng_t *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline int64_t rnd(rng_t *r, int64_t n) { return n > 0 ? (int64_t)(next(r) % (uint64_t)n) : 0; }
static inline int chance(rng_t *r, int percent) { return rnd(r, 100) < percent; }
static inline double unif(rng_t *r) { return (double)(next(r) >> 11) * 0x1.0p-53 * 2.0 - 1.0; }

/* ------------------------------------------------------------------ bookkeeping */

extern int g_verbose;
extern uint64_t g_seed;
extern int64_t g_iter;
extern char g_call[400]; /* the call being made, for messages */
extern long g_findings, g_calls, g_invalid, g_valid, g_check_calls;
extern long g_per_entry[16], g_div_count;

/* Divergences from OpenBLAS that are not failures: counted by kind, the first of each shown. */
#define MAX_DIV 64
typedef struct { char key[160]; long n; char example[400]; } div_entry;
extern div_entry g_div[MAX_DIV];

/* The first xerbla call since xe_reset (cblas_xerbla or xerbla_) and how many came. */
typedef struct { int n; int param; char name[40]; int fortran; } xe_capture;
extern xe_capture g_xe;

/* OpenBLAS, the reference (dlopen'ed by load_openblas). */
struct openblas {
    void *h;
    __typeof__(&cblas_sgemm) sgemm;
    __typeof__(&cblas_dgemm) dgemm;
    __typeof__(&cblas_sasum) sasum;
    __typeof__(&cblas_dasum) dasum;
    __typeof__(&cblas_sdot) sdot;
    __typeof__(&cblas_ddot) ddot;
    __typeof__(&cblas_somatcopy) somatcopy;
    __typeof__(&cblas_domatcopy) domatcopy;
    void (*sgemm_)(const char *, const char *, const blasint *, const blasint *, const blasint *,
                   const float *, const float *, const blasint *, const float *, const blasint *,
                   const float *, float *, const blasint *, size_t, size_t);
    void (*dgemm_)(const char *, const char *, const blasint *, const blasint *, const blasint *,
                   const double *, const double *, const blasint *, const double *,
                   const blasint *, const double *, double *, const blasint *, size_t, size_t);
};
extern struct openblas ob;

/* ------------------------------------------------------------------ guarded buffers */

extern size_t g_page;
typedef struct {
    char *map;
    size_t maplen;
    void *data;  /* the operand's first byte */
    size_t bytes;
    void *saved; /* a copy of data, to prove nothing changed */
    int heap;    /* plain malloc with poisoned margins instead of guard pages */
} gbuf;

/* ------------------------------------------------------------------ the model (check.h) */

/* Element extent of a stored matrix: ld * (cols - 1) + rows; 0 when rows or cols is 0. In
 * __int128: any blasint or int64_t arguments fit. */
typedef __int128 i128;
static inline i128 mat_extent(int64_t rows, int64_t cols, int64_t ld) {
    if (rows <= 0 || cols <= 0) return 0;
    return (i128)ld * (cols - 1) + rows;
}
static inline i128 vec_extent(int64_t n, int64_t inc) {
    if (n <= 0) return 0;
    i128 a = inc < 0 ? -(i128)inc : (i128)inc;
    return (i128)(n - 1) * a + 1;
}
static inline int overflows(i128 elems, size_t elem) {
    return elems > INT64_MAX || elems * (i128)elem > INT64_MAX;
}
static inline int trans_code(int t) {
    return t == 111 || t == 114 ? 0 : t == 112 || t == 113 ? 1 : -1;
}

typedef struct {
    int layout, ta, tb; /* raw values */
    int64_t m, n, k, lda, ldb, ldc;
    int alpha0;
    int a_null, b_null, c_null;
    size_t elem;
    /* derived: stored shapes (lead dimension bounded by ld, other) */
    int64_t a_lead, a_other, b_lead, b_other, c_lead, c_other;
} gemm_args;

typedef struct {
    int layout, trans;
    int64_t rows, cols, lda, ldb;
    int a_null, b_null;
    size_t elem;
    int64_t a_lead, a_other, b_lead, b_other;
} omat_args;

extern int64_t cap_elems;

/* fuzz_cpu_ref.c: findings, divergences, xerbla capture, OpenBLAS */
void finding(const char *fmt, ...);
void divergence(const char *key);
void xe_reset(void);
int load_openblas(void);

/* fuzz_cpu_mem.c: guarded buffers, values, argument generators */
void gb_alloc(gbuf *g, size_t bytes, int end, int heap);
void gb_readonly(gbuf *g);
void gb_save(gbuf *g);
int gb_margins_ok(const gbuf *g);
int gb_unchanged(const gbuf *g);
void gb_free(gbuf *g);
double special_value(rng_t *r);
double scalar(rng_t *r);
void fill(rng_t *r, void *p, int dbl, size_t n, int specials);
void poison(void *p, int dbl, size_t n);
double get(const void *p, int dbl, int64_t i);
int same_bits(const void *a, const void *b, int dbl, int64_t i);
int64_t gen_dim(rng_t *r);
int64_t gen_ld(rng_t *r, int64_t need);
int64_t gen_ld32(rng_t *r, int64_t need);
int gen_trans(rng_t *r);
int gen_layout(rng_t *r);
int64_t gen_inc(rng_t *r);
char gen_ftrans(rng_t *r);

/* fuzz_cpu_model.c: the rules, the check functions' fuzzing, common call checks */
void gemm_shapes(gemm_args *g);
int model_gemm(gemm_args *g);
int rowmajor_swap(int p);
int model_omatcopy(omat_args *o);
int model_asum(int64_t n, int x_null, int64_t incx, int res_null, size_t elem);
int model_dot(int64_t n, int x_null, int64_t incx, int y_null, int64_t incy, int res_null,
              size_t elem);
int64_t gen_any64(rng_t *r);
void check_message(int p, const mb_check_error *e);
void fuzz_checks(rng_t *r);
int expect_xerbla(int want, const char *name, int fortran);
size_t buf_elems(rng_t *r, i128 ext, int valid);

/* per entry point: fuzz_cpu_gemm.c, fuzz_cpu_ops.c */
void fuzz_gemm(rng_t *r, int dbl, int fortran);
void fuzz_reduce(rng_t *r, int dbl, int is_dot, int fortran);
void fuzz_omatcopy(rng_t *r, int dbl);

#pragma GCC visibility pop

#endif
