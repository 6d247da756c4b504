/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 2, coalesced: the same one-thread-per-element kernel, but threadIdx.x walks the ROWS
 * of C. C and A (not transposed) are column-major, so a warp's store to C and load of A are
 * one 128-byte transaction each, and the element of B is the same for the whole warp (a
 * broadcast). The transpose cases are template arguments, resolved at compile time.
 *
 * Why: coalescing; the fair baseline for the tiling claim (docs/ladders/gemm.md).
 * Limit: every multiply-add still reads both operands from L1/L2; once the A columns a block
 * walks no longer fit in L1 (large n) the rate falls. With transa the loads of A stay strided
 * (a row of A^T is contiguous along k, not along i): only shared-memory tiling fixes that.
 * Resources: 256 threads, no shared memory, about 40 registers (perf/results/ptxas-sm90.log).
 * Measured: docs/ladders/gemm.md.
 */
#include "gemm_common.cuh"

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(256) gemm_coalesced_kernel(mb_gp<T> g) {
    for (int64_t j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; j < g.n;
         j += (int64_t)gridDim.y * blockDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < g.m;
             i += (int64_t)gridDim.x * blockDim.x) {
            T acc = 0;
            for (int64_t p = 0; p < g.k; ++p)
                acc += g.A[mb_ia<TA>(i, p, g.lda)] * g.B[mb_ib<TB>(p, j, g.ldb)];
            mb_put(g.C + i + j * g.ldc, acc, g.alpha, g.beta);
        }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_coalesced_run(const mb_gemm_args *a, cudaStream_t s) {
    dim3 block(32, 8);
    dim3 grid(mb_grid_dim(mb_cdiv(a->m, 32), MB_GRID_X_MAX),
              mb_grid_dim(mb_cdiv(a->n, 8), MB_GRID_YZ_MAX));
    gemm_coalesced_kernel<T, TA, TB><<<grid, block, 0, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_coalesced(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_coalesced_run, T, a, s);
}

MB_GEMM_LAUNCHERS(coalesced, gemm_coalesced)
