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
    int min_cc_major;           /* the GPU must be at least this generation (0: any) */
    const char *rung;
} mb_auto_rule;

/* The size measure of a shape: gemm min(m, n, k); omatcopy min(rows, cols); reductions n. */
static int64_t size_of(miniblas_op_t op, const mb_shape *s) {
    switch (op) {
    case MINIBLAS_OP_SGEMM:
    case MINIBLAS_OP_DGEMM: {
        int64_t v = s->m < s->n ? s->m : s->n;
        return v < s->k ? v : s->k;
    }
    case MINIBLAS_OP_SOMATCOPY:
    case MINIBLAS_OP_DOMATCOPY: return s->m < s->n ? s->m : s->n;
    default: return s->n;
    }
}

/* Measured on an NVIDIA H200 (miniblas-bench, docs/gemm-ladder.md, docs/reduction-ladder.md,
 * docs/transpose-ladder.md). sgemm: `tuned` chooses its own tiles per shape class.
 * dgemm: FP64 tensor cores (sm_80 and later) beat every SIMT rung at every size measured.
 * omatcopy: `vectorized` (16-byte accesses, tile sized to the matrix) at every size measured.
 * Reductions: `singlepass` is fastest from 2^10 to 2^28 (one launch, no second pass). */
static const mb_auto_rule rules[] = {
    {MINIBLAS_OP_SGEMM, -1, -1, 0, "tuned"},
    {MINIBLAS_OP_DGEMM, -1, -1, 8, "dmma"},
    {MINIBLAS_OP_DGEMM, -1, -1, 0, "tuned"},
    {MINIBLAS_OP_SOMATCOPY, -1, -1, 0, "vectorized"},
    {MINIBLAS_OP_DOMATCOPY, -1, -1, 0, "vectorized"},
    {MINIBLAS_OP_SASUM, -1, -1, 0, "singlepass"},
    {MINIBLAS_OP_DASUM, -1, -1, 0, "singlepass"},
    {MINIBLAS_OP_SDOT, -1, -1, 0, "singlepass"},
    {MINIBLAS_OP_DDOT, -1, -1, 0, "singlepass"},
};

int mb_auto_pick(miniblas_op_t op, const mb_shape *shape, int allow_reduced, int cc_major,
                 int cc_minor) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    int64_t size = size_of(op, shape);
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; ++r) {
        const mb_auto_rule *x = &rules[r];
        if (x->op != op || (x->min_size >= 0 && size < x->min_size) ||
            (x->max_size >= 0 && size > x->max_size) || cc_major < x->min_cc_major)
            continue;
        int i = mb_rung_index(op, x->rung);
        if (i < 0) continue;
        if ((t[i].flags & MB_RUNG_REDUCED_PRECISION) && !allow_reduced) continue;
        if ((t[i].flags & MB_RUNG_NEEDS_SM90A) && !(cc_major == 9 && cc_minor == 0)) continue;
        return i;
    }
    return n > 0 ? 0 : -1; /* the first rung is always correct */
}
