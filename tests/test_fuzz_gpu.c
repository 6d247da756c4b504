/*
 * GPU fuzzer: random calls of every op against references computed here in plain C loops.
 *
 * Built twice from this file:
 *   test_fuzz_gpu        the native API (miniblas_*, device-accessible pointers), 8 host
 *                        threads each with its own handle (half of them on their own stream),
 *                        a random rung (full precision) or auto per call;
 *   test_fuzz_cblas_gpu  (-DMB_FUZZ_CBLAS, tests/fuzz_gpu.cmake) the drop-in cblas_* of
 *                        libminiblas_cblas from 8 threads, GPU path forced, linked against
 *                        libminiblas_cblas only (OpenBLAS's cblas_* would clash).
 * Both exit 77 without a GPU. `test_fuzz_gpu --selftest` (a CPU test) runs the same case
 * generator and checks against a plain C stand-in for the library on host memory, so the
 * oracle itself is tested on any machine.
 *
 * Each call draws: the op (s/d gemm, omatcopy, asum, dot; native: host- or device-result
 * reductions), shapes (0, 1, small, odd, around tile edges 16/32/64/128/256), layouts,
 * transposes (111..114), padded leading dimensions, increments (negative, zero, large), alpha
 * and beta in {0, 1, -1, 0.5, 2, random, NaN, +-Inf}, IEEE specials in the inputs (NaN, +-Inf,
 * +-0, subnormals), pointers offset by 0, 1 or 2 elements, and the memory kind of every operand:
 * heap, mmap, pinned (cudaMallocHost), registered (cudaHostRegister), device, managed (native:
 * heap and mmap only where the GPU can access pageable memory). About one call in eight is
 * invalid (one bad argument: layout, transpose, size, leading dimension, NULL pointer,
 * int64_t extent overflow).
 *
 * Checks: every element of the output against the reference with a bound from the problem
 * (gemm: 2 (k + 2) eps sum|a||b| |alpha| + 2 eps (|alpha S| + |beta c|) + subnormal quanta;
 * reductions: 2 (n + 2) eps sum|terms|; omatcopy: exact), the Inf/NaN class of every element
 * (every class the bound allows; with alpha = +-Inf also NaN, as BLAS implementations that
 * distribute alpha over the terms give), outputs poisoned with a NaN sentinel fully written,
 * padding and guard elements around every output bit-for-bit untouched, beta = 0 never reads
 * C, alpha = 0 never reads A or B; invalid calls: the right status and parameter number
 * (cblas: through the program's cblas_xerbla, reference CBLAS's numbering, which for row-major
 * gemm is that of the swapped column-major call) and nothing written.
 *
 * sgemm: on Hopper `auto` picks 3xTF32, which does not yet handle every FP32 input, so by
 * default sgemm inputs get only the specials it handles (NaN, +-0); MINIBLAS_FUZZ_SGEMM_SPECIALS=1
 * gives sgemm the full set (+-Inf, subnormals) too.
 *
 * Environment: MINIBLAS_FUZZ_SECONDS (default 40; quick mode 15), MINIBLAS_FUZZ_SEED (replay
 * the same case streams), MINIBLAS_FUZZ_THREADS (default 8), MINIBLAS_FUZZ_CALLS (a cap on
 * calls, all threads), MINIBLAS_FUZZ_CASE=0x... (replay one case, one thread, printed with
 * every failure), MINIBLAS_TEST_QUICK=1 (smaller shapes, for compute-sanitizer).
 * Prints the seed and the counts: calls, invalid calls, threads, per op and per memory kind.
 */
#define _GNU_SOURCE
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
static const char *const op_names[2][OP_KINDS] = {{"sgemm", "somatcopy", "sasum", "sdot"},
                                                   {"dgemm", "domatcopy", "dasum", "ddot"}};
enum { K_HEAP, K_MMAP, K_PINNED, K_REGISTERED, K_DEVICE, K_MANAGED, K_COUNT };
static const char *const kind_names[K_COUNT] = {"heap", "mmap", "pinned", "registered", "device",
                                                "managed"};

static uint64_t g_seed;
static double g_seconds;
static int g_threads = 8, g_quick, g_selftest, g_sgemm_specials, g_pageable_ok;
static long g_max_calls = -1;
static int g_kind_ok[K_COUNT];
static double g_t0;

static long g_calls, g_invalid, g_failures, g_printed, g_fatal;
static long g_op_calls[2][OP_KINDS], g_kind_uses[K_COUNT];
static pthread_mutex_t g_print_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static void add(long *c, long v) { __atomic_fetch_add(c, v, __ATOMIC_RELAXED); }
static long get(const long *c) { return __atomic_load_n(c, __ATOMIC_RELAXED); }

/* ------------------------------------------------------------------ random numbers */

typedef struct rng { uint64_t s; } rng;
static uint64_t rnext(rng *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static int rint_(rng *r, int n) { return (int)(rnext(r) % (uint64_t)n); } /* [0, n) */
static int chance(rng *r, int percent) { return rint_(r, 100) < percent; }
static double runif(rng *r) { return (double)(rnext(r) >> 11) * 0x1.0p-52 - 1.0; } /* [-1, 1) */

/* ------------------------------------------------------------------ elements */

#define SENT_F 0x7FC0DEADu
#define SENT_D 0x7FF8DEADBEEFDEADull
#define PADNAN_F 0x7FC0BEEFu
#define PADNAN_D 0x7FF8BEEFBEEFBEEFull

static double eget(const void *p, size_t i, int dbl) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void eset(void *p, size_t i, double v, int dbl) {
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}
static void eset_bits(void *p, size_t i, uint64_t d, uint32_t f, int dbl) {
    if (dbl) memcpy((double *)p + i, &d, 8);
    else memcpy((float *)p + i, &f, 4);
}
static void sentinel(void *p, size_t i, int dbl) { eset_bits(p, i, SENT_D, SENT_F, dbl); }
static void padnan(void *p, size_t i, int dbl) { eset_bits(p, i, PADNAN_D, PADNAN_F, dbl); }
static int same_bits(const void *a, const void *b, size_t i, int dbl) {
    size_t es = dbl ? 8 : 4;
    return memcmp((const char *)a + i * es, (const char *)b + i * es, es) == 0;
}
static int is_sentinel(const void *p, size_t i, int dbl) {
    if (dbl) {
        uint64_t v;
        memcpy(&v, (const double *)p + i, 8);
        return v == SENT_D;
    }
    uint32_t v;
    memcpy(&v, (const float *)p + i, 4);
    return v == SENT_F;
}

/* An IEEE special value: NaN, +-Inf, +-0, a subnormal. allow_inf / allow_sub restrict it. */
static double special(rng *r, int dbl, int allow_inf, int allow_sub) {
    for (;;) {
        switch (rint_(r, 7)) {
        case 0: return NAN;
        case 1: if (allow_inf) return INFINITY; break;
        case 2: if (allow_inf) return -INFINITY; break;
        case 3: return 0.0;
        case 4: return -0.0;
        case 5:
            if (allow_sub)
                return (dbl ? DBL_TRUE_MIN : (double)FLT_TRUE_MIN) * (double)(1 + rint_(r, 1000));
            break;
        default:
            if (allow_sub) return -(dbl ? DBL_MIN : (double)FLT_MIN) * 0.5 * (1.0 + runif(r));
            break;
        }
    }
}

/* A scalar alpha / beta: 0, 1, -1, 0.5, 2, random, NaN, +-Inf (specials rarer). */
static double scalar(rng *r) {
    int w = rint_(r, 100);
    if (w < 15) return 0.0;
    if (w < 35) return 1.0;
    if (w < 45) return -1.0;
    if (w < 50) return 0.5;
    if (w < 55) return 2.0;
    if (w < 88) {
        double v = runif(r);
        return v < 0 ? v - 0.1 : v + 0.1;
    }
    if (w < 92) return NAN;
    if (w < 96) return INFINITY;
    return -INFINITY;
}

/* ------------------------------------------------------------------ memory kinds */

typedef struct buf {
    int kind;
    char *host;    /* the allocation as the host sees it */
    char *api;     /* the pointer given to the library (native registered: the device alias) */
    size_t bytes, map_bytes;
} buf;

static size_t page_round(size_t b) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (b + pg - 1) / pg * pg;
}

static int pick_kind(rng *r) {
    for (;;) {
        int k = rint_(r, K_COUNT);
        if (g_kind_ok[k]) return k;
    }
}

