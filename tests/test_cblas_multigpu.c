/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libminiblas_cblas's gemm on host operands over several GPUs (exits 77 with fewer than 2).
 * Each setting runs in a child process of its own (this program re-executed with the
 * setting's environment), which computes a fixed list of calls and writes every C it got to
 * a file; the parent judges the statuses, the files and the children's stderr:
 *   - every call right against a plain C reference in double (|C - ref| <= gamma k eps
 *     (|alpha| |A| |B| + |beta| |C|) elementwise; the padding between columns untouched):
 *     sgemm and dgemm, both layouts, all four transposes, odd shapes whose panels divide
 *     unevenly over the devices, padded leading dimensions, alpha and beta in {1, 0, -1,
 *     other}, beta == 0 over NaN, operands in pageable and in pinned (cudaMallocHost) memory,
 *     the Fortran entry point, 4 host threads calling at once (one spread call at a time,
 *     the others on the first device alone); MINIBLAS_CBLAS_TUNING=panel=64,kslab=16,
 *     split_cols=1 makes these sizes split into many panels, A row blocks and phase-1 k-slabs,
 *     and row_gemm_k=12 computes the wider panels after the first ones by row blocks of A
 *     (the narrower ones over all rows);
 *   - s/d omatcopy on pinned A and B (both layouts, N and T, padded leading dimensions):
 *     B exactly alpha op(A), the padding untouched, split over every device listed;
 *   - MINIBLAS_CBLAS_DEVICES=0, =0,1, =all and unset give bitwise the same C for every call,
 *     and the lists of two or more devices really split (the verbose line "over N devices");
 *     where the second GPU can read the first's memory, pageable A really goes from one to
 *     the other ("A copied between devices"), and where each can read the other's, pinned A
 *     goes across in parts, one from each ("A in parts from every device"); with
 *     MINIBLAS_CBLAS_TUNING=...,a_parts=off (each device DMAs all of pinned A) too; and
 *     with ...,head_rows=off (the head panels by gemms spanning several panels, kept on the
 *     first device: the default computes them by (row block x panel) gemms) DEVICES=0, =0,1
 *     and =all give bitwise the same C as each other, and with row_out=off added (pinned C,
 *     beta == 0: copied back by panels, not by row blocks) the same C again; row_out=off
 *     alone the same C as the default;
 *   - a list naming a GPU that does not exist: one clear line at initialisation, every call
 *     still right (on the CPU BLAS);
 *   - one GPU made to fail after some of its gemms (MINIBLAS_CBLAS_TEST_FAIL_GEMM=N@P, the
 *     first or the second device of the list): every call still right, the notice says which
 *     device failed.
 * And sasum, dasum, sdot, ddot on host vectors (the same children, then children of their
 * own): lengths around the multiples of the piece length (MBC_VEC_PIECE, 2^22 elements), random
 * values, pinned and pageable vectors, NaN and Inf in one piece; each result against an exact
 * sum (long double) within max(4 x OpenBLAS's own error, (n / 2^16 + 64) eps sum|x_i y_i|),
 * the error of a sum whose longest chain of additions is that long (the GPU path's); the
 * result bitwise the same for every device list; pinned vectors of two pieces or more split
 * over the devices (MINIBLAS_CBLAS_TUNING=split_vec=1: any share; and at the default least
 * share, just below and above it), pageable ones never; a device made to fail
 * (MINIBLAS_CBLAS_TEST_FAIL_REDUCE=N@P): every result still right, the notice names it.
 * Links libminiblas_cblas only (it dlopens OpenBLAS), plus the CUDA runtime for pinned memory.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>
#include "miniblas_cblas.h"

#include "cpu_check.h"

/* Fortran sgemm_ of the drop-in (exported by libminiblas_cblas). */
void sgemm_(const char *ta, const char *tb, const blasint *m, const blasint *n, const blasint *k,
            const float *alpha, const float *A, const blasint *lda, const float *B,
            const blasint *ldb, const float *beta, float *C, const blasint *ldc, size_t, size_t);

static double drand(uint64_t *st) { /* [-1, 1); xorshift64* */
    *st ^= *st >> 12, *st ^= *st << 25, *st ^= *st >> 27;
    return (double)((*st * 0x2545F4914F6CDD1Dull) >> 11) / (double)(1ull << 52) - 1.0;
}

/* ------------------------------------------------------------------ one call, checked */

typedef struct gcase {
    int dbl, row, ta, tb, fortran, pinned;
    int64_t m, n, k, pad;
    double alpha, beta;
    uint64_t seed; /* the inputs */
} gcase;

static void *alloc(size_t bytes, int pinned) {
    void *p = NULL;
    if (pinned) {
        if (cudaMallocHost(&p, bytes) != cudaSuccess) {
            printf("cudaMallocHost(%zu) failed\n", bytes);
            exit(3);
        }
    } else if (!(p = malloc(bytes))) {
        exit(3);
    }
    return p;
}
static void release(void *p, int pinned) {
    if (pinned) cudaFreeHost(p);
    else free(p);
}

/* The reference's sums for every element of C, the same additions in the same order as one
 * loop over q per element would make: s[i n + j] = sum over q of op(A)[i, q] op(B)[q, j], sa
 * the same over the products' magnitudes. op(A) is copied by rows and op(B) by columns, each
 * contiguous in q, and the rows of C are shared by up to 8 threads (minutes of naive loops
 * over a run of this test's children otherwise). */
typedef struct refjob {
    const double *a, *b; /* op(A), m x k by rows; op(B), k x n by columns */
    int64_t n, k, i0, i1;
    double *s, *sa; /* m x n by rows */
} refjob;

static void *ref_rows(void *p) {
    const refjob *r = p;
    for (int64_t i = r->i0; i < r->i1; ++i)
        for (int64_t j = 0; j < r->n; ++j) {
            const double *x = r->a + i * r->k, *y = r->b + j * r->k;
            double s = 0, sa = 0;
            for (int64_t q = 0; q < r->k; ++q) s += x[q] * y[q], sa += fabs(x[q] * y[q]);
            r->s[i * r->n + j] = s, r->sa[i * r->n + j] = sa;
        }
    return NULL;
}

static void reference(const gcase *c, const double *A, int64_t lda, const double *B, int64_t ldb,
                      double *s, double *sa) {
    int64_t m = c->m, n = c->n, k = c->k;
    double *a = malloc((size_t)(m * k + 1) * sizeof(double)), *b = malloc((size_t)(n * k + 1) * sizeof(double));
    if (!a || !b) exit(3);
    for (int64_t i = 0; i < m; ++i) /* op(A)[i, q] in the caller's layout */
        for (int64_t q = 0; q < k; ++q) {
            int64_t ai = c->ta ? q : i, aj = c->ta ? i : q;
            a[i * k + q] = c->row ? A[ai * lda + aj] : A[ai + aj * lda];
        }
    for (int64_t j = 0; j < n; ++j) /* op(B)[q, j] */
        for (int64_t q = 0; q < k; ++q) {
            int64_t bi = c->tb ? j : q, bj = c->tb ? q : j;
            b[j * k + q] = c->row ? B[bi * ldb + bj] : B[bi + bj * ldb];
        }
    enum { NTH = 8 };
    refjob r[NTH];
    pthread_t th[NTH];
    int started[NTH];
    for (int t = 0; t < NTH; ++t) {
        r[t] = (refjob){a, b, n, k, m * t / NTH, m * (t + 1) / NTH, s, sa};
        started[t] = pthread_create(&th[t], NULL, ref_rows, &r[t]) == 0;
        if (!started[t]) ref_rows(&r[t]); /* no thread: this one does the rows */
    }
    for (int t = 0; t < NTH; ++t)
        if (started[t]) pthread_join(th[t], NULL);
    free(a), free(b);
}

/* Runs case c; appends the C it got (all of the array, padding included) to out; returns
 * 1 when every element is right and the padding is untouched. */
static int run_case(const gcase *c, FILE *out) {
    size_t e = c->dbl ? sizeof(double) : sizeof(float);
    int64_t m = c->m, n = c->n, k = c->k;
    /* stored shapes: op(A) m x k, op(B) k x n, in the caller's layout */
    int64_t ar = c->ta ? k : m, ac = c->ta ? m : k, br = c->tb ? n : k, bc = c->tb ? k : n;
    int64_t a_in = c->row ? ac : ar, a_out = c->row ? ar : ac; /* contiguous / strided dims */
    int64_t b_in = c->row ? bc : br, b_out = c->row ? br : bc;
    int64_t c_in = c->row ? n : m, c_out = c->row ? m : n;
    int64_t lda = a_in + c->pad, ldb = b_in + c->pad, ldc = c_in + c->pad;
    size_t na = (size_t)(lda * a_out), nb = (size_t)(ldb * b_out), nc = (size_t)(ldc * c_out);
    double *A = malloc(na * sizeof(double)), *B = malloc(nb * sizeof(double));
    double *C0 = malloc(nc * sizeof(double));
    uint64_t rs = c->seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    for (size_t i = 0; i < na; ++i) A[i] = drand(&rs);
    for (size_t i = 0; i < nb; ++i) B[i] = drand(&rs);
    for (size_t i = 0; i < nc; ++i) C0[i] = c->beta == 0 ? NAN : drand(&rs);
    char *a = alloc(na * e, c->pinned), *b = alloc(nb * e, c->pinned), *cc = alloc(nc * e, c->pinned);
    for (size_t i = 0; i < na; ++i)
        if (c->dbl) ((double *)a)[i] = A[i]; else ((float *)a)[i] = (float)A[i];
    for (size_t i = 0; i < nb; ++i)
        if (c->dbl) ((double *)b)[i] = B[i]; else ((float *)b)[i] = (float)B[i];
    for (size_t i = 0; i < nc; ++i)
        if (c->dbl) ((double *)cc)[i] = C0[i]; else ((float *)cc)[i] = (float)C0[i];
    /* the inputs as the library sees them (rounded to float for sgemm) */
    for (size_t i = 0; i < na; ++i) A[i] = c->dbl ? ((double *)a)[i] : ((float *)a)[i];
    for (size_t i = 0; i < nb; ++i) B[i] = c->dbl ? ((double *)b)[i] : ((float *)b)[i];
    for (size_t i = 0; i < nc; ++i) C0[i] = c->dbl ? ((double *)cc)[i] : ((float *)cc)[i];

    CBLAS_ORDER lay = c->row ? CblasRowMajor : CblasColMajor;
    CBLAS_TRANSPOSE ta = c->ta ? CblasTrans : CblasNoTrans, tb = c->tb ? CblasTrans : CblasNoTrans;
    if (c->fortran) { /* column-major, float */
        blasint M = (blasint)m, N = (blasint)n, K = (blasint)k, LA = (blasint)lda,
                LB = (blasint)ldb, LC = (blasint)ldc;
        float al = (float)c->alpha, be = (float)c->beta;
        sgemm_(c->ta ? "T" : "N", c->tb ? "T" : "N", &M, &N, &K, &al, (float *)a, &LA, (float *)b,
               &LB, &be, (float *)cc, &LC, 1, 1);
    } else if (c->dbl) {
        cblas_dgemm(lay, ta, tb, (blasint)m, (blasint)n, (blasint)k, c->alpha, (double *)a,
                    (blasint)lda, (double *)b, (blasint)ldb, c->beta, (double *)cc, (blasint)ldc);
    } else {
        cblas_sgemm(lay, ta, tb, (blasint)m, (blasint)n, (blasint)k, (float)c->alpha, (float *)a,
                    (blasint)lda, (float *)b, (blasint)ldb, (float)c->beta, (float *)cc,
                    (blasint)ldc);
    }
    fwrite(cc, e, nc, out);

    double eps = c->dbl ? 0x1p-52 : 0x1p-23;
    int ok = 1;
    int64_t bad = 0;
    double *S = malloc((size_t)(m * n) * sizeof(double)), *SA = malloc((size_t)(m * n) * sizeof(double));
    if (!S || !SA) exit(3);
    reference(c, A, lda, B, ldb, S, SA);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = S[i * n + j], sa = SA[i * n + j];
            size_t ix = c->row ? (size_t)(i * ldc + j) : (size_t)(i + j * ldc);
            double c0 = c->beta == 0 ? 0 : C0[ix];
            double ref = c->alpha * s + c->beta * c0;
            double tol = 4.0 * (double)(k + 2) * eps * (fabs(c->alpha) * sa + fabs(c->beta * c0)) + 1e-300;
            double got = c->dbl ? ((double *)cc)[ix] : ((float *)cc)[ix];
            if (!(fabs(got - ref) <= tol)) {
                if (bad++ < 3)
                    printf("case %s %s %c%c m %lld n %lld k %lld alpha %g beta %g%s%s: C[%lld,%lld] = %.17g, want %.17g (tol %.3g)\n",
                           c->dbl ? "d" : "s", c->row ? "row" : "col", c->ta ? 'T' : 'N', c->tb ? 'T' : 'N',
                           (long long)m, (long long)n, (long long)k, c->alpha, c->beta,
                           c->pinned ? " pinned" : "", c->fortran ? " fortran" : "", (long long)i,
                           (long long)j, got, ref, tol);
                ok = 0;
            }
        }
    for (int64_t o = 0; o < c_out; ++o) /* the padding: as it was */
        for (int64_t p = c_in; p < ldc; ++p) {
            size_t ix = (size_t)(o * ldc + p);
            double got = c->dbl ? ((double *)cc)[ix] : ((float *)cc)[ix];
            if (!(got == C0[ix] || (isnan(got) && isnan(C0[ix])))) {
                if (bad++ < 3) printf("padding changed at %zu\n", ix);
                ok = 0;
            }
        }
    release(a, c->pinned), release(b, c->pinned), release(cc, c->pinned);
    free(A), free(B), free(C0), free(S), free(SA);
    return ok;
}

/* A case on a thread of its own; its C kept in memory for the parent's file. */
typedef struct thread_case {
    gcase c;
    char *buf;
    size_t len;
    int ok;
} thread_case;

static void *thread_run(void *p) {
    thread_case *t = p;
    FILE *f = open_memstream(&t->buf, &t->len);
    if (!f) return NULL;
    t->ok = run_case(&t->c, f);
    fclose(f);
    return NULL;
}

static int run_reds(FILE *out, int thr);
static int run_oms(FILE *out);

/* The fixed list of calls: the same in every child (fixed seeds). */
static int run_all(const char *path) {
    FILE *out = fopen(path, "wb");
    if (!out) return 2;
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
    static const int64_t shapes[][3] = {
        {531, 700, 131},  /* A in row blocks (head panels), 11 panels: uneven shares */
        {1030, 389, 33},  /* 7 panels, a head of 3: the shares after it are short */
        {77, 900, 65},    /* one row block: no head */
        {600, 260, 1},    /* k = 1 */
        {513, 1025, 257}, /* phase-1 k-slabs (beta == 0) */
    };
    static const double ab[][2] = {{1, 0}, {-1, 1}, {0.7, -0.3}, {1.5, 0}};
    int ok = 1, ncase = 0;
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int row = 0; row < 2; ++row)
            for (int t = 0; t < 4; ++t)
                for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
                    gcase c = {dbl, row, t & 1, t >> 1, 0, 0, shapes[s][0], shapes[s][1], shapes[s][2],
                               (int64_t)(s % 3) * 3, ab[(s + (size_t)t) % 4][0], ab[(s + (size_t)t) % 4][1], 0};
                    c.pinned = (s + (size_t)t + (size_t)row) % 3 == 0;
                    c.seed = (uint64_t)++ncase;
                    ok &= run_case(&c, out);
                }
    /* alpha = 0 (no product: one device), beta == -1; the Fortran entry point, pinned too */
    gcase z = {1, 0, 0, 1, 0, 0, 531, 700, 131, 2, 0.0, -1.0, 0};
    z.seed = (uint64_t)++ncase, ok &= run_case(&z, out);
    gcase f1 = {0, 0, 1, 0, 1, 0, 531, 700, 131, 1, -1.0, 0.5, 0};
    f1.seed = (uint64_t)++ncase, ok &= run_case(&f1, out);
    gcase f2 = {0, 0, 0, 0, 1, 1, 1030, 389, 300, 0, 1.0, 0.0, 0};
    f2.seed = (uint64_t)++ncase, ok &= run_case(&f2, out);

    /* 4 host threads at once: one spread call at a time, the others on the first device
     * alone, all with the same C as on one device */
    enum { NT = 4 };
    thread_case tc[NT];
    pthread_t th[NT];
    for (int t = 0; t < NT; ++t) {
        gcase c = {t & 1, t >> 1, t & 1, (t >> 1) & 1, 0, t == 3, 531 + 64 * t, 700 - 33 * t, 131, 1,
                   1.0, t == 2 ? 0.0 : 0.5, 0};
        c.seed = (uint64_t)++ncase;
        tc[t].c = c;
        tc[t].buf = NULL, tc[t].len = 0, tc[t].ok = 0;
        if (pthread_create(&th[t], NULL, thread_run, &tc[t])) return 2;
    }
    for (int t = 0; t < NT; ++t) {
        pthread_join(th[t], NULL);
        ok &= tc[t].ok;
        if (tc[t].buf) fwrite(tc[t].buf, 1, tc[t].len, out), free(tc[t].buf);
    }
    printf("%d calls, %s\n", ncase, ok ? "all right" : "SOME WRONG");
    ok &= run_oms(out);
    ok &= run_reds(out, 0);
    fclose(out);
    return ok ? 0 : 1;
}

