/* SPDX-License-Identifier: BSD-3-Clause */
/* FP64 tensor-core dgemm (TC_OP_DMMA) configurations. tc_cfg<double, BM, BN, BK, WM, WN,
 * STAGES, MINB[, DK, PIPE, LEAN]>. Limits from tc_common.cuh: BK % 16 == 0 (pad rule
 * LD_K % 16 == 4, so BK = 8 is impossible), BK % DK == 0, BM, BN % 16 == 0; warp tile WM x WN
 * holds WM/16 * WN/8 * 4 doubles of accumulator: 32x64 / 64x32 = 128 registers, 64x64 = 256
 * (impossible), so a block of 8 warps (the most that fits at ~255 registers) is at most
 * 128x128; 128x256 / 256x128 cannot be built.
 * Options (name suffix kDKpPIPElLEAN; D rows are k4p0l0):
 *   DK    mma.sync .f64 depth: 4 = m16n8k4 (current), 8 = m16n8k8, 16 = m16n8k16 (a quarter of
 *         the mma instructions and accumulator register traffic of k4 per k)
 *   PIPE  0 = two fragment register sets, step s + 1 loaded during step s (current);
 *         1 = one set (load, then mma); 2 = stream: A of a step held, B one n tile ahead,
 *         barrier moved before the stage's last mma column (no LDS stall after it)
 *   LEAN  1 = interior-tile copies from one base + one stride per thread (fewer live
 *         registers: the k16 stream kernels are at 255 registers)
 * Which row tests what: see the notes ("vs CURRENT" = the CURRENT row of the same block). */
