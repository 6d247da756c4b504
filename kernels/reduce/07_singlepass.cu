/*
 * Rung 7, single pass: the shuffle rung's loads and block sums, but one launch per call and
 * no second kernel. Each block writes its partial to the workspace and takes a ticket from a
 * counter in the workspace with one acquire-release atomic (atom.acq_rel.gpu.inc, which wraps
 * back to 0 on the last ticket, so the counter is left zero for the next call). The block
 * that draws the last ticket knows every partial is written: it adds them in a fixed order
 * (thread t takes partials t, t+256, ..., all its loads issued before the first add, then the
 * warp-shuffle block sum) and writes *result. No float atomics: the result is bitwise
 * reproducible run to run. Small vectors (n * sizeof(T) <= 32 KiB) run as one block that
 * writes *result directly: no partials, no counter.
 *
 * Measured, run 2 (H200, device result, inputs rotated through 2x L2 so every call reads
 * DRAM; ceiling = streaming read 4477 GB/s): n = 2^10: 3.4-3.6 us per call (cuBLAS 7.4-7.8 us:
 * 2.1-2.3x); n = 2^20: sasum 5.41 us (775 GB/s, 17%; 1.45x cuBLAS), dasum 6.76 us, sdot 6.58,
 * ddot 8.55 (1.33-1.71x cuBLAS); n = 2^28: sasum 4455 GB/s (99.5%, 1.73x cuBLAS), dasum 4504
 * (100.6%), sdot 4511 (100.8%), ddot 4539 GB/s (101.4%, 1.02x cuBLAS).
 *
 * Changes after run 2, aimed at n = 2^15 ... 2^22, where a call is a fixed cost (launch gap,
 * DRAM latency, the last block's combine) plus a few microseconds of streaming:
 *  - Programmatic dependent launch (Hopper, cc >= 9): the kernel is launched with
 *    cudaLaunchAttributeProgrammaticStreamSerialization, lets the next launch start as soon
 *    as all its blocks are running (griddepcontrol.launch_dependents), and waits for the
 *    previous grid to finish and flush (griddepcontrol.wait) before touching any memory. Back
 *    to back calls overlap the next launch's setup and block scheduling with this call's
 *    work; after any other kernel the wait is an ordinary stream dependency. Expected:
 *    -1 to -1.5 us per call at every n (the launch gap is most of a 2^20 call).
 *  - Ticket: one acq_rel atomic instead of two sequentially-consistent __threadfence()s
 *    (one by thread 0 of every block, one by all 256 threads of the last block).
 *  - Combine: each thread of the last block issues all its partial loads (from L2) before
 *    adding (was one dependent L2 round trip per partial).
 *  - Grid: blocks = min(4 * SMs, ceil(units / 512)) (was ceil(units / 1024)): at mid n every
 *    SM gets 4 blocks and each thread 2-4 vectors, and a thread's last, partial round of
 *    loads is issued at once (guarded) instead of one dependent load per iteration.
 *  - Strided path (increments other than 1, or x and y at different 16-byte offsets): the
 *    loop is unrolled 8 deep (was 4), so 8 (asum) or 16 (dot) loads are in flight per thread.
 * Expected after the change: n = 2^20 sasum ~4 us, dasum/sdot ~5 us, ddot ~6.5-7 us. Note
 * the floor at 2^20 under the benchmark's method: every call reads DRAM, so ddot's 16 MB
 * alone take 3.75 us at 4477 GB/s and the 5 us target is out of reach for ddot there.
 *
 * Measured, run 3 (same method): n = 2^10: 2.9-3.8 us; n = 2^20: sasum 4.11 us, dasum 5.81,
 * sdot 4.89, ddot 7.51 (1.6-2.0x cuBLAS); sdot/ddot 2^26-2^28: 99-101% of streaming read.
 * But asum at large n regressed: sasum 2^26 83.0 us (72%; shuffle 64.7), 2^28 318 us (75%;
 * shuffle 241); dasum 2^28 625 us (77%, slower than cuBLAS's 541; shuffle 478). Both asums
 * lost the same 24% from 2^24 up, dot nothing.
 *
 * Changes after run 3:
 *  - Trigger placement: the next launch is let in at once only for calls reading <= 16 MB
 *    (where overlapping it is most of the gain); above that, each block triggers after its
 *    loads are done. Launching the dependent grid at the very start of a long grid is the
 *    only run-2 -> run-3 change on the large-n path, and the usual advice is not to: its
 *    blocks compete with the running grid for SM resources (asum, with half of dot's bytes
 *    in flight, had no margin). Expected: asum back to >= 99% at 2^26-2^28 (run 2: 99.5%).
 *  - 128 bytes in flight per thread for asum too: 8 vectors per round (was 4; dot keeps 4 x
 *    and 4 y). The last, partial round now uses clamped unconditional loads (index past the
 *    end -> last vector, term -> 0) instead of guarded ones: with guarded loads ptxas had
 *    interleaved loads and adds in the main loop (SASS: 4-5 loads before the first add, not
 *    8, in dot as well); now all 8 are issued first in all four kernels (checked in SASS).
 *  - L2 prefetch before the PDL wait (unit stride): threads 0..U-1 of each block issue one
 *    bulk prefetch (cp.async.bulk.prefetch.L2, 4 KB) per stream for the vectors the block
 *    reads in its first round. Safe before the wait: it returns no data, and L2 is where
 *    every write of the previous grid lands. At n <= 2^20 the first round is everything, so
 *    the next call's DRAM reads overlap this call's tail (last block's combine, grid
 *    completion, flush) instead of starting after it. Expected at 2^20: ddot 7.5 -> ~5 us
 *    (16 MB is 3.7 us of transfer), dasum 5.8 -> ~4 us, sasum/sdot -0.5 us.
 *
 * Determinism: the grid depends only on n, the increments and the device; the split of a
 * unit-stride vector into a scalar head, 16-byte vectors and a scalar tail depends on the
 * address of x modulo 16, so the same values stored at another alignment may round
 * differently. For a given call (same buffers) results are bitwise identical run to run.
 *
 * Workspace: partials from the start; the counter (unsigned int) in the last 256 bytes,
 * which no other reduction rung writes.
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
     * the next grid's blocks competed with this one's streaming: run 3 asum lost 24%). */
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
