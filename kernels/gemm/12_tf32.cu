/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 12 of the sgemm ladder, tf32 (sgemm only, REDUCED PRECISION): the TF32 tensor cores.
 * Each operand is rounded to TF32 (cvt.rna.tf32.f32: 10 explicit mantissa bits, the FP32
 * exponent range) as it is read from shared memory into a fragment, and multiplied by
 * mma.sync.aligned.m16n8k8.tf32 with FP32 accumulation: a 16x8x8 block of products per warp
 * instruction. Same pipeline as dmma (tc_common.cuh): 3-stage cp.async, zeroed edges, the
 * next stage's copies issued after the first k step's mma, interior tiles copied without
 * bounds checks. Tiles: block 128x128, BK = 32 floats, 8 warps of 64x32.
 *
 * Why: the tensor cores' throughput is several times the FP32 SIMT peak.
 * Limit: accuracy: the operand rounding gives a relative error about 1e-4 instead of 1e-6,
 * so the rung is flagged MB_RUNG_REDUCED_PRECISION and runs only when the handle's math mode
 * allows it (miniblas_set_math_mode / MINIBLAS_MATH_MODE=tf32); `auto` never picks it
 * otherwise. Speed: far from cuBLAS's TF32 (Hopper's wgmma + TMA path): 24 scalar shared
 * loads and 24 conversions per 16 mma per warp and k step, one block of 8 warps per SM.
 * Resources: 256 threads, about 200-255 registers (perf/results/ptxas-sm90.log), dynamic
 * shared memory 3 stages x 34-36 KB.
 * Measured: docs/ladders/gemm.md.
 */
#include "tc_common.cuh"

typedef tc_cfg<float, 128, 128, 32, 64, 32, 3, 1> tf32_cfg;

extern "C" cudaError_t mb_sgemm_tf32(const void *a, cudaStream_t s) {
    return tc_gemm_launch<tf32_cfg, TC_OP_TF32>((const mb_gemm_args *)a, s);
}
