/*
 * Rung 12, dmma (dgemm only): the FP64 tensor cores. The SIMT rungs before it issue one DFMA
 * per thread per multiply-add, and an H100/H200 reaches at most ~34 TFLOP/s that way; the FP64
 * tensor cores do a 16x8x8 block of multiply-adds per warp instruction
 * (mma.sync.aligned.m16n8k8.f64, sm_90; four m8n8k4 on sm_80) for a peak of ~67 TFLOP/s, with
 * the same IEEE double-precision fused multiply-adds (same tolerances as any dgemm rung).
 * Operands are staged global -> shared by a 3-stage cp.async pipeline (16-byte copies when
 * the pointer and leading dimension allow it; tile parts outside the matrix are zeroed), so
 * the loads of k-tile kt+2 overlap the tensor-core work on k-tile kt.
 * Tiles, BK = 16 doubles, 8 warps, chosen per call: 128x128 blocks (warps of 32x64) when
 * there are at least two waves of them (half the L2 -> SM traffic per flop of 128x64), else
 * 128x64 blocks (warps of 32x32) so that mid sizes (n ~ 1024) still fill all 132 SMs.
 * The machinery is shared with the TF32 rungs: tc_common.cuh.
 * nvcc -arch=sm_90 -Xptxas -v (no spills, no static shared memory):
 *   128x128: 245..254 registers, dynamic shared memory 3 x (33 .. 40) KB = 99 .. 120 KB
 *   128x64:  174..194 registers, dynamic shared memory 3 x (25 .. 30) KB = 75 .. 90 KB
 * Measured: TBD (cuBLAS DGEMM H200: 60.7 / 61.4 TFLOP/s at n = 4096 / 8192).
 */
#include "tc_common.cuh"

typedef tc_cfg<double, 128, 128, 16, 32, 64, 3, 1> dmma_big_cfg;
typedef tc_cfg<double, 128, 64, 16, 32, 32, 3, 1> dmma_small_cfg;

/* Two waves of 128x128 blocks on a 132-SM H100/H200 (one block per SM). */
#define DMMA_BIG_MIN_TILES 264

extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    if (mb_cdiv(p->m, 128) * mb_cdiv(p->n, 128) >= DMMA_BIG_MIN_TILES)
        return tc_gemm_launch<dmma_big_cfg, TC_OP_DMMA>(p, s);
    return tc_gemm_launch<dmma_small_cfg, TC_OP_DMMA>(p, s);
}
