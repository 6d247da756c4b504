/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream-K schedule of rung 13 streamk_dmma (13_streamk_dmma.cu), in plain C so that a
 * CPU test (tests/test_streamk_plan_cpu.c) checks the very functions the kernel runs.
 *
 * A persistent grid of `workers` blocks (the GPU's resident capacity for the kernel). C has
 * `tiles` output tiles, each `iters` k-tiles deep; iteration i of the whole problem is k-tile
 * i % iters of tile i / iters. The split (CUTLASS's data-parallel + stream-K rule):
 *   waves = ceil(tiles / workers);
 *   sk_tiles = waves <= 2 ? tiles : workers + tiles % workers;
 * tiles [0, tiles - sk_tiles) are data-parallel (whole waves: worker w takes w, w + workers,
 * ...); the sk_tiles * iters iterations after them are cut into sk_workers contiguous ranges
 * as equal as integers allow: worker w < sk_workers takes [mb_sk_start(w), mb_sk_start(w + 1)).
 * A range covers the end of one tile (its first segment, starting at a k-tile > 0), then whole
 * tiles, then the start of one tile (its last segment, from k-tile 0). Hence:
 *   - a segment that does not start at k-tile 0 is the FIRST segment of its worker's range,
 *     and starts at mb_sk_start(w): worker w writes it to partial slot w - 1 and sets flag w;
 *   - the segment from k-tile 0 of a tile shared by several workers is the LAST segment of
 *     its owner's range; the owner adds the partials of workers w + 1, w + 2, ... (in that
 *     order, which is increasing k) while mb_sk_start(v) < the tile's end (mb_sk_contrib).
 * Workspace (mb_sk_work_bytes): flags (one unsigned per worker, zeroed before each launch),
 * then sk_workers - 1 partial slots of one tile each.
 */
#ifndef MINIBLAS_GEMM_STREAMK_H
#define MINIBLAS_GEMM_STREAMK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define MB_SK_HD __host__ __device__ static inline
#else
#define MB_SK_HD static inline
#endif

/* The tile of rung 13 (13_streamk_dmma.cu, sk_cfg; rung 12's big tile): rows and columns of C,
 * k depth of one k-tile, and the blocks per SM it is built for (__launch_bounds__). */
#define MB_SK_BM 128
#define MB_SK_BN 64
#define MB_SK_BK 16
#define MB_SK_BLOCKS_PER_SM 2

/* Where `auto` takes rung 13 (mb_sk_pays), measured on H100 (perf/results/h100/streamk/). */
/* Most waves of tiles: with more, the idle part of a partial last wave is a smaller share and
 * the fixup costs more (4096^3 and 8192^3 lost). */
#define MB_SK_PAYS_MAX_WAVES 2
/* Fill of the last wave, percent, inclusive: emptier, rung 12 splits its k or takes smaller
 * tiles (1024^3 and 1792^3, 48% full, lost); fuller, little idles (1408^3, 92% full, lost). */
#define MB_SK_PAYS_FILL_MIN 55
#define MB_SK_PAYS_FILL_MAX 85
/* NN with less than one wave of tiles: from this k the k-tiles balanced over every SM beat
 * rung 12 (8192x128x8192 and 128x8192x8192 won, 1024^3 lost); transposed (TT) did not. */
#define MB_SK_PAYS_NN_MIN_K 4096

/* Fewest k-tiles a stream-K worker must get: two pipeline depths of the 3-stage loop, so that a
 * piece's prologue and its partial's write and read are amortised (a first guess, to be tuned
 * on the GPU: 512^3, 32 tiles of 32 k-tiles over 256 workers, gets 4 and falls back). */
#define MB_SK_MIN_ITERS 6
/* Flags region: one unsigned per worker, rounded up to 256 bytes (slots stay aligned). */
#define MB_SK_FLAG_BYTES(workers) ((((size_t)(workers) * 4u) + 255u) & ~(size_t)255u)

typedef struct mb_sk_plan {
    int64_t tiles;      /* output tiles */
    int64_t iters;      /* k-tiles per tile */
    int64_t workers;    /* blocks of the persistent grid */
    int64_t dp_tiles;   /* tiles [0, dp_tiles) data-parallel: a multiple of workers */
    int64_t sk_workers; /* workers [0, sk_workers) share the stream-K iterations */
} mb_sk_plan;

/* First stream-K iteration of worker w (0 <= w <= sk_workers; w = sk_workers: the end). */
MB_SK_HD int64_t mb_sk_start(const mb_sk_plan *pl, int64_t w) {
    const int64_t sk_iters = (pl->tiles - pl->dp_tiles) * pl->iters;
    return pl->dp_tiles * pl->iters + sk_iters * w / pl->sk_workers;
}

/* Whether worker v (> the owner of tile t) contributes a partial to tile t: its range is not
 * empty and starts inside tile t (after k-tile 0). The owner walks v = w + 1, w + 2, ... while
 * this holds (ranges are increasing, so the contributors are consecutive workers). */
MB_SK_HD int mb_sk_contrib(const mb_sk_plan *pl, int64_t v, int64_t t) {
    if (v >= pl->sk_workers) return 0;
    const int64_t s = mb_sk_start(pl, v);
    return s < (t + 1) * pl->iters && s > t * pl->iters && mb_sk_start(pl, v + 1) > s;
}

/* A worker's next segment: its data-parallel tiles first (*dp: the next, stepping by
 * `workers`), then its stream-K range (*it up to it_end). Sets tile *t and k-tiles [*kb, *ke)
 * and returns 1, or returns 0 when the worker is done. */
MB_SK_HD int mb_sk_next(const mb_sk_plan *pl, int64_t *dp, int64_t *it, int64_t it_end,
                        int64_t *t, int64_t *kb, int64_t *ke) {
    const int64_t I = pl->iters;
    if (*dp < pl->dp_tiles) {
        *t = *dp, *kb = 0, *ke = I;
        *dp += pl->workers;
        return 1;
    }
    if (*it >= it_end) return 0;
    *t = *it / I, *kb = *it % I;
    *ke = it_end - *t * I < I ? it_end - *t * I : I;
    *it = *t * I + *ke;
    return 1;
}

/* Element offsets, in A and in B, of k = k0 for a segment that starts there: the kernel's
 * loaders read op(A)(i, k) at A[k + i lda] when A is K-contiguous (akc: transposed) and at
 * A[i + k lda] otherwise, op(B)(k, j) at B[k + j ldb] when B is K-contiguous (bkc: not
 * transposed) and at B[j + k ldb] otherwise (column-major after normalisation); a segment's
 * operands start where those put k = k0. */
MB_SK_HD void mb_sk_operand_offsets(int akc, int bkc, int64_t lda, int64_t ldb, int64_t k0,
                                    int64_t *off_a, int64_t *off_b) {
    *off_a = akc ? k0 : k0 * lda;
    *off_b = bkc ? k0 : k0 * ldb;
}

/* Workspace bytes the plan needs (tile_bytes: one partial tile). */
static inline size_t mb_sk_work_bytes(const mb_sk_plan *pl, size_t tile_bytes) {
    return MB_SK_FLAG_BYTES(pl->workers) + (size_t)(pl->sk_workers - 1) * tile_bytes;
}

/* The plan for `tiles` tiles of `iters` k-tiles on `workers` resident blocks with work_bytes
 * of workspace. Returns 1 with *pl set, or 0 where stream-K does not run (the caller falls
 * back to data-parallel tiles):
 *   - fewer than 2 workers, or the tiles fill whole waves (tiles % workers == 0: nothing to
 *     balance);
 *   - the workspace holds the partials of fewer than half of the workers (sk_workers is the
 *     number whose partials fit, at most `workers`; the others only take data-parallel tiles);
 *   - fewer than MB_SK_MIN_ITERS k-tiles per stream-K worker (tiny problems, where the
 *     fixup would cost more than the balance gains). */
static inline int mb_sk_make_plan(int64_t tiles, int64_t iters, int64_t workers,
                                  size_t work_bytes, size_t tile_bytes, mb_sk_plan *pl) {
    if (workers < 2 || tiles < 1 || iters < 1 || tiles % workers == 0) return 0;
    const int64_t waves = (tiles + workers - 1) / workers;
    const int64_t sk_tiles = waves <= 2 ? tiles : workers + tiles % workers;
    const size_t flags = MB_SK_FLAG_BYTES(workers);
    if (work_bytes < flags + tile_bytes) return 0;
    int64_t skw = 1 + (int64_t)((work_bytes - flags) / tile_bytes);
    if (skw > workers) skw = workers;
    if (2 * skw < workers) return 0;
    if (sk_tiles * iters < (int64_t)MB_SK_MIN_ITERS * skw) return 0;
    pl->tiles = tiles;
    pl->iters = iters;
    pl->workers = workers;
    pl->dp_tiles = tiles - sk_tiles;
    pl->sk_workers = skw;
    return 1;
}

/* Whether `auto` should take rung 13 for C m x n, inner dimension k (transa, transb: 1 when
 * op(A), op(B) is transposed, after the column-major normalisation) on a GPU of `sms` SMs
 * (0: unknown, never). A wave is MB_SK_BLOCKS_PER_SM x sms tiles of MB_SK_BM x MB_SK_BN. It
 * pays where the tiles are at most MB_SK_PAYS_MAX_WAVES waves with the last wave
 * MB_SK_PAYS_FILL_MIN..MB_SK_PAYS_FILL_MAX percent full, or, NN only, fewer than one wave
 * with k >= MB_SK_PAYS_NN_MIN_K. Never where rung 13 runs rung 12 for every operand of the
 * shape (m < MB_SK_BM, n < MB_SK_BN, k not a multiple of MB_SK_BK); its other fallbacks (too
 * few k-tiles per block, too little workspace) are left to its launcher. */
static inline int mb_sk_pays(int64_t m, int64_t n, int64_t k, int transa, int transb, int sms) {
    if (sms <= 0 || m < MB_SK_BM || n < MB_SK_BN || k < MB_SK_BK || k % MB_SK_BK != 0) return 0;
    const int64_t wave = (int64_t)MB_SK_BLOCKS_PER_SM * sms;
    const int64_t tiles = ((m + MB_SK_BM - 1) / MB_SK_BM) * ((n + MB_SK_BN - 1) / MB_SK_BN);
    if (tiles > MB_SK_PAYS_MAX_WAVES * wave) return 0;
    const int64_t last = tiles % wave; /* tiles of the last wave; 0: it is full */
    if (last != 0 && 100 * last >= MB_SK_PAYS_FILL_MIN * wave &&
        100 * last <= MB_SK_PAYS_FILL_MAX * wave)
        return 1;
    return !transa && !transb && tiles < wave && k >= MB_SK_PAYS_NN_MIN_K;
}

#endif