#include "sweep_tc.cuh"
#define D(...) SW_TC(double, TC_OP_DMMA, __VA_ARGS__)
#define X(...) SW_TC_X(double, TC_OP_DMMA, __VA_ARGS__)
const sw_cfg SW_PART_NAME(sw_dmma)[] = {
#if SW_PART == 0
    /* cuBLAS's own DGEMM tile (ncu: 128x64x16, 4 warps of 64x32, 2 blocks/SM, m16n8k8,
     * 3 stages) and its neighbours. The 128x128 tiles of 8 warps (slower on many waves of
     * tiles; on at most one wave rung 12's deep tile, docs/ladders/gemm.md) and the rows of
     * 32x32 warps are in the docs too ("Tried, did not pay"); the row after the 64x32 rows
     * is the former big tile, for reference. */
    /* Twice the warps per SM on the same block tiles: 8 or 16 warps of 32x32 (64 accumulator
     * registers) at 128 registers a thread, 16 warps per SM where the big tile has 8. */
    X(128, 64, 16, 32, 32, 3, 2, 8, 1, 1, "cuBLAS's block, 8 warps of 32x32, 2 blocks/SM, one set"),
    X(128, 64, 16, 32, 32, 3, 2, 8, 2, 1, "cuBLAS's block, 8 warps of 32x32, 2 blocks/SM, stream"),
    X(128, 64, 16, 32, 32, 3, 2, 8, 3, 1, "cuBLAS's block, 8 warps of 32x32, 2 blocks/SM, XMMA"),
    X(128, 64, 16, 32, 32, 4, 2, 8, 1, 1, "cuBLAS's block, 8 warps of 32x32, 4 stages, one set"),
    X(128, 128, 16, 32, 32, 3, 1, 8, 1, 1, "128x128, 16 warps of 32x32, one set"),
    X(128, 128, 16, 32, 32, 3, 1, 8, 3, 1, "128x128, 16 warps of 32x32, XMMA"),
    X(128, 128, 16, 32, 32, 4, 1, 8, 3, 1, "128x128, 16 warps of 32x32, XMMA, 4 stages"),
    X(256, 64, 16, 32, 32, 3, 1, 8, 3, 1, "256x64, 16 warps of 32x32, XMMA"),
    X(128, 128, 16, 32, 32, 2, 1, 8, 3, 1, "128x128, 16 warps of 32x32, XMMA, 2 stages"),
    X(128, 64, 16, 64, 32, 3, 2, 8, 3, 1, "rung 12's big tile on its XMMA loop"),
    X(128, 64, 16, 64, 32, 3, 2, 8, 0, 1, "CURRENT big: cuBLAS's shape, k8, two sets, lean"),
    X(128, 64, 16, 64, 32, 3, 2, 8, 2, 1, "cuBLAS's shape, k8, stream loop"),
    X(128, 64, 16, 64, 32, 4, 2, 8, 2, 1, "cuBLAS's shape, k8, stream loop, 4 stages"),
    X(128, 64, 16, 64, 32, 3, 2, 16, 2, 1, "cuBLAS's shape, k16, stream loop"),
    X(128, 64, 16, 64, 32, 3, 2, 8, 1, 1, "cuBLAS's shape, k8, one set"),
    X(128, 64, 16, 64, 32, 4, 2, 8, 0, 1, "cuBLAS's shape, 4 stages"),
    X(128, 64, 16, 64, 32, 3, 2, 16, 1, 1, "cuBLAS's shape, k16, one set"),
    X(128, 64, 32, 64, 32, 2, 2, 8, 0, 1, "cuBLAS's shape with BK 32 x 2 stages"),
    X(128, 128, 32, 64, 32, 3, 1, 16, 1, 1, "former big: 128x128x32, 8 warps, k16, one set"),
    /* Warp tiles of 32x64 (2 x 8 mma tiles), whose A fragments are half those of
     * 64x32, so the stream loop (A held, B one column ahead) fits in registers. */
    X(128, 64, 16, 32, 64, 3, 2, 8, 2, 1, "cuBLAS's block, warps 32x64, k8, stream loop"),
    X(128, 64, 16, 32, 64, 3, 2, 16, 2, 1, "warps 32x64, k16, stream loop"),
    X(128, 64, 16, 32, 64, 4, 2, 8, 2, 1, "warps 32x64, k8, stream loop, 4 stages"),
    X(128, 64, 16, 32, 64, 3, 2, 8, 1, 1, "warps 32x64, k8, one set"),
    X(64, 128, 16, 32, 64, 3, 2, 8, 2, 1, "64x128, warps 32x64, k8, stream loop"),
    X(128, 128, 16, 32, 64, 3, 1, 8, 2, 1, "128x128, 8 warps of 32x64, k8, stream loop"),
#else
    /* The small tile (< 264 tiles) and other shapes. */
    D(128, 64, 32, 32, 32, 3, 1, "CURRENT small (< 264 tiles)"),
    X(128, 64, 32, 32, 32, 3, 1, 16, 0, 0, "small, m16n8k16, two sets"),
    X(128, 64, 32, 32, 32, 3, 1, 16, 1, 0, "small, m16n8k16, one set"),
    X(128, 64, 32, 32, 32, 3, 1, 16, 2, 0, "small, m16n8k16 stream"),
    X(128, 64, 32, 32, 32, 3, 1, 16, 2, 1, "small, m16n8k16 stream, lean"),
    X(128, 64, 32, 32, 32, 3, 1, 8, 0, 0, "small, m16n8k8, two sets"),
    X(128, 64, 32, 32, 32, 4, 1, 16, 2, 1, "small, m16n8k16 stream, lean, 4 stages"),
    D(64, 64, 16, 32, 32, 3, 3, "64x64, 4 warps of 32x32, 3 blocks/SM (a former best at 1024)"),
    X(64, 64, 16, 32, 32, 3, 2, 16, 1, 1, "64x64 2 blocks/SM, m16n8k16, one set, lean"),
    X(64, 64, 16, 32, 32, 3, 2, 16, 2, 1, "64x64 2 blocks/SM, m16n8k16 stream, lean"),
    X(64, 64, 32, 32, 32, 3, 2, 16, 2, 1, "64x64 BK 32, 2 blocks/SM, m16n8k16 stream, lean"),
    X(128, 128, 16, 32, 64, 4, 1, 4, 2, 1, "an earlier big tile (BK 16 x 4), k4 stream, lean"),
    X(128, 128, 32, 32, 64, 3, 1, 4, 1, 0, "big, k4, one set (control for PIPE 1)"),
#endif
};
const int SW_PART_NAME(sw_dmma_n) = (int)(sizeof SW_PART_NAME(sw_dmma) / sizeof SW_PART_NAME(sw_dmma)[0]);
