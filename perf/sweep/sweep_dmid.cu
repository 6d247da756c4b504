/* SPDX-License-Identifier: BSD-3-Clause */
/* Mid-size dgemm on the FP64 tensor cores (512 <= n <= 3072, where a wave of big tiles does
 * not fill the GPU evenly): tile configurations x forced split-K slice counts S (cuBLAS uses
 * 32x64x32 tiles at 512-1536 and 64x64x16 in 4 stages at 640, per ncu).
 * Same template and options as sweep_dmma.cu (tc_cfg<double, BM, BN, BK, WM, WN, STAGES,
 * MINB, DK, PIPE, LEAN>); /S<n> = n slices of k, clamped to >= 4 k-tiles each and to the
 * sweep's workspace (SWEEP_WORK_MB, default 64). */
#include "sweep_tc.cuh"
#define XS(...) SW_TC_XS(double, TC_OP_DMMA, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_dmid)[] = {
#if SW_PART == 0
    XS(128, 64, 16, 64, 32, 3, 2, 8, 0, 1, 1, "big (128x64x16, 4 warps, 2/SM), no split"),
    XS(128, 64, 16, 64, 32, 3, 2, 8, 0, 1, 3, "big, 3 slices"),
    XS(128, 64, 32, 32, 32, 3, 1, 16, 2, 1, 1, "small (128x64x32, 8 warps, 1/SM), no split"),
    XS(32, 64, 16, 16, 32, 3, 4, 8, 0, 1, 1, "32x64x16, 4 warps of 16x32, k8, 4/SM"),
    XS(32, 64, 16, 16, 32, 3, 4, 8, 0, 1, 2, "32x64x16 4/SM, 2 slices"),
    XS(32, 64, 16, 16, 32, 3, 4, 8, 0, 1, 4, "32x64x16 4/SM, 4 slices"),
    XS(32, 64, 16, 16, 32, 4, 3, 8, 0, 1, 1, "32x64x16 k8, 4 stages, 3/SM"),
    XS(32, 64, 16, 16, 32, 3, 4, 8, 2, 1, 1, "32x64x16 4/SM, stream loop"),
    XS(32, 64, 16, 16, 32, 3, 4, 8, 2, 1, 2, "32x64x16 4/SM, stream loop, 2 slices"),
    XS(32, 32, 16, 16, 16, 3, 6, 8, 2, 1, 1, "32x32x16, 4 warps of 16x16, 6/SM, stream loop"),
    XS(32, 32, 16, 16, 16, 3, 6, 8, 0, 1, 1, "32x32x16 6/SM, two sets"),
    XS(32, 32, 32, 16, 16, 3, 3, 8, 2, 1, 1, "32x32x32 3/SM, stream loop"),
    XS(32, 64, 32, 16, 32, 3, 2, 16, 0, 1, 1, "cuBLAS's mid tile: 32x64x32, 4 warps of 16x32, k16, 2/SM"),
#else
    XS(64, 64, 16, 32, 32, 3, 3, 8, 0, 1, 1, "64x64x16, 4 warps of 32x32, 3/SM, k8, no split"),
    XS(64, 64, 16, 32, 32, 3, 3, 8, 0, 1, 2, "64x64 3/SM k8, 2 slices"),
    XS(64, 64, 16, 32, 32, 3, 3, 8, 0, 1, 4, "64x64 3/SM k8, 4 slices"),
    XS(64, 64, 16, 32, 32, 4, 3, 8, 0, 1, 1, "64x64 3/SM k8, 4 stages (cuBLAS's tile at 640^3)"),
    XS(64, 64, 16, 32, 32, 3, 3, 8, 2, 1, 1, "64x64 3/SM k8, stream loop"),
    XS(64, 32, 16, 32, 16, 3, 4, 8, 0, 1, 1, "64x32x16, 4 warps of 32x16, k8, 4/SM"),
    XS(64, 32, 16, 32, 16, 3, 4, 8, 0, 1, 2, "64x32x16 4/SM, 2 slices"),
    XS(64, 32, 16, 32, 16, 3, 4, 8, 0, 1, 4, "64x32x16 4/SM, 4 slices"),
    /* cuBLAS's mid tile runs 3 blocks per SM (73.7 KB, unpadded); padded, 3 stages of BK 32
     * take 81 KB (2/SM). The same bytes in flight per SM in 2 stages, 4/SM: */
    XS(32, 64, 32, 16, 32, 2, 4, 16, 0, 1, 1, "32x64x32 k16, 2 stages, 4/SM"),
    XS(32, 64, 32, 16, 32, 2, 4, 8, 0, 1, 1, "32x64x32 k8, 2 stages, 4/SM"),
    XS(32, 64, 32, 16, 32, 2, 4, 16, 2, 1, 1, "32x64x32 k16, 2 stages, 4/SM, stream loop"),
    XS(32, 64, 32, 16, 32, 2, 4, 8, 2, 1, 1, "32x64x32 k8, 2 stages, 4/SM, stream loop"),
    XS(128, 64, 32, 32, 32, 3, 1, 16, 0, 1, 1, "cuBLAS's 1024 tile: 128x64x32, 8 warps 32x32, k16, two sets"),
    XS(64, 64, 32, 32, 32, 3, 2, 16, 0, 1, 1, "cuBLAS's 1920 tile: 64x64x32 k16, 2/SM, two sets"),
    XS(64, 64, 32, 32, 32, 3, 2, 16, 2, 1, 1, "64x64x32 k16, 2/SM, stream loop"),
    XS(64, 64, 32, 32, 32, 2, 3, 16, 0, 1, 1, "64x64x32 k16, 2 stages, 3/SM"),
#endif
};
const int SW_PART_NAME(sw_dmid_n) = (int)(sizeof SW_PART_NAME(sw_dmid) / sizeof SW_PART_NAME(sw_dmid)[0]);
