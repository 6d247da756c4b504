/* SPDX-License-Identifier: BSD-3-Clause */
/* dgemm on the FP64 tensor cores with the swizzled, unpadded shared layout (tc_cfg SWZ =
 * true): without pads, 3 stages of cuBLAS's 32 x 64 x 32 tile take 72 KB and three blocks
 * fit in an SM (padded: 81 KB, two), 64 x 64 x 16 takes 4 stages at three per SM, 32 x 64 x 16
 * 4 stages at four per SM. The first rows are the padded tiles rung 12 runs (mid, small,
 * big), for comparison in the same run. Macro arguments as sweep_dmid.cu, /z = swizzled. */
#include "sweep_tc.cuh"
#define XS(...) SW_TC_XS(double, TC_OP_DMMA, __VA_ARGS__)
#define XZ(...) SW_TC_XZ(double, TC_OP_DMMA, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_dswz)[] = {
#if SW_PART == 0
    XS(64, 64, 16, 32, 32, 3, 3, 8, 3, 1, 1, "rung 12's mid tile (padded, XMMA loop)"),
    XS(32, 64, 16, 16, 32, 3, 4, 8, 2, 1, 1, "rung 12's small tile (padded, lean2 / stream)"),
    XZ(32, 64, 32, 16, 32, 3, 3, 8, 2, 1, 1, "cuBLAS's 1152 tile: 32x64x32 k8, 3/SM, stream loop"),
    XZ(32, 64, 32, 16, 32, 3, 3, 8, 0, 1, 1, "32x64x32 k8 3/SM, two sets"),
    XZ(32, 64, 32, 16, 32, 3, 3, 16, 0, 1, 1, "cuBLAS's 768 tile: 32x64x32 k16 3/SM, two sets"),
    XZ(32, 64, 32, 16, 32, 3, 3, 16, 2, 1, 1, "32x64x32 k16 3/SM, stream loop"),
    XZ(32, 32, 32, 16, 16, 3, 4, 8, 2, 1, 1, "32x32x32 4/SM, stream loop"),
#else
    XS(128, 64, 16, 64, 32, 3, 2, 8, 3, 1, 1, "rung 12's big tile (padded, XMMA loop)"),
    XZ(64, 64, 16, 32, 32, 4, 3, 8, 3, 1, 1, "cuBLAS's 640 tile: 64x64x16, 4 stages, 3/SM, XMMA"),
    XZ(64, 64, 16, 32, 32, 3, 3, 8, 3, 1, 1, "mid tile swizzled"),
    XZ(32, 64, 16, 16, 32, 4, 4, 8, 2, 1, 1, "small tile swizzled, 4 stages"),
    XZ(32, 64, 16, 16, 32, 3, 4, 8, 2, 1, 1, "small tile swizzled"),
    XS(128, 64, 16, 64, 32, 4, 2, 8, 3, 1, 1, "big tile, 4 stages (padded: the swizzle needs rows 4 apart per thread)"),
    XZ(64, 64, 32, 32, 32, 3, 2, 16, 0, 1, 1, "cuBLAS's 1920 tile: 64x64x32 k16, 2/SM, two sets"),
#endif
};
const int SW_PART_NAME(sw_dswz_n) = (int)(sizeof SW_PART_NAME(sw_dswz) / sizeof SW_PART_NAME(sw_dswz)[0]);