/* 0 on success; on failure a message in msg. */
static int buf_alloc(buf *b, int kind, size_t bytes, char *msg, size_t msz) {
    memset(b, 0, sizeof *b);
    b->kind = kind;
    b->bytes = bytes < 64 ? 64 : bytes;
    cudaError_t e = cudaSuccess;
    void *p = NULL;
    switch (kind) {
    case K_HEAP: p = malloc(b->bytes); break;
    case K_MMAP:
    case K_REGISTERED:
        b->map_bytes = page_round(b->bytes);
        p = mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) p = NULL;
        if (p && kind == K_REGISTERED) {
            e = cudaHostRegister(p, b->map_bytes, cudaHostRegisterMapped | cudaHostRegisterPortable);
            if (e != cudaSuccess) {
                munmap(p, b->map_bytes);
                p = NULL;
            }
        }
        break;
    case K_PINNED: e = cudaMallocHost(&p, b->bytes); break;
    case K_DEVICE: e = cudaMalloc(&p, b->bytes); break;
    case K_MANAGED: e = cudaMallocManaged(&p, b->bytes, cudaMemAttachGlobal); break;
    }
    if (!p || e != cudaSuccess) {
        snprintf(msg, msz, "allocating %zu bytes of %s memory: %s", b->bytes, kind_names[kind],
                 e != cudaSuccess ? cudaGetErrorString(e) : "failed");
        cudaGetLastError();
        return -1;
    }
    b->host = b->api = p;
#ifndef MB_FUZZ_CBLAS
    if (kind == K_REGISTERED) {
        void *d = NULL;
        e = cudaHostGetDevicePointer(&d, p, 0);
        if (e != cudaSuccess) {
            snprintf(msg, msz, "cudaHostGetDevicePointer: %s", cudaGetErrorString(e));
            return -1;
        }
        b->api = d;
    }
#endif
    add(&g_kind_uses[kind], 1);
    return 0;
}

static void buf_free(buf *b) {
    if (!b->host) return;
    switch (b->kind) {
    case K_HEAP: free(b->host); break;
    case K_MMAP: munmap(b->host, b->map_bytes); break;
    case K_REGISTERED:
        cudaHostUnregister(b->host);
        munmap(b->host, b->map_bytes);
        break;
    case K_PINNED: cudaFreeHost(b->host); break;
    case K_DEVICE:
    case K_MANAGED: cudaFree(b->host); break;
    }
    b->host = b->api = NULL;
}

static int host_kind(int kind) { return kind != K_DEVICE && kind != K_MANAGED; }

static int buf_put(buf *b, const void *src, size_t bytes, char *msg, size_t msz) {
    if (host_kind(b->kind)) {
        memcpy(b->host, src, bytes);
        return 0;
    }
    cudaError_t e = cudaMemcpy(b->host, src, bytes, cudaMemcpyDefault);
    /* a pageable upload may return before its DMA lands, and the library's streams need not
     * wait for the legacy stream: wait here */
    if (e == cudaSuccess) e = cudaStreamSynchronize(0);
    if (e != cudaSuccess) snprintf(msg, msz, "upload: %s", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : -1;
}
static int buf_get(void *dst, const buf *b, size_t bytes, char *msg, size_t msz) {
    if (host_kind(b->kind)) {
        memcpy(dst, b->host, bytes);
        return 0;
    }
    cudaError_t e = cudaMemcpy(dst, b->host, bytes, cudaMemcpyDefault);
    if (e != cudaSuccess) snprintf(msg, msz, "download: %s", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : -1;
}

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

static void report(fcase *c, const char *fmt, ...) {
    add(&g_failures, 1);
    c->failed = 1;
    if (__atomic_fetch_add(&g_printed, 1, __ATOMIC_RELAXED) >= 60) return;
    pthread_mutex_lock(&g_print_lock);
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL [thread %d, case 0x%016" PRIx64 "] %s%s%s: ", c->w ? c->w->id : -1, c->seed,
           c->what, c->w && c->w->rung ? " rung " : "", c->w && c->w->rung ? c->w->rung : "");
    vprintf(fmt, ap);
    printf("\n  replay: MINIBLAS_FUZZ_CASE=0x%016" PRIx64 "%s\n", c->seed,
           g_sgemm_specials ? " MINIBLAS_FUZZ_SGEMM_SPECIALS=1" : "");
    va_end(ap);
    fflush(stdout);
    pthread_mutex_unlock(&g_print_lock);
}

/* A CUDA failure outside the library's calls: this thread stops (the context may be broken). */
static void fatal(fcase *c, const char *msg) {
    report(c, "%s", msg);
    add(&g_fatal, 1);
}

/* ------------------------------------------------------------------ shapes */

static int64_t dim(rng *r, int64_t cap) {
    static const int64_t edges[] = {15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257};
    int w = rint_(r, 100);
    int64_t v;
    if (w < 4) v = 0;
    else if (w < 16) v = 1;
    else if (w < 40) v = 2 + rint_(r, 9);
    else if (w < 70) v = edges[rint_(r, (int)(sizeof edges / sizeof edges[0]))];
    else v = 1 + rint_(r, 300);
    return v > cap ? cap : v;
}

static int64_t imax1(int64_t v) { return v > 1 ? v : 1; }

static int trans_value(rng *r) {
    static const int t[] = {111, 112, 111, 112, 113, 114};
    return t[rint_(r, 6)];
}
static int is_t(int t) { return t == 112 || t == 113; }

static int64_t ld_pad(rng *r) {
    int w = rint_(r, 10);
    return w < 5 ? 0 : w < 8 ? 1 + rint_(r, 3) : 17 + rint_(r, 50);
}

/* Stored position of element (i, j) of a matrix in the layout. */
static size_t pos(int col, int64_t i, int64_t j, int64_t ld) {
    return col ? (size_t)(i + j * ld) : (size_t)(i * ld + j);
}

/* Storage offset of logical element 0 of an n-element vector (a negative increment starts at
 * the far end); never negates inc when n <= 1. */
static int64_t vstart(int64_t n, int64_t inc) {
    if (n <= 1 || inc >= 0) return 0;
    return (int64_t)((uint64_t)(n - 1) * (0u - (uint64_t)inc));
}
/* Storage position of logical element i. */
static size_t vpos(int64_t n, int64_t inc, int64_t i) {
    return n > 1 ? (size_t)(vstart(n, inc) + i * inc) : 0;
}

/* ------------------------------------------------------------------ the calls */

#define GUARD 8

/* Outcome of a library call: status (native) or xerbla parameter (cblas, 0 = none). */
typedef struct outcome {
    int invalid_param; /* parameter reported (native: last_error_param on INVALID_VALUE) */
    int status_ok;     /* native: SUCCESS; cblas: no xerbla */
    char msg[300];
} outcome;

#ifdef MB_FUZZ_CBLAS
static _Thread_local int t_xerbla_calls, t_xerbla_param;
void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    (void)rout;
    (void)form;
    ++t_xerbla_calls;
    t_xerbla_param = (int)p;
}
static void before_call(void) { t_xerbla_calls = 0, t_xerbla_param = 0; }
static void after_call(outcome *o) {
    o->status_ok = t_xerbla_calls == 0;
    o->invalid_param = t_xerbla_param;
    snprintf(o->msg, sizeof o->msg, "cblas_xerbla called %d times, parameter %d", t_xerbla_calls,
             t_xerbla_param);
    if (t_xerbla_calls > 1) o->invalid_param = -1;
}
#endif

