/*
 * Rung 3, padded: the tiled rung with the shared tile declared [32][33]. The write phase reads
 * a column of the tile, tile[tx][ty] for tx = 0..31: with 32 floats per row those 32 words are
 * 32*4 bytes apart, all on one bank (a 32-way conflict: the read is replayed 32 times). With
 * 33 per row consecutive tx are 33 words apart, 33 mod 32 = 1: every lane on its own bank
 * (double: 66 words apart, lanes pair up on 2 banks each, the 2 wavefronts any 256-byte
 * access needs). Nothing else changes; trans = 0 is the same coalesced scaled copy.
 *
 * Measured, run 2 (H200, trans = T, ceiling = device copy 4255 GB/s read + write):
 * somatcopy 1024^2: 967 GB/s (22.7%, 0.78x cuBLAS geam), 4096^2: 1371 GB/s (32.2%, 0.40x);
 * domatcopy 1024^2: 1758 GB/s (41.3%, 0.74x), 4096^2: 2483 GB/s (58.3%, 0.64x): +41% (float)
 * and +38% (double) over rung 2 at 4096^2. Unchanged after run 2.
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
