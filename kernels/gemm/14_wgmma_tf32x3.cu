/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 14 of the sgemm ladder, wgmma_tf32x3 (FP32 results, Hopper only: sm_90a): rung 13's
 * 3xTF32 (x = big + small; per k step of 8, t = a_s*b_b + a_b*b_s + a_b*b_b into a fresh
 * accumulator, added to the FP32 one with round-to-nearest FADDs) moved from mma.sync to
 * warpgroup MMA (wgmma).
 * Why faster: mma.sync (16x8x8, fragments of both operands loaded by every warp) cannot feed
 * the H100/H200 tensor cores (rung 13: 44 TFLOP/s); wgmma m64n128k8 reads B from shared memory
 * through a descriptor, runs asynchronously and does 64x an m16n8k8's work per issue.
 *   - Block 128x128, BK 32, 2 warpgroups of 64x128 rows (acc 64 + fresh t 64 registers).
 *   - A from registers (RS form), split per fragment; B split once per stage by all threads
 *     into big/small planes in wgmma's K-major core-matrix layout, double-buffered.
 *   - 4-stage cp.async ring (any m, n, k, ld). k step 0 runs while the next stage is copied
 *     and split; no wgmma group is pending across a stage end. Split-K (splitk.cuh) when C
 *     has fewer tiles than half the SMs.
 *   - Range guard (x3guard.cuh): a tile whose panels hold an element outside
 *     2^-50 <= |x| <= 2^40 (and not 0) is recomputed by an FP32 SIMT fixup, so every input
 *     gets FP32 results; checked where each element is split, or, with beta == 0, deep k and
 *     SMs idle in the last wave, by extra blocks there (tail scan).
 * Limits: the B split and the FADDs of t into acc per k step stay in the main loop; odd
 * leading dimensions lose the 16-byte copies.
 * Resources (nvcc -arch=sm_90a -Xptxas -v): 249..255 registers, no spills unsplit; 200..208 KB
 * dynamic shared memory; 1 block per SM.
 * Current figure (H100, perf/results/h100/ladder.csv): 68.2 TFLOP/s at 4096^3 NN, 1.30x cuBLAS
 * FP32; the guard's cost: docs/ladders/gemm.md. Built for sm_90a (CMakeLists.txt); the sm_90
 * build traps; dispatch requires cc 9.0. Shared code with rung 15: wg_tf32x3.cuh.
 */
#include "wg_tf32x3.cuh"

/* ---------------------------------------------------------------------------------------
 * Schedule notes.
 * Synchronisation per stage kt (both warpgroups run the same code):
 *   B1 __syncthreads        planes of kt (split in kt - 1, fence.proxy.async by each writer)
 *                           and raw A of kt are visible; every wgmma of kt - 1 is done (each
 *                           warpgroup waited for all of its groups at the end of kt - 1), so
 *                           nothing reads plane buffer (kt + 1) & 1 any more
 *   k step 0 issued
 *   cp.async.wait_group 1   raw stage kt + 1 landed (this thread's copies)
 *   B2 __syncthreads        ... for every thread
 *   cp.async of stage kt + 3 into the raw buffer of kt - 1; split of kt + 1 into the other
 *   plane buffer, fence.proxy.async (generic stores -> async-proxy reads of wgmma)
 *   k step 0 finished (wait, FADDs), k steps 1..3 (each waits for its group)
 * The epilogue with beta != 0 loads all of its C before storing: a rank-512 update of 8192^2
 * with beta = 1 went from 1.82 to 1.19 ms (beta = 0: 1.14). The LEAN loader (one base address
 * and row stride per thread) is worth ~5% (62.5 / 63.2 TFLOP/s NN without it).
 * Tried and slower (same machine, before/after as noted): the first version
 * (two m64n64 halves per k step, two 32-register fresh accumulators ta / tb, wait_group 1
 * between the halves so a warpgroup's FADDs overlap its own wgmma): 62.5 / 63.2 NN without
 * the LEAN loader, 65.7 / 66.5 NN and 64.7 / 65.1 TT with it; two 64-register fresh
 * accumulators alternating over the k steps (wait_group 1): spills (96 .. 120 byte stack
 * even with LEAN), 57.3 / 59.9 NN; three 32-register fresh accumulators rotating over the
 * 8 m64n64 groups of a stage, wait_group 2: 60.1 / 60.7.
 * ------------------------------------------------------------------------------------- */
