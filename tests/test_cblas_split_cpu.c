/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The multi-GPU split plan of libminiblas_cblas (src/cblas/mgpu_plan.c, compiled in directly)
 * on many made-up panel lists: every panel, hence every column of C, goes to exactly one
 * device; the shares are contiguous runs in device order; device 0 keeps the head panels and
 * at least one panel; each share reaches the least width asked; no more devices than asked or
 * than panels allow; the same arguments give the same plan; one device, too few panels or a
 * small volume give no split.
 *
 * And the pieces of a reduction on pinned vectors (mbc_vec_plan_make): the pieces tile [0, n)
 * and depend on n only (not on the devices or the least share); the shares are contiguous
 * runs of whole pieces, each at least the least share, balanced to within half a piece where
 * there are pieces enough; the piece results are added in piece order (mbc_vec_combine),
 * NaN and Inf carried through.
 *
 * And the head of the one-GPU gemm schedule (mbc_split_head, the tuning key head_rows) on
 * the geometry of real calls (mbc_gemm_panels, mbc_row_blocks): the phase-2 gemms of the
 * one-GPU schedule and those of each share of a split, listed by a model of gpu_gemm.c's loops
 * (one_gpu_gemms, share_gemms), are the same gemms (shape and place: rows, columns; all over
 * the same k range), every element of C computed by exactly one; with head_rows each gemm
 * lies within one panel, and n = 16384 splits evenly over 2 and 4 devices (4096 columns each
 * on 4) where without it the first device keeps 6144 columns.
 *
 * And which pinned pieces are packed rather than DMA'd (mbc_pin_pack): columns shorter than
 * 32 KB on one GPU, 8 KB for a share of a split gemm, a set threshold for both; never one
 * column or a contiguous piece; never with the threshold 0.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu_plan.h"

#include "cpu_check.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n) { /* xorshift64*, in [0, n) */
    g_rng ^= g_rng >> 12, g_rng ^= g_rng << 25, g_rng ^= g_rng >> 27;
    return (g_rng * 0x2545f4914f6cdd1dull) % n;
}

/* Checks one plan; returns 1 when it split. */
static int check_plan(int64_t npan, const int64_t *pc, int64_t head, int ndev, int64_t m,
                      int64_t k, int64_t min_cols, double min_vol) {
    mbc_split sp, sp2;
    memset(&sp, 0x5a, sizeof sp);
    memset(&sp2, 0xa5, sizeof sp2);
    mbc_split_plan(npan, pc, head, ndev, m, k, min_cols, min_vol, &sp);
    mbc_split_plan(npan, pc, head, ndev, m, k, min_cols, min_vol, &sp2);
    const char *ctx = "npan %lld head %lld ndev %d n %lld";
#define ARGS (long long)npan, (long long)head, ndev, (long long)pc[npan]
    CHECKF(sp.ndev == sp2.ndev, ctx, ARGS);
    for (int d = 0; d <= sp.ndev && d <= MBC_SPLIT_MAX; ++d)
        CHECKF(sp.first[d] == sp2.first[d], "not deterministic: first[%d]; npan %lld", d, (long long)npan);
    CHECKF(sp.ndev >= 1 && sp.ndev <= (ndev < 1 ? 1 : ndev) && sp.ndev <= MBC_SPLIT_MAX, "ndev %d; " "npan %lld", sp.ndev, (long long)npan);
    if (sp.ndev < 1 || sp.ndev > MBC_SPLIT_MAX) return 0;
    CHECKF(sp.first[0] == 0 && sp.first[sp.ndev] == npan, ctx, ARGS);
    int64_t n = pc[npan];
    char *owner = calloc((size_t)n + 1, 1);
    int *own = calloc((size_t)n + 1, sizeof(int));
    for (int d = 0; d < sp.ndev; ++d) {
        CHECKF(sp.first[d] < sp.first[d + 1], "device %d has no panel; " "npan %lld", d, (long long)npan);
        if (sp.ndev > 1) {
            int64_t w = pc[sp.first[d + 1]] - pc[sp.first[d]];
            CHECKF(min_cols <= 0 || w >= min_cols, "share %d is %lld columns < %lld", d,
                  (long long)w, (long long)min_cols);
        }
        for (int64_t p = sp.first[d]; p < sp.first[d + 1] && p < npan; ++p)
            for (int64_t c = pc[p]; c < pc[p + 1]; ++c) ++owner[c], own[c] = d;
    }
    for (int64_t c = 0; c < n; ++c) CHECKF(owner[c] == 1, "column %lld assigned %d times", (long long)c, owner[c]);
    for (int64_t c = 1; c < n; ++c) CHECKF(own[c] >= own[c - 1], "shares not in column order at %lld", (long long)c);
    if (sp.ndev > 1) {
        CHECKF(sp.first[1] >= head && sp.first[1] >= 1, "device 0 does not keep the head: first[1] %lld head %lld",
              (long long)sp.first[1], (long long)head);
        CHECKF(min_vol <= 0 || (double)m * (double)n * (double)k >= min_vol, "split below the volume");
    }
    free(owner);
    free(own);
    return sp.ndev > 1;
#undef ARGS
}

