/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The building blocks of the 3xTF32 wgmma rungs (14_wgmma_tf32x3, 15_tma_tf32x3,
 * 16_pingpong_tf32x3, 17_fastsplit_tf32x3): the tile shape (128 x 128 x 32, 2 warpgroups, 4
 * raw stages in tc_common.cuh's padded layouts), the B planes in wgmma's K-major core-matrix
 * layout (no swizzle, SBO 128 B, LBO 2048 B), the wgmma PTX wrappers, the split of a raw B
 * stage into big / small planes and of an A fragment in registers (tc_split_tf32, or with FAST
 * the cheap split below), one k step (three m64n128k8 wgmma into
 * a fresh accumulator added in FP32) and the k steps of a stage, the epilogue, and the launch
 * plan (range guard, split-K, tail scan) the rungs share. The rungs differ in how the raw
 * stages are filled (cp.async by every thread / TMA, tma_ring.cuh) and in their schedules,
 * which their files describe.
 */
#ifndef MINIBLAS_GEMM_WG_TF32X3_CUH
#define MINIBLAS_GEMM_WG_TF32X3_CUH

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
/* The cheap split of rung 17 (fastsplit_tf32x3), 4 instructions (IADD, LOP3, FADD, IADD)
 * where tc_split_tf32's cvt.rna(.satfinite).tf32 pair is emulated on sm_90 in about 10:
 * big = tf32 round-half-away of x in integer arithmetic, small = x - big (exact) with 0x1000
 * added and its low 13 bits left as they come: if the tensor cores read only the top 19 bits
 * of a TF32 operand (as CUTLASS's 3xTF32 assumes; tests/test_tf32_accuracy_gpu.c checks it),
 * they see cvt.rna's small. Equal to tc_split_tf32 (as the tensor cores see it) for finite x
 * below 0x1.ffep127 in magnitude; differs for Inf, NaN and values that round past FLT_MAX (no
 * saturation), which the range guard keeps out of C (the rung's file says how). */
__device__ __forceinline__ void wg_split_fast(float x, unsigned &big, unsigned &small) {
    const unsigned b = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
    big = b;
    small = __float_as_uint(x - __uint_as_float(b)) + 0x1000u;
}
template <bool FAST>
__device__ __forceinline__ void wg_split1(float x, unsigned &big, unsigned &small) {
    if (FAST)
        wg_split_fast(x, big, small);
    else
        tc_split_tf32(x, big, small);
}
template <bool BKC, bool CHECK, bool FAST = false>
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
            wg_split1<FAST>(x[e], b[e], s[e]);
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
template <bool FAST = false>
__device__ __forceinline__ void wg_split_a(const float (&fa)[4], unsigned (&ab)[4],
                                           unsigned (&as)[4]) {
#pragma unroll
    for (int v = 0; v < 4; ++v) wg_split1<FAST>(fa[v], ab[v], as[v]);
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

/* A tile's accumulators: acc zero, t defined (never read: scale-d false). */
__device__ __forceinline__ void wg_tile_zero(float (&acc)[64], float (&t)[64]) {
#pragma unroll
    for (int i = 0; i < 64; ++i) {
        acc[i] = 0.0f;
        t[i] = 0.0f;
    }
}
/* k step 0 of a stage (raw A of the stage at sAc): its A fragment split and its wgmma issued,
 * then the next fragment loaded into fa; it runs while the caller splits the next stage's B. */
template <bool AKC, bool CHECK, bool FAST = false>
__device__ __forceinline__ void wg_step0(float (&t)[64], float (&fa)[4], unsigned (&ab)[4],
                                         unsigned (&as)[4], const float *sAc, int wm0, int lane,
                                         unsigned pb, unsigned ps, unsigned &gmx, unsigned &gmn) {
    tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 0, lane);
    wg_split_a<FAST>(fa, ab, as);
    wg_issue128(t, ab, as, pb, ps, 0);
    if (CHECK) wg_note_a(fa, gmx, gmn);
    tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 8, lane); /* next A fragment */
}
/* k steps 1..3: wait, add t into acc, issue the next (its A fragment already loaded), load the
 * one after while it runs. k step 3 is left pending: the caller waits for it and adds it. */
template <bool AKC, bool CHECK>
__device__ __forceinline__ void wg_steps123(float (&acc)[64], float (&t)[64], float (&fa)[4],
                                            unsigned (&ab)[4], unsigned (&as)[4],
                                            const float *sAc, int wm0, int lane, unsigned pb,
                                            unsigned ps, unsigned &gmx, unsigned &gmn) {
#pragma unroll
    for (int j = 1; j < 4; ++j) {
        wg_wait<0>();
        wg_flush64(acc, t);
        wg_split_a(fa, ab, as);
        wg_issue128(t, ab, as, pb, ps, 8 * j);
        if (CHECK) wg_note_a(fa, gmx, gmn);
        if (j < 3) tc_gather_a1<wg_cfg, AKC>(fa, sAc, wm0, 0, 8 * (j + 1), lane);
    }
}

/* ---------------------------------------------------------------------------------------
 * Epilogue from the accumulator layout of wgmma m64nN f32: register i of lane
 * (g = lane / 4, t = lane % 4) of warp w holds row 16 w + g + 8 ((i / 2) % 2),
 * column 8 (i / 4) + 2 t + i % 2. Per register a warp writes 8 consecutive rows in
 * each of 4 columns. beta == 0: C is not read; else all 64 values are loaded (into t,
 * free now) before any is stored, so the loads overlap instead of each waiting a
 * memory latency behind the stores before it (14_wgmma_tf32x3.cu's schedule notes).
 * ------------------------------------------------------------------------------------- */
__device__ __forceinline__ void wg_store_tile(const mb_gemm_args &p, float *C, float alpha,
                                              float beta, const float (&acc)[64],
                                              float (&t)[64], int64_t m0, int64_t n0, int wm0,
                                              int lane) {
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

/* ---------------------------------------------------------------------------------------
 * Launch plan of one call (host): the range guard's workspace (x3g_begin; q = the call with
 * the workspace after the guard's bytes), split-K when C has fewer tiles than half the SMs
 * (sp.S > 1: every slice writes a slab, slice 0 too), else the tail scan where beta == 0 and
 * the last wave leaves SMs idle (*scan > 0 blocks after the tiles, CHECK false) or the checks
 * in the main loop (*scan == 0). zero_kernel: the guard's bytes zeroed by a kernel (the gemm
 * after it is a programmatic dependent launch; x3g_begin).
 * ------------------------------------------------------------------------------------- */
static inline cudaError_t wg_plan(const mb_gemm_args *p, x3g *g, mb_gemm_args *q,
                                  mb_splitk *sp, int64_t *scan, int zero_kernel, cudaStream_t s) {
    static_assert(WG_BM <= X3G_TILE && WG_BN <= X3G_TILE, "the fixup's tile");
    *scan = 0;
    cudaError_t e = x3g_begin(p, WG_BM, WG_BN, g, q, zero_kernel, s);
    if (e != cudaSuccess) return e;
    /* every slice writes a slab (slice 0 too: C stays intact for the fixup) */
    const int64_t tiles = mb_cdiv(p->m, WG_BM) * mb_cdiv(p->n, WG_BN);
    *sp = mb_splitk_plan(q, tiles, 1, WG_BK, sizeof(float), 1);
    if (sp->S > 1) return cudaSuccess;
    int sms = 0;
    e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    /* beta == 0 and room in the last wave: A and B checked once there, not in the main loop */
    *scan = g->flag ? x3g_tail_blocks(p, tiles, sms) : 0;
    return cudaSuccess;
}

#endif
