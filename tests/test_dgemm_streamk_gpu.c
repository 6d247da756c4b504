/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DGEMM rung 13 streamk_dmma (kernels/gemm/13_streamk_dmma.cu) on the shapes it exists for,
 * against OpenBLAS with gemm_test.inc's cases and bound (NaN-poisoned C, guards and padding,
 * alpha/beta specials), beside rung 12 dmma (the same cases, the same bound):
 *   - partial last waves of 128x64 tiles on a GPU of 132 SMs x 2 blocks (264 workers):
 *     1280^3 (200 tiles, all stream-K), 1152^3 (162), 1920^3 (450, two waves), 2560x2560x256
 *     (800 = 3 waves + 8: 528 data-parallel tiles, 272 stream-K), 640^3 (50 tiles of 40
 *     k-tiles over 256 workers: about 5 pieces per tile), 256x256x8192 (8 tiles of 512 k-tiles:
 *     32 pieces per tile, long chains of partials);
 *   - all four transposes, both layouts, odd M or N where the edge shift keeps every tile on
 *     the XMMA loop, padded leading dimensions that keep 16-byte rows (pads of 2 and 4) and
 *     one that does not (pad 1: the fallback to rung 12), beta = 0 over NaN, beta = 1, -1 and
 *     random, alpha random and alpha = 0 (A and B NaN), K not a multiple of 16 (fallback);
 * A dropped partial, one added twice, or a partial read before it is written leaves errors of
 * the size of the partial (about sqrt(K / pieces)), far above the bound of about K eps.
 * Determinism: the same call, repeated, gives the same bits, also after another rung's split-K
 * has filled the workspace (flags included) with other data; on a 9.x GPU the stream-K path
 * must have run where the plan says so (its C differs from rung 12's in some bit).
 * MINIBLAS_TEST_RUNG narrows the rungs (default: streamk_dmma,dmma); MINIBLAS_TEST_QUICK=1
 * runs one small stream-K shape (for compute-sanitizer).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include "gemm_test.inc"

/* C (m x n, column-major, ld m) of one call on `rung`, inputs from the device buffers. */
static void sk_call(miniblas_handle_t h, const char *rung, int ta, int tb, int64_t m, int64_t n,
                    int64_t k, double alpha, const double *dA, int64_t lda, const double *dB,
                    int64_t ldb, double beta, double *dC, const double *c0, double *out,
                    const char *kase, mbt_variant *v) {
    miniblas_set_rung(h, MINIBLAS_OP_DGEMM, rung);
    mbt_h2d(dC, c0, (size_t)(m * n) * sizeof(double));
    miniblas_status_t st = miniblas_dgemm(h, MiniblasColMajor, (miniblas_transpose_t)ta,
                                          (miniblas_transpose_t)tb, m, n, k, alpha, dA, lda, dB,
                                          ldb, beta, dC, m);
    mbt_expect(v, st == MINIBLAS_STATUS_SUCCESS, "dgemm", kase, "%s returned %s", rung,
               miniblas_status_string(st));
    mbt_device_sync();
    mbt_d2h(out, dC, (size_t)(m * n) * sizeof(double));
}

/* Same call twice (and once more after rung 12's split-K on another shape has written the
 * workspace): bitwise the same C. expect_sk: the stream-K path must have run (checked on 9.x
 * GPUs: C differs from rung 12's somewhere). */
static void sk_determinism(miniblas_handle_t h, mbt_variant *v, int ta, int tb, int64_t m,
                           int64_t n, int64_t k, double beta, int expect_sk, int cc_major) {
    char kase[160];
    snprintf(kase, sizeof kase, "determinism ta=%d tb=%d M=%lld N=%lld K=%lld beta=%g", ta, tb,
             (long long)m, (long long)n, (long long)k, beta);
    mbt_context("dgemm [%s] %s", v->label, kase);
    const int at = ta == MiniblasTrans, bt = tb == MiniblasTrans;
    const int64_t lda = at ? k : m, ldb = bt ? n : k;
    const size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
    double *hA = mbt_host_alloc(na * 8), *hB = mbt_host_alloc(nb * 8), *c0 = mbt_host_alloc(nc * 8);
    double *r1 = mbt_host_alloc(nc * 8), *r2 = mbt_host_alloc(nc * 8), *rd = mbt_host_alloc(nc * 8);
    mbt_fill_uniform(hA, na, 1);
    mbt_fill_uniform(hB, nb, 1);
    mbt_fill_uniform(c0, nc, 1);
    double *dA = mbt_dev_alloc(na * 8), *dB = mbt_dev_alloc(nb * 8), *dC = mbt_dev_alloc(nc * 8);
    mbt_h2d(dA, hA, na * 8);
    mbt_h2d(dB, hB, nb * 8);
    const double alpha = 0.75;
    sk_call(h, v->rung, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, c0, r1, kase, v);
    for (int rep = 0; rep < 3; ++rep) {
        sk_call(h, v->rung, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, c0, r2, kase, v);
        mbt_expect(v, memcmp(r1, r2, nc * 8) == 0, "dgemm", kase,
                   "repeat %d: C differs bitwise from the first call", rep + 1);
    }
    /* rung 12 on 257 x 129 x 2051 splits k: its slabs overwrite the workspace's start (where
     * stream-K keeps its flags) with nonzero data */
    {
        const int64_t sm = 257, sn = 129, sk = 2051;
        double *sa = mbt_dev_alloc((size_t)(sm * sk) * 8), *sb = mbt_dev_alloc((size_t)(sk * sn) * 8),
               *sc = mbt_dev_alloc((size_t)(sm * sn) * 8);
        double *hs = mbt_host_alloc((size_t)(sm * sk + sk * sn) * 8);
        mbt_fill_uniform(hs, (size_t)(sm * sk + sk * sn), 1);
        mbt_h2d(sa, hs, (size_t)(sm * sk) * 8);
        mbt_h2d(sb, hs + sm * sk, (size_t)(sk * sn) * 8);
        miniblas_set_rung(h, MINIBLAS_OP_DGEMM, "dmma");
        miniblas_status_t st = miniblas_dgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans,
                                              sm, sn, sk, 1.0, sa, sm, sb, sk, 0.0, sc, sm);
        mbt_expect(v, st == MINIBLAS_STATUS_SUCCESS, "dgemm", kase, "dmma split-K call: %s",
                   miniblas_status_string(st));
        mbt_device_sync();
        mbt_dev_free(sa), mbt_dev_free(sb), mbt_dev_free(sc);
        free(hs);
    }
    sk_call(h, v->rung, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, c0, r2, kase, v);
    mbt_expect(v, memcmp(r1, r2, nc * 8) == 0, "dgemm", kase,
               "after a split-K call on the same handle: C differs bitwise");
    if (expect_sk && cc_major == 9 && strcmp(v->rung, "streamk_dmma") == 0) {
        sk_call(h, "dmma", ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, c0, rd, kase, v);
        mbt_expect(v, memcmp(r1, rd, nc * 8) != 0, "dgemm", kase,
                   "C is bitwise rung 12's: the stream-K path did not run (fallback?)");
    }
    mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(hA), free(hB), free(c0), free(r1), free(r2), free(rd);
}

