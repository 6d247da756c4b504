/*
 * Rung 10, warp-tiled: the block / warp / thread hierarchy of cuBLAS-class SIMT kernels.
 * Rung 9 lays its 16 x 16 threads over the whole 128 x 128 block tile, so the 32 threads of a
 * warp span 2 columns x 128 rows of it: each warp reads the entire A slice of every k-step from
 * shared memory (2 wavefronts per 16-byte load) and its outputs are spread over the whole tile.
 * Here each warp owns a compact WM x WN warp tile (float: 64 x 32) and its lanes form an
 * LM x LN = 8 x 4 grid inside it; a thread's TM x TN tile is TM/V x TN/V runs of V (16 bytes)
 * spaced LM*V (resp. LN*V) apart. A 16-byte shared load of A then touches 8 distinct, contiguous
 * addresses (128 bytes, one wavefront, broadcast to the 4 lane columns) and one of B 4 distinct
 * ones: half the shared-memory wavefronts of rung 9 per FMA, with better locality of each warp's
 * shared reads and of its stores of C. Also:
 *  - BK = 16 (float) halves the barriers and pipeline bookkeeping per FMA;
 *  - a STAGES-deep cp.async ring (2..4 buffers, dynamic shared memory; above 48 KB the launcher
 *    raises the limit with cudaFuncSetAttribute);
 *  - per-precision configuration: double uses an 8 x 4 thread tile (64 accumulator doubles =
 *    128 registers would leave one block per SM), a 128 x 64 block tile, BK = 8, 3 stages.
 * The kernel is a template over the tile configuration; rung 11 (11_tuned.cu) includes this
 * file (with MB_GEMM_WARPTILED_NO_LAUNCHERS) and picks a configuration per shape class.
 * Measured (H200, run 2, NN): sgemm 18.6 TFLOP/s at 1024 (49.1% of cuBLAS; 64 blocks on 132
 * SMs), 41.3 TFLOP/s at 4096 (81.0%); dgemm 16.8 / 19.3 TFLOP/s. NO GAIN over rung 9 at 4096
 * (41.8 / 20.4), and the reason is in the SASS, not in shared memory: rung 9 was not bound by
 * shared-memory wavefronts, which is all this rung saves. The k-loop of both spent about 290 of
 * its ~1390 instructions per float k-tile (1024 of them FFMA) in the guarded tile loader: a
 * 64-bit address, an edge test and a branch per copied element. After run 2 the loader got an
 * unguarded path for tiles wholly inside the matrix (gemm_common.cuh, mb_load_tile_async_full),
 * about 100 instructions per k-tile including the ring bookkeeping; that change applies to
 * rungs 9-11 alike and is not yet measured.
 * Resources (sm_90, -O3, float 128x128x16 64x32 8x8 2 stages / double 128x64x8 64x16 8x4
 * 3 stages): 128 registers (2 blocks/SM); float NN/NT/TT spill 16-80 bytes, only in the guarded
 * edge-tile loader (the k-loop's fast path has no local-memory access); dynamic shared memory
 * 33.0 KB float, 36.75 KB double.
 */
#ifndef MB_GEMM_WARPTILED_CU
#define MB_GEMM_WARPTILED_CU
#include "gemm_common.cuh"

/* A configuration: block tile BM x BN x BK, warp tile WM x WN, thread tile TM x TN, STAGES
 * shared buffers, MINB blocks per SM asked of the register allocator (__launch_bounds__). */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int TM_, int TN_, int STAGES_, int MINB_>
struct mb_wt_cfg {
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, TM = TM_, TN = TN_;
    static constexpr int STAGES = STAGES_, MINB = MINB_;
    static constexpr int NT = (BM / WM) * (BN / WN) * 32;
};

template <typename T, bool TA, bool TB, typename CFG>
__global__ void __launch_bounds__(CFG::NT, CFG::MINB) gemm_warptiled_kernel(mb_gp<T> g) {
    constexpr int BM = CFG::BM, BN = CFG::BN, BK = CFG::BK, WM = CFG::WM, WN = CFG::WN;
    constexpr int TM = CFG::TM, TN = CFG::TN, STAGES = CFG::STAGES, NT = CFG::NT;
    constexpr int V = 16 / sizeof(T);
    constexpr int LM = WM / TM, LN = WN / TN; /* lanes of a warp along m and n */
    constexpr int WARPS_M = BM / WM;
    constexpr int LDA_S = BM + V, LDB_S = BN + V;
    static_assert(LM * LN == 32, "a warp tile must hold 32 thread tiles");
    static_assert(TM % V == 0 && TN % V == 0 && BM % WM == 0 && BN % WN == 0, "tile shapes");
    static_assert(STAGES >= 2, "at least double buffering");

    extern __shared__ __align__(16) unsigned char mb_smem[];
    T *As = (T *)mb_smem;                 /* STAGES x [BK][LDA_S] */
    T *Bs = As + STAGES * BK * LDA_S;     /* STAGES x [BK][LDB_S] */

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm = warp % WARPS_M, wn = warp / WARPS_M;
    const int lm = lane % LM, ln = lane / LM;
    /* shared offsets of this thread's first run of A and of B (add x*LM, y*LN for run x, y) */
    const int a_off = wm * WM + lm * V, b_off = wn * WN + ln * V;

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
            const T *as = As + rd * BK * LDA_S + a_off, *bs = Bs + rd * BK * LDB_S + b_off;
#pragma unroll
            for (int p = 0; p < BK; ++p) {
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
    constexpr int V = 16 / sizeof(T);
    const size_t smem = (size_t)CFG::STAGES * CFG::BK * ((CFG::BM + V) + (CFG::BN + V)) * sizeof(T);
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute((const void *)gemm_warptiled_kernel<T, TA, TB, CFG>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
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
