/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tensor-core GEMM (tc_common.cuh): the kernel tc_gemm_kernel (tile loop, prologue, main
 * loop, epilogue, 3xTF32 range guard, split-K and tail slices), the tail reduction and the
 * launchers (edge shift, alignment check, split-K plan, transpose instantiation).
 */
#ifndef MINIBLAS_GEMM_TC_KERNEL_CUH
#define MINIBLAS_GEMM_TC_KERNEL_CUH

#include "splitk.cuh"
#include "x3guard.cuh"
#include "tc_mainloop.cuh"

/* ---------------------------------------------------------------------------------------
 * The epilogue (rungs 12-14, so that their C agree bit for bit): C = alpha acc + beta C over
 * the elements a warp's accumulator fragments hold, where the tile owns them (rows from r0,
 * columns from c0, inside m x n). A warp writes, per register, 8 consecutive rows in each of
 * 4 columns (full 32-byte sectors). With beta != 0 the C values of a 16-row strip are all
 * loaded before any is stored: loads interleaved with stores to the same array cannot be
 * reordered (they might alias), so each would wait a full memory latency (measured on an
 * H200: a rank-512 update of 8192^2 with beta = 1 took 1.6x as long as with beta = 0).
 * A tile wholly inside C and wholly owned stores from 8 column pointers at constant row
 * offsets, without a test per element, and with alpha = 1, beta = 0 stores acc as it is
 * (1 x acc is acc): per warp about 80 instructions instead of 1,200 (on one H100 at
 * 4096x4096x256 the old epilogue held 19% of the big tile's stall samples, cuBLAS's 9.5%;
 * with this one rung 14 took 7% less time there, rung 12 the same:
 * perf/results/h100/dgemm-epilogue/). alpha acc + beta C is one explicit fused multiply-add,
 * fma(alpha, acc, beta C), on every path, so ptxas cannot contract it differently per rung.
 * EF (rung 14): with beta = 0 such a tile stores C evict_first (tc_l2_policy): written
 * once, C should not push the operands out of L2 (hinted, the other paths made rung 14's
 * kernel spill).
 * ------------------------------------------------------------------------------------- */
__device__ __forceinline__ double tc_fma(double a, double b, double c) { return __fma_rn(a, b, c); }
__device__ __forceinline__ float tc_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
/* One element of C; with EF cached evict_first (tc_l2_policy). */
template <bool EF, typename T>
__device__ __forceinline__ void tc_st_c(T *a, T v) {
    static_assert(!EF || sizeof(T) == 8, "the evict_first store is an FP64 store");
#if TC_HAS_MMA
    if constexpr (EF) {
        asm volatile("st.global.L2::cache_hint.f64 [%0], %1, %2;\n" ::"l"(
                         __cvta_generic_to_global(a)),
                     "d"(v), "l"(tc_l2_policy<false>())
                     : "memory");
        return;
    }
#endif
    *a = v;
}

template <class Cfg, bool EF = false>
__device__ __forceinline__ void tc_store_c(const typename Cfg::T (&acc)[Cfg::MI][Cfg::NI][4],
                                           typename Cfg::T *C, int64_t ldc, int64_t m0,
                                           int64_t n0, int64_t r0, int64_t c0, int64_t m,
                                           int64_t n, typename Cfg::T alpha,
                                           typename Cfg::T beta, int wm0, int wn0, int lane) {
    typedef typename Cfg::T T;
    constexpr int MI = Cfg::MI, NI = Cfg::NI;
    if (r0 == m0 && c0 == n0 && m0 + Cfg::BM <= m && n0 + Cfg::BN <= n) {
        /* element (mi, ni, v) at row mi * 16 + 8 (v >> 1), column 2 ni + (v & 1) of cb */
        T *cb = C + (m0 + wm0 + (lane >> 2)) + (n0 + wn0 + 2 * (lane & 3)) * ldc;
        T *col[NI][2];
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int j = 0; j < 2; ++j) col[ni][j] = cb + (ni * 8 + j) * ldc;
        if (beta == T(0)) {
            auto store = [&](bool scale) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                        for (int v = 0; v < 4; ++v)
                            tc_st_c<EF>(&col[ni][v & 1][mi * 16 + 8 * (v >> 1)],
                                        scale ? alpha * acc[mi][ni][v] : acc[mi][ni][v]);
            };
            if (alpha == T(1))
                store(false);
            else
                store(true);
            return;
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            T cv[NI][4];
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) cv[ni][v] = col[ni][v & 1][mi * 16 + 8 * (v >> 1)];
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v)
                    col[ni][v & 1][mi * 16 + 8 * (v >> 1)] =
                        tc_fma(alpha, acc[mi][ni][v], beta * cv[ni][v]);
        }
        return;
    }
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
        T cv[NI][4];
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const int64_t r = m0 + wm0 + mi * 16 + tc_frag_c_row(lane, v);
                const int64_t c = n0 + wn0 + ni * 8 + tc_frag_c_col(lane, v);
                cv[ni][v] = beta != T(0) && r >= r0 && r < m && c >= c0 && c < n
                                ? C[r + c * ldc]
                                : T(0);
            }
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const int64_t r = m0 + wm0 + mi * 16 + tc_frag_c_row(lane, v);
                const int64_t c = n0 + wn0 + ni * 8 + tc_frag_c_col(lane, v);
                if (r >= r0 && r < m && c >= c0 && c < n)
                    C[r + c * ldc] = beta == T(0) ? alpha * acc[mi][ni][v]
                                                  : tc_fma(alpha, acc[mi][ni][v], beta * cv[ni][v]);
            }
    }
}

