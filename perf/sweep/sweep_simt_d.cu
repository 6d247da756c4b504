/* SPDX-License-Identifier: BSD-3-Clause */
/* SIMT dgemm (rung 10/11 kernel) configurations, same template (V = 2).
 * Two kernel options were also swept, fragment double-buffering in registers (RB = 2) and the
 * plain lane map (LMAP = 1), in 10 more rows (commit 82e29cb): no row beat the baseline
 * (20.9-22.7 TFLOP/s at 8192 on an H200), so the kernel does not have them.
 * 8x12 thread tiles do not fit: 192 x 96 (6 warps) spills 400 bytes, and 8-warp blocks with a
 * 96-wide side break the loaders' NT % (R/V) rule. */
#include "sweep_simt.cuh"
#define S(...) SW_WT(double, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_simt_d)[] = {
#if SW_PART == 0
    S(128, 128, 8, 64, 32, 8, 8, 3, 1, 1, "CURRENT D_WIDE (>= 528 tiles of 128x128)"),
    S(128, 64, 16, 64, 16, 8, 4, 3, 2, 1, "CURRENT D_BIG (>= 264 tiles of 128x64)"),
    S(128, 64, 8, 64, 16, 8, 4, 3, 2, 1, "rung 10's double config"),
    S(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, "BASELINE: the former best (D_WIDE, BK 16 x 2 stages)"),
#else
    S(128, 128, 16, 64, 32, 8, 8, 3, 1, 1, "D_WIDE, BK 16, 3 stages"),
    S(64, 128, 16, 64, 32, 8, 8, 2, 2, 1, "64x128, 4 warps 8x8, 2 blocks/SM"),
    S(128, 64, 16, 64, 32, 8, 8, 2, 2, 1, "128x64, 4 warps 8x8, 2 blocks/SM"),
#endif
};
const int SW_PART_NAME(sw_simt_d_n) = (int)(sizeof SW_PART_NAME(sw_simt_d) / sizeof SW_PART_NAME(sw_simt_d)[0]);
