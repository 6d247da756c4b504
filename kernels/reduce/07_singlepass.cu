/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 7, singlepass: rung 6's loads and block sums in one launch per call. Each block writes
 * its partial and takes a ticket with one acquire-release atomic (atom.acq_rel.gpu.inc, which
 * wraps to 0 on the last ticket, leaving the counter ready for the next call); the block with
 * the last ticket adds the partials in a fixed order (all its loads issued before the adds,
 * then the warp-shuffle sum) and writes *result. No float atomics: bitwise reproducible run to
 * run. Vectors of at most 32 KiB run as one block with no partials and no counter.
 *
 * Why: at small and mid n a call is a fixed cost (launch, DRAM latency, combining) plus a
 * little streaming; one launch instead of two halves the first part. On Hopper the kernel is
 * launched with programmatic dependent launch: it waits for the previous grid before touching
 * memory, lets the next launch start at once for calls reading up to 16 MB (only after its
 * loads above that, where an early launch competes with the streaming), and prefetches its
 * first round into L2 before the wait. Unit stride: 128 bytes in flight per thread (8 vectors
 * for asum, 4 + 4 for dot), the last partial round with clamped unconditional loads so all
 * loads issue first; strided path unrolled 8 deep.
 * Limit: at a non-unit increment the strided single pass is weaker than rung 6 for FP32 asum
 * (`auto` sends that case to shuffle).
 * Resources: 256 threads, 4 blocks per SM, 32 words of shared memory; partials from the start
 * of the workspace, the counter in its last 256 bytes (no other rung writes there).
 * Measured: docs/ladders/reduction.md.
 */
/* Rung 6's building blocks: 16-byte vector types and terms (shuf_vec, shuf_vterm), the warp-
 * shuffle block sum (shuf_block_sum). */
#define MB_REDUCE_SHUFFLE_NO_LAUNCHERS
#include "06_shuffle.cu"

#define SP_THREADS 256
#define SP_BLOCKS_PER_SM 4
#define SP_VEC_BYTES 128   /* bytes in flight per thread per round, unit stride (asum 8 x 16 B,
                              dot 2 x 4 x 16 B) */
#define SP_EARLY_TRIGGER_BYTES (16u << 20) /* bytes read up to this: trigger the next launch at
                                              once; above it, after this grid's loads */
#define SP_SUNROLL 8       /* elements per thread per round, strided path */
#define SP_MIN_PER_THREAD 2 /* grid: each thread gets at least this many loads before more blocks */
#define SP_COMBINE_DEPTH 4  /* partial loads in flight per thread of the last block */
#define SP_ONE_BLOCK_BYTES 32768 /* n * sizeof(T) up to this: one block, no partials */

/* Ticket: atomicInc with acquire-release semantics at device scope (release: this thread's
 * partial store is visible before the ticket; acquire: the last block sees every partial). */
__device__ __forceinline__ unsigned sp_ticket(unsigned *counter, unsigned wrap) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;"
                 : "=r"(old)
                 : "l"(counter), "r"(wrap)
                 : "memory");
    return old;
}

/* Bulk prefetch of [p, p + bytes) into L2 (sm_90 cp.async.bulk.prefetch; p 16-byte aligned,
 * bytes a multiple of 16). A hint: no data comes back, nothing to wait for. */
__device__ __forceinline__ void sp_prefetch_l2(const void *p, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#endif
}

/* This thread's share of the sum. VEC: elements [head, head + nvec * W) as nvec 16-byte
 * vectors, the rest (< 2W elements) scalar. Otherwise scalar, strided. The order of the
 * additions depends only on n, the grid and (VEC) head. */