/* ---------------------------------------------------------------------------------------
 * The kernel. One block per BM x BN tile of C (tiles beyond the grid are looped over).
 * ------------------------------------------------------------------------------------- */
template <class Cfg, int OP, bool AKC, bool BKC, bool SPLIT>
__global__ void __launch_bounds__(Cfg::NTHREADS, Cfg::MIN_BLOCKS)
    tc_gemm_kernel(mb_gemm_args p, bool a_vec, bool b_vec, int64_t kc, int shift, mb_tail tail,
                   x3g g, bool dep) {
    typedef typename Cfg::T T;
    /* dep: a programmatic dependent launch of one wave, capped to ceil(blocks / SMs) blocks
     * per SM (tc_gemm_launch_s): its blocks may be resident before the kernel before it in the
     * stream has ended, and wait for it here, before they touch global memory; they let the
     * kernels after them be scheduled (the slab sums, the next call's first kernel, each of
     * which waits for this grid's end in turn) only after the main loop of their last tile,
     * as this grid drains. Otherwise a plain launch, and what follows may be scheduled at
     * once: the slab sums and the fixup wait for this grid's end before reading anything. */
    if (dep) mb_grid_wait();
    else mb_grid_launch_next();
    /* 3xTF32 (range guard, x3guard.cuh): every split-K slice, slice 0 too, writes alpha times
     * its partial to a slab (slab s), so that C stays intact for the fixup; p.work is the
     * workspace after the guard's bytes. */
    constexpr bool X3 = OP == TC_OP_TF32X3;
    if (SPLIT && X3) {
        p = mb_splitk_slice<T>(p, blockIdx.y, kc);
        p.C = (T *)p.work + (int64_t)blockIdx.y * p.m * p.n;
        p.ldc = p.m;
        p.beta = 0.0;
    } else if (SPLIT) {
        p = mb_splitk_part<T>(p, blockIdx.y, kc); /* split-K: this block's slice */
    }
    static_assert(OP == TC_OP_DMMA || (Cfg::DK == 4 && Cfg::PIPE == TC_PIPE_STEP2),
                  "DK and PIPE are FP64 options");
    const int64_t ntm = (p.m + Cfg::BM - 1) / Cfg::BM, ntn = (p.n + Cfg::BN - 1) / Cfg::BN;
    const int64_t ntiles = ntm * ntn;
    /* Tail split (splitk.cuh, mb_tail): blocks from tail.t0 on compute slice s of tail tile
     * t0 + j % rem (j = block - t0); slices s > 0 write a compact BM x BN slab. */
    int64_t tile0 = blockIdx.x;
    T *C = (T *)p.C;
    bool to_slab = false;
    if (Cfg::TAIL && !SPLIT && (int64_t)blockIdx.x >= tail.t0) {
        const int64_t j = blockIdx.x - tail.t0, rem = ntiles - tail.t0;
        const int s = (int)(j / rem);
        tile0 = tail.t0 + j % rem;
        p = mb_splitk_slice<T>(p, s, tail.kc);
        if (s > 0 || X3) { /* 3xTF32: slab s (C intact for the fixup); else slab s - 1 */
            C = (T *)p.work + ((int64_t)(X3 ? s : s - 1) * rem + j % rem) * (Cfg::BM * Cfg::BN);
            to_slab = true;
            p.beta = 0.0;
        }
    }
    const T alpha = (T)p.alpha, beta = (T)p.beta;
#if TC_HAS_MMA
    extern __shared__ __align__(16) unsigned char tc_smem[];
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    T *sA = (T *)tc_smem;
    T *sB = sA + Cfg::STAGES * AE;
    /* 3xTF32: the split planes of the current stage follow the stages (16-byte aligned: AE
     * and BE are multiples of 16 bytes). */
    float *sX = (float *)(sB + Cfg::STAGES * BE);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int64_t KT = (p.k + Cfg::BK - 1) / Cfg::BK;

    for (int64_t tile = tile0; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        int64_t r0, c0, m0, n0; /* owned from (r0, c0), computed from (m0, n0) */
        tc_tile_place<Cfg>(tm, tn, p.m, p.n, shift, &r0, &c0, &m0, &n0);

        T acc[Cfg::MI][Cfg::NI][4];
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[mi][ni][v] = T(0);
        unsigned gmx, gmn; /* 3xTF32 range guard over the elements this thread splits */
        x3g_init(gmx, gmn);

        /* The interior tiles of a TC_PIPE_STREAM kernel with an even number of m16n8k8 steps
         * per stage run tc_mainloop_f64_lean, prologue included. */
        bool lean = false;
        if constexpr (OP == TC_OP_DMMA && Cfg::PIPE == TC_PIPE_STREAM && Cfg::DK == 8 &&
                      Cfg::BK % 16 == 0 && Cfg::NI >= 2)
            lean = a_vec && b_vec && p.k % Cfg::BK == 0 && m0 + Cfg::BM <= p.m &&
                   n0 + Cfg::BN <= p.n;
        /* Prologue: STAGES-1 k-tiles in flight (empty groups past the end keep the count). */
#pragma unroll
        for (int s = 0; s < Cfg::STAGES - 1 && !lean; ++s) {
            if (s < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + s * AE, sB + s * BE, p, m0, n0, s, a_vec, b_vec,
                                             tid);
            tc_cp_async_commit();
        }
        int cs = 0, ls = Cfg::STAGES - 1; /* stages of k-tiles kt and kt + STAGES - 1 */
        /* TC_PIPE_XMMA takes the tiles it can (its comment), the STEP loop below the rest. */
        bool xmma = false;
        if constexpr (OP == TC_OP_DMMA && Cfg::PIPE == TC_PIPE_XMMA) {
            xmma = a_vec && b_vec && p.k % Cfg::BK == 0 && m0 + Cfg::BM <= p.m &&
                   n0 + Cfg::BN <= p.n;
            if (xmma)
                tc_mainloop_f64_xmma<Cfg, AKC, BKC>(acc, sA, sB, p, m0, n0, KT, tid, wm0, wn0,
                                                    lane);
        }
        if constexpr (OP == TC_OP_DMMA && Cfg::PIPE == TC_PIPE_STREAM) {
            if constexpr (Cfg::DK == 8 && Cfg::BK % 16 == 0 && Cfg::NI >= 2)
                if (lean)
                    tc_mainloop_f64_lean<Cfg, AKC, BKC>(acc, sA, sB, p, m0, n0, KT, tid, wm0,
                                                        wn0, lane);
            if (!lean)
                tc_mainloop_f64_stream<Cfg, AKC, BKC>(acc, sA, sB, p, m0, n0, KT, a_vec, b_vec,
                                                      tid, wm0, wn0, lane);
        } else
        for (int64_t kt = 0; kt < KT && !xmma; ++kt) {
            /* Groups committed so far: STAGES-1 + kt; at most STAGES-2 pending means k-tile
             * kt has landed (for this thread; the barrier makes it so for all, and also
             * frees the buffer read in iteration kt-1, which is refilled next). */
            tc_cp_async_wait<Cfg::STAGES - 2>();
            __syncthreads();
            const int64_t nk = kt + Cfg::STAGES - 1;
            /* k steps of one stage: 8 deep (TF32), DK deep (FP64) */
            constexpr int NS = OP == TC_OP_DMMA ? Cfg::BK / Cfg::DK : Cfg::BK / Cfg::KSTEP;
            if constexpr (OP == TC_OP_TF32X3) {
                /* The split copy is free: every warp finished the previous k-tile's mma
                 * before the barrier above. The barrier below publishes it. */
                tc_split_stage<Cfg, AKC, BKC>(sX, (const float *)(sA + cs * AE),
                                              (const float *)(sB + cs * BE), tid, gmx, gmn);
                __syncthreads();
                tc_warp_mma_x3<Cfg, AKC, BKC, 0, 1>(acc, sX, wm0, wn0, lane);
            } else {
                tc_warp_mma<Cfg, OP, AKC, BKC, 0, 1>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                     lane);
            }
            /* The next copies go to stage ls, last read in iteration kt - 1 (every warp has
             * passed the barrier above since); issued after the first k step's mma so that
             * their address arithmetic overlaps the tensor cores' work. */
            if (nk < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0, nk, a_vec,
                                             b_vec, tid);
            tc_cp_async_commit();
            if constexpr (OP == TC_OP_TF32X3)
                tc_warp_mma_x3<Cfg, AKC, BKC, 1, NS>(acc, sX, wm0, wn0, lane);
            else
                tc_warp_mma<Cfg, OP, AKC, BKC, 1, NS>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                      lane);
            cs = cs + 1 == Cfg::STAGES ? 0 : cs + 1;
            ls = ls + 1 == Cfg::STAGES ? 0 : ls + 1;
        }
        tc_cp_async_wait<0>();
        __syncthreads(); /* the next tile's prologue overwrites the stages */
        if (dep && tile + gridDim.x >= ntiles) mb_grid_launch_next(); /* its last tile */
        /* 3xTF32: a tile with an out-of-range element in its panels stores nothing (its
         * bit is set; the fixup recomputes the elements it owns; x3guard.cuh). */
        if constexpr (X3) {
            static_assert(Cfg::BM <= X3G_TILE && Cfg::BN <= X3G_TILE, "the fixup's tile");
            if (x3g_tile_out(g, gmx, gmn, tm + tn * ntm)) continue;
        }

        /* A tail slab holds the tile from (m0, n0), ld BM. */
        const int64_t ldo = to_slab ? Cfg::BM : p.ldc, off = to_slab ? m0 + n0 * Cfg::BM : 0;
        tc_store_c<Cfg>(acc, C - off, ldo, m0, n0, r0, c0, p.m, p.n, alpha, beta, wm0, wn0,
                        lane);
    }
