/* SPDX-License-Identifier: BSD-3-Clause */
/* The split of a staged gemm's panels over several GPUs (mgpu_plan.h). */
#include "mgpu_plan.h"

static void no_split(int64_t npan, mbc_split *sp) {
    sp->ndev = 1;
    sp->first[0] = 0;
    sp->first[1] = npan;
}

void mbc_split_plan(int64_t npan, const int64_t *pc, int64_t head, int ndev, int64_t m,
                    int64_t k, int64_t min_cols, double min_volume, mbc_split *sp) {
    if (ndev > MBC_SPLIT_MAX) ndev = MBC_SPLIT_MAX;
    if (head < 0) head = 0;
    int64_t n = npan > 0 ? pc[npan] : 0;
    if (ndev <= 1 || npan < 2 || head >= npan || n <= 0 ||
        (min_volume > 0 && (double)m * (double)n * (double)k < min_volume)) {
        no_split(npan, sp);
        return;
    }
    /* At most one device per panel past the head (plus device 0), and each share at least
     * min_cols wide on average. */
    int64_t d = ndev;
    if (d > npan - head + (head > 0 ? 1 : 0)) d = npan - head + (head > 0 ? 1 : 0);
    if (min_cols > 0 && d > n / min_cols) d = n / min_cols;
    for (; d >= 2; --d) {
        /* Boundary b (1 <= b < d) at the panel edge nearest to b n / d, at least one panel
         * after the previous boundary (device 0: after the head, and at least one panel). */
        int ok = 1;
        sp->first[0] = 0;
        int64_t prev = head > 0 ? head : 1; /* the least first[1] */
        for (int64_t b = 1; b < d; ++b) {
            int64_t lo = b == 1 ? prev : sp->first[b - 1] + 1;
            int64_t hi = npan - (d - b); /* leave a panel for each later device */
            if (lo > hi) {
                ok = 0;
                break;
            }
            double target = (double)n * (double)b / (double)d;
            int64_t best = lo;
            for (int64_t p = lo; p <= hi; ++p) { /* nearest edge; ties: the lower one */
                double dp = (double)pc[p] - target, db = (double)pc[best] - target;
                if ((dp < 0 ? -dp : dp) < (db < 0 ? -db : db)) best = p;
            }
            sp->first[b] = best;
        }
        sp->first[d] = npan;
        for (int64_t b = 0; ok && b < d; ++b)
            if (min_cols > 0 && pc[sp->first[b + 1]] - pc[sp->first[b]] < min_cols) ok = 0;
        if (ok) {
            sp->ndev = (int)d;
            return;
        }
    }
    no_split(npan, sp);
}
