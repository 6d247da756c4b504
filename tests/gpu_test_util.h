/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared support for the GPU correctness tests (tests/test_*_gpu.c): skip without a GPU
 * (exit 77), a seeded RNG, checked CUDA memory helpers, NaN poisoning with recognisable
 * payloads, the list of rung variants to test, and pass/fail counters.
 *
 * Environment:
 *   MINIBLAS_TEST_SEED=N   replay a run (the seed is printed at start)
 *   MINIBLAS_TEST_QUICK=1  small sizes only (for compute-sanitizer, 10-100x slower)
 *   MINIBLAS_TEST_RUNG=a,b test only these variants (rung names, "auto", "auto+tf32")
 * The tests unset MINIBLAS_<OP> and MINIBLAS_MATH_MODE at start, so "auto" means auto.
 */
#ifndef MINIBLAS_GPU_TEST_UTIL_H
#define MINIBLAS_GPU_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "miniblas.h"

#if defined(__GNUC__)
#define MBT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define MBT_PRINTF(a, b)
#endif

/* ---- start and end ---- */
/* No CUDA device (cudaGetDeviceCount fails or finds 0): print "no CUDA device: skipped" and
 * exit(77). */
void mbt_require_gpu(void);
/* mbt_require_gpu, seed the RNG, read the quick flag, unset the MINIBLAS_<OP> and
 * MINIBLAS_MATH_MODE variables, print a header line (seed, quick, device). */
void mbt_init(const char *testname);
int mbt_quick(void);
/* Prints "<testname>: N passed, M failed" and returns the exit status (1 on any failure). */
int mbt_finish(void);

/* ---- random numbers (splitmix64, seeded by mbt_init) ---- */
uint64_t mbt_seed(void);
uint64_t mbt_rand_u64(void);
double mbt_rand_uniform(void);        /* uniform in [-1, 1) */
double mbt_rand_scalar(void);         /* uniform in [-1, -0.1] U [0.1, 1]: a "random" alpha/beta */

/* ---- precision-generic element access (dbl = 0: float, 1: double) ---- */
static inline size_t mbt_elem(int dbl) { return dbl ? sizeof(double) : sizeof(float); }
double mbt_get(const void *p, size_t i, int dbl);
void mbt_set(void *p, size_t i, double v, int dbl); /* float: rounded to float */
void mbt_fill_uniform(void *p, size_t n, int dbl);  /* uniform in [-1, 1) */
/* Poison: the sentinel is a quiet NaN with a fixed payload, recognised bit for bit; a second
 * NaN payload marks input padding, so a kernel that copies input padding into the output is
 * told apart from one that leaves the output alone. */
void mbt_set_sentinel(void *p, size_t i, int dbl);
int mbt_is_sentinel(const void *p, size_t i, int dbl);
void mbt_poison(void *p, size_t n, int dbl);         /* every element = sentinel */
void mbt_set_nan2(void *p, size_t i, int dbl);       /* input-padding NaN */
int mbt_same_bits(const void *a, const void *b, size_t i, int dbl);

/* ---- host and device memory; any failure prints and exits 1 ---- */
void *mbt_host_alloc(size_t bytes);           /* zero-filled, at least 1 byte */
void *mbt_dev_alloc(size_t bytes);            /* at least 256 bytes */
void mbt_dev_free(void *p);
void mbt_h2d(void *dst, const void *src, size_t bytes);
void mbt_d2h(void *dst, const void *src, size_t bytes);
void mbt_device_sync(void);
/* Exit 1 with a message when e != cudaSuccess (what: the failed call). */
void mbt_cuda_check(cudaError_t e, const char *what, const char *file, int line);
#define MBT_CUDA(call) mbt_cuda_check((call), #call, __FILE__, __LINE__)
/* What the test is doing now; printed with any CUDA error (a kernel fault surfaces later). */
void mbt_context(const char *fmt, ...) MBT_PRINTF(1, 2);

/* ---- the variants of an op to test: every registered rung, "auto", and "auto+tf32" when
 * the op has a reduced-precision rung ---- */
typedef struct mbt_variant {
    char label[72];     /* rung name, "auto" or "auto+tf32" */
    const char *rung;   /* name given to miniblas_set_rung */
    int index;          /* rung index, -1 for auto */
    int reduced;        /* run under MINIBLAS_MATH_ALLOW_REDUCED_PRECISION, TF32 tolerance */
    int skip;           /* cannot run on this GPU or build (miniblas_rung_supported) */
    int passed, failed; /* this variant's counts */
} mbt_variant;
/* Fills *out (malloc'ed, free it) and returns the count; honours MINIBLAS_TEST_RUNG. */
int mbt_variants(miniblas_op_t op, mbt_variant **out);
/* Select v on h (rung and math mode); records a failure and returns 0 if that fails. */
int mbt_select(miniblas_handle_t h, miniblas_op_t op, mbt_variant *v);
/* After a successful call: miniblas_last_rung must be `expect` ("none", "scale") or, when
 * expect is NULL, the selected rung (for auto: some registered rung, and a full-precision one
 * unless v->reduced). Records pass/fail. */
int mbt_check_last_rung(miniblas_handle_t h, miniblas_op_t op, mbt_variant *v, const char *expect,
                        const char *kase);
void mbt_print_variants(miniblas_op_t op, const mbt_variant *v, int n);

/* ---- counting ---- */
void mbt_pass(mbt_variant *v);                 /* v may be NULL */
/* Prints "FAIL <op> [<rung>] <case>: <message>" (the first 200 failures) and counts it. */
void mbt_fail(mbt_variant *v, const char *op, const char *kase, const char *fmt, ...)
    MBT_PRINTF(4, 5);
/* pass if ok, else mbt_fail; returns ok. */
int mbt_expect(mbt_variant *v, int ok, const char *op, const char *kase, const char *fmt, ...)
    MBT_PRINTF(5, 6);
long mbt_failures(void);

#endif
