/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tensor-core GEMM (tc_common.cuh): global -> shared copies. The L2 eviction policies, the
 * cp.async wrappers (16-byte and per-element copies, zeroing, commit / wait) and the stage
 * loaders: one tile of an operand (interior and edge paths, the LEAN addressing) and one
 * k-tile stage of A and B (tc_load_stage).
 */
#ifndef MINIBLAS_GEMM_TC_COPY_CUH
#define MINIBLAS_GEMM_TC_COPY_CUH

#include "tc_config.cuh"

/* ---------------------------------------------------------------------------------------
 * cp.async wrappers.
 * ------------------------------------------------------------------------------------- */
__device__ __forceinline__ unsigned tc_smem_addr(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
}
/* The L2 eviction policy evict_last (LAST) or evict_first (PTX "createpolicy"; ptxas makes it
 * a constant in a uniform register). Rung 14 copies its operands evict_last and stores C
 * evict_first, so that C's lines, written once, leave L2 before the operand lines later tiles
 * read again. */
template <bool LAST>
__device__ __forceinline__ uint64_t tc_l2_policy() {
    uint64_t p = 0;
#if TC_HAS_MMA
    if (LAST)
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(p));
    else
        asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(p));
#endif
    return p;
}
/* 16-byte async copy of 16 bytes that all lie inside the matrix (src 16-byte aligned).
 * Copies never name an address outside the matrix, not even with a zero src-size:
 * compute-sanitizer checks the whole cp-size range, and a partial last chunk of a column
 * would run past the end of the allocation. Edges are copied element by element instead. */
template <bool L2PF = false> /* L2PF: L2 prefetch of the chunk's 128-byte line (as cuBLAS does) */
__host__ __device__ __forceinline__ void tc_cp_async16(void *dst, const void *src) {
#if TC_HAS_MMA
    if (L2PF)
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(
                         tc_smem_addr(dst)),
                     "l"(src)
                     : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(tc_smem_addr(dst)),
                     "l"(src)
                     : "memory");
#elif !defined(__CUDA_ARCH__) /* host: a CPU emulation (never called by the library) */
#ifdef TC_EMU_CHECK_SRC
    TC_EMU_CHECK_SRC(src, 16);
#endif
    for (int b = 0; b < 16; ++b) ((unsigned char *)dst)[b] = ((const unsigned char *)src)[b];
#endif
}
/* One element (4 or 8 bytes) inside the matrix. */
template <int BYTES>
__host__ __device__ __forceinline__ void tc_cp_async_elem(void *dst, const void *src) {
#if TC_HAS_MMA
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(tc_smem_addr(dst)),
                 "l"(src), "n"(BYTES)
                 : "memory");
#elif !defined(__CUDA_ARCH__)
#ifdef TC_EMU_CHECK_SRC
    TC_EMU_CHECK_SRC(src, BYTES);
#endif
    for (int b = 0; b < BYTES; ++b) ((unsigned char *)dst)[b] = ((const unsigned char *)src)[b];
#endif
}
/* Zeros for the parts of a tile outside the matrix: plain shared stores. The stage being
 * filled is not read before the next __syncthreads, which also publishes these stores. */
