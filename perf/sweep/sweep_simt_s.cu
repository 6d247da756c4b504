/* SPDX-License-Identifier: BSD-3-Clause */
/* SIMT sgemm (rung 10/11 kernel) configurations.
 * mb_wt_cfg<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB, KS>: (WM/TM) * (WN/TN) == 32 lanes, both
 * even; TM, TN % 4 == 0; NN loaders need NT % BK == 0 and NT % (BM/4) == 0. */
#include "sweep_simt.cuh"
#define S(...) SW_WT(float, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_simt_s)[] = {
#if SW_PART == 0
    S(128, 128, 16, 64, 32, 8, 8, 2, 2, 1, "CURRENT F_BIG (>= 200 tiles of 128x128) = rung 10"),
    S(64, 64, 32, 32, 64, 8, 8, 2, 2, 4, "CURRENT F_SLICED (< 200 tiles)"),
    S(128, 128, 16, 64, 32, 8, 8, 3, 2, 1, "F_BIG, 3 stages"),
    S(128, 128, 16, 64, 32, 8, 8, 4, 2, 1, "F_BIG, 4 stages"),
    S(128, 128, 32, 64, 32, 8, 8, 2, 2, 1, "F_BIG, BK 32"),
    S(128, 128, 8, 64, 32, 8, 8, 3, 2, 1, "F_BIG, BK 8 x 3 stages"),
    S(128, 128, 16, 32, 64, 8, 8, 2, 2, 1, "F_BIG, warp 32x64"),
    S(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, "F_BIG, 1 block/SM (no 128-register cap)"),
#else
    S(128, 256, 16, 64, 64, 8, 16, 2, 1, 1, "128x256, 8 warps of 64x64, thread 8x16"),
    S(256, 128, 16, 64, 64, 16, 8, 2, 1, 1, "256x128, 8 warps of 64x64, thread 16x8"),
    S(256, 128, 16, 64, 64, 16, 8, 3, 1, 1, "256x128 thread 16x8, 3 stages (a former best)"),
    S(256, 128, 8, 64, 64, 16, 8, 3, 1, 1, "256x128 thread 16x8, BK 8 x 3 stages"),
    S(128, 128, 16, 64, 64, 8, 16, 2, 2, 1, "128x128, 4 warps of 64x64, thread 8x16, 2 blocks/SM"),
    S(64, 64, 32, 32, 64, 8, 8, 3, 2, 4, "F_SLICED, 3 stages"),
    S(64, 64, 16, 32, 64, 8, 8, 2, 4, 2, "64x64, 2 k-slices (128 thr), 4 blocks/SM"),
    S(128, 64, 32, 64, 32, 8, 8, 2, 2, 2, "128x64, 2 k-slices (256 thr)"),
    S(32, 64, 32, 32, 64, 8, 8, 2, 4, 4, "32x64, 4 k-slices (128 thr), 4 blocks/SM"),
    S(64, 64, 64, 32, 64, 8, 8, 2, 1, 8, "64x64, 8 k-slices (512 thr), BK 64"),
#endif
};
const int SW_PART_NAME(sw_simt_s_n) = (int)(sizeof SW_PART_NAME(sw_simt_s) / sizeof SW_PART_NAME(sw_simt_s)[0]);