/* Checks one vector plan; returns 1 when it split. */
static int check_vec(int64_t n, int ndev, int64_t min_share) {
    mbc_vec_plan vp, vp2, alone;
    memset(&vp, 0x5a, sizeof vp);
    memset(&vp2, 0xa5, sizeof vp2);
    mbc_vec_plan_make(n, ndev, min_share, &vp);
    mbc_vec_plan_make(n, ndev, min_share, &vp2);
    mbc_vec_plan_make(n, 1, 0, &alone);
    const char *ctx = "n %lld ndev %d min_share %lld";
#define VARGS (long long)n, ndev, (long long)min_share
    CHECKF(vp.n == n && vp.piece == alone.piece && vp.npieces == alone.npieces,
          "the pieces depend on more than n; " "n %lld ndev %d min_share %lld", VARGS);
    CHECKF(vp.piece >= MBC_VEC_PIECE && (vp.piece & (vp.piece - 1)) == 0, "piece %lld; n %lld",
          (long long)vp.piece, (long long)n);
    CHECKF(vp.npieces >= 1 && vp.npieces <= MBC_VEC_MAX_PIECES, "npieces %lld; n %lld",
          (long long)vp.npieces, (long long)n);
    CHECKF(vp.piece == MBC_VEC_PIECE || (n - 1) / (vp.piece / 2) + 1 > MBC_VEC_MAX_PIECES,
          "piece %lld longer than needed; n %lld", (long long)vp.piece, (long long)n);
    int64_t covered = 0;
    for (int64_t p = 0; p < vp.npieces; ++p) {
        int64_t a, len;
        mbc_vec_piece(&vp, p, &a, &len);
        CHECKF(a == covered && len >= 1 && (len == vp.piece || p == vp.npieces - 1),
              "piece %lld: [%lld, +%lld); n %lld", (long long)p, (long long)a, (long long)len,
              (long long)n);
        covered = a + len;
    }
    CHECKF(covered == n, "pieces cover %lld of %lld", (long long)covered, (long long)n);
    CHECKF(vp.ndev == vp2.ndev, ctx, VARGS);
    for (int d = 0; d <= vp.ndev && d <= MBC_SPLIT_MAX; ++d)
        CHECKF(vp.first[d] == vp2.first[d], "not deterministic: first[%d]; n %lld", d, (long long)n);
    CHECKF(vp.ndev >= 1 && vp.ndev <= (ndev < 1 ? 1 : ndev) && vp.ndev <= MBC_SPLIT_MAX,
          "ndev %d; " "n %lld ndev %d min_share %lld", vp.ndev, VARGS);
    if (vp.ndev < 1 || vp.ndev > MBC_SPLIT_MAX) return 0;
    CHECKF(vp.first[0] == 0 && vp.first[vp.ndev] == vp.npieces, ctx, VARGS);
    for (int d = 0; d < vp.ndev; ++d) {
        CHECKF(vp.first[d] < vp.first[d + 1], "device %d has no piece; " "n %lld ndev %d min_share %lld",
              d, VARGS);
        int64_t lo = vp.first[d] * vp.piece, hi = vp.first[d + 1] * vp.piece;
        if (hi > n) hi = n;
        if (vp.ndev > 1)
            CHECKF(min_share <= 0 || hi - lo >= min_share, "share %d: %lld elements < %lld", d,
                  (long long)(hi - lo), (long long)min_share);
        if (d > 0 && vp.npieces >= 4 * (int64_t)vp.ndev) { /* the edge nearest an even share */
            double want = (double)n * d / vp.ndev, got = (double)lo;
            CHECKF(fabs(got - want) <= vp.piece / 2.0 + 1, "boundary %d at %lld, even share at %.0f; "
                  "n %lld ndev %d min_share %lld", d, (long long)lo, want, VARGS);
        }
    }
    /* a split whenever there are devices, pieces and elements enough for an even one */
    if (ndev >= 2 && vp.npieces >= 2 * (int64_t)ndev && (min_share <= 0 || n / ndev >= 2 * min_share + vp.piece))
        CHECKF(vp.ndev == (ndev > MBC_SPLIT_MAX ? MBC_SPLIT_MAX : ndev), "only %d devices; "
              "n %lld ndev %d min_share %lld", vp.ndev, VARGS);
    if (min_share > 0 && n < 2 * min_share) CHECKF(vp.ndev == 1, "split below 2 shares; " "n %lld ndev %d min_share %lld", VARGS);
    return vp.ndev > 1;
#undef VARGS
}

