/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rung registry without a GPU, part two: `auto`'s measured sgemm policy, its dgemm
 * stream-K rule (by the target's SM count) and its table of every architecture family
 * (src/auto.c), the tile dgemm rung 12 runs for the test cases written for one, what each GPU
 * and build can run (per-rung minimum compute capability, the code the library holds for a
 * GPU, the sm_90a code) and the public queries of it on a hand-built context (struct
 * miniblas_context of src/internal.h).
 * The tables, the parser, the selection order and the handle functions: test_registry_cpu.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "registry_common.h"
#include "gemm/streamk.h"

/* The measured policy of src/auto.c for sgemm (H200 figures in docs/ladders/gemm.md): pipelined
 * for NN with min(m, n) >= 1024 and m * n >= 2^21, tuned for small, skinny or transposed;
 * on Hopper promote4_tf32x3 (rung 18; it runs rung 14, wgmma_tf32x3, where TMA cannot copy
 * the operands and copies do not pay, and rung 16 without the range guard's workspace) there
 * and from m * n * k >= 2^25. */
static void test_auto_sgemm_policy(void) {
    /* cc 9.0: promote4_tf32x3 from 1024 and 2^21 elements of C or from 2^25 multiply-adds, any
     * transpose; cc 8.0 (and 9.0 below that size): pipelined for NN from the same size, else
     * tuned */
    static const struct { int64_t m, n, k; int trans, cc; const char *rung; } c[] = {
        {8192, 8192, 8192, 0, 90, "promote4_tf32x3"}, {8192, 1024, 8192, 0, 90, "promote4_tf32x3"},
        {2048, 1024, 8192, 0, 90, "promote4_tf32x3"}, {4096, 4096, 4096, 3, 90, "promote4_tf32x3"},
        {1024, 1024, 1024, 0, 90, "promote4_tf32x3"}, {8192, 128, 8192, 3, 90, "promote4_tf32x3"},
        {128, 8192, 8192, 0, 90, "promote4_tf32x3"},  {16384, 512, 64, 0, 90, "promote4_tf32x3"},
        {256, 256, 256, 0, 90, "tuned"},          {512, 512, 512, 3, 90, "promote4_tf32x3"},
        {256, 256, 511, 0, 90, "tuned"},          {256, 256, 512, 0, 90, "promote4_tf32x3"},
        {1, 1, 1LL << 40, 0, 90, "promote4_tf32x3"},
        {1LL << 20, 1LL << 20, 1LL << 40, 0, 90, "promote4_tf32x3"},
        {8192, 8192, 8192, 0, 80, "pipelined"},    {8192, 1024, 8192, 0, 80, "pipelined"},
        {2048, 1024, 8192, 0, 80, "pipelined"},    {1024, 2048, 512, 0, 80, "pipelined"},
        {1024, 1024, 1024, 0, 80, "tuned"},        {8192, 128, 8192, 0, 80, "tuned"},
        {4096, 4096, 4096, 3, 80, "tuned"},        {8192, 8192, 8192, 0, 89, "pipelined"},
    };
    int n = 0;
    const mb_rung *t = mb_op_rungs(MINIBLAS_OP_SGEMM, &n);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
        mb_shape sh = {c[i].m, c[i].n, c[i].k, c[i].trans, 0, 0};
        mb_target tg = {c[i].cc, c[i].cc, 1};
        int idx = mb_auto_pick_target(MINIBLAS_OP_SGEMM, &sh, 0, &tg);
        CHECKF(idx >= 0 && idx < n && strcmp(t[idx].name, c[i].rung) == 0,
               "sgemm %lldx%lldx%lld trans %d cc %d: auto picked '%s', expected '%s'",
               (long long)c[i].m, (long long)c[i].n, (long long)c[i].k, c[i].trans, c[i].cc,
               idx >= 0 && idx < n ? t[idx].name : "?", c[i].rung);
    }
}

/* The rung `auto` picks on target t, by name ("?" when none). */
static const char *pick_name(miniblas_op_t op, int64_t m, int64_t n, int64_t k, int trans,
                             const mb_target *t) {
    mb_shape sh = {m, n, k, trans, 1, 1};
    if (op != MINIBLAS_OP_SGEMM && op != MINIBLAS_OP_DGEMM) sh = (mb_shape){0, n, 0, 0, 1, 1};
    int i = mb_auto_pick_target(op, &sh, 0, t);
    const char *name = i >= 0 ? miniblas_rung_name(op, i) : NULL;
    return name ? name : "?";
}

/* dgemm on 9.0: `streamk_dmma` (rung 13) where stream-K paid on H100 (perf/results/h100/streamk/;
 * kernels/gemm/streamk.h, mb_sk_pays: column sk) and rung 12 would run the big tile rung 13
 * schedules (12_dmma.cu, mb_dgemm_dmma_big: column big) and not its deep 128x128 variant
 * (mb_dgemm_dmma_deep: column deep; at most one wave of big tiles, blocks at least 2048 deep,
 * k a multiple of 16), `dmma` elsewhere, and never with the SM count unknown. Tiles of 128x64;
 * an H100 or H200 (132 SMs, 2 tiles each) runs 264 per wave. */
