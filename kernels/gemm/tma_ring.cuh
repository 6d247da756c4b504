/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The TMA ring of the warp-specialised 3xTF32 rungs (15_tma_tf32x3, 16_pingpong_tf32x3):
 * everything those rungs share except their consumers' main loops. A producer warpgroup
 * (its thread 0) fills wg_tf32x3.cuh's 4-stage raw ring with two TMA bulk tensor copies per
 * stage (cp.async.bulk.tensor.2d, one tensor map per operand, built on the host); per stage a
 * "full" mbarrier (expect_tx: the stage's bytes) says it landed and an "empty" mbarrier (one
 * arrival per consumer warp) says it was read. Here: the shared-memory size, the mbarrier and
 * TMA PTX wrappers, one stage's copies, setmaxnreg, the consumers' named barrier, the block's
 * set-up, the producer loop, the kernels' common start and the split-K tile end (slabs, or
 * the sum of a cluster of the slices over distributed shared memory) (device); the driver's
 * tensor-map
 * encoder, the maps, TMA eligibility, aligned copies of operands TMA cannot copy, and the
 * launch of a rung's kernel through rung 14's plan (host). A rung's
 * kernel has the signature of tm_kernel_fn and is named to the launcher by a class template
 * K<AKC, BKC, SPLIT, CHECK> with a static fn() returning it.
 */
#ifndef MINIBLAS_GEMM_TMA_RING_CUH
#define MINIBLAS_GEMM_TMA_RING_CUH

#include <cudaTypedefs.h> /* CUtensorMap, PFN_cuTensorMapEncodeTiled: types only (libcuda is not linked) */
#include "wg_tf32x3.cuh"
#include "operand_copy.cuh"

#define TM_WARPS (WG_THREADS / 32) /* arrivals on an empty barrier: one per consumer warp */
#define TM_THREADS (128 + WG_THREADS) /* a producer warpgroup and two consumer warpgroups */
/* Registers per thread at launch (__launch_bounds__(TM_THREADS, 1): 65536 / 384 rounded down to
 * a multiple of 8). setmaxnreg only moves registers within the block's pool of
 * TM_THREADS x TM_LAUNCH_REGS: a consumer increase the producer's decrease does not cover
 * would wait forever. */
#define TM_LAUNCH_REGS 168

/* Dynamic shared memory: rung 14's (planes, raw A stages, raw B stages; every stage starts
 * 128-byte aligned as TMA needs), then the full and the empty mbarrier of each stage. */
static constexpr size_t tm_smem_bytes(bool akc, bool bkc) {
    return wg_smem_bytes(akc, bkc) + (size_t)2 * WG_STAGES * sizeof(uint64_t);
}
static_assert(wg_cfg::a_elems(true) * 4 % 128 == 0 && wg_cfg::a_elems(false) * 4 % 128 == 0 &&
                  WG_PLANE * 4 % 128 == 0, "TMA destinations 128-byte aligned");
static_assert(wg_cfg::LD_K <= 256 && wg_cfg::LD_AM <= 256 && wg_cfg::LD_BN <= 256 &&
                  (wg_cfg::LD_K * 4) % 16 == 0 && (wg_cfg::LD_AM * 4) % 16 == 0,
              "TMA box limits");

/* ---------------------------------------------------------------------------------------
 * PTX wrappers (sm_90). PTX ISA "Parallel Synchronization and Communication Instructions:
 * mbarrier" and "Data Movement: cp.async.bulk.tensor". bar: shared address of an mbarrier.
 * ------------------------------------------------------------------------------------- */
__device__ __forceinline__ void tm_bar_init(unsigned bar, unsigned count) {
#if WG_SM90A
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
#endif
}
/* Makes the initialisations visible to the async proxy (the TMA unit's complete_tx). */
__device__ __forceinline__ void tm_fence_init() {
#if WG_SM90A
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}
/* Arrival that also expects `bytes` more to land (the stage's copies) before the phase ends. */
__device__ __forceinline__ void tm_arrive_tx(unsigned bar, unsigned bytes) {
#if WG_SM90A
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(bytes)
                 : "memory");