#else
    /* Before sm_80 there is no mma.sync / cp.async: a plain (slow, correct) product per
     * element of the tile, so the rung stays valid on any GPU it is built for. */
    const T *A = (const T *)p.A, *B = (const T *)p.B;
    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        for (int e = threadIdx.x; e < Cfg::BM * Cfg::BN; e += blockDim.x) {
            const int64_t r = tm * Cfg::BM + e % Cfg::BM, c = tn * Cfg::BN + e / Cfg::BM;
            if (r >= p.m || c >= p.n) continue;
            T s = 0;
            for (int64_t q = 0; q < p.k; ++q)
                s += (AKC ? A[q + r * p.lda] : A[r + q * p.lda]) *
                     (BKC ? B[q + c * p.ldb] : B[c + q * p.ldb]);
            T *dst = C + r + c * p.ldc;
            *dst = beta == T(0) ? alpha * s : alpha * s + beta * *dst;
        }
    }
#endif
}

/* ---------------------------------------------------------------------------------------
 * Launcher: picks the transpose instantiation, checks alignment for the 16-byte path.
 * ------------------------------------------------------------------------------------- */
/* Edge tiles computed from inside the matrix (bit 0: in m, bit 1: in n). The last tile row
 * (column) of a matrix whose m (n) is not a multiple of BM (BN) is computed from m - BM
 * (n - BN) instead, so its copies take the interior path (no per-chunk bounds checks, no
 * zero fill) like every other tile; it then stores only the rows (columns) it owns, the
 * ones the tile before it does not: no element is written twice, and with beta != 0 each
 * is read and scaled once. Allowed where the matrix holds a whole tile and the shifted
 * origin keeps the 16-byte chunks aligned: along an operand's contiguous dimension that
 * needs m (n) to be a multiple of the chunk's elements; along the other it needs nothing.
 * Measured on an H100 (dmma, % of cuBLAS DGEMM NN / TT, alternating processes with and without):
 * 1000x600x700 TT 68-69 -> 92%, 1000x576x704 75-77 -> 86-90%, 2052x2060x2048 72 -> 80-82%;
 * shapes without edge tiles unchanged (1024x576x704 84-88%, 1152^3 71-73%). */
