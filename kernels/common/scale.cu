/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Not a rung: C = beta * C for gemm calls with alpha == 0 or k == 0 (BLAS: A and B are not
 * read). beta == 0 writes zeros without reading C, so NaN in C does not survive. Also the
 * zero fill of omatcopy with alpha == 0 (beta = 0 on B's shape and ldb: A is not read).
 */
#include "common.cuh"

template <typename T>
__global__ void gemm_scale_kernel(int64_t m, int64_t n, T beta, T *C, int64_t ldc) {
    for (int64_t j = blockIdx.y; j < n; j += gridDim.y)
        for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < m;
             i += (int64_t)gridDim.x * blockDim.x) {
            T *c = C + i + j * ldc;
            *c = beta == T(0) ? T(0) : beta * *c;
        }
}

template <typename T>
static cudaError_t gemm_scale(const mb_gemm_args *a, cudaStream_t s) {
    dim3 block(256);
    dim3 grid(mb_grid_dim(mb_cdiv(a->m, 256), 65535), mb_grid_dim(a->n, MB_GRID_YZ_MAX));
    gemm_scale_kernel<T><<<grid, block, 0, s>>>(a->m, a->n, (T)a->beta, (T *)a->C, a->ldc);
    return cudaGetLastError();
}

extern "C" cudaError_t mb_sgemm_scale(const mb_gemm_args *a, cudaStream_t s) {
    return gemm_scale<float>(a, s);
}
extern "C" cudaError_t mb_dgemm_scale(const mb_gemm_args *a, cudaStream_t s) {
    return gemm_scale<double>(a, s);
}