/* ------------------------------------------------------------------ omatcopy */

/* somatcopy / domatcopy on pinned A and B (split over the devices listed where each gets
 * split_vec elements of A: any share in the identity children), both layouts, N and T, padded
 * leading dimensions: B against alpha op(A) exactly, the padding untouched; B (padding too)
 * appended to out. Returns 1 when all are right. */
static const int64_t g_om[][2] = {{300, 517}, {517, 300}, {3, 1}};
#define NOM (sizeof g_om / sizeof g_om[0])
static int run_oms(FILE *out) {
    int ok = 1;
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int row = 0; row < 2; ++row)
            for (int t = 0; t < 2; ++t)
                for (size_t s = 0; s < NOM; ++s) {
                    size_t e = dbl ? sizeof(double) : sizeof(float);
                    int64_t rows = g_om[s][0], cols = g_om[s][1];
                    /* stored (contiguous x strided) in the caller's layout */
                    int64_t a_in = row ? cols : rows, a_out = row ? rows : cols;
                    int64_t b_in = t ? a_out : a_in, b_out = t ? a_in : a_out; /* B = op(A) */
                    int64_t lda = a_in + 3, ldb = b_in + 2;
                    char *a = alloc((size_t)(lda * a_out) * e, 1), *b = alloc((size_t)(ldb * b_out) * e, 1);
                    uint64_t rs = (uint64_t)(1000 * s + 10 * t + row + 7 * dbl + 1);
                    for (int64_t i = 0; i < lda * a_out; ++i) {
                        double v = drand(&rs);
                        if (dbl) ((double *)a)[i] = v;
                        else ((float *)a)[i] = (float)v;
                    }
                    memset(b, 0x5a, (size_t)(ldb * b_out) * e);
                    enum CBLAS_ORDER ord = row ? CblasRowMajor : CblasColMajor;
                    enum CBLAS_TRANSPOSE tr = t ? CblasTrans : CblasNoTrans;
                    if (dbl) cblas_domatcopy(ord, tr, (blasint)rows, (blasint)cols, -1.5, (double *)a, (blasint)lda, (double *)b, (blasint)ldb);
                    else cblas_somatcopy(ord, tr, (blasint)rows, (blasint)cols, -1.5f, (float *)a, (blasint)lda, (float *)b, (blasint)ldb);
                    int64_t wrong = 0;
                    for (int64_t j = 0; j < b_out; ++j)
                        for (int64_t i = 0; i < ldb; ++i) {
                            size_t at = (size_t)(i + j * ldb);
                            if (i >= b_in) { /* padding */
                                unsigned char z[8];
                                memset(z, 0x5a, sizeof z);
                                wrong += memcmp(b + at * e, z, e) != 0;
                                continue;
                            }
                            /* stored element (i, j) of B: A's (j, i) transposed, else (i, j) */
                            size_t src = (size_t)(t ? j + i * lda : i + j * lda);
                            if (dbl) wrong += ((double *)b)[at] != -1.5 * ((double *)a)[src];
                            else wrong += ((float *)b)[at] != -1.5f * ((float *)a)[src];
                        }
                    if (wrong) {
                        printf("%comatcopy %s %c %lldx%lld: %lld elements wrong\n", dbl ? 'd' : 's',
                               row ? "row" : "col", t ? 'T' : 'N', (long long)rows, (long long)cols,
                               (long long)wrong);
                        ok = 0;
                    }
                    fwrite(b, e, (size_t)(ldb * b_out), out);
                    release(a, 1), release(b, 1);
                }
    return ok;
}