static void test_auto_dgemm_streamk(void) {
    static const struct { int64_t m, n, k; int trans; int sk, big, deep; } c[] = {
        {1280, 1280, 1280, 0, 1, 0, 0}, {1280, 1280, 1280, 3, 1, 0, 0}, /* 200: the small tile */
        {1920, 1920, 1920, 0, 1, 0, 0}, {1920, 1920, 1920, 3, 1, 0, 0}, /* 450: the mid tile */
        {8192, 128, 8192, 0, 1, 1, 1},  {128, 8192, 8192, 0, 1, 1, 1},  /* NN, 128 tiles, deep */
        {8192, 128, 8192, 3, 0, 1, 1},  {128, 8192, 8192, 3, 0, 1, 1},  /* the same transposed */
        {8192, 128, 8192, 1, 0, 1, 1},  {8192, 128, 8192, 2, 0, 1, 1},
        {8192, 128, 4096, 0, 1, 1, 1},  {8192, 128, 4080, 0, 0, 0, 0},  /* 2 slices of 2048 */
        {1024, 1024, 1024, 0, 0, 0, 0}, {1024, 1024, 1024, 3, 0, 0, 0}, /* 128 tiles, 48% */
        {1408, 1408, 1408, 0, 0, 1, 0}, {1792, 1792, 1792, 0, 0, 0, 0}, /* 242 (92%), 392 */
        {1024, 1024, 4096, 0, 1, 1, 1}, {1024, 1024, 4096, 3, 0, 1, 1}, /* 2 slices of 2048 */
        {2048, 1024, 2048, 0, 0, 1, 1}, {2048, 1024, 2032, 0, 0, 1, 0}, /* 256 tiles (97%) */
        {2048, 1024, 4104, 0, 0, 1, 0}, /* k % 16 != 0: the big tile (STEP loop), no stream-K */
        {2048, 2048, 2048, 0, 0, 1, 0}, {2048, 2048, 2048, 3, 0, 1, 0}, /* 512: 94% of 2 waves */
        {2048, 1024, 4096, 0, 1, 1, 1}, {2048, 1056, 4096, 0, 0, 1, 0}, /* 256 tiles; 272 */
        {4096, 4096, 4096, 0, 0, 1, 0}, {4096, 4096, 4096, 3, 0, 1, 0}, /* 2048: 7.8 waves */
        {8192, 8192, 8192, 0, 0, 1, 0},
        {146 * 128, 64, 1024, 0, 1, 0, 0}, {145 * 128, 64, 1024, 0, 0, 0, 0}, /* fill bounds: */
        {224 * 128, 64, 1024, 3, 1, 0, 0}, {225 * 128, 64, 1024, 3, 0, 0, 0}, /* 55% of 264 is */
        {464 * 128, 64, 1024, 0, 1, 1, 0}, {528 * 128, 64, 1024, 0, 0, 1, 0}, /* 145.2, 85% */
        {728 * 128, 64, 1024, 0, 0, 1, 0}, /* 224.4; 1.76 waves; 2 whole; 2.76 waves */
        {1280, 1280, 1288, 0, 0, 0, 0}, {1280, 1280, 1281, 0, 0, 0, 0}, /* k % 16 != 0 */
        {127, 8192, 8192, 0, 0, 1, 1},  {8192, 63, 8192, 0, 0, 1, 1},   /* under one tile */
        {0, 0, 0, 0, 0, 0, 0},          {1, 1, 1, 0, 0, 0, 0},
    };
    mb_target h100 = {90, 90, 1, 132};
    mb_target unknown = {90, 90, 1, 0};  /* the runtime could not say */
    mb_target pcie = {90, 90, 1, 114};   /* fewer SMs: 228 tiles per wave */
    mb_target ptx80 = {90, 80, 0, 132};  /* a build for 8.0 only on Hopper: rung 13 runs */
    mb_target ptx75 = {90, 75, 0, 132};  /* a build for 7.5 only: no tensor-core rung runs */
    mb_target a100 = {80, 80, 1, 108};   /* not measured there: dmma */
    for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
        const int64_t m = c[i].m, n = c[i].n, k = c[i].k;
        const int tr = c[i].trans;
        const char *want = c[i].sk && c[i].big && !c[i].deep ? "streamk_dmma" : "dmma";
        const char *got = pick_name(MINIBLAS_OP_DGEMM, m, n, k, tr, &h100);
        CHECKF(strcmp(got, want) == 0, "dgemm %lldx%lldx%lld trans %d, 132 SMs: %s, expected %s",
               (long long)m, (long long)n, (long long)k, tr, got, want);
        CHECKF(mb_sk_pays(m, n, k, tr & 1, tr >> 1, 132) == c[i].sk,
               "mb_sk_pays %lldx%lldx%lld trans %d", (long long)m, (long long)n, (long long)k, tr);
        CHECKF(mb_dgemm_dmma_big(m, n, k, 132) == c[i].big, "mb_dgemm_dmma_big %lldx%lldx%lld",
               (long long)m, (long long)n, (long long)k);
        CHECKF(mb_dgemm_dmma_deep(m, n, k, 132) == c[i].deep, "mb_dgemm_dmma_deep %lldx%lldx%lld",
               (long long)m, (long long)n, (long long)k);
        got = pick_name(MINIBLAS_OP_DGEMM, m, n, k, tr, &ptx80);
        CHECKF(strcmp(got, want) == 0, "dgemm %lldx%lldx%lld trans %d, 8.0 code: %s, expected %s",
               (long long)m, (long long)n, (long long)k, tr, got, want);
        got = pick_name(MINIBLAS_OP_DGEMM, m, n, k, tr, &unknown);
        CHECKF(strcmp(got, "dmma") == 0, "dgemm %lldx%lldx%lld trans %d, SMs unknown: %s",
               (long long)m, (long long)n, (long long)k, tr, got);
        got = pick_name(MINIBLAS_OP_DGEMM, m, n, k, tr, &ptx75);
        CHECKF(strcmp(got, "tuned") == 0, "dgemm %lldx%lldx%lld, 7.5 code: %s", (long long)m,
               (long long)n, (long long)k, got);
        got = pick_name(MINIBLAS_OP_DGEMM, m, n, k, tr, &a100);
        CHECKF(strcmp(got, "dmma") == 0, "dgemm %lldx%lldx%lld, 8.0: %s", (long long)m,
               (long long)n, (long long)k, got);
        CHECK(!mb_sk_pays(m, n, k, tr & 1, tr >> 1, 0));
    }
    /* `tma_dmma` where its sm_90a code exists, the SM count is known and rung 14 runs its own
     * kernel (rung 12's big tile, at least 396 tiles), with k a multiple of 16 up to 384
     * NN, 256 NT and TT, 128 TN, and where rung 12 cannot shift its edge tiles: odd m with A
     * M-contiguous (trans bit 0 clear: NN, NT), odd n with B N-contiguous (bit 1 set: NT, TT) */
    static const struct { int64_t m, n, k; int trans; const char *want; } t[] = {
        {4096, 4096, 256, 0, "tma_dmma"}, {4096, 4096, 384, 0, "tma_dmma"},
        {8192, 8192, 128, 0, "tma_dmma"}, {4096, 4096, 16, 0, "tma_dmma"},
        {4096, 4096, 400, 0, "dmma"},     {4096, 4096, 512, 0, "dmma"},
        {4096, 4096, 250, 0, "dmma"}, /* k */
        {4096, 4096, 128, 1, "tma_dmma"}, {4096, 4096, 144, 1, "dmma"}, /* TN to 128 */
        {4096, 4096, 256, 2, "tma_dmma"}, {4096, 4096, 272, 2, "dmma"}, /* NT to 256 */
        {4096, 4096, 256, 3, "tma_dmma"}, {4096, 4096, 384, 3, "dmma"}, /* TT to 256 */
        {4096, 4096, 64, 3, "tma_dmma"},  {1024, 1024, 256, 0, "dmma"}, /* 128 tiles */
        {2047, 2047, 2047, 0, "tma_dmma"}, {2047, 2047, 2047, 3, "tma_dmma"}, /* odd edges */
        {2047, 2047, 2047, 2, "tma_dmma"}, {2047, 2047, 2047, 1, "dmma"},     /* TN shifts */
        {4097, 4095, 4099, 0, "tma_dmma"}, {4097, 4095, 4099, 3, "tma_dmma"},
        {2047, 2048, 2048, 0, "tma_dmma"}, {2048, 2047, 2048, 0, "dmma"}, /* NN: m only */
        {2048, 2047, 2048, 3, "tma_dmma"}, {2047, 2048, 2048, 3, "dmma"}, /* TT: n only */
        {2048, 2047, 2048, 2, "tma_dmma"}, {2047, 2048, 2048, 2, "tma_dmma"}, /* NT: both */
        {3000, 3000, 3001, 0, "dmma"},     {5001, 5001, 5001, 0, "tma_dmma"},
        {1023, 1023, 1023, 0, "dmma"},     {127, 8192, 8192, 0, "dmma"}, /* under 396 tiles */
        {1407, 1408, 1408, 0, "dmma"},                                   /* 242 big tiles */
    };
    CHECK(mb_dgemm_dmma_big(1407, 1408, 1408, 132));
    CHECK(!mb_dgemm_tma_dmma_big(1407, 1408, 1408, 132));
    CHECK(mb_dgemm_tma_dmma_big(2047, 2048, 2048, 132));
    CHECK(!mb_dgemm_tma_dmma_big(2047, 2048, 2048, 0));
    /* rung 12's unshifted edge tiles: an odd m with A M-contiguous, an odd n with B
     * N-contiguous, and a dimension under one tile whatever the layout */
    static const struct { int64_t m, n; int ta, tb, fixed; } e[] = {
        {2047, 2048, 0, 0, 1}, {2047, 2048, 1, 0, 0}, {2048, 2047, 0, 1, 1},
        {2048, 2047, 0, 0, 0}, {2048, 2048, 0, 1, 0}, {2000, 2000, 0, 1, 0},
        {126, 2048, 1, 0, 1},  {128, 2048, 1, 0, 0},
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; ++i)
        CHECKF(mb_dgemm_dmma_fixed_edges(e[i].m, e[i].n, e[i].ta, e[i].tb) == e[i].fixed,
               "mb_dgemm_dmma_fixed_edges %lldx%lld ta %d tb %d", (long long)e[i].m,
               (long long)e[i].n, e[i].ta, e[i].tb);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; ++i) {
        const char *got = pick_name(MINIBLAS_OP_DGEMM, t[i].m, t[i].n, t[i].k, t[i].trans, &h100);
        CHECKF(strcmp(got, t[i].want) == 0, "dgemm %lldx%lldx%lld trans %d, 132 SMs: %s, expected %s",
               (long long)t[i].m, (long long)t[i].n, (long long)t[i].k, t[i].trans, got,
               t[i].want);
        got = pick_name(MINIBLAS_OP_DGEMM, t[i].m, t[i].n, t[i].k, t[i].trans, &ptx80);
        CHECKF(strcmp(got, "dmma") == 0, "dgemm %lldx%lldx%lld trans %d, 8.0 code: %s",
               (long long)t[i].m, (long long)t[i].n, (long long)t[i].k, t[i].trans, got);
        got = pick_name(MINIBLAS_OP_DGEMM, t[i].m, t[i].n, t[i].k, t[i].trans, &unknown);
        CHECKF(strcmp(got, "dmma") == 0, "dgemm %lldx%lldx%lld trans %d, SMs unknown: %s",
               (long long)t[i].m, (long long)t[i].n, (long long)t[i].k, t[i].trans, got);
    }
    /* the waves are the GPU's: 1280^3 fills 88% of 228 slots, 1920^3's second wave 97%;
     * 1152^3 fills 71% of them, but there rung 12 runs its mid tile */
    CHECK(strcmp(pick_name(MINIBLAS_OP_DGEMM, 1280, 1280, 1280, 0, &pcie), "dmma") == 0);
    CHECK(strcmp(pick_name(MINIBLAS_OP_DGEMM, 1920, 1920, 1920, 0, &pcie), "dmma") == 0);
    CHECK(mb_sk_pays(1152, 1152, 1152, 0, 0, 114) && !mb_dgemm_dmma_big(1152, 1152, 1152, 114));
    CHECK(strcmp(pick_name(MINIBLAS_OP_DGEMM, 1152, 1152, 1152, 0, &pcie), "dmma") == 0);
    /* sgemm is not touched */
    CHECK(strcmp(pick_name(MINIBLAS_OP_SGEMM, 1280, 1280, 1280, 0, &h100), "promote4_tf32x3") == 0);
    /* the SM count of a device: cached, and 0 with an error where the runtime cannot say */
    int sms = -5;
    miniblas_status_t st = mb_device_sms(0, &sms);
    CHECKF((st == MINIBLAS_STATUS_SUCCESS && sms > 0) ||
               (st == MINIBLAS_STATUS_CUDA_ERROR && sms == 0),
           "mb_device_sms: %d, %d", (int)st, sms);
    int again = -5;
    CHECK(mb_device_sms(0, &again) == st && again == sms);
    CHECK(mb_device_sms(0, NULL) == MINIBLAS_STATUS_INVALID_VALUE);
    CHECK(mb_target_of(0, 90).sms == sms);
    again = -5;
    CHECK(mb_device_sms(-1, &again) == MINIBLAS_STATUS_CUDA_ERROR && again == 0);
    printf("note: device 0 has %d SMs%s\n", sms, sms ? "" : " (unknown: no GPU)");
}

