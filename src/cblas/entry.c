/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The entry points of libminiblas_cblas: cblas_{s,d}gemm, cblas_{s,d}asum, cblas_{s,d}dot,
 * cblas_{s,d}omatcopy with exactly OpenBLAS's cblas.h signatures (included, so the compiler
 * checks them), and the Fortran (gfortran convention) sgemm_, dgemm_, sasum_, dasum_, sdot_,
 * ddot_. Every other BLAS symbol still comes from the program's own BLAS.
 *
 * Each call: a quick path for small calls on ordinary host memory (the routing decision
 * precomputed: straight to the CPU BLAS), else the one shared argument check (src/check.h) ->
 * cblas_xerbla / xerbla_ with nothing written; the operands' kinds; the routing decision
 * (mbc_route, route.c); the GPU path (gpu_*.c) or the CPU BLAS (cpu_blas.c). A GPU failure
 * finishes the call on the CPU BLAS (notice only when verbose); when neither can run it the
 * error goes through cblas_xerbla (parameter 0) rather than a wrong result. Also the extras
 * of miniblas_cblas.h.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "cblas_internal.h"
#include "cblas_ptr.h"
#include "miniblas_cblas.h"

/* ------------------------------------------------------------------ extras (miniblas_cblas.h) */

static _Thread_local int t_last_path __attribute__((tls_model("initial-exec"))) = MINIBLAS_CBLAS_PATH_NONE;

int miniblas_cblas_force_path(int path) {
    if (path != MINIBLAS_CBLAS_PATH_CPU && path != MINIBLAS_CBLAS_PATH_GPU)
        path = MINIBLAS_CBLAS_PATH_AUTO;
    mbc_init(); /* the settings first: mbc_quick_update reads them */
    int old = __atomic_exchange_n(&mbc_force, path, __ATOMIC_RELAXED);
    mbc_quick_update();
    return old;
}

int miniblas_cblas_last_path(void) { return t_last_path; }

int miniblas_cblas_gpu_available(void) {
    mbc_init();
    return mbc_cfg.gpu && !mbc_flag(&mbc_gpu_broken) && !mbc_flag(&mbc_forked);
}

const char *miniblas_cblas_cpu_blas(void) {
    mbc_init();
    return mbc_cpu.handle ? mbc_cpu.name : NULL;
}

/* ------------------------------------------------------------------ quick paths */

/* Small calls on ordinary host memory: the CPU BLAS straight away. The full path costs 20-40 ns
 * (checks, pointer kinds, the decision), 2-3x an OpenBLAS call at n = 16 and ~10% at n = 1024.
 * The decision that does not depend on the call is precomputed whenever what it reads changes
 * (settings read, forced path, GPU lost, process exiting): a size below g_qlim[x] (the unit of
 * crossover x) surely stays on the CPU when every operand is memory that cannot be CUDA's
 * (mbc_plain_host_known), or whatever it is when g_qall (no GPU, or MINIBLAS_CBLAS_PTR_CHECK=0).
 * 0 (the full path, which decides everything itself) until the settings are read, with a
 * per-call verbose line, or forced onto the GPU. Release/acquire: a nonzero limit means the
 * settings and the CPU BLAS's symbols are visible. */
static int64_t g_qlim[MBC_X_COUNT];
static int g_qall;

/* The reductions' entry points, by their quick-path index: (dot << 1 | double) + 4 Fortran. */
enum { QR_DBL = 1, QR_DOT = 2, QR_FORTRAN = 4, QR_COUNT = 8 };
#define QR_SASUM 0
#define QR_DASUM QR_DBL
#define QR_SDOT QR_DOT
#define QR_DDOT (QR_DOT | QR_DBL)
/* n - 1 < g_qn[q] (unsigned: n >= 1 too) when a call of entry point q with that n stays on the
 * CPU: (limit in bytes - 1) >> double, 0 (never) when the CPU BLAS lacks the entry's symbol. */
static uint64_t g_qn[QR_COUNT];
/* rows * cols < g_qom[double] when an omatcopy stays on the CPU (0: never; no such routine) */
static uint64_t g_qom[2];

static int cpu_has_entry(int q) {
    void *f[QR_COUNT] = {
        [QR_SASUM] = (void *)mbc_cpu.cblas_sasum,
        [QR_DASUM] = (void *)mbc_cpu.cblas_dasum,
        [QR_SDOT] = (void *)mbc_cpu.cblas_sdot,
        [QR_DDOT] = (void *)mbc_cpu.cblas_ddot,
        [QR_FORTRAN | QR_SASUM] = (void *)mbc_cpu.sasum_,
        [QR_FORTRAN | QR_DASUM] = (void *)mbc_cpu.dasum_,
        [QR_FORTRAN | QR_SDOT] = (void *)mbc_cpu.sdot_,
        [QR_FORTRAN | QR_DDOT] = (void *)mbc_cpu.ddot_,
    };
    return f[q] != NULL;
}

