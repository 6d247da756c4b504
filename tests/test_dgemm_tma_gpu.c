/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DGEMM rung 14 tma_dmma (kernels/gemm/14_tma_dmma.cu) on the shapes where it runs its TMA
 * kernel (where rung 12 runs its big tile with 3 or more 128x64 tiles per SM of a 132-SM GPU,
 * i.e. >= 396 tiles: 520 to 1188 here), beside rung 12 dmma:
 *   - against OpenBLAS with gemm_test.inc's cases and bound (NaN-poisoned C, guards and
 *     padding, alpha/beta specials): all four transposes, both layouts, edge tiles in m and n
 *     (odd sizes with even padded leading dimensions, which TMA copies), a last wave split in
 *     k (mb_tail: 1188 tiles = 4.5 waves at k = 400, 2 slices; 536 tiles = 2 waves + 8, 8
 *     slices) and one left whole (1188 tiles at k = 320: shallow, MB_TAIL_SHALLOW_KT), operands
 *     TMA cannot read (an odd leading dimension, a misaligned pointer, K % 16 != 0: copied
 *     first where that pays, else rung 12), few k-tiles (1, 2, 3: fewer than the stages);
 *   - bitwise against rung 12: the same mma in the same order and the same tail split, so C
 *     (the padding between its columns included) must have the same bits, for every case
 *     above and more, on compute capability 9.0 GPUs (elsewhere the rung is refused).
 * A stage read before it landed, or refilled before every warp read it, gives wrong values
 * (stale k-tiles: errors of the size of a k-tile's contribution, far above the bound and
 * never bitwise rung 12's); a wrong mbarrier phase hangs (the CTest time limit catches it).
 * MINIBLAS_TEST_RUNG narrows the rungs of the OpenBLAS part (default: tma_dmma,dmma);
 * MINIBLAS_TEST_QUICK=1 runs two small cases of each part (for compute-sanitizer).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdint.h>
#include "gemm_test.inc"

typedef struct tcase {
    int ta, tb;           /* MiniblasNoTrans / MiniblasTrans (column-major) */
    int64_t m, n, k;
    int pa, pb, pc;       /* leading-dimension pads */
    int oa;               /* element offset of A's device pointer (1: misaligned) */
    double alpha, beta;
} tcase;

/* One column-major call on `rung` into dC (first reset to c0), C copied back into out. */
static int td_call(miniblas_handle_t h, const char *rung, const tcase *c, const double *dA,
                   int64_t lda, const double *dB, int64_t ldb, double *dC, int64_t ldc,
                   const double *c0, size_t nc, double *out) {
    if (miniblas_set_rung(h, MINIBLAS_OP_DGEMM, rung) != MINIBLAS_STATUS_SUCCESS) return 0;
    mbt_h2d(dC, c0, nc * sizeof(double));
    miniblas_status_t st = miniblas_dgemm(h, MiniblasColMajor, (miniblas_transpose_t)c->ta,
                                          (miniblas_transpose_t)c->tb, c->m, c->n, c->k,
                                          c->alpha, dA, lda, dB, ldb, c->beta, dC, ldc);
    mbt_device_sync();
    mbt_d2h(out, dC, nc * sizeof(double));
    return st == MINIBLAS_STATUS_SUCCESS;
}

/* tma_dmma against dmma, bit for bit over the whole C buffer (padding included). */
static void td_bitwise(miniblas_handle_t h, const tcase *c) {
    char kase[200];
    snprintf(kase, sizeof kase,
             "bitwise vs dmma ta=%d tb=%d M=%lld N=%lld K=%lld pads=%d,%d,%d off=%d alpha=%g "
             "beta=%g",
             c->ta, c->tb, (long long)c->m, (long long)c->n, (long long)c->k, c->pa, c->pb,
             c->pc, c->oa, c->alpha, c->beta);
    mbt_context("dgemm %s", kase);
    const int at = c->ta == MiniblasTrans, bt = c->tb == MiniblasTrans;
    const int64_t lda = (at ? c->k : c->m) + c->pa, ldb = (bt ? c->n : c->k) + c->pb;
    const int64_t ldc = c->m + c->pc;
    const size_t na = (size_t)(lda * (at ? c->m : c->k)) + (size_t)c->oa;
    const size_t nb = (size_t)(ldb * (bt ? c->k : c->n)), nc = (size_t)(ldc * c->n);
    double *hA = mbt_host_alloc(na * 8), *hB = mbt_host_alloc(nb * 8), *c0 = mbt_host_alloc(nc * 8);
    double *r12 = mbt_host_alloc(nc * 8), *r14 = mbt_host_alloc(nc * 8);
    mbt_fill_uniform(hA, na, 1);
    mbt_fill_uniform(hB, nb, 1);
    mbt_fill_uniform(c0, nc, 1);
    if (c->beta == 0.0)
        for (size_t i = 0; i < nc; ++i) c0[i] = NAN; /* must not leak */
    double *dA = mbt_dev_alloc(na * 8), *dB = mbt_dev_alloc(nb * 8), *dC = mbt_dev_alloc(nc * 8);
    mbt_h2d(dA, hA, na * 8);
    mbt_h2d(dB, hB, nb * 8);
    const int ok12 = td_call(h, "dmma", c, dA + c->oa, lda, dB, ldb, dC, ldc, c0, nc, r12);
    const int ok14 = td_call(h, "tma_dmma", c, dA + c->oa, lda, dB, ldb, dC, ldc, c0, nc, r14);
    if (mbt_expect(NULL, ok12 && ok14, "dgemm", kase, "a call failed (dmma %d, tma_dmma %d)",
                   ok12, ok14)) {
        long bad = 0;
        size_t first = 0;
        for (size_t i = 0; i < nc; ++i)
            if (memcmp(&r12[i], &r14[i], 8) != 0 && bad++ == 0) first = i;
        mbt_expect(NULL, bad == 0, "dgemm", kase,
                   "%ld elements differ; first at row %lld col %lld: dmma %.17g, tma_dmma %.17g",
                   bad, (long long)(first % (size_t)ldc), (long long)(first / (size_t)ldc),
                   r12[first], r14[first]);
    }
    mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(hA), free(hB), free(c0), free(r12), free(r14);
}

int main(void) {
    (void)gemm_test_main; /* this test runs its own cases */
    const char *f = getenv("MINIBLAS_TEST_RUNG");
    if (!f || !*f) setenv("MINIBLAS_TEST_RUNG", "tma_dmma,dmma", 1);
    mbt_init("test_dgemm_tma_gpu");
    gctx g = {NULL, 1, MINIBLAS_OP_DGEMM, "dgemm", NULL, 0};
    miniblas_status_t st = miniblas_create(&g.h);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, g.opn, "miniblas_create", "returned %s", miniblas_status_string(st));
        return mbt_finish();
    }
    g.nv = mbt_variants(g.op, &g.v);
    const int quick = mbt_quick();

    const int CM = MiniblasColMajor, RM = MiniblasRowMajor, N_ = MiniblasNoTrans, T_ = MiniblasTrans;
    const gcase cases[] = {
        /* 520 tiles, interior: the four transposes, beta = 0 over NaN and beta != 0 */
        {CM, N_, N_, 2560, 1664, 512, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        {CM, N_, T_, 2560, 1664, 512, 2, 0, 4, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 2560, 1664, 512, 0, 4, 0, AB_NEG, 0, 0, 0},
        {CM, T_, T_, 2560, 1664, 512, 4, 2, 2, AB_RAND_ZERO, 0, 0, 0},
        /* edge tiles in m and n, odd sizes, leading dimensions padded to even (TMA's 16-byte
         * rows); 1188 tiles = 4.5 waves: at k = 400 the last wave split in 2 slices, at
         * k = 320 (20 k-tiles: shallow) not split */
        {CM, N_, N_, 4223, 2301, 400, 1, 0, 3, AB_RAND, 0, 0, 0},
        {CM, T_, T_, 4223, 2301, 400, 0, 1, 0, AB_ONE_ONE, 0, 0, 0},
        {CM, N_, N_, 4223, 2301, 320, 1, 0, 1, AB_RAND_ZERO, 0, 0, 0},
        {RM, N_, T_, 2301, 4223, 320, 1, 1, 0, AB_ONE_ZERO, 0, 0, 0},
        {RM, T_, N_, 2301, 4223, 320, 0, 0, 0, AB_NEG, 0, 0, 0},
        /* 536 tiles = 2 waves + 8: 8 slices of the last wave, with edges in m and n */
        {CM, N_, N_, 1000, 4250, 512, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 1000, 4250, 512, 0, 0, 0, AB_RAND_ZERO, 0, 0, 0},
        /* 1, 2 and 3 k-tiles (fewer than the stages), beta != 0 */
        {CM, N_, N_, 2560, 1664, 16, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, T_, 2560, 1664, 32, 0, 0, 0, AB_ONE_ONE, 0, 0, 0},
        {RM, N_, N_, 1664, 2560, 48, 0, 0, 0, AB_NEG, 0, 0, 0},
        /* operands TMA cannot read: an odd lda (pad 1 on an even M), a misaligned A, K % 16
         * != 0 with copies (2305 x 2561 x 999: about 1210 multiply-adds per copied element)
         * and without (8448 x 1000 x 1001: 894, rung 12's STEP kernel) */
        {CM, N_, N_, 2560, 1664, 512, 1, 0, 0, AB_RAND, 0, 0, 0},
        {CM, N_, T_, 2560, 1664, 512, 0, 0, 0, AB_ONE_ZERO, 1, 0, 0},
        {CM, N_, N_, 2305, 2561, 999, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 8448, 1000, 1001, 0, 0, 0, AB_NEG, 0, 0, 0},
        /* fewer tiles than 3 per SM: rung 12 (mid, small, tiny tiles, split k) */
        {CM, N_, N_, 1024, 1024, 1024, 0, 0, 0, AB_RAND, 0, 0, 0},
        {CM, T_, N_, 256, 128, 2048, 0, 0, 0, AB_ONE_ZERO, 0, 0, 0},
        /* alpha = 0 (A and B not read) */
        {CM, N_, N_, 2560, 1664, 512, 0, 0, 0, AB_ZERO_RAND, 0, 0, 0},
    };
    const gcase quick_cases[] = {
        {CM, N_, N_, 4223, 2301, 400, 1, 0, 3, AB_RAND, 0, 0, 0},
        {CM, T_, T_, 2560, 1664, 48, 0, 0, 0, AB_RAND_ZERO, 0, 0, 0},
    };
    if (quick)
        for (size_t i = 0; i < sizeof quick_cases / sizeof quick_cases[0]; ++i)
            g_run_case(&g, &quick_cases[i]);
    else
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) g_run_case(&g, &cases[i]);

    /* Bitwise against rung 12, where the GPU runs rung 14 at all (compute capability 9.0 with
     * the sm_90a code). */
    if (miniblas_rung_supported(g.h, MINIBLAS_OP_DGEMM, "tma_dmma") == MINIBLAS_STATUS_SUCCESS) {
        const tcase bits[] = {
            {N_, N_, 2560, 1664, 512, 0, 0, 0, 0, 1.0, 0.0},
            {N_, T_, 2560, 1664, 512, 2, 0, 4, 0, -0.75, 0.5},
            {T_, N_, 2560, 1664, 512, 0, 4, 0, 0, 1.25, -1.0},
            {T_, T_, 2560, 1664, 512, 4, 2, 2, 0, 0.5, 1.0},
            {N_, N_, 4223, 2301, 400, 1, 0, 3, 0, 1.0, 0.25},
            {T_, T_, 4223, 2301, 400, 0, 1, 0, 0, -1.0, 0.0},
            {N_, T_, 4224, 2304, 320, 0, 0, 0, 0, 0.3, 0.7},
            {T_, N_, 4223, 2303, 336, 0, 0, 0, 0, 1.0, 1.0},
            {N_, N_, 1000, 4250, 512, 0, 0, 0, 0, 1.0, -0.5},
            {T_, T_, 1000, 4250, 512, 0, 0, 0, 0, 2.0, 0.0},
            {N_, N_, 2560, 1664, 16, 0, 0, 0, 0, 1.0, 1.0},
            {T_, N_, 2560, 1664, 32, 0, 0, 0, 0, 1.0, 0.0},
            {N_, T_, 2560, 1664, 48, 0, 0, 0, 0, -2.0, 0.5},
            {N_, N_, 2560, 1664, 512, 1, 0, 0, 0, 1.0, 0.0},
            {N_, T_, 2560, 1664, 512, 0, 0, 0, 1, 1.0, 0.5},
            {N_, N_, 2305, 2561, 999, 0, 0, 0, 0, 1.0, 0.0},
            {T_, T_, 2305, 2561, 999, 0, 0, 1, 0, 0.5, -1.0},
            {N_, N_, 4096, 4096, 256, 0, 0, 0, 0, 1.0, 0.0},
            {T_, T_, 2560, 2560, 2560, 0, 0, 0, 0, 1.0, 1.0},
        };
        const tcase quick_bits[] = {
            {N_, N_, 4223, 2301, 400, 1, 0, 3, 0, 1.0, 0.25},
            {T_, T_, 2560, 1664, 48, 0, 0, 0, 0, 1.0, 0.0},
        };
        if (quick)
            for (size_t i = 0; i < sizeof quick_bits / sizeof quick_bits[0]; ++i)
                td_bitwise(g.h, &quick_bits[i]);
        else
            for (size_t i = 0; i < sizeof bits / sizeof bits[0]; ++i) td_bitwise(g.h, &bits[i]);
    } else {
        printf("tma_dmma not supported on this GPU / build: bitwise comparison skipped\n");
    }
    mbt_print_variants(g.op, g.v, g.nv);
    miniblas_destroy(g.h);
    free(g.v);
    return mbt_finish();
}
