/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 10, warptiled: the block / warp / thread hierarchy of cuBLAS-class SIMT kernels. In
 * rung 9 a warp's 32 threads span 2 columns x 128 rows of the block tile, so every warp reads
 * the whole A slice of each k step. Here each warp owns a compact WM x WN warp tile (float
 * 64 x 32) and its lanes form an 8 x 4 grid inside it; a thread's TM x TN tile is made of
 * 16-byte runs spaced 8 (resp. 4) vectors apart. A 16-byte shared load of A then touches 8
 * contiguous addresses (one wavefront, broadcast to the 4 lane columns): half the shared
 * wavefronts of rung 9 per FMA. Also: BK = 16 (float) halves barriers and bookkeeping per FMA;
 * a STAGES-deep cp.async ring in dynamic shared memory (above 48 KB the launcher raises the
 * limit); lanes interleaved (lane bit 0 -> low bit of the row group, bit 1 -> low bit of the
 * column group, as CUTLASS's SIMT kernels do) so that pairs of lanes read the same address and
 * the shared-memory return path packs both operands' returns.
 * Double: an 8 x 4 thread tile (8 x 8 doubles would leave one block per SM), a 128 x 64 block
 * tile, BK = 8, 3 stages.
 *
 * Why: the structure the tuned and tensor-core rungs build on.
 * Limit: it does not beat rung 9 at large n: neither the shared wavefronts nor the return path
 * turned out to be the main bound. One fixed 128 x 128 tile leaves SMs idle on small or skinny
 * C (rung 11).
 * Resources (float 128x128x16, warps 64x32, 8x8, 2 stages / double 128x64x8, 64x16, 8x4, 3
 * stages): 256 threads, 128 registers (2 blocks per SM; the guarded edge-tile loader spills a
 * few dozen bytes, the k-loop fast path none), dynamic shared memory 33 KB float, 36.75 KB
 * double. The kernel is a template over the configuration (mb_wt_cfg); 11_tuned.cu includes
 * this file with MB_GEMM_WARPTILED_NO_LAUNCHERS. Measured: docs/ladders/gemm.md.
 */
#ifndef MB_GEMM_WARPTILED_CU
#define MB_GEMM_WARPTILED_CU
#include "gemm_common.cuh"

/* A configuration: block tile BM x BN x BK, warp tile WM x WN, thread tile TM x TN, STAGES
 * shared buffers, MINB blocks per SM asked of the register allocator (__launch_bounds__), KS
 * k-slices ("sliced k", used by rung 11 only): KS groups of warps each cover the whole BM x BN
 * tile, group s multiplying the k-columns [s*BK/KS, (s+1)*BK/KS) of every shared k-tile; at the
 * end groups 1..KS-1 hand their accumulators to group 0 through shared memory, which adds them in
 * a fixed order (deterministic) and writes C. KS times the warps per block for the same tile:
 * more warps per SM when C has too few tiles to fill the GPU, with no workspace. */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MINB_,
          int KS_ = 1>
struct mb_wt_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int STAGES = STAGES_, MINB = MINB_, KS = KS_;
    static constexpr int NTS = (BM / WM) * (BN / WN) * 32; /* threads of one k-slice */
    static constexpr int NT = NTS * KS;
};

/* Dynamic shared memory of a configuration: the cp.async ring, or the k-slice reduction buffer
 * ((KS-1) partial BM x BN tiles) if that is larger; the two are never live at the same time. */
template <typename T, typename CFG> static inline size_t mb_wt_smem_bytes() {
    constexpr int V = 16 / sizeof(T);
    const size_t ring = (size_t)CFG::STAGES * CFG::BK * ((CFG::BM + V) + (CFG::BN + V)) * sizeof(T);
    const size_t red = (size_t)(CFG::KS - 1) * CFG::BM * CFG::BN * sizeof(T);
    return ring > red ? ring : red;
}

