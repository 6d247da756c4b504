/* SPDX-License-Identifier: BSD-3-Clause */
/* 3xTF32 sgemm (TC_OP_TF32X3) configurations. tc_cfg<float, BM, BN, BK, WM, WN, STAGES, MINB>.
 * Limits: BM, BN, BK % 32 == 0 (pads); shared memory = (STAGES + 2 split planes) x stage, so
 * 128x128 allows BK 32 with <= 4 stages only (BK 64 would need 272 KB at 2 stages); a warp
 * keeps MI*NI*4 accumulators plus as many partial sums: 64x32 / 32x64 = 128 registers,
 * 64x64 = 256 (impossible). */
#include "sweep_tc.cuh"
#define X(...) SW_TC(float, TC_OP_TF32X3, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_tf32x3)[] = {
#if SW_PART == 0
    X(128, 128, 32, 64, 32, 3, 1, "CURRENT"),
    X(128, 128, 32, 64, 32, 4, 1, "4 stages (210 KB)"),
    X(128, 128, 32, 64, 32, 2, 1, "2 stages"),
    X(128, 128, 32, 32, 64, 3, 1, "warp 32x64"),
    X(128, 128, 32, 32, 64, 4, 1, "warp 32x64, 4 stages"),
    X(128, 128, 32, 32, 32, 3, 1, "16 warps of 32x32 (regs capped at 128)"),
    X(128, 128, 32, 32, 32, 4, 1, "16 warps of 32x32, 4 stages"),
#else
    X(128, 64, 32, 64, 32, 2, 2, "128x64, 4 warps, 2 stages, 2 blocks/SM"),
    X(128, 64, 32, 32, 32, 3, 1, "128x64, 8 warps of 32x32"),
    X(128, 64, 32, 32, 32, 4, 1, "128x64, 8 warps of 32x32, 4 stages"),
    X(64, 128, 32, 32, 64, 2, 2, "64x128, 4 warps, 2 stages, 2 blocks/SM"),
    X(64, 128, 32, 32, 32, 3, 1, "64x128, 8 warps of 32x32"),
    X(64, 64, 32, 32, 32, 3, 2, "64x64, 4 warps of 32x32, 2 blocks/SM"),
    X(128, 64, 64, 32, 32, 2, 1, "128x64, BK 64 x 2 stages, 8 warps of 32x32"),
#endif
};
const int SW_PART_NAME(sw_tf32x3_n) = (int)(sizeof SW_PART_NAME(sw_tf32x3) / sizeof SW_PART_NAME(sw_tf32x3)[0]);
