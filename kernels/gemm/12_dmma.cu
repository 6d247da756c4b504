/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 12 of the dgemm ladder, dmma (dgemm only): the FP64 tensor cores. The SIMT rungs issue
 * one DFMA per thread per multiply-add (the FP64 SIMT peak); mma.sync.aligned.m16n8k8.f64 does
 * a 16x8x8 block of the same IEEE double fused multiply-adds per warp instruction, at about
 * twice that peak, with the same tolerances as any dgemm rung. Operands are staged by a
 * 3-stage cp.async pipeline (16-byte copies where pointer and leading dimension allow; parts
 * of a tile outside the matrix zeroed; edge tiles shifted to be computed from inside the
 * matrix). The machinery is shared with the TF32 rungs (tc_common.cuh).
 * Four tiles of 4 warps, chosen per call by the cost of their waves (mb_dgemm_dmma, below):
 *   big 128x64 (2 blocks/SM; cuBLAS's large-size tile, on cuBLAS's instruction order: each
 *   fragment load issued between the mma of the previous row tile, copies spread among the
 *   mma, the wait and barrier inside the second k step), mid 64x64 (3/SM, same loop), small
 *   32x64 (4/SM; interior tiles on a lean two-step loop, the others fragments one n tile
 *   ahead), tiny 32x32x32 where the small tile would leave SMs without a block. A last wave
 *   at most half full is split in k in the same launch; few big tiles with a deep k are
 *   split in k across blocks (splitk.cuh).
 *
 * Why: the only way past the FP64 SIMT peak.
 * Limit: register pressure (about 250 registers per thread on the big tile) and the stalls of
 * fragment loads that overwrite operands of pending mma; k not a multiple of 16 or unaligned
 * operands are copied (aligned, k grown with zeros) where the gemm is large enough, else take
 * the plainer STEP loop, in a kernel of its own.
 * Resources: 128 threads per block; dynamic shared memory per block about 79.5 KB (big),
 * less for the others (tc_cfg::smem_bytes). Measured: docs/ladders/gemm.md.
 */
#include "tc_common.cuh"
#include "operand_copy.cuh"

/* Four tiles, all 4 warps with m16n8k8, 3 stages, lean copies, BK = 16 but tiny:
 *   big   128x64 (warps 64x32), 2 blocks per SM: cuBLAS's large-size tile, on its schedule
 *          (TC_PIPE_XMMA);
 *   mid    64x64 (warps 32x32), 3 blocks per SM, on the XMMA loop too;
 *   small  32x64 (warps 16x32), 4 blocks per SM. Interior tiles (k a multiple of 16,
 *          16-byte copies) run a lean loop of two m16n8k8 steps per stage
 *          (tc_mainloop_f64_lean2: lean copies without a branch, unrolled by the stages);
 *          the others the stream loop (fragments one n tile ahead, the barrier before the
 *          stage's last column, the guarded copies). The stream loop made the big tile
 *          slower and the mid one no faster (perf/sweep/).
 * and where the small tile would not give every SM a block, a tiny one:
 *   tiny   32x32x32 (warps 16x16), 3 blocks per SM, stream loop (faster than the small
 *          tile at 512^3 in the tile sweep). */
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_XMMA, true> dmma_big_cfg;
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_STEP2, true> dmma_big_step_cfg;
typedef tc_cfg<double, 64, 64, 16, 32, 32, 3, 3, 8, TC_PIPE_XMMA, true> dmma_mid_cfg;
typedef tc_cfg<double, 64, 64, 16, 32, 32, 3, 3, 8, TC_PIPE_STEP2, true> dmma_mid_step_cfg;
typedef tc_cfg<double, 32, 64, 16, 16, 32, 3, 4, 8, TC_PIPE_STREAM, true, true> dmma_small_cfg;
typedef tc_cfg<double, 32, 32, 32, 16, 16, 3, 3, 8, TC_PIPE_STREAM, true, true> dmma_tiny_cfg;

/* The big and mid tiles. Their XMMA loop (tc_mainloop_f64_xmma) needs k a multiple of 16 and
 * the 16-byte copies. Other problems run it on aligned copies of the operands, k grown with
 * zeros (operand_copy.cuh), where those pay; else the tile on the STEP loop in a kernel of its
 * own (the STEP loop inside the XMMA kernel, which keeps it for its edge tiles, ran
 * 4097x4095x4099 much slower than alone: the two loops share one register allocation).
 * The copies pay from about 900 multiply-adds per element copied (one H100, with and without
 * them, perf/results/h100/gemm-copies.txt: 1000^3, 1025^3 and 1500^3, 500-750 per element,
 * were 7-41% slower with them; 2047^3 and up, 1000 and more, 9-38% faster). */
