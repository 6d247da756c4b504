/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libminiblas_cblas, on any machine (no GPU needed): the drop-in entry points against
 * references computed in plain C loops in double, through the path the layer picks (the CPU
 * BLAS when there is no GPU, which is also checked: quietly, no GPU path claimed).
 *
 * Covers cblas_{s,d}gemm (both layouts, all four transpose values, leading dimensions larger
 * than the matrix, alpha/beta special values, NaN in C with beta = 0, padding untouched),
 * cblas_{s,d}asum and cblas_{s,d}dot (positive, negative and zero increments), cblas_{s,d}omatcopy
 * (both layouts, both transposes), the Fortran entry points sgemm_/dgemm_/sasum_/dasum_/sdot_/
 * ddot_, the parameter number of every invalid-argument rule through a program-supplied
 * cblas_xerbla (and xerbla_ for the Fortran entry points) with nothing written, and 8 host
 * threads calling at once with different sizes.
 *
 * Linked against libminiblas_cblas only (not OpenBLAS: the symbols would clash; the layer
 * dlopens its CPU BLAS itself). tests/test_cblas_gpu.c includes this file for its checks.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include "miniblas_cblas.h"

/* The Fortran entry points (gfortran convention), as a program would declare them. */
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

static int g_pass, g_fail;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void result(int ok, const char *file, int line, const char *fmt, ...) {
    pthread_mutex_lock(&g_lock);
    if (ok) {
        ++g_pass;
    } else {
        ++g_fail;
        if (g_fail <= 40) {
            va_list ap;
            va_start(ap, fmt);
            printf("%s:%d: FAILED: ", file, line);
            vprintf(fmt, ap);
            printf("\n");
            va_end(ap);
        }
    }
    pthread_mutex_unlock(&g_lock);
}
#define CHECK(cond, ...) result((cond) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

/* Where the operands of gemm_case / omatcopy_case live: NULL is plain malloc'ed host memory;
 * the GPU test installs hooks that copy them to pinned, managed or device memory for the
 * call and copy the output back. */
typedef struct mem_hook {
    void *(*to_call)(const void *host, size_t bytes); /* a copy where the call will see it */
    void (*back)(void *host, const void *p, size_t bytes); /* output back into host memory */
    void (*release)(void *p);
} mem_hook;
static const mem_hook *g_mem;
static const char *g_mem_name = "host"; /* named in omatcopy_case's failure line */

/* The path every computing call is expected to take (set by main / the GPU test). */
static int g_expect_path = MINIBLAS_CBLAS_PATH_CPU;

/* ------------------------------------------------------------------ program's xerbla */

static _Thread_local int t_xerbla_calls, t_xerbla_param;
static _Thread_local char t_xerbla_rout[64];

void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    (void)form;
    ++t_xerbla_calls;
    t_xerbla_param = p;
    snprintf(t_xerbla_rout, sizeof t_xerbla_rout, "%s", rout);
}

void xerbla_(const char *name, const blasint *info, size_t len) {
    ++t_xerbla_calls;
    t_xerbla_param = *info;
    size_t n = len < sizeof t_xerbla_rout - 1 ? len : sizeof t_xerbla_rout - 1;
    memcpy(t_xerbla_rout, name, n);
    t_xerbla_rout[n] = '\0';
}

static void xerbla_reset(void) {
    t_xerbla_calls = 0;
    t_xerbla_param = -1;
    t_xerbla_rout[0] = '\0';
}

/* ------------------------------------------------------------------ data */

static uint64_t g_seed = 88172645463325252ull;
static double urand_r(uint64_t *s) { /* [-1, 1) */
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 4503599627370496.0 - 1.0;
}

#define SENTINEL 12345.0

typedef struct mat {
    int dbl;
    int64_t rows, cols, ld; /* logical shape in the layout; ld as the layout */
    int row_major;
    void *p;
    size_t n; /* elements allocated */
} mat;

static int64_t mat_index(const mat *a, int64_t i, int64_t j) {
    return a->row_major ? i * a->ld + j : i + j * a->ld;
}
static double mat_get(const mat *a, int64_t i) {
    return a->dbl ? ((double *)a->p)[i] : ((float *)a->p)[i];
}
static void mat_put(mat *a, int64_t i, double v) {
    if (a->dbl)
        ((double *)a->p)[i] = v;
    else
        ((float *)a->p)[i] = (float)v;
}
static double at(const mat *a, int64_t i, int64_t j) { return mat_get(a, mat_index(a, i, j)); }

/* rows x cols in the layout, ld = minimal + pad; padding = SENTINEL; values random (or NaN). */
static mat mat_new(int dbl, int row_major, int64_t rows, int64_t cols, int64_t pad, int nan,
                   uint64_t *seed) {
    mat a = {dbl, rows, cols, (row_major ? cols : rows) + pad, row_major, NULL, 0};
    if (a.ld < 1) a.ld = 1;
    int64_t outer = row_major ? rows : cols;
    a.n = (size_t)(a.ld * (outer > 0 ? outer : 1));
    a.p = malloc(a.n * (dbl ? 8 : 4) + 16);
    for (size_t i = 0; i < a.n; ++i) mat_put(&a, (int64_t)i, SENTINEL);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            mat_put(&a, mat_index(&a, i, j), nan ? NAN : urand_r(seed));
    return a;
}

static mat mat_copy(const mat *a) {
    mat b = *a;
    b.p = malloc(a->n * (a->dbl ? 8 : 4) + 16);
    memcpy(b.p, a->p, a->n * (a->dbl ? 8 : 4));
    return b;
}

/* Every element outside the logical matrix still holds SENTINEL. */
static int padding_intact(const mat *a) {
    for (size_t idx = 0; idx < a->n; ++idx) {
        int64_t i = (int64_t)idx, inner = i % a->ld;
        int inside = inner < (a->row_major ? a->cols : a->rows) &&
                     i / a->ld < (a->row_major ? a->rows : a->cols);
        if (!inside && mat_get(a, i) != SENTINEL) return 0;
    }
    return 1;
}

