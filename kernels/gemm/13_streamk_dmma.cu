/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 13 of the dgemm ladder, streamk_dmma (dgemm only): rung 12's big tile (128x64, its XMMA
 * main loop in the interleaved order) scheduled stream-K. Rung 12 runs one block per tile in
 * waves; when the last wave is partly full (1280^3: 200 tiles on 264 block slots; 1920^3: 450 =
 * 1.7 waves) the SMs that have no tile in it idle for a whole tile time. Here a persistent grid
 * of exactly the resident capacity (SMs x blocks per SM, from the occupancy query) takes the
 * tiles of the whole waves but one data-parallel, and shares the k-tiles of the rest out in
 * equal contiguous ranges, one per block (CUTLASS's split: streamk.h). A block that computes
 * part of a tile without its first k-tile writes that partial to the handle's gemm workspace
 * and sets a flag; the block with the tile's first k-tile waits for the flags and adds the
 * partials in k order (deterministic: the same call gives the same bits every time), then
 * applies alpha and beta once. Waiting cannot deadlock: a block waits only for blocks of higher
 * index, for the first segment of their range, which they compute before anything that could
 * wait, and every block of the grid is resident at once.
 *
 * Why: every SM gets the same number of k-tiles (within one), so no partial last wave.
 * Limit: the fixup (a 64 KB partial written and read per shared tile, flags zeroed by a
 * memset per call); each shared tile is computed in pieces with their own pipeline prologue.
 * Runs only where the XMMA loop takes every tile (k a multiple of 16, 16-byte aligned
 * operands, m >= 128, n >= 64, edge tiles shifted inside) and the tiles leave a partial wave;
 * elsewhere, with too little workspace, or fewer than 6 k-tiles per block, it calls rung 12.
 * Resources: 128 threads and about 79.5 KB of shared memory per block, 2 blocks per SM.
 * Current figure (H100, perf/results/h100/streamk/): 1280^3 NN 0.98x cuBLAS DGEMM (rung 12:
 * 0.91x), 1920^3 0.91x (0.83x); slower than rung 12 where that uses its mid or small tiles
 * and on large squares (4096^3 0.91x against 0.96x). auto (src/auto.c) takes it on 9.0 only
 * where it gained (streamk.h, mb_sk_pays: at most two waves of tiles with the last 55-85%
 * full, or NN with less than one wave and k >= 4096), rung 12 elsewhere.
 */
#include "tc_common.cuh"
#include "streamk.h"

extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s);

/* Rung 12's big tile (12_dmma.cu, dmma_big_cfg), the same configuration; its sizes are
 * streamk.h's, which auto's mb_sk_pays counts tiles and waves with. */
typedef tc_cfg<double, MB_SK_BM, MB_SK_BN, MB_SK_BK, 64, 32, 3, MB_SK_BLOCKS_PER_SM, 8,
               TC_PIPE_XMMA, true>
    sk_cfg;

/* Partial slot layout: register v of fragment (mi, ni) of thread tid at
 * ((mi NI + ni) 4 + v) NTHREADS + tid, so a warp's 32 stores or loads are 256 contiguous
 * bytes and the owner reads back exactly the elements its own registers hold. */
template <class Cfg>
__device__ __forceinline__ int64_t sk_slot_index(int mi, int ni, int v, int tid) {
    return (int64_t)((mi * Cfg::NI + ni) * 4 + v) * Cfg::NTHREADS + tid;
}

__device__ __forceinline__ unsigned sk_load_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Worker blockIdx.x of the persistent grid: its data-parallel tiles, then its stream-K
 * range (streamk.h), one segment (tile t, k-tiles [kb, ke)) at a time. */