/* ---- the plain C stand-in for the library (--selftest) ---- */
#ifndef MB_FUZZ_CBLAS
static miniblas_status_t st_gemm(int dbl, int layout, int ta, int tb, int64_t m, int64_t n,
                                 int64_t k, double alpha, const void *A, int64_t lda,
                                 const void *B, int64_t ldb, double beta, void *C, int64_t ldc,
                                 int *param) {
    mb_check_error ce;
    *param = mb_check_gemm(layout, ta, tb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 0, C,
                           ldc, dbl ? 8 : 4, &ce);
    if (*param) return MINIBLAS_STATUS_INVALID_VALUE;
    const int col = layout == 102;
    const int tA = mb_trans_code(ta), tB = mb_trans_code(tb);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            size_t pc = pos(col, i, j, ldc);
            if (dbl) {
                double s = 0;
                if (alpha != 0)
                    for (int64_t l = 0; l < k; ++l)
                        s += ((const double *)A)[tA ? pos(col, l, i, lda) : pos(col, i, l, lda)] *
                             ((const double *)B)[tB ? pos(col, j, l, ldb) : pos(col, l, j, ldb)];
                double c = beta == 0 ? 0 : beta * ((double *)C)[pc];
                ((double *)C)[pc] = (alpha == 0 || k == 0) ? c : alpha * s + c;
            } else {
                float s = 0, al = (float)alpha, be = (float)beta;
                if (alpha != 0)
                    for (int64_t l = 0; l < k; ++l)
                        s += ((const float *)A)[tA ? pos(col, l, i, lda) : pos(col, i, l, lda)] *
                             ((const float *)B)[tB ? pos(col, j, l, ldb) : pos(col, l, j, ldb)];
                float c = be == 0 ? 0 : be * ((float *)C)[pc];
                ((float *)C)[pc] = (al == 0 || k == 0) ? c : al * s + c;
            }
        }
    return MINIBLAS_STATUS_SUCCESS;
}
static miniblas_status_t st_omatcopy(int dbl, int layout, int trans, int64_t rows, int64_t cols,
                                     double alpha, const void *A, int64_t lda, void *B,
                                     int64_t ldb, int *param) {
    mb_check_error ce;
    *param = mb_check_omatcopy(layout, trans, rows, cols, A, lda, B, ldb, dbl ? 8 : 4, &ce);
    if (*param) return MINIBLAS_STATUS_INVALID_VALUE;
    const int col = layout == 102, t = mb_trans_code(trans);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            size_t pa = pos(col, i, j, lda), pb = t ? pos(col, j, i, ldb) : pos(col, i, j, ldb);
            if (dbl) ((double *)B)[pb] = alpha == 0 ? 0.0 : alpha * ((const double *)A)[pa];
            else ((float *)B)[pb] = (float)alpha == 0 ? 0.0f : (float)alpha * ((const float *)A)[pa];
        }
    return MINIBLAS_STATUS_SUCCESS;
}
static miniblas_status_t st_reduce(int dbl, int dot, int64_t n, const void *x, int64_t incx,
                                   const void *y, int64_t incy, void *result, int *param) {
    mb_check_error ce;
    *param = dot ? mb_check_dot(n, x, incx, y, incy, result, dbl ? 8 : 4, &ce)
                 : mb_check_asum(n, x, incx, result, dbl ? 8 : 4, &ce);
    if (*param) return MINIBLAS_STATUS_INVALID_VALUE;
    double s = 0;
    float sf = 0;
    if (n > 0 && (dot || incx > 0)) {
        for (int64_t i = 0; i < n; ++i) {
            double a = eget(x, vpos(n, incx, i), dbl);
            double t = dot ? a * eget(y, vpos(n, incy, i), dbl) : fabs(a);
            if (dot && !dbl) t = (double)((float)a * (float)eget(y, vpos(n, incy, i), 0));
            s += t;
            sf += (float)t;
        }
    }
    eset(result, 0, dbl ? s : (double)sf, dbl);
    return MINIBLAS_STATUS_SUCCESS;
}
#endif

/* ------------------------------------------------------------------ checking helpers */

enum { CL_FIN = 1, CL_PINF = 2, CL_NINF = 4, CL_NAN = 8 };
static unsigned cls(double v) {
    return isnan(v) ? CL_NAN : isinf(v) ? (v > 0 ? CL_PINF : CL_NINF) : CL_FIN;
}
static const char *cls_name(unsigned c) {
    return c == CL_NAN ? "NaN" : c == CL_PINF ? "+Inf" : c == CL_NINF ? "-Inf" : "finite";
}

/* A sum of terms, as the reference sees it: value (long double), sum of |terms|, and the
 * classes of the terms (any NaN, any +Inf, any -Inf). */
typedef struct rsum {
    long double s, abs;
    int nan, pinf, ninf;
} rsum;
static void rs_add(rsum *r, double t) {
    if (isnan(t)) r->nan = 1;
    else if (isinf(t)) (t > 0 ? (r->pinf = 1) : (r->ninf = 1));
    else {
        r->s += t;
        r->abs += fabs(t);
    }
}

/* Expected out = alpha * S + (beta_zero ? 0 : beta * c) for a sum S of `terms` terms computed
 * in precision dbl with error up to the bound. Returns the allowed classes; *want and *tol the
 * value and tolerance when finite is allowed. alpha_inf_nan: alpha = +-Inf may also give NaN. */
static unsigned expect_combo(const rsum *r, int64_t terms, int dbl, double alpha, int beta_zero,
                             double beta, double c, double *want, double *tol) {
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    const double tiny = dbl ? DBL_TRUE_MIN : (double)FLT_TRUE_MIN;
    const double bc = beta_zero ? 0.0 : beta * c;
    unsigned allowed = 0;
    if (r->nan || (r->pinf && r->ninf)) {
        allowed = cls(alpha * NAN + bc);
        *want = NAN;
        *tol = 0;
        return allowed | CL_NAN;
    }
    if (r->pinf || r->ninf) {
        double S = r->pinf ? INFINITY : -INFINITY;
        allowed = cls(alpha * S + bc);
        if (isinf(alpha) || alpha == 0) allowed |= CL_NAN;
        *want = alpha * S + bc;
        *tol = 0;
        return allowed;
    }
    const double S = (double)r->s;
    const double E = 2.0 * (double)(terms + 2) * eps * (double)r->abs + 4.0 * (double)terms * tiny;
    const double cand[4] = {S - E, S, S + E, 0.0};
    const int ncand = (S - E <= 0 && S + E >= 0) ? 4 : 3;
    for (int i = 0; i < ncand; ++i) allowed |= cls(alpha * cand[i] + bc);
    if (isinf(alpha)) allowed |= CL_NAN;
    *want = alpha * S + bc;
    *tol = fabs(alpha) * E + 2.0 * eps * (fabs(alpha * S) + fabs(bc)) + 4.0 * tiny;
    return allowed;
}

/* Checks one output element: returns 1 when acceptable. */
static int element_ok(double got, unsigned allowed, double want, double tol) {
    unsigned c = cls(got);
    if (!(c & allowed)) return 0;
    if (c != CL_FIN) return 1;
    if (!isfinite(want)) return 1; /* finite is allowed only by the error interval */
    return fabs(got - want) <= tol;
}

/* Fill an input image: n elements, random in [-1, 1), a fraction of specials. */
static void fill_input(rng *r, void *p, size_t n, int dbl, int density, int allow_inf,
                       int allow_sub) {
    for (size_t i = 0; i < n; ++i)
        eset(p, i, (density && rint_(r, 1000) < density) ? special(r, dbl, allow_inf, allow_sub)
                                                         : runif(r), dbl);
}

/* ------------------------------------------------------------------ gemm */

