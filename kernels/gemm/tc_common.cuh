/*
 * Shared machinery of the tensor-core GEMM rungs (12_dmma, 13_tf32, 14_tf32x3): one tiled,
 * multi-stage cp.async kernel whose inner product is a warp-level mma.sync. The rungs differ
 * only in the element type, the tile shape and the "op" (how a fragment is multiplied):
 *   TC_OP_DMMA   double, mma.sync m16n8k4 .f64 (sm_90; two m8n8k4 on sm_80), fragments of
 *                the next k step loaded while this one's mma run (defaults; tc_cfg's DK,
 *                PIPE and LEAN select m16n8k8 / m16n8k16 and other fragment pipelines)
 *   TC_OP_TF32   float, operands rounded to TF32 (cvt.rna), one m16n8k8 .tf32 per product
 *   TC_OP_TF32X3 float, x = big + small (both TF32; each stage split once per block into a
 *                big and a small plane in shared memory, tc_split_stage), small*big +
 *                big*small + big*big into a fresh accumulator per k step, added to the FP32
 *                accumulator outside the tensor core (round to nearest; tc_warp_mma_x3);
 *                the range guard of x3guard.cuh checks each element as it is split and
 *                leaves tiles with an element outside its range to an FP32 SIMT fixup
 *
 * Layout (column-major after normalisation). Each operand tile is kept in shared memory in the
 * order of its contiguous global dimension, so a 16-byte cp.async copies 16 contiguous bytes:
 *   A, transa = 0: m contiguous  -> sA[BK][BM + PAD_MN]   ("MN-contiguous")
 *   A, transa = 1: k contiguous  -> sA[BM][BK + PAD_K]    ("K-contiguous")
 *   B, transb = 0: k contiguous  -> sB[BN][BK + PAD_K]
 *   B, transb = 1: n contiguous  -> sB[BK][BN + PAD_MN]
 * In both cases a tile is OUTER rows of INNER contiguous elements and element (o, i) of the
 * tile is global element base[o * ld + i]: one loader serves all four cases.
 * The pads make the fragment reads conflict-free (see tc_pads below).
 *
 * Fragments (PTX ISA, "Matrix Fragments for mma.m16n8k8", identical for .tf32 and .f64),
 * g = lane / 4, t = lane % 4:
 *   A (16x8):  a[v] = A[g + 8 * (v & 1)][t + 4 * (v >> 1)],  v = 0..3
 *   B (8x8):   b[v] = B[t + 4 * v][g],                        v = 0..1
 *   C (16x8):  c[v] = C[g + 8 * (v >> 1)][2 * t + (v & 1)],  v = 0..3
 *
 * Alignment: the 16-byte cp.async path is used for an operand only when its base pointer is
 * 16-byte aligned and ld * sizeof(T) is a multiple of 16 (every chunk starts at base + (a
 * multiple of ld) + (a multiple of 16 bytes): tile offsets in m, n and k are multiples of the
 * chunk); otherwise every element is copied with a 4- or 8-byte cp.async. A copy never names
 * an address outside the matrix: the last, partial chunk of a row is copied element by
 * element, and tile parts outside the matrix are zeroed by plain shared-memory stores (no
 * zero-filling cp.async with a dummy source, whose cp-size range compute-sanitizer checks).
 * So partial tiles in m, n and k need no special case. beta == 0: C is never read.
 * Where the alignment allows, the last tile row / column is computed from inside the matrix
 * instead (tc_edge_shift), so its copies take the unchecked interior path too; and a last
 * wave of tiles at most half full is split in k within the launch (mb_tail, splitk.cuh).
 */
#ifndef MINIBLAS_GEMM_TC_COMMON_CUH
#define MINIBLAS_GEMM_TC_COMMON_CUH

#include <string.h> /* memcpy: the host bit casts of the CPU emulation */
#include "../common/common.cuh"
#include "splitk.cuh"
#include "x3guard.cuh"

#define TC_OP_DMMA 0
#define TC_OP_TF32 1
#define TC_OP_TF32X3 2

/* FP64 fragment pipelines (tc_cfg::PIPE):
 *   TC_PIPE_STEP2   the fragments of k step s + 1 (all MI x NI tiles) are loaded before the
 *                   mma of step s (two register sets); barrier at the top of each stage
 *   TC_PIPE_STEP1   one register set: a step's fragments are loaded, then its mma (ptxas
 *                   schedules what it can); barrier at the top of each stage
 *   TC_PIPE_STREAM  A fragments of a step held, B fragments streamed one n tile ahead, the
 *                   next step's A (and the next stage's first step, after the barrier, which
 *                   sits before the stage's last mma column) loaded during the last column:
 *                   tc_mainloop_f64_stream
 *   TC_PIPE_XMMA    m16n8k8, BK = 16: the fragments for the next k step, the stage's
 *                   copies, the wait and the barrier all among the mma (cuBLAS's schedule):
 *                   tc_mainloop_f64_xmma; tiles it cannot take (edges that cannot be
 *                   shifted, k not a multiple of BK, unaligned operands) run the STEP1 loop */
#define TC_PIPE_STEP2 0
#define TC_PIPE_STEP1 1
#define TC_PIPE_STREAM 2
#define TC_PIPE_XMMA 3

/* ---------------------------------------------------------------------------------------
 * Tile configuration.
 * BM x BN block tile, BK deep; warps WARPS_M x WARPS_N, each WM x WN (MI x NI mma tiles of
 * 16 x 8); STAGES shared-memory buffers in flight; MINB_ blocks per SM asked of ptxas.
 * ------------------------------------------------------------------------------------- */
template <typename T_, int BM_, int BN_, int BK_, int WM_, int WN_, int STAGES_, int MINB_,
          int DK_ = 4, int PIPE_ = TC_PIPE_STEP2, bool LEAN_ = false>
