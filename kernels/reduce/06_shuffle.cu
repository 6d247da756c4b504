/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 6, shuffle: two changes to rung 5.
 *  - Loads: with unit increments and 16-byte-aligned data each thread reads 128-bit vectors
 *    (float4 / double2) and issues four before adding anything (the grid-stride loop unrolled
 *    4x into four accumulators): 64 bytes (asum) or 128 bytes (dot) in flight per thread
 *    instead of 8. Scalar head and tail elements are added by the first threads. For dot,
 *    x and y must share the offset within 16 bytes; anything else takes a scalar strided path,
 *    also unrolled 4x.
 *  - Block sum: warps reduce in registers with __shfl_down_sync, one value per warp goes to
 *    shared memory and the first warp reduces those: one barrier per block instead of eight.
 *
 * Why: a streaming read needs bytes in flight; the gain is largest where rung 5 was short of
 * them (FP32 asum). Limit: two launches per call, a fixed cost that dominates small n.
 * Resources: 256 threads, 4 blocks per SM (__launch_bounds__(256, 4)), 32 words of shared
 * memory; grid min(4 * SMs, ceil(n / chunk)); partials combined by a second one-block launch
 * in a fixed order. The head/vector/tail split depends on the address modulo 16: the same
 * buffers give bitwise identical results, the same values at another alignment may round
 * differently. Measured: docs/ladders/reduction.md.
 */
#include "../common/common.cuh"

#define SHUF_THREADS 256
#define SHUF_BLOCKS_PER_SM 4
#define SHUF_UNROLL 4

/* 16-byte vector of T and the term of one vector pair. */
template <typename T> struct shuf_vec;
template <> struct shuf_vec<float> { typedef float4 type; enum { width = 4 }; };
template <> struct shuf_vec<double> { typedef double2 type; enum { width = 2 }; };

template <bool IS_DOT>
__device__ __forceinline__ float shuf_vterm(float4 a, float4 b) {
    if (IS_DOT) return (a.x * b.x + a.y * b.y) + (a.z * b.z + a.w * b.w);
    return (fabsf(a.x) + fabsf(a.y)) + (fabsf(a.z) + fabsf(a.w));
}
template <bool IS_DOT>
__device__ __forceinline__ double shuf_vterm(double2 a, double2 b) {
    if (IS_DOT) return a.x * b.x + a.y * b.y;
    return fabs(a.x) + fabs(a.y);
}

template <typename T>
__device__ __forceinline__ T shuf_warp_sum(T v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* Sum over the block, valid in thread 0. s: one slot per warp. Barrier-safe to call twice
 * only with a __syncthreads in between. */
template <unsigned BLOCK, typename T>
__device__ __forceinline__ T shuf_block_sum(T v, T *s) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = shuf_warp_sum(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? s[lane] : (T)0;
        v = shuf_warp_sum(v);
    }
    return v;
}

/* This thread's share of the sum. VEC: elements [head, head + nvec * W) as nvec 16-byte
 * vectors, the rest (< 2W elements) scalar. Otherwise scalar, strided. */