static void case_gemm(fcase *fc, rng *r) {
    const int dbl = fc->dbl;
    const size_t es = dbl ? 8 : 4;
    const int layout0 = chance(r, 50) ? 101 : 102, ta0 = trans_value(r), tb0 = trans_value(r);
    int64_t cap = g_quick ? 70 : 300;
    int64_t m0 = dim(r, cap), n0 = dim(r, cap), k0 = dim(r, cap);
    const int64_t budget = g_quick ? 100000 : 3000000;
    while (m0 * n0 * k0 > budget) {
        if (k0 >= m0 && k0 >= n0) k0 /= 2;
        else if (m0 >= n0) m0 /= 2;
        else n0 /= 2;
    }
    double alpha = scalar(r), beta = scalar(r);
    if (!dbl) alpha = (float)alpha, beta = (float)beta;
    const int col = layout0 == 102, tA = is_t(ta0), tB = is_t(tb0);
    /* stored (lead x outer) shapes of the valid problem */
    const int64_t ar = tA ? k0 : m0, ac = tA ? m0 : k0, br = tB ? n0 : k0, bc = tB ? k0 : n0;
    const int64_t alead = col ? ar : ac, aout = col ? ac : ar;
    const int64_t blead = col ? br : bc, bout = col ? bc : br;
    const int64_t clead = col ? m0 : n0, cout = col ? n0 : m0;
    const int64_t lda0 = imax1(alead) + ld_pad(r), ldb0 = imax1(blead) + ld_pad(r),
                  ldc0 = imax1(clead) + ld_pad(r);
    const int sp_ok = dbl || g_sgemm_specials;
    const int density = chance(r, 60) ? 0 : (chance(r, 50) ? 5 : 60); /* per mille */
    const int oa = rint_(r, 3), ob = rint_(r, 3), oc = rint_(r, 3);

    /* the call's arguments: the valid problem, or it with one bad argument */
    int layout = layout0, ta = ta0, tb = tb0;
    int64_t m = m0, n = n0, k = k0, lda = lda0, ldb = ldb0, ldc = ldc0;
    int bad = 0, expect_param = 0;
    if (chance(r, 12)) {
        const int touched_ab = m0 > 0 && n0 > 0 && k0 > 0 && alpha != 0, touched_c = m0 > 0 && n0 > 0;
        for (int tries = 0; tries < 20 && !bad; ++tries) {
            switch (rint_(r, 13)) {
            case 0: layout = chance(r, 50) ? 100 : 0, bad = 1, expect_param = 1; break;
            case 1: ta = chance(r, 50) ? 110 : 115, bad = 1, expect_param = 2; break;
            case 2: tb = 0, bad = 1, expect_param = 3; break;
            case 3: m = -1 - rint_(r, 5), bad = 1, expect_param = 4; break;
            case 4: n = -1, bad = 1, expect_param = 5; break;
            case 5: k = -7, bad = 1, expect_param = 6; break;
            case 6: lda = imax1(alead) - 1 - rint_(r, 2), bad = 1, expect_param = 9; break;
            case 7: ldb = imax1(blead) - 1, bad = 1, expect_param = 11; break;
            case 8: ldc = chance(r, 50) ? imax1(clead) - 1 : -5, bad = 1, expect_param = 14; break;
#ifndef MB_FUZZ_CBLAS
            case 9: if (touched_ab) bad = 2, expect_param = 8; break;  /* A NULL */
            case 10: if (touched_ab) bad = 3, expect_param = 10; break; /* B NULL */
            case 11: if (touched_c) bad = 4, expect_param = 13; break;  /* C NULL */
            case 12: /* the element extent of A overflows int64_t */
                if (touched_ab && aout >= 3) lda = INT64_MAX / 2, bad = 1, expect_param = 9;
                else if (chance(r, 50)) k = INT64_MIN, bad = 1, expect_param = 6;
                break;
#else
            default: (void)touched_ab, (void)touched_c; break;
#endif
            }
        }
        if (!bad) m = -1, bad = 1, expect_param = 4;
#ifdef MB_FUZZ_CBLAS
        /* reference CBLAS, row-major: the position in the swapped column-major call */
        if (layout == 101) {
            if (expect_param == 4) expect_param = 5;
            else if (expect_param == 5) expect_param = 4;
            else if (expect_param == 9) expect_param = 11;
            else if (expect_param == 11) expect_param = 9;
        }
#endif
        add(&g_invalid, 1);
    }
    snprintf(fc->what, sizeof fc->what,
             "%s %s transA=%d transB=%d M=%" PRId64 " N=%" PRId64 " K=%" PRId64
             " alpha=%g beta=%g lda=%" PRId64 " ldb=%" PRId64 " ldc=%" PRId64
             " offsets A+%d B+%d C+%d specials %d/1000%s",
             op_names[dbl][OP_GEMM], layout == 101 ? "row" : layout == 102 ? "col" : "bad-layout",
             ta, tb, m, n, k, alpha, beta, lda, ldb, ldc, oa, ob, oc, density,
             bad ? " (INVALID)" : "");

    /* buffers laid out for the valid problem (an invalid call must touch none of them) */
    const int64_t sa = alead > 0 && aout > 0 ? lda0 * (aout - 1) + alead : 1;
    const int64_t sb = blead > 0 && bout > 0 ? ldb0 * (bout - 1) + blead : 1;
    const int64_t sc = clead > 0 && cout > 0 ? ldc0 * (cout - 1) + clead : 1;
    const size_t na = (size_t)oa + (size_t)sa, nb = (size_t)ob + (size_t)sb;
    const size_t cbase = (size_t)oc + GUARD, nc = cbase + (size_t)sc + GUARD;
    void *hA = calloc(na, es), *hB = calloc(nb, es), *hC = calloc(nc, es), *out = calloc(nc, es);
    if (!hA || !hB || !hC || !out) {
        fatal(fc, "host allocation failed");
        free(hA), free(hB), free(hC), free(out);
        return;
    }
    /* padding NaN in A and B (a kernel that uses it gives NaN), sentinels around C */
    for (size_t i = 0; i < na; ++i) padnan(hA, i, dbl);
    for (size_t i = 0; i < nb; ++i) padnan(hB, i, dbl);
    for (size_t i = 0; i < nc; ++i) sentinel(hC, i, dbl);
    for (int64_t o = 0; o < aout; ++o)
        for (int64_t l = 0; l < alead; ++l)
            fill_input(r, (char *)hA + ((size_t)oa + (size_t)(o * lda0 + l)) * es, 1, dbl, density,
                       sp_ok, sp_ok);
    for (int64_t o = 0; o < bout; ++o)
        for (int64_t l = 0; l < blead; ++l)
            fill_input(r, (char *)hB + ((size_t)ob + (size_t)(o * ldb0 + l)) * es, 1, dbl, density,
                       sp_ok, sp_ok);
    /* C: values when beta != 0 (or the call is invalid); the sentinel when beta == 0, so an
     * element not written, or C read, shows */
    if (beta != 0 || bad)
        for (int64_t o = 0; o < cout; ++o)
            for (int64_t l = 0; l < clead; ++l)
                fill_input(r, (char *)hC + (cbase + (size_t)(o * ldc0 + l)) * es, 1, dbl, density,
                           sp_ok, sp_ok);
    char msg[300] = "";
    buf bA, bB, bC;
    memset(&bA, 0, sizeof bA), memset(&bB, 0, sizeof bB), memset(&bC, 0, sizeof bC);
    if (buf_alloc(&bA, pick_kind(r), na * es, msg, sizeof msg) ||
        buf_alloc(&bB, pick_kind(r), nb * es, msg, sizeof msg) ||
        buf_alloc(&bC, pick_kind(r), nc * es, msg, sizeof msg) ||
        buf_put(&bA, hA, na * es, msg, sizeof msg) || buf_put(&bB, hB, nb * es, msg, sizeof msg) ||
        buf_put(&bC, hC, nc * es, msg, sizeof msg)) {
        fatal(fc, msg);
        goto done;
    }
    {
        char *kinds = fc->what + strlen(fc->what);
        snprintf(kinds, sizeof fc->what - strlen(fc->what), " memory A:%s B:%s C:%s",
                 kind_names[bA.kind], kind_names[bB.kind], kind_names[bC.kind]);
    }
    const void *pA = bad == 2 ? NULL : bA.api + (size_t)oa * es;
    const void *pB = bad == 3 ? NULL : bB.api + (size_t)ob * es;
    void *pC = bad == 4 ? NULL : bC.api + cbase * es;
    outcome oc_;
    memset(&oc_, 0, sizeof oc_);
#ifdef MB_FUZZ_CBLAS
    before_call();
    if (dbl)
        cblas_dgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb,
                    (blasint)m, (blasint)n, (blasint)k, alpha, pA, (blasint)lda, pB, (blasint)ldb,
                    beta, pC, (blasint)ldc);
    else
        cblas_sgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb,
                    (blasint)m, (blasint)n, (blasint)k, (float)alpha, pA, (blasint)lda, pB,
                    (blasint)ldb, (float)beta, pC, (blasint)ldc);
    after_call(&oc_);
    cudaError_t se = cudaDeviceSynchronize();
#else
    miniblas_status_t st;
    int sparam = 0;
    cudaError_t se = cudaSuccess;
    if (g_selftest) {
        st = st_gemm(dbl, layout, ta, tb, m, n, k, alpha, pA, lda, pB, ldb, beta, pC, ldc, &sparam);
    } else {
        if (dbl)
            st = miniblas_dgemm(fc->w->h, (miniblas_layout_t)layout, (miniblas_transpose_t)ta,
                                (miniblas_transpose_t)tb, m, n, k, alpha, pA, lda, pB, ldb, beta,
                                pC, ldc);
        else
            st = miniblas_sgemm(fc->w->h, (miniblas_layout_t)layout, (miniblas_transpose_t)ta,
                                (miniblas_transpose_t)tb, m, n, k, (float)alpha, pA, lda, pB, ldb,
                                (float)beta, pC, ldc);
        sparam = miniblas_last_error_param(fc->w->h);
        snprintf(oc_.msg, sizeof oc_.msg, "%s; %s", miniblas_status_string(st),
                 miniblas_last_error(fc->w->h));
        se = cudaStreamSynchronize(fc->w->stream);
    }
    oc_.status_ok = st == MINIBLAS_STATUS_SUCCESS;
    oc_.invalid_param = st == MINIBLAS_STATUS_INVALID_VALUE ? sparam : 0;
    if (!oc_.status_ok && st != MINIBLAS_STATUS_INVALID_VALUE) oc_.invalid_param = -2;
