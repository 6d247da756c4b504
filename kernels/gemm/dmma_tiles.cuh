/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 12's tile configurations (12_dmma.cu), in a header of their own so that a CPU test
 * (tests/test_tc_layout_cpu.cu) checks the shared layouts the kernels use.
 */
#ifndef MINIBLAS_GEMM_DMMA_TILES_CUH
#define MINIBLAS_GEMM_DMMA_TILES_CUH

#include "tc_config.cuh"

/* Four tiles, all 4 warps with m16n8k8, 3 stages (the mid tile 4), lean copies (and the big
 * tile's 8-warp variant for calls of at most one wave with a deep k, below):
 *   big   128x64x16 (warps 64x32), 2 blocks per SM: cuBLAS's large-size tile (TC_PIPE_XMMA),
 *          padded shared rows;
 *   mid    64x64x16 (warps 32x32), 4 stages, 3 blocks per SM;
 *   small  32x64x32 (warps 16x32), 3 blocks per SM: cuBLAS's tile at 512^3-1152^3;
 *   tiny   32x32x32 (warps 16x16), 3 blocks per SM.
 * The last three keep their shared tiles unpadded, swizzled (tc_swz): the pads would cost the
 * small tile its third block per SM (81 KB a block). Their interior tiles (k a multiple of
 * BK, 16-byte copies) run the lean loop (tc_mainloop_f64_lean: lean copies without a branch,
 * two fragment sets by k step, unrolled by the stages), the others the stream loop (fragments
 * one n tile ahead, guarded copies).
 * The tiles were chosen by a sweep of padded and swizzled tiles on one H100
 * (perf/results/h100/dgemm-swizzle/: the same 32x64x16 tile at 4 per SM took 3-24% less
 * time swizzled than padded from 640^3 to 4096^3; on the lean loop, 32x64x32 at 3 per SM
 * reached 89-97% of cuBLAS DGEMM's speed at 640^3-1280^3). */
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_XMMA, true> dmma_big_cfg;
/* The deep tile: the big tile's warps and loop on a 128x128 block of 8 warps, one block per
 * SM (up to 120 KB of shared memory). It takes the big tile's calls of at most one wave with
 * blocks at least 2048 deep (split in k or not; 12_dmma.cu, dmma_deep). The FP64 tensor pipe
 * runs such calls at the H100's 700 W power cap, and a 128x128 block moves a quarter fewer
 * operand bytes per multiply-add from L2 than the big tile: 3-12% less time there
 * (perf/results/h100/dgemm-deep/). With more tiles than slots it was level or slower. */
typedef tc_cfg<double, 128, 128, 16, 64, 32, 3, 1, 8, TC_PIPE_XMMA, true> dmma_deep_cfg;
typedef tc_cfg<double, 128, 64, 16, 64, 32, 3, 2, 8, TC_PIPE_STEP2, true> dmma_big_step_cfg;
typedef tc_cfg<double, 64, 64, 16, 32, 32, 4, 3, 8, TC_PIPE_STREAM, true, true> dmma_mid_cfg;
/* The mid tile on the big tile's XMMA loop, 2 blocks per SM (at 3 its 168 registers spilled
 * 76-372 bytes; at 2 it holds 232-242 without spills, the DMMA results on one scoreboard).
 * Where its tiles fit one wave of 2 per SM and every tile can run that loop (12_dmma.cu,
 * dmma_mid_xmma) it takes the mid tile's calls: 2-8% less time at 1024^3 and at most shapes
 * of 240-256 such tiles on an H200, level at 1024x1024x512 (perf/results/h200/dgemm-mid-xmma/). */
typedef tc_cfg<double, 64, 64, 16, 32, 32, 4, 2, 8, TC_PIPE_XMMA, true, true> dmma_mid_xmma_cfg;
typedef tc_cfg<double, 32, 64, 32, 16, 32, 3, 3, 8, TC_PIPE_STREAM, true, true> dmma_small_cfg;
/* The small tile on the big tile's XMMA loop: 32x64x16 in 4 stages, warps of 32x16 (the loop
 * needs two m16 row tiles per warp), 3 blocks per SM. Where k is a multiple of 16, both
 * operands take 16-byte copies and every edge tile can be shifted inside the matrix
 * (12_dmma.cu, dmma_all_xmma), it takes the small tile's calls: on its straight line ptxas
 * tracks the DMMA results on one scoreboard (the lean loop: five), and it took 1-6% less
 * time where the small tile runs (640^3, 896^3, 1152^3, 1280^3) on an H200
 * (perf/results/h200/dgemm-small-xmma/). */
typedef tc_cfg<double, 32, 64, 16, 32, 16, 4, 3, 8, TC_PIPE_XMMA, true, true> dmma_small_xmma_cfg;
typedef tc_cfg<double, 32, 32, 32, 16, 16, 3, 3, 8, TC_PIPE_STREAM, true, true> dmma_tiny_cfg;

#endif
