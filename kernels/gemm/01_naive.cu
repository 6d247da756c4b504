/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 1, naive: one thread per element of C, the dot product of a row of op(A) and a column
 * of op(B) read straight from global memory.
 *
 * Why: the baseline every later rung is measured against.
 * Limit: threadIdx.x walks the COLUMNS of C, so the 32 threads of a warp touch 32 different
 * columns: neither the loads of A (column-major: a row of A is strided by lda) nor the stores
 * to C coalesce, and every multiply-add is a scattered L1/L2 access. This is deliberately the
 * uncoalesced kernel; rung 2 is what most texts call naive.
 * Resources: no shared memory. Measured: docs/ladders/gemm.md (tables generated from
 * perf/results/<gpu>/).
 */
#include "../common/common.cuh"

template <typename T>
__global__ void gemm_naive_kernel(mb_gemm_args a) {
    const T *A = (const T *)a.A, *B = (const T *)a.B;
    T *C = (T *)a.C;
    const T alpha = (T)a.alpha, beta = (T)a.beta;
    for (int64_t i = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; i < a.m;
         i += (int64_t)gridDim.y * blockDim.y)
        for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < a.n;
             j += (int64_t)gridDim.x * blockDim.x) {
            T acc = 0;
            for (int64_t p = 0; p < a.k; ++p) {
                T av = a.transa ? A[p + i * a.lda] : A[i + p * a.lda];
                T bv = a.transb ? B[j + p * a.ldb] : B[p + j * a.ldb];
                acc += av * bv;
            }
            T *c = C + i + j * a.ldc;
            *c = beta == T(0) ? alpha * acc : alpha * acc + beta * *c;
        }
}

template <typename T>
static cudaError_t gemm_naive(const mb_gemm_args *a, cudaStream_t s) {
    dim3 block(32, 32);
    dim3 grid(mb_grid_dim(mb_cdiv(a->n, 32), MB_GRID_X_MAX), mb_grid_dim(mb_cdiv(a->m, 32), MB_GRID_YZ_MAX));
    gemm_naive_kernel<T><<<grid, block, 0, s>>>(*a);
    return cudaGetLastError();
}

MB_GEMM_LAUNCHERS(naive, gemm_naive)
