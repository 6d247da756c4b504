/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 15 of the sgemm ladder, tma_tf32x3 (FP32 results, Hopper only: sm_90a): rung 14
 * (wgmma_tf32x3) with one change, how the raw A and B tiles reach shared memory. Instead of
 * 16-byte cp.async by every thread, one thread of a producer warpgroup issues two TMA bulk
 * tensor copies per stage (cp.async.bulk.tensor.2d, one tensor map per operand, built on the
 * host) into the same 4-stage ring; per stage a "full" mbarrier (expect_tx: the stage's bytes)
 * says it landed and an "empty" mbarrier (one arrival per consumer warp) says it was read.
 * The two consumer warpgroups run rung 14's B split, A fragments, wgmma k steps, range guard
 * and epilogue (wg_tf32x3.cuh); split-K as rung 14, or with the slices of a tile in one
 * thread-block cluster, summed by slice 0 over distributed shared memory (tma_ring.cuh,
 * tm_split_gather; same bits). setmaxnreg gives the producer 40 registers and the
 * consumers 232.
 * Why faster: the copy engine computes the addresses and zero-fills what lies outside the
 * matrix, so the consumers spend no issue slots or registers on copies, the per-stage
 * cp.async.wait + second __syncthreads become one mbarrier wait, and the producer refills
 * each stage as soon as it is released, into the next tile while the consumers store.
 * Limits: the boxes are as wide as rung 14's padded rows (36 floats K-contiguous, 136
 * MN-contiguous) to keep its conflict-free layouts, so each row copy reads 4 / 8 unused
 * floats; the B split stays in the consumers' main loop. TMA needs 16-byte aligned A and B,
 * lda and ldb multiples of 4: other operands are first copied into aligned scratch where the
 * gemm is large enough for that to pay; smaller such calls, m, n, k of 2^31 - 1024 or more
 * and a driver without cuTensorMapEncodeTiled run rung 14 (same results class).
 * Resources (nvcc -arch=sm_90a -Xptxas -v): 384 threads, 168 registers at launch, then 40 for
 * the producer (its code uses <= 21) and 232 for the consumers (<= 193; cuobjdump -sass), no
 * spills, no stack; 200..208 KB dynamic shared memory plus 64 B of mbarriers; 1 block per SM.
 * Current figure (H100, perf/results/h100/ladder.csv): 78.0 TFLOP/s at 4096^3 NN, 1.49x
 * cuBLAS FP32 (rung 14: 68.2); 1.46x on 4097x4095x4099 with its operands copied (rung 14: 0.89x).
 * Built for sm_90a (CMakeLists.txt); the sm_90 build traps; dispatch requires cc 9.0. The
 * TMA ring, the producer and the launcher are shared with rung 16: tma_ring.cuh.
 */
#include "tma_ring.cuh"

/* setmaxnreg moves registers from the producer to the consumers: 128 x 40 + 256 x 232 =
 * 384 x 168, all the block got at launch (TM_LAUNCH_REGS). */
#define TM_PRODUCER_REGS 40
#define TM_CONSUMER_REGS 232
static_assert(128 * TM_PRODUCER_REGS + WG_THREADS * TM_CONSUMER_REGS <=
                  TM_THREADS * TM_LAUNCH_REGS,
              "setmaxnreg within the block's registers");

/* ---------------------------------------------------------------------------------------
 * The kernel: rung 14's schedule with the raw stages filled by TMA from a producer
 * warpgroup. The producer's thread 0 walks the block's k-tiles (ring position r = k-tiles this
 * block took before: stage r % S, its (r / S)-th fill), waiting on each stage's empty barrier
 * before refilling it, so all S stages are landing or waiting to be read, across tiles too.
 * Per stage kt the consumers (ctid = tid - 128) run:
 *   B1 consumer barrier     planes of kt visible; every wgmma of kt - 1 done
 *   k step 0 issued
 *   full wait for kt + 1, split of its B into the other plane buffer, fence.proxy.async
 *   k steps 1..3; each warp releases the raw stage of kt (empty arrive) once its last A
 *   fragment of kt is split
 * Against rung 14: no cp.async.wait + second __syncthreads per stage, no copy code in the
 * consumers. The main-loop guard's per-tile OR (CHECK) is among the consumers only (named
 * barrier 1), so the producer never meets a block-wide barrier after the split of roles and
 * goes on to the next tile's copies while the consumers store.
 * ------------------------------------------------------------------------------------- */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
