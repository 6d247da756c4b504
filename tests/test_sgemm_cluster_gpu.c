/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split-K of the TMA 3xTF32 sgemm rungs (15..18) summed in thread-block clusters
 * (kernels/gemm/tma_ring.cuh, tm_split_gather; MINIBLAS_SPLITK_CLUSTER): a handle made with
 * MINIBLAS_SPLITK_CLUSTER=0 (slabs in the workspace and x3g_reduce_kernel) and one made with
 * it unset must give the same bits on every shape that takes split-K on those rungs: 1024^3
 * in all four transposes (2 slices on 132 SMs), odd 1000x1000x2000, 512^3 (4 slices),
 * 768x768x1024 (3), 512x512x2048 (8), 4096x128x4096 (4), 256x256x4096 (16 slices: more than
 * a portable cluster, the slab path in both handles), padded lda / ldb / ldc (ldb not a
 * multiple of 4: an aligned copy of B first), row-major; beta 0 over a NaN-poisoned C, beta
 * 1, -0.5 and random; alpha 1, -1, 0.75, 2^-70 and 2^60. Inputs out of the 3xTF32 range
 * (x3guard.cuh) make the fixup recompute tiles: an element of A of 2^45 in the last slice's k
 * range only, one of B of 1e-30 in slice 0's only (the cluster must skip a tile that another
 * slice flagged), and random Inf / NaN. Every result is also checked against a
 * double-precision OpenBLAS product (|C - C_ref| <= 4 (k + 2) eps (|alpha| |A| |B| + |beta
 * C|), NaN and Inf where the reference has them), and the padding of C must keep its bits.
 * Which path ran is read from the workspace: the slab path writes slab 0 (from byte 65536 on,
 * a window every split-K shape's slab 0 covers), the cluster path leaves it as poisoned
 * before the call. The MINIBLAS_SPLITK_CLUSTER=0 handle must always take slabs; the default
 * handle must take the cluster on 1024^3 on a 132-SM GPU of compute capability 9.0 (other
 * shapes: printed). MINIBLAS_TEST_QUICK=1 (compute-sanitizer): 512^3, 300x200x520 and
 * 256x256x1024 (8 slices), the four named rungs, beta 0 clean and beta 1.25 with every
 * special, the cluster handle once.
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_test_util.h"
#include "internal.h"

#define OPN "sgemm-cluster"
#define PROBE_OFF ((size_t)65536) /* the workspace window the path probe reads */
#define PROBE_BYTES ((size_t)65536)
#define PROBE_BYTE 0xA5

typedef struct ccase {
    miniblas_layout_t layout;
    miniblas_transpose_t ta, tb;
    int64_t m, n, k;
    int pad_a, pad_b, pad_c; /* leading dimension = rows + pad */
    int quick;               /* also in MINIBLAS_TEST_QUICK mode */
    int must_cluster;        /* the default handle must take the cluster (132 SMs, cc 9.0) */
    const char *what;
} ccase;

static const ccase cases[] = {
    {MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 1024, 1024, 1024, 0, 0, 0, 0, 1, "2 slices"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasTrans, 1024, 1024, 1024, 0, 0, 0, 0, 1, "2 slices"},
    {MiniblasColMajor, MiniblasTrans, MiniblasNoTrans, 1024, 1024, 1024, 0, 0, 0, 0, 1, "2 slices"},
    {MiniblasColMajor, MiniblasTrans, MiniblasTrans, 1024, 1024, 1024, 0, 0, 0, 0, 1, "2 slices"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 1000, 1000, 2000, 0, 0, 0, 0, 0, "odd"},
    {MiniblasColMajor, MiniblasTrans, MiniblasNoTrans, 1024, 1024, 1024, 4, 3, 7, 0, 0, "padded"},
    {MiniblasRowMajor, MiniblasNoTrans, MiniblasTrans, 1000, 1000, 2000, 0, 0, 5, 0, 0, "row-major"},
    {MiniblasRowMajor, MiniblasTrans, MiniblasTrans, 1024, 1024, 1024, 0, 0, 0, 0, 0, "row-major"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 512, 512, 512, 0, 0, 0, 1, 0, "4 slices"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasTrans, 768, 768, 1024, 0, 0, 0, 0, 0, "3 slices"},
    {MiniblasColMajor, MiniblasTrans, MiniblasNoTrans, 512, 512, 2048, 0, 0, 0, 0, 0, "8 slices"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 4096, 128, 4096, 0, 0, 0, 0, 0, "skinny"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 256, 256, 4096, 0, 0, 0, 0, 0, "16 slices"},
    {MiniblasColMajor, MiniblasTrans, MiniblasNoTrans, 300, 200, 520, 0, 4, 3, 1, 0, "edges"},
    {MiniblasColMajor, MiniblasNoTrans, MiniblasTrans, 256, 256, 1024, 0, 0, 0, 1, 0, "8 slices"},
};

static const char *const rungs[] = {"auto", "tma_tf32x3", "pingpong_tf32x3", "fastsplit_tf32x3",
                                    "promote4_tf32x3"};

/* Column-major storage of one operand: rows x cols with ld. */
typedef struct mat {
    int64_t rows, cols, ld;
    float *h;
} mat;

static mat mat_make(int64_t rows, int64_t cols, int pad) {
    mat x = {rows, cols, rows + pad, NULL};
    x.h = (float *)mbt_host_alloc((size_t)(x.ld * cols) * sizeof(float));
    for (int64_t j = 0; j < cols; ++j)
        for (int64_t i = 0; i < x.ld; ++i)
            x.h[i + j * x.ld] = i < rows ? (float)mbt_rand_uniform() : NAN; /* NaN padding */
    return x;
}
static size_t mat_bytes(const mat *x) { return (size_t)(x->ld * x->cols) * sizeof(float); }

/* The column-major problem C = alpha op(A) op(B) + beta C of a call (row-major: the swapped
 * one), its reference in double and its bound. */
typedef struct cm {
    int ta, tb;
    int64_t m, n, k;
    const mat *A, *B;
} cm;

/* ref = alpha op(A) op(B) + beta C and bound = 4 (k + 2) eps (|alpha| |A||B| + |beta C|), in
 * double through OpenBLAS (m x n, ld m). */
static void reference(const cm *p, double alpha, double beta, const mat *C, double *ref,
                      double *bound) {
    const mat *A = p->A, *B = p->B;
    const size_t na = (size_t)(A->ld * A->cols), nb = (size_t)(B->ld * B->cols);
    double *dA = malloc(na * sizeof(double)), *dB = malloc(nb * sizeof(double));
    double *aA = malloc(na * sizeof(double)), *aB = malloc(nb * sizeof(double));
    if (!dA || !dB || !aA || !aB) {
        printf("out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < na; ++i) {
        const int64_t r = (int64_t)(i % (size_t)A->ld);
        dA[i] = r < A->rows ? A->h[i] : 0.0; /* padding NaN must not reach the reference */
        aA[i] = fabs(dA[i]);
    }
    for (size_t i = 0; i < nb; ++i) {
        const int64_t r = (int64_t)(i % (size_t)B->ld);
        dB[i] = r < B->rows ? B->h[i] : 0.0;
        aB[i] = fabs(dB[i]);
    }
    const enum CBLAS_TRANSPOSE ta = p->ta ? CblasTrans : CblasNoTrans;
    const enum CBLAS_TRANSPOSE tb = p->tb ? CblasTrans : CblasNoTrans;
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    cblas_dgemm(CblasColMajor, ta, tb, m, n, k, alpha, dA, (int)A->ld, dB, (int)B->ld, 0.0, ref, m);
    cblas_dgemm(CblasColMajor, ta, tb, m, n, k, fabs(alpha), aA, (int)A->ld, aB, (int)B->ld, 0.0,
                bound, m);
    const double eps = 0x1p-24;
    for (int64_t j = 0; j < p->n; ++j)
        for (int64_t i = 0; i < p->m; ++i) {
            const size_t e = (size_t)(i + j * p->m);
            const double c = beta == 0.0 ? 0.0 : beta * (double)C->h[i + j * C->ld];
            ref[e] += c;
            bound[e] = 4.0 * (double)(k + 2) * eps * (bound[e] + fabs(c));
        }
    free(dA), free(dB), free(aA), free(aB);
}

/* Elements of got (C storage, ld) off the reference; the padding must hold init's bits. */
static size_t check(const cm *p, const mat *Cinit, const float *got, const double *ref,
                    const double *bound, const char *kase, const char *who) {
    size_t bad = 0, pad = 0;
    for (int64_t j = 0; j < p->n; ++j)
        for (int64_t i = 0; i < Cinit->ld; ++i) {
            const size_t s = (size_t)(i + j * Cinit->ld);
            if (i >= p->m) {
                pad += !mbt_same_bits(got, Cinit->h, s, 0);
                continue;
            }
            const size_t e = (size_t)(i + j * p->m);
            const double g = got[s], r = ref[e];
            const int ok = isnan(r) ? isnan(g) : isinf(r) ? g == r : fabs(g - r) <= bound[e];
            if (!ok && bad++ < 3)
                printf("    %s (%lld, %lld): %.9g, want %.9g (bound %.3g)\n", who, (long long)i,
                       (long long)j, g, r, bound[e]);
        }
    mbt_expect(NULL, bad == 0, OPN, kase, "%s: %zu elements off the reference", who, bad);
    mbt_expect(NULL, pad == 0, OPN, kase, "%s: %zu padding elements of C changed", who, pad);
    return bad + pad;
}

/* Poisons the path probe's window of the handle's gemm workspace. */
static void probe_set(miniblas_handle_t h) {
    const struct miniblas_context *c = (const struct miniblas_context *)h;
    MBT_CUDA(cudaMemset((char *)c->gemm_work + PROBE_OFF, PROBE_BYTE, PROBE_BYTES));
}
/* 1: the window still poisoned (no slab written: the cluster path), 0: written (slabs). */
static int probe_cluster(miniblas_handle_t h) {
    const struct miniblas_context *c = (const struct miniblas_context *)h;
    unsigned char *w = (unsigned char *)mbt_host_alloc(PROBE_BYTES);
    mbt_d2h(w, (char *)c->gemm_work + PROBE_OFF, PROBE_BYTES);
    size_t same = 0;
    for (size_t i = 0; i < PROBE_BYTES; ++i) same += w[i] == PROBE_BYTE;
    free(w);
    return same == PROBE_BYTES;
}

static int sms_132;  /* the GPU has 132 SMs (H100 SXM, H200) */
static int hopper;   /* compute capability 9.0 with the TMA rungs built */

static miniblas_status_t call(miniblas_handle_t h, const ccase *c, float alpha, const float *A,
                              int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                              int64_t ldc) {
    return miniblas_sgemm(h, c->layout, c->ta, c->tb, c->m, c->n, c->k, alpha, A, lda, B, ldb,
                          beta, C, ldc);
}

/* specials: 0 none, 1 the two one-slice out-of-range elements, 2 those and random Inf / NaN. */
static void run_case(miniblas_handle_t h0, miniblas_handle_t hc, const ccase *c, float alpha,
                     float beta, int specials) {
    const int row = c->layout == MiniblasRowMajor;
    const int ta = c->ta == MiniblasTrans, tb = c->tb == MiniblasTrans;
    /* storage: column-major arrays of the caller's view (row-major: transposed storage) */
    const int64_t ar = (row ? !ta : ta) ? c->k : c->m, ac = (row ? !ta : ta) ? c->m : c->k;
    const int64_t br = (row ? !tb : tb) ? c->n : c->k, bc = (row ? !tb : tb) ? c->k : c->n;
    const int64_t cr = row ? c->n : c->m, cc = row ? c->m : c->n;
    mat A = mat_make(ar, ac, c->pad_a), B = mat_make(br, bc, c->pad_b);
    mat C = mat_make(cr, cc, c->pad_c);
    /* the equivalent column-major problem */
    cm p = {ta, tb, c->m, c->n, c->k, &A, &B};
    if (row) p = (cm){tb, ta, c->n, c->m, c->k, &B, &A};
    char kase[200];
    snprintf(kase, sizeof kase, "%s %c%c %lldx%lldx%lld ld+%d/%d/%d %s alpha %g beta %g%s",
             row ? "row" : "col", ta ? 'T' : 'N', tb ? 'T' : 'N', (long long)c->m,
             (long long)c->n, (long long)c->k, c->pad_a, c->pad_b, c->pad_c, c->what, alpha, beta,
             specials == 2 ? " Inf/NaN" : specials ? " out of range" : "");
    mbt_context("%s", kase);
    if (specials) {
        /* p's op(A)(i, k) and op(B)(k, j) in storage: A(i, q) at ta ? q + i ld : i + q ld */
        const int64_t i = (int64_t)(mbt_rand_u64() % (uint64_t)p.m);
        const int64_t j = (int64_t)(mbt_rand_u64() % (uint64_t)p.n);
        const int64_t qa = p.k - 1, qb = 0; /* the last slice's k / slice 0's */
        mat *pa = (mat *)p.A, *pb = (mat *)p.B;
        pa->h[p.ta ? qa + i * pa->ld : i + qa * pa->ld] = 0x1p45f;
        pb->h[p.tb ? j + qb * pb->ld : qb + j * pb->ld] = 1e-30f;
        if (specials == 2) {
            const int64_t i2 = (int64_t)(mbt_rand_u64() % (uint64_t)p.m);
            const int64_t q2 = (int64_t)(mbt_rand_u64() % (uint64_t)p.k);
            const int64_t j2 = (int64_t)(mbt_rand_u64() % (uint64_t)p.n);
            const int64_t q3 = (int64_t)(mbt_rand_u64() % (uint64_t)p.k);
            pa->h[p.ta ? q2 + i2 * pa->ld : i2 + q2 * pa->ld] = INFINITY;
            pb->h[p.tb ? j2 + q3 * pb->ld : q3 + j2 * pb->ld] = NAN;
        }
    }
    if (beta == 0.0f) /* beta = 0: C must not be read (the padding keeps its NaN too) */
        for (int64_t j = 0; j < C.cols; ++j)
            for (int64_t i = 0; i < C.rows; ++i) mbt_set_sentinel(C.h, (size_t)(i + j * C.ld), 0);
    const size_t nc = (size_t)(C.ld * C.cols);
    double *ref = malloc((size_t)(p.m * p.n) * sizeof(double));
    double *bound = malloc((size_t)(p.m * p.n) * sizeof(double));
    float *r0 = (float *)mbt_host_alloc(nc * sizeof(float));
    float *r1 = (float *)mbt_host_alloc(nc * sizeof(float));
    if (!ref || !bound) {
        printf("out of host memory\n");
        exit(1);
    }
    mat Cp = C;
    Cp.rows = p.m; /* the column-major view of C for the reference: p.m x p.n, ld */
    Cp.cols = p.n;
    reference(&p, alpha, beta, &Cp, ref, bound);
    float *dA = mbt_dev_alloc(mat_bytes(&A)), *dB = mbt_dev_alloc(mat_bytes(&B));
    float *dC = mbt_dev_alloc(nc * sizeof(float));
    mbt_h2d(dA, A.h, mat_bytes(&A));
    mbt_h2d(dB, B.h, mat_bytes(&B));
    const int quick = mbt_quick();
    for (size_t r = quick ? 1 : 0; r < sizeof rungs / sizeof rungs[0]; ++r) {
        char k2[260];
        snprintf(k2, sizeof k2, "%s %s", rungs[r], kase);
        if (miniblas_rung_supported(h0, MINIBLAS_OP_SGEMM, rungs[r]) != MINIBLAS_STATUS_SUCCESS) {
            printf("  skip %s: %s\n", k2, miniblas_last_error(h0));
            continue;
        }
        if (miniblas_set_rung(h0, MINIBLAS_OP_SGEMM, rungs[r]) != MINIBLAS_STATUS_SUCCESS ||
            miniblas_set_rung(hc, MINIBLAS_OP_SGEMM, rungs[r]) != MINIBLAS_STATUS_SUCCESS) {
            mbt_fail(NULL, OPN, k2, "miniblas_set_rung failed");
            continue;
        }
        /* the slab path */
        mbt_h2d(dC, C.h, nc * sizeof(float));
        probe_set(h0);
        miniblas_status_t st = call(h0, c, alpha, dA, A.ld, dB, B.ld, beta, dC, C.ld);
        mbt_device_sync();
        if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, k2,
                        "MINIBLAS_SPLITK_CLUSTER=0 call: %s", miniblas_last_error(h0)))
            continue;
        mbt_d2h(r0, dC, nc * sizeof(float));
        const int c0 = probe_cluster(h0);
        /* the cluster path, twice */
        int c1 = 0;
        for (int rep = 0; rep < (quick ? 1 : 2); ++rep) {
            mbt_h2d(dC, C.h, nc * sizeof(float));
            probe_set(hc);
            st = call(hc, c, alpha, dA, A.ld, dB, B.ld, beta, dC, C.ld);
            mbt_device_sync();
            if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, k2, "call: %s",
                            miniblas_last_error(hc)))
                break;
            mbt_d2h(r1, dC, nc * sizeof(float));
            c1 = probe_cluster(hc);
            size_t d = 0;
            for (size_t e = 0; e < nc; ++e) d += !mbt_same_bits(r0, r1, e, 0);
            mbt_expect(NULL, d == 0, OPN, k2,
                       "run %d: %zu of %zu elements differ from MINIBLAS_SPLITK_CLUSTER=0", rep, d,
                       nc);
        }
        if (!specials && beta == 0.0f)
            printf("  %s: %s (MINIBLAS_SPLITK_CLUSTER=0: %s)\n", k2,
                   c1 ? "no slabs (cluster)" : "slabs", c0 ? "no slabs" : "slabs");
        /* Every case splits k on 132 SMs; with specials the slab path may leave the window
         * alone (a tile slice 0 flagged stores nothing); auto may pick another rung. */
        if (hopper && sms_132 && !specials) {
            if (r > 0)
                mbt_expect(NULL, !c0, OPN, k2, "MINIBLAS_SPLITK_CLUSTER=0 wrote no slab");
            if (c->must_cluster)
                mbt_expect(NULL, c1, OPN, k2, "the default handle wrote slabs (no cluster)");
        }
        check(&p, &C, r0, ref, bound, k2, "MINIBLAS_SPLITK_CLUSTER=0");
        check(&p, &C, r1, ref, bound, k2, "default");
    }
    mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(A.h), free(B.h), free(C.h), free(ref), free(bound), free(r0), free(r1);
}