static int same_bits(const mat *a, const mat *b) {
    return memcmp(a->p, b->p, a->n * (a->dbl ? 8 : 4)) == 0;
}

static const char *tname(int t) {
    switch (t) {
    case CblasNoTrans: return "N";
    case CblasTrans: return "T";
    case CblasConjTrans: return "C";
    case CblasConjNoTrans: return "CN";
    default: return "?";
    }
}
static int is_t(int t) { return t == CblasTrans || t == CblasConjTrans; }

static int path_ok(void) {
    int p = miniblas_cblas_last_path();
    if (g_expect_path == MINIBLAS_CBLAS_PATH_GPU)
        return p == MINIBLAS_CBLAS_PATH_GPU || p == MINIBLAS_CBLAS_PATH_GPU_INPLACE;
    return p == g_expect_path;
}

/* ------------------------------------------------------------------ gemm */

/* One cblas (or Fortran, when fortran != 0) gemm call against the reference; returns 1 when
 * it passed. Sizes are the caller's; the matrices are built here. */
static int gemm_case(int dbl, int fortran, int layout, int ta, int tb, int64_t m, int64_t n,
                     int64_t k, double alpha, double beta, int64_t pad, uint64_t *seed,
                     const char *where) {
    int rm = layout == CblasRowMajor;
    mat A = mat_new(dbl, rm, is_t(ta) ? k : m, is_t(ta) ? m : k, pad, 0, seed);
    mat B = mat_new(dbl, rm, is_t(tb) ? n : k, is_t(tb) ? k : n, pad + 1, 0, seed);
    mat C = mat_new(dbl, rm, m, n, pad + 2, beta == 0, seed); /* beta == 0: NaN must not leak */
    mat C0 = mat_copy(&C);
    if (getenv("MBC_TEST_TRACE"))
        fprintf(stdout, "gemm %d %d %d %d %d %lld %lld %lld %g %g lda=%lld ldb=%lld ldc=%lld\n", dbl,
                fortran, layout, ta, tb, (long long)m, (long long)n, (long long)k, alpha, beta,
                (long long)A.ld, (long long)B.ld, (long long)C.ld), fflush(stdout);
    double eps = dbl ? 1.1102230246251565e-16 : 5.960464477539063e-08;
    size_t es = dbl ? 8 : 4;
    void *pa = A.p, *pb = B.p, *pc = C.p;
    if (g_mem) {
        pa = g_mem->to_call(A.p, A.n * es);
        pb = g_mem->to_call(B.p, B.n * es);
        pc = g_mem->to_call(C.p, C.n * es);
    }
    void *hA = A.p, *hB = B.p, *hC = C.p;
    A.p = pa, B.p = pb, C.p = pc;
    if (fortran) {
        /* ConjNoTrans: 'R' (conjugate, no transpose), taken as 'N' for real data as OpenBLAS
         * does */
        char TA[2] = {is_t(ta) ? (ta == CblasConjTrans ? 'c' : 'T')
                               : (ta == CblasConjNoTrans ? 'R' : 'n'), 0};
        char TB[2] = {is_t(tb) ? (tb == CblasConjTrans ? 'C' : 't')
                               : (tb == CblasConjNoTrans ? 'r' : 'N'), 0};
        blasint M = (blasint)m, N = (blasint)n, K = (blasint)k, LDA = (blasint)A.ld,
                LDB = (blasint)B.ld, LDC = (blasint)C.ld;
        if (dbl)
            dgemm_(TA, TB, &M, &N, &K, &alpha, A.p, &LDA, B.p, &LDB, &beta, C.p, &LDC, 1, 1);
        else {
            float fa = (float)alpha, fb = (float)beta;
            sgemm_(TA, TB, &M, &N, &K, &fa, A.p, &LDA, B.p, &LDB, &fb, C.p, &LDC, 1, 1);
        }
    } else if (dbl) {
        cblas_dgemm(layout, ta, tb, (blasint)m, (blasint)n, (blasint)k, alpha, A.p,
                    (blasint)A.ld, B.p, (blasint)B.ld, beta, C.p, (blasint)C.ld);
    } else {
        cblas_sgemm(layout, ta, tb, (blasint)m, (blasint)n, (blasint)k, (float)alpha, A.p,
                    (blasint)A.ld, B.p, (blasint)B.ld, (float)beta, C.p, (blasint)C.ld);
    }
    A.p = hA, B.p = hB, C.p = hC;
    if (g_mem) {
        g_mem->back(C.p, pc, C.n * es);
        g_mem->release(pa), g_mem->release(pb), g_mem->release(pc);
    }
    int touched = m > 0 && n > 0;
    int ok = 1;
    double worst = 0;
    int64_t wi = -1, wj = -1;
    for (int64_t i = 0; i < m && ok; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = 0, sa = 0;
            for (int64_t l = 0; l < k; ++l) {
                double a = is_t(ta) ? at(&A, l, i) : at(&A, i, l);
                double b = is_t(tb) ? at(&B, j, l) : at(&B, l, j);
                s += a * b;
                sa += fabs(a * b);
            }
            double c0 = at(&C0, i, j);
            double ref = alpha * s + (beta != 0 ? beta * c0 : 0);
            double bound = 4.0 * (double)(k + 2) * eps *
                           (fabs(alpha) * sa + (beta != 0 ? fabs(beta * c0) : 0)) + 1e-300;
            double got = at(&C, i, j);
            double err = fabs(got - ref);
            if (!(err <= bound)) { /* also catches NaN */
                ok = 0;
                worst = err;
                wi = i, wj = j;
                break;
            }
        }
    if (!touched) ok = same_bits(&C, &C0);
    int pad_ok = padding_intact(&C);
    int pth = !touched || path_ok();
    CHECK(ok && pad_ok && pth,
          "%s %s%sgemm %s %s%s m=%lld n=%lld k=%lld alpha=%g beta=%g pad=%lld: %s (err %g at "
          "%lld,%lld; path %d)",
          where, fortran ? "fortran " : "", dbl ? "d" : "s", rm ? "row" : "col", tname(ta),
          tname(tb), (long long)m, (long long)n, (long long)k, alpha, beta, (long long)pad,
          !ok ? "wrong values" : !pad_ok ? "padding overwritten" : "unexpected path", worst,
          (long long)wi, (long long)wj, miniblas_cblas_last_path());
    free(A.p), free(B.p), free(C.p), free(C0.p);
    return ok && pad_ok && pth;
}

