/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 9, pipelined: rung 8's tiles with the global -> shared copies made asynchronous
 * (cp.async, sm_80+) and the shared tiles double-buffered: while the block computes on tile kt
 * the copies of tile kt + 1 into the other buffer are in flight, straight to shared memory
 * without passing through registers, and there is one __syncthreads per k step instead of two.
 * Tiles wholly inside the matrix take an unguarded copy path; edge tiles copy only in-range
 * elements (16-byte copies only for whole aligned vectors) and store zeros for the rest, so no
 * copy ever reads outside the matrix (gemm_common.cuh, mb_load_tile_async).
 *
 * Why: memory latency hides behind the FMAs.
 * Limit: each 16-byte shared load returns 4 registers to 32 lanes (4 cycles of the shared-
 * memory return path): about 12 cycles of returns per k step against 16 of FFMA issue, enough
 * to stall the FFMA stream when loads bunch up (rung 10 works on it).
 * Resources: 256 threads, about 128 registers (float) / 220-250 (double); static shared memory
 * 2 stages x 2 * 8 * (128 + V) * sizeof(T) (16.5 KB float, 32.5 KB double).
 * Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256 /* = (BM / TM) * (BN / TN) */

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(NT) gemm_pipelined_kernel(mb_gp<T> g) {
    constexpr int V = 16 / sizeof(T);
    constexpr int LDA_S = BM + V, LDB_S = BN + V;
    constexpr int LM = BM / TM, LN = BN / TN;
    __shared__ __align__(16) T As[2][BK * LDA_S];
    __shared__ __align__(16) T Bs[2][BK * LDB_S];
    const int tid = threadIdx.x;
    const int ti = tid % LM, tj = tid / LM;
    const int64_t mt = mb_dcdiv(g.m, BM), nt = mb_dcdiv(g.n, BN);
    const int64_t ktiles = mb_dcdiv(g.k, BK);
    for (int64_t t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        int64_t tm, tn;
        mb_tile_coords(t, mt, nt, &tm, &tn);
        const int64_t i0 = tm * BM, j0 = tn * BN;
        const int rem_m = mb_rem(g.m, i0, BM), rem_n = mb_rem(g.n, j0, BN);
        const T *Ab = g.A + mb_ia<TA>(i0, 0, g.lda), *Bb = g.B + mb_ib<TB>(0, j0, g.ldb);
        const int64_t stepA = TA ? BK : BK * g.lda, stepB = TB ? BK * g.ldb : BK;
        T acc[TM][TN];
#pragma unroll
        for (int x = 0; x < TM; ++x)
#pragma unroll
            for (int y = 0; y < TN; ++y) acc[x][y] = 0;

        /* prologue: tile 0 into buffer 0 */
        mb_load_tile_async<T, !TA, BM, BK, NT, LDA_S>(As[0], Ab, g.lda, rem_m, mb_rem(g.k, 0, BK), g.vecA, tid);
        mb_load_tile_async<T, TB, BN, BK, NT, LDB_S>(Bs[0], Bb, g.ldb, rem_n, mb_rem(g.k, 0, BK), g.vecB, tid);
        mb_cp_async_commit();
        for (int64_t kt = 0; kt < ktiles; ++kt) {
            const int buf = (int)(kt & 1);
            mb_cp_async_wait<0>(); /* this thread's copies of tile kt have landed */
            __syncthreads();       /* everyone's have; and everyone is done with tile kt-1 */
            if (kt + 1 < ktiles) { /* prefetch tile kt+1 into the buffer tile kt-1 used */
                Ab += stepA;
                Bb += stepB;
                const int rem_k = mb_rem(g.k, (kt + 1) * BK, BK);
                mb_load_tile_async<T, !TA, BM, BK, NT, LDA_S>(As[buf ^ 1], Ab, g.lda, rem_m, rem_k, g.vecA, tid);
                mb_load_tile_async<T, TB, BN, BK, NT, LDB_S>(Bs[buf ^ 1], Bb, g.ldb, rem_n, rem_k, g.vecB, tid);
            }
            mb_cp_async_commit();
            const T *as = As[buf], *bs = Bs[buf];
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
#pragma unroll
                for (int x = 0; x < TM; x += V) mb_lds16(a + x, as + p * LDA_S + x * LM + ti * V);
#pragma unroll
                for (int y = 0; y < TN; y += V) mb_lds16(b + y, bs + p * LDB_S + y * LN + tj * V);
#pragma unroll
                for (int x = 0; x < TM; ++x)
#pragma unroll
                    for (int y = 0; y < TN; ++y) acc[x][y] += a[x] * b[y];
            }
        }
        __syncthreads(); /* the next tile's prologue overwrites buffer 0 */
#pragma unroll
        for (int y = 0; y < TN; ++y) {
            const int j = (y / V) * (LN * V) + tj * V + y % V;
            T *c = g.C + i0 + (j0 + j) * g.ldc;
#pragma unroll
            for (int x = 0; x < TM; x += V) {
                const int i = x * LM + ti * V;
                T v[V];
#pragma unroll
                for (int e = 0; e < V; ++e) v[e] = acc[x + e][y];
                mb_put_vec(c + i, v, g.alpha, g.beta, rem_m - i, j < rem_n, g.vecC);
            }
        }
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_pipelined_run(const mb_gemm_args *a, cudaStream_t s) {
    const int64_t tiles = mb_cdiv(a->m, BM) * mb_cdiv(a->n, BN);
    gemm_pipelined_kernel<T, TA, TB><<<mb_tile_grid(tiles), NT, 0, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_pipelined(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_pipelined_run, T, a, s);
}

MB_GEMM_LAUNCHERS(pipelined, gemm_pipelined)
