/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 14 of the dgemm ladder, tma_dmma (dgemm only, Hopper only: sm_90a): rung 12's big tile
 * (128x64x16, 4 warps of 64x32, 2 blocks per SM, its straight-line order of fragment loads
 * and mma.sync m16n8k8 .f64) with one change, how the stages reach shared memory.
 * Instead of 12 16-byte cp.async per thread per k-tile, two TMA bulk tensor copies
 * (cp.async.bulk.tensor.2d, a tensor map per operand, built on the host) fill a ring of 4
 * stages (3 when A is transposed: its K-contiguous stage is larger), issued from inside the
 * main loop by one lane of warp 0 (no warp is specialised); per stage a "full" mbarrier
 * (expect_tx: the stage's bytes) says it landed, an "empty" one (an arrival per thread after
 * its last fragment load of the stage and a proxy fence) that it was read. The boxes are
 * cached evict_last in L2 and C is stored evict_first, so C's lines leave L2 first.
 * Why faster: one mbarrier wait replaces cp.async.wait + __syncthreads per k-tile, and the
 * copies' address arithmetic, LDGSTS and 64-bit pointers leave the loop (warps drift instead
 * of meeting at a barrier); TMA zero-fills outside the matrix, so edge tiles need no other path.
 * Limits: the boxes are as wide as rung 12's padded rows (B K-contiguous: 25% more bytes).
 * TMA needs 16-byte aligned A and B, lda and ldb even, k a multiple of 16: other operands are
 * copied as rung 12 copies them, else the call runs rung 12, as does every shape rung 12 runs
 * on a smaller tile or with fewer than 3 big tiles per SM. C is bitwise rung 12's.
 * Resources (nvcc 13.0 -arch=sm_90a -Xptxas -v): 128 threads, 255 registers, no spills;
 * shared memory 4 x 26.5 KB (NN), 4 x 25 KB (NT), 3 x 30 KB (TN), 3 x 28.5 KB (TT) plus 8 B
 * per mbarrier; 2 blocks per SM. Measured (H200, perf/results/h200/dgemm-route/; H100,
 * perf/results/h100/dgemm-odd/): 4096x4096x256 0.96x cuBLAS DGEMM NN, 0.94x TT; 4096x4096x128
 * 0.93-1.11x by transpose, 4.5-11% ahead of rung 12; up to 1.16x rung 12's speed where
 * rung 12 cannot shift its edge tiles (2047^3 NN 1.04x cuBLAS DGEMM, H100): auto takes it
 * there and at shallow k (to 384 NN, 256 NT and TT, 128 TN); 0.93-0.98x cuBLAS DGEMM from
 * 2048^3 to 8192^3, below rung 12. Built for sm_90a only; dispatch requires cc 9.0.
 */
#include "tma_ring.cuh"

extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s);

/* Rung 12's big tile (12_dmma.cu: dmma_big_cfg); STAGES here only names rung 12's ring. */
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_XMMA, true> td_cfg;
#define TD_THREADS 128
/* Stages: 4, 3 when A is K-contiguous (4 of its 30 KB stages would not fit 2 blocks in an
 * SM's 228 KB). In iteration kt warp 0 issues k-tile kt + S - 1 into the stage k-tile
 * kt - 1 was read from. With 4 stages it does so in the second k step, next to the wait for
 * k-tile kt + 1 (one divergent region per k-tile): the copy has two k-tiles of time to land,
 * and the stage is released unless a warp lags a whole k-tile behind. With 3 stages, in the
 * first k step, where rung 12 issues its copies: one and a half k-tiles to land, as there,
 * and a warp may lag half a k-tile (rung 12's barrier: none). */
static constexpr int td_stages(bool akc) { return akc ? 3 : 4; }
template <bool AKC>
struct td_ring {
    static constexpr int S = td_stages(AKC), D = S - 1; /* stages; k-tiles issued ahead */
    static constexpr bool REFILL0 = S < 4;              /* refill in the first k step */
};
static constexpr size_t td_smem_bytes(bool akc, bool bkc) {
    return (size_t)td_stages(akc) * (td_cfg::a_elems(akc) + td_cfg::b_elems(bkc)) *
               sizeof(double) +
           (size_t)2 * td_stages(akc) * sizeof(uint64_t);
}
static_assert(td_cfg::a_elems(true) * 8 % 128 == 0 && td_cfg::a_elems(false) * 8 % 128 == 0 &&
                  td_cfg::b_elems(true) * 8 % 128 == 0 && td_cfg::b_elems(false) * 8 % 128 == 0,
              "TMA destinations 128-byte aligned");