/* ---------------------------------------------------------------------------------------
 * The kernel. One block per 128x128 tile of C (grid-stride past the grid limit).
 * ------------------------------------------------------------------------------------- */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
__global__ void __launch_bounds__(WG_THREADS, 1)
    wg_tf32x3_kernel(mb_gemm_args p, bool a_vec, bool b_vec, int64_t kc, x3g g) {
#if WG_SM90A
    mb_grid_launch_next(); /* the reduce and fixup wait for this grid's end (x3guard.cuh) */
    if (SPLIT) { /* split-K: this block's slice; every slice writes alpha * partial to its slab */
        p = mb_splitk_slice<float>(p, blockIdx.y, kc);
        p.C = (float *)p.work + (int64_t)blockIdx.y * p.m * p.n;
        p.ldc = p.m;
        p.beta = 0.0;
    }
    constexpr int S = WG_STAGES;
    constexpr int AE = wg_cfg::a_elems(AKC), BE = wg_cfg::b_elems(BKC);
    extern __shared__ __align__(128) unsigned char wg_smem[];
    float *planes = (float *)wg_smem; /* [buffer][big, small][WG_PLANE] */
    float *sA = planes + 4 * WG_PLANE;
    float *sB = sA + S * AE;
    const unsigned planes_addr = tc_smem_addr(planes);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = warp * 16; /* this warp's 16 rows (warpgroup warp / 4: rows 64 (warp / 4) ..) */
    const int64_t ntm = (p.m + WG_BM - 1) / WG_BM, ntn = (p.n + WG_BN - 1) / WG_BN;
    const int64_t ntiles = ntm * ntn;
    const int64_t KT = (p.k + WG_BK - 1) / WG_BK;
    const float alpha = (float)p.alpha, beta = (float)p.beta;
    float *C = (float *)p.C;
    if (!CHECK && blockIdx.x >= ntiles) { /* a tail-scan block (x3guard.cuh) */
        x3g_scan_part(p, g, a_vec, b_vec, blockIdx.x - ntiles, gridDim.x - ntiles);
        return;
    }

    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        const int64_t m0 = tm * WG_BM, n0 = tn * WG_BN;

        float acc[64], t[64];
        unsigned gmx, gmn; /* range guard (x3guard.cuh) over the A and B elements split here */
        x3g_init(gmx, gmn);
        wg_tile_zero(acc, t);

        /* Prologue: S - 1 k-tiles in flight (empty groups past the end keep the count);
         * wait for the first, split its B into plane buffer 0. (Not unrolled: code size.) */
#pragma unroll 1
        for (int s = 0; s < S - 1; ++s) {
            if (s < KT)
                tc_load_stage<wg_cfg, AKC, BKC>(sA + s * AE, sB + s * BE, p, m0, n0, s, a_vec,
                                                b_vec, tid);
            tc_cp_async_commit();
        }
        tc_cp_async_wait<S - 2>();
        __syncthreads();
        wg_split_b<BKC, CHECK>(planes, planes + WG_PLANE, sB, tid, gmx, gmn);
        wg_fence_proxy_async();

        int cs = 0; /* raw stage of k-tile kt */
        for (int64_t kt = 0; kt < KT; ++kt) {
            __syncthreads(); /* B1: planes of kt and raw A of kt visible to all */
            const float *sAc = sA + cs * AE;
            const unsigned pb = planes_addr + (unsigned)((kt & 1) * 2 * WG_PLANE * sizeof(float));
            const unsigned ps = pb + (unsigned)(WG_PLANE * sizeof(float));
            float fa[4];
            unsigned ab[4], as[4];
            /* k step 0 is issued before, and finished after, the copies and the split of
             * the next stage, so that it runs meanwhile. */
            wg_step0<AKC, CHECK>(t, fa, ab, as, sAc, wm0, lane, pb, ps, gmx, gmn);

            /* Groups committed: S - 1 + kt (k-tiles 0 .. kt + S - 2); at most S - 3 pending
             * means k-tile kt + 1 has landed. */
            tc_cp_async_wait<S - 3>();
            __syncthreads(); /* B2: raw kt + 1 visible to all */
            const int ls = cs == 0 ? S - 1 : cs - 1; /* (kt + S - 1) % S: raw stage of kt - 1 */
            if (kt + S - 1 < KT)
                tc_load_stage<wg_cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0,
                                                kt + S - 1, a_vec, b_vec, tid);
            tc_cp_async_commit();
            if (kt + 1 < KT) {
                const int ns = cs + 1 == S ? 0 : cs + 1;
                float *pl = planes + ((kt + 1) & 1) * 2 * WG_PLANE;
                wg_split_b<BKC, CHECK>(pl, pl + WG_PLANE, sB + ns * BE, tid, gmx, gmn);
                wg_fence_proxy_async();
            }
            wg_steps123<AKC, CHECK>(acc, t, fa, ab, as, sAc, wm0, lane, pb, ps, gmx, gmn);
            wg_wait<0>();
            wg_flush64(acc, t);
            cs = cs + 1 == S ? 0 : cs + 1;
        }
        tc_cp_async_wait<0>();
        __syncthreads(); /* the next tile's prologue overwrites stages and planes */

        /* A tile with an out-of-range element in its panels stores nothing (the fixup
         * recomputes it; x3guard.cuh). */
        if (CHECK && x3g_tile_out(g, gmx, gmn, tm + tn * ntm)) continue;
        wg_store_tile(p, C, alpha, beta, acc, t, m0, n0, wm0, lane);
    }
