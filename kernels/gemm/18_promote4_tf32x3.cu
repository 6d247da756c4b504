/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 18 of the sgemm ladder, promote4_tf32x3 (FP32 results, Hopper only: sm_90a): rung 17
 * (fastsplit_tf32x3) with the FP32 additions of the tensor-core results cut by four. Rung 17
 * adds a fresh accumulator into the FP32 accumulator acc after every k step of 8 (64 FADDs a
 * thread, a quarter of the 532 instructions a consumer warp issues per stage). Here
 * (promote.cuh) each warpgroup keeps two tensor-core accumulators beside acc: tc, into which
 * the two correction products (a_small * B_big, a_big * B_small) of every k step go for the
 * whole tile, and t, into which the large product a_big * B_big goes for the 4 k steps of a
 * stage (zero at k step 0: scale-d false). acc += t once per stage and acc += tc at the tile's
 * end: 64 FADDs per stage instead of 256. Registers: acc, tc and t are rung 16's acc, t0 and
 * t1. The stage's last k step is issued as two groups, the large product first, so the 64
 * FADDs of acc += t run while its corrections do. The main loop issues 341 instructions per
 * warp and stage instead of 532 (NN; TT 360 instead of 550; with the range check in the main
 * loop 422 / 440 instead of 616 / 634; cuobjdump -sass of the sm_90a build, CUDA 13.0).
 * Why faster: the consumers' issue time, most of which adds to the tensor time rather than
 * hiding under it, drops by a third; the tensor cores do the same work.
 * Accuracy: not rung 17's bits. Each wgmma truncates its sum toward zero (about an ulp of the
 * accumulator), so a tensor-core accumulator that spans several k steps adds an error that
 * grows with its span and magnitude. The corrections are 2^-11 of the result: kept in tc for
 * the whole of K their truncations stay negligible; the large products are truncated 4 times
 * per stage in t, then added in FP32. A model of Hopper's TF32 block FMA puts the relative
 * error at 0.23..0.57 of a sequential FP32 dot product's over k = 256..4096 (rung 17:
 * 0.38..0.55); tests/test_tf32_accuracy_gpu.c holds it to the rule of every FP32-accurate
 * rung (against cuBLAS FP32, k = 256 included).
 * Special values and the range guard: rung 17's split and checks unchanged (x3guard.cuh): a
 * tile whose panels hold a value outside the guard's range keeps no tensor-core result; inside
 * the range no sum in tc or t can overflow, and every part product is normal (x3guard.cuh's
 * analysis); where a sum cancels below 2^-126 the tensor cores flush it, at most 2^-126 per
 * wgmma into tc or t (rung 17: per k step). Without room for the guard (no workspace) this
 * rung runs rung 16, as rung 17 does; operands TMA cannot copy run rung 14.
 * Limits: every group of a stage completes before the next stage's barrier (as in rungs 16
 * and 17: the B plane double buffer needs no further care), so the stage change (that wait,
 * the barrier, k step 0's fragment and split) runs with no group in flight; keeping one in
 * flight there needs a "plane buffer free" signal. Written with the next stage's corrections
 * issued before the wait for a group that writes t, CUDA 13.0's ptxas serialised every wgmma
 * of the loop without a C75xx warning (promote.cuh). Rung 17's resources: 168 registers at
 * launch, consumers 240 (setmaxnreg; at most 237 used), no spills.
 * Current figure: not yet measured.
 * Built for sm_90a (CMakeLists.txt); the sm_90 build traps; dispatch requires cc 9.0.
 */
#include "promote.cuh"

/* The launcher (tma_ring.cuh): the kernel (promote.cuh) where TMA can copy the operands, else
 * rung 14. */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
struct promote4_tf32x3 {
    static tm_kernel_fn fn() { return promote_kernel<AKC, BKC, SPLIT, CHECK>; }
};

extern "C" cudaError_t mb_sgemm_pingpong_tf32x3(const void *a, cudaStream_t s);

extern "C" cudaError_t mb_sgemm_promote4_tf32x3(const void *a, cudaStream_t s) {
    /* The cheap split needs the range guard for non-finite and huge inputs: without its
     * workspace (the same condition as x3g_begin's), rung 16, as rung 17. */
    if (!x3g_room((const mb_gemm_args *)a, WG_BM, WG_BN)) return mb_sgemm_pingpong_tf32x3(a, s);
    return tm_sgemm<promote4_tf32x3>(a, s);
}
