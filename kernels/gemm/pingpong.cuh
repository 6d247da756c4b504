/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel of the pingpong 3xTF32 rungs (16_pingpong_tf32x3, 17_fastsplit_tf32x3): rung
 * 15's TMA ring (tma_ring.cuh) with two fresh accumulators per consumer warpgroup, as rung
 * 16's file describes. FAST picks the split of A and B: tc_split_tf32 (rung 16) or the cheap
 * integer split wg_split_fast (rung 17; wg_tf32x3.cuh). Each rung's file has its launcher.
 */
#ifndef MINIBLAS_GEMM_PINGPONG_CUH
#define MINIBLAS_GEMM_PINGPONG_CUH

#include "tma_ring.cuh"

/* setmaxnreg moves registers from the producer to the consumers: 128 x 24 + 256 x 240 =
 * 384 x 168, all the block got at launch (TM_LAUNCH_REGS). */
#define TM_PRODUCER_REGS 24
#define TM_CONSUMER_REGS 240
static_assert(128 * TM_PRODUCER_REGS + WG_THREADS * TM_CONSUMER_REGS <=
                  TM_THREADS * TM_LAUNCH_REGS,
              "setmaxnreg within the block's registers");

/* ---------------------------------------------------------------------------------------
 * The kernel: rung 15's with the consumers' k loop below. Per stage kt (tN: the fresh
 * accumulator, aN: the A fragment registers, kN: k step N of the stage):
 *   B1 consumer barrier      planes of kt visible; every wgmma of kt - 1 done
 *   issue k0 (t0, a0)
 *   full wait for kt + 1, split of its B into the other plane buffer, fence.proxy.async
 *   issue k1 (t1, a1); wait_group 1 (k0 done); acc += t0
 *   issue k2 (t0, a0); wait_group 1 (k1 done); acc += t1
 *   issue k3 (t1, a1); wait_group 1 (k2 done); acc += t0
 *   release raw stage kt (each warp; its last A fragment was gathered before k3's issue)
 *   wait_group 0 (k3 done); acc += t1
 * An in-flight group reads its A operand from registers (RS form) and writes its fresh
 * accumulator: neither is touched until the wait that covers the group. The next fragment
 * is gathered into fa (not an operand) and split into the set of the group that completed;
 * nothing reads or writes a0 / t0 (a1 / t1) between the issue of a group and its wait.
 * The reads of a completed tN stay after its wait: wgmma.wait_group is an asm volatile with
 * a "memory" clobber and wg_flush64's first statements are asm volatile redefinitions of tN
 * ("+f"), which the compiler keeps in program order after the wait; its last ones redefine
 * acc, keeping the FADDs before the next wgmma.fence (wg_tf32x3.cuh). ptxas checks the rest:
 * any access of a pending group's registers would make it serialise the wgmma with a C75xx
 * warning (none in the build).
 * ------------------------------------------------------------------------------------- */
template <bool FAST, bool AKC, bool BKC, bool SPLIT, bool CHECK>
__global__ void __launch_bounds__(TM_THREADS, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap tmA,
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

        float acc[64], t0[64], t1[64];
        unsigned gmx, gmn; /* range guard (x3guard.cuh) over the A and B elements split here */
        x3g_init(gmx, gmn);
        wg_tile_zero(acc, t0);
#pragma unroll
        for (int i = 0; i < 64; ++i) t1[i] = 0.0f; /* never read (scale-d false), but defined */

        /* Prologue: wait for k-tile 0, split its B into plane buffer 0. */
        tm_wait(full0 + 8 * (q % S), (q / S) & 1u);
        wg_split_b<BKC, CHECK, FAST>(planes, planes + WG_PLANE, sB + (q % S) * BE, ctid, gmx,
                                     gmn);
        wg_fence_proxy_async();

        for (int64_t kt = 0; kt < KT; ++kt) {
            const unsigned r = q + (unsigned)kt, cs = r % S;
            tm_consumer_sync(); /* B1: planes of kt visible to all consumers */
            const float *sAc = sA + cs * AE;
            const unsigned pb = planes_addr + (unsigned)((kt & 1) * 2 * WG_PLANE * sizeof(float));
            const unsigned ps = pb + (unsigned)(WG_PLANE * sizeof(float));
            float fa[4];
            unsigned a0b[4], a0s[4], a1b[4], a1s[4]; /* the A operands of t0's / t1's group */
            /* k step 0 runs while the next stage's B is split; fa: k step 1's fragment. */
            wg_step0<AKC, CHECK, FAST>(t0, fa, a0b, a0s, sAc, wm0, lane, pb, ps, gmx, gmn);
            if (kt + 1 < KT) {
                const unsigned ns = (r + 1) % S;
                tm_wait(full0 + 8 * ns, ((r + 1) / S) & 1u); /* raw kt + 1 landed */
                float *pl = planes + ((kt + 1) & 1) * 2 * WG_PLANE;
                wg_split_b<BKC, CHECK, FAST>(pl, pl + WG_PLANE, sB + ns * BE, ctid, gmx, gmn);
                wg_fence_proxy_async();
            }
            __syncwarp(); /* converged again after the waits, for the .aligned wgmma ops */

            /* k step 1 into t1 while k step 0 finishes; then add t0. */
            wg_split_a<FAST>(fa, a1b, a1s);
            wg_issue128(t1, a1b, a1s, pb, ps, 8);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 16, lane); /* k step 2's fragment */
            wg_wait<1>(); /* k step 0 done: t0, a0 free */
            wg_flush64(acc, t0);

            /* k step 2 into t0 while k step 1 finishes; then add t1. */
            wg_split_a<FAST>(fa, a0b, a0s);
            wg_issue128(t0, a0b, a0s, pb, ps, 16);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 24, lane); /* k step 3's fragment */
            wg_wait<1>(); /* k step 1 done: t1, a1 free */
            wg_flush64(acc, t1);

            /* k step 3 into t1 while k step 2 finishes; then add t0. */
            wg_split_a<FAST>(fa, a1b, a1s);
            wg_issue128(t1, a1b, a1s, pb, ps, 24);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            wg_wait<1>(); /* k step 2 done: t0, a0 free */
            wg_flush64(acc, t0);

            /* This warp's reads of raw stage kt are done (B split in kt - 1, A fragments). */
            __syncwarp();
            if (lane == 0) tm_arrive(empty0 + 8 * cs);
            wg_wait<0>(); /* k step 3 done: nothing pending at the stage end */
            wg_flush64(acc, t1);
        }
        q += (unsigned)KT;
        tm_consumer_sync(); /* the next tile's prologue overwrites the planes */

        /* A tile with an out-of-range element in its panels stores nothing (the fixup
         * recomputes it; x3guard.cuh). */
        const bool out =
            CHECK && x3g_tile_out_bar<1, WG_THREADS>(g, gmx, gmn, tm + tn * ntm, 128);
        if (SPLIT) { /* a slab, or the sum in the cluster (tma_ring.cuh) */
            if (tm_split_gather(b, out, alpha, acc, t0))
                tm_split_store(p, b.cluster, alpha, beta, acc, t0, m0, n0, wm0, lane);
            if (b.cluster) tm_cluster_sync(); /* the cluster's shared memory read */
            continue;
        }
        if (out) continue;
        wg_store_tile(p, C, alpha, beta, acc, t0, m0, n0, wm0, lane);
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

#endif
