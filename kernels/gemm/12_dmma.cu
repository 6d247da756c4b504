/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 12 of the dgemm ladder, dmma (dgemm only): the FP64 tensor cores. The SIMT rungs issue
 * one DFMA per thread per multiply-add (the FP64 SIMT peak); mma.sync.aligned.m16n8k8.f64 does
 * a 16x8x8 block of the same IEEE double fused multiply-adds per warp instruction, at about
 * twice that peak, with the same tolerances as any dgemm rung. Operands are staged by a
 * cp.async pipeline of 3 or 4 stages (16-byte copies where pointer and leading dimension allow;
 * parts of a tile outside the matrix zeroed; edge tiles shifted inside the matrix). The
 * machinery is shared with the TF32 rungs (tc_common.cuh). Tiles chosen per call by the cost of
 * their grids (mb_dgemm_dmma, below): big 128x64 (4 warps, 2 blocks/SM; cuBLAS's tile, on a
 * straight-line loop whose DMMA results ptxas tracks on one scoreboard), mid 64x64, small
 * 32x64x32, tiny 32x32x32 (3/SM each, swizzled, a lean loop of two fragment sets; where every
 * tile can take the big tile's loop, the small tile runs it in 16-deep stages, and the mid
 * tile at 2/SM when its tiles fit one such wave); where the big tile fills at most one wave
 * with a deep k, its 128x128 variant of 8 warps at 1 block/SM (deep: the H100 runs such calls
 * at its power cap, and that block moves a quarter fewer bytes per multiply-add). A last wave
 * of big tiles at most half full (at shallow k from four waves, an eighth) is split in k in the
 * same launch; few tiles with a deep k are split in k across blocks (splitk.cuh).
 *
 * Why: the only way past the FP64 SIMT peak.
 * Limit: 255 registers per thread on the big tile, and loads of fragments still read by pending
 * mma (ptxas places them); k not a multiple of 16 or unaligned operands are copied (aligned, k
 * grown with zeros) where the gemm is large enough, else take the plainer STEP loop, as do edge
 * tiles at an odd m (A M-contiguous) or n (B N-contiguous); at k = 256 storing C takes 12-17%.
 * Resources: 128 threads (deep: 256); dynamic shared memory per block 79.5-90 KB (big, by
 * layout), 99-120 KB (deep), 64 KB (mid), 72 KB (small; 48 KB on the XMMA loop), 48 KB (tiny).
 * Measured: docs/ladders/gemm.md.
 */
#include "tc_common.cuh"
#include "operand_copy.cuh"
#include "dmma_tiles.cuh"


/* The big tile. Its XMMA loop (tc_mainloop_f64_xmma) needs k a multiple of 16 and the 16-byte
 * copies. Other problems run it on aligned copies of the operands, k grown with zeros
 * (operand_copy.cuh), where those pay; else the tile on the STEP loop in a kernel of its own
 * (the STEP loop inside the XMMA kernel, which keeps it for its edge tiles, ran
 * 4097x4095x4099 much slower than alone: the two loops share one register allocation).
 * The copies pay from about 900 multiply-adds per element copied (one H100, with and without
 * them, perf/results/h100/gemm-copies.txt: 1000^3, 1025^3 and 1500^3, 500-750 per element,
 * were 7-41% slower with them; 2047^3 and up, 1000 and more, 9-38% faster). */
#define DMMA_COPY_MIN_PER_ELEM 900.0
/* Slices of k at least this deep make a split of the big tile pay (dmma_pick); blocks at
 * least this deep let the deep tile pay (dmma_deep_shape). */
#define DMMA_SPLIT_MIN_K 2048
/* Whether the deep tile takes a call of the big tile: at most one wave of big tiles, and each
 * block of the deep tile's grid (split in k where its tiles fill at most half the SMs) at
 * least DMMA_SPLIT_MIN_K deep. There the deep tile took 3-12% less time than the big tile
 * (more tiles than slots: level or slower; one H100, perf/results/h100/dgemm-deep/). */
static int dmma_deep_shape(const mb_gemm_args *p, int sms) {
    typedef dmma_big_cfg B;
    typedef dmma_deep_cfg D;
    if (mb_cdiv(p->m, B::BM) * mb_cdiv(p->n, B::BN) > (int64_t)B::MIN_BLOCKS * sms) return 0;
    const mb_splitk ds = mb_splitk_plan(p, mb_cdiv(p->m, D::BM) * mb_cdiv(p->n, D::BN),
                                        D::MIN_BLOCKS, D::BK, sizeof(double), 0, sms);
    return p->k / ds.S >= DMMA_SPLIT_MIN_K;
}
/* ... and its shared memory fits the device's opt-in limit per block (cached with the other
 * shared-memory attributes by mb_one_wave_smem; 99 KB on compute capability 8.6 / 8.9). */