/* ------------------------------------------------------------------ reductions */

#define PIECE ((int64_t)1 << 22) /* MBC_VEC_PIECE (src/cblas/mgpu_plan.h) */

typedef struct rcase {
    int dbl, dot, px, py; /* px, py: x, y pinned (cudaMallocHost), else malloc */
    int64_t n;
    int special; /* 0 none; 1 NaN in piece 1; 2 +Inf in piece 2; 3 +Inf in piece 1, -Inf in 3 */
} rcase;

/* With split_vec=1: every pinned case of two pieces or more splits. Each routine's lengths
 * differ (the parent finds a call's verbose line by routine and length). */
static const rcase g_red[] = {
    {0, 0, 1, 1, PIECE - 1, 0},     {0, 0, 1, 1, PIECE, 0},         {0, 0, 1, 1, PIECE + 1, 0},
    {0, 0, 1, 1, 3 * PIECE - 1, 0}, {0, 0, 1, 1, 5 * PIECE + 7, 0}, {0, 0, 0, 0, 3 * PIECE - 2, 0},
    {1, 0, 1, 1, PIECE + 1, 0},     {1, 0, 1, 1, 3 * PIECE + 5, 0}, {0, 1, 1, 1, 2 * PIECE + 1, 0},
    {0, 1, 1, 1, 3 * PIECE - 3, 0}, {0, 1, 0, 1, 2 * PIECE + 5, 0}, {1, 1, 1, 1, 2 * PIECE + 3, 0},
    {1, 1, 1, 1, 5 * PIECE + 7, 0}, {0, 0, 1, 1, 3 * PIECE + 1, 1}, {1, 0, 1, 1, 2 * PIECE + 9, 2},
    {0, 1, 1, 1, 3 * PIECE + 1, 2}, {1, 1, 1, 1, 4 * PIECE + 3, 3},
};
/* At the default least share (2^23 elements per device for sasum and sdot, 2^22 for dasum and
 * ddot): split, yes or no, on two devices. */
