/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 6, multi (1-D thread tile): each thread computes 8 outputs of one column of C. A block
 * of 512 threads owns a 64 x 64 tile of C and walks k in steps of 8; in the inner loop a
 * thread reads one value of op(B) into a register and reuses it for its 8 rows.
 * Both shared tiles are k-major, As[p][i] and Bs[p][j] (row stride 64 + 4): the 8 threads
 * with the same column read 8 consecutive words and the 4 columns of a warp are broadcasts;
 * the padding of 4 keeps the transposing stores conflict-free. Tiles are loaded one element
 * per thread with the coalesced mapping of each transpose case (mb_load_tile_scalar).
 *
 * Why: 9 shared loads per 8 FMAs instead of 2 per FMA, and 8 independent FMA chains per
 * thread: shared-memory bandwidth stops being the limit.
 * Limit: one value reused 8 times is still far from the reuse a 2-D thread tile gets (rung 7).
 * Resources: 512 threads, static shared memory 2 * 8 * 68 * sizeof(T) (4.25 KB float, 8.5 KB
 * double). Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

#define BM 64
#define BN 64
#define BK 8
#define TM 8
#define NT 512 /* = BM * BN / TM */
#define LDS (BM + 4)

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(NT) gemm_multi_kernel(mb_gp<T> g) {
    __shared__ __align__(16) T As[BK * LDS];
    __shared__ __align__(16) T Bs[BK * LDS];
    const int tid = threadIdx.x;
    const int ti = tid % (BM / TM), tj = tid / (BM / TM); /* rows ti + 8*r, column tj */
    const int64_t mt = mb_dcdiv(g.m, BM), nt = mb_dcdiv(g.n, BN);
    for (int64_t t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        int64_t tm, tn;
        mb_tile_coords(t, mt, nt, &tm, &tn);
        const int64_t i0 = tm * BM, j0 = tn * BN;
        const int rem_m = mb_rem(g.m, i0, BM), rem_n = mb_rem(g.n, j0, BN);
        const T *Ab = g.A + mb_ia<TA>(i0, 0, g.lda), *Bb = g.B + mb_ib<TB>(0, j0, g.ldb);
        const int64_t stepA = TA ? BK : BK * g.lda, stepB = TB ? BK * g.ldb : BK;
        T acc[TM];
#pragma unroll
        for (int r = 0; r < TM; ++r) acc[r] = 0;
        for (int64_t p0 = 0; p0 < g.k; p0 += BK, Ab += stepA, Bb += stepB) {
            const int rem_k = mb_rem(g.k, p0, BK);
            mb_load_tile_scalar<T, !TA, BM, BK, NT, LDS>(As, Ab, g.lda, rem_m, rem_k, tid);
            mb_load_tile_scalar<T, TB, BN, BK, NT, LDS>(Bs, Bb, g.ldb, rem_n, rem_k, tid);
            __syncthreads();
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                const T b = Bs[p * LDS + tj];
#pragma unroll
                for (int r = 0; r < TM; ++r) acc[r] += As[p * LDS + ti + r * (BM / TM)] * b;
            }
            __syncthreads();
        }
        if (tj < rem_n) {
            T *c = g.C + i0 + (j0 + tj) * g.ldc;
#pragma unroll
            for (int r = 0; r < TM; ++r) {
                const int i = ti + r * (BM / TM);
                if (i < rem_m) mb_put(c + i, acc[r], g.alpha, g.beta);
            }
        }
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_multi_run(const mb_gemm_args *a, cudaStream_t s) {
    const int64_t tiles = mb_cdiv(a->m, BM) * mb_cdiv(a->n, BN);
    gemm_multi_kernel<T, TA, TB><<<mb_tile_grid(tiles), NT, 0, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_multi(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_multi_run, T, a, s);
}

MB_GEMM_LAUNCHERS(multi, gemm_multi)
