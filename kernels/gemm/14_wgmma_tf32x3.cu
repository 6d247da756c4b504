/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 14 of the sgemm ladder, wgmma_tf32x3 (FP32 results, Hopper only: sm_90a): rung 13's 3xTF32 (x = big
 * + small, per k step of 8 t = a_s*b_b + a_b*b_s + a_b*b_b into a fresh accumulator, added to
 * the FP32 one with round-to-nearest FADDs) moved from mma.sync to warpgroup MMA (wgmma).
 * Why faster: mma.sync (16x8x8, fragments of both operands loaded by every warp) cannot feed
 * the H100/H200 tensor cores (rung 13: 44 TFLOP/s); wgmma m64n128k8 reads B from shared memory
 * through a descriptor, runs asynchronously and does 64x an m16n8k8's work per issue.
 *   - Block 128x128, BK 32, 2 warpgroups of 64x128 rows (acc 64 + fresh t 64 registers).
 *   - A from registers (RS form): each warp loads its 16x8 fragment of the raw stage and splits
 *     it; B split once per stage by all threads into big/small planes in wgmma's K-major
 *     core-matrix layout (no swizzle, SBO 128 B, LBO 2048 B; conflict-free), double-buffered.
 *   - 4-stage cp.async ring (tc_load_stage, LEAN addressing; any m, n, k, ld). k step 0 runs
 *     while the next stage is copied and split; no wgmma group is pending across a stage end.
 *     Split-K (splitk.cuh) when C has fewer tiles than half the SMs.
 *   - Range guard (x3guard.cuh): a tile whose panels hold an element other than 0 or
 *     2^-50 <= |x| <= 2^40 (NaN, Inf, near FLT_MAX, tiny, subnormal) is recomputed by an FP32
 *     SIMT fixup: FP32 results (Inf/NaN as FP32) for every input. With beta == 0, k >= 1024 and
 *     SMs idle in the last wave, extra blocks there read A and B once (tail scan, CHECK false);
 *     otherwise each element is checked where it is split (shift, max, add-min) and a flagged
 *     tile stores nothing. Cost on normal inputs: the scan or the checks, a memset of the
 *     guard's bytes and one fixup launch that exits at once.
 * Resources (nvcc -arch=sm_90a -Xptxas -v): 249..255 registers, no spills unsplit (split-K:
 * 0..48-byte stack, as before the guard); 200..208 KB dynamic shared memory; 1 block per SM.
 * Measured before the guard (H200, miniblas-bench, 5 trials, cuBLAS FP32 SGEMM side by side):
 * NN 4096 / 8192: 67.5 / 68.0 TFLOP/s (1.32x / 1.33x cuBLAS), TT 68.1 / 68.5 (1.39x / 1.36x);
 * split-K 8192x128x8192 63.8-65.5 (1.26-1.37x); error 0.36..1.0x cuBLAS FP32's. The guard's
 * cost (H100, perf/results/h100/x3guard-cost, beta 0): tail scan 4096^3 +1.7% NN / +0.8% TT,
 * 8192^3 +0.3% / -0.2%; main-loop checks 1024^3 (split-K) +17..23%, 4096x4096x256 +9%,
 * 8192x128x8192 +1..9%.
 * Built for sm_90a (CMakeLists.txt); the sm_90 build traps; dispatch requires cc 9.0.
 */
#include "tc_common.cuh"
#include "x3guard.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_SM90A 1
#else
#define WG_SM90A 0
#endif

/* Tile shape. The raw stages and the A-fragment reads reuse tc_common.cuh with a "warp"
 * tile of 16 x 128 (8 warps of 16 rows: the rows each warp contributes to its warpgroup's
 * wgmma), which gives NTHREADS = 256 and rung 13's padded raw layouts. */
#define WG_BM 128
#define WG_BN 128
#define WG_BK 32
#define WG_STAGES 4
#define WG_THREADS 256
typedef tc_cfg<float, WG_BM, WG_BN, WG_BK, 16, WG_BN, WG_STAGES, 1, 4, TC_PIPE_STEP2, true> wg_cfg;
static_assert(wg_cfg::NTHREADS == WG_THREADS, "two warpgroups");
static_assert(WG_BK == 32, "the k loop below is written for 4 k steps of 8 per stage");