struct tc_cfg {
    typedef T_ T;
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
    static constexpr int MIN_BLOCKS = MINB_; /* __launch_bounds__ blocks per SM */
    /* FP64 only (TC_OP_DMMA; the TF32 ops require the defaults): DK = k depth of one
     * mma.sync .f64 (4, 8 or 16: m16n8k4 / m16n8k8 / m16n8k16) and PIPE = how its fragments
     * are fed (TC_PIPE_*, see tc_warp_mma and tc_mainloop_f64_stream). */
    static constexpr int DK = DK_, PIPE = PIPE_;
    /* Any op: LEAN = the copies of an interior tile from one base address and one row stride
     * per thread (tc_load_tile), fewer registers live across the k loop. */
    static constexpr bool LEAN = LEAN_;
    static_assert(DK == 4 || DK == 8 || DK == 16, "FP64 mma depth: 4, 8 or 16");
    static_assert(PIPE >= TC_PIPE_STEP2 && PIPE <= TC_PIPE_XMMA, "fragment pipeline");
    static_assert(BK % DK == 0, "BK must be a multiple of the mma depth");
    static constexpr int WARPS_M = BM / WM, WARPS_N = BN / WN;
    static constexpr int NWARPS = WARPS_M * WARPS_N, NTHREADS = 32 * NWARPS;
    /* The tail split (splitk.cuh, mb_tail) only where a thread may hold 255 registers: its
     * few extra live values made the 3- and 4-block tiles spill (168 / 128 registers). */
    static constexpr bool TAIL = NTHREADS * MIN_BLOCKS <= 256;
    static constexpr int MI = WM / 16, NI = WN / 8, KSTEP = 8;
    static constexpr int VEC = 16 / (int)sizeof(T); /* elements per 16-byte chunk */
    /* Pads (elements). A fragment read touches rows r0 + g (8 of them) at columns c0 + t
     * (4 of them) of a tile. MN-contiguous: address t * LD + g; K-contiguous: g * LD + t.
     * float: 32 distinct banks when LD % 32 == 8 (MN) or LD % 32 == 4 (K).
     * double (a half-warp per shared-memory wavefront: g in 0..3 or 4..7, t in 0..3): 16
     * distinct 8-byte bank pairs when LD % 16 == 4 in both cases. */
    static constexpr int PAD_MN = sizeof(T) == 4 ? 8 : 4;
    static constexpr int PAD_K = 4;
    static constexpr int LD_AM = BM + PAD_MN, LD_BN = BN + PAD_MN, LD_K = BK + PAD_K;
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "warp tiling");
    static_assert(BK % KSTEP == 0 && BK % VEC == 0 && BM % VEC == 0 && BN % VEC == 0, "tile");
    static_assert(sizeof(T) == 4 ? (LD_AM % 32 == 8 && LD_BN % 32 == 8 && LD_K % 32 == 4)
                                 : (LD_AM % 16 == 4 && LD_BN % 16 == 4 && LD_K % 16 == 4),
                  "pads must keep fragment reads conflict-free");
    static_assert((LD_AM * sizeof(T)) % 16 == 0 && (LD_BN * sizeof(T)) % 16 == 0 &&
                      (LD_K * sizeof(T)) % 16 == 0,
                  "shared rows must stay 16-byte aligned for cp.async");
    /* Elements of one stage of A / B in each layout. */
    static constexpr int a_elems(bool akc) { return akc ? BM * LD_K : BK * LD_AM; }
    static constexpr int b_elems(bool bkc) { return bkc ? BN * LD_K : BK * LD_BN; }
    /* 3xTF32 adds one split copy of the current stage: a plane of big and a plane of small
     * parts, each in the stage's layout (same pads, so fragment reads stay conflict-free). */
    static constexpr size_t smem_bytes(bool akc, bool bkc, bool split = false) {
        return (size_t)STAGES * (size_t)(a_elems(akc) + b_elems(bkc)) * sizeof(T) +
               (split ? (size_t)2 * (size_t)(a_elems(akc) + b_elems(bkc)) * sizeof(T) : 0);
    }
};

/* ---------------------------------------------------------------------------------------
 * Index helpers (host and device, so a CPU emulation can check them).
 * ------------------------------------------------------------------------------------- */
/* Shared index of A element (row m, col k) of the tile; AKC: A is K-contiguous. */
template <class Cfg, bool AKC>
__host__ __device__ __forceinline__ int tc_sa_index(int m, int k) {
    return AKC ? m * Cfg::LD_K + k : k * Cfg::LD_AM + m;
}
/* Shared index of B element (row k, col n) of the tile; BKC: B is K-contiguous. */
template <class Cfg, bool BKC>
__host__ __device__ __forceinline__ int tc_sb_index(int k, int n) {
    return BKC ? n * Cfg::LD_K + k : k * Cfg::LD_BN + n;
}
/* Fragment coordinates inside one 16x8x8 mma tile (see the header comment). */
#define TC_HD __host__ __device__ __forceinline__
TC_HD int tc_frag_a_row(int lane, int v) { return (lane >> 2) + 8 * (v & 1); }
TC_HD int tc_frag_a_col(int lane, int v) { return (lane & 3) + 4 * (v >> 1); }
TC_HD int tc_frag_b_row(int lane, int v) { return (lane & 3) + 4 * v; }
TC_HD int tc_frag_b_col(int lane) { return lane >> 2; }
TC_HD int tc_frag_c_row(int lane, int v) { return (lane >> 2) + 8 * (v >> 1); }
TC_HD int tc_frag_c_col(int lane, int v) { return 2 * (lane & 3) + (v & 1); }

/* Block tile of a linear tile index: groups of GROUP_M tile-rows are walked column by column,
 * so blocks running at the same time share A panels and B panels in L2. */
#define TC_GROUP_M 8
__host__ __device__ __forceinline__ void tc_tile_coords(int64_t tile, int64_t ntm, int64_t ntn,
                                                        int64_t *tm, int64_t *tn) {
    int64_t per_group = (int64_t)TC_GROUP_M * ntn;
    int64_t first = (tile / per_group) * TC_GROUP_M;
    int64_t gsz = ntm - first < TC_GROUP_M ? ntm - first : TC_GROUP_M;
    int64_t r = tile % per_group;
    *tm = first + r % gsz;
    *tn = r / gsz;
}

/* Where tile (tm, tn) sits: it owns rows [r0, r0 + BM) and columns [c0, c0 + BN) of C
 * (clipped to the matrix) and is computed from (m0, n0), moved inside the matrix along the
 * dimensions whose bit `shift` sets (tc_edge_shift). */
template <class Cfg>
TC_HD void tc_tile_place(int64_t tm, int64_t tn, int64_t m, int64_t n, int shift, int64_t *r0,
                         int64_t *c0, int64_t *m0, int64_t *n0) {
    *r0 = tm * Cfg::BM;
    *c0 = tn * Cfg::BN;
    *m0 = (shift & 1) && *r0 + Cfg::BM > m ? m - Cfg::BM : *r0;
    *n0 = (shift & 2) && *c0 + Cfg::BN > n ? n - Cfg::BN : *c0;
}

/* ---------------------------------------------------------------------------------------
 * PTX wrappers.
 * ------------------------------------------------------------------------------------- */
/* #pragma unroll inside __host__ __device__ functions (the host compiler would warn). */
#ifdef __CUDA_ARCH__
#define TC_UNROLL _Pragma("unroll")
#else
#define TC_UNROLL
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TC_HAS_MMA 1
#else
#define TC_HAS_MMA 0
#endif

