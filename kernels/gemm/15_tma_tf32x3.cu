/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 15 of the sgemm ladder, tma_tf32x3 (FP32 results, Hopper only: sm_90a): rung 14
 * (wgmma_tf32x3) with one change, how the raw A and B tiles reach shared memory. Instead of
 * 16-byte cp.async by every thread, one thread of a producer warpgroup issues two TMA bulk
 * tensor copies per stage (cp.async.bulk.tensor.2d, one tensor map per operand, built on the
 * host) into the same 4-stage ring; per stage a "full" mbarrier (expect_tx: the stage's bytes)
 * says it landed and an "empty" mbarrier (one arrival per consumer warp) says it was read.
 * The two consumer warpgroups run rung 14's B split, A fragments, wgmma k steps, range guard
 * and epilogue (wg_tf32x3.cuh); split-K as rung 14. setmaxnreg gives the producer 40
 * registers and the consumers 232.
 * Why faster: the copy engine computes the addresses and zero-fills what lies outside the
 * matrix, so the consumers spend no issue slots or registers on copies, the per-stage
 * cp.async.wait + second __syncthreads become one mbarrier wait, and the producer refills
 * each stage as soon as it is released, into the next tile while the consumers store.
 * Limits: the boxes are as wide as rung 14's padded rows (36 floats K-contiguous, 136
 * MN-contiguous) to keep its conflict-free layouts, so each row copy reads 4 / 8 unused
 * floats; the B split stays in the consumers' main loop. TMA needs 16-byte aligned A and B,
 * lda and ldb multiples of 4, m, n, k below 2^31 - 1024: other calls (and a driver without
 * cuTensorMapEncodeTiled) run rung 14 (same results class).
 * Resources (nvcc -arch=sm_90a -Xptxas -v): 384 threads, 168 registers at launch, then 40 for
 * the producer (its code uses <= 21) and 232 for the consumers (<= 193; cuobjdump -sass), no
 * spills, no stack; 200..208 KB dynamic shared memory plus 64 B of mbarriers; 1 block per SM.
 * Current figure (H100, perf/results/h100/ladder.csv): 75.8 TFLOP/s at 4096^3 NN, 1.46x
 * cuBLAS FP32 (rung 14: 67.6, 1.31x); 1.41x on 8192x128x8192 (rung 14: 1.16x).
 * Built for sm_90a (CMakeLists.txt); the sm_90 build traps; dispatch requires cc 9.0.
 */
#include <cudaTypedefs.h> /* CUtensorMap, PFN_cuTensorMapEncodeTiled: types only (libcuda is not linked) */
#include "wg_tf32x3.cuh"

#define TM_WARPS (WG_THREADS / 32) /* arrivals on an empty barrier: one per consumer warp */

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
 * its bytes complete_tx on bar. */
__device__ __forceinline__ void tm_copy2d(unsigned dst, const CUtensorMap *map, int c0, int c1,
                                          unsigned bar) {
#if WG_SM90A
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

/* Warp specialisation: warpgroup 0 produces (its thread 0 issues the copies), warpgroups 1
 * and 2 consume (rung 14's two warpgroups). setmaxnreg moves registers from the producer to
 * the consumers: 128 x 40 + 256 x 232 <= 65536 (the launch gives each of the 384 threads 168). */
#define TM_THREADS (128 + WG_THREADS)
#define TM_PRODUCER_REGS 40
#define TM_CONSUMER_REGS 232
static_assert(128 * TM_PRODUCER_REGS + WG_THREADS * TM_CONSUMER_REGS <= 65536, "register file");
__device__ __forceinline__ void tm_regs_dec() {
#if WG_SM90A
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(TM_PRODUCER_REGS));
#endif
}
__device__ __forceinline__ void tm_regs_inc() {
#if WG_SM90A
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(TM_CONSUMER_REGS));
#endif
}
/* Barrier 1 among the 256 consumer threads only (barrier 0 is __syncthreads). */
__device__ __forceinline__ void tm_consumer_sync() {
    asm volatile("bar.sync 1, %0;\n" ::"n"(WG_THREADS) : "memory");
}

