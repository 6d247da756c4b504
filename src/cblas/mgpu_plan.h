/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The split of a staged gemm over several GPUs, the pieces of a reduction on pinned host
 * vectors, and which pinned pieces are packed rather than DMA'd (pure C, no CUDA;
 * tests/test_cblas_split_cpu.c).
 *
 * The one-GPU schedule (gpu_gemm.c) cuts C into column panels pc[0] = 0 < pc[1] < ... <
 * pc[npan] = n. The first `head` panels (those below the last of A's row blocks) are computed
 * by gemms that span several panels and parts of the rows; every later panel is computed by
 * gemms of its own, over all the rows. A split gives each device a contiguous run of whole
 * panels: device d owns panels [first[d], first[d + 1]); device 0 owns the head, so every gemm
 * of the one-GPU schedule is made, with the same shape and the same place in C, by exactly one
 * device (see gpu_gemm.c for why the results are then identical).
 */
#ifndef MBC_MGPU_PLAN_H
#define MBC_MGPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define MBC_SPLIT_MAX 64 /* devices of one split (MBC_MAX_DEVICES) */

typedef struct mbc_split {
    int ndev;                          /* devices used (1: no split) */
    int64_t first[MBC_SPLIT_MAX + 1];  /* device d: panels [first[d], first[d + 1]) */
} mbc_split;

/* The least share of C worth an extra device, in columns. An extra device stages all of A
 * again (m k elements) for the m w k multiply-adds of its w columns. Operands in pinned memory
 * are DMA'd by each device over its own link: shares of 2048 columns pay (2 H100s, n = 8192:
 * sgemm 1.39x, dgemm 1.31x of one GPU). Pageable operands are packed by the host into pinned
 * buffers, once more per device for A, and the host's copy bandwidth is shared: 4096 columns
 * lost (n = 8192: sgemm 0.91x), 8192 gained (n = 16384: sgemm 1.46x, dgemm 1.05x;
 * perf/results/h100x2/mgpu.csv). */
#define MBC_SPLIT_MIN_COLS 2048
#define MBC_SPLIT_MIN_COLS_PAGEABLE 8192
/* And the whole call must be big enough that one GPU needs milliseconds for it: m n k of at
 * least 2048^3 (sgemm 2048^3: about 0.5 ms of kernel on an H100 class GPU; waking the
 * device threads and their first copies cost tens of microseconds). */
#define MBC_SPLIT_MIN_VOLUME ((double)2048 * 2048 * 2048)

/* The column panels of C of a staged m x n gemm (gpu_gemm.c): n/8 wide and at least one wave
 * of 128x128 tiles (2M elements of C), then the last ones halving down to that (the taper):
 * the tail after the last gemm is its panel's copy back, short when that panel is narrow. At
 * 8192: 7 x 1024, 512, 256, 256 (sgemm 8192, H100: 18.4-18.7 ms; without the taper
 * 19.1-20.4). panel > 0 (the tuning key panel) sets the width; the taper then halves down to
 * a quarter of it (multiples of 32). Fills pc[0 .. npan] (at most MBC_MAXPAN panels) and
 * *nb (the widest); returns npan. A function of its arguments only. */
#define MBC_MAXPAN 64
int64_t mbc_gemm_panels(int64_t m, int64_t n, int64_t panel, int64_t *pc, int64_t *nb);

/* A's row blocks in phase 2: 4 of mb rows (a multiple of 64; 1 and 2 blocks were measured
 * slower) where A is staged and m >= 512, else one of m rows. Returns their count. */
int64_t mbc_row_blocks(int64_t m, int a_staged, int64_t *mb);

/* Whether a panel `width` columns wide is computed, over the rest of k, by one gemm per row
 * block of A (nblk blocks of mb rows) rather than one over all rows: where a block's product
 * has at least row_k K elements of C (the tuning key row_gemm_k; <= 0: never). */
int mbc_by_rows(int64_t nblk, int64_t mb, int64_t width, int64_t row_k);

/* The head of the one-GPU schedule: the first nblk - 1 panels (at most npan), whose gemms over
 * the rest of k span several panels and part of the rows; 0 where head_rows (the tuning key of
 * that name) is on and every one of them is by rows (mbc_by_rows): the one-GPU schedule then
 * computes each of them by one gemm per (row block x panel), as a later device does, and a
 * split may cut anywhere. Pure: a function of its arguments only. */
int64_t mbc_split_head(int64_t npan, const int64_t *pc, int64_t nblk, int64_t mb, int64_t row_k,
                       int head_rows);

/* Plan the split of npan panels (boundaries pc[0..npan]) over at most ndev devices; the first
 * `head` panels stay on device 0. min_cols: the least columns of a share (the columns of
 * device 0's share count its head too). m, k: the rest of the shape (the volume threshold);
 * min_cols <= 0 and min_volume <= 0 turn the thresholds off. Deterministic: a function of its
 * arguments only. Always succeeds; sp->ndev == 1 means no split. */
void mbc_split_plan(int64_t npan, const int64_t *pc, int64_t head, int ndev, int64_t m,
                    int64_t k, int64_t min_cols, double min_volume, mbc_split *sp);

/*
 * Reductions (asum, dot) whose host vectors are all pinned, with unit increments: the vector
 * is cut into pieces of a length that depends on n only (MBC_VEC_PIECE elements, doubled
 * until there are at most MBC_VEC_MAX_PIECES; the last piece shorter), each piece reduced by
 * one native call, and the piece results added on the host in piece order (mbc_vec_combine).
 * Several devices each take a contiguous run of whole pieces; as every piece is reduced by
 * the same call on a vector of the same length and alignment (GPUs of one model), the result
 * is bitwise the same on 1, 2 or N devices.
 */
#define MBC_VEC_PIECE ((int64_t)1 << 22)
#define MBC_VEC_MAX_PIECES 1024
/* The least share worth an extra device, in elements of each vector of sasum and sdot (dasum
 * and ddot: half as many, the same bytes). The call is bound by the copy of the vectors to
 * the GPUs: pinned memory is DMA'd by each GPU over its own link, and two GPUs together copy
 * about twice as fast as one; a share of 2^23 floats (32 MB) is 0.6 ms of copy at 55 GB/s,
 * long against waking the device threads (tens of microseconds). */
#define MBC_VEC_SPLIT_MIN ((int64_t)1 << 23)

typedef struct mbc_vec_plan {
    int64_t n;                        /* elements */
    int64_t piece;                    /* elements of a piece (the last one: what is left) */
    int64_t npieces;
    int ndev;                         /* devices used (1: no split) */
    int64_t first[MBC_SPLIT_MAX + 1]; /* device d: pieces [first[d], first[d + 1]) */
} mbc_vec_plan;

/* Plan the pieces of a vector of n >= 1 elements and their split over at most ndev devices,
 * each share at least min_share elements (<= 0: any). Shares are contiguous runs of whole
 * pieces, the boundaries at the piece edges nearest to even shares of n. Deterministic: a
 * function of its arguments only; the pieces depend on n alone. */
void mbc_vec_plan_make(int64_t n, int ndev, int64_t min_share, mbc_vec_plan *vp);
/* Piece p: elements [*start, *start + *len). */
void mbc_vec_piece(const mbc_vec_plan *vp, int64_t p, int64_t *start, int64_t *len);
/* The result from the piece results r[0 .. npieces): added in double in piece order, from
 * r[0] (one piece: its result exactly). The float routines round this once, to float. */
double mbc_vec_combine(const double *r, int64_t npieces);

/* Whether a pinned rows x cols piece (leading dimension lds, elements of e bytes) is packed
 * into the staging chunks rather than DMA'd from where it is: several columns, not
 * contiguous, each shorter than kb KB (the tuning key pin_row_kb; 0: never). kb < 0, the
 * default: 32 on one GPU, 8 for a share of a gemm split over several GPUs (split). A 2D DMA
 * from pinned memory moves columns of 1-4 KB at 50-60% of the link's speed and of 8-16 KB at
 * 90% (perf/sweep/dma2d_probe.cu). One GPU has the copy threads to itself: dgemm 8192 on one
 * H100 took 29.6 ms with columns under 32 KB packed, 33.0 under 8 KB, 36.3 with none; the
 * shares of a split draw on the same copy threads: sgemm 8192 on two H100s took 13.7 ms with
 * columns under 8 KB packed, 21.8 under 32 KB (perf/results/h100x2/pin-row.txt). */
int mbc_pin_pack(int64_t rows, int64_t cols, int64_t lds, size_t e, int64_t kb, int split);

#endif
