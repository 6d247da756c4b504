/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * somatcopy / domatcopy (B = alpha * op(A)) on every rung (and auto) against OpenBLAS's
 * cblas_?omatcopy: both layouts, NoTrans and Trans (and 113/114 once), odd and skinny shapes,
 * padded leading dimensions, misaligned device pointers, alpha in {1, -1, 0, random}; with
 * alpha == 0, A holds NaN and +-Inf, which must not reach B (A is not read: B = 0).
 *
 * B is uploaded as NaN sentinels (its padding and 32-element guards before and after it
 * included); after the call every element of B must EQUAL the reference (alpha * a is one
 * IEEE multiply, so there is no tolerance) and every other element must still be the
 * sentinel, bit for bit. A's padding holds a different NaN, so copying padding is caught.
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_test_util.h"

#define O_GUARD 32

typedef struct ocase {
    int layout, trans;  /* as passed to miniblas (111..114) */
    int64_t rows, cols; /* of A, in the layout */
    int pa, pb;         /* leading-dimension pads */
    int al;             /* 0: 1, 1: -1, 2: 0, 3: random */
    int oa, ob;         /* element offsets of the device pointers */
} ocase;

typedef struct octx {
    miniblas_handle_t h;
    int dbl;
    miniblas_op_t op;
    const char *opn;
    mbt_variant *v;
    int nv;
} octx;

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

static void stored(int layout, int64_t rows, int64_t cols, int64_t *lead, int64_t *outer) {
    if (layout == MiniblasColMajor) {
        *lead = rows;
        *outer = cols;
    } else {
        *lead = cols;
        *outer = rows;
    }
}

static miniblas_status_t call(const octx *g, const ocase *c, double alpha, const void *A,
                              int64_t lda, void *B, int64_t ldb) {
    if (g->dbl)
        return miniblas_domatcopy(g->h, (miniblas_layout_t)c->layout,
                                  (miniblas_transpose_t)c->trans, c->rows, c->cols, alpha, A, lda,
                                  B, ldb);
    return miniblas_somatcopy(g->h, (miniblas_layout_t)c->layout, (miniblas_transpose_t)c->trans,
                              c->rows, c->cols, (float)alpha, A, lda, B, ldb);
}

