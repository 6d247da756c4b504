/*
 * `auto`: which rung runs for a shape when nothing was selected. One table, read top to
 * bottom; the first row whose op matches and whose size bounds hold wins. The figures behind
 * each row come from miniblas-bench on the GPU named in the docs (docs/<op>-ladder.md).
 *
 * Size bounds are inclusive; -1 means no bound. A row whose rung is not registered, needs a
 * newer GPU, or trades precision the handle does not allow is passed over.
 */
#include "internal.h"

typedef struct mb_auto_rule {
    miniblas_op_t op;
    int64_t min_size, max_size; /* bounds on the op's size measure; -1: none */
    int64_t min_area;           /* gemm: m * n at least this (-1: none); other ops: -1 */
    int64_t min_volume;         /* gemm: m * n * k at least this (-1: none); other ops: -1 */
    int min_cc_major;           /* the GPU must be at least this generation (0: any) */
    int trans;                  /* -1: any; else the shape's trans must equal it (gemm: 0 = NN) */
    int unit_inc;               /* -1: any; 1: increments all 1; 0: some increment is not 1 */
    const char *rung;
} mb_auto_rule;

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

/* Measured on an NVIDIA H200 (miniblas-bench run 4; docs/gemm-ladder.md,
 * docs/reduction-ladder.md, docs/transpose-ladder.md):
 * sgemm: NN with min(m, n) >= 1024 and m * n >= 2^21: `pipelined` (83-88% of cuBLAS at
 *   2048-8192 square; 82% on 8192x1024x8192, 2048x1024x8192 and 4096x1024x4096, where `tuned`
 *   gets 77-78%: session-3 run 1); otherwise `tuned` (1024^2: 2x any other SIMT rung; skinny
 *   shapes 68-71%; TT: `pipelined` falls to 70%). On compute capability 9.0 (Hopper), from
 *   the same size on and for every transpose: `wgmma_tf32x3` (3xTF32 on wgmma, FP32 accuracy:
 *   0.36-0.45x cuBLAS FP32's error, IEEE Inf/NaN pattern checked by
 *   tests/test_tf32_accuracy_gpu.c; 1.31-1.39x cuBLAS at 2048-8192, 1.60x `pipelined`; session
 *   4 run 7). `tf32x3` (mma.sync) is never faster than it there. Since split-K (session 5
 *   runs 1, 8) also from m * n * k >= 2^25 whatever the shape: 1.23-1.29x cuBLAS at 1024^3
 *   (tuned 0.78-0.84x), 1.28-1.34x at 768^3 (tuned 0.66-0.68x), 1.05-1.08x at 512^3 (tuned
 *   0.73-0.74x), 1.07-1.09x at 384^3 (tuned 0.88-0.90x), 1.26-1.37x on 8192x128x8192 and
 *   128x8192x8192 (tuned 0.66-0.71x); at 256^3 `tuned` is 8% faster and stays.
 * dgemm: FP64 tensor cores (sm_80 and later) beat every SIMT rung at every size measured.
 * omatcopy: `vectorized` at every size measured.
 * Reductions: `singlepass` from 2^10 to 2^28 with unit increments; sasum with increment 4 is
 *   10% faster with `shuffle` (singlepass's strided path fell behind cuBLAS there). */
static const mb_auto_rule rules[] = {
    {MINIBLAS_OP_SGEMM, 1024, -1, 1 << 21, -1, 9, -1, -1, "wgmma_tf32x3"}, /* 9.0 only (flag) */
    {MINIBLAS_OP_SGEMM, -1, -1, -1, 1 << 25, 9, -1, -1, "wgmma_tf32x3"},
    {MINIBLAS_OP_SGEMM, 1024, -1, 1 << 21, -1, 0, 0, -1, "pipelined"},
    {MINIBLAS_OP_SGEMM, -1, -1, -1, -1, 0, -1, -1, "tuned"},
    {MINIBLAS_OP_DGEMM, -1, -1, -1, -1, 8, -1, -1, "dmma"},
    {MINIBLAS_OP_DGEMM, -1, -1, -1, -1, 0, -1, -1, "tuned"},
    {MINIBLAS_OP_SOMATCOPY, -1, -1, -1, -1, 0, -1, -1, "vectorized"},
    {MINIBLAS_OP_DOMATCOPY, -1, -1, -1, -1, 0, -1, -1, "vectorized"},
    {MINIBLAS_OP_SASUM, -1, -1, -1, -1, 0, -1, 0, "shuffle"},
    {MINIBLAS_OP_SASUM, -1, -1, -1, -1, 0, -1, -1, "singlepass"},
    {MINIBLAS_OP_DASUM, -1, -1, -1, -1, 0, -1, -1, "singlepass"},
    {MINIBLAS_OP_SDOT, -1, -1, -1, -1, 0, -1, -1, "singlepass"},
    {MINIBLAS_OP_DDOT, -1, -1, -1, -1, 0, -1, -1, "singlepass"},
};

int mb_auto_pick(miniblas_op_t op, const mb_shape *shape, int allow_reduced, int cc_major,
                 int cc_minor) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    int64_t size = size_of(op, shape);
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; ++r) {
        const mb_auto_rule *x = &rules[r];
        if (x->op != op || (x->min_size >= 0 && size < x->min_size) ||
            (x->max_size >= 0 && size > x->max_size) ||
            (x->min_area >= 0 && shape->m * shape->n < x->min_area) ||
            (x->min_volume >= 0 && volume(shape) < x->min_volume) || cc_major < x->min_cc_major ||
            (x->trans >= 0 && shape->trans != x->trans) ||
            (x->unit_inc >= 0 && unit_inc(op, shape) != x->unit_inc))
            continue;
        int i = mb_rung_index(op, x->rung);
        if (i < 0) continue;
        if ((t[i].flags & MB_RUNG_REDUCED_PRECISION) && !allow_reduced) continue;
        if ((t[i].flags & MB_RUNG_NEEDS_SM90A) && !(cc_major == 9 && cc_minor == 0)) continue;
        return i;
    }
    return n > 0 ? 0 : -1; /* the first rung is always correct */
}