static void test_vec(void) {
    int splits = 0, total = 0;
    for (int it = 0; it < 20000; ++it) {
        int64_t n;
        switch (it % 4) {
        case 0: n = 1 + (int64_t)rnd((uint64_t)MBC_VEC_PIECE * 40); break;
        case 1: n = MBC_VEC_PIECE * (int64_t)(1 + rnd(20)) + (int64_t)rnd(3) - 1; break;
        case 2: n = 1 + (int64_t)rnd((uint64_t)1 << 42); break; /* longer pieces */
        default: n = 1 + (int64_t)rnd(1000); break;
        }
        int ndev = 1 + (int)rnd(it % 7 == 0 ? 80 : 8);
        int64_t ms = it % 3 == 0 ? 0 : it % 3 == 1 ? MBC_VEC_SPLIT_MIN : (int64_t)rnd((uint64_t)MBC_VEC_PIECE * 8);
        splits += check_vec(n, ndev, ms);
        ++total;
    }
    CHECKF(splits > total / 10, "only %d of %d vector plans split", splits, total);

    mbc_vec_plan vp;
    const int64_t P = MBC_VEC_PIECE;
    /* the pieces of sasum at its crossover (2^24): 4, two per device */
    mbc_vec_plan_make((int64_t)1 << 24, 2, MBC_VEC_SPLIT_MIN, &vp);
    CHECKF(vp.piece == P && vp.npieces == 4 && vp.ndev == 2 && vp.first[1] == 2,
          "2^24 over 2: %lld pieces, ndev %d, first[1] %lld", (long long)vp.npieces, vp.ndev,
          (long long)vp.first[1]);
    /* a share below the least: one device */
    mbc_vec_plan_make((int64_t)1 << 24, 2, ((int64_t)1 << 23) + 1, &vp);
    CHECKF(vp.ndev == 1, "2^24 over 2 with shares of 2^23 + 1: ndev %d", vp.ndev);
    /* a piece and one element: the second device takes the element when asked to */
    mbc_vec_plan_make(P + 1, 2, 1, &vp);
    CHECKF(vp.npieces == 2 && vp.ndev == 2 && vp.first[1] == 1, "P + 1: %lld pieces ndev %d",
          (long long)vp.npieces, vp.ndev);
    mbc_vec_plan_make(P, 4, 1, &vp);
    CHECKF(vp.npieces == 1 && vp.ndev == 1, "P: %lld pieces ndev %d", (long long)vp.npieces, vp.ndev);
    /* three pieces over two devices: the edge nearest the middle, 2 + 1 */
    mbc_vec_plan_make(3 * P, 2, 1, &vp);
    CHECKF(vp.ndev == 2 && vp.first[1] == 2, "3P: ndev %d first[1] %lld", vp.ndev, (long long)vp.first[1]);
    /* 8 pieces over 3 devices: edges at 8/3 and 16/3 -> 3 and 5 */
    mbc_vec_plan_make(8 * P, 3, 0, &vp);
    CHECKF(vp.ndev == 3 && vp.first[1] == 3 && vp.first[2] == 5, "8P over 3: ndev %d first %lld %lld",
          vp.ndev, (long long)vp.first[1], (long long)vp.first[2]);
    /* very long vectors: longer pieces, at most MBC_VEC_MAX_PIECES */
    mbc_vec_plan_make(P * MBC_VEC_MAX_PIECES + 1, 1, 0, &vp);
    CHECKF(vp.piece == 2 * P && vp.npieces == MBC_VEC_MAX_PIECES / 2 + 1, "P*MAX + 1: piece %lld, %lld pieces",
          (long long)vp.piece, (long long)vp.npieces);

    /* the combination: in piece order, in double, from the first piece */
    double r1[] = {-0.0};
    CHECKF(signbit(mbc_vec_combine(r1, 1)) && mbc_vec_combine(r1, 1) == 0, "one piece: not itself");
    double r2[] = {1e16, 1, 1, -1e16};
    CHECKF(mbc_vec_combine(r2, 4) == 0, "piece order: %g, want 0 (1e16 + 1 rounds to 1e16)", mbc_vec_combine(r2, 4));
    double r3[] = {1, 1, 1e16, -1e16};
    CHECKF(mbc_vec_combine(r3, 4) == 2, "piece order: %g, want 2", mbc_vec_combine(r3, 4));
    double r4[] = {1, INFINITY, 2};
    CHECKF(isinf(mbc_vec_combine(r4, 3)) && mbc_vec_combine(r4, 3) > 0, "Inf lost");
    double r5[] = {INFINITY, 1, -INFINITY};
    CHECKF(isnan(mbc_vec_combine(r5, 3)), "Inf - Inf is not NaN");
    double r6[] = {1, NAN, 2};
    CHECKF(isnan(mbc_vec_combine(r6, 3)), "NaN lost");
    /* float piece results (3 x 2^24 + 1 each, not representable as one float) summed exactly */
    double r7[] = {(double)16777216.0f, 1.0, (double)16777216.0f};
    CHECKF(mbc_vec_combine(r7, 3) == 33554433.0, "not summed in double: %.17g", mbc_vec_combine(r7, 3));
    printf("vector plans: %d checked (%d split), fixed cases ok\n", total, splits);
}

