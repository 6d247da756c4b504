/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared machinery of the tensor-core GEMM rungs (12_dmma, 12_tf32, 13_tf32x3; 14_wgmma_tf32x3
 * reuses its tile configuration, stage loaders, A-fragment reads and TF32 split): one tiled,
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
 * The pads make the fragment reads conflict-free (tc_cfg, tc_config.cuh).
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

/* The parts, each including what it needs:
 *   tc_config.cuh    op and pipeline ids, tc_cfg, index helpers, tile scheduling
 *   tc_copy.cuh      cp.async wrappers, tile and stage loaders
 *   tc_mma.cuh       mma.sync wrappers, TF32 conversion, fragment gathers, 3xTF32 split
 *   tc_mainloop.cuh  per-warp stage products, the FP64 STREAM / XMMA main loops
 *   tc_kernel.cuh    the kernel, the tail reduction, the launchers
 * (split-K: splitk.cuh; the 3xTF32 range guard: x3guard.cuh) */
#include "tc_kernel.cuh"

#endif