template <class Cfg, bool AKC, bool BKC>
static int tc_edge_shift(const mb_gemm_args *p) {
    constexpr int VEC = Cfg::VEC;
    const bool sm = p->m >= Cfg::BM && (AKC || p->m % VEC == 0); /* A inner dim is m unless AKC */
    const bool sn = p->n >= Cfg::BN && (BKC || p->n % VEC == 0); /* B inner dim is n unless BKC */
    return (sm ? 1 : 0) | (sn ? 2 : 0);
}

/* C += the tail slabs (mb_tail): block (j, y) adds element e = 256 y + thread of tail tile
 * t0 + j, in slice order, where the tile owns it (the same ownership as the kernel's
 * epilogue, edge shift included). */
/* X3 (the 3xTF32 range guard): slab 0 holds slice 0 too and C = beta * C + the slabs, for
 * the tiles whose guard bit is clear (beta == 0: C not read). */
template <class Cfg, bool X3>
__global__ void tc_tail_reduce_kernel(typename Cfg::T *C, int64_t ldc, const typename Cfg::T *W,
                                      int64_t m, int64_t n, int64_t t0, int slabs, int shift,
                                      typename Cfg::T beta, x3g g) {
    typedef typename Cfg::T T;
    mb_grid_wait(); /* programmatic dependent launch: the gemm's slabs and C */
    mb_grid_launch_next();
    constexpr int64_t TE = (int64_t)Cfg::BM * Cfg::BN;
    const int64_t e = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
    if (e >= TE) return;
    const int64_t ntm = (m + Cfg::BM - 1) / Cfg::BM, ntn = (n + Cfg::BN - 1) / Cfg::BN;
    const int64_t rem = ntm * ntn - t0, j = blockIdx.x;
    int64_t tm, tn;
    tc_tile_coords(t0 + j, ntm, ntn, &tm, &tn);
    int64_t r0, c0, m0, n0;
    tc_tile_place<Cfg>(tm, tn, m, n, shift, &r0, &c0, &m0, &n0);
    const int64_t r = m0 + e % Cfg::BM, c = n0 + e / Cfg::BM;
    if (r < r0 || r >= m || c < c0 || c >= n) return;
    if (X3) {
        if (x3g_bit(g, tm + tn * ntm)) return;
        T v = W[j * TE + e];
        for (int s = 1; s < slabs; ++s) v += W[(s * rem + j) * TE + e];
        C[r + c * ldc] = beta == T(0) ? v : v + beta * C[r + c * ldc];
        return;
    }
    T v = C[r + c * ldc];
    for (int s = 0; s < slabs; ++s) v += W[(s * rem + j) * TE + e];
    C[r + c * ldc] = v;
}

