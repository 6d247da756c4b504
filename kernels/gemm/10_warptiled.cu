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
 * shared reads and of its stores of C (run 3: no gain; the bound is the register return path,
 * see "lane interleave" below). Also:
 *  - BK = 16 (float) halves the barriers and pipeline bookkeeping per FMA;
 *  - a STAGES-deep cp.async ring (2..4 buffers, dynamic shared memory; above 48 KB the launcher
 *    raises the limit with cudaFuncSetAttribute);
 *  - per-precision configuration: double uses an 8 x 4 thread tile (64 accumulator doubles =
 *    128 registers would leave one block per SM), a 128 x 64 block tile, BK = 8, 3 stages.
 * The kernel is a template over the tile configuration; rung 11 (11_tuned.cu) includes this
 * file (with MB_GEMM_WARPTILED_NO_LAUNCHERS) and picks a configuration per shape class.
 * Lane interleave (after run 3): a 16-byte shared load returns 4 registers to each of 32 lanes,
 * 512 bytes, 4 cycles of the 128-byte/cycle shared-memory return path, whatever the broadcast;
 * only when every pair of lanes (n, n^1), or every pair (n, n^2), reads the same address are the
 * returns packed into 2 cycles (NVIDIA's rule as stated for sm_70/75 on its developer forum;
 * assumed, not verified, to hold on sm_90). With lm = lane % 8, ln = lane / 8 the B loads met that rule and
 * the A loads did not: per p, 2 x 4 + 2 x 2 = 12 cycles of shared returns against 16 cycles of
 * FFMA issue for the SM (64 FFMA per warp, 4 warp-FFMA per cycle), enough to stall the FFMA
 * stream whenever the loads bunch up. The lanes are now interleaved (lane bit 0 -> low bit of
 * lm, bit 1 -> low bit of ln; CUTLASS's SIMT kernels do the same) so that both operands meet it:
 * 8 cycles per p for float 8x8 (50% of the FFMA time), 12 instead of 20 for double 8x4 (against
 * 16 cycles of DFMA at 2 warp-DFMA per cycle: double 8x4 was shared-memory bound). Measured
 * (run 4 against run 3, NN): float 0.96-0.97x at 4096 / 8192 (40.6 / 41.1 TFLOP/s), double
 * 1.02x (19.8 at 4096); session 4's sweep (dgemm 8192, 128x128x16, 8x8 doubles, 2 stages):
 * 22.7 TFLOP/s interleaved against 22.1 with the plain map. So the packing rule seems to hold
 * on sm_90, but the return path was not the main bound for either type.
 * Measured (H200, run 3, NN, before the interleave): sgemm 16.1 TFLOP/s at 1024 (42.5% of
 * cuBLAS; 64 blocks on 132 SMs), 41.0 at 2048, 42.2 at 4096 (83.0%), 42.9 at 8192 (84.0%), 39.0
 * at 4097 x 4095 x 4099 (82.9%); dgemm 16.0 / 19.0 / 19.4 TFLOP/s at 1024 / 4096 / 8192. Level
 * with rung 9 (42.3 / 20.4 at 4096), which has the same 12 cycles of shared returns per p:
 * warp tiles and BK = 16 alone did not move the bound (run 2 had blamed the guarded loader,
 * about 290 instructions per k-tile; the unguarded fast path after run 2 cut that to about 100,
 * and the k-loop is now 1024 FFMA + 61 LDS.128 + about 100 loader/ring instructions, 0 spills).
 * Resources (sm_90, -O3, float 128x128x16 64x32 8x8 2 stages / double 128x64x8 64x16 8x4
 * 3 stages): 128 registers (2 blocks/SM); float NN/NT/TT spill 16-80 bytes, only in the guarded
 * edge-tile loader (the k-loop's fast path has no local-memory access); dynamic shared memory
 * 33.0 KB float, 36.75 KB double.
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
