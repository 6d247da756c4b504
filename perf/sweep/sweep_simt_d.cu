/* SIMT dgemm (rung 10/11 kernel) configurations, same template (V = 2).
 * X rows add 10_warptiled.cu's options RB (2 = fragments double-buffered in registers, the
 * barrier moved under the last k-step's DFMAs) and LMAP (1 = plain lane map, no pairs of lanes
 * share LDS.128 addresses in A). What each group of rows asks (numbers: the sweep's index i):
 *   RB:   4 vs 3, 5 vs 8, 7 vs 6, 9 vs 0, 11 vs 10 (12, 13: RB 2 with another warp tile / BK):
 *         were the 8x8 kernels (8 warps/SM at ~250 registers) losing time at the k-tile barrier
 *         and on fragment-load latency?
 *   LMAP: 6 vs 3 (and 7 vs 4): does sm_90 pack the returns of an LDS.128 that pairs of lanes
 *         share? Equal rates = no packing (then 8x8 doubles need 16 LDS.128 registers per 64
 *         DFMA per warp, exactly the 128 B/clk/SM return rate at the FP64 peak), or the return
 *         path is not what binds.
 *   2 blocks/SM of 4 warps (10, 11, 14): the same 8 warps/SM, but two blocks whose
 *         barriers and copy bursts fall at different times.
 * 8x12 thread tiles do not fit: 192 x 96 (6 warps) spills 400 bytes, and 8-warp blocks with a
 * 96-wide side break the loaders' NT % (R/V) rule. */
#include "sweep_simt.cuh"
#define S(...) SW_WT(double, __VA_ARGS__)
#define X(...) SW_WTX(double, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_simt_d)[] = {
#if SW_PART == 0
    S(128, 128, 8, 64, 32, 8, 8, 3, 1, 1, "CURRENT D_WIDE (>= 528 tiles of 128x128)"),
    S(128, 64, 16, 64, 16, 8, 4, 3, 2, 1, "CURRENT D_BIG (>= 264 tiles of 128x64)"),
    S(128, 64, 8, 64, 16, 8, 4, 3, 2, 1, "rung 10's double config"),
    S(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, "BASELINE: session 3's best (D_WIDE, BK 16 x 2 stages)"),
    X(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, 2, 0, "baseline + RB 2"),
    X(128, 128, 16, 64, 32, 8, 8, 3, 1, 1, 2, 0, "baseline + RB 2, 3 stages (vs 8)"),
    X(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, 1, 1, "baseline, plain lane map (vs 3)"),
    X(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, 2, 1, "baseline + RB 2, plain lane map (vs 4)"),
#else
    S(128, 128, 16, 64, 32, 8, 8, 3, 1, 1, "D_WIDE, BK 16, 3 stages"),
    X(128, 128, 8, 64, 32, 8, 8, 3, 1, 1, 2, 0, "CURRENT D_WIDE + RB 2 (vs 0)"),
    S(64, 128, 16, 64, 32, 8, 8, 2, 2, 1, "64x128, 4 warps 8x8, 2 blocks/SM"),
    X(64, 128, 16, 64, 32, 8, 8, 2, 2, 1, 2, 0, "64x128, 4 warps 8x8, 2 blocks/SM + RB 2"),
    X(128, 128, 16, 32, 64, 8, 8, 2, 1, 1, 2, 0, "baseline, warp 32x64 + RB 2"),
    X(128, 128, 32, 64, 32, 8, 8, 2, 1, 1, 2, 0, "BK 32 + RB 2 (half the barriers)"),
    S(128, 64, 16, 64, 32, 8, 8, 2, 2, 1, "128x64, 4 warps 8x8, 2 blocks/SM"),
#endif
};
const int SW_PART_NAME(sw_simt_d_n) = (int)(sizeof SW_PART_NAME(sw_simt_d) / sizeof SW_PART_NAME(sw_simt_d)[0]);