static void test_gemm(int quick) {
    static const int64_t sizes[][3] = {{1, 1, 1},  {7, 5, 3},   {33, 31, 17}, {64, 65, 63},
                                       {100, 1, 50}, {1, 77, 9}, {40, 30, 1},  {0, 5, 3},
                                       {5, 0, 3},   {6, 4, 0}};
    static const double ab[][2] = {{1, 0}, {-1, 1}, {0.7, -0.3}, {0, 0.5}, {1.25, 0}, {0, 0}};
    static const int trans[4] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasConjNoTrans};
    uint64_t seed = g_seed;
    int nsz = (int)(sizeof sizes / sizeof sizes[0]);
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int lay = 0; lay < 2; ++lay)
            for (int ta = 0; ta < 4; ++ta)
                for (int tb = 0; tb < 4; ++tb)
                    for (int s = 0; s < nsz; ++s) {
                        if (quick && s % 3) continue;
                        int c = (ta * 4 + tb + s) % 6;
                        gemm_case(dbl, 0, lay ? CblasColMajor : CblasRowMajor, trans[ta],
                                  trans[tb], sizes[s][0], sizes[s][1], sizes[s][2], ab[c][0],
                                  ab[c][1], (s + ta) % 3, &seed, "cblas");
                    }
    /* every alpha/beta pair on one shape, both precisions and layouts */
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int lay = 0; lay < 2; ++lay)
            for (int c = 0; c < 6; ++c)
                gemm_case(dbl, 0, lay ? CblasColMajor : CblasRowMajor, CblasTrans, CblasNoTrans,
                          37, 29, 41, ab[c][0], ab[c][1], 2, &seed, "cblas alpha/beta");
}

static void test_fortran(void) {
    uint64_t seed = g_seed ^ 0x1234;
    static const int trans[4] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasConjNoTrans};
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int ta = 0; ta < 4; ++ta)
            for (int tb = 0; tb < 4; ++tb) {
                gemm_case(dbl, 1, CblasColMajor, trans[ta], trans[tb], 23, 19, 31, 0.5, -1.5,
                          ta, &seed, "fortran");
                gemm_case(dbl, 1, CblasColMajor, trans[ta], trans[tb], 9, 11, 4, -2, 0, 1, &seed,
                          "fortran");
            }
    /* a TRANS character that is none of N, T, C, R (either case): xerbla_ with 1 or 2, C kept */
    {
        static const char bad[] = {'X', '/', ' ', 'q'};
        float Af[4] = {1, 2, 3, 4}, Cf[4] = {5, 6, 7, 8}, fa = 1, fb = 1;
        double Ad[4] = {1, 2, 3, 4}, Cd[4] = {5, 6, 7, 8}, da = 1, db = 1;
        blasint two = 2;
        for (size_t i = 0; i < sizeof bad; ++i)
            for (int which = 0; which < 2; ++which)
                for (int dbl = 0; dbl < 2; ++dbl) {
                    char ta = which ? 'N' : bad[i], tb = which ? bad[i] : 't';
                    xerbla_reset();
                    if (dbl)
                        dgemm_(&ta, &tb, &two, &two, &two, &da, Ad, &two, Ad, &two, &db, Cd, &two,
                               1, 1);
                    else
                        sgemm_(&ta, &tb, &two, &two, &two, &fa, Af, &two, Af, &two, &fb, Cf, &two,
                               1, 1);
                    int kept = dbl ? Cd[0] == 5 && Cd[3] == 8 : Cf[0] == 5 && Cf[3] == 8;
                    CHECK(t_xerbla_calls == 1 && t_xerbla_param == 1 + which && kept,
                          "%cgemm_('%c', '%c'): xerbla calls %d param %d (expected %d)%s",
                          dbl ? 'd' : 's', ta, tb, t_xerbla_calls, t_xerbla_param, 1 + which,
                          kept ? "" : ", C written");
                }
    }
    /* reductions through the Fortran symbols */
    float xs[301], ys[301];
    double xd[301], yd[301];
    for (int i = 0; i < 301; ++i) {
        xs[i] = (float)urand_r(&seed), ys[i] = (float)urand_r(&seed);
        xd[i] = xs[i], yd[i] = ys[i];
    }
    blasint n = 100, inc3 = 3, incm2 = -2, inc1 = 1;
    double ra = 0, rd = 0;
    for (int i = 0; i < 100; ++i) ra += fabs(xd[i * 3]), rd += xd[i * 3] * yd[(99 - i) * 2];
    float sa = sasum_(&n, xs, &inc3), sd = sdot_(&n, xs, &inc3, ys, &incm2);
    double da = dasum_(&n, xd, &inc3), dd = ddot_(&n, xd, &inc3, yd, &incm2);
    CHECK(fabs(sa - ra) <= 1e-5 * ra && path_ok(), "sasum_ %g vs %g", sa, ra);
    CHECK(fabs(sd - rd) <= 1e-5 * ra + 1e-6, "sdot_ %g vs %g", sd, rd);
    CHECK(fabs(da - ra) <= 1e-13 * ra, "dasum_ %g vs %g", da, ra);
    CHECK(fabs(dd - rd) <= 1e-13 * ra, "ddot_ %g vs %g", dd, rd);
    blasint zero = 0;
    CHECK(sasum_(&zero, xs, &inc1) == 0 && ddot_(&zero, xd, &inc1, yd, &inc1) == 0,
          "n = 0 gives 0");
}