template <unsigned BLOCK, typename T, bool IS_DOT, bool VEC>
__device__ __forceinline__ T sp_thread_sum(const mb_reduce_args &a, int64_t head, int64_t nvec) {
    typedef typename shuf_vec<T>::type VT;
    const int W = shuf_vec<T>::width;
    const T *x = (const T *)a.x, *y = (const T *)a.y;
    const int64_t n = a.n;
    const int64_t gtid = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
    const int64_t gs = (int64_t)gridDim.x * BLOCK;
    T acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    if (VEC) {
        /* U vectors per stream per thread per round: asum 8, dot 4 (x and y), i.e. 128 bytes
         * in flight per thread either way. The last, partial round has the same shape: indices
         * past the end are clamped to the last vector (a harmless duplicate load) and their
         * terms replaced by 0, so its loads are unconditional too (with guarded loads there,
         * ptxas interleaved loads and adds in the main loop: 4-5 loads in flight, not 8). */
        enum { U = SP_VEC_BYTES / (16 * (IS_DOT ? 2 : 1)) };
        const VT *xv = (const VT *)(x + head);
        const VT *yv = IS_DOT ? (const VT *)(y + head) : xv;
        int64_t i = gtid;
        for (; i + (U - 1) * gs < nvec; i += U * gs) {
            VT av[U], bv[U];
#pragma unroll
            for (int k = 0; k < U; ++k) av[k] = __ldg(xv + i + k * gs);
            if (IS_DOT) {
#pragma unroll
                for (int k = 0; k < U; ++k) bv[k] = __ldg(yv + i + k * gs);
            }
#pragma unroll
            for (int k = 0; k < U; ++k) {
                const T t = shuf_vterm<IS_DOT>(av[k], IS_DOT ? bv[k] : av[k]);
                if ((k & 3) == 0) acc0 += t;
                else if ((k & 3) == 1) acc1 += t;
                else if ((k & 3) == 2) acc2 += t;
                else acc3 += t;
            }
        }
        if (i < nvec) { /* last round, 1 to U-1 vectors in range */
            const int64_t lastv = nvec - 1;
            VT av[U - 1], bv[U - 1];
#pragma unroll
            for (int k = 0; k < U - 1; ++k) {
                const int64_t j = i + k * gs;
                av[k] = __ldg(xv + (j < lastv ? j : lastv));
            }
            if (IS_DOT) {
#pragma unroll
                for (int k = 0; k < U - 1; ++k) {
                    const int64_t j = i + k * gs;
                    bv[k] = __ldg(yv + (j < lastv ? j : lastv));
                }
            }
#pragma unroll
            for (int k = 0; k < U - 1; ++k) {
                T t = shuf_vterm<IS_DOT>(av[k], IS_DOT ? bv[k] : av[k]);
                if (k > 0 && i + k * gs >= nvec) t = (T)0; /* k = 0 is in range */
                if ((k & 3) == 0) acc0 += t;
                else if ((k & 3) == 1) acc1 += t;
                else if ((k & 3) == 2) acc2 += t;
                else acc3 += t;
            }
        }
        /* head: elements 0 .. head-1; tail: head + nvec*W .. n-1; together < 2W <= gs */
        const int64_t tail0 = head + nvec * W, ntail = n - tail0;
        if (gtid < head) acc3 += mb_reduce_term<T, IS_DOT>(x, y, gtid, 1, 1);
        else if (gtid - head < ntail) acc3 += mb_reduce_term<T, IS_DOT>(x, y, tail0 + (gtid - head), 1, 1);
    } else {
        /* element i at x[i * incx]; this thread's elements i, i + gs, ...: pointer steps */
        const int64_t incx = a.incx, incy = a.incy;
        const int64_t sx = gs * incx, sy = gs * incy;
        int64_t i = gtid;
        const T *px = x + i * incx, *py = IS_DOT ? y + i * incy : px;
        for (; i + (SP_SUNROLL - 1) * gs < n; i += SP_SUNROLL * gs) {
            T t[SP_SUNROLL];
#pragma unroll
            for (int k = 0; k < SP_SUNROLL; ++k) t[k] = __ldg(px + k * sx);
            if (IS_DOT) {
#pragma unroll
                for (int k = 0; k < SP_SUNROLL; ++k) t[k] *= __ldg(py + k * sy);
            } else {
#pragma unroll
                for (int k = 0; k < SP_SUNROLL; ++k) t[k] = mb_abs<T>(t[k]);
            }
#pragma unroll
            for (int k = 0; k < SP_SUNROLL; k += 4) {
                acc0 += t[k];
                acc1 += t[k + 1];
                acc2 += t[k + 2];
                acc3 += t[k + 3];
            }
            px += SP_SUNROLL * sx;
            py += SP_SUNROLL * sy;
        }
        if (i < n) { /* last round, 1 to 7 elements: all loads issued before the adds */
            T t[SP_SUNROLL - 1];
#pragma unroll
            for (int k = 0; k < SP_SUNROLL - 1; ++k) {
                t[k] = 0;
                if (i + k * gs < n) t[k] = __ldg(px + k * sx);
            }
            if (IS_DOT) {
#pragma unroll
                for (int k = 0; k < SP_SUNROLL - 1; ++k)
                    if (i + k * gs < n) t[k] *= __ldg(py + k * sy);
            }
#pragma unroll
            for (int k = 0; k < SP_SUNROLL - 1; ++k) {
                if (i + k * gs < n) {
                    const T v = IS_DOT ? t[k] : mb_abs<T>(t[k]);
                    if ((k & 3) == 0) acc0 += v;
                    else if ((k & 3) == 1) acc1 += v;
                    else if ((k & 3) == 2) acc2 += v;
                    else acc3 += v;
                }
            }
        }
    }
    return (acc0 + acc1) + (acc2 + acc3);
}

