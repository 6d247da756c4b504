/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 3, sequential: rung 2 with Harris's sequential addressing. At step s the first s
 * threads add element t + s into t.
 *
 * Why: the active threads are contiguous, so whole warps retire together instead of every
 * warp keeping a few busy lanes, and a warp reads 32 consecutive words: no bank is hit twice
 * (rung 2's 2*s*t indices put up to 16 lanes on one bank). The conflicts go away through the
 * index pattern, not through padding.
 * Limit: still one 8-barrier tree per 256 terms, and one load in flight per thread.
 * Resources: as rung 2 (256 threads, 1 KB / 2 KB of shared memory, same grid, workspace and
 * fixed combining order).
 * Measured: docs/ladders/reduction.md.
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