/* ------------------------------------------------------------------ reductions */

static void test_reductions(int64_t nmax) {
    uint64_t seed = g_seed ^ 0x777;
    static const int64_t ns[] = {0, 1, 2, 7, 100, 1000, 100003};
    static const int incs[] = {1, 2, -1, -3, 0};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; ++a) {
        int64_t n = ns[a];
        if (n > nmax) continue;
        size_t len = (size_t)(n > 0 ? n : 1) * 3 + 1;
        float *xs = malloc(len * 4), *ys = malloc(len * 4);
        double *xd = malloc(len * 8), *yd = malloc(len * 8);
        for (size_t i = 0; i < len; ++i) {
            xs[i] = (float)urand_r(&seed), ys[i] = (float)urand_r(&seed);
            xd[i] = urand_r(&seed), yd[i] = urand_r(&seed);
        }
        for (size_t bi = 0; bi < sizeof incs / sizeof incs[0]; ++bi)
            for (size_t ci = 0; ci < sizeof incs / sizeof incs[0]; ++ci) {
                int ix = incs[bi], iy = incs[ci];
                /* references: element i of a vector with increment inc (BLAS: a negative
                 * increment starts at the far end; zero repeats element 0) */
                double ras = 0, rad = 0, rds = 0, rdd = 0, ss = 0, sd = 0;
                for (int64_t i = 0; i < n; ++i) {
                    int64_t px = ix >= 0 ? i * ix : (n - 1 - i) * -ix;
                    int64_t py = iy >= 0 ? i * iy : (n - 1 - i) * -iy;
                    if (ix > 0) ras += fabs((double)xs[px]), rad += fabs(xd[px]);
                    rds += (double)xs[px] * ys[py], rdd += xd[px] * yd[py];
                    ss += fabs((double)xs[px] * ys[py]), sd += fabs(xd[px] * yd[py]);
                }
                double tol_s = (double)(n + 2) * 6e-8, tol_d = (double)(n + 2) * 1.2e-16;
                if (ci == 0) { /* asum once per x increment */
                    float a1 = cblas_sasum((blasint)n, xs, ix);
                    int p1 = n > 0 && ix > 0 ? path_ok() : 1;
                    double a2 = cblas_dasum((blasint)n, xd, ix);
                    int p2 = n > 0 && ix > 0 ? path_ok() : 1;
                    CHECK(fabs(a1 - ras) <= tol_s * ras && p1, "sasum n=%lld inc=%d: %g vs %g",
                          (long long)n, ix, a1, ras);
                    CHECK(fabs(a2 - rad) <= tol_d * rad && p2, "dasum n=%lld inc=%d: %g vs %g",
                          (long long)n, ix, a2, rad);
                }
                float d1 = cblas_sdot((blasint)n, xs, ix, ys, iy);
                int p1 = n > 0 ? path_ok() : 1;
                double d2 = cblas_ddot((blasint)n, xd, ix, yd, iy);
                int p2 = n > 0 ? path_ok() : 1;
                CHECK(fabs(d1 - rds) <= tol_s * ss + 1e-30 && p1,
                      "sdot n=%lld incx=%d incy=%d: %g vs %g", (long long)n, ix, iy, d1, rds);
                CHECK(fabs(d2 - rdd) <= tol_d * sd + 1e-300 && p2,
                      "ddot n=%lld incx=%d incy=%d: %g vs %g", (long long)n, ix, iy, d2, rdd);
            }
        free(xs), free(ys), free(xd), free(yd);
    }
}

/* ------------------------------------------------------------------ omatcopy */

static void omatcopy_case(int dbl, int layout, int trans, int64_t rows, int64_t cols,
                          double alpha, int64_t pad, uint64_t *seed) {
    int rm = layout == CblasRowMajor, t = is_t(trans);
    mat A = mat_new(dbl, rm, rows, cols, pad, 0, seed);
    mat B = mat_new(dbl, rm, t ? cols : rows, t ? rows : cols, pad + 1, 1, seed);
    mat B0 = mat_copy(&B);
    size_t es = dbl ? 8 : 4;
    void *pa = g_mem ? g_mem->to_call(A.p, A.n * es) : A.p;
    void *pb = g_mem ? g_mem->to_call(B.p, B.n * es) : B.p;
    if (dbl)
        cblas_domatcopy(layout, trans, (blasint)rows, (blasint)cols, alpha, pa, (blasint)A.ld,
                        pb, (blasint)B.ld);
    else
        cblas_somatcopy(layout, trans, (blasint)rows, (blasint)cols, (float)alpha, pa,
                        (blasint)A.ld, pb, (blasint)B.ld);
    if (g_mem) {
        g_mem->back(B.p, pb, B.n * es);
        g_mem->release(pa), g_mem->release(pb);
    }
    int ok = 1;
    int64_t bad = 0, bi = -1, bj = -1; /* wrong elements; the first one (column-major order) */
    double bgot = 0, bref = 0;
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < rows; ++i) {
            double ref = alpha * at(&A, i, j);
            double got = t ? at(&B, j, i) : at(&B, i, j);
            if (!(fabs(got - ref) <= fabs(ref) * (dbl ? 2.3e-16 : 1.2e-7))) {
                if (!bad++) bi = i, bj = j, bgot = got, bref = ref;
                ok = 0;
            }
        }
    if (rows == 0 || cols == 0) ok = same_bits(&B, &B0);
    int pad_ok = padding_intact(&B);
    int pth = rows == 0 || cols == 0 || path_ok();
    CHECK(ok && pad_ok && pth,
          "%somatcopy %s %s rows=%lld cols=%lld alpha=%g pad=%lld (%s memory, lda=%lld "
          "ldb=%lld, path %d): %s (%lld wrong, first at %lld,%lld: %g, expected %g)",
          dbl ? "d" : "s", rm ? "row" : "col", tname(trans), (long long)rows, (long long)cols,
          alpha, (long long)pad, g_mem_name, (long long)A.ld, (long long)B.ld,
          miniblas_cblas_last_path(),
          !ok ? "wrong values" : !pad_ok ? "padding overwritten" : "path", (long long)bad,
          (long long)bi, (long long)bj, bgot, bref);
    free(A.p), free(B.p), free(B0.p);
}