#endif
    if (se != cudaSuccess) {
        snprintf(msg, sizeof msg, "after the call: %s (%s)", cudaGetErrorName(se), cudaGetErrorString(se));
        fatal(fc, msg);
        goto done;
    }
    if (buf_get(out, &bC, nc * es, msg, sizeof msg)) {
        fatal(fc, msg);
        goto done;
    }
    if (bad) {
        if (oc_.status_ok || oc_.invalid_param != expect_param)
            report(fc, "invalid call: expected parameter %d reported, got: %s", expect_param, oc_.msg);
        size_t changed = 0;
        for (size_t i = 0; i < nc; ++i) changed += !same_bits(out, hC, i, dbl);
        if (changed) report(fc, "invalid call wrote %zu elements of C's buffer", changed);
        goto done;
    }
    if (!oc_.status_ok) {
        report(fc, "valid call failed: %s", oc_.msg);
        goto done;
    }
    /* every element of C, and everything around it */
    size_t wrong = 0, unwritten = 0, clobbered = 0;
    char first[260] = "";
    for (size_t p = 0; p < nc; ++p) {
        int in_c = p >= cbase && p < cbase + (size_t)sc && m0 > 0 && n0 > 0 &&
                   (int64_t)((p - cbase) % (size_t)ldc0) < clead;
        if (!in_c) {
            if (!same_bits(out, hC, p, dbl) && !clobbered++ && !first[0])
                snprintf(first, sizeof first, "storage element %zu (outside C's matrix) changed to %.9g",
                         p, eget(out, p, dbl));
            continue;
        }
        int64_t q = (int64_t)(p - cbase), l = q % ldc0, o = q / ldc0;
        int64_t i = col ? l : o, j = col ? o : l; /* C(i, j) */
        if (is_sentinel(out, p, dbl)) {
            if (!unwritten++ && !first[0])
                snprintf(first, sizeof first, "C(%" PRId64 ",%" PRId64 ") not written", i, j);
            continue;
        }
        rsum rs;
        memset(&rs, 0, sizeof rs);
        if (alpha != 0)
            for (int64_t t = 0; t < k0; ++t) {
                size_t paa = (size_t)oa + (tA ? pos(col, t, i, lda0) : pos(col, i, t, lda0));
                size_t pbb = (size_t)ob + (tB ? pos(col, j, t, ldb0) : pos(col, t, j, ldb0));
                rs_add(&rs, eget(hA, paa, dbl) * eget(hB, pbb, dbl));
            }
        double want, tol;
        unsigned allowed;
        const double c0 = eget(hC, p, dbl);
        if (alpha == 0 || k0 == 0) {
            double v = beta == 0 ? 0.0 : (dbl ? beta * c0 : (double)((float)beta * (float)c0));
            allowed = cls(v), want = v, tol = 0;
        } else {
            allowed = expect_combo(&rs, k0, dbl, alpha, beta == 0, beta, c0, &want, &tol);
        }
        double got = eget(out, p, dbl);
        if (!element_ok(got, allowed, want, tol)) {
            if (!wrong++ && !first[0])
                snprintf(first, sizeof first,
                         "C(%" PRId64 ",%" PRId64 ") = %.17g (%s), expected %.17g +- %.3g "
                         "(classes allowed: %s%s%s%s)",
                         i, j, got, cls_name(cls(got)), want, tol,
                         allowed & CL_FIN ? "finite " : "", allowed & CL_PINF ? "+Inf " : "",
                         allowed & CL_NINF ? "-Inf " : "", allowed & CL_NAN ? "NaN" : "");
        }
    }
    if (wrong || unwritten || clobbered)
        report(fc, "%zu wrong, %zu not written, %zu outside C changed; first: %s", wrong,
               unwritten, clobbered, first);
done:
    buf_free(&bA), buf_free(&bB), buf_free(&bC);
    free(hA), free(hB), free(hC), free(out);
}

/* ------------------------------------------------------------------ omatcopy */

static void case_omatcopy(fcase *fc, rng *r) {
    const int dbl = fc->dbl;
    const size_t es = dbl ? 8 : 4;
    const int layout0 = chance(r, 50) ? 101 : 102, trans0 = trans_value(r);
    int64_t cap = g_quick ? 100 : 700;
    int64_t r0 = dim(r, cap), c0 = dim(r, cap);
    if (chance(r, 10)) r0 = 1 + rint_(r, 3), c0 = (g_quick ? 100 : 1000) + rint_(r, 3000); /* skinny */
    if (chance(r, 50)) {
        int64_t t = r0;
        r0 = c0, c0 = t;
    }
#ifdef MB_FUZZ_CBLAS
    if (r0 == 0) r0 = 1; /* rows or cols = 0: OpenBLAS's omatcopy calls it an error */
    if (c0 == 0) c0 = 1;
#endif
    double alpha = scalar(r);
    if (!dbl) alpha = (float)alpha;
    const int col = layout0 == 102, t = is_t(trans0);
    const int64_t alead = col ? r0 : c0, aout = col ? c0 : r0;
    const int b_rows = col ? !t : t; /* B's leading dimension bounds rows */
    const int64_t blead = b_rows ? r0 : c0, bout = b_rows ? c0 : r0;
    const int64_t lda0 = imax1(alead) + ld_pad(r), ldb0 = imax1(blead) + ld_pad(r);
    const int density = chance(r, 50) ? 0 : (chance(r, 50) ? 5 : 100);
    const int oa = rint_(r, 3), ob = rint_(r, 3);
    int layout = layout0, trans = trans0;
    int64_t rows = r0, cols = c0, lda = lda0, ldb = ldb0;
    int bad = 0, expect_param = 0;
    if (chance(r, 12)) {
        for (int tries = 0; tries < 20 && !bad; ++tries) {
            switch (rint_(r, 8)) {
            case 0: layout = 103, bad = 1, expect_param = 1; break;
            case 1: trans = 120, bad = 1, expect_param = 2; break;
            case 2: rows = -3, bad = 1, expect_param = 3; break;
            case 3: cols = -1, bad = 1, expect_param = 4; break;
            case 4: lda = imax1(alead) - 1, bad = 1, expect_param = 7; break;
            case 5: ldb = imax1(blead) - 1, bad = 1, expect_param = 9; break;
#ifndef MB_FUZZ_CBLAS
            case 6: if (r0 > 0 && c0 > 0) bad = 2, expect_param = 6; break;
            case 7: if (r0 > 0 && c0 > 0) bad = 3, expect_param = 8; break;
#endif
            default: break;
            }
        }
        if (!bad) cols = -1, bad = 1, expect_param = 4;
        add(&g_invalid, 1);
    }
    snprintf(fc->what, sizeof fc->what,
             "%s %s trans=%d rows=%" PRId64 " cols=%" PRId64 " alpha=%g lda=%" PRId64
             " ldb=%" PRId64 " offsets A+%d B+%d specials %d/1000%s",
             op_names[dbl][OP_OMATCOPY], layout == 101 ? "row" : layout == 102 ? "col" : "bad-layout",
             trans, rows, cols, alpha, lda, ldb, oa, ob, density, bad ? " (INVALID)" : "");
    const int64_t sa = alead > 0 && aout > 0 ? lda0 * (aout - 1) + alead : 1;
    const int64_t sb = blead > 0 && bout > 0 ? ldb0 * (bout - 1) + blead : 1;
    const size_t bbase = (size_t)ob + GUARD;
    const size_t na = (size_t)oa + (size_t)sa, nb = bbase + (size_t)sb + GUARD;
    void *hA = calloc(na, es), *hB = calloc(nb, es), *out = calloc(nb, es);
    char msg[300] = "";
    buf bA, bB;
    memset(&bA, 0, sizeof bA), memset(&bB, 0, sizeof bB);
    if (!hA || !hB || !out) {
        fatal(fc, "host allocation failed");
        goto done;
    }
    for (size_t i = 0; i < na; ++i) padnan(hA, i, dbl);
    for (size_t i = 0; i < nb; ++i) sentinel(hB, i, dbl);
    for (int64_t o = 0; o < aout; ++o)
        for (int64_t l = 0; l < alead; ++l)
            fill_input(r, (char *)hA + ((size_t)oa + (size_t)(o * lda0 + l)) * es, 1, dbl, density,
                       1, 1);
    if (buf_alloc(&bA, pick_kind(r), na * es, msg, sizeof msg) ||
        buf_alloc(&bB, pick_kind(r), nb * es, msg, sizeof msg) ||
        buf_put(&bA, hA, na * es, msg, sizeof msg) || buf_put(&bB, hB, nb * es, msg, sizeof msg)) {
        fatal(fc, msg);
        goto done;
    }
    {
        char *kinds = fc->what + strlen(fc->what);
        snprintf(kinds, sizeof fc->what - strlen(fc->what), " memory A:%s B:%s",
                 kind_names[bA.kind], kind_names[bB.kind]);
    }
    const void *pA = bad == 2 ? NULL : bA.api + (size_t)oa * es;
    void *pB = bad == 3 ? NULL : bB.api + bbase * es;
    outcome oc_;
    memset(&oc_, 0, sizeof oc_);
#ifdef MB_FUZZ_CBLAS
    before_call();
    if (dbl)
        cblas_domatcopy((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)trans, (blasint)rows,
                        (blasint)cols, alpha, pA, (blasint)lda, pB, (blasint)ldb);
    else
        cblas_somatcopy((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)trans, (blasint)rows,
                        (blasint)cols, (float)alpha, pA, (blasint)lda, pB, (blasint)ldb);
    after_call(&oc_);
    cudaError_t se = cudaDeviceSynchronize();
#else
    miniblas_status_t st;
    int sparam = 0;
    cudaError_t se = cudaSuccess;
    if (g_selftest) {
        st = st_omatcopy(dbl, layout, trans, rows, cols, alpha, pA, lda, pB, ldb, &sparam);
    } else {
        st = dbl ? miniblas_domatcopy(fc->w->h, (miniblas_layout_t)layout,
                                      (miniblas_transpose_t)trans, rows, cols, alpha, pA, lda,
                                      pB, ldb)
                 : miniblas_somatcopy(fc->w->h, (miniblas_layout_t)layout,
                                      (miniblas_transpose_t)trans, rows, cols, (float)alpha, pA,
                                      lda, pB, ldb);
        sparam = miniblas_last_error_param(fc->w->h);
        snprintf(oc_.msg, sizeof oc_.msg, "%s; %s", miniblas_status_string(st),
                 miniblas_last_error(fc->w->h));
        se = cudaStreamSynchronize(fc->w->stream);
    }
    oc_.status_ok = st == MINIBLAS_STATUS_SUCCESS;
    oc_.invalid_param = st == MINIBLAS_STATUS_INVALID_VALUE ? sparam : 0;
    if (!oc_.status_ok && st != MINIBLAS_STATUS_INVALID_VALUE) oc_.invalid_param = -2;
#endif
    if (se != cudaSuccess) {
        snprintf(msg, sizeof msg, "after the call: %s", cudaGetErrorName(se));
        fatal(fc, msg);
        goto done;
    }
    if (buf_get(out, &bB, nb * es, msg, sizeof msg)) {
        fatal(fc, msg);
        goto done;
    }
    if (bad) {
        if (oc_.status_ok || oc_.invalid_param != expect_param)
            report(fc, "invalid call: expected parameter %d reported, got: %s", expect_param, oc_.msg);
        size_t changed = 0;
        for (size_t i = 0; i < nb; ++i) changed += !same_bits(out, hB, i, dbl);
        if (changed) report(fc, "invalid call wrote %zu elements of B's buffer", changed);
        goto done;
    }
    if (!oc_.status_ok) {
        report(fc, "valid call failed: %s", oc_.msg);
        goto done;
    }
    /* the expected image: sentinels, and B = alpha * op(A) */
    void *want = calloc(nb, es);
    if (!want) {
        fatal(fc, "host allocation failed");
        goto done;
    }
    memcpy(want, hB, nb * es);
    for (int64_t i = 0; i < r0; ++i)
        for (int64_t j = 0; j < c0; ++j) {
            size_t pa = (size_t)oa + pos(col, i, j, lda0);
            size_t pb = bbase + (t ? pos(col, j, i, ldb0) : pos(col, i, j, ldb0));
            double a = eget(hA, pa, dbl);
            double v = alpha == 0 ? 0.0 : dbl ? alpha * a : (double)((float)alpha * (float)a);
            eset(want, pb, v, dbl);
        }
    size_t wrong = 0;
    char first[200] = "";
    for (size_t p = 0; p < nb; ++p) {
        int ok = same_bits(out, want, p, dbl) ||
                 (isnan(eget(want, p, dbl)) && !is_sentinel(want, p, dbl) &&
                  isnan(eget(out, p, dbl)) && !is_sentinel(out, p, dbl));
        if (!ok && !wrong++)
            snprintf(first, sizeof first, "storage element %zd of B: %.17g, expected %.17g%s",
                     (ssize_t)p - (ssize_t)bbase, eget(out, p, dbl), eget(want, p, dbl),
                     is_sentinel(want, p, dbl) ? " (outside B's matrix: must not change)"
                     : is_sentinel(out, p, dbl) ? " (not written)" : "");
    }
    if (wrong) report(fc, "%zu elements wrong; first: %s", wrong, first);
    free(want);
done:
    buf_free(&bA), buf_free(&bB);
    free(hA), free(hB), free(out);
}

