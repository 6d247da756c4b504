/* FP64 tensor-core dgemm (TC_OP_DMMA) configurations. tc_cfg<double, BM, BN, BK, WM, WN,
 * STAGES, MINB>. Limits from tc_common.cuh: BK % 16 == 0 (pad rule LD_K % 16 == 4, so BK = 8 is
 * impossible), BM, BN % 16 == 0; warp tile WM x WN holds WM/16 * WN/8 * 4 doubles of
 * accumulator: 32x64 / 64x32 = 128 registers, 64x64 = 256 (impossible), so a block of 8 warps
 * (the most that fits at ~255 registers) is at most 128x128; 128x256 / 256x128 cannot be built. */
#include "sweep_tc.cuh"
#define D(...) SW_TC(double, TC_OP_DMMA, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_dmma)[] = {
#if SW_PART == 0
    D(128, 128, 16, 32, 64, 4, 1, "big until session 3 (>= 264 tiles of 128x128)"),
    D(128, 64, 32, 32, 32, 3, 1, "CURRENT small (< 264 tiles)"),
    D(128, 128, 16, 32, 64, 3, 1, "big, 3 stages"),
    D(128, 128, 16, 32, 64, 5, 1, "big, 5 stages"),
    D(128, 128, 16, 32, 64, 6, 1, "big, 6 stages (219 KB)"),
    D(128, 128, 32, 32, 64, 3, 1, "CURRENT big since session 3: BK 32 x 3 stages"),
    D(128, 128, 16, 64, 32, 4, 1, "big, warp 64x32"),
    D(128, 128, 32, 64, 32, 3, 1, "big, warp 64x32, BK 32 x 3 stages"),
#else
    D(128, 128, 16, 32, 32, 4, 1, "big, 16 warps of 32x32 (regs capped at 128)"),
    D(128, 64, 16, 32, 64, 4, 2, "128x64, 4 warps of 32x64, 2 blocks/SM"),
    D(128, 64, 16, 64, 32, 4, 2, "128x64, 4 warps of 64x32, 2 blocks/SM"),
    D(64, 128, 16, 32, 64, 3, 2, "64x128, 4 warps of 32x64, 2 blocks/SM"),
    D(128, 64, 16, 32, 32, 4, 2, "small, BK 16 x 4 stages, 2 blocks/SM (regs <= 128)"),
    D(128, 64, 32, 32, 32, 4, 1, "small, 4 stages"),
    D(128, 64, 16, 32, 32, 5, 1, "small, BK 16 x 5 stages"),
    D(64, 64, 16, 32, 32, 3, 3, "64x64, 4 warps of 32x32, 3 blocks/SM"),
#endif
};
const int SW_PART_NAME(sw_dmma_n) = (int)(sizeof SW_PART_NAME(sw_dmma) / sizeof SW_PART_NAME(sw_dmma)[0]);
