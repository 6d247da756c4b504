/* SPDX-License-Identifier: BSD-3-Clause */
/* The GPU fuzzer (test_fuzz_gpu.c and the fuzz_gpu_*.c beside it): declarations shared by its
 * pieces. Built twice, native and with MB_FUZZ_CBLAS (tests/fuzz_gpu.cmake). */
#ifndef MB_FUZZ_GPU_H
#define MB_FUZZ_GPU_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cuda_runtime_api.h>
#ifdef MB_FUZZ_CBLAS
#include <cblas.h>
#include "miniblas_cblas.h"
#define FUZZ_NAME "test_fuzz_cblas_gpu"
#else
#include "check.h"
#include "miniblas.h"
#define FUZZ_NAME "test_fuzz_gpu"
#endif

/* ------------------------------------------------------------------ settings, counters */

enum { OP_GEMM, OP_OMATCOPY, OP_ASUM, OP_DOT, OP_KINDS };
extern const char *const op_names[2][OP_KINDS];
enum { K_HEAP, K_MMAP, K_PINNED, K_REGISTERED, K_DEVICE, K_MANAGED, K_COUNT };
extern const char *const kind_names[K_COUNT];

extern uint64_t g_seed;
extern double g_seconds;
extern int g_threads, g_quick, g_selftest, g_sgemm_specials, g_pageable_ok;
extern long g_max_calls;
extern int g_kind_ok[K_COUNT];
extern double g_t0;

extern long g_calls, g_invalid, g_failures, g_printed, g_fatal;
extern long g_op_calls[2][OP_KINDS], g_kind_uses[K_COUNT];
extern pthread_mutex_t g_print_lock;

static inline double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline void add(long *c, long v) { __atomic_fetch_add(c, v, __ATOMIC_RELAXED); }
static inline long get(const long *c) { return __atomic_load_n(c, __ATOMIC_RELAXED); }

/* ------------------------------------------------------------------ random numbers */