static void test_pin_pack(void) {
    /* dgemm 8192, phase-1 slab of B (512 rows: 4 KB columns) and a row block of A (2048
     * rows: 16 KB), both of ld 8192; sgemm's row block of A (2048 rows: 8 KB) */
    CHECKF(mbc_pin_pack(512, 8192, 8192, 8, -1, 0) && mbc_pin_pack(512, 8192, 8192, 8, -1, 1),
          "4 KB columns: packed on one GPU and in a split");
    CHECKF(mbc_pin_pack(2048, 6144, 8192, 8, -1, 0) && !mbc_pin_pack(2048, 6144, 8192, 8, -1, 1),
          "16 KB columns: packed on one GPU, DMA'd in a split");
    CHECKF(mbc_pin_pack(2048, 6144, 8192, 4, -1, 0) && !mbc_pin_pack(2048, 6144, 8192, 4, -1, 1),
          "8 KB columns: packed on one GPU, DMA'd in a split");
    CHECKF(!mbc_pin_pack(4096, 6144, 8192, 8, -1, 0), "32 KB columns: DMA'd on one GPU");
    CHECKF(mbc_pin_pack(4095, 6144, 8192, 8, -1, 0), "just under 32 KB: packed on one GPU");
    /* contiguous (rows == ld) or one column: always DMA'd, whatever the threshold */
    CHECKF(!mbc_pin_pack(512, 8192, 512, 8, -1, 0) && !mbc_pin_pack(512, 8192, 512, 8, 1 << 20, 1),
          "contiguous piece packed");
    CHECKF(!mbc_pin_pack(100, 1, 8192, 8, 1 << 20, 0), "one column packed");
    /* a set threshold applies to one GPU and to splits alike; 0 packs nothing */
    CHECKF(mbc_pin_pack(2048, 10, 4096, 8, 64, 1) && !mbc_pin_pack(8192, 10, 9000, 8, 64, 0),
          "pin_row_kb=64");
    CHECKF(!mbc_pin_pack(1, 10, 4096, 4, 0, 0) && !mbc_pin_pack(1, 10, 4096, 4, 0, 1), "pin_row_kb=0");
}

