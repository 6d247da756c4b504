/*
 * Rung 4, multi-element: the padded 32x32 tile moved by 32x8 threads, each thread carrying 4
 * elements (rows ty, ty+8, ty+16, ty+24 of the tile). Its four loads are issued before the
 * barrier, so four are in flight per thread; a block of 256 threads instead of 1024 lets more
 * blocks (tiles) share an SM and hides the barriers, and the index arithmetic is paid once
 * per four elements. Same for trans = 0: each thread copies four elements, coalesced.
 *
 * Measured, run 2 (H200, trans = T, ceiling = device copy 4255 GB/s read + write):
 * somatcopy 1024^2: 1581 GB/s (37.1%, 1.27x cuBLAS geam), 4096^2: 3198 GB/s (75.1%, 0.94x);
 * domatcopy 1024^2: 2323 GB/s (54.6%, 0.98x cuBLAS), 4096^2: 3944 GB/s (92.7%, 1.01x).
 * ptxas then: float 32 registers, double 40 (6 blocks of 256 threads per SM).
 * Change after run 2: __launch_bounds__(256, 8) caps double at 32 registers (4 bytes of
 * spill, once per tile), so 8 blocks fit per SM as for float: 1056 tiles in flight on 132
 * SMs, i.e. the 1024 tiles of a 1024^2 matrix in one wave instead of two (792 slots).
 * Expected: domatcopy 1024^2 from 7.22 us to below cuBLAS's 7.10; larger sizes unchanged or
 * slightly better (more tiles in flight per SM).
 */
#include "../common/common.cuh"

#define MULTI_TILE 32
#define MULTI_ROWS 8 /* threadIdx.y extent; each thread moves MULTI_TILE / MULTI_ROWS elements */
#define MULTI_BLOCKS_PER_SM 8 /* 2048 threads: <= 32 registers per thread */

template <typename T>
__global__ void __launch_bounds__(MULTI_TILE * MULTI_ROWS, MULTI_BLOCKS_PER_SM) omatcopy_multi_kernel(mb_omatcopy_args a) {
    __shared__ T tile[MULTI_TILE][MULTI_TILE + 1]; /* tile[column of A][row of A], padded */
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t rows = a.rows, cols = a.cols, lda = a.lda, ldb = a.ldb;
    const int64_t row_tiles = (rows + MULTI_TILE - 1) / MULTI_TILE;
    const int64_t col_tiles = (cols + MULTI_TILE - 1) / MULTI_TILE;
    for (int64_t tj = blockIdx.y; tj < col_tiles; tj += gridDim.y)
        for (int64_t ti = blockIdx.x; ti < row_tiles; ti += gridDim.x) {
            const int64_t i0 = ti * MULTI_TILE, j0 = tj * MULTI_TILE;
            if (!a.trans) {
                const int64_t i = i0 + tx;
                if (i < rows) {
#pragma unroll
                    for (int k = 0; k < MULTI_TILE; k += MULTI_ROWS) {
                        const int64_t j = j0 + ty + k;
                        if (j < cols) B[i + j * ldb] = alpha * A[i + j * lda];
                    }
                }
                continue;
            }
            /* read: rows i0+tx, columns j0+ty+k of A */
            int64_t i = i0 + tx;
            if (i < rows) {
#pragma unroll
                for (int k = 0; k < MULTI_TILE; k += MULTI_ROWS) {
                    const int64_t j = j0 + ty + k;
                    if (j < cols) tile[ty + k][tx] = alpha * A[i + j * lda];
                }
            }
            __syncthreads();
            /* write: rows j0+tx, columns i0+ty+k of B, i.e. A(i0+ty+k, j0+tx) */
            const int64_t j = j0 + tx;
            if (j < cols) {
#pragma unroll
                for (int k = 0; k < MULTI_TILE; k += MULTI_ROWS) {
                    i = i0 + ty + k;
                    if (i < rows) B[j + i * ldb] = tile[tx][ty + k];
                }
            }
            __syncthreads();
        }
}

template <typename T>
static cudaError_t omatcopy_multi(const mb_omatcopy_args *a, cudaStream_t s) {
    dim3 block(MULTI_TILE, MULTI_ROWS);
    dim3 grid(mb_grid_dim(mb_cdiv(a->rows, MULTI_TILE), MB_GRID_X_MAX),
              mb_grid_dim(mb_cdiv(a->cols, MULTI_TILE), MB_GRID_YZ_MAX));
    omatcopy_multi_kernel<T><<<grid, block, 0, s>>>(*a);
    return cudaGetLastError();
}

MB_OMATCOPY_LAUNCHERS(multi, omatcopy_multi)