/* The tile dgemm rung 12 runs (12_dmma.cu, mb_dgemm_dmma_tile) for the cases of
 * tests/gemm_test.inc written for one tile (row-major cases as the column-major product they
 * are: m and n swapped, A and B swapped) and for some sizes of the benchmark, 132 SMs. */
static void test_dmma_tiles(void) {
    enum { N = 0, T = 1 };
    static const struct { int64_t m, n, k; int ta, tb; int64_t lda, ldb; int tile; } c[] = {
        /* the mid tile on the XMMA loop: 256 tiles, shifted edges, 6, 4, 5, 1, 13 k-tiles */
        {1022, 1000, 96, N, N, 1022, 96, MB_DMMA_MID_XMMA},
        {1022, 1000, 64, T, T, 64, 1000, MB_DMMA_MID_XMMA},
        {999, 1021, 80, T, N, 80, 80, MB_DMMA_MID_XMMA},
        {1024, 1000, 16, N, T, 1026, 1002, MB_DMMA_MID_XMMA},
        {1000, 1024, 208, T, T, 208, 1024, MB_DMMA_MID_XMMA},
        /* ... on its stream loop: 600 tiles; an odd m with A M-contiguous; k % 16 != 0; an
         * operand without 16-byte rows */
        {1920, 1276, 96, N, N, 1920, 96, MB_DMMA_MID},
        {1920, 1276, 48, T, T, 48, 1276, MB_DMMA_MID},
        {1021, 999, 112, N, T, 1022, 1000, MB_DMMA_MID},
        {1024, 1024, 1000, N, N, 1024, 1000, MB_DMMA_MID},
        {1024, 1024, 1024, N, N, 1025, 1024, MB_DMMA_MID},
        /* the small tile on the XMMA loop (392 tiles) and on its lean loop (an odd m, A
         * M-contiguous) */
        {896, 892, 80, N, N, 896, 80, MB_DMMA_SMALL_XMMA},
        {892, 896, 48, T, T, 50, 898, MB_DMMA_SMALL_XMMA},
        {896, 894, 16, N, T, 896, 894, MB_DMMA_SMALL_XMMA},
        {896, 894, 208, N, T, 896, 894, MB_DMMA_SMALL_XMMA},
        {895, 893, 704, N, N, 896, 706, MB_DMMA_SMALL},
        /* the tiny tile; the big tile */
        {999, 601, 704, N, N, 1001, 706, MB_DMMA_TINY},
        {1000, 600, 700, T, T, 700, 600, MB_DMMA_TINY},
        {2044, 2052, 80, N, N, 2044, 80, MB_DMMA_BIG},
        /* sizes of the benchmark */
        {512, 512, 512, N, N, 512, 512, MB_DMMA_TINY},
        {896, 896, 896, N, N, 896, 896, MB_DMMA_SMALL_XMMA},
        {1024, 1024, 1024, N, N, 1024, 1024, MB_DMMA_MID_XMMA},
        {1024, 1024, 1024, T, T, 1024, 1024, MB_DMMA_MID_XMMA},
        {1280, 1280, 1280, N, N, 1280, 1280, MB_DMMA_SMALL_XMMA},
        {1920, 1920, 1920, N, N, 1920, 1920, MB_DMMA_MID},
        {2048, 2048, 2048, N, N, 2048, 2048, MB_DMMA_BIG},
        {4096, 4096, 256, T, T, 256, 4096, MB_DMMA_BIG},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; ++i) {
        const int got = mb_dgemm_dmma_tile(c[i].m, c[i].n, c[i].k, c[i].ta, c[i].tb, c[i].lda,
                                           c[i].ldb, 132);
        CHECKF(got == c[i].tile, "dmma tile %lldx%lldx%lld %c%c lda %lld ldb %lld: %d, expected %d",
               (long long)c[i].m, (long long)c[i].n, (long long)c[i].k, "NT"[c[i].ta],
               "NT"[c[i].tb], (long long)c[i].lda, (long long)c[i].ldb, got, c[i].tile);
    }
    /* 336 mid tiles, more than one wave at 2 per SM: the stream loop's 3 per SM */
    CHECK(mb_dgemm_dmma_tile(1024, 1344, 1024, N, N, 1024, 1024, 132) == MB_DMMA_MID);
}

