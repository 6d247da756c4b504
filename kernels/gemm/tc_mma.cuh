/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tensor-core GEMM (tc_common.cuh): the mma.sync wrappers (TF32 m16n8k8, FP64 m16n8k4 /
 * k8 / k16), the FP32 -> TF32 conversion, the fragment gathers from a shared-memory stage
 * (host-callable, so a CPU emulation can replay them lane by lane) and the 3xTF32 split of
 * a value and of a whole stage into big and small planes (with the range guard's check).
 */
#ifndef MINIBLAS_GEMM_TC_MMA_CUH
#define MINIBLAS_GEMM_TC_MMA_CUH

#include <string.h> /* memcpy: the host bit casts of the CPU emulation */
#include "tc_config.cuh"
#include "x3guard.cuh"

/* ---------------------------------------------------------------------------------------
 * mma.sync wrappers and TF32 conversion.
 * ------------------------------------------------------------------------------------- */
/* FP32 -> TF32, round to nearest, ties away (the bit pattern is an fp32 with 13 low bits 0). */
__device__ __forceinline__ unsigned tc_to_tf32(float x) {
    unsigned r;
#if TC_HAS_MMA
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
#else
    r = __float_as_uint(x);
#endif
    return r;
}

/* c += a * b on a 16x8x8 tile, TF32 operands, FP32 accumulation. */
__device__ __forceinline__ void tc_mma_tf32(float c[4], const unsigned a[4], const unsigned b[2]) {
#if TC_HAS_MMA
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* c = a * b (a zero accumulator) on a 16x8x8 tile, TF32 operands. */
__device__ __forceinline__ void tc_mma_tf32_zero(float c[4], const unsigned a[4],
                                                 const unsigned b[2]) {
#if TC_HAS_MMA
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%10,%10,%10,%10};\n"
        : "=f"(c[0]), "=f"(c[1]), "=f"(c[2]), "=f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(0.0f));
#endif
}

/* c += a * b on a 16x8x4 tile in FP64 (sm_90: mma.sync m16n8k4 .f64, one DMMA.16x8x4; sm_80:
 * two m8n8k4). Fragments (CuTe SM90_16x8x4_F64F64F64F64_TN): a[h] = A[g + 8h][t],
 * b = B[t][g], c as m16n8k8. Half the fragment registers of m16n8k8, so the kernel can hold
 * the next k step's fragments while this one's mma run (tc_warp_mma, DMMA). */
__device__ __forceinline__ void tc_mma_f64_k4(double c[4], const double a[2], double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
        "{%0,%1,%2,%3};\n"
        : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
        : "d"(a[0]), "d"(a[1]), "d"(b));
#elif TC_HAS_MMA
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
        : "+d"(c[0]), "+d"(c[1])
        : "d"(a[0]), "d"(b));
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
        : "+d"(c[2]), "+d"(c[3])
        : "d"(a[1]), "d"(b));
#endif
}

/* c += a * b on a 16x8x(4 KQ) tile in FP64, KQ = 1, 2, 4: on sm_90 one mma.sync m16n8k4 /
 * m16n8k8 / m16n8k16 .f64 (PTX ISA 7.8+; CuTe SM90_16x8x{4,8,16}_F64F64F64F64_TN), elsewhere
 * KQ m16n8k4 steps. Fragments, g = lane / 4, t = lane % 4:
 *   a[v] = A[g + 8 (v & 1)][t + 4 (v >> 1)], v < 2 KQ;   b[v] = B[t + 4 v][g], v < KQ;
 *   c as m16n8k8.
 * So the k16 fragment is the four k4 fragments at k offsets 0, 4, 8, 12 side by side
 * (a4_j[h] = a[2 j + h], b4_j = b[j]): the fallback below. */
template <int KQ>
__device__ __forceinline__ void tc_mma_f64(double c[4], const double (&a)[2 * KQ],
                                           const double (&b)[KQ]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (KQ == 1) {
        tc_mma_f64_k4(c, a, b[0]);
    } else if constexpr (KQ == 2) {
        asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    } else {
        static_assert(KQ == 4, "FP64 mma depth");
        asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
            "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
            : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
              "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
    }
#else
#pragma unroll
    for (int j = 0; j < KQ; ++j) tc_mma_f64_k4(c, a + 2 * j, b[j]);
#endif
}
/* ---------------------------------------------------------------------------------------
 * Warp tile product on one stage: acc += A_tile(warp rows) * B_tile(warp cols), BK deep.
 * The fragment gathers are host-callable so a CPU emulation can replay them lane by lane.
 * ------------------------------------------------------------------------------------- */