/* ---------------------------------------------------------------------------------------
 * The kernel: rung 14's schedule with the raw stages filled by TMA from a producer
 * warpgroup. The producer's thread 0 walks the block's k-tiles (ring position r = k-tiles this
 * block took before: stage r % S, its (r / S)-th fill), waiting on each stage's empty barrier
 * before refilling it, so all S stages are landing or waiting to be read, across tiles too.
 * Per stage kt the consumers (ctid = tid - 128) run:
 *   B1 consumer barrier     planes of kt visible; every wgmma of kt - 1 done
 *   k step 0 issued
 *   full wait for kt + 1, split of its B into the other plane buffer, fence.proxy.async
 *   k steps 1..3; each warp releases the raw stage of kt (empty arrive) once its last A
 *   fragment of kt is split
 * Against rung 14: no cp.async.wait + second __syncthreads per stage, no copy code in the
 * consumers. The main-loop guard's per-tile OR (CHECK) is among the consumers only (named
 * barrier 1), so the producer never meets a block-wide barrier after the split of roles and
 * goes on to the next tile's copies while the consumers store.
 * ------------------------------------------------------------------------------------- */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
__global__ void __launch_bounds__(TM_THREADS, 1)
    tma_tf32x3_kernel(const __grid_constant__ CUtensorMap tmA,
                      const __grid_constant__ CUtensorMap tmB, mb_gemm_args p, int64_t kc, x3g g) {
#if WG_SM90A
    int kbase = 0; /* first k of this block's slice (TMA coordinates are whole-matrix ones) */
    if (SPLIT) {   /* split-K: this block's slice; every slice writes alpha * partial to its slab */
        const int64_t k0 = (int64_t)blockIdx.y * kc;
        kbase = (int)k0;
        p.k = p.k - k0 < kc ? p.k - k0 : kc;
        p.C = (float *)p.work + (int64_t)blockIdx.y * p.m * p.n;
        p.ldc = p.m;
        p.beta = 0.0;
    }
    constexpr int S = WG_STAGES;
    constexpr int AE = wg_cfg::a_elems(AKC), BE = wg_cfg::b_elems(BKC);
    extern __shared__ __align__(128) unsigned char tm_smem[];
    float *planes = (float *)tm_smem; /* [buffer][big, small][WG_PLANE] */
    float *sA = planes + 4 * WG_PLANE;
    float *sB = sA + S * AE;
    const unsigned full0 = tc_smem_addr(sB + S * BE), empty0 = full0 + 8 * S;
    const int tid = threadIdx.x;
    const int64_t ntm = (p.m + WG_BM - 1) / WG_BM, ntn = (p.n + WG_BN - 1) / WG_BN;
    const int64_t ntiles = ntm * ntn;
    const int64_t KT = (p.k + WG_BK - 1) / WG_BK;
    if (!CHECK && blockIdx.x >= ntiles) { /* a tail-scan block (x3guard.cuh); TMA-eligible
                                             operands are 16-byte loadable */
        x3g_scan_part(p, g, true, true, blockIdx.x - ntiles, gridDim.x - ntiles);
        return;
    }
    if (tid == 0) {
        for (int s = 0; s < S; ++s) {
            tm_bar_init(full0 + 8 * s, 1);
            tm_bar_init(empty0 + 8 * s, TM_WARPS);
        }
        tm_fence_init();
        tm_prefetch_map(&tmA);
        tm_prefetch_map(&tmB);
    }
    __syncthreads();

    if (tid < 128) { /* the producer warpgroup: its thread 0 issues every copy */
        tm_regs_dec();
        if (tid != 0) return;
        const unsigned sa_addr = tc_smem_addr(sA), sb_addr = tc_smem_addr(sB);
        unsigned r = 0;
        for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
            int64_t tm, tn;
            tc_tile_coords(tile, ntm, ntn, &tm, &tn);
            for (int64_t kt = 0; kt < KT; ++kt, ++r)
                tm_load_stage<AKC, BKC>(&tmA, &tmB, sa_addr, sb_addr, full0, empty0, r,
                                        (int)(tm * WG_BM), (int)(tn * WG_BN),
                                        kbase + (int)kt * WG_BK);
        }
        return;
    }

    tm_regs_inc();
    const int ctid = tid - 128, lane = tid & 31, warp = ctid >> 5;
    const int wm0 = warp * 16; /* this warp's 16 rows (warpgroup warp / 4: rows 64 (warp / 4) ..) */
    const unsigned planes_addr = tc_smem_addr(planes);
    const float alpha = (float)p.alpha, beta = (float)p.beta;
    float *C = (float *)p.C;
    unsigned q = 0; /* ring position of this tile's k-tile 0 */
    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        const int64_t m0 = tm * WG_BM, n0 = tn * WG_BN;

        float acc[64], t[64];
        unsigned gmx, gmn; /* range guard (x3guard.cuh) over the A and B elements split here */
        x3g_init(gmx, gmn);
        wg_tile_zero(acc, t);

        /* Prologue: wait for k-tile 0, split its B into plane buffer 0. */
        tm_wait(full0 + 8 * (q % S), (q / S) & 1u);
        wg_split_b<BKC, CHECK>(planes, planes + WG_PLANE, sB + (q % S) * BE, ctid, gmx, gmn);
        wg_fence_proxy_async();

        for (int64_t kt = 0; kt < KT; ++kt) {
            const unsigned r = q + (unsigned)kt, cs = r % S;
            tm_consumer_sync(); /* B1: planes of kt visible to all consumers */
            const float *sAc = sA + cs * AE;
            const unsigned pb = planes_addr + (unsigned)((kt & 1) * 2 * WG_PLANE * sizeof(float));
            const unsigned ps = pb + (unsigned)(WG_PLANE * sizeof(float));
            float fa[4];
            unsigned ab[4], as[4];
            /* k step 0 is issued before, and finished after, the split of the next stage,
             * so that it runs meanwhile. */
            wg_step0<AKC, CHECK>(t, fa, ab, as, sAc, wm0, lane, pb, ps, gmx, gmn);
            if (kt + 1 < KT) {
                const unsigned ns = (r + 1) % S;
                tm_wait(full0 + 8 * ns, ((r + 1) / S) & 1u); /* raw kt + 1 landed */
                float *pl = planes + ((kt + 1) & 1) * 2 * WG_PLANE;
                wg_split_b<BKC, CHECK>(pl, pl + WG_PLANE, sB + ns * BE, ctid, gmx, gmn);
                wg_fence_proxy_async();
            }
            __syncwarp(); /* converged again after the waits, for the .aligned wgmma ops */
            wg_steps123<AKC, CHECK>(acc, t, fa, ab, as, sAc, wm0, lane, pb, ps, gmx, gmn);
            /* This warp's reads of raw stage kt are done (B split in kt - 1, A fragments). */
            __syncwarp();
            if (lane == 0) tm_arrive(empty0 + 8 * cs);
            wg_wait<0>();
            wg_flush64(acc, t);
        }
        q += (unsigned)KT;
        tm_consumer_sync(); /* the next tile's prologue overwrites the planes */

        /* A tile with an out-of-range element in its panels stores nothing (the fixup
         * recomputes it; x3guard.cuh). */
        if (CHECK && x3g_tile_out_bar<1, WG_THREADS>(g, gmx, gmn, tm + tn * ntm, 128)) continue;
        wg_store_tile(p, C, alpha, beta, acc, t, m0, n0, wm0, lane);
    }
