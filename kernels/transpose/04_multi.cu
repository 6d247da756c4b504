/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 4, multi: the padded 32x32 tile moved by 32x8 threads, each carrying 4 elements (rows
 * ty, ty+8, ty+16, ty+24 of the tile), all four loads issued before the barrier.
 *
 * Why: four loads in flight per thread instead of one, and 256-thread blocks let several
 * tiles share an SM so one block's barrier is hidden by the others; the index arithmetic is
 * paid once per four elements. trans = N: four coalesced elements per thread.
 * Limit: 4- or 8-byte accesses, one memory instruction per element; at small matrices the
 * launch and the ramp-up are a large part of the call.
 * Resources: 256 threads, __launch_bounds__(256, 8) (at most 32 registers: 8 blocks per SM;
 * double spills a few bytes once per tile), 4.1 KB / 8.3 KB of shared memory per block.
 * Measured: docs/ladders/transpose.md.
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