__device__ __forceinline__ unsigned tc_smem_addr(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
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
 * apart; dst / src are its first chunk's (row tid / CPR, inner offset VEC (tid % CPR)). */
template <typename T, int OUTER, int INNER, int LDS, int NTHREADS, bool L2PF = false>
TC_HD void tc_copy_lean(T *dst, const T *src, int64_t ld) {
    constexpr int CPR = INNER / (16 / (int)sizeof(T)), ROWS = NTHREADS / CPR;
    static_assert(NTHREADS % CPR == 0 && (OUTER * CPR) % NTHREADS == 0, "lean copy");
    const int64_t step = (int64_t)ROWS * ld;
TC_UNROLL
    for (int it = 0; it < OUTER * CPR / NTHREADS; ++it)
        tc_cp_async16<L2PF>(dst + it * ROWS * LDS, src + it * step);
}

template <typename T, int OUTER, int INNER, int LDS, int NTHREADS, bool LEAN = false>
TC_HD void tc_load_tile(T *s, const T *g, int64_t ld, int64_t o0, int64_t i0, int64_t olim,
                        int64_t ilim, bool vec16, int tid) {
    constexpr int VEC = 16 / (int)sizeof(T);
    constexpr int CPR = INNER / VEC; /* chunks per row */
    constexpr int TOTAL = OUTER * CPR;
    static_assert(TOTAL % NTHREADS == 0, "every thread copies the same number of chunks");
    /* The lean edge path below: FP64 only (in the FP32 wgmma kernel, at 255 registers, it
     * made the TT instantiation spill and sgemm 4097x4095x4099 TT 8% slower, run 16). */
    constexpr bool LEAN_EDGE = LEAN && NTHREADS % CPR == 0 && sizeof(T) == 8;
    if (vec16 && o0 + OUTER <= olim && i0 + INNER <= ilim) {
        /* Interior tile (all of it inside the matrix): no per-chunk bounds checks. */
        const T *gb = g + o0 * ld + i0;
        if constexpr (LEAN && NTHREADS % CPR == 0) {
            /* Each thread's chunks lie in one column of chunks, ROWS rows apart: one base
             * address and one stride (so no per-chunk 64-bit offsets stay live across the
             * k loop). */
            const int o = tid / CPR, i = (tid % CPR) * VEC;
            tc_copy_lean<T, OUTER, INNER, LDS, NTHREADS>(s + o * LDS + i,
                                                         gb + (int64_t)o * ld + i, ld);
        } else {
TC_UNROLL
            for (int it = 0; it < TOTAL / NTHREADS; ++it) {
                const int c = tid + it * NTHREADS;
                const int o = c / CPR, i = (c % CPR) * VEC;
                tc_cp_async16(s + o * LDS + i, gb + (int64_t)o * ld + i);
            }
        }
    } else if (vec16 && LEAN_EDGE) {
        /* Edge tile, the lean way: a thread's chunks share one inner offset (so one count of
         * valid elements) and step ROWS rows at a time, so no per-chunk 64-bit index
         * arithmetic (session 6: with per-chunk offsets, dgemm 1000x576x704, whose last tile
         * row is an edge, ran at 75% of cuBLAS against 90% for 1024x576x704). */
        constexpr int ROWS = NTHREADS / CPR;
        const int o = tid / CPR, i = (tid % CPR) * VEC;
        const int64_t rem = ilim - (i0 + i); /* valid elements from this thread's chunks on */
        const int64_t step = (int64_t)ROWS * ld;
        int64_t go = o0 + o;
        const T *src = g + go * ld + (i0 + i);
        T *dst = s + o * LDS + i;
TC_UNROLL
        for (int it = 0; it < TOTAL / NTHREADS; ++it, go += ROWS, src += step)
            tc_copy_edge_chunk(dst + it * ROWS * LDS, src, go < olim, rem);
    } else if (vec16) {
TC_UNROLL
        for (int it = 0; it < TOTAL / NTHREADS; ++it) {
            const int c = tid + it * NTHREADS;
            const int o = c / CPR, i = (c % CPR) * VEC;
            const int64_t go = o0 + o, gi = i0 + i;
            tc_copy_edge_chunk(s + o * LDS + i, g + go * ld + gi, go < olim, ilim - gi);
        }
    } else {
TC_UNROLL
        for (int it = 0; it < TOTAL / NTHREADS; ++it) {
            const int c = tid + it * NTHREADS;
            const int o = c / CPR, i = (c % CPR) * VEC;
            const int64_t go = o0 + o, gi = i0 + i;
            T *d = s + o * LDS + i;
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
        tc_load_tile<T, Cfg::BM, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS, Cfg::LEAN>(
            sA, (const T *)p.A, p.lda, m0, k0, p.m, p.k, a_vec, tid);
    else /* op(A)[i][p] = A[i + p*lda]: outer k, inner m */
        tc_load_tile<T, Cfg::BK, Cfg::BM, Cfg::LD_AM, Cfg::NTHREADS, Cfg::LEAN>(
            sA, (const T *)p.A, p.lda, k0, m0, p.k, p.m, a_vec, tid);
    if (BKC) /* op(B)[p][j] = B[p + j*ldb]: outer n, inner k */
        tc_load_tile<T, Cfg::BN, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS, Cfg::LEAN>(
            sB, (const T *)p.B, p.ldb, n0, k0, p.n, p.k, b_vec, tid);
    else /* op(B)[p][j] = B[j + p*ldb]: outer k, inner n */
        tc_load_tile<T, Cfg::BK, Cfg::BN, Cfg::LD_BN, Cfg::NTHREADS, Cfg::LEAN>(
            sB, (const T *)p.B, p.ldb, k0, n0, p.k, p.n, b_vec, tid);
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

/* Warp tile product on k steps [S0, S1) of one stage (steps of 8 for TF32, of Cfg::DK for FP64), so
 * that the kernel can issue the next stage's copies after the first step's mma (the copies'
 * address arithmetic then overlaps tensor-core work instead of preceding it). */
template <class Cfg, int OP, bool AKC, bool BKC, int S0, int S1>
__device__ __forceinline__ void tc_warp_mma(typename Cfg::T (&acc)[Cfg::MI][Cfg::NI][4],
                                            const typename Cfg::T *sA, const typename Cfg::T *sB,
                                            int wm0, int wn0, int lane) {
    typedef typename Cfg::T T;
    if constexpr (OP == TC_OP_DMMA) {
        /* FP64: 16x8xDK steps (DK = 4 KQ), fully unrolled. TC_PIPE_STEP2 (the default, with
         * DK = 4): fragments double-buffered in registers, the LDS of step s + 1 issued before
         * the MI x NI independent mma of step s, so the tensor pipe never waits on a
         * shared-memory load inside a stage. (Two register sets of m16n8k8 fragments need ~96
         * registers on top of the 128 accumulator registers of a 32x64 warp tile, of m16n8k16
         * ~192: they spill; m16n8k4 needs 48.) TC_PIPE_STEP1: one set, load then mma (also the
         * loop of the tiles a TC_PIPE_XMMA kernel cannot run on tc_mainloop_f64_xmma). */
        constexpr int KQ = Cfg::DK / 4;
        if constexpr (Cfg::PIPE == TC_PIPE_STEP1 || Cfg::PIPE == TC_PIPE_XMMA) {
#pragma unroll
            for (int s = S0; s < S1; ++s) {
                double a[Cfg::MI][2 * KQ], b[Cfg::NI][KQ];
                tc_gather_a_f64<Cfg, AKC, KQ>(a, (const double *)sA, wm0, Cfg::DK * s, lane);
                tc_gather_b_f64<Cfg, BKC, KQ>(b, (const double *)sB, wn0, Cfg::DK * s, lane);
#pragma unroll
                for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < Cfg::NI; ++ni)
                        tc_mma_f64<KQ>((double *)acc[mi][ni], a[mi], b[ni]);
            }
        } else {
            double a[2][Cfg::MI][2 * KQ], b[2][Cfg::NI][KQ];
            tc_gather_a_f64<Cfg, AKC, KQ>(a[S0 & 1], (const double *)sA, wm0, Cfg::DK * S0,
                                          lane);
            tc_gather_b_f64<Cfg, BKC, KQ>(b[S0 & 1], (const double *)sB, wn0, Cfg::DK * S0,
                                          lane);
#pragma unroll
            for (int s = S0; s < S1; ++s) {
                if (s + 1 < S1) {
                    tc_gather_a_f64<Cfg, AKC, KQ>(a[(s + 1) & 1], (const double *)sA, wm0,
                                                  Cfg::DK * (s + 1), lane);
                    tc_gather_b_f64<Cfg, BKC, KQ>(b[(s + 1) & 1], (const double *)sB, wn0,
                                                  Cfg::DK * (s + 1), lane);
                }
#pragma unroll
                for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < Cfg::NI; ++ni)
                        tc_mma_f64<KQ>((double *)acc[mi][ni], a[s & 1][mi], b[s & 1][ni]);
            }
        }
    } else {
        /* TF32. Unrolled by 2, not fully: full unrolling lets ptxas hoist the fragment loads
         * of every k step and the kernel runs out of registers. */
#pragma unroll 2
        for (int kk = S0 * Cfg::KSTEP; kk < S1 * Cfg::KSTEP; kk += Cfg::KSTEP) {
            T a[Cfg::MI][4], b[Cfg::NI][2];
            tc_gather_a<Cfg, AKC>(a, sA, wm0, kk, lane);
            tc_gather_b<Cfg, BKC>(b, sB, wn0, kk, lane);
            unsigned ta[Cfg::MI][4], tb[Cfg::NI][2];
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                for (int v = 0; v < 4; ++v) ta[mi][v] = tc_to_tf32(a[mi][v]);
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 2; ++v) tb[ni][v] = tc_to_tf32(b[ni][v]);
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32(acc[mi][ni], ta[mi], tb[ni]);
        }
    }
}

/* 3xTF32 on one stage. The tensor core's FP32 accumulation is not round-to-nearest (the
 * aligned addends are truncated and the sum is rounded toward zero), so an accumulator that
 * lives in mma for the whole K drifts toward zero by a fraction of an ulp per mma: an error
 * that grows linearly with K (measured on an H200 with that design: 12x cuBLAS FP32 SGEMM's
 * error at K = 256, 26x at K = 4096). Instead, every k step (8 deep), the
 * products of a 16x8 tile go into a fresh accumulator t, small cross terms first and the large
 * product last; t (an 8..16-term partial sum, whose truncation errors have random sign) is then
 * added to acc with ordinary round-to-nearest FP32 adds outside the tensor core (Ootomo and
 * Yokota 2022). A CPU model of the arithmetic (exact products, addends aligned and truncated,
 * sum rounded toward zero; it reproduces the linear growth measured), K = 256 / 4096, inputs
 * uniform in [-1, 1]: relative Frobenius error 1.4e-7 / 4.1e-7 with a fresh t per k step,
 * 1.7..2.4e-7 / 3.3..3.6e-7 with one per 2 k steps (half the FADDs; not used),
 * 3.0e-7 / 1.2e-6 for a sequential FP32 FMA loop
 * (cuBLAS FP32 SGEMM on the H200: 1.5e-7 / 1.1e-6; the test allows 2x cuBLAS).
 * Operands come from the split planes (tc_split_stage). */
template <class Cfg, bool AKC, bool BKC, int S0, int S1>
__device__ __forceinline__ void tc_warp_mma_x3(float (&acc)[Cfg::MI][Cfg::NI][4], const float *sX,
                                               int wm0, int wn0, int lane) {
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    const float *sAb = sX, *sAs = sX + AE, *sBb = sX + 2 * AE, *sBs = sX + 2 * AE + BE;
    /* Per k step, the three products of all MI x NI tiles are issued pass by pass (small*big
     * of every tile, then big*small of every tile, then big*big), so dependent mma are
     * MI x NI = 16 instructions apart and the tensor pipe never waits on its own result (the
     * run-3 version did one 16-row tile at a time: chains of 3 dependent mma only NI = 4
     * apart, then the FADDs waiting on the last). Per tile the arithmetic and its order are
     * unchanged: t = as*bb (fresh accumulator) + ab*bs + ab*bb, then acc += t in FP32.
     * Registers: 64 accumulators, 64 partial sums t, 48 fragment registers. Not unrolled:
     * unrolling lets ptxas hoist the next step's fragment loads and the kernel spills. */
#pragma unroll 1
    for (int k0 = S0 * Cfg::KSTEP; k0 < S1 * Cfg::KSTEP; k0 += Cfg::KSTEP) {
        float fb[Cfg::NI][2], fa[4];
        unsigned bb[Cfg::NI][2], bs[Cfg::NI][2], ab[Cfg::MI][4], as[Cfg::MI][4];
        tc_gather_b<Cfg, BKC>(fb, sBb, wn0, k0, lane);
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 2; ++v) bb[ni][v] = __float_as_uint(fb[ni][v]);
        tc_gather_b<Cfg, BKC>(fb, sBs, wn0, k0, lane);
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 2; ++v) bs[ni][v] = __float_as_uint(fb[ni][v]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi) {
            tc_gather_a1<Cfg, AKC>(fa, sAb, wm0, mi, k0, lane);
#pragma unroll
            for (int v = 0; v < 4; ++v) ab[mi][v] = __float_as_uint(fa[v]);
            tc_gather_a1<Cfg, AKC>(fa, sAs, wm0, mi, k0, lane);
#pragma unroll
            for (int v = 0; v < 4; ++v) as[mi][v] = __float_as_uint(fa[v]);
        }
        float t[Cfg::MI][Cfg::NI][4];
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32_zero(t[mi][ni], as[mi], bb[ni]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32(t[mi][ni], ab[mi], bs[ni]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32(t[mi][ni], ab[mi], bb[ni]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[mi][ni][v] += t[mi][ni][v];
    }
}

/* FP64 main loop of one block tile with TC_PIPE_STREAM (after the prologue has committed
 * STAGES - 1 groups). Per k step of DK: the A fragments of the warp's MI row tiles are held;
 * the mma go column by column (MI mma per n tile), each column's B fragment loaded one column
 * ahead; during the last column the next step's A and first B fragments are loaded. At the
 * last column of a stage the loads come from the next stage, so the wait and the barrier sit
 * there: every fragment of the current stage is then already in registers (all warps are done
 * reading it: its buffer may be refilled after the barrier), and the mma of that last column
 * need no shared-memory load, so they can issue right after the barrier while the next
 * stage's first fragments load (CUTLASS's multistage main loop does the same). The barrier at
 * the top of each stage (and the LDS latency after it) goes. Fragment registers: 2 x A (2 x
 * MI x 2 DK / 4 doubles) + 2 x one B column (2 x DK / 4): 80 for m16n8k16 and MI = 2.
 * Copies of k-tile kt + STAGES - 1 go to the buffer of k-tile kt - 1 (free since the
 * barrier in the last column of k-tile kt - 1), issued after the first column's mma (or at
 * the top of the stage when it has a single k step). */
template <class Cfg, bool AKC, bool BKC>
__device__ __forceinline__ void tc_mainloop_f64_stream(double (&acc)[Cfg::MI][Cfg::NI][4],
                                                       double *sA, double *sB,
                                                       const mb_gemm_args &p, int64_t m0,
                                                       int64_t n0, int64_t KT, bool a_vec,
                                                       bool b_vec, int tid, int wm0, int wn0,
                                                       int lane) {
    constexpr int KQ = Cfg::DK / 4, NS = Cfg::BK / Cfg::DK, S = Cfg::STAGES;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    constexpr int MI = Cfg::MI, NI = Cfg::NI;
    double a_cur[MI][2 * KQ], a_nxt[MI][2 * KQ], b_cur[KQ], b_nxt[KQ];
    /* Groups committed: STAGES - 1; k-tile 0 is group 0. */
    tc_cp_async_wait<S - 2>();
    __syncthreads();
    tc_gather_a_f64<Cfg, AKC, KQ>(a_cur, sA, wm0, 0, lane);
    tc_gather_b1_f64<Cfg, BKC, KQ>(b_cur, sB, wn0, 0, 0, lane);
    int cs = 0, ls = S - 1; /* buffers of k-tiles kt and kt + S - 1 (= kt - 1 mod S) */
    for (int64_t kt = 0; kt < KT; ++kt) {
        const double *cA = sA + cs * AE, *cB = sB + cs * BE;
        const int ns = cs + 1 == S ? 0 : cs + 1;
        const int64_t nk = kt + S - 1;
        /* Column ni of k step s: prefetch, then the MI mma of the column. */
        auto column = [&](int s, int ni) {
            if (ni + 1 < NI) {
                tc_gather_b1_f64<Cfg, BKC, KQ>(b_nxt, cB, wn0, ni + 1, Cfg::DK * s, lane);
            } else if (s + 1 < NS) {
                tc_gather_a_f64<Cfg, AKC, KQ>(a_nxt, cA, wm0, Cfg::DK * (s + 1), lane);
                tc_gather_b1_f64<Cfg, BKC, KQ>(b_nxt, cB, wn0, 0, Cfg::DK * (s + 1), lane);
            } else if (kt + 1 < KT) {
                /* Groups committed: S - 1 + kt + 1; k-tile kt + 1 is group kt + 1. */
                tc_cp_async_wait<S - 2>();
                __syncthreads();
                tc_gather_a_f64<Cfg, AKC, KQ>(a_nxt, sA + ns * AE, wm0, 0, lane);
                tc_gather_b1_f64<Cfg, BKC, KQ>(b_nxt, sB + ns * BE, wn0, 0, 0, lane);
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) tc_mma_f64<KQ>(acc[mi][ni], a_cur[mi], b_cur);
#pragma unroll
            for (int v = 0; v < KQ; ++v) b_cur[v] = b_nxt[v];
            if (ni + 1 == NI) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                    for (int v = 0; v < 2 * KQ; ++v) a_cur[mi][v] = a_nxt[mi][v];
            }
        };
        /* The copies stay out of the unrolled column loop (its body would grow past what
         * the compiler unrolls fully, and the fragment arrays would go to local memory). */
        if constexpr (NS == 1) {
            if (nk < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0, nk, a_vec,
                                             b_vec, tid);
            tc_cp_async_commit();
        }
        column(0, 0);
        if constexpr (NS > 1) {
            if (nk < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0, nk, a_vec,
                                             b_vec, tid);
            tc_cp_async_commit();
        }
#pragma unroll
        for (int c = 1; c < NS * NI; ++c) column(c / NI, c % NI);
        cs = ns;
        ls = ls + 1 == S ? 0 : ls + 1;
    }
}

/* FP64 main loop with TC_PIPE_XMMA, after the SASS of cuBLAS's own kernel for this tile
 * (sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize128x64x16_stage3_warpsize2x2x1_tensor16x8x8),
 * for tiles wholly inside the matrix, k a multiple of BK = 2 DK, 16-byte copies. The STEP
 * loops load all of a k step's fragments (24 LDS.64 for a 64x32 warp tile), then issue its 16
 * mma, with the barrier and a branch around the copies between: while a warp loads, waits or
 * computes addresses its tensor pipe idles, unless the SM's other block happens to be
 * computing. Here each warp keeps the pipe fed by itself:
 *   step 0: after mma (0, 0) the last row tile's A fragment of this step and the B fragments
 *           of step 1; after mma (mi, 0), mi >= 1, row tile mi - 1's A for step 1; after
 *           mma (1, 0) the copies of k-tile kt + 2 (lean; L2 prefetch of 128 bytes, as
 *           cuBLAS's copies do);
 *   step 1: after mma (0, 0) the last row tile's A for step 1; after mma (1, 0) wait for
 *           k-tile kt + 1, the barrier, the B and row tile 0's A fragments of the next
 *           stage's step 0; after mma (mi, 0), mi >= 2, row tile mi - 1's.
 * Every read of stage kt precedes the barrier of iteration kt, so the copies of iteration
 * kt + 1 may refill it; every read of stage kt + 1 follows it. The copies have no branch
 * (past the last k-tile it is copied again, into a buffer nothing reads), so ptxas spreads
 * them among the mma, and the loop is unrolled by the S stages so every buffer offset is a
 * constant. Session 9 (H100, ncu at base clocks, 4096^3 NN): tensor pipe busy 84% of the
 * cycles with the STEP loop, 93% with this one (cuBLAS 98%); the rest is mostly loads that
 * wait for the mma reading the register they overwrite (ptxas places each load right after
 * that mma) and the copies' address chain. miniblas-bench: 4096 / 8192 from 84-89 / 88-90%
 * of cuBLAS to 95-98 / 97-99%; 2048 83 -> 94%, 2560 91 -> 101%. */
template <class Cfg, bool AKC, bool BKC>
__device__ __forceinline__ void tc_mainloop_f64_xmma(double (&acc)[Cfg::MI][Cfg::NI][4],
                                                     double *sA, double *sB,
                                                     const mb_gemm_args &p, int64_t m0,
                                                     int64_t n0, int64_t KT, int tid, int wm0,
                                                     int wn0, int lane) {
    static_assert(Cfg::DK == 8 && Cfg::BK == 16 && Cfg::MI >= 2, "XMMA: two m16n8k8 steps");
    constexpr int S = Cfg::STAGES, BK = Cfg::BK, MI = Cfg::MI, NI = Cfg::NI;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    /* Copies: the lean interior path of tc_load_tile; a thread's first chunk of A is in
     * row ao (of the tile's outer dimension) at inner offset ai, likewise for B. */
    constexpr int A_OUT = AKC ? Cfg::BM : BK, A_IN = AKC ? BK : Cfg::BM;
    constexpr int A_LDS = AKC ? Cfg::LD_K : Cfg::LD_AM;
    constexpr int B_OUT = BKC ? Cfg::BN : BK, B_IN = BKC ? BK : Cfg::BN;
    constexpr int B_LDS = BKC ? Cfg::LD_K : Cfg::LD_BN;
    const int ao = tid / (A_IN / 2), ai = tid % (A_IN / 2) * 2;
    const int bo = tid / (B_IN / 2), bi = tid % (B_IN / 2) * 2;
    /* Global sources of k-tile S - 1, the first the loop copies (or of the last k-tile, when
     * there are fewer), and the step per k-tile. */
    const int64_t adv_a = AKC ? BK : BK * p.lda, adv_b = BKC ? BK : BK * p.ldb;
    const int64_t k1 = KT < S ? KT - 1 : S - 1;
    const double *ga = (const double *)p.A +
                       (AKC ? (m0 + ao) * p.lda + ai : ao * p.lda + m0 + ai) + k1 * adv_a;
    const double *gb = (const double *)p.B +
                       (BKC ? (n0 + bo) * p.ldb + bi : bo * p.ldb + n0 + bi) + k1 * adv_b;
    double *da = sA + ao * A_LDS + ai, *db = sB + bo * B_LDS + bi;

    double a0[MI][4], a1[MI][4], b0[NI][2], b1[NI][2];
    auto mma0 = [&](int mi, int n_lo, int n_hi) {
#pragma unroll
        for (int ni = n_lo; ni < n_hi; ++ni) tc_mma_f64<2>(acc[mi][ni], a0[mi], b0[ni]);
    };
    auto mma1 = [&](int mi, int n_lo, int n_hi) {
#pragma unroll
        for (int ni = n_lo; ni < n_hi; ++ni) tc_mma_f64<2>(acc[mi][ni], a1[mi], b1[ni]);
    };
    /* Groups committed: S - 1 (the prologue); k-tile 0 is group 0. */
    tc_cp_async_wait<S - 2>();
    __syncthreads();
#pragma unroll
    for (int mi = 0; mi < MI - 1; ++mi) tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi], sA, wm0, mi, 0, lane);
    tc_gather_b_f64<Cfg, BKC, 2>(b0, sB, wn0, 0, lane);
    /* One k-tile in stage buffer cs (copies into buffer (cs + S - 1) % S); unrolled by S below
     * so that every buffer offset is a constant (fewer live registers). */
    auto tile = [&](int64_t kt, int cs) {
        const int ns = (cs + 1) % S, ls = (cs + S - 1) % S;
        const double *cA = sA + cs * AE, *cB = sB + cs * BE;
        const double *nA = sA + ns * AE, *nB = sB + ns * BE;
        /* step 0 */
        mma0(0, 0, 1);
        tc_gather_a1_f64<Cfg, AKC, 2>(a0[MI - 1], cA, wm0, MI - 1, 0, lane);
        tc_gather_b_f64<Cfg, BKC, 2>(b1, cB, wn0, 8, lane);
        mma0(0, 1, NI);
#pragma unroll
        for (int mi = 1; mi < MI; ++mi) {
            mma0(mi, 0, 1);
            tc_gather_a1_f64<Cfg, AKC, 2>(a1[mi - 1], cA, wm0, mi - 1, 8, lane);
            if (mi == 1) {
                /* No branch, so that ptxas may spread the copies among the mma: past the
                 * last k-tile the last one is copied again, into a buffer nothing reads. */
                tc_copy_lean<double, A_OUT, A_IN, A_LDS, Cfg::NTHREADS, true>(da + ls * AE, ga,
                                                                              p.lda);
                tc_copy_lean<double, B_OUT, B_IN, B_LDS, Cfg::NTHREADS, true>(db + ls * BE, gb,
                                                                              p.ldb);
                tc_cp_async_commit();
                if (kt + S < KT) {
                    ga += adv_a;
                    gb += adv_b;
                }
            }
            mma0(mi, 1, NI);
        }
        /* step 1 */
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            mma1(mi, 0, 1);
            if (mi == 0) {
                tc_gather_a1_f64<Cfg, AKC, 2>(a1[MI - 1], cA, wm0, MI - 1, 8, lane);
            } else if (mi == 1) {
                /* Groups committed: S - 1 + kt + 1; k-tile kt + 1 is group kt + 1. */
                tc_cp_async_wait<S - 2>();
                __syncthreads();
                tc_gather_b_f64<Cfg, BKC, 2>(b0, nB, wn0, 0, lane);
                tc_gather_a1_f64<Cfg, AKC, 2>(a0[0], nA, wm0, 0, 0, lane);
            } else {
                tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi - 1], nA, wm0, mi - 1, 0, lane);
            }
            mma1(mi, 1, NI);
        }
    };
    for (int64_t kt = 0; kt < KT; kt += S) {
#pragma unroll
        for (int j = 0; j < S; ++j)
            if (kt + j < KT) tile(kt + j, j);
    }
}