static int dmma_deep(const mb_gemm_args *p, int sms) {
    size_t bytes;
    int optin = 0;
    return dmma_deep_shape(p, sms) && mb_one_wave_smem(0, 1, 1, 0, &bytes, &optin) == cudaSuccess &&
           (size_t)optin >= dmma_deep_cfg::smem_bytes(true, true);
}
/* The big tile's XMMA kernel, or the deep tile's on the calls it takes. */
static cudaError_t dmma_big_xmma(const mb_gemm_args *p, int sms, cudaStream_t s) {
    return dmma_deep(p, sms) ? tc_gemm_launch<dmma_deep_cfg, TC_OP_DMMA>(p, s)
                             : tc_gemm_launch<dmma_big_cfg, TC_OP_DMMA>(p, s);
}
static cudaError_t dmma_big(const mb_gemm_args *p, int sms, cudaStream_t s) {
    const int va = tc_vec16<double>(p->A, p->lda), vb = tc_vec16<double>(p->B, p->ldb);
    if (p->k % 16 == 0 && va && vb) return dmma_big_xmma(p, sms, s);
    const int64_t k16 = p->k + (16 - p->k % 16) % 16;
    const int grow = k16 != p->k; /* growing k copies both operands */
    mb_gemm_args q;
    void *buf;
    cudaError_t e;
    const int made = oc_begin(p, sizeof(double), grow || !va, grow || !vb, k16,
                              DMMA_COPY_MIN_PER_ELEM, &q, &buf, &e, s);
    if (made < 0) return e;
    if (made) return oc_end(buf, dmma_big_xmma(&q, sms, s), s);
    return tc_gemm_launch<dmma_big_step_cfg, TC_OP_DMMA>(p, s);
}

/* The cost of a tile's grid: the busiest SM runs q = ceil(tiles / SMs) tiles, and a tile
 * costs its area times a time per element that depends on q (c[q - 1], the last entry for
 * every larger q): with fewer tiles than block slots an SM's tensor pipe idles part of the
 * time, and with one more tile than the slots hold the last runs nearly alone. The tables
 * come from a sweep of every tile at 512^3-4096^3 on one H100 (time / (q x area x k) in
 * tenths of a picosecond, perf/results/h100/dgemm-swizzle/sweep-lean.txt); k is the same for
 * every tile of a call, so it is left out. */
static int64_t dmma_cost(int64_t tiles, int64_t sms, int64_t area, const int *c, int nc) {
    const int64_t q = mb_cdiv(tiles, sms);
    return q * area * c[(q < nc ? q : nc) - 1];
}
static const int dmma_c_big[] = {65, 49, 50}, dmma_c_mid[] = {83, 55, 50};
static const int dmma_c_small[] = {114, 69, 63, 68, 54}, dmma_c_tiny[] = {105, 105, 76, 76, 71};
#define DMMA_COST(tiles, area, c) dmma_cost(tiles, sms, area, c, (int)(sizeof c / sizeof c[0]))

/* From four waves of big tiles (1056 on an H100 / H200) the big tile; below that, the tile
 * whose grid costs least (dmma_cost): e.g. 1920^3 (450 big tiles, a second wave 70% full) runs
 * the mid tile, NN 0.97x cuBLAS DGEMM where auto's stream-K big tile ran 0.88x; 1920x1920x512
 * 0.82 -> 0.99x, 2432^3 0.88 -> 0.99x (one H100, perf/results/h100/dgemm-tilechoice/). With
 * four waves and more the idle share of the last wave is small, and the big tile's time per
 * element, 3% under the mid tile's at 4096^3 (dgemm-swizzle/sweep-lean.txt), wins. Rung 14 runs
 * its TMA kernel exactly where the big tile runs from 396 tiles (mb_dgemm_dmma_picks_big). Two
 * kinds of big grid are priced apart: a last wave of big tiles at most half full is split in k
 * in the same launch (mb_tail, splitk.cuh: e.g. 1536^3, 288 tiles = one wave + 24 in 11 slices),
 * costing its whole waves plus 1.2 / S of a wave (the slab sum and the slices' prologues: 1792^3
 * ran faster on the mid tile than split in two); and fewer big tiles than half the slots with a
 * k deep enough to split into slices of at least 2048 cost 1 / S of a wave (split-K, splitk.cuh:
 * what serves 8192x128x8192 and 128x8192x8192; with shallower slices the split big tile lost).
 * Ties go to the larger tile. The mid and small tiles never split k; the tiny tile does where
 * its tiles fill less than half of its slots (e.g. 257x129x2051). */