static const rcase g_thr[] = {
    {0, 0, 1, 1, (1 << 24) - 1, 0}, {0, 0, 1, 1, (1 << 24) + 3, 0}, {1, 0, 1, 1, (1 << 23) - 1, 0},
    {1, 0, 1, 1, 1 << 23, 0},       {0, 1, 1, 1, 1 << 24, 0},
};
static const int g_thr_split[] = {0, 1, 0, 1, 1};
#define NRED (sizeof g_red / sizeof g_red[0])
#define NTHR (sizeof g_thr / sizeof g_thr[0])

static const char *rname(const rcase *c) {
    return c->dot ? (c->dbl ? "ddot" : "sdot") : (c->dbl ? "dasum" : "sasum");
}
static int64_t npieces(int64_t n) { return (n + PIECE - 1) / PIECE; }
static int splits(const rcase *c) { return c->px && (!c->dot || c->py) && npieces(c->n) >= 2; }

static void *g_rbuf[4]; /* x, y pinned; x, y pageable: big enough for every case */

static double getd(const void *p, int dbl, int64_t i) {
    return dbl ? ((const double *)p)[i] : ((const float *)p)[i];
}
static void setd(void *p, int dbl, int64_t i, double v) {
    if (dbl) ((double *)p)[i] = v;
    else ((float *)p)[i] = (float)v;
}