static_assert(2 * (td_smem_bytes(true, true) + 1024) <= 228 * 1024 &&
                  2 * (td_smem_bytes(false, true) + 1024) <= 228 * 1024,
              "two blocks per SM");

/* ---------------------------------------------------------------------------------------
 * The kernel. One block per 128x64 tile (tiles beyond the grid looped over); blocks from
 * tail.t0 on compute slice s of a tail tile (mb_tail, splitk.cuh, as rung 12: slice 0 writes
 * C, slices s > 0 a compact slab). Ring: k-tile kt of a tile sits in stage kt % S; each thread
 * keeps the parity of every stage's next full phase (fph) and warp 0 that of its next empty
 * phase (eph, starting at 1: a fresh barrier's preceding phase counts as complete). Per
 * k-tile in stage cs, rung 12's straight-line order (tc_mainloop_f64_xmma) with:
 *   step 0: step 1's fragments from stage cs (its last reads); 3 stages: warp 0 waits
 *           until stage (cs + S - 1) % S is released and one of its lanes issues k-tile
 *           kt + S - 1 into it (rung 12: every thread's copies); the 16 mma;
 *   step 1: a proxy fence and every thread's arrival on stage cs's empty barrier; 4 stages:
 *           warp 0's refill, as above; the wait on the full barrier of stage cs + 1 (rung
 *           12: the cp.async wait and __syncthreads) and its step 0 fragments; the 16 mma.
 * Whole rounds of S k-tiles run with no test between them (every stage offset a constant),
 * the last KT % S after them; past the last k-tile the wait is on the phase before, which is
 * complete (nothing lands there any more), and the fragments read are not used. As in rung
 * 12, ptxas then tracks the DMMA results on one scoreboard with counted waits (the
 * interleaved order spread them over six, shared with the fragment loads; perf/sass_loop.py).
 * ------------------------------------------------------------------------------------- */