#endif
}
__device__ __forceinline__ void tm_arrive(unsigned bar) {
#if WG_SM90A
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}
/* 1 in one lane of the calling warp, 0 in the others (elect.sync: the whole warp, converged). */
__device__ __forceinline__ unsigned tm_elect_one() {
    unsigned one = 0;
#if WG_SM90A
    asm volatile("{\n.reg .pred p;\nelect.sync _|p, 0xffffffff;\nselp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(one));
#endif
    return one;
}
/* Waits until the phase of parity `parity` has completed (acquire: the copies that completed
 * it are visible to this thread). */
__device__ __forceinline__ void tm_wait(unsigned bar, unsigned parity) {
#if WG_SM90A
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
#endif
}
/* One box of a 2-D tensor map at element coordinates (c0 inner, c1 outer) into shared dst;
 * its bytes complete_tx on bar. EL: cached evict_last in L2 (tc_l2_policy). */
template <bool EL = false>
__device__ __forceinline__ void tm_copy2d(unsigned dst, const CUtensorMap *map, int c0, int c1,
                                          unsigned bar) {
#if WG_SM90A
    if (EL)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     ".L2::cache_hint [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                     "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(bar), "l"(tc_l2_policy<true>())
                     : "memory");
    else
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                     " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
                     "l"((uint64_t)map), "r"(c0), "r"(c1), "r"(bar)
                     : "memory");
#endif
}
__device__ __forceinline__ void tm_prefetch_map(const CUtensorMap *map) {
#if WG_SM90A
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
#endif
}

/* Thread-block clusters (split-K in a cluster, tm_split_gather). PTX ISA "Special Registers:
 * %cluster_nctarank", "barrier.cluster", "mapa", "ld". The barrier's arrive has release and its
 * wait acquire semantics at cluster scope: what a thread of the cluster wrote before its
 * arrive, shared memory of its block included, is visible to every thread after the wait. */
__device__ __forceinline__ unsigned tm_cluster_ctas() {
    unsigned n = 1;
#if WG_SM90A
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
#endif
    return n;
}
__device__ __forceinline__ void tm_cluster_sync() {
#if WG_SM90A
    asm volatile("barrier.cluster.arrive.release;\n"
                 "barrier.cluster.wait.acquire;\n" ::: "memory");
#endif
}
/* The shared::cluster address of the variable at shared address `addr` in block `rank` of
 * the cluster. */
__device__ __forceinline__ unsigned tm_mapa(unsigned addr, unsigned rank) {
    unsigned r = addr;
#if WG_SM90A
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
#endif
    return r;
}
__device__ __forceinline__ float4 tm_ld_cluster4(unsigned addr) {
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#if WG_SM90A
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr)
                 : "memory");
#endif
    return v;
}
__device__ __forceinline__ unsigned tm_ld_cluster_u32(unsigned addr) {
    unsigned v = 0;
#if WG_SM90A
    asm volatile("ld.shared::cluster.u32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
#endif
    return v;
}

/* The issuing thread: k-tile starting at k (whole-matrix coordinate) of tile (m0, n0) into
 * ring position r (stage r % S, its (r / S)-th fill). From the second fill of a stage on,
 * first waits until every warp has released the fill before. AKC: A's box is BM rows of
 * LD_K k-contiguous floats at (k, m0), else BK rows of LD_AM m-contiguous floats at (m0, k);
 * B likewise. Each box lands in rung 14's padded stage layout. */
template <bool AKC, bool BKC>
__device__ __forceinline__ void tm_load_stage(const CUtensorMap *ma, const CUtensorMap *mb,
                                              unsigned sa, unsigned sb, unsigned full0,
                                              unsigned empty0, unsigned r, int m0, int n0,
                                              int k) {
    constexpr int S = WG_STAGES;
    constexpr unsigned AB = wg_cfg::a_elems(AKC) * 4, BB = wg_cfg::b_elems(BKC) * 4;
    const unsigned st = r % S;
    if (r >= S) tm_wait(empty0 + 8 * st, ((r / S) & 1u) ^ 1u);
    tm_arrive_tx(full0 + 8 * st, AB + BB);
    if (AKC)
        tm_copy2d(sa + st * AB, ma, k, m0, full0 + 8 * st);
    else
        tm_copy2d(sa + st * AB, ma, m0, k, full0 + 8 * st);
    if (BKC)
        tm_copy2d(sb + st * BB, mb, k, n0, full0 + 8 * st);
    else
        tm_copy2d(sb + st * BB, mb, n0, k, full0 + 8 * st);
}

/* setmaxnreg: the producer warpgroup gives registers back (down to N per thread), the consumer
 * warpgroups take them (up to N per thread). Each rung static_asserts 128 x its producer's N +
 * 256 x its consumers' N <= TM_THREADS x TM_LAUNCH_REGS. */
template <int N>
__device__ __forceinline__ void tm_regs_dec() {
#if WG_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
template <int N>
__device__ __forceinline__ void tm_regs_inc() {
#if WG_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
#endif
}
/* Barrier 1 among the 256 consumer threads only (barrier 0 is __syncthreads). */
__device__ __forceinline__ void tm_consumer_sync() {
    asm volatile("bar.sync 1, %0;\n" ::"n"(WG_THREADS) : "memory");
}

/* Block set-up (every thread): thread 0 initialises the full and empty mbarrier of each stage
 * and prefetches the tensor maps; then a block-wide barrier, the last one of the kernel. */
__device__ __forceinline__ void tm_setup(unsigned full0, unsigned empty0, const CUtensorMap *ma,
                                         const CUtensorMap *mb) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < WG_STAGES; ++s) {
            tm_bar_init(full0 + 8 * s, 1);
            tm_bar_init(empty0 + 8 * s, TM_WARPS);
        }
        tm_fence_init();
        tm_prefetch_map(ma);
        tm_prefetch_map(mb);
    }
    __syncthreads();
}

