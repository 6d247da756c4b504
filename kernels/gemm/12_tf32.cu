/*
 * Rung 13, tf32 (sgemm only, REDUCED PRECISION): the TF32 tensor cores. Each operand is
 * rounded to TF32 (cvt.rna.tf32.f32: 10 explicit mantissa bits, the fp32 exponent range) as it
 * is read from shared memory into a fragment, and multiplied by mma.sync.aligned.m16n8k8.tf32
 * with FP32 accumulation: a 16x8x8 block of products per warp instruction, ~8x the FP32 SIMT
 * peak. The price is the operand rounding: relative error ~1e-4..1e-3 instead of ~1e-6, so the
 * rung is flagged MB_RUNG_REDUCED_PRECISION and runs only when the handle's math mode allows
 * it (miniblas_set_math_mode / MINIBLAS_MATH_MODE=tf32).
 * Same pipeline as rung 12 (tc_common.cuh): 3-stage cp.async, zeroed edges; the next stage's
 * copies are issued after the first k step's mma, interior tiles copied without bounds checks.
 * Tiles: block 128x128, BK = 32 floats, 8 warps of 64x32 (4x4 mma tiles each).
 * nvcc -arch=sm_90 -Xptxas -v: 160..192 registers, no spills; dynamic shared
 *   memory 3 x (34 .. 36) KB = 102 .. 108 KB (one block of 8 warps per SM).
 * Run 3 (H200, before the copy reordering): 41.0 / 87.4 / 90.2 / 92.1 TFLOP/s at n = 1024 /
 * 2048 / 4096 / 8192, 47.4 at 4097x4095x4099: 22-35% of cuBLAS TF32 (140 / 348 / 399 / 411).
 * What limits it: 24 scalar LDS.32 and 24 cvt.rna per 16 mma per warp and k step (shared-
 * memory wavefronts ~1.5 per mma; operands not pre-rounded), one block of 8 warps per SM.
 */
#include "tc_common.cuh"

typedef tc_cfg<float, 128, 128, 32, 64, 32, 3, 1> tf32_cfg;

extern "C" cudaError_t mb_sgemm_tf32(const void *a, cudaStream_t s) {
    return tc_gemm_launch<tf32_cfg, TC_OP_TF32>((const mb_gemm_args *)a, s);
}