__global__ void __launch_bounds__(TM_THREADS, 1)
    tma_tf32x3_kernel(const __grid_constant__ CUtensorMap tmA,
                      const __grid_constant__ CUtensorMap tmB, mb_gemm_args p, int64_t kc, x3g g) {
#if WG_SM90A
    tm_block b;
    if (!tm_start<AKC, BKC, SPLIT, CHECK, TM_PRODUCER_REGS, TM_CONSUMER_REGS>(&tmA, &tmB, p, kc,
                                                                               g, b))
        return; /* the producer's and the tail-scan blocks' work is done */
    constexpr int S = WG_STAGES;
    constexpr int AE = wg_cfg::a_elems(AKC), BE = wg_cfg::b_elems(BKC);
    float *const planes = b.planes, *const sA = b.sA, *const sB = b.sB;
    const unsigned full0 = b.full0, empty0 = b.empty0;
    const int64_t ntm = b.ntm, ntn = b.ntn, ntiles = b.ntiles, KT = b.KT;
    const int tid = threadIdx.x;
    const int ctid = tid - 128, lane = tid & 31, warp = ctid >> 5;
    const int wm0 = warp * 16; /* this warp's 16 rows (warpgroup warp / 4: rows 64 (warp / 4) ..) */
    const unsigned planes_addr = tc_smem_addr(planes);
    const float alpha = (float)p.alpha, beta = (float)p.beta;
    float *C = (float *)p.C;
    unsigned q = 0; /* ring position of this tile's k-tile 0 */
    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        const int64_t m0 = tm * WG_BM, n0 = tn * WG_BN;

        float acc[64], t[64];
        unsigned gmx, gmn; /* range guard (x3guard.cuh) over the A and B elements split here */
        x3g_init(gmx, gmn);
        wg_tile_zero(acc, t);

        /* Prologue: wait for k-tile 0, split its B into plane buffer 0. */
        tm_wait(full0 + 8 * (q % S), (q / S) & 1u);
        wg_split_b<BKC, CHECK>(planes, planes + WG_PLANE, sB + (q % S) * BE, ctid, gmx, gmn);
        wg_fence_proxy_async();

        for (int64_t kt = 0; kt < KT; ++kt) {
            const unsigned r = q + (unsigned)kt, cs = r % S;
            tm_consumer_sync(); /* B1: planes of kt visible to all consumers */
            const float *sAc = sA + cs * AE;
            const unsigned pb = planes_addr + (unsigned)((kt & 1) * 2 * WG_PLANE * sizeof(float));
            const unsigned ps = pb + (unsigned)(WG_PLANE * sizeof(float));
            float fa[4];
            unsigned ab[4], as[4];
            /* k step 0 is issued before, and finished after, the split of the next stage,
             * so that it runs meanwhile. */
            wg_step0<AKC, CHECK>(t, fa, ab, as, sAc, wm0, lane, pb, ps, gmx, gmn);
            if (kt + 1 < KT) {
                const unsigned ns = (r + 1) % S;
                tm_wait(full0 + 8 * ns, ((r + 1) / S) & 1u); /* raw kt + 1 landed */
                float *pl = planes + ((kt + 1) & 1) * 2 * WG_PLANE;
                wg_split_b<BKC, CHECK>(pl, pl + WG_PLANE, sB + ns * BE, ctid, gmx, gmn);
                wg_fence_proxy_async();
            }
            __syncwarp(); /* converged again after the waits, for the .aligned wgmma ops */
            wg_steps123<AKC, CHECK>(acc, t, fa, ab, as, sAc, wm0, lane, pb, ps, gmx, gmn);
            /* This warp's reads of raw stage kt are done (B split in kt - 1, A fragments). */
            __syncwarp();
            if (lane == 0) tm_arrive(empty0 + 8 * cs);
            wg_wait<0>();
            wg_flush64(acc, t);
        }
        q += (unsigned)KT;
        tm_consumer_sync(); /* the next tile's prologue overwrites the planes */

        /* A tile with an out-of-range element in its panels stores nothing (the fixup
         * recomputes it; x3guard.cuh). */
        const bool out =
            CHECK && x3g_tile_out_bar<1, WG_THREADS>(g, gmx, gmn, tm + tn * ntm, 128);
        if (SPLIT) { /* a slab, or the sum in the cluster (tma_ring.cuh) */
            if (tm_split_gather(b, out, alpha, acc, t))
                tm_split_store(p, b.cluster, alpha, beta, acc, t, m0, n0, wm0, lane);
            if (b.cluster) tm_cluster_sync(); /* the cluster's shared memory read */
            continue;
        }
        if (out) continue;
        wg_store_tile(p, C, alpha, beta, acc, t, m0, n0, wm0, lane);
    }
#else
    /* Not built for sm_90a: never launched (dispatch requires a compute capability 9.0 GPU,
     * where the sm_90a code is loaded). Fail loudly rather than return garbage. */
    (void)tmA;
    (void)tmB;
    (void)p;
    (void)kc;
    (void)g;
#ifdef __CUDA_ARCH__
    __trap();
#endif
#endif
}

/* The launcher (tma_ring.cuh): this kernel where TMA can copy the operands, else rung 14. */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
struct tma_tf32x3 {
    static tm_kernel_fn fn() { return tma_tf32x3_kernel<AKC, BKC, SPLIT, CHECK>; }
};

extern "C" cudaError_t mb_sgemm_tma_tf32x3(const void *a, cudaStream_t s) {
    return tm_sgemm<tma_tf32x3>(a, s);
}