/* alpha == 0: B = 0 without reading A, whatever A holds (NaN, +-Inf: 0 * A would give NaN),
 * on every path; B's logical elements start as NaN, its padding must stay. */
static void omatcopy_zero_case(int dbl, int layout, int trans, int64_t rows, int64_t cols,
                               int64_t pad, uint64_t *seed) {
    int rm = layout == CblasRowMajor, t = is_t(trans);
    mat A = mat_new(dbl, rm, rows, cols, pad, 0, seed);
    static const double specials[3] = {NAN, INFINITY, -INFINITY};
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j)
            if ((i + j) % 2 == 0) mat_put(&A, mat_index(&A, i, j), specials[(i + 2 * j) % 3]);
    mat B = mat_new(dbl, rm, t ? cols : rows, t ? rows : cols, pad + 1, 1, seed);
    size_t es = dbl ? 8 : 4;
    void *pa = g_mem ? g_mem->to_call(A.p, A.n * es) : A.p;
    void *pb = g_mem ? g_mem->to_call(B.p, B.n * es) : B.p;
    if (dbl)
        cblas_domatcopy(layout, trans, (blasint)rows, (blasint)cols, 0.0, pa, (blasint)A.ld, pb,
                        (blasint)B.ld);
    else
        cblas_somatcopy(layout, trans, (blasint)rows, (blasint)cols, 0.0f, pa, (blasint)A.ld, pb,
                        (blasint)B.ld);
    if (g_mem) {
        g_mem->back(B.p, pb, B.n * es);
        g_mem->release(pa), g_mem->release(pb);
    }
    int64_t bad = 0;
    double first = 0;
    for (int64_t i = 0; i < B.rows; ++i)
        for (int64_t j = 0; j < B.cols; ++j) {
            double got = at(&B, i, j);
            if (got != 0.0 && !bad++) first = got;
        }
    int pad_ok = padding_intact(&B);
    CHECK(!bad && pad_ok && path_ok(),
          "%somatcopy alpha=0, A with NaN/Inf: %s %s rows=%lld cols=%lld pad=%lld (%s memory, "
          "path %d): %lld nonzero elements of B (first %g)%s",
          dbl ? "d" : "s", rm ? "row" : "col", tname(trans), (long long)rows, (long long)cols,
          (long long)pad, g_mem_name, miniblas_cblas_last_path(), (long long)bad, first,
          pad_ok ? "" : ", padding overwritten");
    free(A.p), free(B.p);
}

static void test_omatcopy(void) {
    uint64_t seed = g_seed ^ 0x99;
    /* small (the layer's quick path when on the heap) and large (past every size threshold) */
    static const int64_t zsz[][2] = {{1, 1}, {7, 3}, {16, 16}, {65, 33}, {700, 613}};
    static const int ztrans[2] = {CblasNoTrans, CblasTrans};
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int lay = 0; lay < 2; ++lay)
            for (int t = 0; t < 2; ++t)
                for (size_t s = 0; s < sizeof zsz / sizeof zsz[0]; ++s)
                    omatcopy_zero_case(dbl, lay ? CblasColMajor : CblasRowMajor, ztrans[t],
                                       zsz[s][0], zsz[s][1], (int64_t)(s % 3), &seed);
    static const int64_t sz[][2] = {{1, 1}, {7, 3}, {33, 65}, {100, 1}, {1, 50}, {0, 4}, {64, 64}};
    static const int trans[4] = {CblasNoTrans, CblasTrans, CblasConjTrans, CblasConjNoTrans};
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int lay = 0; lay < 2; ++lay)
            for (int t = 0; t < 4; ++t)
                for (size_t s = 0; s < sizeof sz / sizeof sz[0]; ++s)
                    omatcopy_case(dbl, lay ? CblasColMajor : CblasRowMajor, trans[t], sz[s][0],
                                  sz[s][1], s % 2 ? -0.5 : 1.0, (int64_t)(s % 3), &seed);
}

/* ------------------------------------------------------------------ invalid arguments */

static float g_buf[4096];

/* One invalid gemm call: cblas_xerbla called once with this parameter and routine, and
 * nothing written to C. */
static void bad_gemm(int dbl, int layout, int ta, int tb, blasint m, blasint n, blasint k,
                     blasint lda, blasint ldb, blasint ldc, int nullA, int nullB, int nullC,
                     int expect, int line) {
    static double Cd[1024];
    static float Cf[1024];
    for (int i = 0; i < 1024; ++i) Cd[i] = SENTINEL, Cf[i] = (float)SENTINEL;
    const void *A = nullA ? NULL : (const void *)g_buf, *B = nullB ? NULL : (const void *)g_buf;
    xerbla_reset();
    if (dbl)
        cblas_dgemm(layout, ta, tb, m, n, k, 1.0, A, lda, B, ldb, 0.5, nullC ? NULL : Cd, ldc);
    else
        cblas_sgemm(layout, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.5f, nullC ? NULL : Cf, ldc);
    int untouched = 1;
    for (int i = 0; i < 1024; ++i)
        if (Cd[i] != SENTINEL || Cf[i] != (float)SENTINEL) untouched = 0;
    const char *rout = dbl ? "cblas_dgemm" : "cblas_sgemm";
    CHECK(t_xerbla_calls == 1 && t_xerbla_param == expect && !strcmp(t_xerbla_rout, rout) &&
              untouched && miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_NONE,
          "line %d: %s: xerbla calls %d param %d (expected %d) routine '%s'%s", line, rout,
          t_xerbla_calls, t_xerbla_param, expect, t_xerbla_rout, untouched ? "" : ", C written");
}
#define BADG(...) bad_gemm(__VA_ARGS__, __LINE__)