#else
    /* Not built for sm_90a: never launched (dispatch requires a compute capability 9.0 GPU,
     * where the sm_90a code is loaded). Fail loudly rather than return garbage. */
    (void)p;
    (void)a_vec;
    (void)b_vec;
    (void)kc;
    (void)g;
#ifdef __CUDA_ARCH__
    __trap();
#endif
#endif
}

/* ---------------------------------------------------------------------------------------
 * Launcher: transpose instantiation, 16-byte copy eligibility, dynamic shared memory.
 * ------------------------------------------------------------------------------------- */
/* p: the call; q: the same with the workspace after the guard's bytes (split-K slabs);
 * scan: the tail-scan blocks after the tiles (CHECK false), else 0. */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
static cudaError_t wg_launch_s(const mb_gemm_args *p, const mb_gemm_args *q, mb_splitk sp, x3g g,
                               int64_t scan, cudaStream_t s) {
    const size_t smem = wg_smem_bytes(AKC, BKC);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    cudaError_t e = mb_smem_limit_once((const void *)wg_tf32x3_kernel<AKC, BKC, SPLIT, CHECK>,
                                       (int)smem, &smem_set);
    if (e != cudaSuccess) return e;
    const bool a_vec = ((uintptr_t)p->A % 16 == 0) && ((p->lda * (int64_t)sizeof(float)) % 16 == 0);
    const bool b_vec = ((uintptr_t)p->B % 16 == 0) && ((p->ldb * (int64_t)sizeof(float)) % 16 == 0);
    const int64_t tiles = mb_cdiv(p->m, WG_BM) * mb_cdiv(p->n, WG_BN);
    const dim3 grid(mb_grid_dim(tiles + scan, MB_GRID_X_MAX), (unsigned)sp.S);
    wg_tf32x3_kernel<AKC, BKC, SPLIT, CHECK>
        <<<grid, WG_THREADS, smem, s>>>(*q, a_vec, b_vec, sp.kc, g);
    e = cudaGetLastError();
    if (e == cudaSuccess && SPLIT) e = x3g_reduce(p, q, sp.S, g, s);
    return e == cudaSuccess ? x3g_end(p, g, s) : e;
}
template <bool AKC, bool BKC>
static cudaError_t wg_launch_t(const mb_gemm_args *p, cudaStream_t s) {
    x3g g;
    mb_gemm_args q;
    mb_splitk sp;
    int64_t scan;
    const cudaError_t e = wg_plan(p, &g, &q, &sp, &scan, 0, s);
    if (e != cudaSuccess) return e;
    if (sp.S > 1) return wg_launch_s<AKC, BKC, true, true>(p, &q, sp, g, 0, s);
    return scan > 0 ? wg_launch_s<AKC, BKC, false, false>(p, &q, sp, g, scan, s)
                    : wg_launch_s<AKC, BKC, false, true>(p, &q, sp, g, 0, s);
}

extern "C" cudaError_t mb_sgemm_wgmma_tf32x3(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) {
        if (p->transb) return wg_launch_t<true, false>(p, s);
        return wg_launch_t<true, true>(p, s);
    }
    if (p->transb) return wg_launch_t<false, false>(p, s);
    return wg_launch_t<false, true>(p, s);
}