template <class Cfg, bool AKC, bool BKC>
__global__ void __launch_bounds__(Cfg::NTHREADS, Cfg::MIN_BLOCKS)
    sk_dmma_kernel(mb_gemm_args p, mb_sk_plan pl, int shift) {
#if TC_HAS_MMA
    typedef double T;
    constexpr int MI = Cfg::MI, NI = Cfg::NI, BK = Cfg::BK;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    constexpr int64_t TE = (int64_t)Cfg::BM * Cfg::BN; /* elements of a partial slot */
    extern __shared__ __align__(16) unsigned char tc_smem[];
    T *sA = (T *)tc_smem;
    T *sB = sA + Cfg::STAGES * AE;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int64_t ntm = (p.m + Cfg::BM - 1) / Cfg::BM, ntn = (p.n + Cfg::BN - 1) / Cfg::BN;
    const int64_t w = blockIdx.x, I = pl.iters;
    unsigned *flags = (unsigned *)p.work;
    T *slots = (T *)((char *)p.work + MB_SK_FLAG_BYTES(pl.workers));
    const T alpha = (T)p.alpha, beta = (T)p.beta;

    int64_t dp = w;                                           /* next data-parallel tile */
    int64_t it = w < pl.sk_workers ? mb_sk_start(&pl, w) : 0; /* next stream-K iteration */
    const int64_t it_end = w < pl.sk_workers ? mb_sk_start(&pl, w + 1) : 0;
    int64_t t, kb, ke; /* each segment: tile t, k-tiles [kb, ke) */
    while (mb_sk_next(&pl, &dp, &it, it_end, &t, &kb, &ke)) {
        int64_t tm, tn, r0, c0, m0, n0; /* owned from (r0, c0), computed from (m0, n0) */
        tc_tile_coords(t, ntm, ntn, &tm, &tn);
        tc_tile_place<Cfg>(tm, tn, p.m, p.n, shift, &r0, &c0, &m0, &n0);
        /* The segment's operands: A and B from k = kb BK, ke - kb k-tiles deep. */
        mb_gemm_args q = p;
        const int64_t k0 = kb * BK;
        int64_t off_a, off_b;
        mb_sk_operand_offsets(AKC, BKC, p.lda, p.ldb, k0, &off_a, &off_b);
        q.A = (const T *)p.A + off_a;
        q.B = (const T *)p.B + off_b;
        q.k = (ke - kb) * BK;
        const int64_t KT = ke - kb;

        T acc[MI][NI][4];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[mi][ni][v] = T(0);
        /* Prologue: STAGES - 1 k-tiles in flight (empty groups past the end keep the count). */
#pragma unroll
        for (int s = 0; s < Cfg::STAGES - 1; ++s) {
            if (s < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + s * AE, sB + s * BE, q, m0, n0, s, true, true,
                                             tid);
            tc_cp_async_commit();
        }
        /* The interleaved order: with rung 12's straight-line one this kernel spilled in the
         * loop (and its C went wrong in some tiles, test_dgemm_streamk_gpu on an H100). */
        tc_mainloop_f64_xmma<Cfg, AKC, BKC, false>(acc, sA, sB, q, m0, n0, KT, tid, wm0, wn0,
                                                   lane);
        tc_cp_async_wait<0>();
        __syncthreads(); /* the next segment's prologue overwrites the stages */

        if (kb > 0) {
            /* Not the tile's first k-tile: the first segment of this worker's range (w >= 1).
             * The partial (no alpha) to slot w - 1, then flag w (release after all stores). */
            T *slot = slots + (w - 1) * TE;
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                    for (int v = 0; v < 4; ++v)
                        __stcg(slot + sk_slot_index<Cfg>(mi, ni, v, tid), acc[mi][ni][v]);
            __syncthreads();
            if (tid == 0) {
                __threadfence();
                atomicExch(flags + w, 1u);
            }
            continue;
        }
        if (ke < I) {
            /* The tile's first k-tiles, the rest computed by workers w + 1, w + 2, ... (the
             * last segment of this range): wait for their flags, then add their partials in
             * that order, i.e. in increasing k. */
            const int64_t tile_end = (t + 1) * I;
            if (tid == 0) {
                for (int64_t v = w + 1; v < pl.sk_workers && mb_sk_start(&pl, v) < tile_end; ++v)
                    if (mb_sk_contrib(&pl, v, t))
                        while (sk_load_acquire(flags + v) == 0u) __nanosleep(100);
                __threadfence();
            }
            __syncthreads();
            for (int64_t v = w + 1; v < pl.sk_workers && mb_sk_start(&pl, v) < tile_end; ++v) {
                if (!mb_sk_contrib(&pl, v, t)) continue;
                const T *slot = slots + (v - 1) * TE;
#pragma unroll
                for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                        for (int u = 0; u < 4; ++u)
                            acc[mi][ni][u] += __ldcg(slot + sk_slot_index<Cfg>(mi, ni, u, tid));
            }
        }
        /* C = alpha acc + beta C over the elements the tile owns (rung 12's epilogue). */
        tc_store_c<Cfg>(acc, (T *)p.C, p.ldc, m0, n0, r0, c0, p.m, p.n, alpha, beta, wm0, wn0,
                        lane);
    }
#endif
}

