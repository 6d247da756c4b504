/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 1, naive: one thread per element of A, B = alpha * op(A) written directly.
 *
 * Why: the baseline. threadIdx.x walks the rows of (column-major) A, so the reads coalesce.
 * Limit: for the transpose the writes land ldb elements apart, one 32-byte sector per 4- or
 * 8-byte element: the write side moves 8x (float) or 4x (double) the useful bytes.
 * Resources: no shared memory. Measured: docs/ladders/transpose.md (tables generated from
 * perf/results/<gpu>/).
 */
#include "../common/common.cuh"

template <typename T>
__global__ void omatcopy_naive_kernel(mb_omatcopy_args a) {
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    for (int64_t j = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; j < a.cols;
         j += (int64_t)gridDim.y * blockDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.rows;
             i += (int64_t)gridDim.x * blockDim.x) {
            T v = alpha * A[i + j * a.lda];
            if (a.trans) B[j + i * a.ldb] = v;
            else B[i + j * a.ldb] = v;
        }
}

template <typename T>
static cudaError_t omatcopy_naive(const mb_omatcopy_args *a, cudaStream_t s) {
    dim3 block(32, 8);
    dim3 grid(mb_grid_dim(mb_cdiv(a->rows, 32), MB_GRID_X_MAX), mb_grid_dim(mb_cdiv(a->cols, 8), MB_GRID_YZ_MAX));
    omatcopy_naive_kernel<T><<<grid, block, 0, s>>>(*a);
    return cudaGetLastError();
}

MB_OMATCOPY_LAUNCHERS(naive, omatcopy_naive)