/* The producer (thread 0 of warpgroup 0, after its warpgroup's setmaxnreg and the return of
 * its other threads): walks the block's tiles and their k-tiles (ring position r = k-tiles
 * this block took before), waiting on each stage's empty barrier before refilling it, so all
 * S stages are landing or waiting to be read, across tiles too. kbase: the first k of this
 * block's split-K slice (TMA coordinates are whole-matrix ones). */
template <bool AKC, bool BKC>
__device__ __forceinline__ void tm_produce(const CUtensorMap *ma, const CUtensorMap *mb,
                                           const float *sA, const float *sB, unsigned full0,
                                           unsigned empty0, int64_t ntm, int64_t ntn,
                                           int64_t ntiles, int64_t KT, int kbase) {
    const unsigned sa_addr = tc_smem_addr(sA), sb_addr = tc_smem_addr(sB);
    unsigned r = 0;
    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        for (int64_t kt = 0; kt < KT; ++kt, ++r)
            tm_load_stage<AKC, BKC>(ma, mb, sa_addr, sb_addr, full0, empty0, r,
                                    (int)(tm * WG_BM), (int)(tn * WG_BN),
                                    kbase + (int)kt * WG_BK);
    }
}

/* What a TMA rung's kernel knows of its block after tm_start: the shared-memory layout (the
 * split planes [buffer][big, small][WG_PLANE], the raw A and B stages, then the full and the
 * empty mbarrier of each stage) and the tiles and k-tiles it walks. */
struct tm_block {
    float *planes, *sA, *sB;
    unsigned full0, empty0;
    int64_t ntm, ntn, ntiles, KT;
    bool cluster; /* split-K in a cluster of the slices (tm_split_gather) */
};

/* The start of every TMA rung's kernel. Split-K: p becomes this block's slice of k (every
 * slice writes alpha * its partial to its slab of the workspace, or, launched in clusters of
 * the slices, keeps it for tm_split_gather: b.cluster, C stays p's). A tail-scan block
 * (x3guard.cuh; TMA-eligible operands are 16-byte loadable) scans its part of A and B. Then
 * the block set-up and the roles: the producer warpgroup keeps PRODUCER_REGS registers and its
 * thread 0 issues every copy. Returns true in the consumer threads, which then hold
 * CONSUMER_REGS registers; false in every thread that has finished.
 * Programmatic dependent launch (tm_launch_s, with mb_gemm_args.pdl and the guard on): the
 * kernel may start while x3g_begin's zeroing kernel runs, which lets it be scheduled only
 * once all earlier work in the stream has finished, so A, B and C are ready; only the guard's
 * words are that kernel's, and they are written after mb_grid_wait (x3g_mark, x3g_scan_part).
 * The producer thread waits too once its copies are issued, so every block ends after the
 * zeroing (the reduce and fixup, which wait for this grid, then see zeroed words wherever no
 * block wrote).
 * Every block lets the next kernel of the chain (reduce or fixup) be scheduled at once: it
 * waits for this grid's end before it reads anything (mb_grid_wait). */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK, int PRODUCER_REGS, int CONSUMER_REGS>