static void run_case(octx *g, const ocase *c) {
    const int dbl = g->dbl;
    const size_t es = mbt_elem(dbl);
    const int t = c->trans == MiniblasTrans || c->trans == MiniblasConjTrans;
    const int64_t rows = c->rows, cols = c->cols;
    int64_t la, outa, lb, outb;
    stored(c->layout, rows, cols, &la, &outa);
    stored(c->layout, t ? cols : rows, t ? rows : cols, &lb, &outb);
    const int64_t lda = max1(la) + c->pa, ldb = max1(lb) + c->pb;
    const size_t nA = (la == 0 || outa == 0) ? 0 : (size_t)(lda * (outa - 1) + la);
    const size_t nB = (size_t)(ldb * outb);
    const size_t bbase = O_GUARD + (size_t)c->ob, nbuf = bbase + nB + O_GUARD;
    const int compute = rows > 0 && cols > 0;
    double alpha = c->al == 0 ? 1 : c->al == 1 ? -1 : c->al == 2 ? 0 : mbt_rand_scalar();
    if (!dbl) alpha = (float)alpha;

    char kase[256];
    snprintf(kase, sizeof kase, "%s trans=%d rows=%lld cols=%lld lda=%lld ldb=%lld alpha=%.9g "
             "ptr-offsets A+%d B+%d",
             c->layout == MiniblasColMajor ? "col" : "row", c->trans, (long long)rows,
             (long long)cols, (long long)lda, (long long)ldb, alpha, c->oa, c->ob);
    mbt_context("%s case %s: preparing", g->opn, kase);

    void *hA = mbt_host_alloc((nA ? nA : 1) * es);
    void *imgA = mbt_host_alloc(((size_t)c->oa + nA + 1) * es);
    for (size_t i = 0; i < (size_t)c->oa + nA; ++i) mbt_set_nan2(imgA, i, dbl);
    for (size_t q = 0; q < nA; ++q)
        if ((int64_t)(q % (size_t)lda) < la) {
            /* alpha == 0: A is not read, so NaN and Inf in A must give 0 (as OpenBLAS) */
            double v = alpha == 0 && q % 3 == 0 ? (q % 2 ? NAN : (q % 4 ? -INFINITY : INFINITY))
                                                 : mbt_rand_uniform();
            mbt_set(hA, q, v, dbl);
            mbt_set(imgA, c->oa + q, mbt_get(hA, q, dbl), dbl);
        }
    void *img = mbt_host_alloc(nbuf * es), *out = mbt_host_alloc(nbuf * es);
    void *ref = mbt_host_alloc((nB ? nB : 1) * es);
    mbt_poison(img, nbuf, dbl);
    if (compute) {
        enum CBLAS_ORDER lay = (enum CBLAS_ORDER)c->layout;
        enum CBLAS_TRANSPOSE ct = t ? CblasTrans : CblasNoTrans;
        if (dbl)
            cblas_domatcopy(lay, ct, (int)rows, (int)cols, alpha, hA, (int)lda, ref, (int)ldb);
        else
            cblas_somatcopy(lay, ct, (int)rows, (int)cols, (float)alpha, hA, (int)lda, ref,
                            (int)ldb);
        /* The reference itself: B(j, i) or B(i, j) = alpha * A(i, j), one multiply. */
        size_t refbad = 0;
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
                size_t pa = c->layout == MiniblasColMajor ? (size_t)(i + j * lda) : (size_t)(i * lda + j);
                int64_t bi = t ? j : i, bj = t ? i : j;
                size_t pb = c->layout == MiniblasColMajor ? (size_t)(bi + bj * ldb) : (size_t)(bi * ldb + bj);
                double a = mbt_get(hA, pa, dbl);
                if (alpha == 0) {
                    /* BLAS: A is not read. OpenBLAS 0.3.21's domatcopy in row-major Trans
                     * multiplies (NaN * 0 = NaN) where its other variants write 0. */
                    mbt_set(ref, pb, 0.0, dbl);
                    continue;
                }
                double want = dbl ? alpha * a : (double)((float)alpha * (float)a);
                if (!(mbt_get(ref, pb, dbl) == want)) ++refbad;
            }
        mbt_expect(NULL, refbad == 0, g->opn, kase,
                   "reference: cblas_%s disagrees with alpha * A in %zu elements", g->opn, refbad);
    }

    char *dA = mbt_dev_alloc(((size_t)c->oa + nA) * es), *dB = mbt_dev_alloc(nbuf * es);
    mbt_h2d(dA, imgA, ((size_t)c->oa + nA) * es);
    for (int vi = 0; vi < g->nv; ++vi) {
        mbt_variant *v = &g->v[vi];
        if (v->skip || !mbt_select(g->h, g->op, v)) continue;
        mbt_context("%s [%s] case %s", g->opn, v->label, kase);
        mbt_h2d(dB, img, nbuf * es);
        miniblas_status_t st = call(g, c, alpha, dA + (size_t)c->oa * es, lda, dB + bbase * es, ldb);
        if (st != MINIBLAS_STATUS_SUCCESS) {
            mbt_fail(v, g->opn, kase, "returned %s: %s", miniblas_status_string(st),
                     miniblas_last_error(g->h));
            continue;
        }
        mbt_check_last_rung(g->h, g->op, v, !compute ? "none" : alpha == 0 ? "scale" : NULL, kase);
        mbt_d2h(out, dB, nbuf * es);
        size_t bad = 0, badpad = 0, first = 0, firstpad = 0;
        for (size_t p = 0; p < nbuf; ++p) {
            if (compute && p >= bbase && p < bbase + nB && (int64_t)((p - bbase) % (size_t)ldb) < lb) {
                /* equal, and +0 where the reference is +0 (alpha == 0 writes +0.0) */
                if (!(mbt_get(out, p, dbl) == mbt_get(ref, p - bbase, dbl)) ||
                    (alpha == 0 && signbit(mbt_get(out, p, dbl))))
                    if (!bad++) first = p - bbase;
                continue;
            }
            if (!mbt_same_bits(out, img, p, dbl))
                if (!badpad++) firstpad = p;
        }
        if (bad) {
            int64_t o = (int64_t)(first / (size_t)ldb), l = (int64_t)(first % (size_t)ldb);
            int64_t i = c->layout == MiniblasColMajor ? l : o, j = c->layout == MiniblasColMajor ? o : l;
            mbt_fail(v, g->opn, kase, "B(%lld,%lld) = %.17g, expected %.17g; %zu of %lld elements wrong",
                     (long long)i, (long long)j, mbt_get(out, bbase + first, dbl),
                     mbt_get(ref, first, dbl), bad, (long long)(rows * cols));
        } else if (badpad) {
            char where[160];
            if (firstpad < bbase)
                snprintf(where, sizeof where, "guard element %lld before B",
                         (long long)bbase - (long long)firstpad);
            else if (firstpad >= bbase + nB)
                snprintf(where, sizeof where, "guard element %zu after B's storage",
                         firstpad - (bbase + nB));
            else
                snprintf(where, sizeof where,
                         "storage element %lld of leading line %lld (leading count %lld, ld %lld)",
                         (long long)((firstpad - bbase) % (size_t)ldb),
                         (long long)((firstpad - bbase) / (size_t)ldb), (long long)lb,
                         (long long)ldb);
            mbt_fail(v, g->opn, kase, "%zu elements outside B's matrix were overwritten; first: %s = %.9g",
                     badpad, where, mbt_get(out, firstpad, dbl));
        } else {
            mbt_pass(v);
        }
    }
    mbt_dev_free(dA);
    mbt_dev_free(dB);
    free(hA), free(imgA), free(img), free(out), free(ref);
}

