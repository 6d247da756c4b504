/*
 * Rung 7, single pass: the shuffle rung's loads and block sums, but one launch per call and
 * no second kernel. Each block writes its partial to the workspace, makes it visible
 * (__threadfence) and takes a ticket from a counter in the workspace (atomicInc, which wraps
 * back to 0 on the last ticket, so the counter is left zero for the next call). The block
 * that draws the last ticket knows every partial is written: it adds them in a fixed order
 * (thread t takes partials t, t+256, ..., then the warp-shuffle block sum) and writes *result.
 * No float atomics: the result is bitwise reproducible. Small vectors (n * sizeof(T) <= 32 KiB)
 * run as one block that writes *result directly: no partials, no counter. Saves a launch
 * (a few microseconds) per call, which is what dominates for n <= 2^20.
 *
 * Workspace: partials from the start; the counter (unsigned int) in the last 256 bytes,
 * which no other reduction rung writes.
 */
#include "../common/common.cuh"

#define SP_THREADS 256
#define SP_BLOCKS_PER_SM 4
#define SP_UNROLL 4
#define SP_MAX_DEVICES 64
#define SP_ONE_BLOCK_BYTES 32768 /* n * sizeof(T) up to this: one block, no partials */

static cudaError_t sp_sm_count(int *out) {
    static int cache[SP_MAX_DEVICES];
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    int v = (dev >= 0 && dev < SP_MAX_DEVICES) ? __atomic_load_n(&cache[dev], __ATOMIC_RELAXED) : 0;
    if (v <= 0) {
        e = cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev);
        if (e != cudaSuccess) return e;
        if (dev >= 0 && dev < SP_MAX_DEVICES) __atomic_store_n(&cache[dev], v, __ATOMIC_RELAXED);
    }
    *out = v;
    return cudaSuccess;
}

/* 16-byte vector of T and the term of one vector pair. */
template <typename T> struct sp_vec;
template <> struct sp_vec<float> { typedef float4 type; enum { width = 4 }; };
template <> struct sp_vec<double> { typedef double2 type; enum { width = 2 }; };

template <bool IS_DOT>
__device__ __forceinline__ float sp_vterm(float4 a, float4 b) {
    if (IS_DOT) return (a.x * b.x + a.y * b.y) + (a.z * b.z + a.w * b.w);
    return (fabsf(a.x) + fabsf(a.y)) + (fabsf(a.z) + fabsf(a.w));
}
template <bool IS_DOT>
__device__ __forceinline__ double sp_vterm(double2 a, double2 b) {
    if (IS_DOT) return a.x * b.x + a.y * b.y;
    return fabs(a.x) + fabs(a.y);
}

template <typename T>
__device__ __forceinline__ T sp_warp_sum(T v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* Sum over the block, valid in thread 0. s: one slot per warp. Barrier-safe to call twice
 * only with a __syncthreads in between. */
template <unsigned BLOCK, typename T>
__device__ __forceinline__ T sp_block_sum(T v, T *s) {
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = sp_warp_sum(v);
    if (lane == 0) s[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < BLOCK / 32 ? s[lane] : (T)0;
        v = sp_warp_sum(v);
    }
    return v;
}

/* This thread's share of the sum. VEC: elements [head, head + nvec * W) as nvec 16-byte
 * vectors, the rest (< 2W elements) scalar. Otherwise scalar, strided. */
template <unsigned BLOCK, typename T, bool IS_DOT, bool VEC>
__device__ __forceinline__ T sp_thread_sum(const mb_reduce_args &a, int64_t head, int64_t nvec) {
    typedef typename sp_vec<T>::type VT;
    const int W = sp_vec<T>::width;
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
            acc0 += sp_vterm<IS_DOT>(a0, b0);
            acc1 += sp_vterm<IS_DOT>(a1, b1);
            acc2 += sp_vterm<IS_DOT>(a2, b2);
            acc3 += sp_vterm<IS_DOT>(a3, b3);
        }
        for (; i < nvec; i += gs) {
            VT av = __ldg(xv + i), bv = av;
            if (IS_DOT) bv = __ldg(yv + i);
            acc0 += sp_vterm<IS_DOT>(av, bv);
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
__global__ void __launch_bounds__(BLOCK, SP_BLOCKS_PER_SM)
    reduce_singlepass_kernel(mb_reduce_args a, int64_t head, int64_t nvec, T *partials,
                             unsigned *counter) {
    __shared__ T s[BLOCK / 32];
    __shared__ bool last;
    T v = sp_thread_sum<BLOCK, T, IS_DOT, VEC>(a, head, nvec);
    v = sp_block_sum<BLOCK>(v, s);
    if (gridDim.x == 1) { /* small n: no partials, no counter */
        if (threadIdx.x == 0) *(T *)a.result = v;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence(); /* the partial is visible device-wide before the ticket is taken */
        unsigned ticket = atomicInc(counter, gridDim.x - 1); /* the last ticket resets it to 0 */
        last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    v = 0;
    for (int i = threadIdx.x; i < (int)gridDim.x; i += BLOCK) v += __ldcg(partials + i); /* from L2 */
    v = sp_block_sum<BLOCK>(v, s);
    if (threadIdx.x == 0) *(T *)a.result = v;
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_singlepass(const mb_reduce_args *a, cudaStream_t st) {
    const int W = sp_vec<T>::width;
    int sms = 0;
    cudaError_t e = sp_sm_count(&sms);
    if (e != cudaSuccess) return e;
    const int64_t n = a->n;
    const int unit = a->incx == 1 && (!IS_DOT || a->incy == 1);
    /* Grid from n, increments and device only. */
    int64_t chunk = (int64_t)SP_THREADS * SP_UNROLL * (unit ? W : 1);
    int64_t cap = (int64_t)sms * SP_BLOCKS_PER_SM;
    int64_t fit = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > fit) cap = fit;
    int blocks = (int)mb_grid_dim(mb_cdiv(n, chunk), cap);
    if (n * (int64_t)sizeof(T) <= SP_ONE_BLOCK_BYTES) blocks = 1;

    uintptr_t xa = (uintptr_t)a->x, ya = (uintptr_t)a->y;
    int vec = unit && xa % sizeof(T) == 0 && (!IS_DOT || (xa - ya) % 16 == 0);
    int64_t head = 0, nvec = 0;
    if (vec) {
        head = (int64_t)(((16 - xa % 16) % 16) / sizeof(T));
        if (head > n) head = n;
        nvec = (n - head) / W;
    }
    T *partials = (T *)a->work;
    unsigned *counter = (unsigned *)((char *)a->work + a->work_bytes - 256);
    if (vec)
        reduce_singlepass_kernel<SP_THREADS, T, IS_DOT, true>
            <<<blocks, SP_THREADS, 0, st>>>(*a, head, nvec, partials, counter);
    else
        reduce_singlepass_kernel<SP_THREADS, T, IS_DOT, false>
            <<<blocks, SP_THREADS, 0, st>>>(*a, head, nvec, partials, counter);
    return cudaGetLastError();
}

MB_REDUCE_LAUNCHERS(singlepass, reduce_singlepass)