enum { DMMA_BIG, DMMA_MID, DMMA_SMALL, DMMA_TINY };
static int dmma_pick(const mb_gemm_args *p, int sms) {
    const int64_t big = mb_cdiv(p->m, 128) * mb_cdiv(p->n, 64);
    if (big >= 8 * (int64_t)sms) return DMMA_BIG;
    const int64_t wave = DMMA_COST(2 * (int64_t)sms, 128 * 64, dmma_c_big);
    const mb_tail bt = mb_tail_plan(p, big, dmma_big_cfg::MIN_BLOCKS, dmma_big_cfg::BK,
                                    128 * 64, sizeof(double), 0, sms);
    const mb_splitk bs = mb_splitk_plan(p, big, dmma_big_cfg::MIN_BLOCKS, dmma_big_cfg::BK,
                                        sizeof(double), 0, sms);
    int64_t cost_big = DMMA_COST(big, 128 * 64, dmma_c_big);
    if (bs.S > 1 && p->k / bs.S >= DMMA_SPLIT_MIN_K)
        cost_big = wave / bs.S;
    else if (bt.S > 1)
        cost_big = wave * (bt.t0 / (2 * (int64_t)sms)) + 12 * wave / (10 * bt.S);
    const int64_t cost_mid =
        DMMA_COST(mb_cdiv(p->m, 64) * mb_cdiv(p->n, 64), 64 * 64, dmma_c_mid);
    const int64_t cost_small =
        DMMA_COST(mb_cdiv(p->m, 32) * mb_cdiv(p->n, 64), 32 * 64, dmma_c_small);
    const int64_t cost_tiny =
        DMMA_COST(mb_cdiv(p->m, 32) * mb_cdiv(p->n, 32), 32 * 32, dmma_c_tiny);
    if (cost_big <= cost_mid && cost_big <= cost_small && cost_big <= cost_tiny) return DMMA_BIG;
    if (cost_mid <= cost_small && cost_mid <= cost_tiny) return DMMA_MID;
    return cost_small <= cost_tiny ? DMMA_SMALL : DMMA_TINY;
}

/* tc_edge_shift of tile C for the layouts tc_gemm_launch picks (A transposed: K-contiguous;
 * B transposed: N-contiguous), and whether an edge tile of C stays where it is, unshifted (the
 * shifted copies would start at an odd element of an M- or N-contiguous operand). */
template <class C>
static int dmma_edge_shift(const mb_gemm_args *p) {
    return p->transa ? (p->transb ? tc_edge_shift<C, true, false>(p)
                                  : tc_edge_shift<C, true, true>(p))
                     : (p->transb ? tc_edge_shift<C, false, false>(p)
                                  : tc_edge_shift<C, false, true>(p));
}
template <class C>
static int dmma_fixed_edges(const mb_gemm_args *p) {
    const int shift = dmma_edge_shift<C>(p);
    return (p->m % C::BM != 0 && !(shift & 1)) || (p->n % C::BN != 0 && !(shift & 2));
}
/* Whether every tile of C takes tile C's XMMA loop: k a multiple of 16, 16-byte copies of both
 * operands, no edge tile left unshifted (the XMMA kernel would run such tiles on its STEP loop,
 * not timed against the stream loop of the tiles it replaces). */
template <class C>
static int dmma_all_xmma(const mb_gemm_args *p) {
    return p->k % C::BK == 0 && tc_vec16<double>(p->A, p->lda) &&
           tc_vec16<double>(p->B, p->ldb) && !dmma_fixed_edges<C>(p);
}
/* The small tile takes the XMMA loop wherever all its tiles can (dmma_all_xmma); the mid tile,
 * at 2 blocks per SM there, only where its tiles also fit one wave of 2 per SM: with more, the
 * stream-loop mid tile's third block per SM saves a wave. */
static int dmma_mid_xmma(const mb_gemm_args *p, int sms) {
    return mb_cdiv(p->m, 64) * mb_cdiv(p->n, 64) <= 2 * (int64_t)sms &&
           dmma_all_xmma<dmma_mid_xmma_cfg>(p);
}

