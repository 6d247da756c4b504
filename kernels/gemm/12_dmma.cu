/*
 * Rung 12, dmma (dgemm only): the FP64 tensor cores. The SIMT rungs before it issue one DFMA
 * per thread per multiply-add, and an H100/H200 reaches at most ~34 TFLOP/s that way; the FP64
 * tensor cores do a 16x8x4 block of multiply-adds per warp instruction
 * (mma.sync.aligned.m16n8k4.f64, sm_90; two m8n8k4 on sm_80) for a peak of ~67 TFLOP/s, with
 * the same IEEE double-precision fused multiply-adds (same tolerances as any dgemm rung).
 * Operands are staged global -> shared by a multi-stage cp.async pipeline (16-byte copies when
 * the pointer and leading dimension allow it; tile parts outside the matrix are zeroed), so
 * the loads of later k-tiles overlap the tensor-core work on the current one.
 * Tiles chosen per call (session 6, see the end of this comment): 128x64, 64x64, 32x64 or
 * 32x32 blocks of 4 warps, by how evenly their waves fill the SMs; few tiles and deep k:
 * split-K (splitk.cuh). The machinery is shared with the TF32 rungs: tc_common.cuh.
 * Run 3 (H200, first version: m16n8k8, BK = 16, 3 stages, fragment loads unrolled by 2, copies
 * issued before the mma): 30.3 / 31.6 / 40.3 / 40.4 TFLOP/s at n = 1024 / 2048 / 4096 / 8192,
 * 34.2 at 4097x4095x4099 (cuBLAS DGEMM: 52.5 (run 2) / 59.1 / 60.1 / 61.4 / 42.1), i.e. 65-67%
 * of cuBLAS at 4096 and 8192.
 * Since: (1) mma.sync m16n8k4 (DMMA.16x8x4) steps with the next step's fragments loaded into
 * a second register set while this step's 16 independent mma run (double-buffered fragments,
 * stage fully unrolled); (2) the next stage's cp.async are issued after the first k step's
 * mma, not before, so their address arithmetic overlaps tensor-core work; (3) interior tiles
 * copied without per-chunk bounds checks; (4) 4 stages of BK = 16 for the big tiles.
 * nvcc -arch=sm_90 -Xptxas -v (no spills, no static shared memory):
 *   128x128: 238..254 registers, 4 x (33 .. 40) KB = 132 .. 160 KB (BK 16; BK 32 x 3 stages: 255, 207 KB)
 *   128x64:  234..252 registers, dynamic shared memory 3 x (50 .. 54) KB = 149 .. 162 KB
 * Measured (runs 4-5): 45.2-45.5 TFLOP/s at 4096 / 8192 = 75% of cuBLAS DGEMM; 80-82% on
 * 4097x4095x4099; ~74% at 1024.
 * Session 3: a sweep of 16 tile configurations (perf/sweep/run.sh, one run, NN, median of 5)
 * found the big tile better with BK = 32 and 3 stages (207 KB of shared memory, 255
 * registers, no spill): 47.9 TFLOP/s at 4096 (78.3% of cuBLAS; BK 16 x 4 stages: 45.4,
 * 74.3%), 46.0 at 8192 (82.9%; 44.4, 79.9%), 34.3 on 4097x4095x4099 (92.0%; 86.9%). No
 * configuration reached 90% at 4096: 5 or 6 stages of BK 16, warp tiles 64x32, 16 warps,
 * 128x64 / 64x128 blocks at 2 per SM all gave 71-82%. The big tile is now BK 32 x 3 stages;
 * the small one (1024: 73.5%, best in the sweep 76.9% with 64x64 blocks) is unchanged.
 * Session 4: three compile-time options of tc_common.cuh, swept (29 configurations, one run,
 * NN, median of 5; cuBLAS DGEMM in the same run 60.8 / 56.0 / 41.9 / 47.7 TFLOP/s at 4096 /
 * 8192 / 4097x4095x4099 / 1024; the GPU ran at its 700 W power cap, 1.65-1.97 GHz):
 *   - DK = 16: mma.sync m16n8k16 f64 (sm_90; 4 times the work of m16n8k4 per instruction, a
 *     quarter of the fragment-load instructions);
 *   - LEAN: interior-tile copies from one base address and one row stride per thread (frees
 *     registers across the k loop);
 *   - PIPE: one fragment register set (STEP1), or the "stream" loop (B fragments one n tile
 *     ahead, the stage barrier moved before the stage's last mma column).
 *   big 128x128x32, warps 64x32, k16, one register set, lean: 51.7 TFLOP/s at 4096 (85.0%; the
 *     old big tile in the same run 80.6%), 48.6 at 8192 (86.6%; old 70.6-80.7%: the 8192 rows
 *     vary most), 35.8 on 4097x4095x4099 (85.5%); 254 registers, 36 bytes of spill.
 *   small 128x64x32, warps 32x32, k16, stream loop, lean: 39.2 TFLOP/s at 1024 (82.2%; old
 *     73.3%); 255 registers, no spill.
 * Both adopted. Still short of 90% of cuBLAS at 4096 / 8192.
 * Session 5: where the time went (perf/sweep/dmma_probe.cu): without global loads the big
 * kernel reached ~98% of cuBLAS, but loads that all hit L2 were no faster, so not bandwidth:
 * one 8-warp block per SM cannot hide the loads' and barriers' stalls. cuBLAS's own kernel
 * (ncu: sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_tilesize128x64x16_stage3_warpsize2x2x1_
 * tensor16x8x8) is 128x64x16 with 4 warps of 64x32, 2 blocks per SM, m16n8k8, 3 stages. The
 * same shape from this template is the big tile now (one wave of 128x64 blocks at two per
 * SM: 264 tiles): sweep (run 5) 90.2% of cuBLAS at 4096, 91.8% at 8192 (previous big tile
 * 78.9% / 85% in the same run; 4 stages, k4, k16, 64x128 and BK 32 x 2 stages all slower);
 * miniblas-bench runs 4, 6, 7: 88-91% at 4096, 88-100% at 8192 (the 700 W cap moves both
 * kernels by ~5% from run to run); 246-254 registers, 79.5 KB of shared memory per block.
 * Session 6: mid sizes. ncu names cuBLAS's kernels there: 32x64x32 tiles of 4 warps (16x32
 * each, m16n8k16, 3 stages) at 512, 896, 1536 and 1000x600x700, 64x64x16 in 4 stages at 640,
 * no split-K. A sweep of tiles x split-K slice counts (perf/sweep/sweep_dmid.cu, run 5, NN,
 * % of cuBLAS): 32x64x16 at 4 blocks per SM (128 registers, 43.5 KB) 108.7 / 71.7 / 76.9 /
 * 75.8 / 76.4 / 77.8 / 77.1 at 512 / 640 / 768 / 896 / 1024 / 1280 / 1536; 64x64x16 at 3 per SM
 * 73.9 at 1152 (32x64: 64.1, two waves), 77.8 at 1536; the big tile 84.3 / 86.3 at 2048 /
 * 3072 (64x64: 81.3 / 74.2). Session 5's rules (small 128x64x32 tile of 8 warps, big tile
 * with split-K between 66 and 99 tiles) measured 68 / 73 / 57 / 52 / 67% at 640 / 768 / 896 /
 * 1152 / 1536 in the same run. Split-K did not pay at these sizes beyond a few percent (a
 * version that summed the slabs in the last block of each tile instead of a second kernel
 * was slower still: 0.17 -> 0.24 ms at 1536^3 in 2 slices). Then (runs 9-17): the small tile
 * on the stream fragment loop (768^3 78 -> 90% in the sweep), a tiny 32x32x32 tile where the
 * small one leaves SMs without a block (512^3 67-69 -> 77-79% in the benchmark), and lean
 * copies for edge tiles (tc_load_tile; 1000x600x700 62-65 -> 68-71%). miniblas-bench run 17
 * (NN / TT): 512 79 / 77, 640 75 / 81, 768 85 / 88, 896 82 / 86, 1024 83 / 82, 1536 81 / 79,
 * 2048 81 / 84, 4096 85 / 89, 8192 87 / 90% of cuBLAS DGEMM (session 5: 57-98, 65, 72-74,
 * 54-56, 77-80, 63-64, 86-87, 88-91, 88-100).
 * Session 8 (H100): edge tiles computed from inside the matrix (tc_edge_shift: 1000x600x700
 * 68 -> 92%) and a last wave at most half full split in k in the same launch (mb_tail:
 * 2560^3 80 -> 91%; the tile rule prices such a wave of big tiles at 160 / S + 16, so
 * 1536^3 now runs the big tile: 74-78 -> 87-89%). miniblas-bench run 7 (NN / TT): 1024 81 /
 * 80, 1152 73 / 72, 1536 89 / 88, 2048 83 / 84, 2560 91 / 91, 4096 87 / 86, 8192 88 / 89%
 * (on another H100 machine, runs 2-4: 4096 89-94, 8192 90-93%).
 * Session 9 (H100): ncu at base clocks put the big tile's tensor pipe at 84% busy against 98%
 * for cuBLAS's kernel of the same shape (so cycles, not power, were the gap); its SASS showed
 * how it keeps a single warp feeding the pipe. The big tile now runs that schedule
 * (TC_PIPE_XMMA, tc_mainloop_f64_xmma: 93% busy) where k % 16 == 0 and the copies are
 * 16-byte, else the STEP loop in a kernel of its own. miniblas-bench run 7 (NN / TT): 1536
 * 95 / 96, 2048 94 / 95, 2560 102 / 101, 3072 95 / 95, 4096 97 / 96, 8192 98 / 98, 4097x4095x4099
 * 83 / 80% (STEP loop, unchanged) of cuBLAS DGEMM. The mid tile on the same loop gained 6-10
 * points (1152^3 72 -> 78%, 1216^3 84 -> 90%, run 12), and the tile rule was refitted to every
 * tile measured at 640-2304 (runs 10, 12-14; see mb_dgemm_dmma).
 */