#else
    /* Not built for sm_90a: never launched (dispatch requires a compute capability 9.0 GPU,
     * where the sm_90a code is loaded). Fail loudly rather than return garbage. */
    (void)tmA;
    (void)tmB;
    (void)p;
    (void)kc;
    (void)g;
#ifdef __CUDA_ARCH__
    __trap();
#endif
#endif
}

/* ---------------------------------------------------------------------------------------
 * Launcher: TMA eligibility, tensor maps, then rung 14's plan (wg_plan) and launches.
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
 * reads as zeros (OOB fill NONE). */
static cudaError_t tm_map(PFN_cuTensorMapEncodeTiled_v12000 fn, CUtensorMap *map, const void *base,
                          int64_t inner, int64_t outer, int64_t ld, int box_in, int box_out) {
    const cuuint64_t dim[2] = {(cuuint64_t)inner, (cuuint64_t)outer};
    const cuuint64_t stride[1] = {(cuuint64_t)ld * sizeof(float)};
    const cuuint32_t box[2] = {(cuuint32_t)box_in, (cuuint32_t)box_out};
    const cuuint32_t estride[2] = {1, 1};
    const CUresult r = fn(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)base, dim, stride, box,
                          estride, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                          CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* Whether TMA can copy this call's operands: 16-byte aligned bases and column strides, strides
 * below 2^40 bytes, and every coordinate (plus a box) inside int32. */
#define TM_DIM_MAX (((int64_t)1 << 31) - 1024)
static int tm_eligible(const mb_gemm_args *p) {
    const int64_t ld_max = ((int64_t)1 << 40) / (int64_t)sizeof(float);
    return (uintptr_t)p->A % 16 == 0 && (uintptr_t)p->B % 16 == 0 && p->lda % 4 == 0 &&
           p->ldb % 4 == 0 && p->lda < ld_max && p->ldb < ld_max && p->m <= TM_DIM_MAX &&
           p->n <= TM_DIM_MAX && p->k <= TM_DIM_MAX;
}

template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
static cudaError_t tm_launch_s(const mb_gemm_args *p, const mb_gemm_args *q, const CUtensorMap *ma,
                               const CUtensorMap *mb, mb_splitk sp, x3g g, int64_t scan,
                               cudaStream_t s) {
    const size_t smem = tm_smem_bytes(AKC, BKC);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    cudaError_t e = mb_smem_limit_once((const void *)tma_tf32x3_kernel<AKC, BKC, SPLIT, CHECK>,
                                       (int)smem, &smem_set);
    if (e != cudaSuccess) return e;
    const int64_t tiles = mb_cdiv(p->m, WG_BM) * mb_cdiv(p->n, WG_BN);
    const dim3 grid(mb_grid_dim(tiles + scan, MB_GRID_X_MAX), (unsigned)sp.S);
    tma_tf32x3_kernel<AKC, BKC, SPLIT, CHECK><<<grid, TM_THREADS, smem, s>>>(*ma, *mb, *q, sp.kc, g);
    e = cudaGetLastError();
    if (e == cudaSuccess && SPLIT) e = x3g_reduce(p, q, sp.S, g, s);
    return e == cudaSuccess ? x3g_end(p, g, s) : e;
}
template <bool AKC, bool BKC>
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
    e = wg_plan(p, &g, &q, &sp, &scan, s);
    if (e != cudaSuccess) return e;
    if (sp.S > 1) return tm_launch_s<AKC, BKC, true, true>(p, &q, &ma, &mb, sp, g, 0, s);
    return scan > 0 ? tm_launch_s<AKC, BKC, false, false>(p, &q, &ma, &mb, sp, g, scan, s)
                    : tm_launch_s<AKC, BKC, false, true>(p, &q, &ma, &mb, sp, g, 0, s);
}

extern "C" cudaError_t mb_sgemm_wgmma_tf32x3(const void *a, cudaStream_t s);

extern "C" cudaError_t mb_sgemm_tma_tf32x3(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    if (!tm_eligible(p)) return mb_sgemm_wgmma_tf32x3(a, s); /* rung 14: any alignment */
    PFN_cuTensorMapEncodeTiled_v12000 fn;
    const cudaError_t e = tm_encoder(&fn);
    if (e != cudaSuccess) return e;
    if (!fn) return mb_sgemm_wgmma_tf32x3(a, s); /* a driver without TMA maps */
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) {
        if (p->transb) return tm_launch_t<true, false>(p, fn, s);
        return tm_launch_t<true, true>(p, fn, s);
    }
    if (p->transb) return tm_launch_t<false, false>(p, fn, s);
    return tm_launch_t<false, true>(p, fn, s);
}