__host__ __device__ __forceinline__ void tc_zero16(void *dst) {
#ifdef __CUDA_ARCH__
    *(uint4 *)dst = make_uint4(0u, 0u, 0u, 0u);
#else
    for (int b = 0; b < 16; ++b) ((unsigned char *)dst)[b] = 0;
#endif
}
__device__ __forceinline__ void tc_cp_async_commit() {
#if TC_HAS_MMA
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void tc_cp_async_wait() {
#if TC_HAS_MMA
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}
/* ---------------------------------------------------------------------------------------
 * Global -> shared: one tile of OUTER rows x INNER contiguous elements, element (o, i) at
 * g[(o0 + o) * ld + (i0 + i)], valid while o0 + o < olim and i0 + i < ilim (zeros beyond).
 * ------------------------------------------------------------------------------------- */
/* One 16-byte chunk of an edge tile at d, from src: whole when its row is inside the matrix
 * and at least a chunk of the row remains (rem elements), per element when only part of it
 * does (zeros after), else zeros. */
template <typename T>
TC_HD void tc_copy_edge_chunk(T *d, const T *src, bool row_ok, int64_t rem) {
    constexpr int VEC = 16 / (int)sizeof(T);
    if (row_ok && rem >= VEC) {
        tc_cp_async16(d, src);
    } else if (row_ok && rem > 0) { /* last, partial chunk of a row: per element */
TC_UNROLL
        for (int e = 0; e < VEC; ++e) {
            if (e < rem)
                tc_cp_async_elem<(int)sizeof(T)>(d + e, src + e);
            else
                d[e] = T(0);
        }
    } else {
        tc_zero16(d);
    }
}

/* The lean interior copy: a thread's chunks of a tile lie in one column of chunks, ROWS rows
 * apart; dst / src are its first chunk's (row tid / CPR, inner offset VEC (tid % CPR), in a
 * swizzled tile tc_swz of it: the same for all its rows, ROWS being a multiple of 4). */
template <typename T, int OUTER, int INNER, int LDS, int NTHREADS, bool L2PF = false,
          bool SWZ = false>
TC_HD void tc_copy_lean(T *dst, const T *src, int64_t ld) {
    constexpr int CPR = INNER / (16 / (int)sizeof(T)), ROWS = NTHREADS / CPR;
    static_assert(NTHREADS % CPR == 0 && (OUTER * CPR) % NTHREADS == 0, "lean copy");
    static_assert(!SWZ || ROWS % 4 == 0, "a thread's rows share the swizzle");
    const int64_t step = (int64_t)ROWS * ld;
TC_UNROLL
    for (int it = 0; it < OUTER * CPR / NTHREADS; ++it)
        tc_cp_async16<L2PF>(dst + it * ROWS * LDS, src + it * step);
}

template <typename T, int OUTER, int INNER, int LDS, int NTHREADS, bool LEAN = false,
          bool SWZ = false>
TC_HD void tc_load_tile(T *s, const T *g, int64_t ld, int64_t o0, int64_t i0, int64_t olim,
                        int64_t ilim, bool vec16, int tid) {
    constexpr int VEC = 16 / (int)sizeof(T);
    constexpr int CPR = INNER / VEC; /* chunks per row */
    constexpr int TOTAL = OUTER * CPR;
    static_assert(TOTAL % NTHREADS == 0, "every thread copies the same number of chunks");
    /* The lean edge path below: FP64 only (in the FP32 wgmma kernel, at 255 registers, it
     * made the TT instantiation spill and sgemm 4097x4095x4099 TT 8% slower). */
    constexpr bool LEAN_EDGE = LEAN && NTHREADS % CPR == 0 && sizeof(T) == 8;
    if (vec16 && o0 + OUTER <= olim && i0 + INNER <= ilim) {
        /* Interior tile (all of it inside the matrix): no per-chunk bounds checks. */
        const T *gb = g + o0 * ld + i0;
        if constexpr (LEAN && NTHREADS % CPR == 0) {
            /* Each thread's chunks lie in one column of chunks, ROWS rows apart: one base
             * address and one stride (so no per-chunk 64-bit offsets stay live across the
             * k loop). */
            const int o = tid / CPR, i = (tid % CPR) * VEC;
            tc_copy_lean<T, OUTER, INNER, LDS, NTHREADS, false, SWZ>(
                s + o * LDS + tc_swz<SWZ>(o, i), gb + (int64_t)o * ld + i, ld);
        } else {
TC_UNROLL
            for (int it = 0; it < TOTAL / NTHREADS; ++it) {
                const int c = tid + it * NTHREADS;
                const int o = c / CPR, i = (c % CPR) * VEC;
                tc_cp_async16(s + o * LDS + tc_swz<SWZ>(o, i), gb + (int64_t)o * ld + i);
            }
        }
    } else if (vec16 && LEAN_EDGE) {
        /* Edge tile, the lean way: a thread's chunks share one inner offset (so one count of
         * valid elements) and step ROWS rows at a time, so no per-chunk 64-bit index
         * arithmetic (with per-chunk offsets, dgemm 1000x576x704, whose last tile
         * row is an edge, ran at 75% of cuBLAS against 90% for 1024x576x704). */
        constexpr int ROWS = NTHREADS / CPR;
        static_assert(!SWZ || ROWS % 4 == 0, "a thread's rows share the swizzle");
        const int o = tid / CPR, i = (tid % CPR) * VEC;
        const int64_t rem = ilim - (i0 + i); /* valid elements from this thread's chunks on */
        const int64_t step = (int64_t)ROWS * ld;
        int64_t go = o0 + o;
        const T *src = g + go * ld + (i0 + i);
        T *dst = s + o * LDS + tc_swz<SWZ>(o, i);
TC_UNROLL
        for (int it = 0; it < TOTAL / NTHREADS; ++it, go += ROWS, src += step)
            tc_copy_edge_chunk(dst + it * ROWS * LDS, src, go < olim, rem);
    } else if (vec16) {
TC_UNROLL
        for (int it = 0; it < TOTAL / NTHREADS; ++it) {
            const int c = tid + it * NTHREADS;
            const int o = c / CPR, i = (c % CPR) * VEC;
            const int64_t go = o0 + o, gi = i0 + i;
            tc_copy_edge_chunk(s + o * LDS + tc_swz<SWZ>(o, i), g + go * ld + gi, go < olim,
                               ilim - gi);
        }
    } else {
TC_UNROLL
        for (int it = 0; it < TOTAL / NTHREADS; ++it) {
            const int c = tid + it * NTHREADS;
            const int o = c / CPR, i = (c % CPR) * VEC;
            const int64_t go = o0 + o, gi = i0 + i;
            T *d = s + o * LDS + tc_swz<SWZ>(o, i);
TC_UNROLL
            for (int e = 0; e < VEC; ++e) {
                if (go < olim && gi + e < ilim)
                    tc_cp_async_elem<(int)sizeof(T)>(d + e, g + go * ld + gi + e);
                else
                    d[e] = T(0);
            }
        }
    }
}

/* Issues the copies of k-tile kt into stage buffers sA / sB. */
template <class Cfg, bool AKC, bool BKC>
__host__ __device__ __forceinline__ void tc_load_stage(typename Cfg::T *sA, typename Cfg::T *sB,
                                              const mb_gemm_args &p, int64_t m0, int64_t n0,
                                              int64_t kt, bool a_vec, bool b_vec, int tid) {
    typedef typename Cfg::T T;
    const int64_t k0 = kt * Cfg::BK;
    if (AKC) /* op(A)[i][p] = A[p + i*lda]: outer m, inner k */
        tc_load_tile<T, Cfg::BM, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS, Cfg::LEAN, Cfg::SWZ>(
            sA, (const T *)p.A, p.lda, m0, k0, p.m, p.k, a_vec, tid);
    else /* op(A)[i][p] = A[i + p*lda]: outer k, inner m */
        tc_load_tile<T, Cfg::BK, Cfg::BM, Cfg::LD_AM, Cfg::NTHREADS, Cfg::LEAN, Cfg::SWZ>(
            sA, (const T *)p.A, p.lda, k0, m0, p.k, p.m, a_vec, tid);
    if (BKC) /* op(B)[p][j] = B[p + j*ldb]: outer n, inner k */
        tc_load_tile<T, Cfg::BN, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS, Cfg::LEAN, Cfg::SWZ>(
            sB, (const T *)p.B, p.ldb, n0, k0, p.n, p.k, b_vec, tid);
    else /* op(B)[p][j] = B[j + p*ldb]: outer k, inner n */
        tc_load_tile<T, Cfg::BK, Cfg::BN, Cfg::LD_BN, Cfg::NTHREADS, Cfg::LEAN, Cfg::SWZ>(
            sB, (const T *)p.B, p.ldb, k0, n0, p.k, p.n, b_vec, tid);
}

#endif