__device__ __forceinline__ bool tm_start(const CUtensorMap *ma, const CUtensorMap *mb,
                                         mb_gemm_args &p, int64_t kc, const x3g &g,
                                         tm_block &b) {
    mb_grid_launch_next();
    int kbase = 0; /* first k of this block's slice (TMA coordinates are whole-matrix ones) */
    b.cluster = SPLIT && tm_cluster_ctas() > 1;
    if (SPLIT) {
        const int64_t k0 = (int64_t)blockIdx.y * kc;
        kbase = (int)k0;
        p.k = p.k - k0 < kc ? p.k - k0 : kc;
        if (!b.cluster) { /* in a cluster C stays the output (tm_split_gather) */
            p.C = (float *)p.work + (int64_t)blockIdx.y * p.m * p.n;
            p.ldc = p.m;
            p.beta = 0.0;
        }
    }
    extern __shared__ __align__(128) unsigned char tm_smem[];
    b.planes = (float *)tm_smem;
    b.sA = b.planes + 4 * WG_PLANE;
    b.sB = b.sA + WG_STAGES * wg_cfg::a_elems(AKC);
    b.full0 = tc_smem_addr(b.sB + WG_STAGES * wg_cfg::b_elems(BKC));
    b.empty0 = b.full0 + 8 * WG_STAGES;
    b.ntm = (p.m + WG_BM - 1) / WG_BM, b.ntn = (p.n + WG_BN - 1) / WG_BN;
    b.ntiles = b.ntm * b.ntn;
    b.KT = (p.k + WG_BK - 1) / WG_BK;
    if (!CHECK && blockIdx.x >= b.ntiles) {
        x3g_scan_part(p, g, true, true, blockIdx.x - b.ntiles, gridDim.x - b.ntiles);
        return false;
    }
    tm_setup(b.full0, b.empty0, ma, mb);
    if (threadIdx.x < 128) {
        tm_regs_dec<PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            tm_produce<AKC, BKC>(ma, mb, b.sA, b.sB, b.full0, b.empty0, b.ntm, b.ntn, b.ntiles,
                                 b.KT, kbase);
            mb_grid_wait(); /* this block ends after the zeroing kernel (see above) */
        }
        if (SPLIT && b.cluster) { /* every thread of the cluster takes part in its barriers */
            tm_cluster_sync();
            tm_cluster_sync();
        }
        return false;
    }
    tm_regs_inc<CONSUMER_REGS>();
    return true;
}

/* The tile's end of a split-K block (SPLIT kernels; consumers only): what it stores, into
 * which C. out: the range guard's verdict on this block's panels (its bit and the flag
 * already set, x3g_tile_out_bar). Returns whether this block stores the tile
 * (tm_split_store); a block in a cluster then calls tm_cluster_sync once more, storing or
 * not.
 * Slab path (b.cluster false): every slice stores alpha * its partial into its slab unless out.
 * In a cluster (tm_launch_s: grid (tiles, S), clusters of (1, S, 1), so block (t, s) is rank
 * s of tile t's cluster and every block has one tile): slice s > 0 leaves alpha * its partial
 * (rounded as the slab store rounds it) in its own planes, free after the main loop (16
 * float4 per consumer thread in register order, so consumer thread c of every block holds
 * the same elements: 64 KB), and its verdict in the first word of its raw A ring (every copy
 * into it has landed: one tile per block); a cluster barrier; slice 0 reads the others'
 * verdicts and, unless a slice's panels are out of range (the tile is then left to
 * x3g_fixup_kernel, as the reduce leaves it), their partials over distributed shared memory:
 *   acc = alpha * acc_0; acc += part_1; ...; acc += part_{S-1}
 * x3g_reduce_kernel's additions in its order (__fmul_rn, __fadd_rn: nothing contracted).
 * The second barrier (the caller's) keeps every block's shared memory until slice 0 has read
 * it. The producer warpgroup takes part in both barriers (tm_start). */
