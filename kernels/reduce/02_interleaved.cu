/*
 * Rung 2, tiled: many blocks instead of one. Each block loads a tile of 256 terms (one per
 * thread) into shared memory and reduces it with a tree (Harris's reduce1: interleaved
 * addressing, at step s thread t adds element 2*s*t + s into 2*s*t). The block partials go to
 * the handle's workspace and a second, one-block launch adds them in a fixed order and writes
 * *result. Every SM now reads, so this is far above the one-block naive rung; what holds it
 * back is the tree itself: the interleaved indices hit the same shared-memory bank many
 * times (2*s*t for a warp lands on a few banks only), and half the threads idle at step 1.
 *
 * Workspace: the partials live at the start of `work`; the last 256 bytes are kept for the
 * counter of the single-pass rung and never written here. When the vector has more tiles than
 * partials fit (the grid is capped), each block loops over tiles b, b+G, ... and thread 0 adds
 * the tile sums in that order. Grid depends only on n: results are bitwise reproducible.
 *
 * Measured, run 2 (H200, inputs rotated through 2x L2, device result; ceiling = streaming read
 * 4477 GB/s): sasum 2^20: 11.76 us (357 GB/s, 8.0%, 0.67x cuBLAS), 2^28: 732 GB/s (16.4%,
 * 0.28x cuBLAS); ddot 2^20: 15.05 us (0.75x cuBLAS), 2^28: 2093 GB/s (46.7%, 0.47x cuBLAS).
 * Unchanged after run 2 (a teaching rung).
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
