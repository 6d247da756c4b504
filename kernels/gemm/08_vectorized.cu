/*
 * Rung 8, vectorized: rung 7's 128 x 128 block tile and 8 x 8 thread tile, with 128-bit memory
 * instructions everywhere the data is contiguous:
 *  - global loads of the tiles are 16-byte vectors (float4 / double2) along the contiguous
 *    direction of each operand, a quarter (float) or half (double) as many load instructions;
 *  - the operand whose stored layout is contiguous along k (B when not transposed, A when
 *    transposed) is stored TRANSPOSED into shared memory (one vector of k values becomes V
 *    scalar stores down a column of the k-major tile), so both shared tiles are k-major: at a
 *    given p the outer indices a thread needs are consecutive in shared memory. (In the
 *    row-major SGEMM tutorials this is "A stored transposed"; column-major flips which operand
 *    it is, and the transpose flags flip it again.)
 *  - the thread tile is therefore made of V-wide runs (rows ti*V + (0..V-1) + x*16V), and the
 *    inner loop reads them with 16-byte shared loads: 4 instructions instead of 16 per p for
 *    float, fewer instructions and fewer address computations per FMA;
 *  - C is written (and read, when beta != 0) with 16-byte vectors down each column.
 * Vectors need the matrix pointer 16-byte aligned and the leading dimension a multiple of V:
 * the launcher checks this per matrix and the kernel falls back to guarded scalar accesses
 * when it does not hold, and for vectors that cross the edge of the matrix (zero fill).
 * Measured (H200, run 3, NN): sgemm 14.1 TFLOP/s at 1024 (37.1% of cuBLAS), 36.7 TFLOP/s at
 * 4096 (72.0%): 2x rung 7 at 4096. dgemm did NOT gain: 9.05 / 14.0 TFLOP/s against rung 7's
 * 8.92 / 15.3. A double vector is only 2 elements, so the instruction savings are half those of
 * float, and at 246-250 registers (one block per SM) the extra vector temporaries cost more than
 * they save (not profiled further).
 * Resources (sm_90, -O3): float 127-129 / double 246-250 registers, 0 spills, static shared memory
 * 2*8*(128+V)*sizeof(T) bytes (8.25 KB float, 16.25 KB double).
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