/* The tile a call runs (MB_DMMA_*, kernels/launch.h). */
static int dmma_tile(const mb_gemm_args *p, int sms) {
    switch (dmma_pick(p, sms)) {
    case DMMA_BIG: return MB_DMMA_BIG;
    case DMMA_MID: return dmma_mid_xmma(p, sms) ? MB_DMMA_MID_XMMA : MB_DMMA_MID;
    case DMMA_SMALL:
        return dmma_all_xmma<dmma_small_xmma_cfg>(p) ? MB_DMMA_SMALL_XMMA : MB_DMMA_SMALL;
    default: return MB_DMMA_TINY;
    }
}

extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    int sms = 132;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    switch (dmma_tile(p, sms)) {
    case MB_DMMA_BIG: return dmma_big(p, sms, s);
    case MB_DMMA_MID_XMMA: return tc_gemm_launch<dmma_mid_xmma_cfg, TC_OP_DMMA>(p, s, 1);
    case MB_DMMA_MID: return tc_gemm_launch<dmma_mid_cfg, TC_OP_DMMA>(p, s, 1);
    case MB_DMMA_SMALL_XMMA: return tc_gemm_launch<dmma_small_xmma_cfg, TC_OP_DMMA>(p, s, 1);
    case MB_DMMA_SMALL: return tc_gemm_launch<dmma_small_cfg, TC_OP_DMMA>(p, s, 1);
    default: return tc_gemm_launch<dmma_tiny_cfg, TC_OP_DMMA>(p, s);
    }
}

/* Whether mb_dgemm_dmma runs its big tile for this call on a GPU of `sms` SMs (rung 14 runs
 * its TMA kernel where this holds from 396 tiles: its C is then bitwise rung 12's). */
extern "C" int mb_dgemm_dmma_picks_big(const mb_gemm_args *p, int sms) {
    if (p->m <= 0 || p->n <= 0 || p->k <= 0 || sms <= 0) return 0; /* no gemm kernel runs */
    return dmma_pick(p, sms) == DMMA_BIG;
}

/* An m x n x k product with the handle's gemm workspace, for the rules below. */
static mb_gemm_args dmma_shape(int64_t m, int64_t n, int64_t k) {
    static char work; /* never touched: the plans test only for NULL */
    mb_gemm_args p;
    memset(&p, 0, sizeof p);
    p.m = m;
    p.n = n;
    p.k = k;
    p.work = &work;
    p.work_bytes = MB_GEMM_WORK_BYTES;
    return p;
}

/* mb_dgemm_dmma_picks_big for that product (auto's stream-K rule, src/auto.c: rung 13 is that
 * tile scheduled stream-K, so it can only pay where rung 12 would run that tile). */
extern "C" int mb_dgemm_dmma_big(int64_t m, int64_t n, int64_t k, int sms) {
    const mb_gemm_args p = dmma_shape(m, n, k);
    return mb_dgemm_dmma_picks_big(&p, sms);
}

/* Whether rung 12 runs its deep tile for that product with aligned operands (auto's stream-K
 * rule: not there). */
extern "C" int mb_dgemm_dmma_deep(int64_t m, int64_t n, int64_t k, int sms) {
    const mb_gemm_args p = dmma_shape(m, n, k);
    return k % 16 == 0 && mb_dgemm_dmma_picks_big(&p, sms) && dmma_deep_shape(&p, sms);
}

extern "C" int mb_dgemm_dmma_tile(int64_t m, int64_t n, int64_t k, int ta, int tb, int64_t lda,
                                  int64_t ldb, int sms) {
    mb_gemm_args p = dmma_shape(m, n, k);
    p.transa = ta;
    p.transb = tb;
    p.lda = lda;
    p.ldb = ldb; /* A and B stay NULL: 16-byte aligned */
    return dmma_tile(&p, sms);
}

/* Whether the big tile leaves an edge tile of an m x n product where it is, unshifted, so that
 * it runs the STEP loop; ta, tb: A, B transposed (column-major). Auto takes rung 14 there,
 * whose TMA copies need no shift. */
extern "C" int mb_dgemm_dmma_fixed_edges(int64_t m, int64_t n, int ta, int tb) {
    mb_gemm_args p;
    memset(&p, 0, sizeof p);
    p.m = m;
    p.n = n;
    p.transa = ta;
    p.transb = tb;
    return dmma_fixed_edges<dmma_big_cfg>(&p);
}