/* ------------------------------------------------------------------ asum, dot */

static void case_reduce(fcase *fc, rng *r, int dot) {
    const int dbl = fc->dbl;
    const size_t es = dbl ? 8 : 4;
    static const int64_t incs[] = {1, 1, 1, 2, 3, 7, -1, -2, -5, 0, 1000};
    int64_t n;
    int w = rint_(r, 100);
    if (w < 5) n = 0;
    else if (w < 8) n = -rint_(r, 3) - 1;
    else if (w < 20) n = 1;
    else if (w < 70) n = 2 + rint_(r, 300);
    else if (w < 90) n = 300 + rint_(r, g_quick ? 3000 : 70000);
    else n = g_quick ? 5000 : (1 << 17) + rint_(r, 1 << 17);
    int64_t incx = incs[rint_(r, 11)], incy = incs[rint_(r, 11)];
    if (n > 5000 && (incx == 1000 || incx == -1000)) incx = 3;
    if (n > 5000 && (incy == 1000 || incy == -1000)) incy = -2;
    if (n == 1 && chance(r, 30)) incx = INT64_MIN, incy = chance(r, 50) ? INT64_MAX : -INT64_MAX;
#ifdef MB_FUZZ_CBLAS
    /* blasint is 32-bit: its own extremes (n == 1 only) */
    if (incx < INT32_MIN || incx > INT32_MAX) incx = incx < 0 ? INT32_MIN : INT32_MAX;
    if (incy < INT32_MIN || incy > INT32_MAX) incy = incy < 0 ? -INT32_MAX : INT32_MAX;
    const int device_result = 0;
#else
    const int device_result = !g_selftest && chance(r, 40);
#endif
    const int density = chance(r, 50) ? 0 : (chance(r, 50) ? 2 : 50);
    int ox = rint_(r, 3), oy = rint_(r, 3);
    int bad = 0, expect_param = 0;
#ifndef MB_FUZZ_CBLAS
    if (chance(r, 10)) {
        int reads_x = n > 0 && (dot || incx > 0);
        switch (rint_(r, 4)) {
        case 0: bad = 4, expect_param = dot ? 6 : 4; break; /* result NULL */
        case 1: if (reads_x) bad = 2, expect_param = 2; break;        /* x NULL */
        case 2: if (dot && n > 0) bad = 3, expect_param = 4; break;   /* y NULL */
        case 3: /* the extent of x overflows int64_t */
            if (n > 1 && (dot || incx > 0)) incx = INT64_MAX / 2, bad = 1, expect_param = 3;
            break;
        }
        if (!bad) bad = 4, expect_param = dot ? 6 : 4;
        add(&g_invalid, 1);
    }
#endif
    snprintf(fc->what, sizeof fc->what,
             "%s%s n=%" PRId64 " incx=%" PRId64 "%s%" PRId64 " offsets x+%d y+%d specials %d/1000%s",
             op_names[dbl][dot ? OP_DOT : OP_ASUM], device_result ? "_device" : "", n, incx,
             dot ? " incy=" : "", dot ? incy : 0, ox, oy, density, bad ? " (INVALID)" : "");
    /* storage: the vector's extent (a bad, overflowing increment gets a small buffer) */
    const int64_t ax = bad == 1 ? 1 : (n > 1 ? (n - 1) * (incx < 0 ? -incx : incx) + 1 : 1);
    const int64_t ay = dot ? (n > 1 ? (n - 1) * (incy < 0 ? -incy : incy) + 1 : 1) : 1;
    const size_t nx = (size_t)ox + (size_t)ax, ny = (size_t)oy + (size_t)ay;
    void *hx = calloc(nx, es), *hy = calloc(ny, es);
    double res_img[3], res_out[3];
    char msg[300] = "";
    buf bx, by, bres;
    memset(&bx, 0, sizeof bx), memset(&by, 0, sizeof by), memset(&bres, 0, sizeof bres);
    if (!hx || !hy) {
        fatal(fc, "host allocation failed");
        goto done;
    }
    for (size_t i = 0; i < nx; ++i) padnan(hx, i, dbl);
    for (size_t i = 0; i < ny; ++i) padnan(hy, i, dbl);
    /* the elements a correct call reads; the rest (between strides) stay NaN */
    int64_t nn = n > 0 ? n : 0;
    for (int64_t i = 0; i < nn && bad != 1; ++i) {
        fill_input(r, (char *)hx + ((size_t)ox + vpos(n, incx, i)) * es, 1, dbl, density, 1, 1);
        if (dot) fill_input(r, (char *)hy + ((size_t)oy + vpos(n, incy, i)) * es, 1, dbl, density, 1, 1);
    }
    for (int i = 0; i < 3; ++i) sentinel(res_img, (size_t)i, dbl);
    if (buf_alloc(&bx, pick_kind(r), nx * es, msg, sizeof msg) ||
        buf_put(&bx, hx, nx * es, msg, sizeof msg) ||
        (dot && (buf_alloc(&by, pick_kind(r), ny * es, msg, sizeof msg) ||
                 buf_put(&by, hy, ny * es, msg, sizeof msg)))) {
        fatal(fc, msg);
        goto done;
    }
    if (device_result) {
        int kind;
        do kind = pick_kind(r);
        while (kind == K_HEAP || kind == K_MMAP); /* device-accessible, any kind */
        if (buf_alloc(&bres, kind, 3 * es, msg, sizeof msg) ||
            buf_put(&bres, res_img, 3 * es, msg, sizeof msg)) {
            fatal(fc, msg);
            goto done;
        }
    }
    {
        char *kinds = fc->what + strlen(fc->what);
        snprintf(kinds, sizeof fc->what - strlen(fc->what), " memory x:%s%s%s%s%s",
                 kind_names[bx.kind], dot ? " y:" : "", dot ? kind_names[by.kind] : "",
                 device_result ? " result:" : "", device_result ? kind_names[bres.kind] : "");
    }
    const void *px = bad == 2 ? NULL : bx.api + (size_t)ox * es;
    const void *py = !dot ? NULL : bad == 3 ? NULL : by.api + (size_t)oy * es;
    double hres[3];
    memcpy(hres, res_img, sizeof hres);
#ifndef MB_FUZZ_CBLAS
    void *pres = bad == 4 ? NULL : device_result ? (void *)(bres.api + es) : (void *)((char *)hres + es);
#endif
    outcome oc_;
    memset(&oc_, 0, sizeof oc_);
#ifdef MB_FUZZ_CBLAS
    before_call();
    double rv;
    if (dot)
        rv = dbl ? cblas_ddot((blasint)n, px, (blasint)incx, py, (blasint)incy)
                  : (double)cblas_sdot((blasint)n, px, (blasint)incx, py, (blasint)incy);
    else
        rv = dbl ? cblas_dasum((blasint)n, px, (blasint)incx)
                  : (double)cblas_sasum((blasint)n, px, (blasint)incx);
    after_call(&oc_);
    eset(hres, 1, rv, dbl);
    cudaError_t se = cudaDeviceSynchronize();
#else
    miniblas_status_t st;
    int sparam = 0;
    cudaError_t se = cudaSuccess;
    if (g_selftest) {
        st = st_reduce(dbl, dot, n, px, incx, py, incy, pres, &sparam);
    } else {
        miniblas_handle_t h = fc->w->h;
        if (dot)
            st = dbl ? (device_result ? miniblas_ddot_device : miniblas_ddot)(h, n, px, incx, py, incy, pres)
                     : (device_result ? miniblas_sdot_device : miniblas_sdot)(h, n, px, incx, py, incy, pres);
        else
            st = dbl ? (device_result ? miniblas_dasum_device : miniblas_dasum)(h, n, px, incx, pres)
                     : (device_result ? miniblas_sasum_device : miniblas_sasum)(h, n, px, incx, pres);
        sparam = miniblas_last_error_param(h);
        snprintf(oc_.msg, sizeof oc_.msg, "%s; %s", miniblas_status_string(st),
                 miniblas_last_error(h));
        se = cudaStreamSynchronize(fc->w->stream);
    }
    oc_.status_ok = st == MINIBLAS_STATUS_SUCCESS;
    oc_.invalid_param = st == MINIBLAS_STATUS_INVALID_VALUE ? sparam : 0;
    if (!oc_.status_ok && st != MINIBLAS_STATUS_INVALID_VALUE) oc_.invalid_param = -2;
#endif
    if (se != cudaSuccess) {
        snprintf(msg, sizeof msg, "after the call: %s", cudaGetErrorName(se));
        fatal(fc, msg);
        goto done;
    }
    if (device_result) {
        if (buf_get(res_out, &bres, 3 * es, msg, sizeof msg)) {
            fatal(fc, msg);
            goto done;
        }
    } else {
        memcpy(res_out, hres, sizeof res_out);
    }
    if (bad) {
        if (oc_.status_ok || oc_.invalid_param != expect_param)
            report(fc, "invalid call: expected parameter %d reported, got: %s", expect_param, oc_.msg);
        if (!same_bits(res_out, res_img, 0, dbl) || !same_bits(res_out, res_img, 1, dbl) ||
            !same_bits(res_out, res_img, 2, dbl))
            report(fc, "invalid call wrote the result");
        goto done;
    }
    if (!oc_.status_ok) {
        report(fc, "valid call failed: %s", oc_.msg);
        goto done;
    }
    if (!same_bits(res_out, res_img, 0, dbl) || !same_bits(res_out, res_img, 2, dbl))
        report(fc, "the result's neighbours were overwritten");
    const double got = eget(res_out, 1, dbl);
    if (is_sentinel(res_out, 1, dbl)) {
        report(fc, "the result was not written");
        goto done;
    }
    rsum rs;
    memset(&rs, 0, sizeof rs);
    if (n > 0 && (dot || incx > 0))
        for (int64_t i = 0; i < n; ++i) {
            double a = eget(hx, (size_t)ox + vpos(n, incx, i), dbl);
            double term = fabs(a);
            if (dot) {
                double b = eget(hy, (size_t)oy + vpos(n, incy, i), dbl);
                term = dbl ? a * b : (double)((float)a * (float)b);
            }
            rs_add(&rs, term);
        }
    double want, tol;
    unsigned allowed = expect_combo(&rs, nn > 0 ? nn : 1, dbl, 1.0, 1, 0.0, 0.0, &want, &tol);
    if (n <= 0 || (!dot && incx <= 0)) allowed = CL_FIN, want = 0, tol = 0;
    if (!element_ok(got, allowed, want, tol))
        report(fc, "result %.17g (%s), expected %.17g +- %.3g (%s%s%s%s)", got, cls_name(cls(got)),
               want, tol, allowed & CL_FIN ? "finite " : "", allowed & CL_PINF ? "+Inf " : "",
               allowed & CL_NINF ? "-Inf " : "", allowed & CL_NAN ? "NaN" : "");
done:
    buf_free(&bx), buf_free(&by), buf_free(&bres);
    free(hx), free(hy);
}

