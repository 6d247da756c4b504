/*
 * Rung 14, tf32x3 (sgemm, FP32 accuracy on TF32 tensor cores, "3xTF32"): rung 13 with the
 * rounding error compensated. Each fp32 operand is split as it is read into a fragment,
 *   big = tf32(x),  small = tf32(x - big)        (x - big is exact in fp32),
 * so x = big + small to ~22 bits, and the product is accumulated in FP32 as
 *   a_small*b_big + a_big*b_small   (first: the small terms)
 *   + a_big*b_big                   (then the large one);
 * a_small*b_small (~2^-22 relative) is dropped. Three m16n8k8 TF32 mma per product is still
 * well under the TF32 tensor peak (~495 TFLOP/s dense) / 3, against ~51 TFLOP/s for FP32 SIMT,
 * and the result keeps FP32 accuracy (tests/test_tf32_accuracy_gpu.c: relative Frobenius
 * error within 2x of cuBLAS FP32 SGEMM), so this rung is NOT flagged reduced precision.
 * The split is done in registers per fragment (about 5 ALU ops per element read), not in shared
 * memory, so shared-memory traffic is the same as rung 13.
 * Tiles: block 128x128, BK = 32 floats, 8 warps of 64x32, 3-stage cp.async (tc_common.cuh).
 * B fragments are split once per k step, A fragments one 16-row tile at a time (fewer live
 * registers). nvcc -arch=sm_90 -Xptxas -v: 219..231 registers, no spills; dynamic shared
 * memory 3 x (34 .. 36) KB = 102 .. 108 KB (one block of 8 warps per SM).
 * Measured: TBD (target >= 1.3x cuBLAS FP32 SGEMM at n = 4096 and 8192).
 */
#include "tc_common.cuh"

typedef tc_cfg<float, 128, 128, 32, 64, 32, 3, 1> tf32x3_cfg;

extern "C" cudaError_t mb_sgemm_tf32x3(const void *a, cudaStream_t s) {
    return tc_gemm_launch<tf32x3_cfg, TC_OP_TF32X3>((const mb_gemm_args *)a, s);
}
