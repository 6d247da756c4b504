/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `auto`: which rung runs for a shape when nothing was selected. One table per architecture
 * family, as data; within a table the first row whose op matches, whose bounds hold and whose
 * rung runs on this GPU with this build (rungs.c: mb_rung_runs) and is allowed by the math mode
 * wins. When no row gives one, the first rung of the op's ladder that runs is taken (the plain
 * rungs are correct everywhere).
 *
 * Measured on an NVIDIA H200 (compute capability 9.0) with miniblas-bench; the figures are in
 * docs/ladders/gemm.md, docs/ladders/reduction.md and docs/ladders/transpose.md:
 *   sgemm: from min(m, n) >= 1024 and m * n >= 2^21, and from m * n * k >= 2^25 whatever the
 *     shape, `wgmma_tf32x3` (3xTF32 on Hopper's warpgroup MMA, FP32 accuracy; with split-K for
 *     skinny shapes) is the fastest rung of 1..14; `tf32x3` (mma.sync) is never faster than it
 *     there. `tma_tf32x3` (rung 14 fed by TMA) is faster still at every one of those shapes
 *     measured (H100), `pingpong_tf32x3` (its bits, two k steps in flight) faster than
 *     that, `fastsplit_tf32x3` (rung 16's bits with a cheaper split) faster again, and
 *     `promote4_tf32x3` (rung 17 with a quarter of its FP32 additions) faster than every one
 *     of them at every one of those shapes (H100), so auto takes it (it copies operands TMA
 *     cannot read, or runs rung 14 or 16). Below that `tuned` (its tile configuration chosen
 *     per shape class). Without wgmma, NN from 1024 and 2^21 `pipelined`, else `tuned` (TT and
 *     skinny shapes favour `tuned`).
 *   dgemm: `dmma` (FP64 tensor cores) beats every SIMT rung at every size measured;
 *     `streamk_dmma` (its big tile scheduled stream-K) beats it (H100) where its tiles leave
 *     a partial last wave 55-85% full within two waves, or NN with less than one wave and
 *     k >= 4096 (kernels/gemm/streamk.h, mb_sk_pays; perf/results/h100/streamk/), if `dmma`
 *     would run that big tile there (mb_dgemm_dmma_big) and not one of its smaller ones, nor
 *     its deep tile (mb_dgemm_dmma_deep: one wave at most, k deep);
 *     `tma_dmma` (that big tile fed by TMA) at shallow k (NN to 384, H100 and H200; NT and
 *     TT to 256 and TN to 128, H200), and where `dmma` cannot move its edge tiles inside
 *     the matrix (odd m or n, by layout) (H100).
 *   omatcopy: `vectorized` at every size measured.
 *   reductions: `singlepass` with unit increments; sasum with a non-unit increment `shuffle`.
 * Not measured (no such GPU was at hand), chosen from what the hardware has:
 *   7.5 (Turing): no cp.async, so `pipelined` loses its overlap: `tuned` for both gemms.
 *   8.0 (A100), 10.x (B200, GB200...): FP64 tensor cores, so dgemm `dmma`; sgemm as Hopper
 *     without wgmma (the tf32x3 rungs were only ever faster than SIMT through wgmma).
 *   8.6/8.9 (RTX 30/40, A10, L4, L40S), 12.x (RTX 50, RTX PRO Blackwell): FP64 runs at 1/64 of
 *     FP32 and there are no FP64 tensor cores worth having: dgemm `tuned`; sgemm as 8.0.
 *   11.x (Thor) shares the 12.x table.
 * Size bounds are inclusive; -1 means no bound. A row may also name a predicate (`when`) on the
 * shape and the target, for a rule that bounds cannot say (stream-K: the tiles per wave of
 * this GPU's SMs).
 */
#include "internal.h"
#include "arch.h"
#include "../kernels/gemm/streamk.h"

typedef struct mb_auto_rule {
    miniblas_op_t op;
    int64_t min_size, max_size; /* bounds on the op's size measure; -1: none */
    int64_t min_area;           /* gemm: m * n at least this (-1: none); other ops: -1 */
    int64_t min_volume;         /* gemm: m * n * k at least this (-1: none); other ops: -1 */
    int trans;                  /* -1: any; else the shape's trans must equal it (gemm: 0 = NN) */
    int unit_inc;               /* -1: any; 1: increments all 1; 0: some increment is not 1 */
    const char *rung;
    /* NULL: the bounds decide; else the row holds only where this also returns 1 */
    int (*when)(const mb_shape *shape, const mb_target *t);
} mb_auto_rule;

#define ANY -1
#define BIG_SIZE 1024          /* min(m, n) from which the large-tile rungs win */
#define BIG_AREA (1 << 21)     /* m * n from which they win */
#define SPLITK_VOLUME (1 << 25) /* m * n * k from which the wgmma rungs (split-K) win any shape */

/* dgemm rung 13 pays for this shape on this GPU (streamk.h) and rung 12 would run the big tile
 * rung 13 schedules (12_dmma.cu; its smaller tiles beat rung 13 where they run, e.g. 1152^3),
 * not its deep tile (which beat rung 13 on every shape of less than one wave with k >= 4096,
 * NN and TT: perf/results/h100/dgemm-deep/; by shape, so also on GPUs whose 99 KB per block
 * keep the big tile there, where neither was measured); never with the SM count unknown */
static int streamk_pays(const mb_shape *s, const mb_target *t) {
    return mb_sk_pays(s->m, s->n, s->k, s->trans & 1, (s->trans >> 1) & 1, t->sms) &&
           mb_dgemm_dmma_big(s->m, s->n, s->k, t->sms) &&
           !mb_dgemm_dmma_deep(s->m, s->n, s->k, t->sms);
}

/* dgemm rung 14 (rung 12's big tile fed by TMA), where it runs its own kernel (rung 12's big
 * tile from 3 tiles per SM; elsewhere it runs rung 12; never with the SM count unknown), beats
 * rung 12:
 * - with k a multiple of 16 (else rung 14 copies the operands) up to 384 NN
 *   (perf/results/h100/dgemm-epilogue/, H100: 2-7% at 4096^2, 8192^2, 6144^2, 3072^2 by
 *   128-512, level at k = 768; since both run the straight-line loop, H200,
 *   perf/results/h200/dgemm-tma-line/ and headline-aeab340/: 1-3% at k = 256, 2% behind at
 *   4096^2 by 384, 4% behind by 512: at 384 within 3% either way), and, since rung 14 keeps
 *   its operands in L2 with eviction hints (H200, perf/results/h200/dgemm-route/ab/), up to
 *   256 NT and TT and 128 TN: at k = 64 and 128 ahead of rung 12 by 5-15% NT, 5-9% TT and
 *   0-4.5% TN; at 192 and 256 NT and TT level to 3.4% ahead, but 2% behind at 8192^2 TT,
 *   TN level or 3% behind; at 384 level to 3% behind;
 * - where rung 12 cannot move its edge tiles inside the matrix (tc_edge_shift: an odd m with
 *   A M-contiguous, NN and NT, or an odd n with B N-contiguous, NT and TT; the 16-byte copies
 *   would start at an odd element) and runs them on its plainer STEP loop, while TMA fills
 *   what lies outside the matrix with zeros (perf/results/h100/dgemm-odd/: NN 2047^3 13%,
 *   3001x4095x2049 8%, 5001^3 6%, 4097x4095x4099 3% less time; TT 2047^3 7%, the others
 *   within 1.5% either way; NT, `auto` before and after: 3-15% less). */
static int tma_short_k(const mb_shape *s, const mb_target *t) {
    static const int64_t k_max[4] = {384, 128, 256, 256}; /* by trans: NN, TN, NT, TT */
    return s->k <= k_max[s->trans & 3] && s->k % 16 == 0 &&
           mb_dgemm_tma_dmma_big(s->m, s->n, s->k, t->sms);
}
/* rung 12 says where (mb_dgemm_dmma_fixed_edges; also a dimension under one tile, which no
 * measurement above had); ahead of the stream-K row: rung 13 runs rung 12 on such shapes */
static int tma_odd_edges(const mb_shape *s, const mb_target *t) {
    return mb_dgemm_dmma_fixed_edges(s->m, s->n, s->trans & 1, (s->trans >> 1) & 1) &&
           mb_dgemm_tma_dmma_big(s->m, s->n, s->k, t->sms);
}

/* The rows every family shares: omatcopy and the reductions. */
static const mb_auto_rule common_rows[] = {
    {MINIBLAS_OP_SOMATCOPY, ANY, ANY, ANY, ANY, ANY, ANY, "vectorized", NULL},
    {MINIBLAS_OP_DOMATCOPY, ANY, ANY, ANY, ANY, ANY, ANY, "vectorized", NULL},
    {MINIBLAS_OP_SASUM, ANY, ANY, ANY, ANY, ANY, 0, "shuffle", NULL},
    {MINIBLAS_OP_SASUM, ANY, ANY, ANY, ANY, ANY, ANY, "singlepass", NULL},
    {MINIBLAS_OP_DASUM, ANY, ANY, ANY, ANY, ANY, ANY, "singlepass", NULL},
    {MINIBLAS_OP_SDOT, ANY, ANY, ANY, ANY, ANY, ANY, "singlepass", NULL},
    {MINIBLAS_OP_DDOT, ANY, ANY, ANY, ANY, ANY, ANY, "singlepass", NULL},
};

static const mb_auto_rule sm75_rows[] = {
    {MINIBLAS_OP_SGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
};

static const mb_auto_rule sm80_rows[] = { /* also 10.x */
    {MINIBLAS_OP_SGEMM, BIG_SIZE, ANY, BIG_AREA, ANY, 0, ANY, "pipelined", NULL},
    {MINIBLAS_OP_SGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "dmma", NULL},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
};

static const mb_auto_rule sm86_rows[] = { /* 8.6, 8.7, 8.9; also 11.x and 12.x */
    {MINIBLAS_OP_SGEMM, BIG_SIZE, ANY, BIG_AREA, ANY, 0, ANY, "pipelined", NULL},
    {MINIBLAS_OP_SGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
};

static const mb_auto_rule sm90_rows[] = {
    {MINIBLAS_OP_SGEMM, BIG_SIZE, ANY, BIG_AREA, ANY, ANY, ANY, "promote4_tf32x3", NULL},
    {MINIBLAS_OP_SGEMM, ANY, ANY, ANY, SPLITK_VOLUME, ANY, ANY, "promote4_tf32x3", NULL},
    {MINIBLAS_OP_SGEMM, BIG_SIZE, ANY, BIG_AREA, ANY, 0, ANY, "pipelined", NULL},
    {MINIBLAS_OP_SGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tma_dmma", tma_odd_edges},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "streamk_dmma", streamk_pays},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tma_dmma", tma_short_k},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "dmma", NULL},
    {MINIBLAS_OP_DGEMM, ANY, ANY, ANY, ANY, ANY, ANY, "tuned", NULL},
};

typedef struct mb_family {
    const char *name;
    int min_cc, max_cc; /* the compute capabilities it serves, inclusive */
    const mb_auto_rule *rows;
    size_t count;
} mb_family;

#define ROWS(t) t, sizeof t / sizeof t[0]
static const mb_family families[] = {
    {"7.5", 0, 79, ROWS(sm75_rows)},
    {"8.0", 80, 85, ROWS(sm80_rows)},
    {"8.6/8.9", 86, 89, ROWS(sm86_rows)},
    {"9.0", 90, 99, ROWS(sm90_rows)},
    {"10.x", 100, 109, ROWS(sm80_rows)},
    {"12.x", 110, 1 << 30, ROWS(sm86_rows)},
};

static const mb_family *family_of(int cc) {
    for (size_t i = 0; i < sizeof families / sizeof families[0]; ++i)
        if (cc >= families[i].min_cc && cc <= families[i].max_cc) return &families[i];
    return &families[0];
}

const char *mb_auto_family(int cc) { return family_of(cc)->name; }

/* The size measure of a shape: gemm min(m, n) (the tile count is what separates the shape
 * classes); omatcopy min(rows, cols); reductions n. */
static int64_t size_of(miniblas_op_t op, const mb_shape *s) {
    switch (op) {
    case MINIBLAS_OP_SGEMM:
    case MINIBLAS_OP_DGEMM:
    case MINIBLAS_OP_SOMATCOPY:
    case MINIBLAS_OP_DOMATCOPY: return s->m < s->n ? s->m : s->n;
    default: return s->n;
    }
}

/* m * n * k, saturated (each factor fits in int64 but the product need not). */
static int64_t volume(const mb_shape *s) {
    const int64_t mn = s->m * s->n; /* m * n of a valid call fits: C exists */
    return s->k > 0 && mn > INT64_MAX / s->k ? INT64_MAX : mn * s->k;
}

static int unit_inc(miniblas_op_t op, const mb_shape *s) {
    int dot = op == MINIBLAS_OP_SDOT || op == MINIBLAS_OP_DDOT;
    return s->incx == 1 && (!dot || s->incy == 1);
}

static int usable(miniblas_op_t op, int i, int allow_reduced, const mb_target *t) {
    if ((miniblas_rung_flags(op, i) & MB_RUNG_REDUCED_PRECISION) && !allow_reduced) return 0;
    return mb_rung_runs(op, i, t, NULL, 0);
}

static int pick_in(const mb_auto_rule *rows, size_t count, miniblas_op_t op, const mb_shape *shape,
                   int allow_reduced, const mb_target *t) {
    int64_t size = size_of(op, shape);
    for (size_t r = 0; r < count; ++r) {
        const mb_auto_rule *x = &rows[r];
        if (x->op != op || (x->min_size >= 0 && size < x->min_size) ||
            (x->max_size >= 0 && size > x->max_size) ||
            (x->min_area >= 0 && shape->m * shape->n < x->min_area) ||
            (x->min_volume >= 0 && volume(shape) < x->min_volume) ||
            (x->trans >= 0 && shape->trans != x->trans) ||
            (x->unit_inc >= 0 && unit_inc(op, shape) != x->unit_inc) ||
            (x->when && !x->when(shape, t)))
            continue;
        int i = mb_rung_index(op, x->rung);
        if (i >= 0 && usable(op, i, allow_reduced, t)) return i;
    }
    return -1;
}

int mb_auto_pick_target(miniblas_op_t op, const mb_shape *shape, int allow_reduced,
                        const mb_target *t) {
    const mb_family *f = family_of(t->cc);
    int i = pick_in(f->rows, f->count, op, shape, allow_reduced, t);
    if (i < 0) i = pick_in(common_rows, sizeof common_rows / sizeof common_rows[0], op, shape,
                           allow_reduced, t);
    for (int j = 0, n = miniblas_rung_count(op); i < 0 && j < n; ++j)
        if (usable(op, j, allow_reduced, t)) i = j;
    return i;
}

int mb_auto_pick(miniblas_op_t op, const mb_shape *shape, int allow_reduced, int cc_major,
                 int cc_minor) {
    mb_target t = {cc_major * 10 + cc_minor, cc_major * 10 + cc_minor, mb_build_has_sm90a(), 0};
    int i = mb_auto_pick_target(op, shape, allow_reduced, &t);
    return i >= 0 ? i : 0;
}

const char *miniblas_gemm_auto_rung(miniblas_handle_t h, miniblas_op_t op,
                                    miniblas_layout_t layout, miniblas_transpose_t transa,
                                    miniblas_transpose_t transb, int64_t m, int64_t n,
                                    int64_t k) {
    if (!h || (op != MINIBLAS_OP_SGEMM && op != MINIBLAS_OP_DGEMM) || m < 0 || n < 0 || k < 0)
        return NULL;
    int ta = transa == MiniblasTrans || transa == MiniblasConjTrans;
    int tb = transb == MiniblasTrans || transb == MiniblasConjTrans;
    mb_shape s = {m, n, k, ta | tb << 1, 0, 0};
    if (layout == MiniblasRowMajor) { /* as the call: C^T = op(B)^T op(A)^T, column-major */
        s.m = n;
        s.n = m;
        s.trans = tb | ta << 1;
    }
    mb_target t = mb_target_of(h->device, h->cc_major * 10 + h->cc_minor);
    int i = mb_auto_pick_target(op, &s, h->math_mode == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION, &t);
    return i >= 0 ? miniblas_rung_name(op, i) : NULL;
}