typedef struct rng { uint64_t s; } rng;
static inline uint64_t rnext(rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static inline int rint_(rng *r, int n) { return (int)(rnext(r) % (uint64_t)n); } /* [0, n) */
static inline int chance(rng *r, int percent) { return rint_(r, 100) < percent; }
static inline double runif(rng *r) { return (double)(rnext(r) >> 11) * 0x1.0p-52 - 1.0; } /* [-1, 1) */

/* ------------------------------------------------------------------ elements */

#define SENT_F 0x7FC0DEADu
#define SENT_D 0x7FF8DEADBEEFDEADull
#define PADNAN_F 0x7FC0BEEFu
#define PADNAN_D 0x7FF8BEEFBEEFBEEFull

static inline double eget(const void *p, size_t i, int dbl) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static inline void eset(void *p, size_t i, double v, int dbl) {
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}
static inline void eset_bits(void *p, size_t i, uint64_t d, uint32_t f, int dbl) {
    if (dbl) memcpy((double *)p + i, &d, 8);
    else memcpy((float *)p + i, &f, 4);
}
static inline void sentinel(void *p, size_t i, int dbl) { eset_bits(p, i, SENT_D, SENT_F, dbl); }
static inline void padnan(void *p, size_t i, int dbl) { eset_bits(p, i, PADNAN_D, PADNAN_F, dbl); }
static inline int same_bits(const void *a, const void *b, size_t i, int dbl) {
    size_t es = dbl ? 8 : 4;
    return memcmp((const char *)a + i * es, (const char *)b + i * es, es) == 0;
}
static inline int is_sentinel(const void *p, size_t i, int dbl) {
    if (dbl) {
        uint64_t v;
        memcpy(&v, (const double *)p + i, 8);
        return v == SENT_D;
    }
    uint32_t v;
    memcpy(&v, (const float *)p + i, 4);
    return v == SENT_F;
}

/* ------------------------------------------------------------------ memory kinds */

typedef struct buf {
    int kind;
    char *host;    /* the allocation as the host sees it */
    char *api;     /* the pointer given to the library (native registered: the device alias) */
    size_t bytes, map_bytes;
} buf;

static inline int host_kind(int kind) { return kind != K_DEVICE && kind != K_MANAGED; }

/* ------------------------------------------------------------------ the per-thread state */

typedef struct worker {
    int id;
    rng r;
    long calls;
    const char *rung; /* native: the rung selected for the current call ("auto", ...) */
#ifndef MB_FUZZ_CBLAS
    miniblas_handle_t h;
    cudaStream_t stream; /* NULL: the handle's default (legacy) stream */
#endif
} worker;

/* One case's description, printed with its failures. */
typedef struct fcase {
    worker *w;
    uint64_t seed;
    int dbl, op;
    char what[400];
    int failed;
} fcase;

static inline int64_t imax1(int64_t v) { return v > 1 ? v : 1; }
static inline int is_t(int t) { return t == 112 || t == 113; }

/* Stored position of element (i, j) of a matrix in the layout. */
static inline size_t pos(int col, int64_t i, int64_t j, int64_t ld) {
    return col ? (size_t)(i + j * ld) : (size_t)(i * ld + j);
}

/* Storage offset of logical element 0 of an n-element vector (a negative increment starts at
 * the far end); never negates inc when n <= 1. */
static inline int64_t vstart(int64_t n, int64_t inc) {
    if (n <= 1 || inc >= 0) return 0;
    return (int64_t)((uint64_t)(n - 1) * (0u - (uint64_t)inc));
}
/* Storage position of logical element i. */
static inline size_t vpos(int64_t n, int64_t inc, int64_t i) {
    return n > 1 ? (size_t)(vstart(n, inc) + i * inc) : 0;
}

#define GUARD 8

/* Outcome of a library call: status (native) or xerbla parameter (cblas, 0 = none). */
typedef struct outcome {
    int invalid_param; /* parameter reported (native: last_error_param on INVALID_VALUE) */
    int status_ok;     /* native: SUCCESS; cblas: no xerbla */
    char msg[300];
} outcome;

enum { CL_FIN = 1, CL_PINF = 2, CL_NINF = 4, CL_NAN = 8 };

/* A sum of terms, as the reference sees it: value (long double), sum of |terms|, and the
 * classes of the terms (any NaN, any +Inf, any -Inf). */
typedef struct rsum {
    long double s, abs;
    int nan, pinf, ninf;
} rsum;

/* fuzz_gpu_draw.c: operand memory, random values and shapes */
int pick_kind(rng *r);
int buf_alloc(buf *b, int kind, size_t bytes, char *msg, size_t msz);
void buf_free(buf *b);
int buf_put(buf *b, const void *src, size_t bytes, char *msg, size_t msz);
int buf_get(void *dst, const buf *b, size_t bytes, char *msg, size_t msz);
double special(rng *r, int dbl, int allow_inf, int allow_sub);
double scalar(rng *r);
int64_t dim(rng *r, int64_t cap);
int trans_value(rng *r);
int64_t ld_pad(rng *r);
void fill_input(rng *r, void *p, size_t n, int dbl, int density, int allow_inf,
                int allow_sub);

/* fuzz_gpu_ref.c: failure reports, the stand-in (--selftest), the oracle */
void report(fcase *c, const char *fmt, ...);
void fatal(fcase *c, const char *msg);
/* After a call that writes one output buffer b (n elements; `before` its contents before the
 * call): a CUDA error is fatal; b comes back into out; an invalid call must have reported
 * expect_param and left b as it was; a valid call must have succeeded. 0: check the results
 * now; 1: the case ends here (reported). */
int settle_call(fcase *c, const outcome *oc, cudaError_t se, void *out, const buf *b,
                const void *before, size_t n, int dbl, int bad, int expect_param,
                const char *name);
#ifdef MB_FUZZ_CBLAS
void before_call(void);
void after_call(outcome *o);
#else
miniblas_status_t st_gemm(int dbl, int layout, int ta, int tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const void *A, int64_t lda,
                          const void *B, int64_t ldb, double beta, void *C, int64_t ldc,
                          int *param);
miniblas_status_t st_omatcopy(int dbl, int layout, int trans, int64_t rows, int64_t cols,
                              double alpha, const void *A, int64_t lda, void *B,
                              int64_t ldb, int *param);
miniblas_status_t st_reduce(int dbl, int dot, int64_t n, const void *x, int64_t incx,
                            const void *y, int64_t incy, void *result, int *param);
#endif
unsigned cls(double v);
const char *cls_name(unsigned c);
void rs_add(rsum *r, double t);
unsigned expect_combo(const rsum *r, int64_t terms, int dbl, double alpha, int beta_zero,
                      double beta, double c, double *want, double *tol);
int element_ok(double got, unsigned allowed, double want, double tol);

/* the cases: fuzz_gpu_gemm.c, fuzz_gpu_cases.c */
void case_gemm(fcase *fc, rng *r);
void case_omatcopy(fcase *fc, rng *r);
void case_reduce(fcase *fc, rng *r, int dot);

#endif
