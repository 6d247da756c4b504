/*
 * Rung 5, vectorised: 64x64 tiles moved with 16-byte loads and stores (float4: 4 floats,
 * double2: 2 doubles) by 256 threads, each carrying 4 (float) or 8 (double) vectors, all
 * loads issued before the barrier: 64 or 128 bytes in flight per thread instead of 16 or 32,
 * and a quarter (half) of the memory instructions of rung 4.
 *
 * Lanes: 8 consecutive lanes take 8 consecutive vectors of one column (128 contiguous
 * bytes), the 4 lane groups of a warp take 4 columns. Read phase: a vector of A's column c
 * goes to tile[c][r .. r+W-1] (W scalar shared stores). Write phase: a vector of B's column,
 * which is a row of the tile, is gathered as tile[c .. c+W-1][r] and stored as one vector.
 * With the tile padded to 65 per row both shared phases are conflict-free for this lane
 * layout (float: bank = c + 4*v + k mod 32 covers 32 distinct banks; double: 16 distinct
 * 8-byte bank pairs per half-warp).
 *
 * Vectors need A and B 16-byte aligned and lda, ldb multiples of W (then every column starts
 * aligned). A vector that would cross the edge of the matrix (rows or cols not a multiple of
 * W, edge tiles) is moved element by element. When the alignment does not hold, the call
 * takes rung 4's scalar kernel (32x32 tile, 32x8 threads, 4 elements per thread).
 * trans = 0: the same vectors copied and scaled straight from A to B, no shared memory.
 */
#include "../common/common.cuh"

#define VEC_TILE 64
#define VEC_THREADS 256

template <typename T>
struct __align__(16) vec_t {
    T v[16 / sizeof(T)];
};

template <typename T>
__global__ void __launch_bounds__(VEC_THREADS) omatcopy_vec_kernel(mb_omatcopy_args a) {
    enum { W = 16 / sizeof(T), NSLOT = VEC_TILE * VEC_TILE / (W * VEC_THREADS) };
    __shared__ T tile[VEC_TILE][VEC_TILE + 1]; /* tile[column of A][row of A], padded */
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    const int tid = threadIdx.x;
    const int64_t rows = a.rows, cols = a.cols, lda = a.lda, ldb = a.ldb;
    const int64_t row_tiles = (rows + VEC_TILE - 1) / VEC_TILE;
    const int64_t col_tiles = (cols + VEC_TILE - 1) / VEC_TILE;
    /* Slot s of this thread is vector g = s*256 + tid of the tile: column c = (g / 8) % 64 =
     * lc + 32*(s & 1), vector rv = (g / 512) * 8 + g % 8 = lv + 8*(s >> 1) (rows W*rv ...). */
    const int lv = tid & 7, lc = tid >> 3;
    for (int64_t tj = blockIdx.y; tj < col_tiles; tj += gridDim.y)
        for (int64_t ti = blockIdx.x; ti < row_tiles; ti += gridDim.x) {
            const int64_t i0 = ti * VEC_TILE, j0 = tj * VEC_TILE;
            const bool full = i0 + VEC_TILE <= rows && j0 + VEC_TILE <= cols;
            vec_t<T> r[NSLOT];
            if (full) { /* interior tile: no checks, addresses from one base + constants */
                const T *p = A + (i0 + W * lv) + (j0 + lc) * lda;
                const int64_t lda32 = 32 * lda;
#pragma unroll
                for (int s = 0; s < NSLOT; ++s)
                    r[s] = *(const vec_t<T> *)(p + W * 8 * (s >> 1) + ((s & 1) ? lda32 : 0));
            } else {
#pragma unroll
                for (int s = 0; s < NSLOT; ++s) {
                    const int c = lc + 32 * (s & 1), rv = lv + 8 * (s >> 1);
                    const int64_t row = i0 + W * rv, col = j0 + c;
                    if (row + W <= rows && col < cols) {
                        r[s] = *(const vec_t<T> *)(A + row + col * lda);
                    } else {
#pragma unroll
                        for (int k = 0; k < W; ++k)
                            r[s].v[k] = (row + k < rows && col < cols) ? A[row + k + col * lda] : (T)0;
                    }
                }
            }
            if (!a.trans) { /* scaled copy: the same vectors go straight to B */
#pragma unroll
                for (int s = 0; s < NSLOT; ++s)
#pragma unroll
                    for (int k = 0; k < W; ++k) r[s].v[k] *= alpha;
                if (full) {
                    T *q = B + (i0 + W * lv) + (j0 + lc) * ldb;
                    const int64_t ldb32 = 32 * ldb;
#pragma unroll
                    for (int s = 0; s < NSLOT; ++s)
                        *(vec_t<T> *)(q + W * 8 * (s >> 1) + ((s & 1) ? ldb32 : 0)) = r[s];
                } else {
#pragma unroll
                    for (int s = 0; s < NSLOT; ++s) {
                        const int c = lc + 32 * (s & 1), rv = lv + 8 * (s >> 1);
                        const int64_t row = i0 + W * rv, col = j0 + c;
                        if (row + W <= rows && col < cols) {
                            *(vec_t<T> *)(B + row + col * ldb) = r[s];
                        } else {
#pragma unroll
                            for (int k = 0; k < W; ++k)
                                if (row + k < rows && col < cols) B[row + k + col * ldb] = r[s].v[k];
                        }
                    }
                }
                continue;
            }
#pragma unroll
            for (int s = 0; s < NSLOT; ++s) {
                const int c = lc + 32 * (s & 1), rv = lv + 8 * (s >> 1);
#pragma unroll
                for (int k = 0; k < W; ++k) tile[c][W * rv + k] = alpha * r[s].v[k];
            }
            __syncthreads();
            /* Store: slot s is vector g of B's tile, same mapping with the roles swapped: B column
             * (A row) i0 + rr, rr = lc + 32*(s & 1); B rows (A columns) j0 + W*cv ... + W-1,
             * cv = lv + 8*(s >> 1). The vector is gathered from a row of the tile. */
#pragma unroll
            for (int s = 0; s < NSLOT; ++s) {
                const int rr = lc + 32 * (s & 1), cv = lv + 8 * (s >> 1);
#pragma unroll
                for (int k = 0; k < W; ++k) r[s].v[k] = tile[W * cv + k][rr];
            }
            if (full) {
                T *q = B + (j0 + W * lv) + (i0 + lc) * ldb;
                const int64_t ldb32 = 32 * ldb;
#pragma unroll
                for (int s = 0; s < NSLOT; ++s)
                    *(vec_t<T> *)(q + W * 8 * (s >> 1) + ((s & 1) ? ldb32 : 0)) = r[s];
            } else {
#pragma unroll
                for (int s = 0; s < NSLOT; ++s) {
                    const int rr = lc + 32 * (s & 1), cv = lv + 8 * (s >> 1);
                    const int64_t brow = j0 + W * cv, bcol = i0 + rr;
                    if (brow + W <= cols && bcol < rows) {
                        *(vec_t<T> *)(B + brow + bcol * ldb) = r[s];
                    } else {
#pragma unroll
                        for (int k = 0; k < W; ++k)
                            if (brow + k < cols && bcol < rows) B[brow + k + bcol * ldb] = r[s].v[k];
                    }
                }
            }
            __syncthreads(); /* the tile is read before the next one overwrites it */
        }
}

