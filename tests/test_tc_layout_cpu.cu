/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shared-memory layouts of dgemm rung 12's tiles (kernels/gemm/dmma_tiles.cuh: padded big
 * tile, swizzled mid, small and tiny tiles; tc_config.cuh's index helpers), checked on the CPU
 * for all four operand layouts (A and B each M/N- or K-contiguous):
 *   - one stage of A (B) holds every element of the tile at its own index, inside the stage;
 *   - every m16n8k8 f64 fragment read of every warp, k step and register (tc_mma.cuh's
 *     tc_gather_a1_f64 / tc_gather_b1_f64 addresses) is free of bank conflicts: each half-warp
 *     (one shared-memory wavefront of 8-byte loads) touches 16 distinct 8-byte bank pairs;
 *   - the lean copies (tc_copy_lean, as tc_mainloop_f64_lean and tc_mainloop_f64_xmma set them
 *     up: one base per thread, then ROWS rows at a time) write each 16-byte chunk where the
 *     index helpers say its two elements are.
 * A layout that broke any of these would give wrong results (the first, the third) or lose
 * the rate of the tile (the second) without any test on a GPU noticing the latter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu_check.h"
#include "gemm/dmma_tiles.cuh"

/* Index of element (outer o, inner i) of operand X's tile: A (row m, col k), B (row k, col n). */
template <class Cfg, bool IS_A, bool KC>
static int idx(int o, int i) {
    if (IS_A) return KC ? tc_sa_index<Cfg, true>(o, i) : tc_sa_index<Cfg, false>(i, o);
    return KC ? tc_sb_index<Cfg, true>(i, o) : tc_sb_index<Cfg, false>(o, i);
}

template <class Cfg, bool IS_A, bool KC>
static void check_operand(const char *tile) {
    const char *opn = IS_A ? "A" : "B";
    const int MN = IS_A ? Cfg::BM : Cfg::BN, BK = Cfg::BK;
    const int OUT = KC ? MN : BK, IN = KC ? BK : MN; /* rows of the stage, elements per row */
    const int LDS = KC ? Cfg::LD_K : (IS_A ? Cfg::LD_AM : Cfg::LD_BN);
    const int E = IS_A ? Cfg::a_elems(KC) : Cfg::b_elems(KC);
    CHECKF(E % 16 == 0, "%s %s%s: stage of %d elements (bases must stay 128-byte aligned)", tile,
           opn, KC ? " K-contiguous" : "", E);

    /* each element at its own index inside the stage */
    unsigned char *seen = (unsigned char *)calloc((size_t)E, 1);
    int outside = 0, twice = 0;
    for (int o = 0; o < OUT; ++o)
        for (int i = 0; i < IN; ++i) {
            const int x = idx<Cfg, IS_A, KC>(o, i);
            if (x < 0 || x >= E)
                ++outside;
            else if (seen[x]++)
                ++twice;
        }
    free(seen);
    CHECKF(outside == 0 && twice == 0, "%s %s%s: %d indices outside the stage, %d shared", tile,
           opn, KC ? " K-contiguous" : "", outside, twice);

    /* fragment reads: element (m or n, k) as tc_gather_a1_f64 / tc_gather_b1_f64 address it */
    const int W = IS_A ? Cfg::WM : Cfg::WN, WARPS = MN / W;
    const int TILES = IS_A ? Cfg::MI : Cfg::NI, REGS = IS_A ? 4 : 2;
    int conflicted = 0, reads = 0;
    for (int w = 0; w < WARPS; ++w)
        for (int t = 0; t < TILES; ++t)
            for (int kk = 0; kk < BK; kk += 8)
                for (int v = 0; v < REGS; ++v)
                    for (int half = 0; half < 2; ++half) {
                        int banks[16] = {0};
                        for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
                            const int mn = IS_A ? w * W + t * 16 + (lane >> 2) + 8 * (v & 1)
                                                : w * W + t * 8 + (lane >> 2);
                            const int k = IS_A ? kk + (lane & 3) + 4 * (v >> 1)
                                               : kk + (lane & 3) + 4 * v;
                            const int x =
                                KC ? idx<Cfg, IS_A, KC>(mn, k) : idx<Cfg, IS_A, KC>(k, mn);
                            ++banks[x % 16];
                        }
                        int ok = 1;
                        for (int b = 0; b < 16; ++b) ok &= banks[b] == 1;
                        conflicted += !ok;
                        ++reads;
                    }
    CHECKF(conflicted == 0, "%s %s%s: %d of %d half-warp fragment reads with a bank conflict",
           tile, opn, KC ? " K-contiguous" : "", conflicted, reads);

    /* lean copies: thread tid's chunk `it` lands at base + it * ROWS * LDS */
    const int CPR = IN / 2, ROWS = Cfg::NTHREADS / CPR;
    int wrong = 0;
    for (int tid = 0; tid < Cfg::NTHREADS; ++tid) {
        const int o = tid / CPR, i = tid % CPR * 2;
        const int base = o * LDS + tc_swz<Cfg::SWZ>(o, i);
        for (int it = 0; it < OUT / ROWS; ++it) {
            const int d = base + it * ROWS * LDS, r = o + it * ROWS;
            wrong += d != idx<Cfg, IS_A, KC>(r, i) || d + 1 != idx<Cfg, IS_A, KC>(r, i + 1);
        }
    }
    CHECKF(wrong == 0, "%s %s%s: %d lean-copy chunks at the wrong place", tile, opn,
           KC ? " K-contiguous" : "", wrong);
}

template <class Cfg>
static void check_tile(const char *tile) {
    check_operand<Cfg, true, false>(tile);
    check_operand<Cfg, true, true>(tile);
    check_operand<Cfg, false, false>(tile);
    check_operand<Cfg, false, true>(tile);
}

/* The swizzle itself: a 16-byte chunk stays whole, rows 4 apart share it, and it permutes the
 * positions of a row. */
static void check_swz(void) {
    int bad = 0;
    for (int o = 0; o < 64; ++o) {
        int seen[64] = {0};
        for (int i = 0; i < 64; ++i) {
            const int p = tc_swz<true>(o, i);
            bad += p < 0 || p >= 64 || seen[p]++ || p / 16 != i / 16;
            bad += (i % 2 == 0) && tc_swz<true>(o, i + 1) != p + 1;
            bad += tc_swz<true>(o + 4, i) != p;
        }
        for (int i = 0; i < 64; ++i) bad += tc_swz<false>(o, i) != i;
    }
    CHECKF(bad == 0, "tc_swz: %d violations", bad);
}

int main(void) {
    check_swz();
    check_tile<dmma_big_cfg>("big");
    check_tile<dmma_big_step_cfg>("big (STEP)");
    check_tile<dmma_mid_cfg>("mid");
    check_tile<dmma_mid_xmma_cfg>("mid (XMMA)");
    check_tile<dmma_small_cfg>("small");
    check_tile<dmma_small_xmma_cfg>("small (XMMA)");
    check_tile<dmma_tiny_cfg>("tiny");
    return cpu_check_report("test_tc_layout_cpu");
}
