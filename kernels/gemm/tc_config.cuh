/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tensor-core GEMM (tc_common.cuh): configuration. The op ids (TC_OP_*), the FP64 fragment
 * pipeline ids (TC_PIPE_*), the tile configuration tc_cfg (tile, warp and stage shape, pads,
 * shared-memory size), the shared-memory and fragment index helpers, the tile scheduling
 * (tc_tile_coords, tc_tile_place) and the architecture switches TC_UNROLL / TC_HAS_MMA.
 */
#ifndef MINIBLAS_GEMM_TC_CONFIG_CUH
#define MINIBLAS_GEMM_TC_CONFIG_CUH

#include "../common/common.cuh"

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
 *                   tc_mainloop_f64_stream; with DK = 8, BK a multiple of 16 and at least
 *                   two n tiles per warp, the tiles wholly inside the matrix (k a multiple
 *                   of BK, 16-byte copies) run tc_mainloop_f64_lean instead (lean copies,
 *                   two fragment sets by step, unrolled by the stages)
 *   TC_PIPE_XMMA    m16n8k8, BK = 16: two fragment sets by k step, the stage's copies
 *                   without a branch, whole rounds of the stages on a straight line:
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
          int DK_ = 4, int PIPE_ = TC_PIPE_STEP2, bool LEAN_ = false, bool SWZ_ = false>
struct tc_cfg {
    typedef T_ T;
    static constexpr int BM = BM_, BN = BN_, BK = BK_, WM = WM_, WN = WN_, STAGES = STAGES_;
    static constexpr int MIN_BLOCKS = MINB_; /* __launch_bounds__ blocks per SM */
    /* FP64 only (TC_OP_DMMA; the TF32 ops require the defaults): DK = k depth of one
     * mma.sync .f64 (4, 8 or 16: m16n8k4 / m16n8k8 / m16n8k16) and PIPE = how its fragments
     * are fed (TC_PIPE_*, see tc_warp_mma and tc_mainloop_f64_stream). The library's FP64
     * configurations (12_dmma.cu) use DK = 8 with STEP2, STREAM and XMMA; DK = 4 or 16 and
     * PIPE = TC_PIPE_STEP1 are chosen only by the sweep programs (perf/sweep), though the
     * STEP1 loop also runs the tiles an XMMA kernel leaves to it. */
    static constexpr int DK = DK_, PIPE = PIPE_;
    /* Any op: LEAN = the copies of an interior tile from one base address and one row stride
     * per thread (tc_load_tile), fewer registers live across the k loop. */
    static constexpr bool LEAN = LEAN_;
    /* FP64 only: SWZ = shared tiles without pads, the fragment reads kept conflict-free by an
     * XOR swizzle instead (tc_swz): the same stages take 11-14% less shared memory, so more
     * stages or more blocks fit in an SM. */
    static constexpr bool SWZ = SWZ_;
    static_assert(!SWZ || sizeof(T) == 8, "the swizzle is for FP64 tiles");
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
     * distinct 8-byte bank pairs when LD % 16 == 4 in both cases. With SWZ no pads: rows of a
     * multiple of 16 doubles (128 bytes), element (o, i) of a row at o * LD + tc_swz(o, i). */
    static constexpr int PAD_MN = SWZ ? 0 : sizeof(T) == 4 ? 8 : 4;
    static constexpr int PAD_K = SWZ ? 0 : 4;
    static constexpr int LD_AM = BM + PAD_MN, LD_BN = BN + PAD_MN, LD_K = BK + PAD_K;
    static_assert(BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0, "warp tiling");
    static_assert(BK % KSTEP == 0 && BK % VEC == 0 && BM % VEC == 0 && BN % VEC == 0, "tile");
    static_assert(SWZ ? (LD_AM % 16 == 0 && LD_BN % 16 == 0 && LD_K % 16 == 0)
                  : sizeof(T) == 4 ? (LD_AM % 32 == 8 && LD_BN % 32 == 8 && LD_K % 32 == 4)
                                   : (LD_AM % 16 == 4 && LD_BN % 16 == 4 && LD_K % 16 == 4),
                  "pads (or the swizzle) must keep fragment reads conflict-free");
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
/* Position in its row of element i of row o of a shared tile. Padded tiles: i. Swizzled FP64
 * tiles: bits 2-3 of i flipped by the row's low two bits. A fragment read touches rows
 * o0 + t or o0 + g (t, g in 0..3 in each half-warp, o0 a multiple of 4) at positions i0 + g
 * or i0 + t: the flip sends each of the four rows to its own 4-double quarter of a 16-double
 * (128-byte) span, so the half-warp's 16 doubles fall in 16 distinct bank pairs. A 16-byte
 * chunk (2 doubles, i even) stays whole, and rows 4 apart share the flip. */
template <bool SWZ>
__host__ __device__ __forceinline__ int tc_swz(int o, int i) {
    return SWZ ? i ^ ((o & 3) << 2) : i;
}
/* Shared index of A element (row m, col k) of the tile; AKC: A is K-contiguous. */
template <class Cfg, bool AKC>
__host__ __device__ __forceinline__ int tc_sa_index(int m, int k) {
    return AKC ? m * Cfg::LD_K + tc_swz<Cfg::SWZ>(m, k)
               : k * Cfg::LD_AM + tc_swz<Cfg::SWZ>(k, m);
}
/* Shared index of B element (row k, col n) of the tile; BKC: B is K-contiguous. */
template <class Cfg, bool BKC>
__host__ __device__ __forceinline__ int tc_sb_index(int k, int n) {
    return BKC ? n * Cfg::LD_K + tc_swz<Cfg::SWZ>(n, k)
               : k * Cfg::LD_BN + tc_swz<Cfg::SWZ>(k, n);
}
/* Fragment coordinates inside one 16x8x8 mma tile (see tc_common.cuh's header comment). */
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
 * Architecture switches.
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

#endif