static double call_red(const rcase *c, const void *x, const void *y) {
    blasint n = (blasint)c->n;
    if (c->dot)
        return c->dbl ? cblas_ddot(n, x, 1, y, 1) : (double)cblas_sdot(n, x, 1, y, 1);
    return c->dbl ? cblas_dasum(n, x, 1) : (double)cblas_sasum(n, x, 1);
}

/* Runs reduction c (seed: the inputs); appends its result to out; 1 when right. */
static int run_red(const rcase *c, uint64_t seed, FILE *out, int want_gpu, double *ratio) {
    void *x = g_rbuf[c->px ? 0 : 2], *y = c->dot ? g_rbuf[c->py ? 1 : 3] : NULL;
    int dbl = c->dbl;
    int64_t n = c->n;
    uint64_t rs = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
    for (int64_t i = 0; i < n; ++i) { /* in [-0.25, 1): a lost or doubled piece shows */
        setd(x, dbl, i, drand(&rs) * 0.625 + 0.375);
        if (y) setd(y, dbl, i, drand(&rs) * 0.625 + 0.375);
    }
    if (c->special == 1) setd(x, dbl, PIECE + 5, NAN);
    if (c->special == 2) setd(x, dbl, 2 * PIECE + 1, INFINITY);
    if (c->special == 3) setd(x, dbl, PIECE + 1, INFINITY), setd(x, dbl, 3 * PIECE + 2, -INFINITY);
    if (y && c->special >= 2) setd(y, dbl, 2 * PIECE + 1, 0.5), setd(y, dbl, PIECE + 1, 0.5),
                              setd(y, dbl, 3 * PIECE + 2, 0.5);
    long double exact = 0, abs = 0;
    for (int64_t i = 0; i < n; ++i) {
        long double t = getd(x, dbl, i);
        if (y) t *= (long double)getd(y, dbl, i);
        else t = fabsl(t);
        exact += t, abs += fabsl(t);
    }
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_CPU);
    double ob = call_red(c, x, y); /* OpenBLAS */
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
    double got = call_red(c, x, y);
    int path = miniblas_cblas_last_path();
    fwrite(&got, sizeof got, 1, out);
    int ok = 1;
    const char *mem = c->px && (!y || c->py) ? "pinned" : "pageable";
    if (want_gpu && path != MINIBLAS_CBLAS_PATH_GPU) {
        printf("%s n %lld %s: path %d, not the GPU\n", rname(c), (long long)n, mem, path);
        ok = 0;
    }
    if (c->special) {
        int nan = c->special == 1 || (c->special == 3 && c->dot);
        if (nan ? !isnan(got) : !(isinf(got) && got > 0)) {
            printf("%s n %lld %s: %g, want %s\n", rname(c), (long long)n, mem, got, nan ? "NaN" : "+Inf");
            ok = 0;
        }
        return ok;
    }
    double eps = dbl ? 0x1p-52 : 0x1p-23;
    double err = fabs(got - (double)exact), err_ob = fabs(ob - (double)exact);
    double tol = ((double)n / 65536.0 + 64.0) * eps * (double)abs;
    if (4 * err_ob > tol) tol = 4 * err_ob;
    if (!(err <= tol)) {
        printf("%s n %lld %s: %.17g, exact %.17Lg: error %.3g > tol %.3g (OpenBLAS's error %.3g)\n",
               rname(c), (long long)n, mem, got, exact, err, tol, err_ob);
        ok = 0;
    }
    double r = err / (err_ob > 0 ? err_ob : eps * (double)abs);
    if (r > *ratio) *ratio = r;
    return ok;
}