int main(void) {
    (void)gemm_test_main; /* this test runs its own cases */
    const char *f = getenv("MINIBLAS_TEST_RUNG");
    if (!f || !*f) setenv("MINIBLAS_TEST_RUNG", "streamk_dmma,dmma", 1);
    mbt_init("test_dgemm_streamk_gpu");
    gctx g = {NULL, 1, MINIBLAS_OP_DGEMM, "dgemm", NULL, 0};
    miniblas_status_t st = miniblas_create(&g.h);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, g.opn, "miniblas_create", "returned %s", miniblas_status_string(st));
        return mbt_finish();
    }
    g.nv = mbt_variants(g.op, &g.v);
    int dev = 0, cc_major = 0;
    MBT_CUDA(cudaGetDevice(&dev));
    MBT_CUDA(cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, dev));

    const int CM = MiniblasColMajor, RM = MiniblasRowMajor, N_ = MiniblasNoTrans, T_ = MiniblasTrans;
    const gcase cases[] = {
        /* 1280^3, 200 tiles: the four transposes, beta = 0 over NaN and beta != 0 */
        {CM, N_, N_, 1280, 1280, 1280, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        {CM, N_, T_, 1280, 1280, 1280, 2, 0, 4, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 1280, 1280, 1280, 0, 4, 0, AB_NEG, 0, 0, 0},
        {CM, T_, T_, 1280, 1280, 1280, 4, 2, 2, AB_RAND_ZERO, 0, 0, 0},
        /* 1152^3 (162 tiles), 1920^3 (450: two waves, all stream-K) */
        {CM, N_, N_, 1152, 1152, 1152, 2, 2, 2, AB_ONE_ONE, 0, 0, 0},
        {RM, T_, N_, 1152, 1152, 1152, 0, 0, 0, AB_RAND_ZERO, 0, 0, 0},
        {CM, T_, T_, 1920, 1920, 1920, 0, 0, 0, AB_RAND, 0, 0, 0},
        {RM, N_, T_, 1920, 1920, 1920, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        /* data-parallel waves and stream-K in one launch: 800 tiles = 3 waves + 8 */
        {CM, N_, N_, 2560, 2560, 256, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 2560, 2560, 256, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        /* many pieces per tile: 640^3 (5 per tile), 256 x 256 x 8192 (32 per tile) */
        {CM, N_, T_, 640, 640, 640, 0, 0, 0, AB_RAND_ZERO, 0, 0, 0},
        {RM, T_, T_, 640, 640, 640, 0, 0, 0, AB_NEG, 0, 0, 0},
        {CM, N_, N_, 256, 256, 8192, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 256, 256, 8192, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        /* odd M and N with the edge tiles shifted inside (A and B K-contiguous: TN) */
        {CM, T_, N_, 1001, 1003, 1024, 0, 0, 3, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 1537, 1151, 768, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        /* odd N with B K-contiguous (NN), odd M with A K-contiguous (TT) */
        {CM, N_, N_, 1282, 1151, 1024, 2, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, T_, 1151, 1282, 896, 0, 2, 1, AB_ONE_ZERO, 0, 0, 0},
        {RM, N_, N_, 1151, 1282, 640, 0, 0, 0, AB_NEG, 0, 0, 0},
        /* even M, N not multiples of the tile: NN, TT */
        {CM, N_, N_, 1282, 1278, 1024, 0, 0, 5, AB_RAND, 0, 0, 0},
        {CM, T_, T_, 1278, 1282, 1024, 0, 0, 0, AB_RAND_ZERO, 0, 0, 0},
        /* the fallbacks to rung 12: odd M with A M-contiguous, pad 1, K % 16 != 0, a
         * misaligned pointer, whole waves (1024 x 2112: 264 tiles), alpha = 0 */
        {CM, N_, N_, 1281, 1280, 1280, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, N_, N_, 1280, 1280, 1280, 1, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        {CM, N_, T_, 1280, 1280, 1288, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, N_, N_, 1280, 1280, 1280, 0, 0, 0, AB_RAND, 1, 0, 0},
        {CM, N_, N_, 1024, 2112, 512, 0, 0, 0, AB_NEG, 0, 0, 0},
        {CM, N_, N_, 1280, 1280, 1280, 0, 0, 0, AB_ZERO_RAND, 0, 0, 0},
        /* small problems (the fallback: too few k-tiles per worker; 512^3 gets 4) */
        {CM, N_, N_, 512, 512, 512, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, N_, N_, 256, 128, 64, 0, 0, 0, AB_RAND, 0, 0, 0},
        {RM, T_, N_, 300, 200, 32, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
    };
    /* MINIBLAS_TEST_QUICK=1 (compute-sanitizer): 4 tiles of 384 k-tiles over 256 workers,
     * 64 pieces per tile, 6 k-tiles each */
    const gcase quick_cases[] = {
        {CM, N_, N_, 256, 128, 6144, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, T_, 256, 128, 6144, 2, 4, 1, AB_ONE_ZERO, 0, 0, 0},
    };
    const int quick = mbt_quick();
    if (quick)
        for (size_t i = 0; i < sizeof quick_cases / sizeof quick_cases[0]; ++i)
            g_run_case(&g, &quick_cases[i]);
    else
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) g_run_case(&g, &cases[i]);

    for (int vi = 0; vi < g.nv; ++vi) {
        mbt_variant *v = &g.v[vi];
        if (v->skip || v->index < 0) continue;
        if (quick) {
            sk_determinism(g.h, v, MiniblasNoTrans, MiniblasNoTrans, 256, 128, 6144, 1.0, 1, cc_major);
            continue;
        }
        sk_determinism(g.h, v, MiniblasNoTrans, MiniblasNoTrans, 1280, 1280, 1280, 0.0, 1, cc_major);
        sk_determinism(g.h, v, MiniblasTrans, MiniblasNoTrans, 640, 640, 640, -0.5, 1, cc_major);
        sk_determinism(g.h, v, MiniblasNoTrans, MiniblasTrans, 256, 256, 8192, 1.0, 1, cc_major);
        sk_determinism(g.h, v, MiniblasTrans, MiniblasTrans, 2560, 2560, 256, 0.0, 1, cc_major);
    }
    mbt_print_variants(g.op, g.v, g.nv);
    miniblas_destroy(g.h);
    free(g.v);
    return mbt_finish();
}