/* One split plane of B: BN x BK floats in core-matrix order (see the header comment). */
#define WG_PLANE (WG_BN * WG_BK)
#define WG_SBO 128                  /* bytes between core matrices adjacent in n */
#define WG_LBO ((WG_BN / 8) * 128)  /* bytes between core matrices adjacent in k */

/* Float index of element (n, k) in a plane. */
__host__ __device__ __forceinline__ int wg_plane_index(int n, int k) {
    return ((k >> 2) * (WG_BN / 8) + (n >> 3)) * 32 + (n & 7) * 4 + (k & 3);
}

/* Dynamic shared memory: 2 buffers x (big, small) planes, then the raw A and B stages. */
static constexpr size_t wg_smem_bytes(bool akc, bool bkc) {
    return (size_t)4 * WG_PLANE * sizeof(float) + wg_cfg::smem_bytes(akc, bkc, false);
}

/* ---------------------------------------------------------------------------------------
 * PTX wrappers (sm_90a). PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-Accumulate".
 * ------------------------------------------------------------------------------------- */
/* Matrix descriptor of a K-major operand without swizzle: bits 0-13 start address >> 4,
 * 16-29 leading dimension byte offset >> 4 (between core matrices adjacent in K), 32-45
 * stride dimension byte offset >> 4 (adjacent in M/N), 49-51 base offset 0, 62-63 swizzle
 * mode 0 (none). */
__device__ __forceinline__ uint64_t wg_desc(unsigned saddr) {
    return (uint64_t)((saddr >> 4) & 0x3FFFu) | ((uint64_t)(WG_LBO >> 4) << 16) |
           ((uint64_t)(WG_SBO >> 4) << 32);
}

/* Operand lists of the accumulator registers. */
#define WG_O4(C, d, i) C(d[i]), C(d[(i) + 1]), C(d[(i) + 2]), C(d[(i) + 3])
#define WG_O16(C, d, i) WG_O4(C, d, i), WG_O4(C, d, (i) + 4), WG_O4(C, d, (i) + 8), WG_O4(C, d, (i) + 12)
/* The 64 accumulator operands of an m64n128 f32 wgmma. */
#define WG_O64(C, d) WG_O16(C, d, 0), WG_O16(C, d, 16), WG_O16(C, d, 32), WG_O16(C, d, 48)
#define WG_D64                                                                              \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "               \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "      \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "      \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
/* d = (SCALE_D ? d : 0) + A * B, m64n128k8: A 64x8 TF32 from registers (this warp's 16x8
 * slice in the mma.sync m16n8k8 A layout), B 8x128 from the plane descriptor (16 core
 * matrices SBO apart in n, 2 LBO apart in k). d is an in-out operand ("+f") even when
 * SCALE_D is 0: with "=f" every k step's result was a new value to ptxas, which then gave
 * each its own registers and serialized the wgmma (C7512 / C7514 warnings, seen in the
 * m64n64 version of this rung); with "+f" the fresh accumulator stays in place. */
template <int SCALE_D>
__device__ __forceinline__ void wg_mma128(float (&d)[64], const unsigned (&a)[4], uint64_t desc) {
#if WG_SM90A
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " WG_D64
                 ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
                 : WG_O64("+f", d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc), "r"(SCALE_D)
                 : "memory");
#endif
}
/* Orders earlier register accesses before the next wgmma (required before a wgmma whose
 * accumulator or A registers other instructions touched). */
