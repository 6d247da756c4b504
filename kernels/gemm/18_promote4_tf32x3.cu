/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 18 of the sgemm ladder, promote4_tf32x3 (FP32 results, Hopper only: sm_90a): rung 17
 * (fastsplit_tf32x3) with a quarter of its FP32 additions. Rung 17 adds a fresh accumulator
 * into the FP32 accumulator acc after every k step of 8 (64 FADDs a thread, 256 of the 532
 * instructions a consumer warp issues per stage). Here (promote.cuh) each warpgroup keeps two
 * tensor-core accumulators beside acc: tc takes the two correction products (a_small * B_big,
 * a_big * B_small) of every k step for the whole tile, t the large product a_big * B_big for
 * the 4 k steps of a stage. acc += t once per stage, acc += tc at the tile's end; the stage's
 * last k step issues the large product first, so acc += t runs while its corrections do; the
 * next stage's B is split once k steps 0 and 1 are issued, so six wgmma run during the split.
 * 341 instructions per warp and stage instead of 532 (NN, cuobjdump -sass, CUDA 13.0).
 * Why faster: the consumers' issue time, most of which adds to the tensor time rather than
 * hiding under it, drops by a third; the tensor cores do the same work.
 * Accuracy: not rung 17's bits (each wgmma truncates its sum; a tensor-core accumulator over
 * several k steps collects those truncations): the corrections are 2^-11 of the result, the
 * large products are truncated 4 times per stage. tests/test_tf32_accuracy_gpu.c holds it to
 * the rule of every FP32-accurate rung. Split, range guard (x3guard.cuh), TMA ring, copies and
 * fallbacks are rung 17's (no guard workspace: rung 16; operands TMA cannot copy: rung 14).
 * Limits: the stage change runs with no wgmma group in flight (the B plane double buffer has
 * no "free" signal); ptxas can serialise every wgmma without a warning if the schedule changes
 * (promote.cuh). Rung 17's resources: 168 registers at launch, consumers 240; 4 bytes of
 * spills (one reload per stage) with k-contiguous B and the range check in the main loop.
 * Current figure (H200, perf/results/h200/headline/, medians of 5 processes): 101.6 TFLOP/s
 * at 4096^3 NN, 2.16x cuBLAS FP32; 102.9 at 8192^3 (2.21x); 87.4 on 4097x4095x4099 (1.93x).
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