/* ------------------------------------------------------------------ the head (head_rows) */

typedef struct hgeo {
    int64_t m, n, npan, pc[MBC_MAXPAN + 1], nb, mb, nblk, row_k, head;
    int hr; /* the head panels by (row block x panel) gemms */
} hgeo;

typedef struct ggemm {
    int64_t r0, nr, c0, nc;
} ggemm;

typedef struct glist {
    ggemm g[8192];
    int n;
} glist;

static void add(glist *l, int64_t r0, int64_t nr, int64_t c0, int64_t nc) {
    CHECKF(l->n < (int)(sizeof l->g / sizeof l->g[0]), "too many gemms");
    if (l->n < (int)(sizeof l->g / sizeof l->g[0])) l->g[l->n++] = (ggemm){r0, nr, c0, nc};
}

static int by_rows(const hgeo *h, int64_t p) {
    return mbc_by_rows(h->nblk, h->mb, h->pc[p + 1] - h->pc[p], h->row_k);
}

/* rows_gemm of gpu_gemm.c: panel p by the row blocks [b0, b1), or over all rows. */
static void rows_gemm(const hgeo *h, glist *l, int64_t p, int64_t b0, int64_t b1) {
    int64_t c0 = h->pc[p], nc = h->pc[p + 1] - c0;
    if (!by_rows(h, p)) {
        add(l, 0, h->m, c0, nc);
        return;
    }
    for (int64_t b = b0; b < b1; ++b)
        add(l, b * h->mb, h->mb < h->m - b * h->mb ? h->mb : h->m - b * h->mb, c0, nc);
}

/* The phase-2 gemms of gemm_staged's one-GPU loop for panels [0, phi) (the first share). */
static void one_gpu_gemms(const hgeo *h, int64_t phi, glist *l) {
    int64_t sa = 0, sb = 0;
    while (sa < h->nblk || sb < phi) {
        if (sa < h->nblk && (sa <= sb || sb == phi)) {
            int64_t r0 = sa * h->mb, nr = h->mb < h->m - r0 ? h->mb : h->m - r0;
            ++sa;
            if (sb > 0 && !h->hr) add(l, r0, nr, 0, h->pc[sb]);
            for (int64_t p = 0; h->hr && p < sb; ++p) rows_gemm(h, l, p, sa - 1, sa);
        } else {
            ++sb;
            if (sa == h->nblk || (sa > 0 && h->hr))
                rows_gemm(h, l, sb - 1, 0, sa);
            else if (sa > 0)
                add(l, 0, sa * h->mb < h->m ? sa * h->mb : h->m, h->pc[sb - 1],
                    h->pc[sb] - h->pc[sb - 1]);
        }
    }
}

/* A later share's phase-2 gemms for panels [plo, phi): each panel by rows or all rows. */
static void share_gemms(const hgeo *h, int64_t plo, int64_t phi, glist *l) {
    for (int64_t p = plo; p < phi; ++p) rows_gemm(h, l, p, 0, h->nblk);
}

static int cmp_gemm(const void *a, const void *b) {
    const ggemm *x = a, *y = b;
    if (x->c0 != y->c0) return x->c0 < y->c0 ? -1 : 1;
    if (x->r0 != y->r0) return x->r0 < y->r0 ? -1 : 1;
    if (x->nc != y->nc) return x->nc < y->nc ? -1 : 1;
    return x->nr < y->nr ? -1 : x->nr > y->nr;
}

static void make_geo(hgeo *h, int64_t m, int64_t n, int64_t panel, int64_t row_k, int head_rows) {
    memset(h, 0, sizeof *h);
    h->m = m, h->n = n, h->row_k = row_k;
    h->npan = mbc_gemm_panels(m, n, panel, h->pc, &h->nb);
    h->nblk = mbc_row_blocks(m, 1, &h->mb);
    h->head = mbc_split_head(h->npan, h->pc, h->nblk, h->mb, row_k, head_rows);
    h->hr = h->head == 0 && h->nblk > 1;
}

/* The split of h over ndev devices gives every device the one-GPU schedule's gemms of its
 * panels; returns the devices used. */
