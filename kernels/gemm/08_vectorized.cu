/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 8, vectorized: rung 7's tiles with 128-bit memory instructions wherever the data is
 * contiguous:
 *  - global tile loads are 16-byte vectors along each operand's contiguous direction;
 *  - the operand contiguous along k (B when not transposed, A when transposed) is stored
 *    transposed into shared memory, so both tiles are k-major and a thread's outer indices
 *    at a given p are consecutive: the inner loop reads them with 16-byte shared loads;
 *  - C is written (and read, when beta != 0) with 16-byte vectors down each column.
 * Vectors need the matrix pointer 16-byte aligned and the leading dimension a multiple of the
 * vector width: checked per matrix by the launcher; otherwise, and for vectors crossing the
 * matrix edge, guarded scalar accesses.
 *
 * Why: the limit of rung 7 was the instruction count per FMA, not bandwidth.
 * Limit: a double2 carries only 2 elements, and at about 250 registers the extra vector
 * temporaries cost dgemm more than they save (dgemm does not gain on this rung). Loads still
 * pass through registers and the block waits for each tile (rung 9).
 * Resources: 256 threads, about 128 registers (float) / 250 (double); static shared memory
 * 2 * 8 * (128 + V) * sizeof(T) (8.25 KB float, 16.25 KB double). Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256 /* = (BM / TM) * (BN / TN) */

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(NT) gemm_vectorized_kernel(mb_gp<T> g) {
    constexpr int V = 16 / sizeof(T);
    constexpr int LDA_S = BM + V, LDB_S = BN + V; /* 16-byte pad: rows stay 16-byte aligned */
    constexpr int LM = BM / TM, LN = BN / TN;     /* 16 x 16 threads */
    __shared__ __align__(16) T As[BK * LDA_S];
    __shared__ __align__(16) T Bs[BK * LDB_S];
    const int tid = threadIdx.x;
    const int ti = tid % LM, tj = tid / LM;
    const int64_t mt = mb_dcdiv(g.m, BM), nt = mb_dcdiv(g.n, BN);
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
        for (int64_t p0 = 0; p0 < g.k; p0 += BK, Ab += stepA, Bb += stepB) {
            const int rem_k = mb_rem(g.k, p0, BK);
            mb_load_tile_vec<T, !TA, BM, BK, NT, LDA_S>(As, Ab, g.lda, rem_m, rem_k, g.vecA, tid);
            mb_load_tile_vec<T, TB, BN, BK, NT, LDB_S>(Bs, Bb, g.ldb, rem_n, rem_k, g.vecB, tid);
            __syncthreads();
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
#pragma unroll
                for (int x = 0; x < TM; x += V) mb_lds16(a + x, As + p * LDA_S + x * LM + ti * V);
#pragma unroll
                for (int y = 0; y < TN; y += V) mb_lds16(b + y, Bs + p * LDB_S + y * LN + tj * V);
#pragma unroll
                for (int x = 0; x < TM; ++x)
#pragma unroll
                    for (int y = 0; y < TN; ++y) acc[x][y] += a[x] * b[y];
            }
            __syncthreads();
        }
        /* row of acc[x]: x/V*(LM*V) + ti*V + x%V = x*LM + ti*V for x a multiple of V */
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
static cudaError_t gemm_vectorized_run(const mb_gemm_args *a, cudaStream_t s) {
    const int64_t tiles = mb_cdiv(a->m, BM) * mb_cdiv(a->n, BN);
    gemm_vectorized_kernel<T, TA, TB><<<mb_tile_grid(tiles), NT, 0, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_vectorized(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_vectorized_run, T, a, s);
}

MB_GEMM_LAUNCHERS(vectorized, gemm_vectorized)
