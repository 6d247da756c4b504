/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 17 of the sgemm ladder, fastsplit_tf32x3 (FP32 results, Hopper only: sm_90a): rung 16
 * (pingpong_tf32x3) with a cheaper 3xTF32 split. Rung 16 splits each element of A and B with
 * cvt.rna.satfinite.tf32 (big) and cvt.rna.tf32 of x - big (small), which sm_90 emulates in
 * about 10 instructions: 320 of the 727 a consumer warp issues per stage (NN). Here
 * (wg_split_fast, wg_tf32x3.cuh): big = (bits(x) + 0x1000) & 0xffffe000, small =
 * bits(x - big) + 0x1000 with its low 13 bits left for the tensor cores to ignore; 4 each.
 * Why faster: rung 16's consumers issue about 95% of the tensor time per k step, and little
 * of it hides under the wgmma; this kernel issues 535 instead of 727 per warp and stage.
 * Results: bitwise rung 16's if the tensor cores ignore the low 13 bits of TF32 operands (as
 * CUTLASS's 3xTF32 assumes; tests/test_tf32_accuracy_gpu.c checks it).
 * Special values: the two splits agree for finite |x| < 0x1.ffep127. Inf, NaN and values
 * that round past FLT_MAX lose satfinite (Inf - Inf = NaN; a negative NaN + 0x1000 wraps to
 * a zero big and a tiny small). All of them are outside the range guard's range (x3guard.cuh,
 * |x| <= 2^40), so no tile whose panels hold one keeps its tensor-core result: checked in the
 * main loop the tile stores nothing; split-K: the reduce skips its slabs; tail scan (beta 0):
 * its row or column panel is marked and the fixup overwrites it. Without room for the guard
 * (no workspace) this rung runs rung 16; the fallback for operands TMA cannot copy is rung 14
 * (as rung 16's). Either way every input gives rung 16's result class and accuracy.
 * Limits: rung 16's (schedule, resources, fallbacks); bitwise equality rests on the tensor
 * cores' truncation of TF32 operands.
 * Current figure: not yet measured.
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
