/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel of rung 18 (18_promote4_tf32x3): rung 17's TMA ring, split and range guard
 * (pingpong.cuh's kernel with FAST) with the products accumulated in the tensor cores over a
 * whole stage (4 k steps) and the two correction products over the whole tile, as the rung's
 * file describes. A sibling of pingpong.cuh's kernel, so rungs 16 and 17 keep their code.
 */
#ifndef MINIBLAS_GEMM_PROMOTE_CUH
#define MINIBLAS_GEMM_PROMOTE_CUH

#include "pingpong.cuh" /* the ring (tma_ring.cuh) and the register split of the warpgroups */

/* One k step (8 deep, offset kk in the stage) of one warpgroup, one wgmma group: the two
 * correction products into the persistent accumulator tc (a_small * B_big, then a_big *
 * B_small), then the large product into the stage's accumulator t, which FRESH (k step 0)
 * starts at zero (scale-d false) instead of adding to. pb / ps: the big / small planes.
 * pr_big128 and pr_corr128: the same wgmma as two groups, the large product first (the
 * stage's last k step: t is final once its group is done, while the corrections run). */
__device__ __forceinline__ void pr_big128(float (&t)[64], const unsigned (&ab)[4], unsigned pb,
                                          int kk) {
    const unsigned off = (unsigned)(kk >> 2) * WG_LBO;
    wg_fence();
    wg_mma128<1>(t, ab, wg_desc(pb + off));
    wg_commit();
}
__device__ __forceinline__ void pr_corr128(float (&tc)[64], const unsigned (&ab)[4],
                                           const unsigned (&as)[4], unsigned pb, unsigned ps,
                                           int kk) {
    const unsigned off = (unsigned)(kk >> 2) * WG_LBO;
    wg_fence();
    wg_mma128<1>(tc, as, wg_desc(pb + off));
    wg_mma128<1>(tc, ab, wg_desc(ps + off));
    wg_commit();
}
template <bool FRESH>
__device__ __forceinline__ void pr_issue128(float (&tc)[64], float (&t)[64],
                                            const unsigned (&ab)[4], const unsigned (&as)[4],
                                            unsigned pb, unsigned ps, int kk) {
    const unsigned off = (unsigned)(kk >> 2) * WG_LBO;
    wg_fence();
    wg_mma128<1>(tc, as, wg_desc(pb + off));
    wg_mma128<1>(tc, ab, wg_desc(ps + off));
    wg_mma128<FRESH ? 0 : 1>(t, ab, wg_desc(pb + off));
    wg_commit();
}

/* ---------------------------------------------------------------------------------------
 * The kernel: rung 17's, with per stage kt (aN: the A fragment registers, kN: k step N):
 *   wait_group 0             the corrections of kt - 1's k step 3 (C3) done
 *   B1 consumer barrier      planes of kt visible; every wgmma of kt - 1 done
 *   issue k0 (a0): tc += corrections, t = a_big * B_big (fresh); issue k1 (a1)
 *   full wait for kt + 1, split of its B into the other plane buffer, fence.proxy.async,
 *     while k0 and k1 run; wait_group 1 (k0 done: a0 free)
 *   issue k2 (a0); wait_group 1 (k1 done: a1 free)
 *   issue k3 as two groups (a1): B3, t's large product, then C3, tc's corrections
 *   wait_group 1 (k2 and B3 done: t final)
 *   release raw stage kt (each warp; its last A fragment was gathered before k3's issue)
 *   acc += t while C3 runs
 * and at the tile's end wait_group 0, acc += tc. C3 is the one group pending across the
 * loop's back edge, and it touches only tc and a1. Its wait sits at the top of the next
 * stage, not after the adds: ptxas moves independent FADDs below a wgmma.wait_group, which
 * would make them wait for C3. Groups in flight write the same accumulators in issue order
 * (the tensor cores chain them); the other waits between k steps are only there to free an
 * A register set before the next fragment is split into it. Nothing reads or writes t while
 * a group that writes it is pending, nor tc before the tile's last wait (wg_flush64 keeps
 * the reads after the wait and the adds before the next wgmma.fence, wg_tf32x3.cuh). ptxas
 * serialises a wgmma whose registers were touched, and not always with a C75xx warning:
 * issuing the next stage's corrections before waiting for a group that writes t, then
 * adding t, made it serialise every wgmma of the loop silently (WARPGROUP.DEPBAR after each
 * HGMMA); check the SASS after changing this schedule. As in rungs 16 and 17, every group of
 * a stage completes before the barrier of the next, so the B plane double buffer needs no
 * further care. The results are those of one group per k step (tc and t get the same wgmma
 * in the same order).
 * ------------------------------------------------------------------------------------- */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
__global__ void __launch_bounds__(TM_THREADS, 1)
    promote_kernel(const __grid_constant__ CUtensorMap tmA,
                   const __grid_constant__ CUtensorMap tmB, mb_gemm_args p, int64_t kc, x3g g) {
#if WG_SM90A
    constexpr bool FAST = true; /* rung 17's split */
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

        float acc[64], tc[64], t[64];
        unsigned gmx, gmn; /* range guard (x3guard.cuh) over the A and B elements split here */
        x3g_init(gmx, gmn);
        wg_tile_zero(acc, tc); /* tc: added to from the first k step on */
#pragma unroll
        for (int i = 0; i < 64; ++i) t[i] = 0.0f; /* defined; each stage starts it with scale-d 0 */

        /* Prologue: wait for k-tile 0, split its B into plane buffer 0. */
        tm_wait(full0 + 8 * (q % S), (q / S) & 1u);
        wg_split_b<BKC, CHECK, FAST>(planes, planes + WG_PLANE, sB + (q % S) * BE, ctid, gmx,
                                     gmn);
        wg_fence_proxy_async();

        for (int64_t kt = 0; kt < KT; ++kt) {
            const unsigned r = q + (unsigned)kt, cs = r % S;
            wg_wait<0>();       /* C3 of kt - 1 done (waited here, not after the adds above it:
                                   ptxas would move the adds below the wait) */
            tm_consumer_sync(); /* B1: planes of kt visible; every group of kt - 1 done */
            const float *sAc = sA + cs * AE;
            const unsigned pb = planes_addr + (unsigned)((kt & 1) * 2 * WG_PLANE * sizeof(float));
            const unsigned ps = pb + (unsigned)(WG_PLANE * sizeof(float));
            float fa[4];
            unsigned a0b[4], a0s[4], a1b[4], a1s[4]; /* the A operands of the even / odd k steps */

            /* k steps 0 (t starts afresh) and 1, then the next stage's B split while both run;
             * then a0 is free. */
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 0, lane);
            wg_split_a<FAST>(fa, a0b, a0s);
            pr_issue128<true>(tc, t, a0b, a0s, pb, ps, 0);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 8, lane); /* k step 1's fragment */
            wg_split_a<FAST>(fa, a1b, a1s);
            pr_issue128<false>(tc, t, a1b, a1s, pb, ps, 8);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 16, lane); /* k step 2's fragment */
            if (kt + 1 < KT) {
                const unsigned ns = (r + 1) % S;
                tm_wait(full0 + 8 * ns, ((r + 1) / S) & 1u); /* raw kt + 1 landed */
                float *pl = planes + ((kt + 1) & 1) * 2 * WG_PLANE;
                wg_split_b<BKC, CHECK, FAST>(pl, pl + WG_PLANE, sB + ns * BE, ctid, gmx, gmn);
                wg_fence_proxy_async();
            }
            __syncwarp(); /* converged again after the waits, for the .aligned wgmma ops */
            wg_wait<1>(); /* k step 0 done: a0 free */

            /* k step 2 while k step 1 runs; then a1 is free. */
            wg_split_a<FAST>(fa, a0b, a0s);
            pr_issue128<false>(tc, t, a0b, a0s, pb, ps, 16);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 24, lane); /* k step 3's fragment */
            wg_wait<1>(); /* k step 1 done: a1 free */

            /* k step 3 while k step 2 runs: the large product first, then the corrections. */
            wg_split_a<FAST>(fa, a1b, a1s);
            pr_big128(t, a1b, pb, 24);
            pr_corr128(tc, a1b, a1s, pb, ps, 24);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            wg_wait<1>(); /* k step 2 and k step 3's large product done: t final */

            /* This warp's reads of raw stage kt are done (B split in kt - 1, A fragments). */
            __syncwarp();
            if (lane == 0) tm_arrive(empty0 + 8 * cs);
            wg_flush64(acc, t); /* the stage's large products, once, while C3 runs */
        }
        q += (unsigned)KT;
        wg_wait<0>(); /* the tile's last group (C3) done */
        tm_consumer_sync(); /* the next tile's prologue overwrites the planes */
        wg_flush64(acc, tc); /* the tile's corrections (complete: wait_group 0 above) */

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

#endif