template <bool AKC, bool BKC>
__global__ void __launch_bounds__(TD_THREADS, 2)
    tma_dmma_kernel(const __grid_constant__ CUtensorMap tmA,
                    const __grid_constant__ CUtensorMap tmB, mb_gemm_args p, mb_tail tail) {
#if WG_SM90A
    typedef td_cfg Cfg;
    constexpr int S = td_ring<AKC>::S, D = td_ring<AKC>::D, MI = Cfg::MI, NI = Cfg::NI;
    constexpr bool REFILL0 = td_ring<AKC>::REFILL0;
    constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    constexpr unsigned AB = AE * sizeof(double), BB = BE * sizeof(double);
    const int64_t ntm = (p.m + BM - 1) / BM, ntn = (p.n + BN - 1) / BN, ntiles = ntm * ntn;
    int64_t tile0 = blockIdx.x;
    int k0 = 0; /* first k of this block's slice (k < 2^31 - 1024: tm_dims_ok) */
    double *C = (double *)p.C;
    bool to_slab = false;
    if ((int64_t)blockIdx.x >= tail.t0) {
        const int64_t j = blockIdx.x - tail.t0, rem = ntiles - tail.t0;
        const int s = (int)(j / rem);
        tile0 = tail.t0 + j % rem;
        k0 = (int)(s * tail.kc);
        p.k = p.k - k0 < tail.kc ? p.k - k0 : tail.kc;
        if (s > 0) {
            C = (double *)p.work + ((int64_t)(s - 1) * rem + j % rem) * (BM * BN);
            to_slab = true;
            p.beta = 0.0;
        }
    }
    const double alpha = p.alpha, beta = p.beta;
    extern __shared__ __align__(128) unsigned char td_smem[];
    const double *sA = (const double *)td_smem, *sB = sA + S * AE;
    const unsigned sa = tc_smem_addr(sA), sb = tc_smem_addr(sB);
    const unsigned full0 = tc_smem_addr(sB + S * BE), empty0 = full0 + 8 * S;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int KT = (int)((p.k + BK - 1) / BK);
    if (tid == 0) {
        for (int s = 0; s < S; ++s) {
            tm_bar_init(full0 + 8 * s, 1);
            tm_bar_init(empty0 + 8 * s, TD_THREADS);
        }
        tm_fence_init();
        tm_prefetch_map(&tmA);
        tm_prefetch_map(&tmB);
    }
    __syncthreads(); /* the only block-wide barrier */
    unsigned fph = 0, eph = (1u << S) - 1u;

    for (int64_t tile = tile0; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        const int64_t m0 = tm * BM, n0 = tn * BN;
        double acc[MI][NI][4];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[mi][ni][v] = 0.0;

        /* Warp 0: k-tile kt of this tile into stage st, once its previous fill is read; one
         * lane (elect.sync) issues the copies. In a one-thread branch (tid == 0) ptxas wrapped
         * the TMA issue in a loop whose waits included all of warp 0's pending DMMA results;
         * in a warp-uniform branch it does not (perf/results/h200/dgemm-tma-warp0/). */
        auto produce = [&](int st, int kt) {
            tm_wait(empty0 + 8 * st, (eph >> st) & 1u);
            eph ^= 1u << st;
            __syncwarp(); /* converged for elect.sync */
            if (!tm_elect_one()) return;
            tm_arrive_tx(full0 + 8 * st, AB + BB);
            const int k = k0 + kt * BK;
            if (AKC)
                tm_copy2d<true>(sa + st * AB, &tmA, k, (int)m0, full0 + 8 * st);
            else
                tm_copy2d<true>(sa + st * AB, &tmA, (int)m0, k, full0 + 8 * st);
            if (BKC)
                tm_copy2d<true>(sb + st * BB, &tmB, k, (int)n0, full0 + 8 * st);
            else
                tm_copy2d<true>(sb + st * BB, &tmB, (int)n0, k, full0 + 8 * st);
        };
        if (warp == 0) {
#pragma unroll
            for (int j = 0; j < D; ++j)
                if (j < KT) produce(j, j);
        }
        __syncwarp();

        double a0[MI][4], a1[MI][4], b0[NI][2], b1[NI][2];
        /* The 16 mma of one k step on fragment set (a, b). */
        auto mma = [&](const double (&a)[MI][4], const double (&b)[NI][2]) {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < NI; ++ni) tc_mma_f64<2>(acc[mi][ni], a[mi], b[ni]);
        };
        /* Every thread: until stage 0 holds k-tile 0 (then converged for mma.sync). */
        tm_wait(full0, fph & 1u);
        fph ^= 1u;
        __syncwarp();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi], sA, wm0, mi, 0, lane);
        tc_gather_b_f64<Cfg, BKC, 2>(b0, sB, wn0, 0, lane);
        /* One k-tile in stage cs; unrolled by S below so that every stage offset is a
         * constant. */
        auto ktile = [&](int kt, int cs) {
            const int ns = (cs + 1) % S, fs = (cs + D) % S;
            const double *cA = sA + cs * AE, *cB = sB + cs * BE;
            const double *nA = sA + ns * AE, *nB = sB + ns * BE;
            /* step 0: step 1's fragments (the last reads of stage cs), then the mma */
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                tc_gather_a1_f64<Cfg, AKC, 2>(a1[mi], cA, wm0, mi, 8, lane);
            tc_gather_b_f64<Cfg, BKC, 2>(b1, cB, wn0, 8, lane);
            if (REFILL0) {
                if (warp == 0 && kt + D < KT) produce(fs, kt + D);
                __syncwarp();
            }
            mma(a0, b0);
            /* step 1: release stage cs, refill, wait for k-tile kt + 1 (past the last one a
             * wait on the phase before, complete at once), its step 0 fragments, the mma.
             * The fence orders this thread's reads of stage cs before the TMA that refills
             * it (async proxy): without it the arrival went out while a load just issued had
             * not yet read the stage, and now and then a refill landed first (one warp's
             * last row tile wrong, test_dgemm_tma_gpu on an H100). */
            wg_fence_proxy_async();
            tm_arrive(empty0 + 8 * cs);
            if (!REFILL0) {
                if (warp == 0 && kt + D < KT) produce(fs, kt + D);
                __syncwarp();
            }
            const unsigned more = kt + 1 < KT;
            tm_wait(full0 + 8 * ns, ((fph >> ns) & 1u) ^ (more ^ 1u));
            fph ^= more << ns;
            __syncwarp();
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
                tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi], nA, wm0, mi, 0, lane);
            tc_gather_b_f64<Cfg, BKC, 2>(b0, nB, wn0, 0, lane);
            mma(a1, b1);
        };
        tc_in_rounds<S>(KT, ktile);

        /* Epilogue: rung 12's (tc_store_c), every tile at its own place (no edge shift: TMA
         * zero-filled what lies outside the matrix). A tail slab holds the tile, ld BM. */
        const int64_t ldo = to_slab ? BM : p.ldc, off = to_slab ? m0 + n0 * BM : 0;
        tc_store_c<Cfg, true>(acc, C - off, ldo, m0, n0, m0, n0, p.m, p.n, alpha, beta, wm0,
                              wn0, lane);
    }