/* The list of reductions (thr: the threshold list) after the gemms, or alone. */
static int run_reds(FILE *out, int thr) {
    size_t big = (size_t)(5 * PIECE + 7) * sizeof(double), big2 = (size_t)(1 << 24) * sizeof(float);
    if (big2 > big) big = big2;
    for (int i = 0; i < 4; ++i) g_rbuf[i] = alloc(big, i < 2);
    const char *f = getenv("MINIBLAS_CBLAS_TEST_FAIL_REDUCE");
    int want_gpu = (!f || !f[0]) && miniblas_cblas_gpu_available(); /* else the CPU may finish */
    int ok = 1;
    double ratio = 0;
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
    const rcase *list = thr ? g_thr : g_red;
    size_t cnt = thr ? NTHR : NRED;
    for (size_t i = 0; i < cnt; ++i) ok &= run_red(&list[i], 1000 + i, out, want_gpu, &ratio);
    for (int i = 0; i < 4; ++i) release(g_rbuf[i], i < 2);
    printf("%zu reductions, %s; largest error / OpenBLAS's error: %.3g\n", cnt,
           ok ? "all right" : "SOME WRONG", ratio);
    return ok;
}

static int run_reds_file(const char *path, int thr) {
    FILE *out = fopen(path, "wb");
    if (!out) return 2;
    int ok = run_reds(out, thr);
    fclose(out);
    return ok ? 0 : 1;
}

/* ------------------------------------------------------------------ the parent */

static char g_err[8 << 20];

/* A line per part of the parent's run (it takes minutes): what has passed, and when. */
static void progress(const char *part, time_t t0) {
    printf("test_cblas_multigpu: %s: %s after %lld s\n", part, g_fail ? "FAILED so far" : "ok",
           (long long)(time(NULL) - t0));
    fflush(stdout);
}

static int run_child_mode(const char *self, const char *mode, const char *arg, const char **env) {
    char tmpl[] = "/tmp/mbc_multigpu_errXXXXXX";
    int efd = mkstemp(tmpl);
    if (efd < 0) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(efd, 2);
        for (const char **e = env; e && *e; ++e) putenv((char *)*e);
        execl(self, self, mode, arg, (char *)NULL);
        _exit(127);
    }
    int st = -1;
    time_t t0 = time(NULL);
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (time(NULL) - t0 > 600) kill(pid, SIGKILL);
        usleep(20000);
    }
    ssize_t got = pread(efd, g_err, sizeof g_err - 1, 0);
    g_err[got > 0 ? got : 0] = '\0';
    close(efd);
    unlink(tmpl);
    return st;
}

static int run_child(const char *self, const char *arg, const char **env) {
    return run_child_mode(self, "run", arg, env);
}

static int count(const char *hay, const char *needle) {
    int c = 0;
    for (const char *p = hay; (p = strstr(p, needle)); ++p) ++c;
    return c;
}

static int same_file(const char *a, const char *b) {
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    long pos = 0;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y) {
            printf("%s and %s differ at byte %ld\n", a, b, pos);
            same = 0;
        }
        if (x == EOF || y == EOF) break;
        ++pos;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same && pos > 0;
}