static void run_op(miniblas_handle_t h, int dbl) {
    octx g = {h, dbl, dbl ? MINIBLAS_OP_DOMATCOPY : MINIBLAS_OP_SOMATCOPY,
              dbl ? "domatcopy" : "somatcopy", NULL, 0};
    g.nv = mbt_variants(g.op, &g.v);
    mbt_expect(NULL, miniblas_rung_count(g.op) >= 1, g.opn, "rung table",
               "miniblas_rung_count = %d", miniblas_rung_count(g.op));
    static const int64_t shapes[][2] = {{1, 1},     {1, 37},      {37, 1},      {7, 9},
                                        {31, 33},   {32, 32},     {33, 31},     {64, 65},
                                        {1000, 999}, {1023, 1025}, {4097, 33}, {33, 4097},
                                        {2048, 2049}};
    static const int64_t qshapes[][2] = {{1, 1}, {1, 37}, {37, 1}, {7, 9}, {33, 31}, {64, 65}};
    static const int pads[] = {0, 1, 3, 17};
    const int quick = mbt_quick();
    const int ns = quick ? (int)(sizeof qshapes / sizeof qshapes[0])
                         : (int)(sizeof shapes / sizeof shapes[0]);
    for (int s = 0; s < ns; ++s) {
        const int64_t *sh = quick ? qshapes[s] : shapes[s];
        for (int c = 0; c < 4; ++c) { /* both layouts x NoTrans, Trans */
            ocase x;
            int conj = sh[0] == 7 && sh[1] == 9; /* 113/114 once: same as 112/111 */
            x.layout = (c & 1) ? MiniblasRowMajor : MiniblasColMajor;
            x.trans = (c & 2) ? (conj ? MiniblasConjTrans : MiniblasTrans)
                              : (conj ? MiniblasConjNoTrans : MiniblasNoTrans);
            x.rows = sh[0], x.cols = sh[1];
            x.pa = pads[(s + c) % 4];
            x.pb = pads[(s + 2 * c + 1) % 4];
            x.al = (s + c) % 4;
            x.oa = (s + c) % 3 == 2;
            x.ob = (s + 2 * c) % 3 == 1;
            run_case(&g, &x);
        }
    }
    /* Column-major, both transposes: A+1 / B+1 / A+2 / B+2 pointer offsets and odd leading
     * dimensions next to aligned ones (pad 2 makes 66 and 130 multiples of 4), so every
     * vector rung's scalar fallback, its element-wise edge vectors (rows % 4 != 0) and its
     * aligned path (double +2 is 16-byte aligned) run, on a small shape and on one large
     * enough for the big tiles. {oa, ob, pa, pb}. */
    static const int64_t mshapes[][2] = {{66, 130}, {2050, 1030}};
    static const int moff[][4] = {{1, 0, 2, 2}, {0, 1, 2, 2}, {1, 1, 1, 1}, {0, 0, 1, 2},
                                  {0, 0, 2, 1}, {2, 2, 2, 2}, {0, 0, 2, 2}};
    for (int s = 0; s < (quick ? 1 : 2); ++s)
        for (int m = 0; m < (int)(sizeof moff / sizeof moff[0]); ++m)
            for (int t = 0; t < 2; ++t) {
                ocase x = {MiniblasColMajor, t ? MiniblasTrans : MiniblasNoTrans,
                           mshapes[s][0], mshapes[s][1], moff[m][2], moff[m][3], 3,
                           moff[m][0], moff[m][1]};
                run_case(&g, &x);
            }
    /* rows = 0 or cols = 0: B untouched. */
    const ocase empty[] = {
        {MiniblasColMajor, MiniblasNoTrans, 0, 7, 1, 0, 3, 0, 0},
        {MiniblasRowMajor, MiniblasTrans, 7, 0, 0, 1, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; ++i) run_case(&g, &empty[i]);
    mbt_print_variants(g.op, g.v, g.nv);
    free(g.v);
}

int main(void) {
    mbt_init("test_omatcopy_gpu");
    miniblas_handle_t h = NULL;
    miniblas_status_t st = miniblas_create(&h);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, "omatcopy", "miniblas_create", "returned %s", miniblas_status_string(st));
        return mbt_finish();
    }
    run_op(h, 0);
    run_op(h, 1);
    miniblas_destroy(h);
    return mbt_finish();
}
