/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 4, padded: rung 3 with each shared tile row padded by one element (row stride 33).
 *
 * Why: rung 3's compute loop is already conflict-free; what is left are the transposing
 * stores of the transposed cases (transa: the warp stores As[p = tx][i = ty], 32 words 32
 * apart, all in one bank). With a stride of 33 words, word p * 33 + i lies in bank
 * (p + i) % 32: the 32 stores fall in 32 banks. So this rung gains only in the transposed
 * cases (TN, NT, TT); in NN it equals rung 3.
 * Limit: still 2 shared loads per FMA, which the next rungs cut.
 * Resources: 1024 threads, __launch_bounds__(1024, 2) (32 registers), dynamic shared memory
 * 2 * 32 * 33 * sizeof(T) (8.25 KB float, 16.5 KB double). Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(1024, 2) gemm_padded_kernel(mb_gp<T> g) {
    extern __shared__ __align__(16) unsigned char mb_smem[];
    const int TS = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
    const int LDS = TS + 1; /* the padding */
    T *As = (T *)mb_smem, *Bs = As + TS * LDS;
    const int64_t mt = mb_dcdiv(g.m, TS), nt = mb_dcdiv(g.n, TS);
    for (int64_t t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        int64_t tm, tn;
        mb_tile_coords(t, mt, nt, &tm, &tn);
        const int64_t i0 = tm * TS, j0 = tn * TS;
        const int rem_m = mb_rem(g.m, i0, TS), rem_n = mb_rem(g.n, j0, TS);
        T acc = 0;
        for (int64_t p0 = 0; p0 < g.k; p0 += TS) {
            const int rem_k = mb_rem(g.k, p0, TS);
            const T *Ab = g.A + mb_ia<TA>(i0, p0, g.lda); /* op(A)(i0, p0) */
            const T *Bb = g.B + mb_ib<TB>(p0, j0, g.ldb); /* op(B)(p0, j0) */
            if (!TA) /* A(i0+tx, p0+ty): tx along the stored column */
                As[ty * LDS + tx] = (tx < rem_m && ty < rem_k) ? Ab[tx + (int64_t)ty * g.lda] : T(0);
            else     /* A stored k x m: tx along k */
                As[tx * LDS + ty] = (ty < rem_m && tx < rem_k) ? Ab[tx + (int64_t)ty * g.lda] : T(0);
            if (!TB) /* B(p0+tx, j0+ty) */
                Bs[ty * LDS + tx] = (tx < rem_k && ty < rem_n) ? Bb[tx + (int64_t)ty * g.ldb] : T(0);
            else     /* B stored n x k: tx along n */
                Bs[tx * LDS + ty] = (ty < rem_k && tx < rem_n) ? Bb[tx + (int64_t)ty * g.ldb] : T(0);
            __syncthreads();
            for (int p = 0; p < TS; ++p) acc += As[p * LDS + tx] * Bs[ty * LDS + p];
            __syncthreads();
        }
        if (tx < rem_m && ty < rem_n)
            mb_put(g.C + (i0 + tx) + (j0 + ty) * g.ldc, acc, g.alpha, g.beta);
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_padded_run(const mb_gemm_args *a, cudaStream_t s) {
    const int TS = 32;
    const int64_t tiles = mb_cdiv(a->m, TS) * mb_cdiv(a->n, TS);
    const size_t smem = 2 * TS * (TS + 1) * sizeof(T);
    gemm_padded_kernel<T, TA, TB><<<mb_tile_grid(tiles), dim3(TS, TS), smem, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_padded(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_padded_run, T, a, s);
}

MB_GEMM_LAUNCHERS(padded, gemm_padded)