#else
    /* Not built for sm_90a: never launched (dispatch requires a compute capability 9.0 GPU,
     * where the sm_90a code is loaded). Fail loudly rather than return garbage. */
    (void)tmA;
    (void)tmB;
    (void)p;
    (void)tail;
#ifdef __CUDA_ARCH__
    __trap();
#endif
#endif
}

/* ---------------------------------------------------------------------------------------
 * Host: tensor maps, rung 12's tail plan for its big tile, the launch and the tail sum.
 * ------------------------------------------------------------------------------------- */
/* cudaFuncSetAttribute(func, PreferredSharedMemoryCarveout, MaxShared) once per kernel and
 * device (as mb_smem_limit_once). */
static cudaError_t td_carveout_once(const void *func, unsigned long long *done) {
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    const unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0ull;
    if (bit && (__atomic_load_n(done, __ATOMIC_RELAXED) & bit)) return cudaSuccess;
    e = cudaFuncSetAttribute(func, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess && bit) __atomic_fetch_or(done, bit, __ATOMIC_RELAXED);
    return e;
}

/* The launch for operands TMA can copy; *ran = 0 (nothing launched) where the driver refused
 * a tensor map. */
template <bool AKC, bool BKC>
static cudaError_t td_launch(const mb_gemm_args *p, PFN_cuTensorMapEncodeTiled_v12000 fn,
                             int *ran, cudaStream_t s) {
    typedef td_cfg Cfg;
    const CUtensorMapDataType f64 = CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
    /* A stored (AKC ? k x m : m x k), B stored (BKC ? n x k : k x n): the box is one stage
     * in rung 12's padded layout (tc_config.cuh), rows as wide as the pads. */
    CUtensorMap ma, mb;
    *ran = 0;
    if ((AKC ? tm_map(fn, &ma, p->A, p->k, p->m, p->lda, Cfg::LD_K, Cfg::BM, f64)
             : tm_map(fn, &ma, p->A, p->m, p->k, p->lda, Cfg::LD_AM, Cfg::BK, f64)) !=
            cudaSuccess ||
        (BKC ? tm_map(fn, &mb, p->B, p->k, p->n, p->ldb, Cfg::LD_K, Cfg::BN, f64)
             : tm_map(fn, &mb, p->B, p->n, p->k, p->ldb, Cfg::LD_BN, Cfg::BK, f64)) !=
            cudaSuccess)
        return cudaSuccess;
    *ran = 1;
    const size_t smem = td_smem_bytes(AKC, BKC);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    cudaError_t e = mb_smem_limit_once((const void *)tma_dmma_kernel<AKC, BKC>, (int)smem,
                                       &smem_set);
    if (e != cudaSuccess) return e;
    /* Two blocks of up to 106 KB per SM need the largest shared-memory carveout (228 KB):
     * asked for, not left to the driver's choice. */
    static unsigned long long carve_set;
    e = td_carveout_once((const void *)tma_dmma_kernel<AKC, BKC>, &carve_set);
    if (e != cudaSuccess) return e;
    /* Rung 12's plan for its big tile (tc_gemm_launch_s): the same tail split, so the same
     * sums in the same order. */
    const int64_t tiles = mb_cdiv(p->m, Cfg::BM) * mb_cdiv(p->n, Cfg::BN);
    const mb_tail tail = mb_tail_plan(p, tiles, Cfg::MIN_BLOCKS, Cfg::BK,
                                      (int64_t)Cfg::BM * Cfg::BN, sizeof(double));
    const int64_t blocks = tail.t0 + (tiles - tail.t0) * tail.S;
    tma_dmma_kernel<AKC, BKC><<<mb_grid_dim(blocks, MB_GRID_X_MAX), TD_THREADS, smem, s>>>(
        ma, mb, *p, tail);
    e = cudaGetLastError();
    if (e == cudaSuccess && tail.S > 1) {
        const x3g g = {NULL, NULL, NULL, NULL, Cfg::BM, Cfg::BN}; /* no range guard */
        const dim3 rgrid((unsigned)(tiles - tail.t0),
                         (unsigned)mb_cdiv((int64_t)Cfg::BM * Cfg::BN, 256));
        tc_tail_reduce_kernel<Cfg, false><<<rgrid, 256, 0, s>>>(
            (double *)p->C, p->ldc, (const double *)p->work, p->m, p->n, tail.t0, tail.S - 1,
            0 /* no edge shift */, p->beta, g);
        e = cudaGetLastError();
    }
    return e;
}

