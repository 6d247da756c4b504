/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 17 of the sgemm ladder, fastsplit_tf32x3 (FP32 results, Hopper only: sm_90a): rung 16
 * (pingpong_tf32x3) with a cheaper 3xTF32 split. Rung 16 splits each element of A and B with
 * cvt.rna.satfinite.tf32 (big) and cvt.rna.tf32 of x - big (small), which sm_90 emulates in
 * about 10 instructions: 320 of the 727 a consumer warp issues per stage (NN). Here
 * (wg_split_fast, wg_tf32x3.cuh): big = (bits(x) + 0x1000) & 0xffffe000, small =
 * bits(x - big) + 0x1000 with its low 13 bits left for the tensor cores to ignore: 4
 * instructions an element; the main loop issues 532 per warp and stage instead of 727.
 * Why faster: rung 16's consumers issue about as much per k step as the tensor cores take
 * cycles for it, and most of that issue time is added to the tensor time, not hidden under it.
 * Results: bitwise rung 16's if the tensor cores ignore the low 13 bits of TF32 operands (as
 * CUTLASS's 3xTF32 assumes; tests/test_tf32_accuracy_gpu.c checks it).
 * Special values: the two splits agree for finite |x| < 0x1.ffep127. Inf, NaN and values that
 * round past FLT_MAX lose satfinite (Inf - Inf = NaN; a negative NaN + 0x1000 may wrap to a
 * zero big and a zero small). All lie outside the range guard's range (x3guard.cuh: |x| <= 2^40),
 * so no tile whose panels hold one keeps its tensor-core result: with the check in the main
 * loop the tile stores nothing; split-K: the reduce skips the tile's slabs; tail scan (beta 0):
 * the scan marks its panel and the fixup overwrites it. Without room for the guard (no
 * workspace) this rung runs rung 16; operands TMA cannot copy run rung 14 (as rung 16's do).
 * So every input gets rung 16's result class and accuracy.
 * Limits: rung 16's (schedule, resources, fallbacks); bitwise equality with rung 16 rests on
 * the tensor cores' truncation of TF32 operands.
 * Current figure (H100, perf/results/h100/ladder.csv): 98.2 TFLOP/s at 4096^3 NN, 1.88x cuBLAS
 * FP32 (rung 16: 81.2, 1.21x); 100.5 at 8192^3 (1.97x); 83.4 on 4097x4095x4099 (1.79x).
 * Built for sm_90a (CMakeLists.txt); the sm_90 build traps; dispatch requires cc 9.0.
 */
#include "pingpong.cuh"

/* The launcher (tma_ring.cuh): the kernel (pingpong.cuh, with wg_split_fast) where TMA can
 * copy the operands, else rung 14. */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
struct fastsplit_tf32x3 {
    static tm_kernel_fn fn() { return pingpong_kernel<true, AKC, BKC, SPLIT, CHECK>; }
};

extern "C" cudaError_t mb_sgemm_pingpong_tf32x3(const void *a, cudaStream_t s);

extern "C" cudaError_t mb_sgemm_fastsplit_tf32x3(const void *a, cudaStream_t s) {
    /* The cheap split needs the range guard for non-finite and huge inputs: without its
     * workspace (the same condition as x3g_begin's), rung 16. Operand copies (tm_sgemm) keep
     * the workspace, m and n, so the guard's room is decided here. */
    if (!x3g_room((const mb_gemm_args *)a, WG_BM, WG_BN)) return mb_sgemm_pingpong_tf32x3(a, s);
    return tm_sgemm<fastsplit_tf32x3>(a, s);
}
