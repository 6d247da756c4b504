/*
 * Rung 2, coalesced: the same one-thread-per-element kernel as naive, but threadIdx.x now walks
 * the ROWS of C (i), not the columns. C and A (when not transposed) are column-major, so the 32
 * threads of a warp touch 32 consecutive addresses: every store to C and every load of A is one
 * coalesced 128-byte (float) transaction instead of 32 separate ones, and the element of B each
 * thread needs is the same for the whole warp (a broadcast). With transa == 1 the loads of A are
 * still strided (row i of A^T is a column of the stored A, contiguous along k, not along i); only
 * shared-memory tiling (rung 3) can fix that. The transpose cases are template arguments so
 * the index arithmetic is resolved at compile time.
 * Measured (H200, run 3, NN): sgemm 6.34 TFLOP/s at 1024 (16.7% of cuBLAS), 3.98 TFLOP/s at
 * 4096 (7.8%); dgemm 3.50 / 2.27 TFLOP/s. 8-13x naive. It is slower at 4096 than at 1024
 * because every FMA still reads A and B from L1/L2: at 4096 the A columns a block walks no
 * longer stay in L1.
 * Resources (sm_90, -O3, -Xptxas -v): 40 registers (float and double, all transpose cases),
 * 0 spills, no shared memory.
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