/* Per device and instantiation: blocks of the kernel resident per SM (0: it cannot run here,
 * e.g. no sm_80+ code for this GPU), queried once. */
template <bool AKC, bool BKC>
static cudaError_t sk_blocks_per_sm(int *per_sm) {
    static int cache[MB_MAX_DEVICES]; /* blocks per SM + 1; 0: not asked yet */
    static unsigned long long smem_set;
    const void *fn = (const void *)sk_dmma_kernel<sk_cfg, AKC, BKC>;
    const int smem = (int)sk_cfg::smem_bytes(AKC, BKC);
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    const int cached = dev >= 0 && dev < MB_MAX_DEVICES;
    const int c = cached ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (c > 0) {
        *per_sm = c - 1;
        return cudaSuccess;
    }
    e = mb_smem_limit_once(fn, smem, &smem_set);
    if (e != cudaSuccess) return e;
    cudaFuncAttributes fa;
    e = cudaFuncGetAttributes(&fa, fn);
    if (e != cudaSuccess) return e;
    int n = 0;
    if (fa.binaryVersion >= 80) { /* the mma.sync / cp.async code (TC_HAS_MMA) */
        e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, sk_cfg::NTHREADS, (size_t)smem);
        if (e != cudaSuccess) return e;
    }
    if (cached) __atomic_store_n(&cache[dev], n + 1, __ATOMIC_RELAXED);
    *per_sm = n;
    return cudaSuccess;
}

/* Stream-K where it applies (the header comment; streamk.h, mb_sk_make_plan), else rung 12. */
template <bool AKC, bool BKC>
static cudaError_t sk_launch(const mb_gemm_args *p, cudaStream_t s) {
    typedef sk_cfg Cfg;
    const int shift = tc_edge_shift<Cfg, AKC, BKC>(p);
    /* every tile on the XMMA loop: k a multiple of BK, 16-byte copies, and each edge tile
     * shifted inside the matrix (or no edge) */
    const bool inside_m = p->m >= Cfg::BM && (p->m % Cfg::BM == 0 || (shift & 1));
    const bool inside_n = p->n >= Cfg::BN && (p->n % Cfg::BN == 0 || (shift & 2));
    if (!p->work || p->k % Cfg::BK != 0 || !tc_vec16<double>(p->A, p->lda) ||
        !tc_vec16<double>(p->B, p->ldb) || !inside_m || !inside_n)
        return mb_dgemm_dmma(p, s);
    int sms = 0, per_sm = 0;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    e = sk_blocks_per_sm<AKC, BKC>(&per_sm);
    if (e != cudaSuccess) return e;
    mb_sk_plan pl;
    const int64_t tiles = mb_cdiv(p->m, Cfg::BM) * mb_cdiv(p->n, Cfg::BN);
    const size_t tile_bytes = (size_t)Cfg::BM * Cfg::BN * sizeof(double);
    if (!mb_sk_make_plan(tiles, p->k / Cfg::BK, (int64_t)sms * per_sm, p->work_bytes, tile_bytes,
                         &pl))
        return mb_dgemm_dmma(p, s);
    e = cudaMemsetAsync(p->work, 0, MB_SK_FLAG_BYTES(pl.workers), s);
    if (e != cudaSuccess) return e;
    sk_dmma_kernel<Cfg, AKC, BKC><<<(unsigned)pl.workers, Cfg::NTHREADS,
                                    Cfg::smem_bytes(AKC, BKC), s>>>(*p, pl, shift);
    return cudaGetLastError();
}

extern "C" cudaError_t mb_dgemm_streamk_dmma(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) return p->transb ? sk_launch<true, false>(p, s) : sk_launch<true, true>(p, s);
    return p->transb ? sk_launch<false, false>(p, s) : sk_launch<false, true>(p, s);
}
