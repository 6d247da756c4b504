/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 13 of the sgemm ladder, tf32x3 (FP32 results on TF32 tensor cores, "3xTF32"): rung 12
 * with the rounding error compensated. Each operand is split into two TF32 numbers, big = tf32(x),
 * small = tf32(x - big) (x - big is exact), and a*b = a_s*b_b + a_b*b_s + a_b*b_b (small terms
 * first; a_s*b_s, <= 2^-22 |ab|, dropped): three m16n8k8 mma per product, still far under the
 * TF32 peak / 3. Accumulation: the tensor core adds in FP32 but truncates; an accumulator kept
 * in the mma over all of K had 12x (K = 256) .. 26x (K = 4096) cuBLAS FP32's error, so each
 * k step's three mma go into a fresh accumulator added to the FP32 one with round-to-nearest
 * FADDs (tc_warp_mma_x3): ~0.35..0.45x a sequential FP32 FMA loop's error in a CPU model, <= 2x
 * cuBLAS FP32 in tests/test_tf32_accuracy_gpu.c. So NOT flagged reduced precision.
 * The split is done once per block and stage into big and small planes in shared memory
 * (tc_split_stage: 4 warps read each A element, 2 each B element; splitting per fragment did
 * the work 2.7x over); the three products are issued pass by pass over the warp's 16 tiles.
 * Range guard (x3guard.cuh): tc_split_tile checks each element it splits; a tile whose panels
 * hold an element other than 0 or 2^-50 <= |x| <= 2^40 (NaN, Inf, near FLT_MAX, tiny,
 * subnormal) stores nothing and an FP32 SIMT fixup recomputes it, so every input gives FP32's
 * result (Inf/NaN pattern included). Split-K and tail-split slices (slice 0 too) write slabs
 * and the reduce writes C, skipping flagged tiles.
 * Tiles: block 128x128, BK 32, 8 warps of 64x32, 3-stage cp.async (tc_common.cuh).
 * nvcc -arch=sm_90 -Xptxas -v: 234..249 registers, no spills unsplit (split-K: 0..160-byte
 * stack, less than before the guard); dynamic shared memory 3 stages + 2 split planes = 5 x
 * (34 .. 36) KB = 170 .. 180 KB (one block of 8 warps per SM).
 * Measured (H200, an earlier version that split in registers per fragment): 40.3 / 41.0 TFLOP/s
 * at n = 4096 / 8192 (cuBLAS FP32 SGEMM 50.9 / 51.0); the mma.sync pipeline, not the 3x
 * arithmetic, limits (rung 12: 90-92 against 400 for cuBLAS TF32). Rung 14 is the fast one.
 */
#include "tc_common.cuh"

typedef tc_cfg<float, 128, 128, 32, 64, 32, 3, 1> tf32x3_cfg;

extern "C" cudaError_t mb_sgemm_tf32x3(const void *a, cudaStream_t s) {
    return tc_gemm_launch<tf32x3_cfg, TC_OP_TF32X3>((const mb_gemm_args *)a, s);
}
