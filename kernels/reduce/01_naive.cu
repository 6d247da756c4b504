/*
 * Rung 1, naive: a single block of 256 threads. Thread t adds elements t, t+256, ... into its
 * own partial sum, the partials go to shared memory, and thread 0 adds them up in order. One
 * multiprocessor of the 132 works, so it reaches a few percent of the memory bandwidth; the
 * result is deterministic (fixed order) and at least as accurate as a sequential sum.
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