/* ---------------------------------------------------------------------------------------
 * The kernel. One block per BM x BN tile of C (tiles beyond the grid are looped over).
 * ------------------------------------------------------------------------------------- */
template <class Cfg, int OP, bool AKC, bool BKC, bool SPLIT>
__global__ void __launch_bounds__(Cfg::NTHREADS, Cfg::MIN_BLOCKS)
    tc_gemm_kernel(mb_gemm_args p, bool a_vec, bool b_vec, int64_t kc, int shift, mb_tail tail,
                   x3g g) {
    typedef typename Cfg::T T;
    /* 3xTF32 (range guard, x3guard.cuh): every split-K slice, slice 0 too, writes alpha times
     * its partial to a slab (slab s), so that C stays intact for the fixup; p.work is the
     * workspace after the guard's bytes. */
    constexpr bool X3 = OP == TC_OP_TF32X3;
    if (SPLIT && X3) {
        p = mb_splitk_slice<T>(p, blockIdx.y, kc);
        p.C = (T *)p.work + (int64_t)blockIdx.y * p.m * p.n;
        p.ldc = p.m;
        p.beta = 0.0;
    } else if (SPLIT) {
        p = mb_splitk_part<T>(p, blockIdx.y, kc); /* split-K: this block's slice */
    }
    static_assert(OP == TC_OP_DMMA || (Cfg::DK == 4 && Cfg::PIPE == TC_PIPE_STEP2),
                  "DK and PIPE are FP64 options");
    const int64_t ntm = (p.m + Cfg::BM - 1) / Cfg::BM, ntn = (p.n + Cfg::BN - 1) / Cfg::BN;
    const int64_t ntiles = ntm * ntn;
    /* Tail split (splitk.cuh, mb_tail): blocks from tail.t0 on compute slice s of tail tile
     * t0 + j % rem (j = block - t0); slices s > 0 write a compact BM x BN slab. */
    int64_t tile0 = blockIdx.x;
    T *C = (T *)p.C;
    bool to_slab = false;
    if (Cfg::TAIL && !SPLIT && (int64_t)blockIdx.x >= tail.t0) {
        const int64_t j = blockIdx.x - tail.t0, rem = ntiles - tail.t0;
        const int s = (int)(j / rem);
        tile0 = tail.t0 + j % rem;
        p = mb_splitk_slice<T>(p, s, tail.kc);
        if (s > 0 || X3) { /* 3xTF32: slab s (C intact for the fixup); else slab s - 1 */
            C = (T *)p.work + ((int64_t)(X3 ? s : s - 1) * rem + j % rem) * (Cfg::BM * Cfg::BN);
            to_slab = true;
            p.beta = 0.0;
        }
    }
    const T alpha = (T)p.alpha, beta = (T)p.beta;
#if TC_HAS_MMA
    extern __shared__ __align__(16) unsigned char tc_smem[];
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    T *sA = (T *)tc_smem;
    T *sB = sA + Cfg::STAGES * AE;
    /* 3xTF32: the split planes of the current stage follow the stages (16-byte aligned: AE
     * and BE are multiples of 16 bytes). */
    float *sX = (float *)(sB + Cfg::STAGES * BE);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int64_t KT = (p.k + Cfg::BK - 1) / Cfg::BK;

    for (int64_t tile = tile0; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        int64_t r0, c0, m0, n0; /* owned from (r0, c0), computed from (m0, n0) */
        tc_tile_place<Cfg>(tm, tn, p.m, p.n, shift, &r0, &c0, &m0, &n0);

        T acc[Cfg::MI][Cfg::NI][4];
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[mi][ni][v] = T(0);
        unsigned gmx, gmn; /* 3xTF32 range guard over the elements this thread splits */
        x3g_init(gmx, gmn);

        /* Prologue: STAGES-1 k-tiles in flight (empty groups past the end keep the count). */
#pragma unroll
        for (int s = 0; s < Cfg::STAGES - 1; ++s) {
            if (s < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + s * AE, sB + s * BE, p, m0, n0, s, a_vec, b_vec,
                                             tid);
            tc_cp_async_commit();
        }
        int cs = 0, ls = Cfg::STAGES - 1; /* stages of k-tiles kt and kt + STAGES - 1 */
        /* TC_PIPE_XMMA takes the tiles it can (its comment), the STEP loop below the rest. */
        bool xmma = false;
        if constexpr (OP == TC_OP_DMMA && Cfg::PIPE == TC_PIPE_XMMA) {
            xmma = a_vec && b_vec && p.k % Cfg::BK == 0 && m0 + Cfg::BM <= p.m &&
                   n0 + Cfg::BN <= p.n;
            if (xmma)
                tc_mainloop_f64_xmma<Cfg, AKC, BKC>(acc, sA, sB, p, m0, n0, KT, tid, wm0, wn0,
                                                    lane);
        }
        if constexpr (OP == TC_OP_DMMA && Cfg::PIPE == TC_PIPE_STREAM)
            tc_mainloop_f64_stream<Cfg, AKC, BKC>(acc, sA, sB, p, m0, n0, KT, a_vec, b_vec, tid,
                                                  wm0, wn0, lane);
        else
        for (int64_t kt = 0; kt < KT && !xmma; ++kt) {
            /* Groups committed so far: STAGES-1 + kt; at most STAGES-2 pending means k-tile
             * kt has landed (for this thread; the barrier makes it so for all, and also
             * frees the buffer read in iteration kt-1, which is refilled next). */
            tc_cp_async_wait<Cfg::STAGES - 2>();
            __syncthreads();
            const int64_t nk = kt + Cfg::STAGES - 1;
            /* k steps of one stage: 8 deep (TF32), DK deep (FP64) */
            constexpr int NS = OP == TC_OP_DMMA ? Cfg::BK / Cfg::DK : Cfg::BK / Cfg::KSTEP;
            if constexpr (OP == TC_OP_TF32X3) {
                /* The split copy is free: every warp finished the previous k-tile's mma
                 * before the barrier above. The barrier below publishes it. */
                tc_split_stage<Cfg, AKC, BKC>(sX, (const float *)(sA + cs * AE),
                                              (const float *)(sB + cs * BE), tid, gmx, gmn);
                __syncthreads();
                tc_warp_mma_x3<Cfg, AKC, BKC, 0, 1>(acc, sX, wm0, wn0, lane);
            } else {
                tc_warp_mma<Cfg, OP, AKC, BKC, 0, 1>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                     lane);
            }
            /* The next copies go to stage ls, last read in iteration kt - 1 (every warp has
             * passed the barrier above since); issued after the first k step's mma so that
             * their address arithmetic overlaps the tensor cores' work. */
            if (nk < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0, nk, a_vec,
                                             b_vec, tid);
            tc_cp_async_commit();
            if constexpr (OP == TC_OP_TF32X3)
                tc_warp_mma_x3<Cfg, AKC, BKC, 1, NS>(acc, sX, wm0, wn0, lane);
            else
                tc_warp_mma<Cfg, OP, AKC, BKC, 1, NS>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                      lane);
            cs = cs + 1 == Cfg::STAGES ? 0 : cs + 1;
            ls = ls + 1 == Cfg::STAGES ? 0 : ls + 1;
        }
        tc_cp_async_wait<0>();
        __syncthreads(); /* the next tile's prologue overwrites the stages */
        /* 3xTF32: a tile with an out-of-range element in its panels stores nothing (its
         * bit is set; the fixup recomputes the elements it owns; x3guard.cuh). */
        if constexpr (X3) {
            static_assert(Cfg::BM <= X3G_TILE && Cfg::BN <= X3G_TILE, "the fixup's tile");
            if (x3g_tile_out(g, gmx, gmn, tm + tn * ntm)) continue;
        }

        /* Epilogue straight from the accumulator fragments: for each register, a warp writes
         * 8 consecutive rows in each of 4 columns (full 32-byte sectors). With beta != 0 the
         * C values of a 16-row strip are all loaded before any is stored: loads interleaved
         * with stores to the same array cannot be reordered (they might alias), so each would
         * wait a full memory latency (session 5: a rank-512 update of 8192^2 with beta = 1 took
         * 1.6x as long as with beta = 0). A tail slab holds the tile from (m0, n0), ld BM. */
        const int64_t ldo = to_slab ? Cfg::BM : p.ldc, off = to_slab ? m0 + n0 * Cfg::BM : 0;
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi) {
            T cv[Cfg::NI][4];
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) {
                    const int64_t r = m0 + wm0 + mi * 16 + tc_frag_c_row(lane, v);
                    const int64_t c = n0 + wn0 + ni * 8 + tc_frag_c_col(lane, v);
                    cv[ni][v] = beta != T(0) && r >= r0 && r < p.m && c >= c0 && c < p.n
                                    ? C[r + c * ldo - off]
                                    : T(0);
                }
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) {
                    const int64_t r = m0 + wm0 + mi * 16 + tc_frag_c_row(lane, v);
                    const int64_t c = n0 + wn0 + ni * 8 + tc_frag_c_col(lane, v);
                    if (r >= r0 && r < p.m && c >= c0 && c < p.n) {
                        const T val = alpha * acc[mi][ni][v];
                        C[r + c * ldo - off] = beta == T(0) ? val : val + beta * cv[ni][v];
                    }
                }
        }
    }
