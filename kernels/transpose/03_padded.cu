/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 3, padded: rung 2 with the shared tile declared [32][33].
 *
 * Why: the write phase reads a tile column, tile[tx][ty] for tx = 0..31. With 32 floats per
 * row those words are 128 bytes apart, all on one bank (the read is replayed 32 times); with
 * 33 per row consecutive tx are 33 words apart, 33 mod 32 = 1: every lane on its own bank
 * (double: lanes pair up on 2 banks each, the 2 wavefronts any 256-byte access needs).
 * Limit: removing the conflict does not add bytes in flight: one element per thread, 1024-
 * thread blocks, a barrier between load and store phases. DRAM latency, not shared memory,
 * is what limits it (docs/ladders/transpose.md measures the padding's gain).
 * Resources: 1024 threads, 4.1 KB (float) / 8.3 KB (double) of shared memory per block.
 * Measured: docs/ladders/transpose.md.
 */
#include "../common/common.cuh"

#define PADDED_TILE 32

template <typename T>
__global__ void __launch_bounds__(PADDED_TILE * PADDED_TILE) omatcopy_padded_kernel(mb_omatcopy_args a) {
    /* tile[column of A][row of A]; one spare column so a tile column spans all 32 banks */
    __shared__ T tile[PADDED_TILE][PADDED_TILE + 1];
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t row_tiles = (a.rows + PADDED_TILE - 1) / PADDED_TILE;
    const int64_t col_tiles = (a.cols + PADDED_TILE - 1) / PADDED_TILE;
    for (int64_t tj = blockIdx.y; tj < col_tiles; tj += gridDim.y)
        for (int64_t ti = blockIdx.x; ti < row_tiles; ti += gridDim.x) {
            const int64_t i0 = ti * PADDED_TILE, j0 = tj * PADDED_TILE;
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
static cudaError_t omatcopy_padded(const mb_omatcopy_args *a, cudaStream_t s) {
    dim3 block(PADDED_TILE, PADDED_TILE);
    dim3 grid(mb_grid_dim(mb_cdiv(a->rows, PADDED_TILE), MB_GRID_X_MAX),
              mb_grid_dim(mb_cdiv(a->cols, PADDED_TILE), MB_GRID_YZ_MAX));
    omatcopy_padded_kernel<T><<<grid, block, 0, s>>>(*a);
    return cudaGetLastError();
}

MB_OMATCOPY_LAUNCHERS(padded, omatcopy_padded)
