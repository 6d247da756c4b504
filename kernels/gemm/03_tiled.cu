/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 3, tiled: a block of 32 x 32 threads computes a 32 x 32 tile of C, walking k in steps
 * of 32: at each step it loads a tile of op(A) and of op(B) into shared memory (one element
 * per thread, coalesced for every transpose case), synchronises, and each thread takes its
 * dot product from shared memory. Each element read from global memory is used 32 times.
 * A is stored k-major, As[p][i]: a warp (consecutive i) reads 32 consecutive words, and Bs[j][p]
 * is one word for the whole warp (a broadcast): the inner loop has no bank conflicts. Storing
 * A as As[i][p] instead puts all 32 lanes on one bank, a 32-way conflict on every read that
 * makes this rung slower than naive (docs/ladders/gemm.md, "tried, did not pay").
 *
 * Why: global traffic cut by the tile width.
 * Limit: 2 shared loads per FMA. The tile size is a run-time value (blockDim.x), so the inner
 * loop cannot be unrolled (rung 5). In the transposed cases (transa or transb) the warp's
 * stores into the tile are 32 words 32 apart, a 32-way conflict that rung 4 pads away.
 * Resources: 1024 threads, __launch_bounds__(1024, 2) (32 registers, two blocks per SM),
 * dynamic shared memory 2 * 32 * 32 * sizeof(T) (8 KB float, 16 KB double). Blocks walk the
 * tiles of C in grouped order (gemm_common.cuh) for L2 reuse. Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(1024, 2) gemm_tiled_kernel(mb_gp<T> g) {
    extern __shared__ __align__(16) unsigned char mb_smem[];
    const int TS = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
    T *As = (T *)mb_smem, *Bs = As + TS * TS;
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
                As[ty * TS + tx] = (tx < rem_m && ty < rem_k) ? Ab[tx + (int64_t)ty * g.lda] : T(0);
            else     /* A stored k x m: tx along k */
                As[tx * TS + ty] = (ty < rem_m && tx < rem_k) ? Ab[tx + (int64_t)ty * g.lda] : T(0);
            if (!TB) /* B(p0+tx, j0+ty) */
                Bs[ty * TS + tx] = (tx < rem_k && ty < rem_n) ? Bb[tx + (int64_t)ty * g.ldb] : T(0);
            else     /* B stored n x k: tx along n */
                Bs[tx * TS + ty] = (ty < rem_k && tx < rem_n) ? Bb[tx + (int64_t)ty * g.ldb] : T(0);
            __syncthreads();
            for (int p = 0; p < TS; ++p) acc += As[p * TS + tx] * Bs[ty * TS + p];
            __syncthreads();
        }
        if (tx < rem_m && ty < rem_n)
            mb_put(g.C + (i0 + tx) + (j0 + ty) * g.ldc, acc, g.alpha, g.beta);
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_tiled_run(const mb_gemm_args *a, cudaStream_t s) {
    const int TS = 32;
    const int64_t tiles = mb_cdiv(a->m, TS) * mb_cdiv(a->n, TS);
    const size_t smem = 2 * TS * TS * sizeof(T);
    gemm_tiled_kernel<T, TA, TB><<<mb_tile_grid(tiles), dim3(TS, TS), smem, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_tiled(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_tiled_run, T, a, s);
}

MB_GEMM_LAUNCHERS(tiled, gemm_tiled)