/* Operands TMA can copy: this rung; a tensor map the driver refuses: rung 12. */
static cudaError_t td_run(const mb_gemm_args *p, PFN_cuTensorMapEncodeTiled_v12000 fn,
                          cudaStream_t s) {
    int ran = 0;
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    const cudaError_t e = p->transa ? (p->transb ? td_launch<true, false>(p, fn, &ran, s)
                                                 : td_launch<true, true>(p, fn, &ran, s))
                                    : (p->transb ? td_launch<false, false>(p, fn, &ran, s)
                                                 : td_launch<false, true>(p, fn, &ran, s));
    return ran ? e : mb_dgemm_dmma(p, s);
}

/* Rung 12's DMMA_COPY_MIN_PER_ELEM (12_dmma.cu): where rung 12 copies the operands, so does
 * this rung, and runs on the copies what rung 12 runs on them. */
#define TD_COPY_MIN_PER_ELEM 900.0

/* At least 3 tiles per SM: where rung 12 takes its big tile with fewer it splits k. */
static int td_enough_tiles(int64_t m, int64_t n, int sms) {
    return mb_cdiv(m, td_cfg::BM) * mb_cdiv(n, td_cfg::BN) >= 3 * (int64_t)sms;
}

/* This rung where rung 12 takes its big tile with at least 3 tiles per SM (no split-K there;
 * mb_dgemm_dmma_picks_big) on its 16-byte path, directly or on aligned copies; everything
 * else is rung 12. */
extern "C" cudaError_t mb_dgemm_tma_dmma(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    int sms = 132;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    if (!td_enough_tiles(p->m, p->n, sms) || p->k == 0 || !tm_dims_ok(p) ||
        !mb_dgemm_dmma_picks_big(p, sms))
        return mb_dgemm_dmma(a, s);
    PFN_cuTensorMapEncodeTiled_v12000 fn;
    e = tm_encoder(&fn);
    if (e != cudaSuccess) return e;
    if (!fn) return mb_dgemm_dmma(a, s); /* a driver without TMA maps */
    const int va = tm_operand_ok(p->A, p->lda, sizeof(double));
    const int vb = tm_operand_ok(p->B, p->ldb, sizeof(double));
    if (p->k % 16 == 0 && va && vb) return td_run(p, fn, s);
    const int64_t k16 = p->k + (16 - p->k % 16) % 16;
    const int grow = k16 != p->k; /* growing k copies both operands */
    mb_gemm_args q;
    void *buf;
    const int made = oc_begin(p, sizeof(double), grow || !va, grow || !vb, k16,
                              TD_COPY_MIN_PER_ELEM, &q, &buf, &e, s);
    if (made < 0) return e;
    if (made) return oc_end(buf, td_run(&q, fn, s), s);
    return mb_dgemm_dmma(a, s); /* rung 12's STEP kernel */
}

/* Whether this rung runs its own kernel for an m x n x k product with the handle's gemm
 * workspace on a GPU of `sms` SMs (given a driver with tensor maps and dimensions TMA takes):
 * auto's rules name it only there. */
extern "C" int mb_dgemm_tma_dmma_big(int64_t m, int64_t n, int64_t k, int sms) {
    return sms > 0 && td_enough_tiles(m, n, sms) && mb_dgemm_dmma_big(m, n, k, sms);
}
