/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 4, unrolled: rung 3's tree with the loop gone. The block size is a template parameter,
 * so every step's bound is a compile-time constant: the loop counter, the comparisons and the
 * dead steps disappear (Harris's reduce5). The last 32 sums are finished by one warp with
 * __syncwarp() between steps instead of __syncthreads (needed since Volta: warps are not
 * lock-step, the old `volatile` trick is a race). Each thread keeps its running sum in a
 * register, so each step is one shared load and one store.
 *
 * Why: the tree's instructions and barriers were the cost of rungs 2 and 3.
 * Limit: still one tree per 256 terms and one load in flight per thread.
 * Resources: 256 threads, 1 KB / 2 KB of shared memory; grid, workspace and fixed combining
 * order as rungs 2 and 3.
 * Measured: docs/ladders/reduction.md.
 */
#include "../common/common.cuh"

#define UNROLLED_THREADS 256
#define UNROLLED_MAX_BLOCKS 32768 /* <= (MB_WORK_BYTES - 256) / sizeof(double) */

/* Block tree, fully unrolled for BLOCK (a power of two, 64 ... 1024). Thread t enters with
 * v == s[t] already stored and synchronised; thread 0 returns the block sum. */
template <unsigned BLOCK, typename T>
__device__ __forceinline__ T unrolled_tree(T *s, T v) {
    const unsigned tid = threadIdx.x;
#pragma unroll
    for (unsigned st = BLOCK / 2; st >= 64; st >>= 1) { /* bounds known: fully unrolled */
        if (tid < st) s[tid] = v = v + s[tid + st];
        __syncthreads();
    }
    if (tid < 32) {
        v += s[tid + 32];
#pragma unroll
        for (unsigned st = 16; st > 0; st >>= 1) {
            s[tid] = v;
            __syncwarp();
            v += s[tid + st]; /* lanes >= st compute junk that never reaches lane 0 */
            __syncwarp();
        }
    }
    return v;
}

template <unsigned BLOCK, typename T, bool IS_DOT>
__global__ void __launch_bounds__(BLOCK) reduce_unrolled_kernel(mb_reduce_args a, T *partials) {
    __shared__ T s[BLOCK];
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    const int64_t tiles = (a.n + BLOCK - 1) / BLOCK;
    T block_sum = 0; /* used by thread 0 only */
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        int64_t i = t * BLOCK + threadIdx.x;
        T v = i < a.n ? mb_reduce_term<T, IS_DOT>(x, y, i, a.incx, a.incy) : (T)0;
        s[threadIdx.x] = v;
        __syncthreads();
        v = unrolled_tree<BLOCK>(s, v);
        if (threadIdx.x == 0) block_sum += v;
        __syncthreads(); /* the tree is done with s before the next tile overwrites it */
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

template <unsigned BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) reduce_unrolled_finish(const T *partials, int count, T *result) {
    __shared__ T s[BLOCK];
    T v = 0;
    for (int i = threadIdx.x; i < count; i += BLOCK) v += partials[i];
    s[threadIdx.x] = v;
    __syncthreads();
    v = unrolled_tree<BLOCK>(s, v);
    if (threadIdx.x == 0) *result = v;
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_unrolled(const mb_reduce_args *a, cudaStream_t st) {
    int64_t cap = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > UNROLLED_MAX_BLOCKS) cap = UNROLLED_MAX_BLOCKS;
    int blocks = (int)mb_grid_dim(mb_cdiv(a->n, UNROLLED_THREADS), cap);
    T *partials = (T *)a->work;
    reduce_unrolled_kernel<UNROLLED_THREADS, T, IS_DOT>
        <<<blocks, UNROLLED_THREADS, 0, st>>>(*a, partials);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    reduce_unrolled_finish<UNROLLED_THREADS, T>
        <<<1, UNROLLED_THREADS, 0, st>>>(partials, blocks, (T *)a->result);
    return cudaGetLastError();
}

MB_REDUCE_LAUNCHERS(unrolled, reduce_unrolled)
