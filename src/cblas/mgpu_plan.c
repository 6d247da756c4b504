/* SPDX-License-Identifier: BSD-3-Clause */
/* The split of a staged gemm's panels over several GPUs; the pieces of a reduction on pinned
 * host vectors and their split (mgpu_plan.h). */
#include "mgpu_plan.h"

static void no_split(int64_t npan, mbc_split *sp) {
    sp->ndev = 1;
    sp->first[0] = 0;
    sp->first[1] = npan;
}

static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

int64_t mbc_gemm_panels(int64_t m, int64_t n, int64_t panel, int64_t *pc, int64_t *nb_out) {
    int64_t wmin = round_up(((int64_t)1 << 21) / max64(m, 1), 128), unit = 128, nb, npan = 0;
    if (panel > 0)
        nb = panel, wmin = unit = max64(32, round_up(nb / 4, 32));
    else
        nb = max64(wmin, round_up((n + 7) / 8, 128));
    nb = max64(nb, (n + MBC_MAXPAN / 2 - 1) / (MBC_MAXPAN / 2)); /* room for the taper */
    *nb_out = nb = min64(nb, n);
    for (int64_t c = 0; c < n; ++npan) {
        int64_t r = n - c, w = nb;
        if (r <= 2 * nb) w = min64(nb, max64(wmin, round_up((r + 1) / 2, unit)));
        if (npan == MBC_MAXPAN - 1) w = r; /* not reached: <= 30 panels of nb, then halving */
        pc[npan] = c;
        c += min64(w, r);
    }
    pc[npan] = n;
    return npan;
}

int64_t mbc_row_blocks(int64_t m, int a_staged, int64_t *mb) {
    if (!a_staged || m < 512) return *mb = m, 1;
    *mb = round_up((m + 3) / 4, 64);
    return (m + *mb - 1) / *mb;
}

int mbc_by_rows(int64_t nblk, int64_t mb, int64_t width, int64_t row_k) {
    return row_k > 0 && nblk > 1 && mb * width >= row_k * 1024;
}

int64_t mbc_split_head(int64_t npan, const int64_t *pc, int64_t nblk, int64_t mb, int64_t row_k,
                       int head_rows) {
    int64_t head = nblk - 1 < npan ? nblk - 1 : npan;
    if (head <= 0) return 0;
    if (!head_rows) return head;
    for (int64_t p = 0; p < head; ++p)
        if (!mbc_by_rows(nblk, mb, pc[p + 1] - pc[p], row_k)) return head;
    return 0;
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

/* ------------------------------------------------------------------ reductions */

void mbc_vec_piece(const mbc_vec_plan *vp, int64_t p, int64_t *start, int64_t *len) {
    int64_t a = p * vp->piece, rest = vp->n - a;
    *start = a;
    *len = rest < vp->piece ? rest : vp->piece;
}

/* Elements of pieces [p0, p1). */
static int64_t span(const mbc_vec_plan *vp, int64_t p0, int64_t p1) {
    int64_t end = p1 * vp->piece;
    return (end < vp->n ? end : vp->n) - p0 * vp->piece;
}

void mbc_vec_plan_make(int64_t n, int ndev, int64_t min_share, mbc_vec_plan *vp) {
    if (n < 1) n = 1;
    vp->n = n;
    vp->piece = MBC_VEC_PIECE;
    while ((n - 1) / vp->piece + 1 > MBC_VEC_MAX_PIECES) vp->piece *= 2;
    int64_t np = vp->npieces = (n - 1) / vp->piece + 1;
    vp->ndev = 1;
    vp->first[0] = 0;
    vp->first[1] = np;
    if (ndev > MBC_SPLIT_MAX) ndev = MBC_SPLIT_MAX;
    int64_t d = ndev < np ? ndev : np;
    if (min_share > 0 && d > n / min_share) d = n / min_share;
    for (; d >= 2; --d) {
        int ok = 1;
        vp->first[0] = 0;
        vp->first[d] = np;
        for (int64_t b = 1; b < d; ++b) { /* the piece edge nearest to b n / d */
            double target = (double)n * (double)b / (double)d / (double)vp->piece;
            int64_t f = (int64_t)(target + 0.5);
            if (f < vp->first[b - 1] + 1) f = vp->first[b - 1] + 1;
            if (f > np - (d - b)) f = np - (d - b); /* a piece for each later device */
            vp->first[b] = f;
        }
        for (int64_t b = 0; ok && b < d; ++b)
            if (vp->first[b + 1] <= vp->first[b] ||
                (min_share > 0 && span(vp, vp->first[b], vp->first[b + 1]) < min_share))
                ok = 0;
        if (ok) {
            vp->ndev = (int)d;
            return;
        }
    }
    vp->first[0] = 0;
    vp->first[1] = np;
}

double mbc_vec_combine(const double *r, int64_t npieces) {
    double s = npieces > 0 ? r[0] : 0.0;
    for (int64_t p = 1; p < npieces; ++p) s += r[p];
    return s;
}

int mbc_pin_pack(int64_t rows, int64_t cols, int64_t lds, size_t e, int64_t kb, int split) {
    if (kb < 0) kb = split ? 8 : 32;
    return cols > 1 && rows < lds && (double)rows * (double)e < 1024.0 * (double)kb;
}
