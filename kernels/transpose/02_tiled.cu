/*
 * Rung 2, tiled: a block of 32x32 threads stages a 32x32 tile of A in shared memory. Reads:
 * threadIdx.x walks the rows of a column of A (coalesced, as in naive). Writes: after a
 * barrier, threadIdx.x walks the rows of a column of B, i.e. the tile is read back transposed
 * from shared memory, so the writes are coalesced too (naive scattered them ldb elements
 * apart, one 32-byte sector per 4- or 8-byte element). What remains slow: the transposed
 * shared read tile[tx][ty] is a column of a 32-wide array, all 32 lanes of a warp on one bank
 * (32-way conflict for float); rung 3 pads it away.
 *
 * trans = 0 (scaled copy) needs no staging: each thread copies one element, coalesced.
 * Edge tiles are bounds-checked element by element; tiles are walked with grid strides in
 * both dimensions, so any rows/cols fit in gridDim.y <= 65535.
 *
 * Measured, run 2 (H200, trans = T, ceiling = device copy 4255 GB/s read + write):
 * somatcopy 1024^2: 731 GB/s (17.2%, 0.59x cuBLAS geam), 4096^2: 973 GB/s (22.9%, 0.29x);
 * domatcopy 1024^2: 1339 GB/s (31.5%, 0.57x), 4096^2: 1799 GB/s (42.3%, 0.46x).
 * Unchanged after run 2 (a teaching rung).
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
