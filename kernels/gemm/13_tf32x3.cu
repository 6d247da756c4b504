/*
 * Rung 14, tf32x3 (sgemm, FP32 accuracy on TF32 tensor cores, "3xTF32"): rung 13 with the
 * rounding error compensated. Each fp32 operand is split into two TF32 numbers,
 *   big = tf32(x),  small = tf32(x - big)        (x - big is exact in fp32),
 * so x = big + small to ~2^-22 relative, and each product is
 *   a_small*b_big + a_big*b_small   (first: the small terms)
 *   + a_big*b_big                   (then the large one);
 * a_small*b_small (<= 2^-22 relative) is dropped. Three m16n8k8 TF32 mma per product is still
 * well under the TF32 tensor peak (~495 TFLOP/s dense) / 3, against ~51 TFLOP/s for FP32 SIMT.
 * Accumulation: the tensor core adds in FP32 but truncates (not round-to-nearest), and an
 * accumulator kept inside mma over all of K drifts: the first version of this rung had 12x
 * (K = 256) to 26x (K = 4096) cuBLAS FP32 SGEMM's error, growing linearly with K. So each
 * k step's three mma go into a fresh accumulator, which is then added to the FP32 one with
 * ordinary round-to-nearest adds (4 FADD per 3 mma; tc_warp_mma_x3 in tc_common.cuh). A CPU
 * model of the tensor-core arithmetic gives ~0.45x (K = 256) .. 0.35x (K = 4096) the error of
 * a sequential FP32 FMA loop; tests/test_tf32_accuracy_gpu.c checks <= 2x cuBLAS FP32 SGEMM's
 * relative Frobenius error. So this rung is NOT flagged reduced precision.
 * The split is done once per block and stage (tc_split_stage: cvt.rna.satfinite, one FADD,
 * cvt.rna per element) into a big and a small plane in shared memory, not per fragment in
 * registers: 4 warps read each A element and 2 each B element, so splitting per fragment did
 * the work 2.7x over (about 9 instructions per element: ~215 of the ~350 instructions per
 * warp and k step). The mma loop is 48 mma, 64 FADD and 48 LDS per warp and k step.
 * Run 3 (H200, split in registers per fragment, 16-row tiles one at a time): 40.3 / 41.0
 * TFLOP/s at n = 4096 / 8192 (cuBLAS FP32 SGEMM 50.9 / 51.0: 79-80%), 18.5 at 1024, 30.0 at
 * 4097x4095x4099; the rung 13 kernel (one mma per product) reached only 90-92, against 400
 * for cuBLAS TF32, so the mma.sync pipeline, not the 3x arithmetic, is what limits.
 * Since: the split moved to shared memory (above); the three products are issued pass by pass
 * over all 16 tiles of the warp (dependent mma 16 instructions apart instead of 4; same
 * arithmetic per tile, so the same accuracy); the next stage's copies are issued after the
 * first k step's mma; interior tiles are copied without bounds checks.
 * Tiles: block 128x128, BK = 32 floats, 8 warps of 64x32, 3-stage cp.async (tc_common.cuh).
 * nvcc -arch=sm_90 -Xptxas -v: 210..224 registers, no spills; dynamic shared memory
 * 3 stages + 2 split planes = 5 x (34 .. 36) KB = 170 .. 180 KB (one block of 8 warps per SM).
 * Measured: TBD for this version (target >= 1.3x cuBLAS FP32 SGEMM at n = 4096 and 8192).
 */
#include "tc_common.cuh"

typedef tc_cfg<float, 128, 128, 32, 64, 32, 3, 1> tf32x3_cfg;

extern "C" cudaError_t mb_sgemm_tf32x3(const void *a, cudaStream_t s) {
    return tc_gemm_launch<tf32x3_cfg, TC_OP_TF32X3>((const mb_gemm_args *)a, s);
}