static int check_head(const hgeo *h, int ndev, int64_t min_cols, int grid) {
    static glist one, all, sh;
    const char *ctx = "m %lld n %lld npan %lld nblk %lld head %lld hr %d ndev %d";
#define HARGS (long long)h->m, (long long)h->n, (long long)h->npan, (long long)h->nblk, \
              (long long)h->head, h->hr, ndev
    CHECKF(h->npan >= 1 && h->npan <= MBC_MAXPAN && h->pc[0] == 0 && h->pc[h->npan] == h->n, ctx, HARGS);
    for (int64_t p = 0; p < h->npan; ++p) CHECKF(h->pc[p + 1] > h->pc[p], ctx, HARGS);
    CHECKF(h->nblk >= 1 && (h->nblk - 1) * h->mb < h->m && h->nblk * h->mb >= h->m, ctx, HARGS);
    if (h->hr) /* only where every head panel is by rows */
        for (int64_t p = 0; p < h->nblk - 1 && p < h->npan; ++p)
            CHECKF(by_rows(h, p), "head_rows with head panel %lld not by rows; " "m %lld n %lld",
                   (long long)p, (long long)h->m, (long long)h->n);
    one.n = all.n = 0;
    one_gpu_gemms(h, h->npan, &one);
    mbc_split sp;
    mbc_split_plan(h->npan, h->pc, h->head, ndev, h->m, 1, min_cols, 0, &sp);
    for (int d = 0; d < sp.ndev; ++d) {
        int64_t plo = sp.first[d], phi = sp.first[d + 1];
        CHECKF(plo < phi, ctx, HARGS);
        CHECKF(d > 0 || phi >= h->head, "the first share ends before the head; " "m %lld n %lld",
               (long long)h->m, (long long)h->n);
        sh.n = 0;
        if (plo == 0)
            one_gpu_gemms(h, phi, &sh);
        else
            share_gemms(h, plo, phi, &sh);
        for (int i = 0; i < sh.n; ++i) {
            const ggemm *g = &sh.g[i];
            CHECKF(g->c0 >= h->pc[plo] && g->c0 + g->nc <= h->pc[phi] && g->nr >= 1 && g->nc >= 1,
                   "device %d: gemm of columns %lld+%lld outside its share; " "m %lld n %lld", d,
                   (long long)g->c0, (long long)g->nc, (long long)h->m, (long long)h->n);
            add(&all, g->r0, g->nr, g->c0, g->nc);
        }
    }
    qsort(one.g, (size_t)one.n, sizeof one.g[0], cmp_gemm);
    qsort(all.g, (size_t)all.n, sizeof all.g[0], cmp_gemm);
    int same = one.n == all.n;
    for (int i = 0; same && i < one.n; ++i) same = cmp_gemm(&one.g[i], &all.g[i]) == 0;
    CHECKF(same, "the shares' gemms differ from the one-GPU schedule's (%d vs %d); " "m %lld n %lld npan %lld nblk %lld head %lld hr %d ndev %d",
           all.n, one.n, HARGS);
    int64_t area = 0;
    for (int i = 0; i < one.n; ++i) {
        area += one.g[i].nr * one.g[i].nc;
        if (h->hr) { /* each gemm within one panel */
            int64_t p = 0;
            while (h->pc[p + 1] <= one.g[i].c0) ++p;
            CHECKF(one.g[i].c0 + one.g[i].nc <= h->pc[p + 1], "head_rows: a gemm spans panels; " "m %lld n %lld",
                   (long long)h->m, (long long)h->n);
        }
    }
    CHECKF(area == h->m * h->n, "gemms cover %lld of %lld elements", (long long)area, (long long)(h->m * h->n));
    if (grid) { /* every element exactly once */
        unsigned char *cnt = calloc((size_t)(h->m * h->n), 1);
        for (int i = 0; cnt && i < one.n; ++i)
            for (int64_t c = one.g[i].c0; c < one.g[i].c0 + one.g[i].nc; ++c)
                for (int64_t r = one.g[i].r0; r < one.g[i].r0 + one.g[i].nr; ++r)
                    ++cnt[r + c * h->m];
        int64_t bad = 0;
        for (int64_t x = 0; cnt && x < h->m * h->n; ++x) bad += cnt[x] != 1;
        CHECKF(cnt && bad == 0, "%lld elements not computed exactly once; " "m %lld n %lld", (long long)bad,
               (long long)h->m, (long long)h->n);
        free(cnt);
    }
    return sp.ndev;
#undef HARGS
}

