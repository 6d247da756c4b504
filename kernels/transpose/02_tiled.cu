/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 2, tiled: a block of 32x32 threads stages a 32x32 tile of A in shared memory. Reads:
 * threadIdx.x walks a column of A (coalesced). Writes: after a barrier, threadIdx.x walks a
 * column of B, i.e. the tile is read back transposed from shared memory, so the writes
 * coalesce too.
 *
 * Why: naive scattered its writes one sector per element; here both sides move whole sectors.
 * Limit: the transposed shared read tile[tx][ty] is a column of a 32-wide array: all 32 lanes
 * of a warp on one bank (a 32-way conflict for float); rung 3 pads it away. One element per
 * thread and a barrier between the phases also keep few bytes in flight.
 * Resources: 1024 threads, 4 KB (float) / 8 KB (double) of shared memory per block.
 * trans = N (scaled copy) needs no staging: one coalesced element per thread. Edge tiles are
 * bounds-checked; tiles are walked with grid strides, so any size fits the grid limits.
 * Measured: docs/ladders/transpose.md.
 */
#include "../common/common.cuh"

#define TILED_TILE 32

template <typename T>
__global__ void __launch_bounds__(TILED_TILE * TILED_TILE) omatcopy_tiled_kernel(mb_omatcopy_args a) {
    __shared__ T tile[TILED_TILE][TILED_TILE]; /* tile[column of A][row of A] */
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t row_tiles = (a.rows + TILED_TILE - 1) / TILED_TILE;
    const int64_t col_tiles = (a.cols + TILED_TILE - 1) / TILED_TILE;
    for (int64_t tj = blockIdx.y; tj < col_tiles; tj += gridDim.y)
        for (int64_t ti = blockIdx.x; ti < row_tiles; ti += gridDim.x) {
            const int64_t i0 = ti * TILED_TILE, j0 = tj * TILED_TILE;
            if (!a.trans) {
                int64_t i = i0 + tx, j = j0 + ty;
                if (i < a.rows && j < a.cols) B[i + j * a.ldb] = alpha * A[i + j * a.lda];
                continue;
            }
            /* read: row i0+tx, column j0+ty of A */
            int64_t i = i0 + tx, j = j0 + ty;
            if (i < a.rows && j < a.cols) tile[ty][tx] = alpha * A[i + j * a.lda];
            __syncthreads();
            /* write: row j0+tx, column i0+ty of B, i.e. A(i0+ty, j0+tx) */
            i = i0 + ty;
            j = j0 + tx;
            if (i < a.rows && j < a.cols) B[j + i * a.ldb] = tile[tx][ty];
            __syncthreads(); /* the tile is read before the next one overwrites it */
        }
}

template <typename T>
static cudaError_t omatcopy_tiled(const mb_omatcopy_args *a, cudaStream_t s) {
    dim3 block(TILED_TILE, TILED_TILE);
    dim3 grid(mb_grid_dim(mb_cdiv(a->rows, TILED_TILE), MB_GRID_X_MAX),
              mb_grid_dim(mb_cdiv(a->cols, TILED_TILE), MB_GRID_YZ_MAX));
    omatcopy_tiled_kernel<T><<<grid, block, 0, s>>>(*a);
    return cudaGetLastError();
}

MB_OMATCOPY_LAUNCHERS(tiled, omatcopy_tiled)