int main(void) {
    mbt_init("test_sgemm_cluster_gpu");
    unsetenv("MINIBLAS_SPLITK_CLUSTER");
    miniblas_handle_t hc = NULL, h0 = NULL;
    if (miniblas_create(&hc) != MINIBLAS_STATUS_SUCCESS) {
        printf("miniblas_create: %s\n", miniblas_last_create_error());
        return 1;
    }
    setenv("MINIBLAS_SPLITK_CLUSTER", "0", 1);
    if (miniblas_create(&h0) != MINIBLAS_STATUS_SUCCESS) {
        printf("miniblas_create (MINIBLAS_SPLITK_CLUSTER=0): %s\n", miniblas_last_create_error());
        return 1;
    }
    unsetenv("MINIBLAS_SPLITK_CLUSTER");
    const struct miniblas_context *ctx = (const struct miniblas_context *)hc;
    const struct miniblas_context *c0 = (const struct miniblas_context *)h0;
    const int cc = ctx->cc_major * 10 + ctx->cc_minor;
    int sms = 0;
    MBT_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
    sms_132 = sms == 132;
    hopper = cc == 90 && miniblas_rung_supported(hc, MINIBLAS_OP_SGEMM, "promote4_tf32x3") ==
                             MINIBLAS_STATUS_SUCCESS;
    printf("compute capability %d.%d, %d SMs: split-K clusters %s (MINIBLAS_SPLITK_CLUSTER=0 "
           "handle: %s)\n", cc / 10, cc % 10, sms, ctx->splitk_cluster ? "allowed" : "off",
           c0->splitk_cluster ? "allowed" : "off");
    mbt_expect(NULL, c0->splitk_cluster == 0, OPN, "MINIBLAS_SPLITK_CLUSTER=0",
               "the handle allows clusters");
    mbt_expect(NULL, !hopper || ctx->splitk_cluster == 1, OPN, "default",
               "clusters off on compute capability 9.0");
    if (!hopper) {
        printf("no TMA 3xTF32 rung runs here: the cases compare the same path\n");
    }
    const int quick = mbt_quick();
    static const float alphas[] = {1.0f, -1.0f, 0.75f, 0x1p-70f, 0x1p60f};
    int ai = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const ccase *c = &cases[i];
        if (quick && !c->quick) continue;
        /* beta 0 over NaN, beta 1, -0.5, random; alpha cycling through the special values */
        run_case(h0, hc, c, alphas[ai++ % 5], 0.0f, 0);
        if (!quick) {
            run_case(h0, hc, c, alphas[ai++ % 5], 1.0f, 0);
            run_case(h0, hc, c, alphas[ai++ % 5], -0.5f, 0);
            run_case(h0, hc, c, (float)mbt_rand_scalar(), (float)mbt_rand_scalar(), 0);
            run_case(h0, hc, c, 0.75f, 0.0f, 1);
        }
        run_case(h0, hc, c, -1.0f, 1.25f, 2);
    }
    miniblas_destroy(hc);
    miniblas_destroy(h0);
    return mbt_finish();
}