static void test_head(void) {
    hgeo h;
    int total = 0, hr = 0, split = 0;
    for (int it = 0; it < 4000; ++it) {
        int grid = it % 2 == 0;
        int64_t m = 1 + (int64_t)rnd(grid ? 700 : 40000), n = 1 + (int64_t)rnd(grid ? 900 : 40000);
        int64_t panel = it % 3 == 0 ? 0 : 32 + (int64_t)rnd(grid ? 200 : 5000);
        int64_t row_k = it % 4 == 0 ? 0 : it % 4 == 1 ? 8192 : 1 + (int64_t)rnd(grid ? 64 : 20000);
        make_geo(&h, m, n, panel, row_k, it % 5 != 0);
        int ndev = 1 + (int)rnd(9);
        split += check_head(&h, ndev, it % 2 ? 0 : (int64_t)rnd(2000), grid) > 1;
        hr += h.hr;
        ++total;
    }
    CHECKF(hr > total / 10 && split > total / 4, "too few cases: %d with head_rows, %d split of %d", hr,
           split, total);

    /* n = m = k = 16384, panel and row_gemm_k auto: 7 x 2048, 1024, 512, 256, 128, 128;
     * 4 row blocks, so 3 head panels, all by rows */
    make_geo(&h, 16384, 16384, 0, 8192, 0);
    CHECKF(h.npan == 12 && h.pc[7] == 14336 && h.pc[8] == 15360 && h.nblk == 4 && h.head == 3 && !h.hr,
           "16384: npan %lld pc[7] %lld nblk %lld head %lld", (long long)h.npan, (long long)h.pc[7],
           (long long)h.nblk, (long long)h.head);
    mbc_split sp;
    /* without head_rows: the first device keeps the head, 6144 of 16384 columns on 4 devices */
    mbc_split_plan(h.npan, h.pc, h.head, 4, 16384, 16384, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 4 && h.pc[sp.first[1]] == 6144, "16384 over 4: ndev %d, first share %lld columns",
           sp.ndev, (long long)h.pc[sp.first[1]]);
    check_head(&h, 4, MBC_SPLIT_MIN_COLS, 0);
    /* with it: no head, 4096 columns each on 4 devices, 8192 on 2 */
    make_geo(&h, 16384, 16384, 0, 8192, 1);
    CHECKF(h.head == 0 && h.hr, "16384 head_rows: head %lld", (long long)h.head);
    for (int nd = 2; nd <= 4; nd += 2) {
        mbc_split_plan(h.npan, h.pc, h.head, nd, 16384, 16384, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
        CHECKF(sp.ndev == nd, "16384 head_rows over %d: ndev %d", nd, sp.ndev);
        for (int d = 0; d < sp.ndev; ++d)
            CHECKF(h.pc[sp.first[d + 1]] - h.pc[sp.first[d]] == 16384 / nd,
                   "16384 head_rows over %d: share %d is %lld columns", nd, d,
                   (long long)(h.pc[sp.first[d + 1]] - h.pc[sp.first[d]]));
        CHECKF(check_head(&h, nd, MBC_SPLIT_MIN_COLS, 0) == nd, "16384 head_rows over %d", nd);
    }
    /* a head panel not by rows (row_gemm_k above a 2048-wide block's product): head kept */
    make_geo(&h, 16384, 16384, 0, 8193, 1);
    CHECKF(h.head == 3 && !h.hr, "16384 row_gemm_k 8193: head %lld", (long long)h.head);
    /* n = 8192: 1024-wide panels, 2M elements per block: not by rows at auto, head kept */
    make_geo(&h, 8192, 8192, 0, 8192, 1);
    CHECKF(h.head == 3 && !h.hr, "8192 head_rows: head %lld", (long long)h.head);
    /* the multi-GPU test's tuning (panel=64, row_gemm_k=12) on its 531 x 700 shape: 3 row
     * blocks of 192, head panels of 64 by rows */
    make_geo(&h, 531, 700, 64, 12, 1);
    CHECKF(h.nblk == 3 && h.head == 0 && h.hr, "531 x 700: nblk %lld head %lld", (long long)h.nblk,
           (long long)h.head);
    printf("head plans: %d checked (%d with head_rows, %d split), fixed cases ok\n", total, hr, split);
}

int main(void) {
    test_vec();
    test_pin_pack();
    test_head();
    int64_t pc[65];
    /* panels like the one-GPU schedule's: nb wide, the last ones halving */
    int splits = 0, total = 0;
    for (int it = 0; it < 20000; ++it) {
        int64_t npan = 1 + (int64_t)rnd(64);
        pc[0] = 0;
        int64_t nb = 1 + (int64_t)rnd(it % 3 == 0 ? 40 : 4096);
        for (int64_t p = 0; p < npan; ++p) {
            int64_t w = p + 3 >= npan && rnd(2) ? 1 + nb / (1 + (int64_t)rnd(4)) : nb;
            if (it % 5 == 0) w = 1 + (int64_t)rnd(3000); /* any widths */
            pc[p + 1] = pc[p] + w;
        }
        int64_t head = (int64_t)rnd(5) - 1; /* -1 (none) .. 3 */
        if (head > npan) head = npan;
        int ndev = 1 + (int)rnd(it % 7 == 0 ? 80 : 9);
        int64_t m = 1 + (int64_t)rnd(20000), k = 1 + (int64_t)rnd(20000);
        int64_t min_cols = it % 4 == 0 ? 0 : it % 4 == 1 ? MBC_SPLIT_MIN_COLS : (int64_t)rnd(5000);
        double vol = it % 3 == 0 ? 0 : MBC_SPLIT_MIN_VOLUME;
        splits += check_plan(npan, pc, head, ndev, m, k, min_cols, vol);
        ++total;
    }
    CHECKF(splits > total / 10, "only %d of %d plans split: the checks saw too few splits", splits, total);

    /* Fixed cases. 8 panels of 2048 (n = 16384), head 3, 2 devices, 2048 columns at least:
     * an even split at the middle edge. */
    for (int p = 0; p <= 8; ++p) pc[p] = 2048 * p;
    mbc_split sp;
    mbc_split_plan(8, pc, 3, 2, 16384, 16384, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 2 && sp.first[1] == 4, "16384 over 2: ndev %d first[1] %lld", sp.ndev, (long long)sp.first[1]);
    mbc_split_plan(8, pc, 3, 4, 16384, 16384, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 4 && sp.first[1] == 3 && sp.first[2] == 4 && sp.first[3] == 6,
          "16384 over 4: ndev %d first %lld %lld %lld", sp.ndev, (long long)sp.first[1],
          (long long)sp.first[2], (long long)sp.first[3]);
    /* the head wider than an even share: device 0 keeps it, the others share the rest */
    mbc_split_plan(8, pc, 6, 4, 16384, 16384, 0, 0, &sp);
    CHECKF(sp.ndev == 3 && sp.first[1] == 6 && sp.first[2] == 7, "head 6: ndev %d first[1] %lld",
          sp.ndev, (long long)sp.first[1]);
    /* one device, one panel, a small volume, shares too narrow: no split */
    mbc_split_plan(8, pc, 3, 1, 16384, 16384, 0, 0, &sp);
    CHECKF(sp.ndev == 1 && sp.first[1] == 8, "one device");
    mbc_split_plan(1, pc, 0, 4, 16384, 16384, 0, 0, &sp);
    CHECKF(sp.ndev == 1 && sp.first[1] == 1, "one panel");
    mbc_split_plan(8, pc, 3, 2, 16, 16, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 1, "small volume");
    for (int p = 0; p <= 8; ++p) pc[p] = 256 * p; /* n = 2048: shares of 2048 only for 1 device */
    mbc_split_plan(8, pc, 3, 2, 4096, 4096, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 1, "n = 2048: shares below %d columns", MBC_SPLIT_MIN_COLS);

    if (g_fail) {
        fprintf(stderr, "%d failures\n", g_fail);
        return 1;
    }
    printf("split plans: %d checked (%d split), fixed cases ok\n", total, splits);
    return 0;
}