static void test_xerbla(void) {
    const int R = CblasRowMajor, C = CblasColMajor, N = CblasNoTrans, T = CblasTrans;
    for (int d = 0; d < 2; ++d) {
        /* column-major: reference numbering */
        BADG(d, 99, N, N, 2, 2, 2, 2, 2, 2, 0, 0, 0, 1);   /* layout */
        BADG(d, C, 0, N, 2, 2, 2, 2, 2, 2, 0, 0, 0, 2);    /* transA */
        BADG(d, C, N, 115, 2, 2, 2, 2, 2, 2, 0, 0, 0, 3);  /* transB */
        BADG(d, C, N, N, -1, 2, 2, 2, 2, 2, 0, 0, 0, 4);   /* M < 0 */
        BADG(d, C, N, N, 2, -1, 2, 2, 2, 2, 0, 0, 0, 5);   /* N < 0 */
        BADG(d, C, N, N, 2, 2, -1, 2, 2, 2, 0, 0, 0, 6);   /* K < 0 */
        BADG(d, C, N, N, 3, 2, 2, 2, 2, 3, 0, 0, 0, 9);    /* lda < M (A not transposed) */
        BADG(d, C, T, N, 3, 2, 4, 3, 4, 3, 0, 0, 0, 9);    /* lda < K (A transposed) */
        BADG(d, C, N, N, 2, 2, 3, 2, 2, 2, 0, 0, 0, 11);   /* ldb < K */
        BADG(d, C, N, T, 2, 3, 2, 2, 2, 2, 0, 0, 0, 11);   /* ldb < N (B transposed) */
        BADG(d, C, N, N, 3, 2, 2, 3, 2, 2, 0, 0, 0, 14);   /* ldc < M */
        BADG(d, C, N, N, 0, 2, 2, 0, 2, 0, 0, 0, 0, 9);    /* lda >= max(1, M) even for M = 0 */
        BADG(d, C, N, N, 2, 2, 2, 2, 2, 2, 1, 0, 0, 8);    /* A NULL */
        BADG(d, C, N, N, 2, 2, 2, 2, 2, 2, 0, 1, 0, 10);   /* B NULL */
        BADG(d, C, N, N, 2, 2, 2, 2, 2, 2, 0, 0, 1, 13);   /* C NULL */
        BADG(d, C, N, N, -1, -1, 2, 2, 2, 2, 0, 0, 0, 4);  /* first failing rule wins */
        BADG(d, C, N, N, 3, 2, 2, 1, 1, 1, 0, 0, 0, 9);    /* lda before ldb before ldc */
        /* row-major: reference CBLAS (and OpenBLAS) check the column-major call it becomes,
         * C^T = B^T A^T, and number its parameters: N is 4, M 5, ldb 9, lda 11 (others as
         * given); N before M, ldb before lda. LAPACK's x[sd]cblat3 check exactly these. */
        BADG(d, R, N, N, -1, -1, 2, 2, 2, 2, 0, 0, 0, 4);  /* N checked before M: 4 */
        BADG(d, R, N, N, -1, 2, 2, 2, 2, 2, 0, 0, 0, 5);   /* M < 0: 5 */
        BADG(d, R, N, N, 2, -1, 2, 2, 2, 2, 0, 0, 0, 4);   /* N < 0: 4 */
        BADG(d, R, N, N, 2, 2, -1, 2, 2, 2, 0, 0, 0, 6);   /* K < 0 */
        BADG(d, R, N, N, 2, 2, 3, 2, 2, 2, 0, 0, 0, 11);   /* lda < K (A row-major m x k): 11 */
        BADG(d, R, T, N, 3, 2, 2, 2, 2, 2, 0, 0, 0, 11);   /* lda < M (A transposed): 11 */
        BADG(d, R, N, N, 2, 3, 2, 2, 2, 3, 0, 0, 0, 9);    /* ldb < N: 9 */
        BADG(d, R, N, T, 2, 2, 3, 3, 2, 2, 0, 0, 0, 9);    /* ldb < K (B transposed): 9 */
        BADG(d, R, N, N, 2, 3, 2, 2, 3, 2, 0, 0, 0, 14);   /* ldc < N */
        BADG(d, R, N, N, 2, 3, 3, 2, 2, 3, 0, 0, 0, 9);    /* ldb before lda: 9 */
        BADG(d, R, N, N, 2, 2, 2, 2, 2, 2, 1, 0, 0, 8);    /* A NULL */
        BADG(d, R, N, N, 2, 2, 2, 2, 2, 2, 0, 1, 0, 10);   /* B NULL */
        BADG(d, R, N, N, 2, 2, 2, 2, 2, 2, 0, 0, 1, 13);   /* C NULL */
        BADG(d, R, 0, 0, 2, 2, 2, 2, 2, 2, 0, 0, 0, 2);    /* transA before transB */
    }
    /* alpha == 0: A and B are not touched, so NULL is fine; C is still scaled */
    {
        float Cf[4] = {1, 2, 3, 4};
        xerbla_reset();
        cblas_sgemm(C, N, N, 2, 2, 2, 0.0f, NULL, 2, NULL, 2, 2.0f, Cf, 2);
        CHECK(t_xerbla_calls == 0 && Cf[0] == 2 && Cf[3] == 8, "alpha = 0 with NULL A, B");
    }

    /* omatcopy: layout 1, trans 2, rows 3, cols 4, A 6, lda 7, B 8, ldb 9 */
    static const struct { int lay, tr, rows, cols, lda, ldb, nullA, nullB, expect; } om[] = {
        {99, N, 2, 2, 2, 2, 0, 0, 1},   {C, 0, 2, 2, 2, 2, 0, 0, 2},   {C, N, -1, 2, 2, 2, 0, 0, 3},
        {C, N, 2, -1, 2, 2, 0, 0, 4},   {C, N, 3, 2, 2, 3, 0, 0, 7},   {C, N, 3, 2, 3, 2, 0, 0, 9},
        {C, T, 3, 2, 3, 1, 0, 0, 9},    {R, N, 3, 2, 1, 2, 0, 0, 7},   {R, N, 3, 2, 2, 1, 0, 0, 9},
        {R, T, 3, 2, 2, 2, 0, 0, 9},    {C, N, 2, 2, 2, 2, 1, 0, 6},   {C, N, 2, 2, 2, 2, 0, 1, 8},
        {R, T, 2, 3, 3, 2, 0, 0, 0},    {C, T, 2, 3, 2, 3, 0, 0, 0}};
    for (size_t i = 0; i < sizeof om / sizeof om[0]; ++i)
        for (int d = 0; d < 2; ++d) {
            static double Bd[64];
            static float Bf[64];
            for (int j = 0; j < 64; ++j) Bd[j] = SENTINEL, Bf[j] = (float)SENTINEL;
            xerbla_reset();
            if (d)
                cblas_domatcopy(om[i].lay, om[i].tr, om[i].rows, om[i].cols, 2.0,
                                om[i].nullA ? NULL : (const double *)g_buf, om[i].lda,
                                om[i].nullB ? NULL : Bd, om[i].ldb);
            else
                cblas_somatcopy(om[i].lay, om[i].tr, om[i].rows, om[i].cols, 2.0f,
                                om[i].nullA ? NULL : g_buf, om[i].lda, om[i].nullB ? NULL : Bf,
                                om[i].ldb);
            int untouched = 1;
            for (int j = 0; j < 64; ++j)
                if (Bd[j] != SENTINEL || Bf[j] != (float)SENTINEL) untouched = 0;
            const char *rout = d ? "cblas_domatcopy" : "cblas_somatcopy";
            if (om[i].expect)
                CHECK(t_xerbla_calls == 1 && t_xerbla_param == om[i].expect &&
                          !strcmp(t_xerbla_rout, rout) && untouched,
                      "omatcopy case %zu: xerbla calls %d param %d (expected %d) routine '%s'", i,
                      t_xerbla_calls, t_xerbla_param, om[i].expect, t_xerbla_rout);
            else
                CHECK(t_xerbla_calls == 0 && !untouched, "omatcopy case %zu: valid call refused", i);
        }

    /* asum (n 1, x 2, incx 3), dot (n 1, x 2, incx 3, y 4, incy 5) */
    xerbla_reset();
    float r1 = cblas_sasum(5, NULL, 1);
    CHECK(t_xerbla_calls == 1 && t_xerbla_param == 2 && !strcmp(t_xerbla_rout, "cblas_sasum") && r1 == 0,
          "sasum NULL x: calls %d param %d '%s'", t_xerbla_calls, t_xerbla_param, t_xerbla_rout);
    xerbla_reset();
    double r2 = cblas_dasum(5, NULL, 1);
    CHECK(t_xerbla_calls == 1 && t_xerbla_param == 2 && !strcmp(t_xerbla_rout, "cblas_dasum") && r2 == 0,
          "dasum NULL x");
    xerbla_reset();
    CHECK(cblas_dasum(5, NULL, -1) == 0 && t_xerbla_calls == 0, "dasum incx < 0 reads nothing");
    xerbla_reset();
    float r3 = cblas_sdot(5, NULL, 1, g_buf, 1);
    CHECK(t_xerbla_calls == 1 && t_xerbla_param == 2 && !strcmp(t_xerbla_rout, "cblas_sdot") && r3 == 0,
          "sdot NULL x");
    xerbla_reset();
    double r4 = cblas_ddot(5, (const double *)g_buf, 1, NULL, 1);
    CHECK(t_xerbla_calls == 1 && t_xerbla_param == 4 && !strcmp(t_xerbla_rout, "cblas_ddot") && r4 == 0,
          "ddot NULL y");

    /* Fortran entry points: xerbla_ with Fortran numbering (TRANSA 1, TRANSB 2, M 3, N 4, K 5,
     * LDA 8, LDB 10, LDC 13) and the routine name as reference BLAS passes it */
    static const struct { char ta, tb; blasint m, n, k, lda, ldb, ldc; int expect; } fg[] = {
        {'X', 'N', 2, 2, 2, 2, 2, 2, 1}, {'N', 'Y', 2, 2, 2, 2, 2, 2, 2},
        {'N', 'N', -1, 2, 2, 2, 2, 2, 3}, {'n', 'N', 2, -1, 2, 2, 2, 2, 4},
        {'N', 't', 2, 2, -1, 2, 2, 2, 5}, {'N', 'N', 3, 2, 2, 2, 2, 3, 8},
        {'T', 'N', 2, 2, 3, 2, 3, 2, 8},  {'N', 'N', 2, 2, 3, 2, 2, 2, 10},
        {'N', 'C', 2, 3, 2, 2, 2, 2, 10}, {'N', 'N', 3, 2, 2, 3, 2, 2, 13},
        {'C', 'n', 2, 2, 2, 2, 2, 2, 0}};
    for (size_t i = 0; i < sizeof fg / sizeof fg[0]; ++i)
        for (int d = 0; d < 2; ++d) {
            static double Cd[64];
            static float Cf[64];
            static double Ad[64];
            for (int j = 0; j < 64; ++j) Cd[j] = SENTINEL, Cf[j] = (float)SENTINEL, Ad[j] = 0.5;
            double one = 1, half = 0.5;
            float onef = 1, halff = 0.5f;
            xerbla_reset();
            if (d)
                dgemm_(&fg[i].ta, &fg[i].tb, &fg[i].m, &fg[i].n, &fg[i].k, &one, Ad, &fg[i].lda,
                       Ad, &fg[i].ldb, &half, Cd, &fg[i].ldc, 1, 1);
            else
                sgemm_(&fg[i].ta, &fg[i].tb, &fg[i].m, &fg[i].n, &fg[i].k, &onef, g_buf,
                       &fg[i].lda, g_buf, &fg[i].ldb, &halff, Cf, &fg[i].ldc, 1, 1);
            int untouched = 1;
            for (int j = 0; j < 64; ++j)
                if (Cd[j] != SENTINEL || Cf[j] != (float)SENTINEL) untouched = 0;
            const char *rout = d ? "DGEMM " : "SGEMM ";
            if (fg[i].expect)
                CHECK(t_xerbla_calls == 1 && t_xerbla_param == fg[i].expect &&
                          !strcmp(t_xerbla_rout, rout) && untouched,
                      "%s case %zu: xerbla_ calls %d info %d (expected %d) name '%s'", rout, i,
                      t_xerbla_calls, t_xerbla_param, fg[i].expect, t_xerbla_rout);
            else
                CHECK(t_xerbla_calls == 0 && !untouched, "%s case %zu: valid call refused", rout, i);
        }
}