#include "tc_common.cuh"

/* Four tiles (session 6), all 4 warps with m16n8k8, 3 stages, lean copies, BK = 16 but tiny:
 *   big   128x64 (warps 64x32), 2 blocks per SM: cuBLAS's large-size tile, on its schedule
 *          (TC_PIPE_XMMA, session 9);
 *   mid    64x64 (warps 32x32), 3 blocks per SM, on the XMMA loop too (session 9);
 *   small  32x64 (warps 16x32), 4 blocks per SM, fed by the stream loop (fragments one n
 *          tile ahead, the barrier before the stage's last column): cuBLAS runs 32x64 tiles
 *          from 512 to 1536. (The stream loop made the big tile slower and the mid one no
 *          faster: sweep, run 10.)
 * and where the small tile would not give every SM a block, a tiny one:
 *   tiny   32x32x32 (warps 16x16), 3 blocks per SM, stream loop (512^3: 119% of cuBLAS in
 *          the sweep's single launches against the small tile's 101%, run 12). */
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_XMMA, true> dmma_big_cfg;
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_STEP2, true> dmma_big_step_cfg;
typedef tc_cfg<double, 64, 64, 16, 32, 32, 3, 3, 8, TC_PIPE_XMMA, true> dmma_mid_cfg;
typedef tc_cfg<double, 64, 64, 16, 32, 32, 3, 3, 8, TC_PIPE_STEP2, true> dmma_mid_step_cfg;
typedef tc_cfg<double, 32, 64, 16, 16, 32, 3, 4, 8, TC_PIPE_STREAM, true> dmma_small_cfg;
typedef tc_cfg<double, 32, 32, 32, 16, 16, 3, 3, 8, TC_PIPE_STREAM, true> dmma_tiny_cfg;