/* A fragment of the warp's row tile mi at k offset kk (raw fp32/fp64 values). */
template <class Cfg, bool AKC>
__host__ __device__ __forceinline__ void tc_gather_a1(typename Cfg::T (&a)[4],
                                                      const typename Cfg::T *sA, int wm0, int mi,
                                                      int kk, int lane) {
TC_UNROLL
    for (int v = 0; v < 4; ++v)
        a[v] = sA[tc_sa_index<Cfg, AKC>(wm0 + mi * 16 + tc_frag_a_row(lane, v),
                                        kk + tc_frag_a_col(lane, v))];
}
/* A fragments of all the warp's MI row tiles. */
template <class Cfg, bool AKC>
__host__ __device__ __forceinline__ void tc_gather_a(typename Cfg::T (&a)[Cfg::MI][4],
                                                     const typename Cfg::T *sA, int wm0, int kk,
                                                     int lane) {
TC_UNROLL
    for (int mi = 0; mi < Cfg::MI; ++mi) tc_gather_a1<Cfg, AKC>(a[mi], sA, wm0, mi, kk, lane);
}
/* B fragments of the warp's NI column tiles at k offset kk. */
template <class Cfg, bool BKC>
__host__ __device__ __forceinline__ void tc_gather_b(typename Cfg::T (&b)[Cfg::NI][2],
                                                     const typename Cfg::T *sB, int wn0, int kk,
                                                     int lane) {
TC_UNROLL
    for (int ni = 0; ni < Cfg::NI; ++ni)
TC_UNROLL
        for (int v = 0; v < 2; ++v)
            b[ni][v] = sB[tc_sb_index<Cfg, BKC>(kk + tc_frag_b_row(lane, v),
                                                wn0 + ni * 8 + tc_frag_b_col(lane))];
}

/* FP64 16x8x(4 KQ) fragments (tc_mma_f64) at k offset kk: a[mi][v] = A[wm0 + 16 mi + g +
 * 8 (v & 1)][kk + t + 4 (v >> 1)], b[v] = B[kk + t + 4 v][wn0 + 8 ni + g]. Conflict-free
 * LDS.64: a half-warp reads g = 0..3 (or 4..7) x t = 0..3 at t*LD + g or g*LD + t (plus a
 * multiple of 4 LD or of 4), LD % 16 == 4. */
template <class Cfg, bool AKC, int KQ>
__host__ __device__ __forceinline__ void tc_gather_a1_f64(double (&a)[2 * KQ], const double *sA,
                                                          int wm0, int mi, int kk, int lane) {
TC_UNROLL
    for (int v = 0; v < 2 * KQ; ++v)
        a[v] = sA[tc_sa_index<Cfg, AKC>(wm0 + mi * 16 + (lane >> 2) + 8 * (v & 1),
                                        kk + (lane & 3) + 4 * (v >> 1))];
}
template <class Cfg, bool AKC, int KQ>
__host__ __device__ __forceinline__ void tc_gather_a_f64(double (&a)[Cfg::MI][2 * KQ],
                                                         const double *sA, int wm0, int kk,
                                                         int lane) {
TC_UNROLL
    for (int mi = 0; mi < Cfg::MI; ++mi) tc_gather_a1_f64<Cfg, AKC, KQ>(a[mi], sA, wm0, mi, kk, lane);
}
/* B fragment of the warp's column tile ni. */
template <class Cfg, bool BKC, int KQ>
__host__ __device__ __forceinline__ void tc_gather_b1_f64(double (&b)[KQ], const double *sB,
                                                          int wn0, int ni, int kk, int lane) {
    if constexpr (KQ == 1) {
        b[0] = sB[tc_sb_index<Cfg, BKC>(kk + (lane & 3), wn0 + ni * 8 + (lane >> 2))];
    } else {
TC_UNROLL
        for (int v = 0; v < KQ; ++v)
            b[v] = sB[tc_sb_index<Cfg, BKC>(kk + (lane & 3) + 4 * v, wn0 + ni * 8 + (lane >> 2))];
    }
}
template <class Cfg, bool BKC, int KQ>
__host__ __device__ __forceinline__ void tc_gather_b_f64(double (&b)[Cfg::NI][KQ],
                                                         const double *sB, int wn0, int kk,
                                                         int lane) {
TC_UNROLL
    for (int ni = 0; ni < Cfg::NI; ++ni) tc_gather_b1_f64<Cfg, BKC, KQ>(b[ni], sB, wn0, ni, kk, lane);
}