void mbc_quick_update(void) {
    /* every pointer host without asking: only where none can be device memory (no CUDA device,
     * or the user turned the check off); a GPU that is off (broken, exiting, forked, disabled)
     * leaves device pointers in the program, which mbc_ptr_kind must refuse */
    __atomic_store_n(&g_qall, !mbc_cfg.cuda_memory || !mbc_cfg.ptr_check, __ATOMIC_RELAXED);
    for (int i = 0; i < MBC_X_COUNT; ++i) {
        int64_t lim = mbc_cfg.verbose >= 2 ? 0 : mbc_route_cpu_below(i); /* verbose: every call
                                                                          says its path */
        __atomic_store_n(&g_qlim[i], lim, __ATOMIC_RELEASE);
    }
    for (int q = 0; q < QR_COUNT; ++q) {
        int64_t lim = g_qlim[q & QR_DOT ? MBC_X_DOT : MBC_X_ASUM];
        uint64_t qn = lim > 0 && cpu_has_entry(q) ? (uint64_t)(lim - 1) >> (q & QR_DBL) : 0;
        __atomic_store_n(&g_qn[q], qn, __ATOMIC_RELEASE);
    }
    int64_t om = g_qlim[MBC_X_OMATCOPY];
    __atomic_store_n(&g_qom[0], mbc_cpu.cblas_somatcopy && om > 0 ? (uint64_t)om : 0,
                     __ATOMIC_RELEASE);
    __atomic_store_n(&g_qom[1], mbc_cpu.cblas_domatcopy && om > 0 ? (uint64_t)om : 0,
                     __ATOMIC_RELEASE);
}

static inline int64_t quick_lim(int x) { return __atomic_load_n(&g_qlim[x], __ATOMIC_ACQUIRE); }
static inline uint64_t quick_n(int q) { return __atomic_load_n(&g_qn[q], __ATOMIC_ACQUIRE); }
static inline uint64_t quick_om(int dbl) { return __atomic_load_n(&g_qom[dbl], __ATOMIC_ACQUIRE); }

static inline int quick_ptr(const void *p) {
    return __atomic_load_n(&g_qall, __ATOMIC_RELAXED) || mbc_plain_host_known(p);
}

/* The reduction entry points (asum: y = x). The quick path, in the entry point itself with no
 * stack frame: unit strides, 1 <= n below the crossover, the CPU BLAS has the entry's symbol
 * (all three in g_qn), and both vectors in the brk heap (then neither is NULL and no argument
 * can be invalid): the CPU BLAS straight away. Through reduce_entry the layer added 15-20 ns to
 * an OpenBLAS call (its frame and checks); a form of ~60 instructions with a call and a frame
 * 5-15 ns to sdot n = 2^10 on the H100 machine, one of ~35 with a frame and separate checks
 * for n > 0, NULL and the symbol 4-9 ns to sasum n = 2^10 (~70-120 ns); this is ~20
 * instructions: keep it so. The slow twin (out of line, one jump away)
 * sends vectors elsewhere that surely stay on the CPU (the program's data, the caller's stack,
 * anywhere when there is no GPU) to the CPU BLAS the same way, everything else to FULL. */
#define REDUCTION(ret, name, q, params, args, unit, n, x, y, call, full)                      \
    __attribute__((noinline)) static ret name##_slow params {                                 \
        if ((unit) && (uint64_t)((int64_t)(n) - 1) < quick_n(q) && (x) && (y) &&              \
            quick_ptr(x) && ((const void *)(y) == (x) || quick_ptr(y))) {                     \
            t_last_path = MINIBLAS_CBLAS_PATH_CPU;                                            \
            return call;                                                                      \
        }                                                                                     \
        return full;                                                                          \
    }                                                                                         \
    ret name params {                                                                         \
        if (__builtin_expect((unit) && (uint64_t)((int64_t)(n) - 1) < quick_n(q) &&           \
                                 mbc_in_heap2(x, y),                                          \
                             1)) {                                                            \
            t_last_path = MINIBLAS_CBLAS_PATH_CPU;                                            \
            return call;                                                                      \
        }                                                                                     \
        return name##_slow args;                                                              \
    }

/* The quick path of gemm: 1 when a call with these arguments may go straight to the CPU BLAS
 * as given: k > 0 and alpha != 0 (else BLAS's special cases, done by gemm_entry), surely valid
 * (the shared check's fast form: plain transposes and layout), small, and on ordinary host
 * memory. The callers read the CPU BLAS's symbol only after this (its acquire load of the
 * limit, nonzero once initialisation has published the table). */
static int quick_gemm(int dbl, int layout, int transa, int transb, int64_t m, int64_t n,
                      int64_t k, double alpha, const void *A, int64_t lda, const void *B,
                      int64_t ldb, const void *C, int64_t ldc) {
    return k > 0 && alpha != 0 &&
           mb_gemm_surely_valid(layout, transa, transb, m, n, k, A, lda, B, ldb, C, ldc) &&
           (double)m * (double)n * (double)k < (double)quick_lim(dbl ? MBC_X_DGEMM : MBC_X_SGEMM) &&
           (!A || quick_ptr(A)) && (!B || quick_ptr(B)) && (!C || quick_ptr(C));
}

static const char *path_name(int p) {
    switch (p) {
    case MINIBLAS_CBLAS_PATH_CPU: return "cpu";
    case MINIBLAS_CBLAS_PATH_GPU: return "gpu";
    case MINIBLAS_CBLAS_PATH_GPU_INPLACE: return "gpu (device pointers)";
    case MINIBLAS_CBLAS_PATH_GPU_FALLBACK: return "gpu failed, cpu";
    default: return "none";
    }
}

static void done(int path, const char *routine, const char *shape) {
    t_last_path = path;
    if (mbc_cfg.verbose >= 2)
        fprintf(stderr, "miniblas_cblas: %s %s -> %s\n", routine, shape, path_name(path));
}

