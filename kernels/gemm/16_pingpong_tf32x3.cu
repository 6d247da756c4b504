/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 16 of the sgemm ladder, pingpong_tf32x3 (FP32 results, Hopper only: sm_90a): rung 15
 * (tma_tf32x3) with two fresh accumulators t0 and t1 per consumer warpgroup instead of one.
 * Rung 15 issues each k step's group of three m64n128k8 wgmma into t, waits for it
 * (wait_group 0) and adds t into the FP32 accumulator before it issues the next: of the 4 k
 * steps of a stage only k step 0 overlaps other work (the split of the next stage's B).
 * Here k steps alternate between t0 and t1: a warpgroup issues k step j + 1, then waits for
 * k step j alone (wait_group 1) and adds it while j + 1 runs.
 * Why faster: the tensor cores get the next group while the 64 FADDs of the previous one run,
 * instead of idling through each group's latency and FADDs. The arithmetic is rung 15's
 * (acc += t of each k step in the same k order): results are bitwise those of rung 15.
 * Limits: every group of a stage still completes within it (wait_group 0 at the stage end),
 * so the B plane double buffer needs no further care, and the last k step of a stage is
 * drained without overlap; the B split stays in the consumers' main loop. Operands TMA
 * cannot copy, and the fallback to rung 14, as rung 15 (tma_ring.cuh).
 * Resources (nvcc -arch=sm_90a -Xptxas -v): 384 threads, 168 registers at launch; setmaxnreg
 * gives the producer 24 (its code uses <= 6) and the consumers 240 (<= 237: acc, t0 and t1
 * are 192, two A fragments 16; nvdisasm), no spills, no stack; 200..208 KB dynamic shared
 * memory plus 64 B of mbarriers; 1 block per SM.
 * Current figure (H100, perf/results/h100/ladder.csv): 81.2 TFLOP/s at 4096^3 NN, 1.55x cuBLAS
 * FP32 (rung 15: 78.0); 82.4 at 8192^3 (1.61x); 70.9 on 4097x4095x4099, operands copied.
 * Built for sm_90a (CMakeLists.txt); the sm_90 build traps; dispatch requires cc 9.0. The
 * TMA ring, the producer and the launcher: tma_ring.cuh (shared with rung 15); the kernel:
 * pingpong.cuh (shared with rung 17).
 */
#include "pingpong.cuh"

/* The launcher (tma_ring.cuh): the kernel (pingpong.cuh, with tc_split_tf32) where TMA can
 * copy the operands, else rung 14. */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
struct pingpong_tf32x3 {
    static tm_kernel_fn fn() { return pingpong_kernel<false, AKC, BKC, SPLIT, CHECK>; }
};

extern "C" cudaError_t mb_sgemm_pingpong_tf32x3(const void *a, cudaStream_t s) {
    return tm_sgemm<pingpong_tf32x3>(a, s);
}