__device__ __forceinline__ void wg_fence() {
#if WG_SM90A
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void wg_commit() {
#if WG_SM90A
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
/* Waits until at most N committed wgmma groups of this warpgroup are pending. */
template <int N>
__device__ __forceinline__ void wg_wait() {
#if WG_SM90A
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/* Makes this thread's generic-proxy shared-memory stores (the split planes) visible to
 * async-proxy reads (wgmma operands) after the next barrier. */
__device__ __forceinline__ void wg_fence_proxy_async() {
#if WG_SM90A
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}
/* Compiler-only fence on a register (emits nothing): its value is "redefined" here, so
 * reads of a wgmma result cannot be hoisted above the wgmma.wait_group that precedes this,
 * and writes before it cannot sink below a later wgmma.fence. */
__device__ __forceinline__ void wg_keep(float &r) { asm volatile("" : "+f"(r)::"memory"); }

/* ---------------------------------------------------------------------------------------
 * The split of one raw B stage into the big and small planes. Chunk c of 4 k-consecutive
 * elements: n = c % BN, k0 = 4 (c / BN). Loads: BKC (raw sB[n][LD_K], LD_K = 36): one LDS.128,
 * 8 consecutive n of a quarter-warp hit 16-byte bank groups (9 n + k0 / 4) % 8, distinct;
 * !BKC (raw sB[k][LD_BN]): four LDS.32, a warp reads 32 consecutive n of one k row. Stores:
 * a quarter-warp (8 consecutive n, n % 8 = 0..7) writes one whole 128-byte core matrix.
 * ------------------------------------------------------------------------------------- */
template <bool BKC, bool CHECK>
__device__ __forceinline__ void wg_split_b(float *big, float *small, const float *sB, int tid,
                                           unsigned &gmx, unsigned &gmn) {
    constexpr int CHUNKS = WG_BN * WG_BK / 4;
    static_assert(CHUNKS % WG_THREADS == 0 && WG_BN % 32 == 0, "a warp's chunks share one k0");
#pragma unroll
    for (int it = 0; it < CHUNKS / WG_THREADS; ++it) {
        const int c = tid + it * WG_THREADS;
        const int n = c % WG_BN, k0 = (c / WG_BN) * 4;
        float x[4];
        if (BKC) {
            const float4 v = *(const float4 *)(sB + tc_sb_index<wg_cfg, true>(k0, n));
            x[0] = v.x;
            x[1] = v.y;
            x[2] = v.z;
            x[3] = v.w;
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) x[e] = sB[tc_sb_index<wg_cfg, false>(k0 + e, n)];
        }
        unsigned b[4], s[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            tc_split_tf32(x[e], b[e], s[e]);
            if (CHECK) x3g_note(x[e], gmx, gmn);
        }
        const int idx = wg_plane_index(n, k0);
        *(uint4 *)(big + idx) = make_uint4(b[0], b[1], b[2], b[3]);
        *(uint4 *)(small + idx) = make_uint4(s[0], s[1], s[2], s[3]);
    }
}

/* One k step (8 deep, offset kk in the stage) of one warpgroup: one group of three
 * m64n128k8 wgmma into the 64-register fresh accumulator t (small * big first, the large
 * product last): t = a_small*B_big + a_big*B_small + a_big*B_big. wg_flush64 (after
 * wgmma.wait_group 0) adds t into acc; wg_keep keeps the reads of t after the wait and the
 * adds before the next wgmma.fence. pb / ps: shared addresses of the big / small planes. */
__device__ __forceinline__ void wg_split_a(const float (&fa)[4], unsigned (&ab)[4],
                                           unsigned (&as)[4]) {
#pragma unroll
    for (int v = 0; v < 4; ++v) tc_split_tf32(fa[v], ab[v], as[v]);
}
/* The range guard's check of the A fragment just split: called after the k step's wgmma
 * are issued (off the path from wait to issue), before the next fragment replaces fa. */
__device__ __forceinline__ void wg_note_a(const float (&fa)[4], unsigned &gmx, unsigned &gmn) {
#pragma unroll
    for (int v = 0; v < 4; ++v) x3g_note(fa[v], gmx, gmn);
}
__device__ __forceinline__ void wg_issue128(float (&t)[64], const unsigned (&ab)[4],
                                            const unsigned (&as)[4], unsigned pb, unsigned ps,
                                            int kk) {
    const unsigned off = (unsigned)(kk >> 2) * WG_LBO;
    wg_fence();
    wg_mma128<0>(t, as, wg_desc(pb + off));
    wg_mma128<1>(t, ab, wg_desc(ps + off));
    wg_mma128<1>(t, ab, wg_desc(pb + off));
    wg_commit();
}
__device__ __forceinline__ void wg_flush64(float (&acc)[64], float (&t)[64]) {
#pragma unroll
    for (int i = 0; i < 64; ++i) wg_keep(t[i]);
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] += t[i];
#pragma unroll
    for (int i = 0; i < 64; ++i) wg_keep(acc[i]);
}

/* ---------------------------------------------------------------------------------------
 * Schedule notes.
 * Synchronisation per stage kt (both warpgroups run the same code):
 *   B1 __syncthreads        planes of kt (split in kt - 1, fence.proxy.async by each writer)
 *                           and raw A of kt are visible; every wgmma of kt - 1 is done (each
 *                           warpgroup waited for all of its groups at the end of kt - 1), so
 *                           nothing reads plane buffer (kt + 1) & 1 any more
 *   k step 0 issued
 *   cp.async.wait_group 1   raw stage kt + 1 landed (this thread's copies)
 *   B2 __syncthreads        ... for every thread
 *   cp.async of stage kt + 3 into the raw buffer of kt - 1; split of kt + 1 into the other
 *   plane buffer, fence.proxy.async (generic stores -> async-proxy reads of wgmma)
 *   k step 0 finished (wait, FADDs), k steps 1..3 (each waits for its group)
 * The epilogue with beta != 0 loads all of its C before storing: a rank-512 update of 8192^2
 * with beta = 1 went from 1.82 to 1.19 ms (beta = 0: 1.14). The LEAN loader (one base address
 * and row stride per thread) is worth ~5% (62.5 / 63.2 TFLOP/s NN without it).
 * Tried and slower (same machine, before/after as noted): the first version
 * (two m64n64 halves per k step, two 32-register fresh accumulators ta / tb, wait_group 1
 * between the halves so a warpgroup's FADDs overlap its own wgmma): 62.5 / 63.2 NN without
 * the LEAN loader, 65.7 / 66.5 NN and 64.7 / 65.1 TT with it; two 64-register fresh
 * accumulators alternating over the k steps (wait_group 1): spills (96 .. 120 byte stack
 * even with LEAN), 57.3 / 59.9 NN; three 32-register fresh accumulators rotating over the
 * 8 m64n64 groups of a stage, wait_group 2: 60.1 / 60.7.
 * ------------------------------------------------------------------------------------- */
/* ---------------------------------------------------------------------------------------
 * The kernel. One block per 128x128 tile of C (grid-stride past the grid limit).
 * ------------------------------------------------------------------------------------- */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
__global__ void __launch_bounds__(WG_THREADS, 1)
    wg_tf32x3_kernel(mb_gemm_args p, bool a_vec, bool b_vec, int64_t kc, x3g g) {
#if WG_SM90A
    if (SPLIT) { /* split-K: this block's slice; every slice writes alpha * partial to its slab */
        p = mb_splitk_slice<float>(p, blockIdx.y, kc);
        p.C = (float *)p.work + (int64_t)blockIdx.y * p.m * p.n;
        p.ldc = p.m;
        p.beta = 0.0;
    }
    constexpr int S = WG_STAGES;
    constexpr int AE = wg_cfg::a_elems(AKC), BE = wg_cfg::b_elems(BKC);
    extern __shared__ __align__(128) unsigned char wg_smem[];
    float *planes = (float *)wg_smem; /* [buffer][big, small][WG_PLANE] */
    float *sA = planes + 4 * WG_PLANE;
    float *sB = sA + S * AE;
    const unsigned planes_addr = tc_smem_addr(planes);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = warp * 16; /* this warp's 16 rows (warpgroup warp / 4: rows 64 (warp / 4) ..) */
    const int64_t ntm = (p.m + WG_BM - 1) / WG_BM, ntn = (p.n + WG_BN - 1) / WG_BN;
    const int64_t ntiles = ntm * ntn;
    const int64_t KT = (p.k + WG_BK - 1) / WG_BK;
    const float alpha = (float)p.alpha, beta = (float)p.beta;
    float *C = (float *)p.C;
    if (!CHECK && blockIdx.x >= ntiles) { /* a tail-scan block (x3guard.cuh) */
        x3g_scan_part(p, g, a_vec, b_vec, blockIdx.x - ntiles, gridDim.x - ntiles);
        return;
    }

    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        const int64_t m0 = tm * WG_BM, n0 = tn * WG_BN;

        float acc[64], t[64];
        unsigned gmx, gmn; /* range guard (x3guard.cuh) over the A and B elements split here */
        x3g_init(gmx, gmn);
#pragma unroll
        for (int i = 0; i < 64; ++i) {
            acc[i] = 0.0f;
            t[i] = 0.0f; /* never read (scale-d false), but defined */
        }

        /* Prologue: S - 1 k-tiles in flight (empty groups past the end keep the count);
         * wait for the first, split its B into plane buffer 0. (Not unrolled: code size.) */
#pragma unroll 1
        for (int s = 0; s < S - 1; ++s) {
            if (s < KT)
                tc_load_stage<wg_cfg, AKC, BKC>(sA + s * AE, sB + s * BE, p, m0, n0, s, a_vec,
                                                b_vec, tid);
            tc_cp_async_commit();
        }
        tc_cp_async_wait<S - 2>();
        __syncthreads();
        wg_split_b<BKC, CHECK>(planes, planes + WG_PLANE, sB, tid, gmx, gmn);
        wg_fence_proxy_async();

        int cs = 0; /* raw stage of k-tile kt */
        for (int64_t kt = 0; kt < KT; ++kt) {
            __syncthreads(); /* B1: planes of kt and raw A of kt visible to all */
            const float *sAc = sA + cs * AE;
            const unsigned pb = planes_addr + (unsigned)((kt & 1) * 2 * WG_PLANE * sizeof(float));
            const unsigned ps = pb + (unsigned)(WG_PLANE * sizeof(float));
            float fa[4];
            unsigned ab[4], as[4];
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 0, lane);
            wg_split_a(fa, ab, as);
            /* k step 0 is issued before, and finished after, the copies and the split of
             * the next stage, so that it runs meanwhile. */
            wg_issue128(t, ab, as, pb, ps, 0);
            if (CHECK) wg_note_a(fa, gmx, gmn);
            tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 8, lane); /* next A fragment */

            /* Groups committed: S - 1 + kt (k-tiles 0 .. kt + S - 2); at most S - 3 pending
             * means k-tile kt + 1 has landed. */
            tc_cp_async_wait<S - 3>();
            __syncthreads(); /* B2: raw kt + 1 visible to all */
            const int ls = cs == 0 ? S - 1 : cs - 1; /* (kt + S - 1) % S: raw stage of kt - 1 */
            if (kt + S - 1 < KT)
                tc_load_stage<wg_cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0,
                                                kt + S - 1, a_vec, b_vec, tid);
            tc_cp_async_commit();
            if (kt + 1 < KT) {
                const int ns = cs + 1 == S ? 0 : cs + 1;
                float *pl = planes + ((kt + 1) & 1) * 2 * WG_PLANE;
                wg_split_b<BKC, CHECK>(pl, pl + WG_PLANE, sB + ns * BE, tid, gmx, gmn);
                wg_fence_proxy_async();
            }
            /* k steps 1..3: wait, add t into acc, issue the next (its A fragment already
             * loaded), load the one after while it runs. Nothing pending at the end. */