#else
    /* Before sm_80 there is no mma.sync / cp.async: a plain (slow, correct) product per
     * element of the tile, so the rung stays valid on any GPU it is built for. */
    const T *A = (const T *)p.A, *B = (const T *)p.B;
    for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        int64_t tm, tn;
        tc_tile_coords(tile, ntm, ntn, &tm, &tn);
        for (int e = threadIdx.x; e < Cfg::BM * Cfg::BN; e += blockDim.x) {
            const int64_t r = tm * Cfg::BM + e % Cfg::BM, c = tn * Cfg::BN + e / Cfg::BM;
            if (r >= p.m || c >= p.n) continue;
            T s = 0;
            for (int64_t q = 0; q < p.k; ++q)
                s += (AKC ? A[q + r * p.lda] : A[r + q * p.lda]) *
                     (BKC ? B[q + c * p.ldb] : B[c + q * p.ldb]);
            T *dst = C + r + c * p.ldc;
            *dst = beta == T(0) ? alpha * s : alpha * s + beta * *dst;
        }
    }
#endif
}

/* ---------------------------------------------------------------------------------------
 * Launcher: picks the transpose instantiation, checks alignment for the 16-byte path.
 * ------------------------------------------------------------------------------------- */
/* Edge tiles computed from inside the matrix (bit 0: in m, bit 1: in n). The last tile row
 * (column) of a matrix whose m (n) is not a multiple of BM (BN) is computed from m - BM
 * (n - BN) instead, so its copies take the interior path (no per-chunk bounds checks, no
 * zero fill) like every other tile; it then stores only the rows (columns) it owns, the
 * ones the tile before it does not: no element is written twice, and with beta != 0 each
 * is read and scaled once. Allowed where the matrix holds a whole tile and the shifted
 * origin keeps the 16-byte chunks aligned: along an operand's contiguous dimension that
 * needs m (n) to be a multiple of the chunk's elements; along the other it needs nothing.
 * Session 8 (H100, dmma, % of cuBLAS DGEMM NN / TT, alternating processes with and without):
 * 1000x600x700 TT 68-69 -> 92%, 1000x576x704 75-77 -> 86-90%, 2052x2060x2048 72 -> 80-82%;
 * shapes without edge tiles unchanged (1024x576x704 84-88%, 1152^3 71-73%). */