/* Whether an operand takes the 16-byte copies: pointer and leading dimension aligned. */
template <typename T>
static bool tc_vec16(const void *ptr, int64_t ld) {
    return (uintptr_t)ptr % 16 == 0 && (ld * (int64_t)sizeof(T)) % 16 == 0;
}

/* p: the call; q: the same with the workspace for slabs (3xTF32: after the guard's bytes). */
template <class Cfg, int OP, bool AKC, bool BKC, bool SPLIT>
static cudaError_t tc_gemm_launch_s(const mb_gemm_args *p, const mb_gemm_args *q, mb_splitk sp,
                                    x3g g, cudaStream_t s) {
    typedef typename Cfg::T T;
    constexpr bool X3 = OP == TC_OP_TF32X3;
    const size_t smem = Cfg::smem_bytes(AKC, BKC, OP == TC_OP_TF32X3);
    const bool a_vec = tc_vec16<T>(p->A, p->lda), b_vec = tc_vec16<T>(p->B, p->ldb);
    const int64_t tiles = mb_cdiv(p->m, Cfg::BM) * mb_cdiv(p->n, Cfg::BN);
    const int shift = tc_edge_shift<Cfg, AKC, BKC>(p);
    /* a split launch splits every tile; otherwise perhaps the last wave (mb_tail_plan) */
    const mb_tail tail = SPLIT || !Cfg::TAIL ? mb_tail{tiles, 1, p->k}
                                             : mb_tail_plan(q, tiles, Cfg::MIN_BLOCKS, Cfg::BK,
                                                            (int64_t)Cfg::BM * Cfg::BN, sizeof(T),
                                                            X3 ? 1 : 0);
    const int64_t blocks = tail.t0 + (tiles - tail.t0) * tail.S;
    const dim3 grid(mb_grid_dim(blocks, MB_GRID_X_MAX), (unsigned)sp.S);
    /* A dependent launch only where it is one wave and can keep to as many blocks per SM as
     * an idle GPU gives it (one H100, perf/results/h100/dgemm-pdl/: 512^3 to 1024^3 2-10%
     * faster; without the cap up to 16% slower at 896^3 and 1024^3, where the next call's
     * blocks crowded the SMs that freed first; letting the next call be scheduled before the
     * main loop's end, even capped, 11% slower at 640^3 and 768^3). The kernel's limit is the
     * opt-in maximum whatever the call: one value, which calls from several threads cannot
     * race to set differently. */
    size_t lsmem = smem;
    int optin = 0;
    cudaError_t e = mb_one_wave_smem(smem, (int64_t)grid.x * grid.y, Cfg::MIN_BLOCKS, p->pdl,
                                     &lsmem, &optin);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    if (e == cudaSuccess)
        e = mb_smem_limit_once((const void *)tc_gemm_kernel<Cfg, OP, AKC, BKC, SPLIT>, optin,
                               &smem_set);
    if (e != cudaSuccess) return e;
    cudaLaunchAttribute gattr[1];
    const bool dep = lsmem > smem;
    const cudaLaunchConfig_t gcfg = mb_launch_cfg(gattr, grid, dim3(Cfg::NTHREADS), lsmem, s, dep);
    e = cudaLaunchKernelEx(&gcfg, tc_gemm_kernel<Cfg, OP, AKC, BKC, SPLIT>, *q, a_vec, b_vec,
                           sp.kc, shift, tail, g, dep);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e == cudaSuccess && tail.S > 1) {
        const dim3 rgrid((unsigned)(tiles - tail.t0), (unsigned)mb_cdiv((int64_t)Cfg::BM * Cfg::BN, 256));
        cudaLaunchAttribute attr[1];
        const cudaLaunchConfig_t cfg = mb_launch_cfg(attr, rgrid, dim3(256), 0, s, p->pdl);
        e = cudaLaunchKernelEx(&cfg, tc_tail_reduce_kernel<Cfg, X3>, (T *)p->C, p->ldc,
                               (const T *)q->work, p->m, p->n, tail.t0,
                               X3 ? tail.S : tail.S - 1, shift, (T)p->beta, g);
        if (e == cudaSuccess) e = cudaGetLastError();
    }
    if constexpr (X3) {
        if (e == cudaSuccess && SPLIT) e = x3g_reduce(p, q, sp.S, g, s);
        return e == cudaSuccess ? x3g_end(p, g, s) : e;
    }
    return e == cudaSuccess ? mb_splitk_finish<T>(p, sp, s) : e;
}
/* S == 0: split-K as mb_splitk_plan decides; S >= 1: that many slices (clamped by
 * mb_splitk_make; 1 = no split). */