/* The big and mid tiles. Their XMMA loop (tc_mainloop_f64_xmma) needs k a multiple of 16 and
 * the 16-byte copies; other problems run the tile on the STEP loop in a kernel of its own (the
 * STEP loop that the XMMA kernel keeps for its edge tiles ran 4097x4095x4099 NN at 68% of
 * cuBLAS against 82% alone, session 9 run 6: the two loops share one register allocation). */
template <class XmmaCfg, class StepCfg>
static cudaError_t dmma_tile(const mb_gemm_args *p, cudaStream_t s) {
    if (p->k % 16 == 0 && tc_vec16<double>(p->A, p->lda) && tc_vec16<double>(p->B, p->ldb))
        return tc_gemm_launch<XmmaCfg, TC_OP_DMMA>(p, s);
    return tc_gemm_launch<StepCfg, TC_OP_DMMA>(p, s);
}

/* Waves of `tiles` blocks over `slots` block slots. */
static int64_t dmma_waves(int64_t tiles, int64_t slots) { return (tiles + slots - 1) / slots; }

/* From one and a half waves of big tiles (396 on an H100 / H200) the big tile; below that, the
 * tile whose waves cost least. A wave costs about the work an SM holds in it (tile area x
 * blocks per SM: 16384 : 12288 : 8192 for big : mid : small) over the tile's rate per SM.
 * Session 6 fitted 160 : 130 : 75 per wave to the sweep from 512 to 3072; since the big and
 * mid tiles run the XMMA loop they are refitted to session 9's measurements of every tile at
 * 640-2304 (runs 10, 12-14; the rule picks the measured best at every size but 1600, where the
 * mid tile beat the big one by 2-3 points, and 1856 and 1920, by 8-10): 140 : 93 : 95. A
 * tail-split last wave of big tiles costs 140 / S; fewer big tiles than half the slots with
 * a k deep enough to split into slices of at least 2048 cost 140 / S (split-K, splitk.cuh: run 10,
 * 8192x128x8192 and 128x8192x8192 86-98% of cuBLAS against 79-82% on the small tile; with
 * shallower slices, 896^3 and 1024^3, the split big tile lost). The mid tile needs 1.5 tiles
 * per SM at least: with about one block per SM it ran 768^3 at 76% against the small tile's
 * 85%. Ties go to the larger tile. With fewer small tiles than SMs the tiny tile runs
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
     * costs about 1/S of a wave (session 8: 1536^3, 288 tiles = one wave + 24 in 11 slices,
     * 92% of cuBLAS in the sweep against the small tile's 70%); the slab sum is not priced
     * (session 9: 1664^3 on the big tile 95-100%, on the mid tile 87-91%). */
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
    /* never split: from one tile per SM splitting lost (640^3, 200 tiles: 71.7% of cuBLAS
     * unsplit, 65.8% in 2 slices) */
    return tc_gemm_launch<dmma_small_cfg, TC_OP_DMMA>(p, s, 1);
}
