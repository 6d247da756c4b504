/* SPDX-License-Identifier: BSD-3-Clause */
/* dgemm on the FP64 tensor cores with the swizzled, unpadded shared layout (tc_cfg SWZ =
 * true): without pads, 3 stages of cuBLAS's 32 x 64 x 32 tile take 72 KB and three blocks
 * fit in an SM (padded: 81 KB, two), 64 x 64 x 16 takes 4 stages at three per SM, 32 x 64 x 16
 * 4 stages at four per SM. The stream-loop rows (PP = 2) with BK = 16 or 32 run the lean loop
 * (tc_mainloop_f64_lean) on their interior tiles. Rows 0 and 7 are rung 12's padded mid and
 * big tiles, for comparison in the same run. Macro arguments as sweep_dmid.cu, /z =
 * swizzled. */
#include "sweep_tc.cuh"
#define XS(...) SW_TC_XS(double, TC_OP_DMMA, __VA_ARGS__)
#define XZ(...) SW_TC_XZ(double, TC_OP_DMMA, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_dswz)[] = {
#if SW_PART == 0
    XS(64, 64, 16, 32, 32, 3, 3, 8, 3, 1, 1, "rung 12's mid tile (padded, XMMA loop)"),
    XZ(32, 64, 16, 16, 32, 3, 4, 8, 2, 1, 1, "rung 12's small tile (swizzled, lean loop)"),
    XZ(32, 64, 32, 16, 32, 3, 3, 8, 2, 1, 1, "cuBLAS's 1152 tile: 32x64x32, 3/SM, lean loop"),
    XZ(32, 64, 32, 16, 32, 2, 4, 8, 2, 1, 1, "32x64x32, 2 stages, 4/SM, lean loop"),
    XZ(32, 64, 16, 16, 32, 4, 4, 8, 2, 1, 1, "small tile, 4 stages"),
    XZ(32, 32, 32, 16, 16, 3, 3, 8, 2, 1, 1, "rung 12's tiny tile (swizzled, lean loop)"),
    XZ(32, 32, 32, 16, 16, 3, 4, 8, 2, 1, 1, "tiny tile 4/SM"),
#else
    XS(128, 64, 16, 64, 32, 3, 2, 8, 3, 1, 1, "rung 12's big tile (padded, XMMA loop)"),
    XZ(64, 64, 32, 32, 32, 2, 3, 8, 2, 1, 1, "64x64x32, 2 stages, 3/SM, lean loop"),
    XZ(64, 64, 32, 32, 32, 3, 2, 8, 2, 1, 1, "64x64x32, 3 stages, 2/SM, lean loop"),
    XZ(64, 64, 16, 32, 32, 4, 3, 8, 2, 1, 1, "64x64x16, 4 stages, 3/SM, lean loop"),
    XZ(64, 64, 16, 32, 32, 3, 3, 8, 2, 1, 1, "64x64x16, 3/SM, lean loop"),
    XZ(64, 32, 32, 32, 16, 3, 3, 8, 2, 1, 1, "64x32x32 (warps 32x16), 3/SM, lean loop"),
    XZ(64, 64, 16, 32, 32, 3, 3, 8, 3, 1, 1, "mid tile swizzled (XMMA loop)"),
#endif
};
const int SW_PART_NAME(sw_dswz_n) =
    (int)(sizeof SW_PART_NAME(sw_dswz) / sizeof SW_PART_NAME(sw_dswz)[0]);