/* `auto`'s table of every architecture family (src/auto.c), each GPU with a build that has
 * code for it (and sm_90a). */
static void test_families(void) {
    static const struct {
        int cc;
        const char *family;
        const char *dgemm;     /* every shape */
        const char *sgemm_big; /* NN, 4096^3 */
    } f[] = {
        {75, "7.5", "tuned", "tuned"},         {80, "8.0", "dmma", "pipelined"},
        {86, "8.6/8.9", "tuned", "pipelined"}, {87, "8.6/8.9", "tuned", "pipelined"},
        {89, "8.6/8.9", "tuned", "pipelined"}, {90, "9.0", "dmma", "promote4_tf32x3"},
        {100, "10.x", "dmma", "pipelined"},    {103, "10.x", "dmma", "pipelined"},
        {110, "12.x", "tuned", "pipelined"},   {120, "12.x", "tuned", "pipelined"},
        {121, "12.x", "tuned", "pipelined"},
    };
    mb_target h200 = {90, 90, 1};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; ++i) {
        mb_target t = {f[i].cc, f[i].cc, 1};
        CHECKF(strcmp(mb_auto_family(f[i].cc), f[i].family) == 0, "cc %d: family %s", f[i].cc,
               mb_auto_family(f[i].cc));
        static const int64_t dims[][3] = {{1, 1, 1}, {33, 7, 257}, {256, 256, 256},
                                          {1024, 1024, 1024}, {4096, 4096, 4096},
                                          {8192, 128, 8192}};
        for (size_t d = 0; d < sizeof dims / sizeof dims[0]; ++d)
            for (int tr = 0; tr < 4; ++tr) {
                const char *dg = pick_name(MINIBLAS_OP_DGEMM, dims[d][0], dims[d][1], dims[d][2],
                                           tr, &t);
                CHECKF(strcmp(dg, f[i].dgemm) == 0, "cc %d dgemm %lld: %s, expected %s",
                       f[i].cc, (long long)dims[d][0], dg, f[i].dgemm);
                const char *sg = pick_name(MINIBLAS_OP_SGEMM, dims[d][0], dims[d][1], dims[d][2],
                                           tr, &t);
                /* off Hopper, never the 3xTF32 rungs; small shapes: tuned everywhere */
                if (f[i].cc != 90)
                    CHECKF(strcmp(sg, "tuned") == 0 || strcmp(sg, "pipelined") == 0,
                           "cc %d sgemm: %s", f[i].cc, sg);
                if (dims[d][0] <= 256)
                    CHECKF(strcmp(sg, "tuned") == 0, "cc %d sgemm %lld: %s", f[i].cc,
                           (long long)dims[d][0], sg);
                if (tr != 0 && f[i].cc != 90)
                    CHECKF(strcmp(sg, "tuned") == 0, "cc %d sgemm trans %d: %s", f[i].cc, tr, sg);
            }
        const char *big = pick_name(MINIBLAS_OP_SGEMM, 4096, 4096, 4096, 0, &t);
        CHECKF(strcmp(big, f[i].sgemm_big) == 0, "cc %d sgemm 4096 NN: %s, expected %s",
               f[i].cc, big, f[i].sgemm_big);
        /* the other ops: as measured on the H200, on every family */
        for (int op = MINIBLAS_OP_SOMATCOPY; op < MINIBLAS_OP_COUNT; ++op)
            for (int s2 = 0; s2 < NSHAPES; ++s2) {
                mb_shape sh = shape_of((miniblas_op_t)op, s2);
                int a = mb_auto_pick_target((miniblas_op_t)op, &sh, 0, &t);
                int b = mb_auto_pick_target((miniblas_op_t)op, &sh, 0, &h200);
                CHECKF(a >= 0 && a == b, "cc %d %s shape %d: %d vs %d", f[i].cc, op_names[op],
                       s2, a, b);
            }
        /* whatever it picks runs there, and is full precision */
        for (int op = 0; op < MINIBLAS_OP_COUNT; ++op)
            for (int s2 = 0; s2 < NSHAPES; ++s2) {
                mb_shape sh = shape_of((miniblas_op_t)op, s2);
                int a = mb_auto_pick_target((miniblas_op_t)op, &sh, 0, &t);
                CHECKF(a >= 0 && mb_rung_runs((miniblas_op_t)op, a, &t, NULL, 0) &&
                           !(miniblas_rung_flags((miniblas_op_t)op, a) & MB_RUNG_REDUCED_PRECISION),
                       "cc %d %s shape %d: %d", f[i].cc, op_names[op], s2, a);
            }
    }
    /* reductions as measured: singlepass, sasum with a non-unit increment shuffle */
    CHECK(strcmp(pick_name(MINIBLAS_OP_SASUM, 0, 1 << 20, 0, 0, &h200), "singlepass") == 0);
    mb_shape strided = {0, 1 << 20, 0, 0, 4, 1};
    int sh = mb_auto_pick_target(MINIBLAS_OP_SASUM, &strided, 0, &h200);
    CHECK(sh >= 0 && strcmp(miniblas_rung_name(MINIBLAS_OP_SASUM, sh), "shuffle") == 0);
    CHECK(strcmp(pick_name(MINIBLAS_OP_DOMATCOPY, 100, 100, 0, 1, &h200), "vectorized") == 0);
}