/* ------------------------------------------------------------------ one case */

#ifndef MB_FUZZ_CBLAS
/* A random rung (full precision, runnable here) or auto for the op on this handle. */
static void pick_rung(worker *w, rng *r, miniblas_op_t op) {
    const char *name = "auto";
    if (chance(r, 30)) {
        int cnt = miniblas_rung_count(op), i = rint_(r, cnt > 0 ? cnt : 1);
        unsigned fl = miniblas_rung_flags(op, i);
        if (cnt > 0 && !(fl & MINIBLAS_RUNG_REDUCED_PRECISION) &&
            miniblas_rung_supported(w->h, op, miniblas_rung_name(op, i)) == MINIBLAS_STATUS_SUCCESS)
            name = miniblas_rung_name(op, i);
    }
    w->rung = name;
    if (miniblas_set_rung(w->h, op, name) != MINIBLAS_STATUS_SUCCESS) {
        fcase fc;
        memset(&fc, 0, sizeof fc);
        fc.w = w;
        snprintf(fc.what, sizeof fc.what, "miniblas_set_rung(%s, %s)", miniblas_op_name(op), name);
        report(&fc, "%s", miniblas_last_error(w->h));
    }
}
#endif

static void run_case(worker *w, uint64_t seed) {
    rng r = {seed};
    fcase fc;
    memset(&fc, 0, sizeof fc);
    fc.w = w, fc.seed = seed;
    fc.dbl = rint_(&r, 2);
    fc.op = rint_(&r, OP_KINDS);
    add(&g_op_calls[fc.dbl][fc.op], 1);
    switch (fc.op) {
    case OP_GEMM: case_gemm(&fc, &r); break;
    case OP_OMATCOPY: case_omatcopy(&fc, &r); break;
    case OP_ASUM: case_reduce(&fc, &r, 0); break;
    default: case_reduce(&fc, &r, 1); break;
    }
    add(&g_calls, 1);
}