/* Bytes spanned by a column-major rows x cols matrix with leading dimension ld (0: empty). */
static size_t span2d(int64_t rows, int64_t cols, int64_t ld, size_t e) {
    return rows > 0 && cols > 0 ? ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * e : 0;
}
/* Bytes spanned by n elements at increment inc (BLAS: the lowest address is x either way). */
static size_t span1d(int64_t n, int64_t inc, size_t e) {
    uint64_t a = inc < 0 ? (uint64_t)0 - (uint64_t)inc : (uint64_t)inc;
    return n > 0 ? ((size_t)(n - 1) * (size_t)a + 1) * e : 0;
}

/* ------------------------------------------------------------------ gemm */

static void gemm_entry(int dbl, int fortran, int layout, int transa, int transb, int64_t m,
                       int64_t n, int64_t k, double alpha, const void *A, int64_t lda,
                       const void *B, int64_t ldb, double beta, void *C, int64_t ldc) {
    const char *routine = fortran ? (dbl ? "dgemm_" : "sgemm_") : (dbl ? "cblas_dgemm" : "cblas_sgemm");
    size_t e = dbl ? sizeof(double) : sizeof(float);
    t_last_path = MINIBLAS_CBLAS_PATH_NONE;
    mb_check_error ce;
    int p = mb_check_gemm(layout, transa, transb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 0,
                          C, ldc, e, &ce);
    if (p) {
        if (fortran)
            mbc_report_fortran(p - 1, dbl ? "DGEMM " : "SGEMM "); /* Fortran has no layout */
        else
            mbc_report_cblas_gemm(p, layout == CblasRowMajor, routine, ce.message);
        return;
    }
    if (m == 0 || n == 0) return;
    mbc_init();

    /* The column-major problem (row-major: C^T = op(B)^T op(A)^T). */
    mbc_gemm g = {dbl, mb_trans_code(transa), mb_trans_code(transb), m, n, k, alpha, beta,
                  A, lda, B, ldb, C, ldc, MBC_HOST, MBC_HOST, MBC_HOST};
    if (layout == CblasRowMajor) {
        g.ta = mb_trans_code(transb), g.tb = mb_trans_code(transa);
        g.m = n, g.n = m;
        g.A = B, g.lda = ldb, g.B = A, g.ldb = lda;
    }
    int touched = k > 0 && alpha != 0;
    g.c_kind = mbc_ptr_kind(C, span2d(g.m, g.n, g.ldc, e));
    if (touched) {
        g.a_kind = mbc_ptr_kind(g.A, span2d(g.ta ? k : g.m, g.ta ? g.m : k, g.lda, e));
        g.b_kind = mbc_ptr_kind(g.B, span2d(g.tb ? g.n : k, g.tb ? k : g.n, g.ldb, e));
    }
    int cpu_have = dbl ? (mbc_cpu.cblas_dgemm || mbc_cpu.dgemm_) : (mbc_cpu.cblas_sgemm || mbc_cpu.sgemm_);
    /* operands in the caller's order (A, B, C): a refusal names the first unreachable one */
    int row = layout == CblasRowMajor;
    mbc_call call = {dbl ? MBC_X_DGEMM : MBC_X_SGEMM,
                     touched ? (double)m * (double)n * (double)k : -1,
                     m < n ? (m < k ? m : k) : (n < k ? n : k), cpu_have, touched ? 3 : 1,
                     {row ? g.b_kind : g.a_kind, row ? g.a_kind : g.b_kind, g.c_kind}};
    if (!touched) call.kind[0] = g.c_kind;
    int bad = 0;
    mbc_route_t route = mbc_route(&call, &bad);
    if (route == MBC_ROUTE_REFUSE) {
        if (!touched) bad = 2;
        int param = bad == 0 ? 8 : bad == 1 ? 10 : 13;
        if (fortran)
            mbc_report_fortran(param - 1, dbl ? "DGEMM " : "SGEMM ");
        else
            mbc_report_unreachable(param, routine, bad == 0 ? "A" : bad == 1 ? "B" : "C");
        return;
    }
    int any_dev = g.a_kind == MBC_DEVICE || g.b_kind == MBC_DEVICE || g.c_kind == MBC_DEVICE;
    int go_gpu = route != MBC_ROUTE_CPU;
    char shape[96] = ""; /* only for the verbose per-call line: formatting costs ~0.2 us */
    if (mbc_cfg.verbose >= 2)
        snprintf(shape, sizeof shape, "m=%lld n=%lld k=%lld", (long long)m, (long long)n, (long long)k);
    int fell_back = 0;
    if (go_gpu) {
        char msg[400];
        mbc_progress pr;
        if (mbc_gpu_gemm(&g, &pr, msg, sizeof msg) == 0) {
            done(route == MBC_ROUTE_GPU_INPLACE ? MINIBLAS_CBLAS_PATH_GPU_INPLACE : MINIBLAS_CBLAS_PATH_GPU,
                 routine, shape);
            return;
        }
        if (any_dev || !cpu_have) {
            /* What the GPU may have left in C: device C is updated in place and pinned C with
             * beta == 0 by DMA, piece by piece; host C is final up to the progress and
             * untouched beyond. With beta != 0 a partial update cannot be undone. */
            int partial = g.c_kind == MBC_DEVICE || (g.c_kind == MBC_PINNED && beta == 0) ||
                          pr.done_col > 0 || pr.done_row > 0;
            mbc_report_cannot(routine, any_dev ? "the GPU failed on device operands" : "the GPU failed and no CPU BLAS",
                       partial ? "C is undefined (the GPU had written part of it)" : "nothing was written");
            mbc_notice("%s: %s", routine, msg);
            return;
        }
        mbc_notice("%s: GPU failed (%s); finishing on the CPU BLAS", routine, msg);
        fell_back = 1;
        if (pr.done_col > 0 || pr.done_row > 0) { /* the host C is final up to there */
            int64_t dc = pr.done_col, dr = pr.done_row;
            const char *Ab = g.A, *Bb = g.B;
            char *Cb = g.C;
            if (dr > 0) { /* the rest of column dc (A and B not touched unless `touched`) */
                mbc_cpu_gemm_colmajor(dbl, g.ta, g.tb, g.m - dr, 1, k, alpha,
                                      touched ? Ab + (size_t)(g.ta ? dr * g.lda : dr) * e : NULL, g.lda,
                                      touched ? Bb + (size_t)(g.tb ? dc : dc * g.ldb) * e : NULL, g.ldb,
                                      beta, Cb + (size_t)(dr + dc * g.ldc) * e, g.ldc);
                ++dc;
            }
            if (dc < g.n)
                mbc_cpu_gemm_colmajor(dbl, g.ta, g.tb, g.m, g.n - dc, k, alpha, touched ? Ab : NULL, g.lda,
                                      touched ? Bb + (size_t)(g.tb ? dc : dc * g.ldb) * e : NULL, g.ldb,
                                      beta, Cb + (size_t)dc * (size_t)g.ldc * e, g.ldc);
            done(MINIBLAS_CBLAS_PATH_GPU_FALLBACK, routine, shape);
            return;
        }
    }
    if (!touched) { /* C = beta C here: some CPU BLAS (OpenBLAS's small-matrix kernels) read
                       A and B even when alpha == 0, where BLAS says they are not referenced */
        mbc_cpu_scale_c(dbl, g.m, g.n, beta, g.C, g.ldc);
        done(fell_back ? MINIBLAS_CBLAS_PATH_GPU_FALLBACK : MINIBLAS_CBLAS_PATH_CPU, routine, shape);
        return;
    }
    if (!cpu_have) {
        mbc_report_cannot(routine, "no CPU BLAS could be loaded (MINIBLAS_CPU_BLAS_LIB) and no usable GPU",
                          "nothing was written");
        return;
    }
    /* The CPU BLAS, with the caller's problem as given (transposes as 111/112). */
    enum CBLAS_TRANSPOSE cta = mb_trans_code(transa) ? CblasTrans : CblasNoTrans;
    enum CBLAS_TRANSPOSE ctb = mb_trans_code(transb) ? CblasTrans : CblasNoTrans;
    enum CBLAS_ORDER ord = layout == CblasRowMajor ? CblasRowMajor : CblasColMajor;
    if (!fortran && !dbl && mbc_cpu.cblas_sgemm)
        mbc_cpu.cblas_sgemm(ord, cta, ctb, (blasint)m, (blasint)n, (blasint)k, (float)alpha, A,
                            (blasint)lda, B, (blasint)ldb, (float)beta, C, (blasint)ldc);
    else if (!fortran && dbl && mbc_cpu.cblas_dgemm)
        mbc_cpu.cblas_dgemm(ord, cta, ctb, (blasint)m, (blasint)n, (blasint)k, alpha, A,
                            (blasint)lda, B, (blasint)ldb, beta, C, (blasint)ldc);
    else
        mbc_cpu_gemm_colmajor(dbl, g.ta, g.tb, g.m, g.n, k, alpha, g.A, g.lda, g.B, g.ldb, beta,
                              g.C, g.ldc);
    done(fell_back ? MINIBLAS_CBLAS_PATH_GPU_FALLBACK : MINIBLAS_CBLAS_PATH_CPU, routine, shape);
}

