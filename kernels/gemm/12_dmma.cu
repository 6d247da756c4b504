/*
 * Rung 12, dmma (dgemm only): the FP64 tensor cores. The SIMT rungs before it issue one DFMA
 * per thread per multiply-add, and an H100/H200 reaches at most ~34 TFLOP/s that way; the FP64
 * tensor cores do a 16x8x4 block of multiply-adds per warp instruction
 * (mma.sync.aligned.m16n8k4.f64, sm_90; two m8n8k4 on sm_80) for a peak of ~67 TFLOP/s, with
 * the same IEEE double-precision fused multiply-adds (same tolerances as any dgemm rung).
 * Operands are staged global -> shared by a multi-stage cp.async pipeline (16-byte copies when
 * the pointer and leading dimension allow it; tile parts outside the matrix are zeroed), so
 * the loads of later k-tiles overlap the tensor-core work on the current one.
 * Tiles chosen per call (session 5, see the end of this comment): 128x64x16 blocks of 4
 * warps (64x32 each), two blocks per SM, when there is at least one wave of them, else
 * 128x64x32 blocks of 8 warps (32x32 each) so that mid sizes (n ~ 1024) still fill all 132
 * SMs; few tiles and deep k: split-K (splitk.cuh). The machinery is shared with the TF32 rungs: tc_common.cuh.
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
 */
#include "tc_common.cuh"

typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_STEP2, true> dmma_big_cfg;
typedef tc_cfg<double, 128, 64, 32, 32, 32, 3, 1, 16, TC_PIPE_STREAM, true> dmma_small_cfg;

/* The big tile from one wave of 128x64 blocks at two per SM (264 on an H100/H200); below that
 * the small tile (one per SM), except where the small tile would leave a quarter of the SMs
 * idle and has too many tiles to split k (between half and three quarters of the SM count):
 * there the big tile splits k instead. Session 5 run 9 (big tile + split-K for every grid
 * below half a wave of it): 768^3 (72 tiles) 26.2-27.3 TFLOP/s = 72-75% of cuBLAS against
 * 23.1-23.3 (64%) with the small tile; 512^3 and 1024^3 slower (15.8-16.1 / 35.9-36.8 against
 * 17.8 / 41.6-42.1). */
extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s) {
    const mb_gemm_args *p = (const mb_gemm_args *)a;
    const int64_t tiles = mb_cdiv(p->m, 128) * mb_cdiv(p->n, 64);
    int sms = 132;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    if (tiles >= 2 * (int64_t)sms || (2 * tiles > sms && 4 * tiles < 3 * (int64_t)sms))
        return tc_gemm_launch<dmma_big_cfg, TC_OP_DMMA>(p, s);
    return tc_gemm_launch<dmma_small_cfg, TC_OP_DMMA>(p, s);
}
