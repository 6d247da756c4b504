/*
 * Rung 3, padded (conflict-free): the tiled rung with Harris's sequential addressing. At step
 * s the first s threads add element t + s into t: the active threads are contiguous (whole
 * warps retire together instead of every warp keeping a few busy lanes), and a warp reads 32
 * consecutive words, so no shared-memory bank is hit twice (rung 2's 2*s*t indices put up to
 * 16 lanes of a warp on one bank). Same grid, workspace use and fixed combining order as
 * rung 2; the partials and the second launch are unchanged.
 *
 * Measured, run 2 (H200, inputs rotated through 2x L2, device result; ceiling = streaming read
 * 4477 GB/s): sasum 2^20: 10.35 us (405 GB/s, 9.1%, 0.76x cuBLAS), 2^28: 982 GB/s (21.9%,
 * 0.38x cuBLAS); ddot 2^20: 12.46 us (0.91x cuBLAS), 2^28: 3089 GB/s (69.0%, 0.70x cuBLAS):
 * +34% over rung 2 at 2^28 (sasum). Unchanged after run 2.
 */
#include "../common/common.cuh"

#define SEQUENTIAL_THREADS 256
#define SEQUENTIAL_MAX_BLOCKS 32768 /* <= (MB_WORK_BYTES - 256) / sizeof(double) */

/* Sequential-addressing tree over s[0 .. SEQUENTIAL_THREADS), sum left in s[0]. */
template <typename T>
__device__ __forceinline__ void sequential_tree(T *s) {
    const unsigned tid = threadIdx.x;
    for (unsigned st = SEQUENTIAL_THREADS / 2; st > 0; st >>= 1) {
        if (tid < st) s[tid] += s[tid + st];
        __syncthreads();
    }
}

template <typename T, bool IS_DOT>
__global__ void __launch_bounds__(SEQUENTIAL_THREADS) reduce_sequential_kernel(mb_reduce_args a, T *partials) {
    __shared__ T s[SEQUENTIAL_THREADS];
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    const int64_t tiles = (a.n + SEQUENTIAL_THREADS - 1) / SEQUENTIAL_THREADS;
    T block_sum = 0; /* used by thread 0 only */
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        int64_t i = t * SEQUENTIAL_THREADS + threadIdx.x;
        s[threadIdx.x] = i < a.n ? mb_reduce_term<T, IS_DOT>(x, y, i, a.incx, a.incy) : (T)0;
        __syncthreads();
        sequential_tree(s);
        if (threadIdx.x == 0) block_sum += s[0];
        __syncthreads(); /* s[0] read before the next tile overwrites it */
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

/* One block: thread t adds partials t, t+256, ... in order, then the same tree. */
template <typename T>
__global__ void __launch_bounds__(SEQUENTIAL_THREADS) reduce_sequential_finish(const T *partials, int count, T *result) {
    __shared__ T s[SEQUENTIAL_THREADS];
    T acc = 0;
    for (int i = threadIdx.x; i < count; i += SEQUENTIAL_THREADS) acc += partials[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    sequential_tree(s);
    if (threadIdx.x == 0) *result = s[0];
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_sequential(const mb_reduce_args *a, cudaStream_t st) {
    int64_t cap = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > SEQUENTIAL_MAX_BLOCKS) cap = SEQUENTIAL_MAX_BLOCKS;
    int blocks = (int)mb_grid_dim(mb_cdiv(a->n, SEQUENTIAL_THREADS), cap);
    T *partials = (T *)a->work;
    reduce_sequential_kernel<T, IS_DOT><<<blocks, SEQUENTIAL_THREADS, 0, st>>>(*a, partials);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    reduce_sequential_finish<T><<<1, SEQUENTIAL_THREADS, 0, st>>>(partials, blocks, (T *)a->result);
    return cudaGetLastError();
}

MB_REDUCE_LAUNCHERS(sequential, reduce_sequential)