/* Fallback when alignment does not allow vectors: rung 4's kernel. */
#define VEC_STILE 32
#define VEC_SROWS 8

template <typename T>
__global__ void __launch_bounds__(VEC_STILE * VEC_SROWS) omatcopy_vec_scalar_kernel(mb_omatcopy_args a) {
    __shared__ T tile[VEC_STILE][VEC_STILE + 1];
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t rows = a.rows, cols = a.cols, lda = a.lda, ldb = a.ldb;
    const int64_t row_tiles = (rows + VEC_STILE - 1) / VEC_STILE;
    const int64_t col_tiles = (cols + VEC_STILE - 1) / VEC_STILE;
    for (int64_t tj = blockIdx.y; tj < col_tiles; tj += gridDim.y)
        for (int64_t ti = blockIdx.x; ti < row_tiles; ti += gridDim.x) {
            const int64_t i0 = ti * VEC_STILE, j0 = tj * VEC_STILE;
            if (!a.trans) {
                const int64_t i = i0 + tx;
                if (i < rows) {
#pragma unroll
                    for (int k = 0; k < VEC_STILE; k += VEC_SROWS) {
                        const int64_t j = j0 + ty + k;
                        if (j < cols) B[i + j * ldb] = alpha * A[i + j * lda];
                    }
                }
                continue;
            }
            int64_t i = i0 + tx;
            if (i < rows) {
#pragma unroll
                for (int k = 0; k < VEC_STILE; k += VEC_SROWS) {
                    const int64_t j = j0 + ty + k;
                    if (j < cols) tile[ty + k][tx] = alpha * A[i + j * lda];
                }
            }
            __syncthreads();
            const int64_t j = j0 + tx;
            if (j < cols) {
#pragma unroll
                for (int k = 0; k < VEC_STILE; k += VEC_SROWS) {
                    i = i0 + ty + k;
                    if (i < rows) B[j + i * ldb] = tile[tx][ty + k];
                }
            }
            __syncthreads();
        }
}

template <typename T>
static cudaError_t omatcopy_vectorized(const mb_omatcopy_args *a, cudaStream_t s) {
    const int64_t W = 16 / sizeof(T);
    const int aligned = (uintptr_t)a->A % 16 == 0 && (uintptr_t)a->B % 16 == 0 &&
                        a->lda % W == 0 && a->ldb % W == 0;
    if (aligned) {
        dim3 grid(mb_grid_dim(mb_cdiv(a->rows, VEC_TILE), MB_GRID_X_MAX),
                  mb_grid_dim(mb_cdiv(a->cols, VEC_TILE), MB_GRID_YZ_MAX));
        omatcopy_vec_kernel<T><<<grid, VEC_THREADS, 0, s>>>(*a);
    } else {
        dim3 grid(mb_grid_dim(mb_cdiv(a->rows, VEC_STILE), MB_GRID_X_MAX),
                  mb_grid_dim(mb_cdiv(a->cols, VEC_STILE), MB_GRID_YZ_MAX));
        omatcopy_vec_scalar_kernel<T><<<grid, dim3(VEC_STILE, VEC_SROWS), 0, s>>>(*a);
    }
    return cudaGetLastError();
}

MB_OMATCOPY_LAUNCHERS(vectorized, omatcopy_vectorized)