template <class Cfg, bool AKC, bool BKC>
static int tc_edge_shift(const mb_gemm_args *p) {
    constexpr int VEC = Cfg::VEC;
    const bool sm = p->m >= Cfg::BM && (AKC || p->m % VEC == 0); /* A inner dim is m unless AKC */
    const bool sn = p->n >= Cfg::BN && (BKC || p->n % VEC == 0); /* B inner dim is n unless BKC */
    return (sm ? 1 : 0) | (sn ? 2 : 0);
}

/* C += the tail slabs (mb_tail): block (j, y) adds element e = 256 y + thread of tail tile
 * t0 + j, in slice order, where the tile owns it (the same ownership as the kernel's
 * epilogue, edge shift included). */
/* X3 (the 3xTF32 range guard): slab 0 holds slice 0 too and C = beta * C + the slabs, for
 * the tiles whose guard bit is clear (beta == 0: C not read). */
template <class Cfg, bool X3>
__global__ void tc_tail_reduce_kernel(typename Cfg::T *C, int64_t ldc, const typename Cfg::T *W,
                                      int64_t m, int64_t n, int64_t t0, int slabs, int shift,
                                      typename Cfg::T beta, x3g g) {
    typedef typename Cfg::T T;
    constexpr int64_t TE = (int64_t)Cfg::BM * Cfg::BN;
    const int64_t e = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
    if (e >= TE) return;
    const int64_t ntm = (m + Cfg::BM - 1) / Cfg::BM, ntn = (n + Cfg::BN - 1) / Cfg::BN;
    const int64_t rem = ntm * ntn - t0, j = blockIdx.x;
    int64_t tm, tn;
    tc_tile_coords(t0 + j, ntm, ntn, &tm, &tn);
    int64_t r0, c0, m0, n0;
    tc_tile_place<Cfg>(tm, tn, m, n, shift, &r0, &c0, &m0, &n0);
    const int64_t r = m0 + e % Cfg::BM, c = n0 + e / Cfg::BM;
    if (r < r0 || r >= m || c < c0 || c >= n) return;
    if (X3) {
        if (x3g_bit(g, tm + tn * ntm)) return;
        T v = W[j * TE + e];
        for (int s = 1; s < slabs; ++s) v += W[(s * rem + j) * TE + e];
        C[r + c * ldc] = beta == T(0) ? v : v + beta * C[r + c * ldc];
        return;
    }
    T v = C[r + c * ldc];
    for (int s = 0; s < slabs; ++s) v += W[(s * rem + j) * TE + e];
    C[r + c * ldc] = v;
}