#pragma unroll
            for (int j = 1; j < 4; ++j) {
                wg_wait<0>();
                wg_flush64(acc, t);
                wg_split_a(fa, ab, as);
                wg_issue128(t, ab, as, pb, ps, 8 * j);
                if (CHECK) wg_note_a(fa, gmx, gmn);
                if (j < 3) tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 8 * (j + 1), lane);
            }
            wg_wait<0>();
            wg_flush64(acc, t);
            cs = cs + 1 == S ? 0 : cs + 1;
        }
        tc_cp_async_wait<0>();
        __syncthreads(); /* the next tile's prologue overwrites stages and planes */

        /* Epilogue from the accumulator layout of wgmma m64nN f32: register i of lane
         * (g = lane / 4, t = lane % 4) of warp w holds row 16 w + g + 8 ((i / 2) % 2),
         * column 8 (i / 4) + 2 t + i % 2. Per register a warp writes 8 consecutive rows in
         * each of 4 columns. beta == 0: C is not read; else all 64 values are loaded (into t,
         * free now) before any is stored, so the loads overlap instead of each waiting a
         * memory latency behind the stores before it (see the schedule notes). */
        /* A tile with an out-of-range element in its panels stores nothing (the fixup
         * recomputes it; x3guard.cuh). */
        if (CHECK && x3g_tile_out(g, gmx, gmn, tm + tn * ntm)) continue;
        const int gq = lane >> 2, tq = lane & 3;
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
            if (r < p.m && c < p.n) {
                const float val = alpha * acc[i];
                C[r + c * p.ldc] = beta == 0.0f ? val : val + beta * t[i];
            }
        }
    }