#ifndef MB_FUZZ_CBLAS
/* Native: the op's draw of run_case (same seed), then a rung for that op, then the case. */
static void run_case_native(worker *w, uint64_t seed) {
    if (!g_selftest) {
        rng r = {seed};
        int dbl = rint_(&r, 2), op = rint_(&r, OP_KINDS);
        static const miniblas_op_t ops[2][OP_KINDS] = {
            {MINIBLAS_OP_SGEMM, MINIBLAS_OP_SOMATCOPY, MINIBLAS_OP_SASUM, MINIBLAS_OP_SDOT},
            {MINIBLAS_OP_DGEMM, MINIBLAS_OP_DOMATCOPY, MINIBLAS_OP_DASUM, MINIBLAS_OP_DDOT}};
        rng rr = {seed ^ 0x52554E47ull};
        pick_rung(w, &rr, ops[dbl][op]);
    }
    run_case(w, seed);
}
#endif

/* ------------------------------------------------------------------ threads */

static int time_left(void) {
    if (get(&g_fatal)) return 0;
    if (g_max_calls >= 0 && get(&g_calls) >= g_max_calls) return 0;
    return now_s() - g_t0 < g_seconds;
}

static void *worker_main(void *arg) {
    worker *w = arg;
#ifndef MB_FUZZ_CBLAS
    if (!g_selftest) {
        miniblas_status_t st = miniblas_create(&w->h);
        if (st != MINIBLAS_STATUS_SUCCESS) {
            fcase fc = {w, 0, 0, 0, "miniblas_create", 0};
            report(&fc, "%s: %s", miniblas_status_string(st), miniblas_last_create_error());
            add(&g_fatal, 1);
            return NULL;
        }
        if (w->id % 2 == 1) { /* half the threads on their own stream */
            if (cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking) != cudaSuccess ||
                miniblas_set_stream(w->h, w->stream) != MINIBLAS_STATUS_SUCCESS) {
                fcase fc = {w, 0, 0, 0, "stream", 0};
                report(&fc, "creating / setting a stream failed");
                add(&g_fatal, 1);
                return NULL;
            }
        }
    }
#endif
    while (time_left()) {
        uint64_t seed = rnext(&w->r);
#ifdef MB_FUZZ_CBLAS
        run_case(w, seed);
#else
        run_case_native(w, seed);
#endif
        ++w->calls;
    }
#ifndef MB_FUZZ_CBLAS
    if (w->h) miniblas_destroy(w->h);
    if (w->stream) cudaStreamDestroy(w->stream);
#endif
    return NULL;
}

static long env_long(const char *name, long dflt) {
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 0) : dflt;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
#ifndef MB_FUZZ_CBLAS
    g_selftest = argc > 1 && strcmp(argv[1], "--selftest") == 0;
#else
    (void)argc, (void)argv;
#endif
    const char *q = getenv("MINIBLAS_TEST_QUICK");
    g_quick = q && *q && strcmp(q, "0") != 0;
    const char *sgs = getenv("MINIBLAS_FUZZ_SGEMM_SPECIALS");
    g_sgemm_specials = sgs && *sgs && strcmp(sgs, "0") != 0;
    g_seconds = (double)env_long("MINIBLAS_FUZZ_SECONDS", g_selftest ? 5 : g_quick ? 15 : 40);
    g_threads = (int)env_long("MINIBLAS_FUZZ_THREADS", g_selftest ? 2 : 8);
    if (g_threads < 1) g_threads = 1;
    if (g_threads > 64) g_threads = 64;
    g_max_calls = env_long("MINIBLAS_FUZZ_CALLS", g_selftest ? 3000 : -1);
    const char *s = getenv("MINIBLAS_FUZZ_SEED");
    g_seed = s && *s ? strtoull(s, NULL, 0)
                     : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ (uint64_t)clock();
    const char *one = getenv("MINIBLAS_FUZZ_CASE");

    if (g_selftest) {
        g_kind_ok[K_HEAP] = g_kind_ok[K_MMAP] = 1;
        /* the stand-in reduces in the same precision, in order: same bounds as the GPU */
        g_sgemm_specials = 1;
    } else {
        int ndev = 0;
        if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
            printf("no CUDA device: skipped\n");
            return 77;
        }
        int dev = 0, pageable = 0;
        struct cudaDeviceProp prop;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
            printf("cannot query the device\n");
            return 1;
        }
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
        g_pageable_ok = pageable;
        for (int k = 0; k < K_COUNT; ++k) g_kind_ok[k] = 1;
#ifndef MB_FUZZ_CBLAS
        /* native: every pointer must be device-accessible */
        if (!g_pageable_ok) g_kind_ok[K_HEAP] = g_kind_ok[K_MMAP] = 0;
#else
        unsetenv("MINIBLAS_SGEMM"); /* the environment must not pick rungs for the layer */
        miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
        if (!miniblas_cblas_gpu_available()) {
            printf("libminiblas_cblas found no usable GPU (MINIBLAS_CBLAS_GPU=0?): skipped\n");
            return 77;
        }
#endif
        printf("%s: device %d %s (cc %d.%d), pageable memory access %s\n", FUZZ_NAME, dev,
               prop.name, prop.major, prop.minor, g_pageable_ok ? "yes" : "no");
    }
#ifndef MB_FUZZ_CBLAS
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) { /* auto must mean auto */
        char var[64];
        snprintf(var, sizeof var, "MINIBLAS_%s", miniblas_op_name((miniblas_op_t)op));
        for (char *c = var; *c; ++c)
            if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
        unsetenv(var);
    }
    unsetenv("MINIBLAS_MATH_MODE");
#endif
    g_t0 = now_s();
    if (one && *one) { /* one case, one thread */
        worker w;
        memset(&w, 0, sizeof w);
        uint64_t cs = strtoull(one, NULL, 0);
        printf("%s: replaying case 0x%016" PRIx64 "%s\n", FUZZ_NAME, cs,
               g_selftest ? " (self-test)" : "");
#ifndef MB_FUZZ_CBLAS
        if (!g_selftest) {
            if (miniblas_create(&w.h) != MINIBLAS_STATUS_SUCCESS) {
                printf("miniblas_create: %s\n", miniblas_last_create_error());
                return 1;
            }
        }
        run_case_native(&w, cs);
        if (w.h) miniblas_destroy(w.h);
#else
        run_case(&w, cs);
#endif
        printf("%s: %ld failures\n", FUZZ_NAME, get(&g_failures));
        return get(&g_failures) ? 1 : 0;
    }
    printf("%s: seed %" PRIu64 " (replay: MINIBLAS_FUZZ_SEED=%" PRIu64 "), %d threads, %.0f s%s%s%s\n",
           FUZZ_NAME, g_seed, g_seed, g_threads, g_seconds, g_quick ? ", quick" : "",
           g_selftest ? ", SELF-TEST of the oracle (plain C stand-in, host memory)" : "",
           g_sgemm_specials ? ", sgemm with every special" : ", sgemm specials limited to NaN and +-0");
    worker *ws = calloc((size_t)g_threads, sizeof *ws);
    pthread_t *th = calloc((size_t)g_threads, sizeof *th);
    if (!ws || !th) return 1;
    rng master = {g_seed};
    for (int i = 0; i < g_threads; ++i) {
        ws[i].id = i;
        ws[i].r.s = rnext(&master);
        if (pthread_create(&th[i], NULL, worker_main, &ws[i]) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    }
    for (int i = 0; i < g_threads; ++i) pthread_join(th[i], NULL);
    const double secs = now_s() - g_t0;
    printf("%s: %ld calls (%ld invalid) from %d threads in %.1f s; per thread:", FUZZ_NAME,
           get(&g_calls), get(&g_invalid), g_threads, secs);
    for (int i = 0; i < g_threads; ++i) printf(" %ld", ws[i].calls);
    printf("\n  per op:");
    for (int d = 0; d < 2; ++d)
        for (int o = 0; o < OP_KINDS; ++o) printf(" %s %ld", op_names[d][o], get(&g_op_calls[d][o]));
    printf("\n  operand buffers per memory kind:");
    for (int k = 0; k < K_COUNT; ++k)
        printf(" %s %ld%s", kind_names[k], get(&g_kind_uses[k]), g_kind_ok[k] ? "" : " (n/a here)");
    printf("\n");
    if (get(&g_printed) > 60) printf("(%ld failure messages not printed)\n", get(&g_printed) - 60);
    printf("%s: seed %" PRIu64 ", %ld calls, %ld invalid, %d threads: %ld failures%s\n", FUZZ_NAME,
           g_seed, get(&g_calls), get(&g_invalid), g_threads, get(&g_failures),
           get(&g_fatal) ? " (stopped early on a fatal error)" : "");
    free(ws);
    free(th);
    return get(&g_failures) ? 1 : 0;
}