/* Whether an operand takes the 16-byte copies: pointer and leading dimension aligned. */
template <typename T>
static bool tc_vec16(const void *ptr, int64_t ld) {
    return (uintptr_t)ptr % 16 == 0 && (ld * (int64_t)sizeof(T)) % 16 == 0;
}

/* p: the call; q: the same with the workspace for slabs (3xTF32: after the guard's bytes). */
template <class Cfg, int OP, bool AKC, bool BKC, bool SPLIT>
static cudaError_t tc_gemm_launch_s(const mb_gemm_args *p, const mb_gemm_args *q, mb_splitk sp,
                                    x3g g, cudaStream_t s) {
    typedef typename Cfg::T T;
    constexpr bool X3 = OP == TC_OP_TF32X3;
    const size_t smem = Cfg::smem_bytes(AKC, BKC, OP == TC_OP_TF32X3);
    static unsigned long long smem_set; /* devices whose limit is raised (this kernel) */
    cudaError_t e = mb_smem_limit_once((const void *)tc_gemm_kernel<Cfg, OP, AKC, BKC, SPLIT>,
                                       (int)smem, &smem_set);
    if (e != cudaSuccess) return e;
    const bool a_vec = tc_vec16<T>(p->A, p->lda), b_vec = tc_vec16<T>(p->B, p->ldb);
    const int64_t tiles = mb_cdiv(p->m, Cfg::BM) * mb_cdiv(p->n, Cfg::BN);
    const int shift = tc_edge_shift<Cfg, AKC, BKC>(p);
    /* a split launch splits every tile; otherwise perhaps the last wave (mb_tail_plan) */
    const mb_tail tail = SPLIT || !Cfg::TAIL ? mb_tail{tiles, 1, p->k}
                                             : mb_tail_plan(q, tiles, Cfg::MIN_BLOCKS, Cfg::BK,
                                                            (int64_t)Cfg::BM * Cfg::BN, sizeof(T),
                                                            X3 ? 1 : 0);
    const int64_t blocks = tail.t0 + (tiles - tail.t0) * tail.S;
    const dim3 grid(mb_grid_dim(blocks, MB_GRID_X_MAX), (unsigned)sp.S);
    tc_gemm_kernel<Cfg, OP, AKC, BKC, SPLIT>
        <<<grid, Cfg::NTHREADS, smem, s>>>(*q, a_vec, b_vec, sp.kc, shift, tail, g);
    e = cudaGetLastError();
    if (e == cudaSuccess && tail.S > 1) {
        const dim3 rgrid((unsigned)(tiles - tail.t0), (unsigned)mb_cdiv((int64_t)Cfg::BM * Cfg::BN, 256));
        tc_tail_reduce_kernel<Cfg, X3><<<rgrid, 256, 0, s>>>(
            (T *)p->C, p->ldc, (const T *)q->work, p->m, p->n, tail.t0, X3 ? tail.S : tail.S - 1,
            shift, (T)p->beta, g);
        e = cudaGetLastError();
    }
    if constexpr (X3) {
        if (e == cudaSuccess && SPLIT) e = x3g_reduce(p, q, sp.S, g, s);
        return e == cudaSuccess ? x3g_end(p, g, s) : e;
    }
    return e == cudaSuccess ? mb_splitk_finish<T>(p, sp, s) : e;
}
/* S == 0: split-K as mb_splitk_plan decides; S >= 1: that many slices (clamped by
 * mb_splitk_make; 1 = no split). */