#else
    /* Not built for sm_90a: never launched (dispatch requires a compute capability 9.0 GPU,
     * where the sm_90a code is loaded). Fail loudly rather than return garbage. */
    (void)p;
    (void)a_vec;
    (void)b_vec;
    (void)kc;
    (void)g;
#ifdef __CUDA_ARCH__
    __trap();
#endif
#endif
}

/* ---------------------------------------------------------------------------------------
 * Launcher: transpose instantiation, 16-byte copy eligibility, dynamic shared memory.
 * ------------------------------------------------------------------------------------- */
/* p: the call; q: the same with the workspace after the guard's bytes (split-K slabs);
 * scan: the tail-scan blocks after the tiles (CHECK false), else 0. */
template <bool AKC, bool BKC, bool SPLIT, bool CHECK>
static cudaError_t wg_launch_s(const mb_gemm_args *p, const mb_gemm_args *q, mb_splitk sp, x3g g,
                               int64_t scan, cudaStream_t s) {
    const size_t smem = wg_smem_bytes(AKC, BKC);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    cudaError_t e = mb_smem_limit_once((const void *)wg_tf32x3_kernel<AKC, BKC, SPLIT, CHECK>,
                                       (int)smem, &smem_set);
    if (e != cudaSuccess) return e;
    const bool a_vec = ((uintptr_t)p->A % 16 == 0) && ((p->lda * (int64_t)sizeof(float)) % 16 == 0);
    const bool b_vec = ((uintptr_t)p->B % 16 == 0) && ((p->ldb * (int64_t)sizeof(float)) % 16 == 0);
    const int64_t tiles = mb_cdiv(p->m, WG_BM) * mb_cdiv(p->n, WG_BN);
    const dim3 grid(mb_grid_dim(tiles + scan, MB_GRID_X_MAX), (unsigned)sp.S);
    wg_tf32x3_kernel<AKC, BKC, SPLIT, CHECK>
        <<<grid, WG_THREADS, smem, s>>>(*q, a_vec, b_vec, sp.kc, g);
    e = cudaGetLastError();
    if (e == cudaSuccess && SPLIT) e = x3g_reduce(p, q, sp.S, g, s);
    return e == cudaSuccess ? x3g_end(p, g, s) : e;
}
template <bool AKC, bool BKC>
static cudaError_t wg_launch_t(const mb_gemm_args *p, cudaStream_t s) {
    x3g g;
    mb_gemm_args q;
    static_assert(WG_BM <= X3G_TILE && WG_BN <= X3G_TILE, "the fixup's tile");
    cudaError_t e = x3g_begin(p, WG_BM, WG_BN, &g, &q, s);
    if (e != cudaSuccess) return e;
    /* every slice writes a slab (slice 0 too: C stays intact for the fixup) */
    const int64_t tiles = mb_cdiv(p->m, WG_BM) * mb_cdiv(p->n, WG_BN);
    const mb_splitk sp = mb_splitk_plan(&q, tiles, 1, WG_BK, sizeof(float), 1);
    if (sp.S > 1) return wg_launch_s<AKC, BKC, true, true>(p, &q, sp, g, 0, s);
    int sms = 0;
    e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    /* beta == 0 and room in the last wave: A and B checked once there, not in the main loop */
    const int64_t scan = g.flag ? x3g_tail_blocks(p, tiles, sms) : 0;
    return scan > 0 ? wg_launch_s<AKC, BKC, false, false>(p, &q, sp, g, scan, s)
                    : wg_launch_s<AKC, BKC, false, true>(p, &q, sp, g, 0, s);
}

extern "C" cudaError_t mb_sgemm_wgmma_tf32x3(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) {
        if (p->transb) return wg_launch_t<true, false>(p, s);
        return wg_launch_t<true, true>(p, s);
    }
    if (p->transb) return wg_launch_t<false, false>(p, s);
    return wg_launch_t<false, true>(p, s);
}
