/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helper kernels of miniblas-bench (not part of the library):
 *   - bench_fill_uniform: deterministic pseudo-random fill in [-1, 1) (a hash of the index);
 *   - bench_read_stream: the streaming-read ceiling, a float4 grid-stride read that sums into a
 *     per-thread register and writes one value per block, so nothing is optimised away;
 *   - bench_max_absdiff: max |a - b| over a column-major matrix (NaN counts as +inf), for the
 *     check of gemm and omatcopy against cuBLAS;
 *   - bench_ref_reduce: sum of the terms (|x_i| or x_i*y_i) and of their magnitudes in double,
 *     the scale of the reduction check.
 * Host wrappers are extern "C" and return the launch's cudaError_t.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#define BENCH_THREADS 256

__device__ __forceinline__ uint64_t bench_hash(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull; /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <typename T> __device__ __forceinline__ T bench_uniform(uint64_t h);
template <> __device__ __forceinline__ float bench_uniform<float>(uint64_t h) {
    return (float)(h >> 40) * (1.0f / 8388608.0f) - 1.0f; /* 24 bits: k / 2^23 - 1 in [-1, 1) */
}
template <> __device__ __forceinline__ double bench_uniform<double>(uint64_t h) {
    return (double)(h >> 11) * (1.0 / 4503599627370496.0) - 1.0; /* 53 bits / 2^52 - 1 */
}

template <typename T>
__global__ void fill_uniform_kernel(T *p, size_t n, uint64_t seed) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        p[i] = bench_uniform<T>(bench_hash(seed * 0x632BE59BD9B4E019ull + i));
}

static unsigned grid_for(size_t n) {
    size_t b = (n + BENCH_THREADS - 1) / BENCH_THREADS;
    if (b > 65536) b = 65536;
    return (unsigned)(b ? b : 1);
}

extern "C" cudaError_t bench_fill_uniform(void *p, size_t n, int is_double, uint64_t seed,
                                          cudaStream_t s) {
    if (n == 0) return cudaSuccess;
    if (is_double)
        fill_uniform_kernel<double><<<grid_for(n), BENCH_THREADS, 0, s>>>((double *)p, n, seed);
    else
        fill_uniform_kernel<float><<<grid_for(n), BENCH_THREADS, 0, s>>>((float *)p, n, seed);
    return cudaGetLastError();
}

/* Block-wide sum or max of one value per thread; the result is valid in thread 0. */
template <typename T, bool MAX>
__device__ T block_combine(T v) {
    __shared__ T warp_part[BENCH_THREADS / 32];
    for (int o = 16; o > 0; o >>= 1) {
        T w = __shfl_down_sync(0xffffffffu, v, o);
        v = MAX ? (w > v ? w : v) : v + w;
    }
    if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BENCH_THREADS / 32 ? warp_part[threadIdx.x] : (T)0;
        for (int o = 16; o > 0; o >>= 1) {
            T w = __shfl_down_sync(0xffffffffu, v, o);
            v = MAX ? (w > v ? w : v) : v + w;
        }
    }
    return v;
}

__global__ void __launch_bounds__(BENCH_THREADS)
    read_stream_kernel(const float4 *__restrict__ p, size_t n4, float *block_out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    /* four independent loads in flight per thread */
    for (; i + 3 * stride < n4; i += 4 * stride) {
        float4 a = __ldg(p + i), b = __ldg(p + i + stride), c = __ldg(p + i + 2 * stride),
               d = __ldg(p + i + 3 * stride);
        acc += (a.x + a.y + a.z + a.w) + (b.x + b.y + b.z + b.w) + (c.x + c.y + c.z + c.w) +
               (d.x + d.y + d.z + d.w);
    }
    for (; i < n4; i += stride) {
        float4 a = __ldg(p + i);
        acc += a.x + a.y + a.z + a.w;
    }
    acc = block_combine<float, false>(acc);
    if (threadIdx.x == 0) block_out[blockIdx.x] = acc;
}

/* bytes: a multiple of 16; p 16-byte aligned; block_out has `blocks` floats. */
extern "C" cudaError_t bench_read_stream(const void *p, size_t bytes, float *block_out,
                                         int blocks, cudaStream_t s) {
    read_stream_kernel<<<blocks, BENCH_THREADS, 0, s>>>((const float4 *)p, bytes / 16, block_out);
    return cudaGetLastError();
}

template <typename T>
__global__ void max_absdiff_kernel(const T *a, int64_t lda, const T *b, int64_t ldb, int64_t rows,
                                   int64_t cols, unsigned long long *out) {
    size_t total = (size_t)rows * (size_t)cols;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    double m = 0.0;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        int64_t i = (int64_t)(t % (size_t)rows), j = (int64_t)(t / (size_t)rows);
        double d = fabs((double)a[i + j * lda] - (double)b[i + j * ldb]);
        if (!(d <= 1.0e308)) d = __longlong_as_double(0x7FF0000000000000ll); /* NaN, inf -> inf */
        m = d > m ? d : m;
    }
    m = block_combine<double, true>(m);
    /* non-negative doubles order like their bit patterns */
    if (threadIdx.x == 0) atomicMax(out, (unsigned long long)__double_as_longlong(m));
}

/* *out must be zero before the call; afterwards it holds the bits of the max (a double). */
extern "C" cudaError_t bench_max_absdiff(const void *a, int64_t lda, const void *b, int64_t ldb,
                                         int64_t rows, int64_t cols, int is_double,
                                         unsigned long long *out, cudaStream_t s) {
    size_t total = (size_t)rows * (size_t)cols;
    if (total == 0) return cudaSuccess;
    if (is_double)
        max_absdiff_kernel<double><<<grid_for(total), BENCH_THREADS, 0, s>>>(
            (const double *)a, lda, (const double *)b, ldb, rows, cols, out);
    else
        max_absdiff_kernel<float><<<grid_for(total), BENCH_THREADS, 0, s>>>(
            (const float *)a, lda, (const float *)b, ldb, rows, cols, out);
    return cudaGetLastError();
}

template <typename T>
__global__ void ref_reduce_kernel(const T *x, int64_t incx, const T *y, int64_t incy, int64_t n,
                                  double *out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    double sum = 0.0, mag = 0.0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride) {
        double t = y ? (double)x[(int64_t)i * incx] * (double)y[(int64_t)i * incy]
                     : fabs((double)x[(int64_t)i * incx]);
        sum += t;
        mag += fabs(t);
    }
    sum = block_combine<double, false>(sum);
    __syncthreads(); /* block_combine's shared array is reused */
    mag = block_combine<double, false>(mag);
    if (threadIdx.x == 0) {
        atomicAdd(out, sum);
        atomicAdd(out + 1, mag);
    }
}

/* out[0] = sum of the terms, out[1] = sum of their magnitudes (both zeroed by the caller).
 * asum: y == NULL, terms |x_i|; dot: terms x_i * y_i. Increments >= 1. */
extern "C" cudaError_t bench_ref_reduce(const void *x, int64_t incx, const void *y, int64_t incy,
                                        int64_t n, int is_double, double *out, cudaStream_t s) {
    if (n <= 0) return cudaSuccess;
    if (is_double)
        ref_reduce_kernel<double><<<grid_for((size_t)n), BENCH_THREADS, 0, s>>>(
            (const double *)x, incx, (const double *)y, incy, n, out);
    else
        ref_reduce_kernel<float><<<grid_for((size_t)n), BENCH_THREADS, 0, s>>>(
            (const float *)x, incx, (const float *)y, incy, n, out);
    return cudaGetLastError();
}