template <class Cfg, int OP, bool AKC, bool BKC>
static cudaError_t tc_gemm_launch_t(const mb_gemm_args *p, int S, cudaStream_t s) {
    typedef typename Cfg::T T;
    constexpr int X3 = OP == TC_OP_TF32X3 ? 1 : 0;
    x3g g = {NULL, NULL, Cfg::BM, Cfg::BN};
    mb_gemm_args q = *p;
    if (X3) { /* the range guard: its bytes zeroed, slabs after them */
        const cudaError_t e = x3g_begin(p, Cfg::BM, Cfg::BN, &g, &q, s);
        if (e != cudaSuccess) return e;
    }
    const int64_t tiles = mb_cdiv(p->m, Cfg::BM) * mb_cdiv(p->n, Cfg::BN);
    const mb_splitk sp = S ? mb_splitk_make(&q, S, Cfg::BK, sizeof(T), X3)
                           : mb_splitk_plan(&q, tiles, Cfg::MIN_BLOCKS, Cfg::BK, sizeof(T), X3);
    return sp.S > 1 ? tc_gemm_launch_s<Cfg, OP, AKC, BKC, true>(p, &q, sp, g, s)
                    : tc_gemm_launch_s<Cfg, OP, AKC, BKC, false>(p, &q, sp, g, s);
}

template <class Cfg, int OP>
static cudaError_t tc_gemm_launch(const mb_gemm_args *p, cudaStream_t s, int S = 0) {
    /* A is K-contiguous when transposed; B is K-contiguous when not. */
    if (p->transa) {
        if (p->transb) return tc_gemm_launch_t<Cfg, OP, true, false>(p, S, s);
        return tc_gemm_launch_t<Cfg, OP, true, true>(p, S, s);
    }
    if (p->transb) return tc_gemm_launch_t<Cfg, OP, false, false>(p, S, s);
    return tc_gemm_launch_t<Cfg, OP, false, true>(p, S, s);
}

#endif