/* What a GPU and a build can run: rungs, reasons, and auto's fallbacks. */
static void test_targets(void) {
    const int dmma = mb_rung_index(MINIBLAS_OP_DGEMM, "dmma");
    const int tf32 = mb_rung_index(MINIBLAS_OP_SGEMM, "tf32");
    const int tf32x3 = mb_rung_index(MINIBLAS_OP_SGEMM, "tf32x3");
    const int wgmma = mb_rung_index(MINIBLAS_OP_SGEMM, "wgmma_tf32x3");
    const int tma = mb_rung_index(MINIBLAS_OP_SGEMM, "tma_tf32x3");
    const int pingpong = mb_rung_index(MINIBLAS_OP_SGEMM, "pingpong_tf32x3");
    const int fastsplit = mb_rung_index(MINIBLAS_OP_SGEMM, "fastsplit_tf32x3");
    const int promote = mb_rung_index(MINIBLAS_OP_SGEMM, "promote4_tf32x3");
    const int tuned = mb_rung_index(MINIBLAS_OP_SGEMM, "tuned");
    /* the registry's needs name rungs that exist */
    CHECK(dmma >= 0 && tf32 >= 0 && tf32x3 >= 0 && wgmma >= 0 && tma >= 0 && pingpong >= 0 &&
          fastsplit >= 0 && promote >= 0 && tuned >= 0);
    /* ladder order: rung 14, 15, 16, 17, 18, the last sgemm rung */
    CHECK(wgmma < tma && tma < pingpong && pingpong + 1 == fastsplit && fastsplit + 1 == promote);
    CHECK(promote == miniblas_rung_count(MINIBLAS_OP_SGEMM) - 1);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_DGEMM, dmma) == 80);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, tf32) == 80);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, tf32x3) == 80);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, wgmma) == 90);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, tma) == 90);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, pingpong) == 90);
    CHECK(miniblas_rung_flags(MINIBLAS_OP_SGEMM, pingpong) & MB_RUNG_NEEDS_SM90A);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, fastsplit) == 90);
    CHECK(miniblas_rung_flags(MINIBLAS_OP_SGEMM, fastsplit) & MB_RUNG_NEEDS_SM90A);
    CHECK(!(miniblas_rung_flags(MINIBLAS_OP_SGEMM, fastsplit) & MB_RUNG_REDUCED_PRECISION));
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, promote) == 90);
    CHECK(miniblas_rung_flags(MINIBLAS_OP_SGEMM, promote) & MB_RUNG_NEEDS_SM90A);
    CHECK(!(miniblas_rung_flags(MINIBLAS_OP_SGEMM, promote) & MB_RUNG_REDUCED_PRECISION));
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, 0) == 0);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, -1) == -1);
    CHECK(miniblas_rung_min_compute_capability(MINIBLAS_OP_SGEMM, 1000) == -1);
    CHECK(miniblas_rung_min_compute_capability((miniblas_op_t)99, 0) == -1);
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op)
        for (int i = 0; i < miniblas_rung_count((miniblas_op_t)op); ++i) {
            int m = miniblas_rung_min_compute_capability((miniblas_op_t)op, i);
            CHECKF(m == 0 || m == 80 || m == 90, "%s %d: %d", op_names[op], i, m);
            CHECK(!(miniblas_rung_flags((miniblas_op_t)op, i) & MB_RUNG_NEEDS_SM90A) || m == 90);
        }
    char why[384];
    /* a GPU the build has no code for: nothing runs, and auto says so */
    mb_target none = {61, 0, 1};
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        CHECK(!mb_rung_runs((miniblas_op_t)op, 0, &none, why, sizeof why));
        CHECKF(strstr(why, "no code for compute capability 6.1") &&
                   strstr(why, miniblas_cuda_architectures()),
               "'%s'", why);
        mb_shape sh = shape_of((miniblas_op_t)op, 3);
        CHECK(mb_auto_pick_target((miniblas_op_t)op, &sh, 1, &none) == -1);
    }
    /* 7.5: no tensor-core mma; the cp.async rungs run (synchronous copies) */
    mb_target turing = {75, 75, 1};
    CHECK(!mb_rung_runs(MINIBLAS_OP_DGEMM, dmma, &turing, why, sizeof why));
    CHECKF(strstr(why, "8.0") && strstr(why, "7.5") && strstr(why, "FP64"), "'%s'", why);
    CHECK(!mb_rung_runs(MINIBLAS_OP_SGEMM, tf32x3, &turing, why, sizeof why));
    CHECK(!mb_rung_runs(MINIBLAS_OP_SGEMM, wgmma, &turing, why, sizeof why) && strstr(why, "9.0"));
    CHECK(mb_rung_runs(MINIBLAS_OP_SGEMM, tuned, &turing, why, sizeof why) && why[0] == '\0');
    CHECK(mb_rung_runs(MINIBLAS_OP_DGEMM, mb_rung_index(MINIBLAS_OP_DGEMM, "pipelined"), &turing,
                       NULL, 0));
    /* a build for 8.0 only (PTX) on a Hopper GPU: no sm_90a, so no wgmma; dmma runs */
    mb_target ptx80 = {90, 80, 0};
    CHECK(!mb_rung_runs(MINIBLAS_OP_SGEMM, wgmma, &ptx80, why, sizeof why));
    CHECKF(strstr(why, "sm_90a") && strstr(why, "CMAKE_CUDA_ARCHITECTURES"), "'%s'", why);
    CHECK(mb_rung_runs(MINIBLAS_OP_DGEMM, dmma, &ptx80, NULL, 0));
    CHECK(strcmp(pick_name(MINIBLAS_OP_SGEMM, 4096, 4096, 4096, 0, &ptx80), "pipelined") == 0);
    CHECK(strcmp(pick_name(MINIBLAS_OP_SGEMM, 4096, 4096, 4096, 3, &ptx80), "tuned") == 0);
    CHECK(strcmp(pick_name(MINIBLAS_OP_SGEMM, 128, 128, 1 << 20, 0, &ptx80), "tuned") == 0);
    CHECK(strcmp(pick_name(MINIBLAS_OP_DGEMM, 4096, 4096, 4096, 0, &ptx80), "dmma") == 0);
    /* a build for 7.5 only on a Hopper GPU: the code lacks mma, so dmma falls back to tuned */
    mb_target ptx75 = {90, 75, 0};
    CHECK(!mb_rung_runs(MINIBLAS_OP_DGEMM, dmma, &ptx75, why, sizeof why));
    CHECKF(strstr(why, "code built for 7.5") && strstr(why, "add 90"), "'%s'", why);
    CHECK(strcmp(pick_name(MINIBLAS_OP_DGEMM, 4096, 4096, 4096, 0, &ptx75), "tuned") == 0);
    /* sm_90a code on a Blackwell GPU: wgmma does not exist there */
    mb_target b200 = {100, 100, 1};
    CHECK(!mb_rung_runs(MINIBLAS_OP_SGEMM, wgmma, &b200, why, sizeof why) && strstr(why, "10.0"));
    CHECK(mb_rung_runs(MINIBLAS_OP_SGEMM, tf32x3, &b200, NULL, 0));
    /* the build's own answer */
    CHECK(mb_build_has_sm90a() == 0 || mb_build_has_sm90a() == 1);
    CHECK(miniblas_cuda_architectures() && miniblas_cuda_architectures()[0]);
    printf("note: built for CUDA architectures %s (sm_90a: %d)\n", miniblas_cuda_architectures(),
           mb_build_has_sm90a());
    /* on a machine with a GPU: the code the library runs there (a build for 8.0 only runs its
     * 8.0 PTX on Hopper: 80) */
    int code = mb_code_cc(0);
    CHECK(code >= -1 && mb_code_cc(0) == code); /* cached, stable */
    if (code >= 0) {
        printf("note: on device 0 the library runs code built for %d.%d%s\n", code / 10,
               code % 10, code == 0 ? " (none: this build has no code for this GPU)" : "");
        CHECK(code == 0 || (code >= 75 && code < 200));
    } else {
        printf("note: no GPU, the code probe cannot say (treated as fitting the GPU)\n");
    }
}

