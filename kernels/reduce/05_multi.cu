/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 5, multi: each thread adds many terms before any tree runs. The grid is sized to the
 * machine, not to the vector (8 blocks of 256 threads per SM: one full wave, no tail); each
 * thread walks the vector with a grid stride and already adds two terms per step, i and
 * i + 256 ("first add during the load", Harris's reduce4/6), so two loads are in flight per
 * thread. Rung 4's unrolled tree runs once per block.
 *
 * Why: rungs 2 to 4 pay a whole tree per 256 terms; here it is paid once per block.
 * Limit: two scalar loads in flight per thread (8 bytes for asum) are too few to keep DRAM
 * busy for FP32 asum; dot (two operands) gets twice the bytes per load.
 * Accuracy: per-thread sums are sequential over about n / (SMs * 2048) terms, then pairwise.
 * Resources: 256 threads, 1 KB / 2 KB of shared memory; grid min(8 * SMs, ceil(n / 512)), a
 * function of n and the device only; a second one-block launch combines the partials in a
 * fixed order, so results are bitwise reproducible. The SM count is cached per device.
 * Measured: docs/ladders/reduction.md.
 */
#include "../common/common.cuh"

#define MULTI_THREADS 256
#define MULTI_BLOCKS_PER_SM 8

/* Rung 4's unrolled tree. Thread t enters with v == s[t] stored and synchronised. */
template <unsigned BLOCK, typename T>
__device__ __forceinline__ T multi_tree(T *s, T v) {
    const unsigned tid = threadIdx.x;
#pragma unroll
    for (unsigned st = BLOCK / 2; st >= 64; st >>= 1) {
        if (tid < st) s[tid] = v = v + s[tid + st];
        __syncthreads();
    }
    if (tid < 32) {
        v += s[tid + 32];
#pragma unroll
        for (unsigned st = 16; st > 0; st >>= 1) {
            s[tid] = v;
            __syncwarp();
            v += s[tid + st];
            __syncwarp();
        }
    }
    return v;
}

template <unsigned BLOCK, typename T, bool IS_DOT>
__global__ void __launch_bounds__(BLOCK, MULTI_BLOCKS_PER_SM)
    reduce_multi_kernel(mb_reduce_args a, T *partials) {
    __shared__ T s[BLOCK];
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    const int64_t n = a.n;
    const int64_t stride = (int64_t)gridDim.x * (2 * BLOCK);
    T v = 0;
#pragma unroll 1 /* unrolling adds live 64-bit addresses and spills at 32 registers */
    for (int64_t i = (int64_t)blockIdx.x * (2 * BLOCK) + threadIdx.x; i < n; i += stride) {
        T t = mb_reduce_term<T, IS_DOT>(x, y, i, a.incx, a.incy);
        if (i + BLOCK < n) t += mb_reduce_term<T, IS_DOT>(x, y, i + BLOCK, a.incx, a.incy);
        v += t;
    }
    s[threadIdx.x] = v;
    __syncthreads();
    v = multi_tree<BLOCK>(s, v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

template <unsigned BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) reduce_multi_finish(const T *partials, int count, T *result) {
    __shared__ T s[BLOCK];
    T v = 0;
    for (int i = threadIdx.x; i < count; i += BLOCK) v += partials[i];
    s[threadIdx.x] = v;
    __syncthreads();
    v = multi_tree<BLOCK>(s, v);
    if (threadIdx.x == 0) *result = v;
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_multi(const mb_reduce_args *a, cudaStream_t st) {
    int sms = 0;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    int64_t cap = (int64_t)sms * MULTI_BLOCKS_PER_SM;
    int64_t fit = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > fit) cap = fit;
    int blocks = (int)mb_grid_dim(mb_cdiv(a->n, 2 * MULTI_THREADS), cap);
    T *partials = (T *)a->work;
    reduce_multi_kernel<MULTI_THREADS, T, IS_DOT><<<blocks, MULTI_THREADS, 0, st>>>(*a, partials);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    reduce_multi_finish<MULTI_THREADS, T><<<1, MULTI_THREADS, 0, st>>>(partials, blocks, (T *)a->result);
    return cudaGetLastError();
}

MB_REDUCE_LAUNCHERS(multi, reduce_multi)
