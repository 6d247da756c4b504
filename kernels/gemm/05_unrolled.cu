/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 5, unrolled: rung 4 with the tile size a compile-time constant (32) instead of
 * blockDim.x. The inner loop over the tile is fully unrolled: its counter, compare and branch
 * disappear and every shared address becomes a base register plus a constant offset, so the
 * body is 2 shared loads and 1 FMA per step and loads of later steps can be issued early.
 * The tiles become static arrays (padded and k-major as in rung 4).
 *
 * Why: fewer instructions per FMA. It pays only while occupancy is kept: without a register
 * cap ptxas used more than 32 registers and only one 1024-thread block fitted per SM, which
 * made this rung slower than rung 4; __launch_bounds__(1024, 2) keeps two.
 * Limit: still 2 shared loads per FMA, which unrolling does not change; rung 6 attacks that.
 * Resources: 1024 threads, 32 registers, static shared memory 2 * 32 * 33 * sizeof(T)
 * (8.25 KB float, 16.5 KB double). Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

#define TS 32
#define LDS (TS + 1)

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(TS * TS, 2) gemm_unrolled_kernel(mb_gp<T> g) {
    __shared__ T As[TS * LDS], Bs[TS * LDS];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t mt = mb_dcdiv(g.m, TS), nt = mb_dcdiv(g.n, TS);
    for (int64_t t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        int64_t tm, tn;
        mb_tile_coords(t, mt, nt, &tm, &tn);
        const int64_t i0 = tm * TS, j0 = tn * TS;
        const int rem_m = mb_rem(g.m, i0, TS), rem_n = mb_rem(g.n, j0, TS);
        /* 64-bit origin of this thread's loads, advanced by a 64-bit step per k-tile. */
        const T *Ap = g.A + mb_ia<TA>(i0, 0, g.lda) + tx + (int64_t)ty * g.lda;
        const T *Bp = g.B + mb_ib<TB>(0, j0, g.ldb) + tx + (int64_t)ty * g.ldb;
        const int64_t stepA = TA ? TS : TS * g.lda, stepB = TB ? TS * g.ldb : TS;
        T acc = 0;
        for (int64_t p0 = 0; p0 < g.k; p0 += TS, Ap += stepA, Bp += stepB) {
            const int rem_k = mb_rem(g.k, p0, TS);
            if (!TA)
                As[ty * LDS + tx] = (tx < rem_m && ty < rem_k) ? *Ap : T(0);
            else
                As[tx * LDS + ty] = (ty < rem_m && tx < rem_k) ? *Ap : T(0);
            if (!TB)
                Bs[ty * LDS + tx] = (tx < rem_k && ty < rem_n) ? *Bp : T(0);
            else
                Bs[tx * LDS + ty] = (ty < rem_k && tx < rem_n) ? *Bp : T(0);
            __syncthreads();
#pragma unroll
            for (int p = 0; p < TS; ++p) acc += As[p * LDS + tx] * Bs[ty * LDS + p];
            __syncthreads();
        }
        if (tx < rem_m && ty < rem_n)
            mb_put(g.C + (i0 + tx) + (j0 + ty) * g.ldc, acc, g.alpha, g.beta);
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_unrolled_run(const mb_gemm_args *a, cudaStream_t s) {
    const int64_t tiles = mb_cdiv(a->m, TS) * mb_cdiv(a->n, TS);
    gemm_unrolled_kernel<T, TA, TB><<<mb_tile_grid(tiles), dim3(TS, TS), 0, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_unrolled(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_unrolled_run, T, a, s);
}

MB_GEMM_LAUNCHERS(unrolled, gemm_unrolled)