template <unsigned BLOCK, typename T, bool IS_DOT, bool VEC>
__global__ void __launch_bounds__(BLOCK, SP_BLOCKS_PER_SM)
    reduce_singlepass_kernel(mb_reduce_args a, int64_t head, int64_t nvec, T *partials,
                             unsigned *counter, int early) {
    __shared__ T s[BLOCK / 32];
    __shared__ bool last;
    if (VEC) {
        /* Before the PDL wait: ask L2 for this block's first round (U runs of BLOCK vectors
         * per stream, one bulk prefetch each, by threads 0 .. U-1). Only a hint: it returns
         * no data, and L2 is where every write of the previous grid lands, so the loads after
         * the wait still see those writes. Overlaps this call's DRAM reads with the previous
         * call's tail (its combine, completion and flush). */
        enum { U = SP_VEC_BYTES / (16 * (IS_DOT ? 2 : 1)) };
        if (threadIdx.x < U) {
            const int64_t v0 = (int64_t)blockIdx.x * BLOCK + (int64_t)threadIdx.x * gridDim.x * BLOCK;
            if (v0 < nvec) {
                const int64_t cnt = nvec - v0 < (int64_t)BLOCK ? nvec - v0 : (int64_t)BLOCK;
                sp_prefetch_l2((const T *)a.x + head + v0 * (16 / sizeof(T)), (unsigned)(cnt * 16));
                if (IS_DOT)
                    sp_prefetch_l2((const T *)a.y + head + v0 * (16 / sizeof(T)), (unsigned)(cnt * 16));
            }
        }
    }
    /* Nothing is read or written before the previous grid has finished (PDL). Small calls let
     * the next launch start at once; large ones only after this grid's loads (launched early,
     * the next grid's blocks compete with this one's streaming and asum lost a quarter). */
    mb_grid_wait();
    if (early) mb_grid_launch_next();
    T v = sp_thread_sum<BLOCK, T, IS_DOT, VEC>(a, head, nvec);
    if (!early) mb_grid_launch_next();
    v = shuf_block_sum<BLOCK>(v, s);
    if (gridDim.x == 1) { /* small n: no partials, no counter */
        if (threadIdx.x == 0) *(T *)a.result = v;
        return;
    }
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        /* release: the partial is visible before the ticket; the last ticket resets it to 0 */
        unsigned ticket = sp_ticket(counter, gridDim.x - 1);
        last = (ticket == gridDim.x - 1);
    }
    __syncthreads(); /* with thread 0's acquire: every partial is visible to the whole block */
    if (!last) return;
    /* Fixed order: thread t adds partials t, t + BLOCK, t + 2*BLOCK, ... (from L2), issuing
     * SP_COMBINE_DEPTH loads before the adds. */
    const int G = (int)gridDim.x;
    v = 0;
    for (int b = threadIdx.x; b < G; b += SP_COMBINE_DEPTH * BLOCK) {
        T p[SP_COMBINE_DEPTH];
#pragma unroll
        for (int k = 0; k < SP_COMBINE_DEPTH; ++k)
            p[k] = b + k * (int)BLOCK < G ? __ldcg(partials + b + k * BLOCK) : (T)0;
#pragma unroll
        for (int k = 0; k < SP_COMBINE_DEPTH; ++k)
            if (b + k * (int)BLOCK < G) v += p[k];
    }
    /* s may be reused: warp 0 finished reading it before the barrier above */
    v = shuf_block_sum<BLOCK>(v, s);
    if (threadIdx.x == 0) *(T *)a.result = v;
}

template <unsigned BLOCK, typename T, bool IS_DOT, bool VEC>
static cudaError_t sp_launch(unsigned blocks, int pdl, int early, const mb_reduce_args *a,
                             int64_t head, int64_t nvec, T *partials, unsigned *counter,
                             cudaStream_t st) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(BLOCK);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = st;
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    cudaError_t e = cudaLaunchKernelEx(&cfg, reduce_singlepass_kernel<BLOCK, T, IS_DOT, VEC>, *a,
                                       head, nvec, partials, counter, early);
    if (e != cudaSuccess) return e;
    return cudaGetLastError();
}

template <typename T, bool IS_DOT>
static cudaError_t reduce_singlepass(const mb_reduce_args *a, cudaStream_t st) {
    const int W = shuf_vec<T>::width;
    int sms = 0, major = 0;
    cudaError_t e = mb_device_info(&sms, &major);
    if (e != cudaSuccess) return e;
    const int64_t n = a->n;
    const int unit = a->incx == 1 && (!IS_DOT || a->incy == 1);
    /* Grid from n, increments and device only: at least SP_MIN_PER_THREAD loads per thread,
     * at most SP_BLOCKS_PER_SM blocks per SM (one wave). */
    int64_t chunk = (int64_t)SP_THREADS * SP_MIN_PER_THREAD * (unit ? W : 1);
    int64_t cap = (int64_t)sms * SP_BLOCKS_PER_SM;
    int64_t fit = (int64_t)((a->work_bytes - 256) / sizeof(T));
    if (cap > fit) cap = fit;
    unsigned blocks = mb_grid_dim(mb_cdiv(n, chunk), cap);
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
    const int pdl = major >= 9;
    const int early = blocks == 1 ||
                      n * (int64_t)sizeof(T) * (IS_DOT ? 2 : 1) <= (int64_t)SP_EARLY_TRIGGER_BYTES;
    if (vec)
        return sp_launch<SP_THREADS, T, IS_DOT, true>(blocks, pdl, early, a, head, nvec, partials,
                                                      counter, st);
    return sp_launch<SP_THREADS, T, IS_DOT, false>(blocks, pdl, early, a, head, nvec, partials,
                                                   counter, st);
}

MB_REDUCE_LAUNCHERS(singlepass, reduce_singlepass)
