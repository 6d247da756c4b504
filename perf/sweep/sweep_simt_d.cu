/* SIMT dgemm (rung 10/11 kernel) configurations, same template (V = 2). */
#include "sweep_simt.cuh"
#define S(...) SW_WT(double, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_simt_d)[] = {
#if SW_PART == 0
    S(128, 128, 8, 64, 32, 8, 8, 3, 1, 1, "CURRENT D_WIDE (>= 528 tiles of 128x128)"),
    S(128, 64, 16, 64, 16, 8, 4, 3, 2, 1, "CURRENT D_BIG (>= 264 tiles of 128x64)"),
    S(128, 64, 8, 64, 16, 8, 4, 3, 2, 1, "rung 10's double config"),
    S(128, 128, 8, 64, 32, 8, 8, 2, 1, 1, "D_WIDE, 2 stages"),
    S(128, 128, 8, 64, 32, 8, 8, 4, 1, 1, "D_WIDE, 4 stages"),
#else
    S(128, 128, 16, 64, 32, 8, 8, 3, 1, 1, "D_WIDE, BK 16"),
    S(128, 128, 16, 64, 32, 8, 8, 2, 1, 1, "D_WIDE, BK 16 x 2 stages"),
    S(128, 128, 8, 32, 64, 8, 8, 3, 1, 1, "D_WIDE, warp 32x64"),
    S(64, 128, 16, 32, 32, 8, 4, 3, 2, 1, "64x128, 8 warps, thread 8x4, 2 blocks/SM"),
    S(128, 64, 16, 64, 16, 8, 4, 4, 2, 1, "D_BIG, 4 stages"),
#endif
};
const int SW_PART_NAME(sw_simt_d_n) = (int)(sizeof SW_PART_NAME(sw_simt_d) / sizeof SW_PART_NAME(sw_simt_d)[0]);
