/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 7, regblock (2-D thread tile): each thread computes an 8 x 8 block of C held in
 * registers. A block of 256 threads owns a 128 x 128 tile; per step p of the k-tile a thread
 * loads 8 values of op(A) and 8 of op(B) from shared memory and does their outer product,
 * 64 FMAs. A thread owns rows ti + 16x and columns tj + 16y (ti = tid % 16, tj = tid / 16):
 * the 16 threads of a warp with the same tj read 16 consecutive words of As, the two tj of the
 * warp read two words of Bs (broadcasts).
 *
 * Why: 16 shared loads per 64 FMAs (0.25 per FMA, against 1.1 in rung 6), and each value read
 * from global memory is reused 128 times: the kernel becomes compute-bound. The largest step
 * of the SIMT ladder.
 * Limit: a 128 x 128 tile gives few blocks on small matrices (1024^2 is 64 tiles for 132 SMs;
 * the same holds for rungs 8 to 10, rung 11 picks smaller tiles); scalar loads everywhere.
 * Resources: 256 threads, about 128 registers (float) and 250 (double): one block per SM
 * (capping float at 128 with __launch_bounds__(256, 2) spilled); static shared memory
 * 2 * 8 * 132 * sizeof(T) (8.25 KB float, 16.5 KB double). Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

#define BM 128
#define BN 128
#define BK 8
#define TM 8
#define TN 8
#define NT 256 /* = (BM / TM) * (BN / TN) */
#define LDA_S (BM + 4)
#define LDB_S (BN + 4)

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(NT) gemm_regblock_kernel(mb_gp<T> g) {
    __shared__ __align__(16) T As[BK * LDA_S];
    __shared__ __align__(16) T Bs[BK * LDB_S];
    const int tid = threadIdx.x;
    const int ti = tid % (BM / TM), tj = tid / (BM / TM);
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
            mb_load_tile_scalar<T, !TA, BM, BK, NT, LDA_S>(As, Ab, g.lda, rem_m, rem_k, tid);
            mb_load_tile_scalar<T, TB, BN, BK, NT, LDB_S>(Bs, Bb, g.ldb, rem_n, rem_k, tid);
            __syncthreads();
#pragma unroll
            for (int p = 0; p < BK; ++p) {
                T a[TM], b[TN];
#pragma unroll
                for (int x = 0; x < TM; ++x) a[x] = As[p * LDA_S + ti + x * (BM / TM)];
#pragma unroll
                for (int y = 0; y < TN; ++y) b[y] = Bs[p * LDB_S + tj + y * (BN / TN)];
#pragma unroll
                for (int x = 0; x < TM; ++x)
#pragma unroll
                    for (int y = 0; y < TN; ++y) acc[x][y] += a[x] * b[y];
            }
            __syncthreads();
        }
#pragma unroll
        for (int y = 0; y < TN; ++y) {
            const int j = tj + y * (BN / TN);
            if (j < rem_n) {
                T *c = g.C + i0 + (j0 + j) * g.ldc;
#pragma unroll
                for (int x = 0; x < TM; ++x) {
                    const int i = ti + x * (BM / TM);
                    if (i < rem_m) mb_put(c + i, acc[x][y], g.alpha, g.beta);
                }
            }
        }
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_regblock_run(const mb_gemm_args *a, cudaStream_t s) {
    const int64_t tiles = mb_cdiv(a->m, BM) * mb_cdiv(a->n, BN);
    gemm_regblock_kernel<T, TA, TB><<<mb_tile_grid(tiles), NT, 0, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_regblock(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_regblock_run, T, a, s);
}

MB_GEMM_LAUNCHERS(regblock, gemm_regblock)