int main(int argc, char **argv) {
    if (argc > 2 && !strcmp(argv[1], "run")) return run_all(argv[2]);
    if (argc > 2 && !strcmp(argv[1], "red")) return run_reds_file(argv[2], 0);
    if (argc > 2 && !strcmp(argv[1], "thr")) return run_reds_file(argv[2], 1);
    if (argc > 2 && !strcmp(argv[1], "om")) { /* omatcopy only */
        miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
        FILE *out = fopen(argv[2], "wb");
        if (!out) return 2;
        int ok = run_oms(out);
        fclose(out);
        return ok ? 0 : 1;
    }
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 2) {
        printf("test_cblas_multigpu: %d GPU(s), needs 2: skipped\n", ndev);
        return 77;
    }
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return 2;
    self[len] = '\0';
    time_t t0 = time(NULL);
    char dir[] = "/tmp/mbc_multigpuXXXXXX";
    if (!mkdtemp(dir)) return 2;

    /* identical C for one device, two devices, every device, the default (unset) */
    static const char *const lists[] = {"0", "0,1", "all", ""};
    char files[4][256], devenv[4][128], alls[64];
    snprintf(alls, sizeof alls, "over %d devices", ndev);
    for (int i = 0; i < 4; ++i) {
        snprintf(files[i], sizeof files[i], "%s/c%d.bin", dir, i);
        snprintf(devenv[i], sizeof devenv[i], "MINIBLAS_CBLAS_DEVICES=%s", lists[i]);
        const char *env[] = {devenv[i], "MINIBLAS_CBLAS_TUNING=panel=64,kslab=16,split_cols=1,split_vec=1,row_gemm_k=12",
                             "MINIBLAS_CBLAS_VERBOSE=2", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=",
                             "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=", NULL};
        int st = run_child(self, files[i], env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "DEVICES=%s: status 0x%x; stderr tail:\n%.2000s",
              lists[i], st, g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
        int split2 = count(g_err, "over 2 devices"), splitn = count(g_err, alls);
        if (i == 0)
            CHECKF(count(g_err, " devices, ") == 0, "DEVICES=0 split a call");
        else if (i == 1) {
            CHECKF(split2 >= 20, "DEVICES=0,1: only %d calls split over 2 devices", split2);
            int peer = 0; /* pageable A: the second GPU copies it from the first where it can */
            if (cudaDeviceCanAccessPeer(&peer, 1, 0) == cudaSuccess && peer)
                CHECKF(count(g_err, "A copied between devices") >= 5,
                       "DEVICES=0,1: A copied between the GPUs in only %d calls",
                       count(g_err, "A copied between devices"));
            int back = 0; /* pinned A: in parts where each reads the other's memory */
            if (peer && cudaDeviceCanAccessPeer(&back, 0, 1) == cudaSuccess && back)
                CHECKF(count(g_err, "A in parts from every device") >= 5,
                       "DEVICES=0,1: pinned A in parts in only %d calls",
                       count(g_err, "A in parts from every device"));
        }
        else
            CHECKF(splitn >= 20, "DEVICES=%s: only %d calls split over %d devices", lists[i], splitn, ndev);
        if (i > 0) CHECKF(same_file(files[0], files[i]), "DEVICES=%s: C differs from DEVICES=0", lists[i]);
        /* omatcopy on pinned memory: split over every device listed (both shapes, in either
         * layout: 8 calls each; the 3 x 1 one only where its 3 columns allow) */
        for (int sh = 0; i > 0 && sh < 2; ++sh) {
            char line[96];
            snprintf(line, sizeof line, "omatcopy rows=%d cols=%d over %d devices, 0 failed",
                     sh ? 517 : 300, sh ? 300 : 517, i == 1 ? 2 : ndev);
            CHECKF(count(g_err, line) == 8, "DEVICES=%s: %d lines '%s' (want 8)", lists[i],
                   count(g_err, line), line);
        }
        /* the reductions: pinned ones of two pieces or more split over every device listed
         * (as many as pieces), the others never */
        for (size_t r = 0; r < NRED; ++r) {
            const rcase *c = &g_red[r];
            int64_t np = npieces(c->n);
            int d = i == 0 ? 1 : i == 1 ? 2 : ndev;
            if (d > np) d = (int)np;
            char line[96], any[96];
            snprintf(line, sizeof line, "%s n=%lld over %d devices", rname(c), (long long)c->n, d);
            snprintf(any, sizeof any, "%s n=%lld over ", rname(c), (long long)c->n);
            if (i > 0 && splits(c))
                CHECKF(count(g_err, line) == 1, "DEVICES=%s: %d lines '%s' (want 1)", lists[i],
                      count(g_err, line), line);
            else
                CHECKF(count(g_err, any) == 0, "DEVICES=%s: %s n=%lld (%s) split", lists[i], rname(c),
                      (long long)c->n, c->px && (!c->dot || c->py) ? "pinned" : "pageable");
        }
    }

    progress("one device, two, every one, the default", t0);
    /* pinned A DMA'd whole by each device (a_parts=off): split, and the same C */
    {
        char f[256];
        snprintf(f, sizeof f, "%s/whole.bin", dir);
        const char *env[] = {"MINIBLAS_CBLAS_DEVICES=0,1",
                             "MINIBLAS_CBLAS_TUNING=panel=64,kslab=16,split_cols=1,split_vec=1,row_gemm_k=12,a_parts=off",
                             "MINIBLAS_CBLAS_VERBOSE=2", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=",
                             "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=", NULL};
        int st = run_child(self, f, env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "a_parts=off: status 0x%x; stderr tail:\n%.2000s", st,
              g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
        CHECKF(count(g_err, "over 2 devices") >= 20, "a_parts=off: only %d calls split over 2 devices",
              count(g_err, "over 2 devices"));
        CHECKF(count(g_err, "A in parts") == 0, "a_parts=off: %d calls with A in parts",
              count(g_err, "A in parts"));
        CHECKF(same_file(files[0], f), "a_parts=off: C differs from DEVICES=0");
        unlink(f);
    }

    progress("a_parts=off", t0);
    /* head_rows=off: the head panels (by rows at this tuning) by gemms spanning several
     * panels, kept on the first device; C the same on one device, two and every one (not the
     * same as the default's: other gemm shapes) */
    {
        /* and row_out=off (pinned C with beta == 0 back by panels): the same C again */
        static const char *const hl[] = {"0", "0,1", "all", "0", "all"};
        static const char *const ht[] = {"head_rows=off", "head_rows=off", "head_rows=off",
                                         "head_rows=off,row_out=off", "head_rows=off,row_out=off"};
        char hf[5][256];
        for (int i = 0; i < 5; ++i) {
            char dev[128], tun[160];
            snprintf(hf[i], sizeof hf[i], "%s/head%d.bin", dir, i);
            snprintf(dev, sizeof dev, "MINIBLAS_CBLAS_DEVICES=%s", hl[i]);
            snprintf(tun, sizeof tun,
                     "MINIBLAS_CBLAS_TUNING=panel=64,kslab=16,split_cols=1,split_vec=1,row_gemm_k=12,%s", ht[i]);
            const char *env[] = {dev, tun, "MINIBLAS_CBLAS_VERBOSE=2", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=",
                                 "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=", NULL};
            int st = run_child(self, hf[i], env);
            CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s DEVICES=%s: status 0x%x; stderr tail:\n%.2000s",
                   ht[i], hl[i], st, g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
            int d = !strcmp(hl[i], "0") ? 1 : !strcmp(hl[i], "0,1") ? 2 : ndev;
            char line[64];
            snprintf(line, sizeof line, "over %d devices", d);
            if (d > 1)
                CHECKF(count(g_err, line) >= 20, "%s DEVICES=%s: only %d calls split over %d devices",
                       ht[i], hl[i], count(g_err, line), d);
            if (i > 0)
                CHECKF(same_file(hf[0], hf[i]), "%s DEVICES=%s: C differs from head_rows=off DEVICES=0",
                       ht[i], hl[i]);
        }
        for (int i = 0; i < 5; ++i) unlink(hf[i]);
    }
    progress("head_rows=off, row_out=off", t0);
    /* row_out=off alone: the default's gemms, C copied back otherwise: the same C as DEVICES=0 */
    {
        char f[256];
        snprintf(f, sizeof f, "%s/rowout.bin", dir);
        const char *env[] = {"MINIBLAS_CBLAS_DEVICES=all",
                             "MINIBLAS_CBLAS_TUNING=panel=64,kslab=16,split_cols=1,split_vec=1,row_gemm_k=12,row_out=off",
                             "MINIBLAS_CBLAS_VERBOSE=2", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=",
                             "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=", NULL};
        int st = run_child(self, f, env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "row_out=off: status 0x%x; stderr tail:\n%.2000s", st,
               g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
        CHECKF(same_file(files[0], f), "row_out=off: C differs from DEVICES=0");
        unlink(f);
    }

    progress("row_out=off alone", t0);
    /* the default least share of a split reduction: just below and above it */
    {
        char f[256];
        snprintf(f, sizeof f, "%s/thr.bin", dir);
        const char *env[] = {"MINIBLAS_CBLAS_DEVICES=0,1", "MINIBLAS_CBLAS_TUNING=", "MINIBLAS_CBLAS_VERBOSE=2",
                             "MINIBLAS_CBLAS_TEST_FAIL_GEMM=", "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=", NULL};
        int st = run_child_mode(self, "thr", f, env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "threshold: status 0x%x; stderr tail:\n%.2000s", st,
              g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
        for (size_t r = 0; r < NTHR; ++r) {
            char line[96];
            snprintf(line, sizeof line, "%s n=%lld over 2 devices", rname(&g_thr[r]), (long long)g_thr[r].n);
            CHECKF(count(g_err, line) == g_thr_split[r], "default least share: %d lines '%s' (want %d)",
                  count(g_err, line), line, g_thr_split[r]);
        }
        unlink(f);
    }

    progress("least share of a split reduction", t0);
    /* a device failing during split reductions: every result right, the notice names it */
    {
        static const char *const rf[] = {"MINIBLAS_CBLAS_TEST_FAIL_REDUCE=0@1", "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=1@0",
                                         "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=0@0"};
        static const char *const rdev[] = {"device 1 failed on elements", "device 0 failed on elements",
                                           "device 0 failed on elements"};
        static const int rmin[] = {10, 4, 10};
        for (int i = 0; i < 3; ++i) {
            char f[256];
            snprintf(f, sizeof f, "%s/rfail%d.bin", dir, i);
            const char *env[] = {"MINIBLAS_CBLAS_DEVICES=0,1", "MINIBLAS_CBLAS_TUNING=split_vec=1",
                                 "MINIBLAS_CBLAS_VERBOSE=1", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=", rf[i], NULL};
            int st = run_child_mode(self, "red", f, env);
            CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status 0x%x; stderr tail:\n%.2000s", rf[i], st,
                  g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
            CHECKF(count(g_err, rdev[i]) >= rmin[i], "%s: %d notices '%s' (want >= %d)", rf[i],
                  count(g_err, rdev[i]), rdev[i], rmin[i]);
            unlink(f);
        }
    }

    progress("failing reductions", t0);
    /* a device failing during split omatcopys: B still right (the CPU BLAS redoes the call),
     * the notice names the device */
    {
        char f[256];
        snprintf(f, sizeof f, "%s/omfail.bin", dir);
        const char *env[] = {"MINIBLAS_CBLAS_DEVICES=0,1", "MINIBLAS_CBLAS_TUNING=split_vec=1",
                             "MINIBLAS_CBLAS_VERBOSE=1", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=",
                             "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=0@1", NULL};
        int st = run_child_mode(self, "om", f, env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "omatcopy, device 1 failing: status 0x%x; stderr tail:\n%.2000s",
              st, g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
        CHECKF(count(g_err, "GPU failed (device 1:") >= 16, "omatcopy, device 1 failing: %d notices naming it (want >= 16)",
              count(g_err, "GPU failed (device 1:"));
        unlink(f);
    }

    progress("failing omatcopys", t0);
    /* a list naming a GPU that does not exist: one clear line, calls still right */
    {
        char env0[128], want[160], f[256];
        snprintf(env0, sizeof env0, "MINIBLAS_CBLAS_DEVICES=0,%d", ndev);
        snprintf(want, sizeof want, "device %d (MINIBLAS_CBLAS_DEVICES) but there are %d devices", ndev, ndev);
        snprintf(f, sizeof f, "%s/missing.bin", dir);
        const char *env[] = {env0, "MINIBLAS_CBLAS_VERBOSE=1", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=", NULL};
        int st = run_child(self, f, env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "missing device: status 0x%x; stderr:\n%.2000s", st, g_err);
        CHECKF(count(g_err, want) == 1, "missing device: %d lines saying '%s' (want 1); stderr:\n%.2000s",
              count(g_err, want), want, g_err);
        unlink(f);
    }

    progress("missing device", t0);
    /* one GPU made to fail after 0 or 3 of its gemms: the first or the second device */
    static const char *const fails[] = {"MINIBLAS_CBLAS_TEST_FAIL_GEMM=0@1", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=3@1",
                                        "MINIBLAS_CBLAS_TEST_FAIL_GEMM=3@0", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=0@0"};
    static const char *const failing[] = {"device 1 failed", "device 1 failed", "device 0 failed", "device 0 failed"};
    for (int i = 0; i < 4; ++i) {
        char f[256];
        snprintf(f, sizeof f, "%s/fail%d.bin", dir, i);
        const char *env[] = {"MINIBLAS_CBLAS_DEVICES=0,1", "MINIBLAS_CBLAS_TUNING=panel=64,kslab=16,split_cols=1",
                             "MINIBLAS_CBLAS_VERBOSE=1", fails[i], NULL};
        int st = run_child(self, f, env);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status 0x%x; stderr tail:\n%.2000s", fails[i], st,
              g_err + (strlen(g_err) > 2000 ? strlen(g_err) - 2000 : 0));
        CHECKF(count(g_err, failing[i]) >= 10, "%s: %d notices '%s'", fails[i], count(g_err, failing[i]),
              failing[i]);
        unlink(f);
    }
    for (int i = 0; i < 4; ++i) unlink(files[i]);
    rmdir(dir);
    printf("test_cblas_multigpu: %s\n", g_fail ? "FAILED" : "passed");
    return g_fail ? 1 : 0;
}