/* ------------------------------------------------------------------ threads */

typedef struct thread_arg {
    int id;
    int64_t scale;
    int ok;
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *a = p;
    uint64_t seed = g_seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(a->id + 1));
    int ok = 1;
    for (int it = 0; it < 3; ++it) {
        int64_t m = a->scale * (13 + 7 * a->id) + it, n = a->scale * (9 + 5 * a->id) + 2 * it,
                k = a->scale * (5 + 3 * a->id) + 3 * it;
        ok &= gemm_case(a->id % 2, 0, (a->id + it) % 2 ? CblasColMajor : CblasRowMajor,
                        it % 2 ? CblasTrans : CblasNoTrans, a->id % 3 ? CblasNoTrans : CblasTrans,
                        m, n, k, 0.75, it == 1 ? 0.0 : -0.5, it, &seed, "thread");
        ok &= gemm_case(1 - a->id % 2, 1, CblasColMajor, CblasNoTrans, CblasTrans, n, m, k, 1.0,
                        1.0, 1, &seed, "thread fortran");
        int64_t len = a->scale * 1000 * (a->id + 1) + it;
        double *x = malloc((size_t)len * 8), *y = malloc((size_t)len * 8), r = 0, s = 0;
        for (int64_t i = 0; i < len; ++i) {
            x[i] = urand_r(&seed), y[i] = urand_r(&seed);
            r += x[i] * y[i], s += fabs(x[i] * y[i]);
        }
        double got = cblas_ddot((blasint)len, x, 1, y, 1);
        int good = fabs(got - r) <= (double)(len + 2) * 1.2e-16 * s && path_ok();
        CHECK(good, "thread %d ddot n=%lld: %g vs %g", a->id, (long long)len, got, r);
        ok &= good;
        free(x), free(y);
    }
    a->ok = ok;
    return NULL;
}