#define DMMA_COPY_MIN_PER_ELEM 900.0
template <class XmmaCfg, class StepCfg>
static cudaError_t dmma_tile(const mb_gemm_args *p, cudaStream_t s) {
    const int va = tc_vec16<double>(p->A, p->lda), vb = tc_vec16<double>(p->B, p->ldb);
    if (p->k % 16 == 0 && va && vb) return tc_gemm_launch<XmmaCfg, TC_OP_DMMA>(p, s);
    const int64_t k16 = p->k + (16 - p->k % 16) % 16;
    const int grow = k16 != p->k; /* growing k copies both operands */
    mb_gemm_args q;
    void *buf;
    cudaError_t e;
    const int made = oc_begin(p, sizeof(double), grow || !va, grow || !vb, k16,
                              DMMA_COPY_MIN_PER_ELEM, &q, &buf, &e, s);
    if (made < 0) return e;
    if (made) return oc_end(buf, tc_gemm_launch<XmmaCfg, TC_OP_DMMA>(&q, s), s);
    return tc_gemm_launch<StepCfg, TC_OP_DMMA>(p, s);
}

/* Waves of `tiles` blocks over `slots` block slots. */
static int64_t dmma_waves(int64_t tiles, int64_t slots) { return (tiles + slots - 1) / slots; }

/* From one and a half waves of big tiles (396 on an H100 / H200) the big tile; below that, the
 * tile whose waves cost least. A wave costs about the work an SM holds in it (tile area x
 * blocks per SM: 16384 : 12288 : 8192 for big : mid : small) over the tile's rate per SM; the
 * weights 140 : 93 : 95 are fitted to a sweep of every tile at 640-2304 (perf/sweep/
 * sweep_dmid.cu), and pick the measured best tile at nearly every size. A tail-split last
 * wave of big tiles costs 140 / S; fewer big tiles than half the slots with a k deep enough
 * to split into slices of at least 2048 cost 140 / S (split-K, splitk.cuh: this is what
 * serves 8192x128x8192 and 128x8192x8192; with shallower slices the split big tile lost).
 * The mid tile needs 1.5 tiles per SM at least (with about one block per SM it lost to the
 * small tile). Ties go to the larger tile. With fewer small tiles than SMs the tiny tile runs
 * instead, and splits k (splitk.cuh) when its tiles fill less than half of its slots, e.g.
 * 257x129x2051. */
extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    int sms = 132;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    const int64_t big = mb_cdiv(p->m, 128) * mb_cdiv(p->n, 64);
    if (big >= 3 * (int64_t)sms) return dmma_tile<dmma_big_cfg, dmma_big_step_cfg>(p, s);
    /* A last wave of big tiles at most half full is split in k (mb_tail, splitk.cuh): it then
     * costs about 1/S of a wave (e.g. 1536^3: 288 tiles = one wave + 24 in 11 slices); the
     * slab sum is not priced (it measured small against the gain). */
    const mb_tail bt = mb_tail_plan(p, big, dmma_big_cfg::MIN_BLOCKS, dmma_big_cfg::BK,
                                    128 * 64, sizeof(double));
    const mb_splitk bs = mb_splitk_plan(p, big, dmma_big_cfg::MIN_BLOCKS, dmma_big_cfg::BK,
                                        sizeof(double));
    const int64_t cost_big = bs.S > 1 && p->k / bs.S >= 2048 ? 140 / bs.S
                             : bt.S > 1 ? 140 * (bt.t0 / (2 * (int64_t)sms)) + 140 / bt.S
                                        : 140 * dmma_waves(big, 2 * (int64_t)sms);
    const int64_t mid = mb_cdiv(p->m, 64) * mb_cdiv(p->n, 64);
    const int64_t cost_mid = 2 * mid >= 3 * (int64_t)sms ? 93 * dmma_waves(mid, 3 * (int64_t)sms)
                                                         : INT64_MAX;
    const int64_t small = mb_cdiv(p->m, 32) * mb_cdiv(p->n, 64);
    const int64_t cost_small = 95 * dmma_waves(small, 4 * (int64_t)sms);
    if (cost_big <= cost_mid && cost_big <= cost_small)
        return dmma_tile<dmma_big_cfg, dmma_big_step_cfg>(p, s);
    if (cost_mid <= cost_small) return dmma_tile<dmma_mid_cfg, dmma_mid_step_cfg>(p, s);
    if (small <= (int64_t)sms) return tc_gemm_launch<dmma_tiny_cfg, TC_OP_DMMA>(p, s);
    /* never split: from one tile per SM on, splitting lost (e.g. 640^3, 200 tiles) */
    return tc_gemm_launch<dmma_small_cfg, TC_OP_DMMA>(p, s, 1);
}