__device__ __forceinline__ bool tm_split_gather(const tm_block &b, bool out, float alpha,
                                                float (&acc)[64], float (&t)[64]) {
    static_assert(4 * WG_PLANE == 64 * WG_THREADS, "the planes hold one tile of partials");
    if (!b.cluster) return !out;
    const int ctid = (int)threadIdx.x - 128;
    const unsigned S = gridDim.y, rank = blockIdx.y;
    if (rank > 0) {
        if (!out) {
            float4 *part = (float4 *)b.planes + ctid;
#pragma unroll
            for (int j = 0; j < 16; ++j)
                part[j * WG_THREADS] =
                    make_float4(__fmul_rn(alpha, acc[4 * j]), __fmul_rn(alpha, acc[4 * j + 1]),
                                __fmul_rn(alpha, acc[4 * j + 2]), __fmul_rn(alpha, acc[4 * j + 3]));
        }
        if (ctid == 0) *(volatile unsigned *)b.sA = out ? 1u : 0u;
        tm_cluster_sync(); /* partials and verdict visible to slice 0 */
        return false;
    }
    tm_cluster_sync();
    bool skip = out;
    const unsigned flag_addr = tc_smem_addr(b.sA);
    for (unsigned s = 1; s < S; ++s) skip |= tm_ld_cluster_u32(tm_mapa(flag_addr, s)) != 0u;
    if (skip) return false;
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = __fmul_rn(alpha, acc[i]);
    const unsigned part_addr = tc_smem_addr(b.planes) + (unsigned)ctid * 16u;
    for (unsigned s = 1; s < S; ++s) {
        const unsigned base = tm_mapa(part_addr, s);
#pragma unroll
        for (int j = 0; j < 16; ++j) { /* all 16 loads in flight, then the adds */
            const float4 v = tm_ld_cluster4(base + (unsigned)(j * WG_THREADS * 16));
            t[4 * j] = v.x;
            t[4 * j + 1] = v.y;
            t[4 * j + 2] = v.z;
            t[4 * j + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < 64; ++i) acc[i] = __fadd_rn(acc[i], t[i]);
    }
    return true;
}
/* The store of a split-K block that tm_split_gather let store (the SPLIT kernels' only store,
 * in place of wg_store_tile, whose layout it shares: one store in a kernel keeps the
 * consumers within their registers). Slab path: p is the slab (beta 0, tm_start), the value
 * alpha * acc, as wg_store_tile rounds it. Cluster (summed): acc holds the sum v and the value
 * is v where beta == 0 (C not read), else beta * C + v in one fused multiply-add, as
 * x3g_reduce_kernel computes it; every load of C before the stores, as wg_store_tile. */
__device__ __forceinline__ void tm_split_store(const mb_gemm_args &p, bool summed, float alpha,
                                               float beta, const float (&acc)[64],
                                               float (&t)[64], int64_t m0, int64_t n0, int wm0,
                                               int lane) {
    const int gq = lane >> 2, tq = lane & 3;
    float *C = (float *)p.C;
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        const int64_t r = m0 + wm0 + gq + 8 * ((i >> 1) & 1);
        const int64_t c = n0 + 8 * (i >> 2) + 2 * tq + (i & 1);
        t[i] = beta != 0.0f && r < p.m && c < p.n ? C[r + c * p.ldc] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        const int64_t r = m0 + wm0 + gq + 8 * ((i >> 1) & 1);
        const int64_t c = n0 + 8 * (i >> 2) + 2 * tq + (i & 1);
        if (r < p.m && c < p.n)
            C[r + c * p.ldc] = !summed          ? __fmul_rn(alpha, acc[i])
                               : beta == 0.0f ? acc[i]
                                              : __fmaf_rn(beta, t[i], acc[i]);
    }
}

/* ---------------------------------------------------------------------------------------
 * Host: TMA eligibility, tensor maps, then rung 14's plan (wg_plan) and the launches.
 * ------------------------------------------------------------------------------------- */
/* cuTensorMapEncodeTiled from the driver through the runtime (the library links only the
 * runtime), looked up once; *fn = NULL when the driver does not have it. */
static cudaError_t tm_encoder(PFN_cuTensorMapEncodeTiled_v12000 *fn) {
    static void *cached;
    void *f = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    *fn = NULL;
    if (!f) {
        cudaDriverEntryPointQueryResult qr = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        const cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000,
                                                               cudaEnableDefault, &qr);
#else
        const cudaError_t e =
            cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &f, cudaEnableDefault, &qr);
#endif
        if (e != cudaSuccess) return e;
        if (qr != cudaDriverEntryPointSuccess || !f) return cudaSuccess;
        __atomic_store_n(&cached, f, __ATOMIC_RELEASE);
    }
    *fn = (PFN_cuTensorMapEncodeTiled_v12000)f;
    return cudaSuccess;
}