template <unsigned BLOCK, typename T, bool IS_DOT, bool VEC>
__device__ __forceinline__ T shuf_thread_sum(const mb_reduce_args &a, int64_t head, int64_t nvec) {
    typedef typename shuf_vec<T>::type VT;
    const int W = shuf_vec<T>::width;
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    const int64_t n = a.n;
    const int64_t gtid = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    const int64_t gs = (int64_t)gridDim.x * BLOCK;
    T acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    if (VEC) {
        const VT *xv = (const VT *)(x + head);
        const VT *yv = IS_DOT ? (const VT *)(y + head) : xv;
        int64_t i = gtid;
        for (; i + 3 * gs < nvec; i += 4 * gs) {
            VT a0 = __ldg(xv + i), a1 = __ldg(xv + i + gs), a2 = __ldg(xv + i + 2 * gs),
               a3 = __ldg(xv + i + 3 * gs);
            VT b0 = a0, b1 = a1, b2 = a2, b3 = a3;
            if (IS_DOT) {
                b0 = __ldg(yv + i);
                b1 = __ldg(yv + i + gs);
                b2 = __ldg(yv + i + 2 * gs);
                b3 = __ldg(yv + i + 3 * gs);
            }
            acc0 += shuf_vterm<IS_DOT>(a0, b0);
            acc1 += shuf_vterm<IS_DOT>(a1, b1);
            acc2 += shuf_vterm<IS_DOT>(a2, b2);
            acc3 += shuf_vterm<IS_DOT>(a3, b3);
        }
        for (; i < nvec; i += gs) {
            VT av = __ldg(xv + i), bv = av;
            if (IS_DOT) bv = __ldg(yv + i);
            acc0 += shuf_vterm<IS_DOT>(av, bv);
        }
        /* head: elements 0 .. head-1; tail: head + nvec*W .. n-1; together < 2W <= gs */
        const int64_t tail0 = head + nvec * W, ntail = n - tail0;
        if (gtid < head) acc1 += mb_reduce_term<T, IS_DOT>(x, y, gtid, 1, 1);
        else if (gtid - head < ntail) acc1 += mb_reduce_term<T, IS_DOT>(x, y, tail0 + (gtid - head), 1, 1);
    } else {
        const int64_t incx = a.incx, incy = a.incy;
        int64_t i = gtid;
        for (; i + 3 * gs < n; i += 4 * gs) {
            T t0, t1, t2, t3;
            if (IS_DOT) {
                T a0 = __ldg(x + i * incx), a1 = __ldg(x + (i + gs) * incx),
                  a2 = __ldg(x + (i + 2 * gs) * incx), a3 = __ldg(x + (i + 3 * gs) * incx);
                T b0 = __ldg(y + i * incy), b1 = __ldg(y + (i + gs) * incy),
                  b2 = __ldg(y + (i + 2 * gs) * incy), b3 = __ldg(y + (i + 3 * gs) * incy);
                t0 = a0 * b0; t1 = a1 * b1; t2 = a2 * b2; t3 = a3 * b3;
            } else {
                t0 = mb_abs<T>(__ldg(x + i * incx));
                t1 = mb_abs<T>(__ldg(x + (i + gs) * incx));
                t2 = mb_abs<T>(__ldg(x + (i + 2 * gs) * incx));
                t3 = mb_abs<T>(__ldg(x + (i + 3 * gs) * incx));
            }
            acc0 += t0;
            acc1 += t1;
            acc2 += t2;
            acc3 += t3;
        }
        for (; i < n; i += gs) acc0 += mb_reduce_term<T, IS_DOT>(x, y, i, incx, incy);
    }
    return (acc0 + acc1) + (acc2 + acc3);
}

template <unsigned BLOCK, typename T, bool IS_DOT, bool VEC>
__global__ void __launch_bounds__(BLOCK, SHUF_BLOCKS_PER_SM)
    reduce_shuffle_kernel(mb_reduce_args a, int64_t head, int64_t nvec, T *partials) {
    __shared__ T s[BLOCK / 32];
    T v = shuf_thread_sum<BLOCK, T, IS_DOT, VEC>(a, head, nvec);
    v = shuf_block_sum<BLOCK>(v, s);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

template <unsigned BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) reduce_shuffle_finish(const T *partials, int count, T *result) {
    __shared__ T s[BLOCK / 32];
    T v = 0;
    for (int i = threadIdx.x; i < count; i += BLOCK) v += partials[i];
    v = shuf_block_sum<BLOCK>(v, s);
    if (threadIdx.x == 0) *result = v;
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_shuffle(const mb_reduce_args *a, cudaStream_t st) {
    const int W = shuf_vec<T>::width;
    int sms = 0;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    const int64_t n = a->n;
    const int unit = a->incx == 1 && (!IS_DOT || a->incy == 1);
    /* Grid from n, increments and device only: enough blocks for one unrolled pass. */
    int64_t chunk = (int64_t)SHUF_THREADS * SHUF_UNROLL * (unit ? W : 1);
    int64_t cap = (int64_t)sms * SHUF_BLOCKS_PER_SM;
    int64_t fit = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > fit) cap = fit;
    int blocks = (int)mb_grid_dim(mb_cdiv(n, chunk), cap);

    uintptr_t xa = (uintptr_t)a->x, ya = (uintptr_t)a->y;
    int vec = unit && xa % sizeof(T) == 0 && (!IS_DOT || (xa - ya) % 16 == 0);
    int64_t head = 0, nvec = 0;
    if (vec) {
        head = (int64_t)(((16 - xa % 16) % 16) / sizeof(T));
        if (head > n) head = n;
        nvec = (n - head) / W;
    }
    T *partials = (T *)a->work;
    if (vec)
        reduce_shuffle_kernel<SHUF_THREADS, T, IS_DOT, true>
            <<<blocks, SHUF_THREADS, 0, st>>>(*a, head, nvec, partials);
    else
        reduce_shuffle_kernel<SHUF_THREADS, T, IS_DOT, false>
            <<<blocks, SHUF_THREADS, 0, st>>>(*a, head, nvec, partials);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    reduce_shuffle_finish<SHUF_THREADS, T><<<1, SHUF_THREADS, 0, st>>>(partials, blocks, (T *)a->result);
    return cudaGetLastError();
}

/* 07_singlepass.cu includes this file for its building blocks, without these launchers. */
#ifndef MB_REDUCE_SHUFFLE_NO_LAUNCHERS
MB_REDUCE_LAUNCHERS(shuffle, reduce_shuffle)
#endif