/* Bit casts usable on host (the CPU emulation) and device. */
TC_HD unsigned tc_f2u(float f) {
#ifdef __CUDA_ARCH__
    return __float_as_uint(f);
#else
    unsigned u;
    memcpy(&u, &f, 4);
    return u;
#endif
}
TC_HD float tc_u2f(unsigned u) {
#ifdef __CUDA_ARCH__
    return __uint_as_float(u);
#else
    float f;
    memcpy(&f, &u, 4);
    return f;
#endif
}

/* x = big + small with big = tf32(x), small = tf32(x - big); x - big is exact in fp32 (big
 * has x's sign and exponent and agrees with x in the leading bits), so x = big + small to
 * ~2^-22 relative (small keeps 11 of the 13 bits of the residual). big saturates to the
 * largest finite TF32 (.satfinite): then x = +-inf gives small = +-inf (the product stays
 * inf, not inf - inf = NaN), x near FLT_MAX does not round up to inf, and NaN stays NaN. */
TC_HD void tc_split_tf32(float x, unsigned &big, unsigned &small) {
#if TC_HAS_MMA
    asm("cvt.rna.satfinite.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
    small = tc_to_tf32(x - __uint_as_float(big));
#elif defined(__CUDA_ARCH__) /* before sm_80: no mma, never used */
    big = __float_as_uint(x);
    small = 0u;
#else /* host (CPU emulation): the same rounding in integer arithmetic, finite x only */
    const unsigned u = tc_f2u(x);
    big = (u + 0x1000u) & 0xffffe000u;
    small = (tc_f2u(x - tc_u2f(big)) + 0x1000u) & 0xffffe000u;
#endif
}

/* 3xTF32: splits the current stage (raw fp32, OUTER rows of INNER contiguous floats, row
 * stride LDS) once per block into a big and a small plane of the same layout, so that each
 * element is split once instead of once per warp that reads it (4 warps read each A element,
 * 2 each B element). Per 4 elements: one 16-byte load, two 16-byte stores. (Planes, not
 * (big, small) pairs: an mma operand is 4 consecutive registers of big or of small parts, and
 * pairs loaded with one 8-byte read cost a register move per element.) */
template <int OUTER, int INNER, int LDS, int NTHREADS>
TC_HD void tc_split_tile(float *big, float *small, const float *src, int tid, unsigned &gmx,
                         unsigned &gmn) {
    constexpr int CPR = INNER / 4, TOTAL = OUTER * CPR;
    static_assert(TOTAL % NTHREADS == 0, "every thread splits the same number of chunks");
TC_UNROLL
    for (int it = 0; it < TOTAL / NTHREADS; ++it) {
        const int c = tid + it * NTHREADS;
        const int idx = (c / CPR) * LDS + (c % CPR) * 4;
        const float4 x = *(const float4 *)(src + idx);
        unsigned b[4], sm[4];
        tc_split_tf32(x.x, b[0], sm[0]);
        tc_split_tf32(x.y, b[1], sm[1]);
        tc_split_tf32(x.z, b[2], sm[2]);
        tc_split_tf32(x.w, b[3], sm[3]);
        x3g_note(x.x, gmx, gmn); /* the range guard (x3guard.cuh) */
        x3g_note(x.y, gmx, gmn);
        x3g_note(x.z, gmx, gmn);
        x3g_note(x.w, gmx, gmn);
        *(float4 *)(big + idx) =
            make_float4(tc_u2f(b[0]), tc_u2f(b[1]), tc_u2f(b[2]), tc_u2f(b[3]));
        *(float4 *)(small + idx) =
            make_float4(tc_u2f(sm[0]), tc_u2f(sm[1]), tc_u2f(sm[2]), tc_u2f(sm[3]));
    }
}
/* Split planes of one stage: big A at sX, small A at sX + AE, big B at sX + 2 AE, small B at
 * sX + 2 AE + BE (AE, BE: elements of an A / B stage). */
template <class Cfg, bool AKC, bool BKC>
TC_HD void tc_split_stage(float *sX, const float *sA, const float *sB, int tid, unsigned &gmx,
                          unsigned &gmn) {
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    if (AKC)
        tc_split_tile<Cfg::BM, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS>(sX, sX + AE, sA, tid, gmx, gmn);
    else
        tc_split_tile<Cfg::BK, Cfg::BM, Cfg::LD_AM, Cfg::NTHREADS>(sX, sX + AE, sA, tid, gmx, gmn);
    if (BKC)
        tc_split_tile<Cfg::BN, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS>(sX + 2 * AE, sX + 2 * AE + BE,
                                                                 sB, tid, gmx, gmn);
    else
        tc_split_tile<Cfg::BK, Cfg::BN, Cfg::LD_BN, Cfg::NTHREADS>(sX + 2 * AE, sX + 2 * AE + BE,
                                                                  sB, tid, gmx, gmn);
}

#endif
