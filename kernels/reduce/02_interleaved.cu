/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 2, interleaved: many blocks instead of one. Each block loads 256 terms (one per thread)
 * into shared memory and reduces them with a tree in interleaved addressing (Harris's
 * reduce1: at step s, thread t adds element 2*s*t + s into 2*s*t). Block partials go to the
 * handle's workspace; a second, one-block launch adds them in a fixed order.
 *
 * Why: every SM now reads, so this is far above the one-block naive rung.
 * Limit: the tree. The indices 2*s*t put up to 16 lanes of a warp on one shared-memory bank,
 * and from step 1 on most threads of every warp idle while the warp still issues; a whole
 * 8-barrier tree is paid per 256 terms.
 * Resources: 256 threads, 1 KB (float) / 2 KB (double) of shared memory per block; grid one
 * block per 256 terms, capped by the workspace (blocks then loop over tiles b, b+G, ...).
 * The last 256 bytes of the workspace belong to the single-pass rung and are never written.
 * The grid depends only on n: results are bitwise reproducible.
 * Measured: docs/ladders/reduction.md.
 */
#include "../common/common.cuh"

#define INTERLEAVED_THREADS 256
#define INTERLEAVED_MAX_BLOCKS 32768 /* <= (MB_WORK_BYTES - 256) / sizeof(double) */

/* Interleaved-addressing tree over s[0 .. INTERLEAVED_THREADS), sum left in s[0]. */
template <typename T>
__device__ __forceinline__ void interleaved_tree(T *s) {
    const unsigned tid = threadIdx.x;
    for (unsigned st = 1; st < INTERLEAVED_THREADS; st *= 2) {
        unsigned idx = 2 * st * tid;
        if (idx < INTERLEAVED_THREADS) s[idx] += s[idx + st];
        __syncthreads();
    }
}

template <typename T, bool IS_DOT>
__global__ void __launch_bounds__(INTERLEAVED_THREADS) reduce_interleaved_kernel(mb_reduce_args a, T *partials) {
    __shared__ T s[INTERLEAVED_THREADS];
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    const int64_t tiles = (a.n + INTERLEAVED_THREADS - 1) / INTERLEAVED_THREADS;
    T block_sum = 0; /* used by thread 0 only */
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        int64_t i = t * INTERLEAVED_THREADS + threadIdx.x;
        s[threadIdx.x] = i < a.n ? mb_reduce_term<T, IS_DOT>(x, y, i, a.incx, a.incy) : (T)0;
        __syncthreads();
        interleaved_tree(s);
        if (threadIdx.x == 0) block_sum += s[0];
        __syncthreads(); /* s[0] read before the next tile overwrites it */
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
}

/* One block: thread t adds partials t, t+256, ... in order, then the same tree. */
template <typename T>
__global__ void __launch_bounds__(INTERLEAVED_THREADS) reduce_interleaved_finish(const T *partials, int count, T *result) {
    __shared__ T s[INTERLEAVED_THREADS];
    T acc = 0;
    for (int i = threadIdx.x; i < count; i += INTERLEAVED_THREADS) acc += partials[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    interleaved_tree(s);
    if (threadIdx.x == 0) *result = s[0];
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_interleaved(const mb_reduce_args *a, cudaStream_t st) {
    int64_t cap = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > INTERLEAVED_MAX_BLOCKS) cap = INTERLEAVED_MAX_BLOCKS;
    int blocks = (int)mb_grid_dim(mb_cdiv(a->n, INTERLEAVED_THREADS), cap);
    T *partials = (T *)a->work;
    reduce_interleaved_kernel<T, IS_DOT><<<blocks, INTERLEAVED_THREADS, 0, st>>>(*a, partials);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    reduce_interleaved_finish<T><<<1, INTERLEAVED_THREADS, 0, st>>>(partials, blocks, (T *)a->result);
    return cudaGetLastError();
}

MB_REDUCE_LAUNCHERS(interleaved, reduce_interleaved)