/* A 2-D tensor map of a column-major operand: `inner` contiguous elements per column (the
 * column count `outer`), ld elements apart; boxes of box_in x box_out; outside the matrix
 * reads as zeros (OOB fill NONE). Elements are floats unless dt says FLOAT64 (dgemm). */
static cudaError_t tm_map(PFN_cuTensorMapEncodeTiled_v12000 fn, CUtensorMap *map, const void *base,
                          int64_t inner, int64_t outer, int64_t ld, int box_in, int box_out,
                          CUtensorMapDataType dt = CU_TENSOR_MAP_DATA_TYPE_FLOAT32) {
    const cuuint64_t dim[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
    const size_t elem = dt == CU_TENSOR_MAP_DATA_TYPE_FLOAT64 ? sizeof(double) : sizeof(float);
    const cuuint64_t stride[1] = {(cuuint64_t)ld * elem};
    const cuuint32_t box[2] = {(cuuint32_t)box_in, (cuuint32_t)box_out};
    const cuuint32_t estride[2] = {1, 1};
    const CUresult r = fn(map, dt, 2, (void *)base, dim, stride, box,
                          estride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* Whether TMA can copy an operand of `elem`-byte elements (16-byte aligned base and column
 * stride, a stride below 2^40 bytes), and whether the call's coordinates (plus a box) stay
 * inside int32. */
#define TM_DIM_MAX (((int64_t)1 << 31) - 1024)
static int tm_operand_ok(const void *x, int64_t ld, int64_t elem = (int64_t)sizeof(float)) {
    return (uintptr_t)x % 16 == 0 && ld < ((int64_t)1 << 40) / elem && ld * elem % 16 == 0;
}
static int tm_dims_ok(const mb_gemm_args *p) {
    return p->m <= TM_DIM_MAX && p->n <= TM_DIM_MAX && p->k <= TM_DIM_MAX;
}

/* The kernels' signature (the tensor maps are __grid_constant__ parameters). */
typedef void (*tm_kernel_fn)(CUtensorMap, CUtensorMap, mb_gemm_args, int64_t, x3g);

/* Host: whether split-K of S slices over `tiles` tiles (one block each) runs in clusters of
 * the slices (tm_split_gather) rather than through slabs and x3g_reduce_kernel: the call
 * allows it (mb_gemm_args.splitk_cluster, MINIBLAS_SPLITK_CLUSTER), S <= 8 (the portable
 * cluster size), and the device holds every cluster at once (cudaOccupancyMaxActiveClusters
 * >= tiles: one block of ~200 KB per SM, and a cluster's blocks on SMs of one GPC; where not,
 * clusters would wait for a second wave the slab path does not have). The query is asked
 * once per kernel, S and device (max: the kernel's cache, value + 1, 0 unknown). cfg: the
 * launch's configuration without a cluster attribute. */
#define TM_CLUSTER_MAX 8
static int tm_cluster_fits(const void *kernel, const mb_gemm_args *p, const cudaLaunchConfig_t *cfg,
                           int S, int64_t tiles, int (*max)[TM_CLUSTER_MAX + 1]) {
    if (!p->splitk_cluster || S < 2 || S > TM_CLUSTER_MAX) return 0;
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    int n = dev >= 0 && dev < 64 ? __atomic_load_n(&max[dev][S], __ATOMIC_RELAXED) - 1 : -1;
    if (n < 0) {
        cudaLaunchAttribute a[1];
        a[0] = cudaLaunchAttribute{};
        a[0].id = cudaLaunchAttributeClusterDimension;
        a[0].val.clusterDim.x = 1;
        a[0].val.clusterDim.y = (unsigned)S;
        a[0].val.clusterDim.z = 1;
        cudaLaunchConfig_t c = *cfg;
        c.attrs = a;
        c.numAttrs = 1;
        n = 0;
        if (cudaOccupancyMaxActiveClusters(&n, kernel, &c) != cudaSuccess) {
            cudaGetLastError(); /* not sticky: no clusters, the slab path */
            n = 0;
        }
        if (dev >= 0 && dev < 64) __atomic_store_n(&max[dev][S], n + 1, __ATOMIC_RELAXED);
    }
    return (int64_t)n >= tiles;
}

template <template <bool, bool, bool, bool> class K, bool AKC, bool BKC, bool SPLIT, bool CHECK>
static cudaError_t tm_launch_s(const mb_gemm_args *p, const mb_gemm_args *q, const CUtensorMap *ma,
                               const CUtensorMap *mb, mb_splitk sp, x3g g, int64_t scan,
                               cudaStream_t s) {
    const tm_kernel_fn kernel = K<AKC, BKC, SPLIT, CHECK>::fn();
    const size_t smem = tm_smem_bytes(AKC, BKC);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    cudaError_t e = mb_smem_limit_once((const void *)kernel, (int)smem, &smem_set);
    if (e != cudaSuccess) return e;
    const int64_t tiles = mb_cdiv(p->m, WG_BM) * mb_cdiv(p->n, WG_BN);
    /* Persistent where the tiles outnumber the SMs (one block fits on an SM: TM_LAUNCH_REGS):
     * a block per SM walks tiles blockIdx.x, + gridDim.x, ... (the kernels' loops), and its
     * producer fills the ring with the next tile's k-tiles while the consumers store this
     * one, where a block per tile would end, and a new one start, set up and wait for its
     * first copies. Each tile is computed exactly as before (same code, same k order): the
     * results do not change. Not with a tail scan (its blocks are numbered after the tiles,
     * one tile per block) nor split-K (fewer tiles than SMs already). */
    int sms = 0;
    e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    const int64_t blocks = scan > 0 || tiles <= (int64_t)sms ? tiles + scan : (int64_t)sms;
    const dim3 grid(mb_grid_dim(blocks, MB_GRID_X_MAX), (unsigned)sp.S);
    /* A programmatic dependent launch after x3g_begin's zeroing kernel (wg_plan with p->pdl;
     * tm_start says what waits); a plain one without the guard (no zeroing kernel: the kernel
     * before this one is not ours). */
    cudaLaunchAttribute attr[2];
    cudaLaunchConfig_t cfg = mb_launch_cfg(attr, grid, dim3(TM_THREADS), smem, s,
                                           p->pdl && g.flag != NULL);
    /* Split-K under the guard (CHECK) summed in clusters of the slices where they fit
     * (tm_cluster_fits, tm_split_gather): no slabs, no reduce kernel. */
    static int cluster_max[64][TM_CLUSTER_MAX + 1];
    const int cluster = SPLIT && CHECK && g.flag != NULL && blocks == tiles &&
                        tm_cluster_fits((const void *)kernel, p, &cfg, sp.S, tiles, cluster_max);
    if (cluster) {
        attr[cfg.numAttrs] = cudaLaunchAttribute{};
        attr[cfg.numAttrs].id = cudaLaunchAttributeClusterDimension;
        attr[cfg.numAttrs].val.clusterDim.x = 1;
        attr[cfg.numAttrs].val.clusterDim.y = (unsigned)sp.S;
        attr[cfg.numAttrs].val.clusterDim.z = 1;
        cfg.numAttrs += 1;
    }
    e = cudaLaunchKernelEx(&cfg, kernel, *ma, *mb, *q, sp.kc, g);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e == cudaSuccess && SPLIT && !cluster) e = x3g_reduce(p, q, sp.S, g, s);
    return e == cudaSuccess ? x3g_end(p, g, s) : e;
}
/* One call's work in stream order: the guard's bytes zeroed (x3g_begin: cudaMemsetAsync, or
 * with mb_gemm_args.pdl x3g_zero_kernel, one block), the gemm kernel (tiles + tail-scan blocks,
 * or one block per SM when persistent; x S slices), with S > 1 x3g_reduce_kernel (m / 256 x n
 * blocks) unless the slices ran in clusters (tm_cluster_fits), then x3g_fixup_kernel
 * (min(tiles, 2 x SMs) blocks, which return at once unless a tile was flagged); with pdl
 * every kernel after the zeroing is a programmatic dependent launch. On 132 SMs: 1024^3
 * zero, gemm 64 x 2 (64 clusters of 2), fixup 64 (slab path: reduce 4 x 1024 before the
 * fixup); 4096 x 4096 x 256 zero, gemm 132 (1024 tiles), fixup 264. Operands TMA cannot copy get copy kernels first
 * (tm_sgemm). */
template <template <bool, bool, bool, bool> class K, bool AKC, bool BKC>
static cudaError_t tm_launch_t(const mb_gemm_args *p, PFN_cuTensorMapEncodeTiled_v12000 fn,
                               cudaStream_t s) {
    /* A stored (AKC ? k x m : m x k), B stored (BKC ? n x k : k x n): the box is one stage
     * in its padded layout (tc_config.cuh), rows as wide as the pads. */
    CUtensorMap ma, mb;
    cudaError_t e = AKC ? tm_map(fn, &ma, p->A, p->k, p->m, p->lda, wg_cfg::LD_K, WG_BM)
                        : tm_map(fn, &ma, p->A, p->m, p->k, p->lda, wg_cfg::LD_AM, WG_BK);
    if (e != cudaSuccess) return e;
    e = BKC ? tm_map(fn, &mb, p->B, p->k, p->n, p->ldb, wg_cfg::LD_K, WG_BN)
            : tm_map(fn, &mb, p->B, p->n, p->k, p->ldb, wg_cfg::LD_BN, WG_BK);
    if (e != cudaSuccess) return e;
    x3g g;
    mb_gemm_args q;
    mb_splitk sp;
    int64_t scan;
    e = wg_plan(p, &g, &q, &sp, &scan, p->pdl, s);
    if (e != cudaSuccess) return e;
    if (sp.S > 1) return tm_launch_s<K, AKC, BKC, true, true>(p, &q, &ma, &mb, sp, g, 0, s);
    return scan > 0 ? tm_launch_s<K, AKC, BKC, false, false>(p, &q, &ma, &mb, sp, g, scan, s)
                    : tm_launch_s<K, AKC, BKC, false, true>(p, &q, &ma, &mb, sp, g, 0, s);
}

extern "C" cudaError_t mb_sgemm_wgmma_tf32x3(const void *a, cudaStream_t s);

/* The tensor maps and the launches, for operands TMA can copy. */
template <template <bool, bool, bool, bool> class K>
static cudaError_t tm_run(const mb_gemm_args *p, PFN_cuTensorMapEncodeTiled_v12000 fn,
                          cudaStream_t s) {
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) {
        if (p->transb) return tm_launch_t<K, true, false>(p, fn, s);
        return tm_launch_t<K, true, true>(p, fn, s);
    }
    if (p->transb) return tm_launch_t<K, false, false>(p, fn, s);
    return tm_launch_t<K, false, true>(p, fn, s);
}

/* Operands TMA cannot copy (a misaligned base, ld not a multiple of 4: odd sizes, sub-matrices)
 * are copied first where that pays (operand_copy.cuh). A copy reads and writes each element
 * once (8 bytes: ~3 ps an element at an H100's ~2.5 TB/s); rung 14 on such operands runs at
 * about half the rate of these kernels on aligned ones (H100, 4097 x 4095 x 4099: 42 against
 * 71 TFLOP/s, skinny shapes 20 against 70), ~25 fs saved per multiply-add: so from 100
 * multiply-adds per element copied. */
#define TM_COPY_MIN_PER_ELEM 100.0

extern "C" cudaError_t mb_sgemm_wgmma_tf32x3(const void *a, cudaStream_t s);

/* A TMA rung's launcher: its kernels K where TMA can copy the operands or aligned copies of
 * them pay, else rung 14 (any alignment; also for a driver without cuTensorMapEncodeTiled). */
template <template <bool, bool, bool, bool> class K>
static cudaError_t tm_sgemm(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    if (!tm_dims_ok(p)) return mb_sgemm_wgmma_tf32x3(a, s);
    PFN_cuTensorMapEncodeTiled_v12000 fn;
    cudaError_t e = tm_encoder(&fn);
    if (e != cudaSuccess) return e;
    if (!fn) return mb_sgemm_wgmma_tf32x3(a, s); /* a driver without TMA maps */
    const int copy_a = !tm_operand_ok(p->A, p->lda), copy_b = !tm_operand_ok(p->B, p->ldb);
    if (!copy_a && !copy_b) return tm_run<K>(p, fn, s);
    mb_gemm_args q;
    void *buf;
    const int made = oc_begin(p, sizeof(float), copy_a, copy_b, p->k, TM_COPY_MIN_PER_ELEM, &q,
                              &buf, &e, s);
    if (made < 0) return e;
    if (made == 0) return mb_sgemm_wgmma_tf32x3(a, s); /* rung 14: any alignment */
    return oc_end(buf, tm_run<K>(&q, fn, s), s);
}

#endif