template <typename T, bool TA, bool TB, typename CFG>
__global__ void __launch_bounds__(CFG::NT, CFG::MINB) gemm_warptiled_kernel(mb_gp<T> g) {
    constexpr int BM = CFG::BM, BN = CFG::BN, BK = CFG::BK, WM = CFG::WM, WN = CFG::WN;
    constexpr int TM = CFG::TM, TN = CFG::TN, STAGES = CFG::STAGES, NT = CFG::NT;
    constexpr int KS = CFG::KS, NTS = CFG::NTS, BKS = BK / KS; /* k-slices, their threads, width */
    constexpr int V = 16 / sizeof(T);
    constexpr int LM = WM / TM, LN = WN / TN; /* lanes of a warp along m and n */
    constexpr int WARPS_M = BM / WM;
    constexpr int LDA_S = BM + V, LDB_S = BN + V;
    static_assert(LM * LN == 32 && LM % 2 == 0 && LN % 2 == 0, "32 thread tiles, 2 | LM, LN");
    static_assert(TM % V == 0 && TN % V == 0 && BM % WM == 0 && BN % WN == 0, "tile shapes");
    static_assert(STAGES >= 2, "at least double buffering");
    static_assert(KS >= 1 && BK % KS == 0, "k-slices must split BK evenly");

    extern __shared__ __align__(16) unsigned char mb_smem[];
    T *As = (T *)mb_smem;                 /* STAGES x [BK][LDA_S] */
    T *Bs = As + STAGES * BK * LDA_S;     /* STAGES x [BK][LDB_S] */

    const int tid = threadIdx.x, lane = tid % 32;
    const int slice = tid / NTS, warp = (tid % NTS) / 32; /* k-slice; warp inside the slice */
    const int wm = warp % WARPS_M, wn = warp / WARPS_M;
    /* Lane -> (lm, ln), interleaved so that lanes n and n^2 read the same A vector and lanes n
     * and n^1 the same B vector: lane bit 0 is the low bit of lm, bit 1 the low bit of ln, bits
     * 2-4 the rest. A 16-byte shared load returns 4 registers per lane, i.e. 4 cycles of the
     * 128-byte/cycle shared-memory return path per warp, unless every pair (n, n^1) or every pair
     * (n, n^2) of lanes has the same address: then the returns are packed and it takes 2. With
     * plain lm = lane % LM, ln = lane / LM only the B loads met that rule. */
    const int lm = (lane & 1) | (((lane >> 2) % (LM / 2)) << 1);
    const int ln = ((lane >> 1) & 1) | (((lane >> 2) / (LM / 2)) << 1);
    /* shared offsets of this thread's first run of A and of B (add x*LM, y*LN for run x, y) */
    const int a_off = wm * WM + lm * V, b_off = wn * WN + ln * V;
    const int ks_off = slice * BKS; /* first k-column of this thread's slice in a shared tile */

    const int64_t mt = mb_dcdiv(g.m, BM), nt = mb_dcdiv(g.n, BN);
    const int64_t ktiles = mb_dcdiv(g.k, BK);
    const int64_t stepA = TA ? BK : BK * g.lda, stepB = TB ? BK * g.ldb : BK;

    for (int64_t t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        int64_t tm, tn;
        mb_tile_coords(t, mt, nt, &tm, &tn);
        const int64_t i0 = tm * BM, j0 = tn * BN;
        const int rem_m = mb_rem(g.m, i0, BM), rem_n = mb_rem(g.n, j0, BN);
        const T *Ab = g.A + mb_ia<TA>(i0, 0, g.lda), *Bb = g.B + mb_ib<TB>(0, j0, g.ldb);

        T acc[TM][TN];
#pragma unroll
        for (int x = 0; x < TM; ++x)
#pragma unroll
            for (int y = 0; y < TN; ++y) acc[x][y] = 0;

        /* prologue: tiles 0 .. STAGES-2 in flight, one commit group each (possibly empty) */
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < ktiles) {
                const int rem_k = mb_rem(g.k, (int64_t)s * BK, BK);
                mb_load_tile_async<T, !TA, BM, BK, NT, LDA_S>(As + s * BK * LDA_S, Ab + s * stepA,
                                                              g.lda, rem_m, rem_k, g.vecA, tid);
                mb_load_tile_async<T, TB, BN, BK, NT, LDB_S>(Bs + s * BK * LDB_S, Bb + s * stepB,
                                                             g.ldb, rem_n, rem_k, g.vecB, tid);
            }
            mb_cp_async_commit();
        }
        int rd = 0, wr = STAGES - 1; /* ring positions: stage read at kt, stage written */
        for (int64_t kt = 0; kt < ktiles; ++kt) {
            mb_cp_async_wait<STAGES - 2>(); /* group kt (this thread's) complete */
            __syncthreads();                /* all threads' copies landed; stage wr is free */
            const int64_t nk = kt + STAGES - 1;
            if (nk < ktiles) {
                const int rem_k = mb_rem(g.k, nk * BK, BK);
                mb_load_tile_async<T, !TA, BM, BK, NT, LDA_S>(As + wr * BK * LDA_S, Ab + nk * stepA,
                                                              g.lda, rem_m, rem_k, g.vecA, tid);
                mb_load_tile_async<T, TB, BN, BK, NT, LDB_S>(Bs + wr * BK * LDB_S, Bb + nk * stepB,
                                                             g.ldb, rem_n, rem_k, g.vecB, tid);
            }
            mb_cp_async_commit();
            const T *as = As + (rd * BK + ks_off) * LDA_S + a_off;
            const T *bs = Bs + (rd * BK + ks_off) * LDB_S + b_off;
#pragma unroll
            for (int p = 0; p < BKS; ++p) {
                T a[TM], b[TN];
#pragma unroll
                for (int x = 0; x < TM; x += V) mb_lds16(a + x, as + p * LDA_S + x * LM);
#pragma unroll
                for (int y = 0; y < TN; y += V) mb_lds16(b + y, bs + p * LDB_S + y * LN);
#pragma unroll
                for (int x = 0; x < TM; ++x)
#pragma unroll
                    for (int y = 0; y < TN; ++y) acc[x][y] += a[x] * b[y];
            }
            rd = rd + 1 == STAGES ? 0 : rd + 1;
            wr = wr + 1 == STAGES ? 0 : wr + 1;
        }
        __syncthreads(); /* the next tile's prologue overwrites the ring */

        if (KS > 1) {
            /* k-slice reduction through the (now idle) ring: slice s > 0 stores its partial tile,
             * thread (s, u) element e at red[(e * (KS-1) + s-1) * NTS + u] (consecutive threads,
             * consecutive words: no bank conflicts); slice 0 adds slices 1, 2, ... in order. */
            T *red = (T *)mb_smem;
            const int u = tid % NTS;
            if (slice > 0) {
#pragma unroll
                for (int x = 0; x < TM; ++x)
#pragma unroll
                    for (int y = 0; y < TN; ++y)
                        red[((x * TN + y) * (KS - 1) + slice - 1) * NTS + u] = acc[x][y];
            }
            __syncthreads();
            if (slice == 0) {
#pragma unroll
                for (int s = 1; s < KS; ++s)
#pragma unroll
                    for (int x = 0; x < TM; ++x)
#pragma unroll
                        for (int y = 0; y < TN; ++y)
                            acc[x][y] += red[((x * TN + y) * (KS - 1) + s - 1) * NTS + u];
            }
            __syncthreads(); /* red is read before the next tile's prologue refills the ring */
            if (slice > 0) continue; /* only slice 0 writes C */
        }

        /* epilogue: run x of rows a_off + x*LM .. +V-1, column b_off + (y/V)*LN*V + y%V */