void cblas_sgemm(OPENBLAS_CONST enum CBLAS_ORDER Order, OPENBLAS_CONST enum CBLAS_TRANSPOSE TransA,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE TransB, OPENBLAS_CONST blasint M,
                 OPENBLAS_CONST blasint N, OPENBLAS_CONST blasint K, OPENBLAS_CONST float alpha,
                 OPENBLAS_CONST float *A, OPENBLAS_CONST blasint lda, OPENBLAS_CONST float *B,
                 OPENBLAS_CONST blasint ldb, OPENBLAS_CONST float beta, float *C,
                 OPENBLAS_CONST blasint ldc) {
    if (quick_gemm(0, Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, C, ldc) &&
        mbc_cpu.cblas_sgemm) {
        t_last_path = MINIBLAS_CBLAS_PATH_CPU;
        mbc_cpu.cblas_sgemm(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    gemm_entry(0, 0, Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

void cblas_dgemm(OPENBLAS_CONST enum CBLAS_ORDER Order, OPENBLAS_CONST enum CBLAS_TRANSPOSE TransA,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE TransB, OPENBLAS_CONST blasint M,
                 OPENBLAS_CONST blasint N, OPENBLAS_CONST blasint K, OPENBLAS_CONST double alpha,
                 OPENBLAS_CONST double *A, OPENBLAS_CONST blasint lda, OPENBLAS_CONST double *B,
                 OPENBLAS_CONST blasint ldb, OPENBLAS_CONST double beta, double *C,
                 OPENBLAS_CONST blasint ldc) {
    if (quick_gemm(1, Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, C, ldc) &&
        mbc_cpu.cblas_dgemm) {
        t_last_path = MINIBLAS_CBLAS_PATH_CPU;
        mbc_cpu.cblas_dgemm(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    gemm_entry(1, 0, Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* ------------------------------------------------------------------ asum, dot */

#define ASUM_ONLY INT64_MIN /* incy of an asum */

/* Whether the CPU BLAS has this reduction (its cblas or its Fortran symbol). */
static int cpu_has_reduce(int dbl, int is_dot) {
    return is_dot ? (dbl ? (mbc_cpu.cblas_ddot || mbc_cpu.ddot_) : (mbc_cpu.cblas_sdot || mbc_cpu.sdot_))
                  : (dbl ? (mbc_cpu.cblas_dasum || mbc_cpu.dasum_) : (mbc_cpu.cblas_sasum || mbc_cpu.sasum_));
}

/* The reduction on the CPU BLAS (cblas symbol, or the Fortran one: preferred when called as
 * Fortran, the fallback when the library lacks the other; the caller knows one exists). */
static double cpu_reduce(int dbl, int fortran, int is_dot, int64_t n, const void *x, int64_t incx,
                         const void *y, int64_t incy) {
    blasint N = (blasint)n, IX = (blasint)incx, IY = (blasint)incy;
    double r;
    if (is_dot) {
        if (dbl)
            r = (!fortran || !mbc_cpu.ddot_) && mbc_cpu.cblas_ddot ? mbc_cpu.cblas_ddot(N, x, IX, y, IY)
                                                                    : mbc_cpu.ddot_(&N, x, &IX, y, &IY);
        else
            r = (!fortran || !mbc_cpu.sdot_) && mbc_cpu.cblas_sdot ? mbc_cpu.cblas_sdot(N, x, IX, y, IY)
                                                                    : mbc_cpu.sdot_(&N, x, &IX, y, &IY);
    } else {
        if (dbl)
            r = (!fortran || !mbc_cpu.dasum_) && mbc_cpu.cblas_dasum ? mbc_cpu.cblas_dasum(N, x, IX)
                                                                      : mbc_cpu.dasum_(&N, x, &IX);
        else
            r = (!fortran || !mbc_cpu.sasum_) && mbc_cpu.cblas_sasum ? mbc_cpu.cblas_sasum(N, x, IX)
                                                                      : mbc_cpu.sasum_(&N, x, &IX);
    }
    return r;
}

/* One reduction of entry point q (QR_*; an asum ignores y and incy). Reference BLAS: n <= 0
 * (or asum incx <= 0) is 0. */
static double reduce_entry(int q, int64_t n, const void *x, int64_t incx, const void *y,
                           int64_t incy) {
    int dbl = q & QR_DBL, fortran = (q & QR_FORTRAN) != 0, is_dot = (q & QR_DOT) != 0;
    if (!is_dot) y = NULL, incy = ASUM_ONLY;
    const char *routine = is_dot ? (fortran ? (dbl ? "ddot_" : "sdot_") : (dbl ? "cblas_ddot" : "cblas_sdot"))
                                 : (fortran ? (dbl ? "dasum_" : "sasum_") : (dbl ? "cblas_dasum" : "cblas_sasum"));
    size_t e = dbl ? sizeof(double) : sizeof(float);
    t_last_path = MINIBLAS_CBLAS_PATH_NONE;
    double slot = 0;
    mb_check_error ce;
    int p = is_dot ? mb_check_dot(n, x, incx, y, incy, &slot, e, &ce)
                   : mb_check_asum(n, x, incx, &slot, e, &ce);
    if (p) {
        if (fortran) /* same numbering: Fortran xASUM(N, X, INCX), xDOT(N, X, INCX, Y, INCY) */
            mbc_report_fortran(p, is_dot ? (dbl ? "DDOT  " : "SDOT  ") : (dbl ? "DASUM " : "SASUM "));
        else
            mbc_report_cblas(p, routine, ce.message);
        return 0;
    }
    if (n <= 0 || (!is_dot && incx <= 0)) return 0;
    mbc_init();
    int xk = mbc_ptr_kind(x, span1d(n, incx, e));
    int yk = is_dot ? mbc_ptr_kind(y, span1d(n, incy, e)) : MBC_HOST;
    int cpu_have = cpu_has_reduce(dbl, is_dot);
    mbc_call call = {is_dot ? MBC_X_DOT : MBC_X_ASUM, (double)(n << dbl) /* bytes */, INT64_MAX,
                     cpu_have, is_dot ? 2 : 1, {xk, yk, MBC_HOST}};
    int bad = 0;
    mbc_route_t route = mbc_route(&call, &bad);
    if (route == MBC_ROUTE_REFUSE) {
        if (fortran) /* Fortran's xerbla_ has no room for a sentence: the number only */
            mbc_report_fortran(bad ? 4 : 2,
                               is_dot ? (dbl ? "DDOT  " : "SDOT  ") : (dbl ? "DASUM " : "SASUM "));
        else
            mbc_report_unreachable(bad ? 4 : 2, routine, bad ? "y" : "x");
        return 0;
    }
    int any_dev = xk == MBC_DEVICE || yk == MBC_DEVICE;
    int go_gpu = route != MBC_ROUTE_CPU;
    char shape[48] = "";
    if (mbc_cfg.verbose >= 2) snprintf(shape, sizeof shape, "n=%lld", (long long)n);
    int fell_back = 0;
    if (go_gpu) {
        char msg[400];
        double r = 0;
        int rc = is_dot ? mbc_gpu_dot(dbl, n, x, incx, xk, y, incy, yk, &r, msg, sizeof msg)
                        : mbc_gpu_asum(dbl, n, x, incx, xk, &r, msg, sizeof msg);
        if (rc == 0) {
            done(route == MBC_ROUTE_GPU_INPLACE ? MINIBLAS_CBLAS_PATH_GPU_INPLACE : MINIBLAS_CBLAS_PATH_GPU,
                 routine, shape);
            return r;
        }
        if (any_dev || !cpu_have) {
            mbc_report_cannot(routine, any_dev ? "the GPU failed on device operands" : "the GPU failed and no CPU BLAS",
                              "nothing was written");
            mbc_notice("%s: %s", routine, msg);
            return 0;
        }
        mbc_notice("%s: GPU failed (%s); running on the CPU BLAS", routine, msg);
        fell_back = 1;
    }
    if (!cpu_have) {
        mbc_report_cannot(routine, "no CPU BLAS could be loaded (MINIBLAS_CPU_BLAS_LIB) and no usable GPU",
                          "nothing was written");
        return 0;
    }
    double r = cpu_reduce(dbl, fortran, is_dot, n, x, incx, y, incy);
    done(fell_back ? MINIBLAS_CBLAS_PATH_GPU_FALLBACK : MINIBLAS_CBLAS_PATH_CPU, routine, shape);
    return r;
}

REDUCTION(float, cblas_sasum, QR_SASUM,
          (OPENBLAS_CONST blasint n, OPENBLAS_CONST float *x, OPENBLAS_CONST blasint incx),
          (n, x, incx), incx == 1, n, x, x, mbc_cpu.cblas_sasum(n, x, 1),
          (float)reduce_entry(QR_SASUM, n, x, incx, NULL, 0))
REDUCTION(double, cblas_dasum, QR_DASUM,
          (OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx),
          (n, x, incx), incx == 1, n, x, x, mbc_cpu.cblas_dasum(n, x, 1),
          reduce_entry(QR_DASUM, n, x, incx, NULL, 0))
REDUCTION(float, cblas_sdot, QR_SDOT,
          (OPENBLAS_CONST blasint n, OPENBLAS_CONST float *x, OPENBLAS_CONST blasint incx,
           OPENBLAS_CONST float *y, OPENBLAS_CONST blasint incy),
          (n, x, incx, y, incy), (incx == 1) & (incy == 1), n, x, y,
          mbc_cpu.cblas_sdot(n, x, 1, y, 1), (float)reduce_entry(QR_SDOT, n, x, incx, y, incy))
REDUCTION(double, cblas_ddot, QR_DDOT,
          (OPENBLAS_CONST blasint n, OPENBLAS_CONST double *x, OPENBLAS_CONST blasint incx,
           OPENBLAS_CONST double *y, OPENBLAS_CONST blasint incy),
          (n, x, incx, y, incy), (incx == 1) & (incy == 1), n, x, y,
          mbc_cpu.cblas_ddot(n, x, 1, y, 1), reduce_entry(QR_DDOT, n, x, incx, y, incy))

/* ------------------------------------------------------------------ omatcopy */

static void omatcopy_plain(int dbl, int t, int64_t rows, int64_t cols, double alpha,
                           const void *A, int64_t lda, void *B, int64_t ldb) {
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            int64_t src = i + j * lda, dst = t ? j + i * ldb : i + j * ldb;
            if (dbl)
                ((double *)B)[dst] = alpha * ((const double *)A)[src];
            else
                ((float *)B)[dst] = (float)alpha * ((const float *)A)[src];
        }
}

/* B = 0 (alpha == 0): A is not read, so NaN or Inf in A does not reach B (OpenBLAS's omatcopy
 * reads A and writes 0 * A on some paths). B is brows x bcols, column-major, host memory. */
static void omatcopy_zero(size_t e, int64_t brows, int64_t bcols, void *B, int64_t ldb) {
    for (int64_t j = 0; j < bcols; ++j)
        memset((char *)B + (size_t)(j * ldb) * e, 0, (size_t)brows * e);
}

static void omatcopy_entry(int dbl, int layout, int trans, int64_t rows, int64_t cols,
                           double alpha, const void *A, int64_t lda, void *B, int64_t ldb) {
    const char *routine = dbl ? "cblas_domatcopy" : "cblas_somatcopy";
    size_t e = dbl ? sizeof(double) : sizeof(float);
    t_last_path = MINIBLAS_CBLAS_PATH_NONE;
    mb_check_error ce;
    int p = mb_check_omatcopy(layout, trans, rows, cols, A, lda, B, ldb, e, &ce);
    if (p) {
        mbc_report_cblas(p, routine, ce.message);
        return;
    }
    if (rows == 0 || cols == 0) return;
    mbc_init();
    int t = mb_trans_code(trans);
    int64_t r = layout == CblasColMajor ? rows : cols, c = layout == CblasColMajor ? cols : rows;
    int ak = mbc_ptr_kind(A, span2d(r, c, lda, e)), bk = mbc_ptr_kind(B, span2d(t ? c : r, t ? r : c, ldb, e));
    /* the CPU can always run it: the CPU BLAS's omatcopy, else plain loops */
    mbc_call call = {MBC_X_OMATCOPY, (double)rows * (double)cols, INT64_MAX, 1, 2, {ak, bk, MBC_HOST}};
    int bad = 0;
    mbc_route_t route = mbc_route(&call, &bad);
    if (route == MBC_ROUTE_REFUSE) {
        mbc_report_unreachable(bad ? 8 : 6, routine, bad ? "B" : "A");
        return;
    }
    int any_dev = ak == MBC_DEVICE || bk == MBC_DEVICE;
    int go_gpu = route != MBC_ROUTE_CPU;
    char shape[64] = "";
    if (mbc_cfg.verbose >= 2)
        snprintf(shape, sizeof shape, "rows=%lld cols=%lld", (long long)rows, (long long)cols);
    int fell_back = 0;
    if (go_gpu) {
        char msg[400];
        if (mbc_gpu_omatcopy(dbl, t, r, c, alpha, A, lda, ak, B, ldb, bk, msg, sizeof msg) == 0) {
            done(route == MBC_ROUTE_GPU_INPLACE ? MINIBLAS_CBLAS_PATH_GPU_INPLACE : MINIBLAS_CBLAS_PATH_GPU,
                 routine, shape);
            return;
        }
        if (any_dev) {
            mbc_report_cannot(routine, "the GPU failed on device operands",
                       bk == MBC_HOST ? "nothing was written" : "B is undefined (the GPU may have written part of it)");
            mbc_notice("%s: %s", routine, msg);
            return;
        }
        mbc_notice("%s: GPU failed (%s); running on the CPU", routine, msg);
        fell_back = 1; /* B is only written, so redoing all of it is right */
    }
    enum CBLAS_TRANSPOSE ct = t ? CblasTrans : CblasNoTrans;
    enum CBLAS_ORDER ord = layout == CblasRowMajor ? CblasRowMajor : CblasColMajor;
    if (alpha == 0) /* +-0: zeros, A not read (the GPU path does the same) */
        omatcopy_zero(e, t ? c : r, t ? r : c, B, ldb);
    else if (!dbl && mbc_cpu.cblas_somatcopy)
        mbc_cpu.cblas_somatcopy(ord, ct, (blasint)rows, (blasint)cols, (float)alpha, A,
                                (blasint)lda, B, (blasint)ldb);
    else if (dbl && mbc_cpu.cblas_domatcopy)
        mbc_cpu.cblas_domatcopy(ord, ct, (blasint)rows, (blasint)cols, alpha, A, (blasint)lda, B,
                                (blasint)ldb);
    else /* not every CPU BLAS has omatcopy (an OpenBLAS extension): plain loops */
        omatcopy_plain(dbl, t, r, c, alpha, A, lda, B, ldb);
    done(fell_back ? MINIBLAS_CBLAS_PATH_GPU_FALLBACK : MINIBLAS_CBLAS_PATH_CPU, routine, shape);
}

/* The quick path of omatcopy, as the reductions': surely valid (N/T, sizes > 0), rows * cols
 * below the crossover and the CPU BLAS has the routine (g_qom), alpha != 0 (alpha == 0 writes
 * zeros without reading A: omatcopy_entry), both matrices in the brk heap:
 * the CPU BLAS's omatcopy as called, from the entry point; the slow twin takes the program's
 * data and the caller's stack the same way, the rest to omatcopy_entry. Through
 * omatcopy_entry alone (the full check, pointer kinds, the decision) the layer added 15-20 ns
 * a call: 1.92x / 1.55x / 1.15x / 1.06x of OpenBLAS's somatcopy at 8x8 / 16x16 / 32x32 /
 * 64x64. */
/* x != 0 (NaN counts as nonzero), from the bits: the sign shifted out, three instructions where
 * the floating-point compare takes seven on x86-64. */
static inline int nonzero_f(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (u << 1) != 0;
}
static inline int nonzero_d(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u << 1) != 0;
}
#define NONZERO(x) _Generic((x), float: nonzero_f, double: nonzero_d)(x)

#define OMATCOPY(name, dbl, T, call)                                                              \
    __attribute__((noinline)) static void name##_slow(                                            \
        OPENBLAS_CONST enum CBLAS_ORDER CORDER, OPENBLAS_CONST enum CBLAS_TRANSPOSE CTRANS,       \
        OPENBLAS_CONST blasint crows, OPENBLAS_CONST blasint ccols, OPENBLAS_CONST T calpha,     \
        OPENBLAS_CONST T *a, OPENBLAS_CONST blasint clda, T *b, OPENBLAS_CONST blasint cldb) {   \
        if (mb_omatcopy_surely_valid(CORDER, CTRANS, crows, ccols, a, clda, b, cldb) &&           \
            (uint64_t)crows * (uint64_t)ccols < quick_om(dbl) && NONZERO(calpha) &&               \
            quick_ptr(a) && quick_ptr(b)) {                                                       \
            t_last_path = MINIBLAS_CBLAS_PATH_CPU;                                                \
            call;                                                                                 \
            return;                                                                               \
        }                                                                                         \
        omatcopy_entry(dbl, CORDER, CTRANS, crows, ccols, calpha, a, clda, b, cldb);              \
    }                                                                                             \
    void name(OPENBLAS_CONST enum CBLAS_ORDER CORDER, OPENBLAS_CONST enum CBLAS_TRANSPOSE CTRANS, \
              OPENBLAS_CONST blasint crows, OPENBLAS_CONST blasint ccols,                         \
              OPENBLAS_CONST T calpha, OPENBLAS_CONST T *a, OPENBLAS_CONST blasint clda, T *b,    \
              OPENBLAS_CONST blasint cldb) {                                                      \
        if (__builtin_expect(mb_omatcopy_surely_valid(CORDER, CTRANS, crows, ccols, a, clda, b,   \
                                                      cldb) &&                                    \
                                 (uint64_t)crows * (uint64_t)ccols < quick_om(dbl) &&             \
                                 NONZERO(calpha) && mbc_in_heap2(a, b),                           \
                             1)) {                                                                \
            t_last_path = MINIBLAS_CBLAS_PATH_CPU;                                                \
            call;                                                                                 \
            return;                                                                               \
        }                                                                                         \
        name##_slow(CORDER, CTRANS, crows, ccols, calpha, a, clda, b, cldb);                      \
    }

OMATCOPY(cblas_somatcopy, 0, float,
         mbc_cpu.cblas_somatcopy(CORDER, CTRANS, crows, ccols, calpha, a, clda, b, cldb))
OMATCOPY(cblas_domatcopy, 1, double,
         mbc_cpu.cblas_domatcopy(CORDER, CTRANS, crows, ccols, calpha, a, clda, b, cldb))

/* ------------------------------------------------------------------ Fortran (gfortran) */

/* CHARACTER*1 transpose argument -> CBLAS value; 0 (invalid) for anything else. 'R' (conjugate,
 * no transpose) is 'N' for real data: OpenBLAS's sgemm_/dgemm_ accept it so, reference BLAS
 * refuses it; the layer answers as the CPU BLAS it sits in front of (OpenBLAS) does. Either
 * goes to the full path (the quick path takes N and T only), which passes the CPU BLAS 'N' or
 * 'T'. */
static int ftrans(const char *c) {
    switch (*c) {
    case 'N': case 'n': return CblasNoTrans;
    case 'T': case 't': return CblasTrans;
    case 'C': case 'c': return CblasConjTrans;
    case 'R': case 'r': return CblasConjNoTrans;
    default: return 0;
    }
}

void sgemm_(const char *transa, const char *transb, const blasint *m, const blasint *n,
            const blasint *k, const float *alpha, const float *a, const blasint *lda,
            const float *b, const blasint *ldb, const float *beta, float *c, const blasint *ldc,
            size_t transa_len, size_t transb_len) {
    (void)transa_len, (void)transb_len;
    if (quick_gemm(0, CblasColMajor, ftrans(transa), ftrans(transb), *m, *n, *k, *alpha, a, *lda,
                   b, *ldb, c, *ldc) &&
        mbc_cpu.sgemm_) {
        t_last_path = MINIBLAS_CBLAS_PATH_CPU;
        mbc_cpu.sgemm_(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len,
                        transb_len);
        return;
    }
    gemm_entry(0, 1, CblasColMajor, ftrans(transa), ftrans(transb), *m, *n, *k, *alpha, a, *lda,
               b, *ldb, *beta, c, *ldc);
}

void dgemm_(const char *transa, const char *transb, const blasint *m, const blasint *n,
            const blasint *k, const double *alpha, const double *a, const blasint *lda,
            const double *b, const blasint *ldb, const double *beta, double *c,
            const blasint *ldc, size_t transa_len, size_t transb_len) {
    (void)transa_len, (void)transb_len;
    if (quick_gemm(1, CblasColMajor, ftrans(transa), ftrans(transb), *m, *n, *k, *alpha, a, *lda,
                   b, *ldb, c, *ldc) &&
        mbc_cpu.dgemm_) {
        t_last_path = MINIBLAS_CBLAS_PATH_CPU;
        mbc_cpu.dgemm_(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, transa_len,
                        transb_len);
        return;
    }
    gemm_entry(1, 1, CblasColMajor, ftrans(transa), ftrans(transb), *m, *n, *k, *alpha, a, *lda,
               b, *ldb, *beta, c, *ldc);
}

/* gfortran returns REAL in xmm0 as a C float, DOUBLE PRECISION as a C double. */
REDUCTION(float, sasum_, QR_FORTRAN | QR_SASUM,
          (const blasint *n, const float *x, const blasint *incx), (n, x, incx), *incx == 1, *n,
          x, x, mbc_cpu.sasum_(n, x, incx),
          (float)reduce_entry(QR_FORTRAN | QR_SASUM, *n, x, *incx, NULL, 0))
REDUCTION(double, dasum_, QR_FORTRAN | QR_DASUM,
          (const blasint *n, const double *x, const blasint *incx), (n, x, incx), *incx == 1,
          *n, x, x, mbc_cpu.dasum_(n, x, incx),
          reduce_entry(QR_FORTRAN | QR_DASUM, *n, x, *incx, NULL, 0))
REDUCTION(float, sdot_, QR_FORTRAN | QR_SDOT,
          (const blasint *n, const float *x, const blasint *incx, const float *y,
           const blasint *incy),
          (n, x, incx, y, incy), (*incx == 1) & (*incy == 1), *n, x, y,
          mbc_cpu.sdot_(n, x, incx, y, incy),
          (float)reduce_entry(QR_FORTRAN | QR_SDOT, *n, x, *incx, y, *incy))
REDUCTION(double, ddot_, QR_FORTRAN | QR_DDOT,
          (const blasint *n, const double *x, const blasint *incx, const double *y,
           const blasint *incy),
          (n, x, incx, y, incy), (*incx == 1) & (*incy == 1), *n, x, y,
          mbc_cpu.ddot_(n, x, incx, y, incy),
          reduce_entry(QR_FORTRAN | QR_DDOT, *n, x, *incx, y, *incy))