template <class Cfg, int OP, bool AKC, bool BKC>
static cudaError_t tc_gemm_launch_t(const mb_gemm_args *p, int S, cudaStream_t s) {
    typedef typename Cfg::T T;
    constexpr int X3 = OP == TC_OP_TF32X3 ? 1 : 0;
    x3g g = {NULL, NULL, NULL, NULL, Cfg::BM, Cfg::BN};
    mb_gemm_args q = *p;
    if (X3) { /* the range guard: its bytes zeroed, slabs after them */
        const cudaError_t e = x3g_begin(p, Cfg::BM, Cfg::BN, &g, &q, 0, s);
        if (e != cudaSuccess) return e;
    }
    const int64_t tiles = mb_cdiv(p->m, Cfg::BM) * mb_cdiv(p->n, Cfg::BN);
    const mb_splitk sp = S ? mb_splitk_make(&q, S, Cfg::BK, sizeof(T), X3)
                           : mb_splitk_plan(&q, tiles, Cfg::MIN_BLOCKS, Cfg::BK, sizeof(T), X3);
    return sp.S > 1 ? tc_gemm_launch_s<Cfg, OP, AKC, BKC, true>(p, &q, sp, g, s)
                    : tc_gemm_launch_s<Cfg, OP, AKC, BKC, false>(p, &q, sp, g, s);
}

template <class Cfg, int OP>
static cudaError_t tc_gemm_launch(const mb_gemm_args *p, cudaStream_t s, int S = 0) {
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) {
        if (p->transb) return tc_gemm_launch_t<Cfg, OP, true, false>(p, S, s);
        return tc_gemm_launch_t<Cfg, OP, true, true>(p, S, s);
    }
    if (p->transb) return tc_gemm_launch_t<Cfg, OP, false, false>(p, S, s);
    return tc_gemm_launch_t<Cfg, OP, false, true>(p, S, s);
}

#endif