static void test_threads(int64_t scale) {
    pthread_t th[8];
    thread_arg args[8];
    for (int i = 0; i < 8; ++i) {
        args[i] = (thread_arg){i, scale, 0};
        pthread_create(&th[i], NULL, thread_main, &args[i]);
    }
    for (int i = 0; i < 8; ++i) {
        pthread_join(th[i], NULL);
        CHECK(args[i].ok, "thread %d had failures", i);
    }
}

/* ------------------------------------------------------------------ main */

#ifndef MBC_TEST_NO_MAIN
#include <sys/stat.h>
#include <unistd.h>

int main(void) {
    /* Quietly: with no GPU and no MINIBLAS_CBLAS_VERBOSE, nothing may reach stderr. */
    const char *verbose = getenv("MINIBLAS_CBLAS_VERBOSE");
    FILE *err_capture = tmpfile();
    int saved_stderr = dup(2);
    if (err_capture) dup2(fileno(err_capture), 2);

    int gpu = miniblas_cblas_gpu_available();
    const char *cpu = miniblas_cblas_cpu_blas();
    printf("CPU BLAS: %s; GPU: %s\n", cpu ? cpu : "(none)", gpu ? "available" : "none");
    CHECK(cpu != NULL, "no CPU BLAS was loaded");
    /* The GPU path is tested by test_cblas_gpu; here every call must be on the CPU BLAS. */
    if (gpu) miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_CPU);
    g_expect_path = MINIBLAS_CBLAS_PATH_CPU;

    test_gemm(0);
    test_fortran();
    test_reductions(INT64_MAX);
    test_omatcopy();
    test_xerbla();
    test_threads(1);
    if (!gpu) { /* forcing the GPU without one: right answers, CPU path, no noise */
        miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
        uint64_t seed = 7;
        gemm_case(0, 0, CblasRowMajor, CblasTrans, CblasNoTrans, 30, 20, 10, 1, 1, 1, &seed,
                  "forced-gpu");
        gemm_case(1, 1, CblasColMajor, CblasNoTrans, CblasNoTrans, 30, 20, 10, 1, 0, 1, &seed,
                  "forced-gpu");
        test_reductions(1000);
        omatcopy_case(0, CblasRowMajor, CblasTrans, 17, 9, 2.0, 1, &seed);
        miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_AUTO);
    }

    fflush(stderr);
    if (err_capture) {
        dup2(saved_stderr, 2);
        struct stat st;
        if (!gpu && !verbose && fstat(fileno(err_capture), &st) == 0) {
            if (st.st_size != 0) {
                char buf[512] = {0};
                rewind(err_capture);
                size_t got = fread(buf, 1, sizeof buf - 1, err_capture);
                buf[got] = '\0';
                CHECK(0, "the layer was not quiet without a GPU; stderr got: %s", buf);
            } else {
                CHECK(1, "quiet");
            }
        }
    }
    printf("test_cblas_cpu: %d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
#endif