/* The public queries on a hand-built context (no GPU needed). */
static void test_supported_api(void) {
    struct miniblas_context h;
    fresh(&h);
    CHECK(miniblas_rung_supported(NULL, MINIBLAS_OP_SGEMM, "naive") ==
          MINIBLAS_STATUS_NOT_INITIALIZED);
    CHECK(miniblas_rung_supported(&h, (miniblas_op_t)99, "naive") == MINIBLAS_STATUS_INVALID_VALUE);
    CHECK(miniblas_rung_supported(&h, MINIBLAS_OP_SGEMM, "junk") == MINIBLAS_STATUS_UNKNOWN_RUNG);
    CHECK(strstr(h.err, "junk") != NULL);
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        miniblas_op_t o = (miniblas_op_t)op;
        for (int cc = 75; cc <= 90; cc += 5) {
            fresh(&h);
            h.cc_major = cc / 10;
            h.cc_minor = cc % 10;
            CHECK(miniblas_rung_supported(&h, o, "auto") == MINIBLAS_STATUS_SUCCESS);
            CHECK(miniblas_rung_supported(&h, o, NULL) == MINIBLAS_STATUS_SUCCESS);
            for (int i = 0; i < miniblas_rung_count(o); ++i) {
                const char *name = miniblas_rung_name(o, i);
                miniblas_status_t st = miniblas_rung_supported(&h, o, name);
                if (runs_on(&h, o, i)) {
                    CHECKF(st == MINIBLAS_STATUS_SUCCESS && h.err[0] == '\0', "%s %s cc %d: %d",
                           op_names[op], name, cc, (int)st);
                } else {
                    CHECKF(st == MINIBLAS_STATUS_NOT_SUPPORTED && strstr(h.err, name),
                           "%s %s cc %d: %d '%s'", op_names[op], name, cc, (int)st, h.err);
                }
                /* the same answer as the selection */
                h.sel[op] = i;
                h.math_mode = MINIBLAS_MATH_ALLOW_REDUCED_PRECISION;
                const mb_rung *r = NULL;
                mb_shape sh = shape_of(o, 3);
                miniblas_status_t st2 = mb_select(&h, o, &sh, &r);
                CHECK((st == MINIBLAS_STATUS_SUCCESS) == (st2 == MINIBLAS_STATUS_SUCCESS));
                h.sel[op] = MB_SEL_AUTO;
                h.math_mode = MINIBLAS_MATH_DEFAULT;
            }
        }
        fresh(&h);
        h.cc_major = 7;
        h.cc_minor = 5;
        if (o == MINIBLAS_OP_DGEMM) {
            CHECK(miniblas_rung_supported(&h, o, "dmma") == MINIBLAS_STATUS_NOT_SUPPORTED);
            CHECK(strstr(h.err, "8.0") != NULL);
        }
    }
    /* gemm's auto rung for a shape, as the call would normalise it */
    fresh(&h);
    h.cc_major = 8;
    const char *r = miniblas_gemm_auto_rung(&h, MINIBLAS_OP_SGEMM, MiniblasColMajor,
                                            MiniblasNoTrans, MiniblasNoTrans, 4096, 4096, 4096);
    CHECK(r && strcmp(r, "pipelined") == 0);
    r = miniblas_gemm_auto_rung(&h, MINIBLAS_OP_SGEMM, MiniblasRowMajor, MiniblasNoTrans,
                                MiniblasNoTrans, 4096, 4096, 4096);
    CHECK(r && strcmp(r, "pipelined") == 0);
    r = miniblas_gemm_auto_rung(&h, MINIBLAS_OP_SGEMM, MiniblasRowMajor, MiniblasTrans,
                                MiniblasNoTrans, 4096, 4096, 4096);
    CHECK(r && strcmp(r, "tuned") == 0);
    r = miniblas_gemm_auto_rung(&h, MINIBLAS_OP_DGEMM, MiniblasColMajor, MiniblasNoTrans,
                                MiniblasTrans, 100, 100, 100);
    CHECK(r && strcmp(r, runs_on(&h, MINIBLAS_OP_DGEMM, mb_rung_index(MINIBLAS_OP_DGEMM, "dmma"))
                             ? "dmma" : "tuned") == 0);
    h.cc_major = 8;
    h.cc_minor = 6;
    r = miniblas_gemm_auto_rung(&h, MINIBLAS_OP_DGEMM, MiniblasColMajor, MiniblasNoTrans,
                                MiniblasTrans, 100, 100, 100);
    CHECK(r && strcmp(r, "tuned") == 0);
    CHECK(miniblas_gemm_auto_rung(NULL, MINIBLAS_OP_SGEMM, MiniblasColMajor, MiniblasNoTrans,
                                  MiniblasNoTrans, 1, 1, 1) == NULL);
    CHECK(miniblas_gemm_auto_rung(&h, MINIBLAS_OP_SASUM, MiniblasColMajor, MiniblasNoTrans,
                                  MiniblasNoTrans, 1, 1, 1) == NULL);
    CHECK(miniblas_gemm_auto_rung(&h, MINIBLAS_OP_SGEMM, MiniblasColMajor, MiniblasNoTrans,
                                  MiniblasNoTrans, -1, 1, 1) == NULL);
}

int main(void) {
    test_auto_sgemm_policy();
    test_auto_dgemm_streamk();
    test_dmma_tiles();
    test_families();
    test_targets();
    test_supported_api();
    return cpu_check_report("registry_auto");
}
