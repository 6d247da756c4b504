/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 1, naive: one block of 256 threads. Thread t adds elements t, t+256, ... into its own
 * partial sum, the partials go to shared memory and thread 0 adds them up in order.
 *
 * Why: the simplest correct reduction, and the baseline of the ladder. Deterministic (fixed
 * order) and at least as accurate as a sequential sum.
 * Limit: one multiprocessor of the whole GPU reads, so it reaches a few percent of the memory
 * bandwidth at large n; at tiny n it is one launch and beats the two-launch rungs 2 to 6.
 * Resources: 256 threads, 256 partials in shared memory (1 KB float, 2 KB double).
 * Measured: docs/ladders/reduction.md (tables generated from perf/results/<gpu>/).
 */
#include "../common/common.cuh"

#define NAIVE_THREADS 256

template <typename T, bool IS_DOT>
__global__ void reduce_naive_kernel(mb_reduce_args a) {
    __shared__ T part[NAIVE_THREADS];
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    T acc = 0;
    for (int64_t i = threadIdx.x; i < a.n; i += NAIVE_THREADS)
        acc += mb_reduce_term<T, IS_DOT>(x, y, i, a.incx, a.incy);
    part[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        T sum = 0;
        for (int t = 0; t < NAIVE_THREADS; ++t) sum += part[t];
        *(T *)a.result = sum;
    }
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_naive(const mb_reduce_args *a, cudaStream_t s) {
    reduce_naive_kernel<T, IS_DOT><<<1, NAIVE_THREADS, 0, s>>>(*a);
    return cudaGetLastError();
}

MB_REDUCE_LAUNCHERS(naive, reduce_naive)