#pragma unroll
        for (int y = 0; y < TN; ++y) {
            const int j = b_off + (y / V) * (LN * V) + y % V;
            T *c = g.C + i0 + (j0 + j) * g.ldc;
#pragma unroll
            for (int x = 0; x < TM; x += V) {
                const int i = a_off + x * LM;
                T v[V];
#pragma unroll
                for (int e = 0; e < V; ++e) v[e] = acc[x + e][y];
                mb_put_vec(c + i, v, g.alpha, g.beta, rem_m - i, j < rem_n, g.vecC);
            }
        }
    }
}

/* Launch one configuration for one transpose case. */
template <typename T, bool TA, bool TB, typename CFG>
static cudaError_t gemm_warptiled_launch(const mb_gemm_args *a, cudaStream_t s) {
    const size_t smem = mb_wt_smem_bytes<T, CFG>();
    if (smem > 48 * 1024) {
        static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
        cudaError_t e = mb_smem_limit_once((const void *)gemm_warptiled_kernel<T, TA, TB, CFG>,
                                           (int)smem, &smem_set);
        if (e != cudaSuccess) return e;
    }
    const int64_t tiles = mb_cdiv(a->m, CFG::BM) * mb_cdiv(a->n, CFG::BN);
    gemm_warptiled_kernel<T, TA, TB, CFG>
        <<<mb_tile_grid(tiles), CFG::NT, smem, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T, typename CFG>
static cudaError_t gemm_warptiled_cfg(const mb_gemm_args *a, cudaStream_t s) {
    if (a->transa)
        return a->transb ? gemm_warptiled_launch<T, true, true, CFG>(a, s)
                         : gemm_warptiled_launch<T, true, false, CFG>(a, s);
    return a->transb ? gemm_warptiled_launch<T, false, true, CFG>(a, s)
                     : gemm_warptiled_launch<T, false, false, CFG>(a, s);
}

/* Rung 10's fixed configurations. */
typedef mb_wt_cfg<128, 128, 16, 64, 32, 8, 8, 2, 2> mb_wt_float_cfg;
typedef mb_wt_cfg<128, 64, 8, 64, 16, 8, 4, 3, 2> mb_wt_double_cfg;

#ifndef MB_GEMM_WARPTILED_NO_LAUNCHERS
template <typename T> static cudaError_t gemm_warptiled(const mb_gemm_args *a, cudaStream_t s);
template <> cudaError_t gemm_warptiled<float>(const mb_gemm_args *a, cudaStream_t s) {
    return gemm_warptiled_cfg<float, mb_wt_float_cfg>(a, s);
}
template <> cudaError_t gemm_warptiled<double>(const mb_gemm_args *a, cudaStream_t s) {
    return gemm_warptiled_cfg<double, mb_wt_double_cfg>(a, s);
}
MB_GEMM_LAUNCHERS(warptiled, gemm_warptiled)
#endif
#endif
