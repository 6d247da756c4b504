/*
 * Rung 5, multi-element: each thread adds many terms before any tree runs. Rungs 2 to 4 spend
 * a whole block tree (8 barriers) per 256 terms; here the grid is sized to the machine, not to
 * the vector (8 blocks of 256 threads per SM: every SM full, one wave, no tail), each thread
 * walks the vector with a grid stride, and each step already adds two terms, i and i + 256
 * (the "first add during the load" of Harris's reduce4/6), so two loads are in flight per
 * thread. The tree (rung 4's, unrolled) runs once per block. Per-thread sums are sequential
 * over about n / (SMs * 2048) terms and then combined pairwise: still far more accurate than
 * one sequential sum.
 *
 * The SM count comes from cudaDevAttrMultiProcessorCount, cached per device (it is constant).
 * Grid = min(8 * SMs, ceil(n / 512)): it depends only on n and the device, the partials are
 * combined in a fixed order by a second one-block launch, so results are bitwise
 * reproducible. Partials at the start of the workspace; its last 256 bytes stay untouched.
 *
 * Measured, run 2 (H200, inputs rotated through 2x L2, device result; ceiling = streaming read
 * 4477 GB/s): sasum 2^20: 7.02 us (597 GB/s, 13.3%, 1.12x cuBLAS), 2^28: 3677 GB/s (82.1%,
 * 1.43x cuBLAS); ddot 2^20: 10.16 us (1.12x cuBLAS), 2^28: 4480 GB/s (100.1%, 1.01x cuBLAS):
 * 2.4x rung 4 at 2^28 (sasum). Two launches cost ~3.3 us each on the host side, so n <= 2^12
 * calls take ~6.6 us whatever the kernel. Unchanged after run 2.
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
