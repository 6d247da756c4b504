/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sasum, dasum, sdot, ddot on every rung (and auto) against OpenBLAS (cblas_?asum, cblas_?dot):
 * n from 0 to 2^24 + 1 (not multiples of any block), increments 1, 2, 3, -1, -3 (x and y
 * different), 0 for dot (repeats element 0), asum with incx 0 and -1 (reference BLAS: the
 * result is exactly 0). Both the host-result calls and the device-result calls (the device
 * result lands between two NaN sentinels that must survive). Device pointers also 1 and 2
 * elements past a 16-byte boundary (x and y at equal and at different offsets).
 *
 * Bound: |result - OpenBLAS| <= n eps sum|terms| + tiny, eps the machine epsilon of the
 * precision, sum|terms| computed in double. The same call twice must give bitwise identical
 * results (determinism). Accuracy (not in quick mode): sasum of 2^25 values uniform in
 * [0.5, 1], where the sequential float sum stalls at 2^24; every rung's error against a double
 * reference must be at most the sequential float sum's error.
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_test_util.h"

typedef struct rctx {
    miniblas_handle_t h;
    int dbl, dot;
    miniblas_op_t op;
    const char *opn;
    mbt_variant *v;
    int nv;
} rctx;

static int64_t iabs64(int64_t v) { return v < 0 ? -v : v; }

/* Storage extent of a vector of n elements with increment inc (at least 1). */
static size_t vec_extent(int64_t n, int64_t inc) {
    return n <= 1 ? 1 : (size_t)((n - 1) * iabs64(inc) + 1);
}

/* Storage position of logical element i (reference BLAS: a negative increment starts at the
 * far end). */
static size_t vec_pos(int64_t i, int64_t n, int64_t inc) {
    if (n <= 1) return 0; /* one element: the increment is never used (it may be INT64_MIN) */
    return inc >= 0 ? (size_t)(i * inc) : (size_t)((n - 1 - i) * -inc);
}

static miniblas_status_t call(const rctx *g, int device, int64_t n, const void *x, int64_t incx,
                              const void *y, int64_t incy, void *result) {
    if (g->dot) {
        if (g->dbl)
            return device ? miniblas_ddot_device(g->h, n, x, incx, y, incy, result)
                          : miniblas_ddot(g->h, n, x, incx, y, incy, result);
        return device ? miniblas_sdot_device(g->h, n, x, incx, y, incy, result)
                      : miniblas_sdot(g->h, n, x, incx, y, incy, result);
    }
    if (g->dbl)
        return device ? miniblas_dasum_device(g->h, n, x, incx, result)
                      : miniblas_dasum(g->h, n, x, incx, result);
    return device ? miniblas_sasum_device(g->h, n, x, incx, result)
                  : miniblas_sasum(g->h, n, x, incx, result);
}

/* ox, oy: element offsets of the device pointers from the (256-byte aligned) allocation, so
 * the vector rungs' scalar head, and x and y at different 16-byte offsets, are exercised. */
static void run_case_at(rctx *g, int64_t n, int64_t incx, int64_t incy, int ox, int oy) {
    const int dbl = g->dbl;
    const size_t es = mbt_elem(dbl);
    char kase[160];
    if (g->dot)
        snprintf(kase, sizeof kase, "n=%lld incx=%lld incy=%lld ptr-offsets x+%d y+%d",
                 (long long)n, (long long)incx, (long long)incy, ox, oy);
    else
        snprintf(kase, sizeof kase, "n=%lld incx=%lld ptr-offset x+%d", (long long)n,
                 (long long)incx, ox);
    mbt_context("%s case %s: preparing", g->opn, kase);
    const int zero = n <= 0 || (!g->dot && incx <= 0); /* the result is exactly 0 */
    size_t nx = (!g->dot && incx <= 0) ? (size_t)(n > 0 ? n : 1) : vec_extent(n, incx);
    size_t ny = g->dot ? vec_extent(n, incy) : 0;
    void *hx = mbt_host_alloc(nx * es), *hy = mbt_host_alloc((ny ? ny : 1) * es);
    mbt_fill_uniform(hx, nx, dbl);
    if (ny) mbt_fill_uniform(hy, ny, dbl);

    double ref = 0, exact = 0, sumabs = 0;
    if (!zero) {
        for (int64_t i = 0; i < n; ++i) {
            double xv = mbt_get(hx, vec_pos(i, n, incx), dbl);
            double term = g->dot ? xv * mbt_get(hy, vec_pos(i, n, incy), dbl) : fabs(xv);
            exact += term;
            sumabs += fabs(term);
        }
        /* OpenBLAS takes int increments: for n == 1 only the sign of an extreme one matters */
        const int rix = (int)(n == 1 ? (incx > 0) - (incx < 0) : incx);
        const int riy = (int)(n == 1 ? (incy > 0) - (incy < 0) : incy);
        if (g->dot)
            ref = dbl ? cblas_ddot((int)n, hx, rix, hy, riy) : cblas_sdot((int)n, hx, rix, hy, riy);
        else
            ref = dbl ? cblas_dasum((int)n, hx, rix) : cblas_sasum((int)n, hx, rix);
    }
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON, tiny = dbl ? 1e-300 : 1e-30;
    const double bound = (double)(n > 0 ? n : 1) * eps * sumabs + tiny;
    if (!zero)
        mbt_expect(NULL, fabs(ref - exact) <= bound, g->opn, kase,
                   "reference: OpenBLAS gives %.17g, the double-precision sum %.17g (bound %.3g)",
                   ref, exact, bound);

    char *dxa = mbt_dev_alloc((nx + ox) * es), *dya = ny ? mbt_dev_alloc((ny + oy) * es) : NULL;
    char *dx = dxa + (size_t)ox * es, *dy = dya ? dya + (size_t)oy * es : NULL;
    char *dres = mbt_dev_alloc(4 * es);
    mbt_h2d(dx, hx, nx * es);
    if (ny) mbt_h2d(dy, hy, ny * es);
    double img[4], outd[4]; /* room for 4 doubles or 4 floats */
    mbt_poison(img, 4, dbl);

    for (int vi = 0; vi < g->nv; ++vi) {
        mbt_variant *v = &g->v[vi];
        if (v->skip || !mbt_select(g->h, g->op, v)) continue;
        double got[2];
        int ok = 1;
        for (int device = 0; device < 2 && ok; ++device) {
            mbt_context("%s [%s] case %s, %s result", g->opn, v->label, kase,
                        device ? "device" : "host");
            char sub[200];
            snprintf(sub, sizeof sub, "%s, %s result", kase, device ? "device" : "host");
            double hres[1] = {0};
            mbt_poison(hres, 1, dbl);
            if (device) mbt_h2d(dres, img, 4 * es);
            miniblas_status_t st = call(g, device, n, dx, incx, dy, incy,
                                        device ? (void *)(dres + es) : (void *)hres);
            if (st != MINIBLAS_STATUS_SUCCESS) {
                mbt_fail(v, g->opn, sub, "returned %s: %s", miniblas_status_string(st),
                         miniblas_last_error(g->h));
                ok = 0;
                break;
            }
            mbt_check_last_rung(g->h, g->op, v, zero ? "none" : NULL, sub);
            double r;
            if (device) {
                mbt_d2h(outd, dres, 4 * es);
                r = mbt_get(outd, 1, dbl);
                mbt_expect(v, mbt_same_bits(outd, img, 0, dbl) && mbt_same_bits(outd, img, 2, dbl),
                           g->opn, sub, "the device result's neighbours were overwritten");
            } else {
                r = mbt_get(hres, 0, dbl);
            }
            got[device] = r;
            if (zero)
                ok = mbt_expect(v, r == 0, g->opn, sub, "result %.17g, expected exactly 0", r);
            else
                ok = mbt_expect(v, fabs(r - ref) <= bound, g->opn, sub,
                                "result %.17g, expected %.17g (|error| %.3g > bound %.3g)", r, ref,
                                fabs(r - ref), bound);
        }
        if (ok && n >= 256) { /* determinism: the same call again, bit for bit */
            double again[1] = {0};
            mbt_context("%s [%s] case %s, repeated", g->opn, v->label, kase);
            miniblas_status_t st = call(g, 0, n, dx, incx, dy, incy, again);
            double first[1];
            mbt_set(first, 0, got[0], dbl);
            mbt_expect(v, st == MINIBLAS_STATUS_SUCCESS && mbt_same_bits(first, again, 0, dbl),
                       g->opn, kase, "repeated call (%s) not bitwise identical: %.17g then %.17g",
                       miniblas_status_string(st), got[0], mbt_get(again, 0, dbl));
        }
    }
    mbt_dev_free(dxa);
    mbt_dev_free(dya);
    mbt_dev_free(dres);
    free(hx), free(hy);
}

static void run_case(rctx *g, int64_t n, int64_t incx, int64_t incy) {
    run_case_at(g, n, incx, incy, 0, 0);
}

static void run_op(miniblas_handle_t h, miniblas_op_t op) {
    rctx g = {h, op == MINIBLAS_OP_DASUM || op == MINIBLAS_OP_DDOT,
              op == MINIBLAS_OP_SDOT || op == MINIBLAS_OP_DDOT, op, miniblas_op_name(op), NULL, 0};
    g.nv = mbt_variants(op, &g.v);
    mbt_expect(NULL, miniblas_rung_count(op) >= 1, g.opn, "rung table",
               "miniblas_rung_count = %d", miniblas_rung_count(op));
    static const int64_t ns[] = {0,    1,    2,    7,     31,    32,           33,
                                 255,  256,  257,  1000,  4097,  65539,        (1 << 20) + 7,
                                 (1 << 24) + 1};
    static const int64_t qns[] = {0, 1, 2, 7, 33, 257, 1000, 4097};
    static const int64_t asum_inc[] = {1, 2, 3, 0, -1}, asum_inc_few[] = {1, 3, -1};
    static const int64_t dot_inc[][2] = {{1, 1},  {2, 3},  {3, -1}, {-1, -1},
                                         {-3, 2}, {1, -3}, {0, 1},  {2, 0}};
    static const int64_t dot_inc_few[][2] = {{1, 1}, {-3, 2}, {0, 1}};
    const int quick = mbt_quick();
    const int nn = quick ? (int)(sizeof qns / sizeof qns[0]) : (int)(sizeof ns / sizeof ns[0]);
    for (int i = 0; i < nn; ++i) {
        int64_t n = quick ? qns[i] : ns[i];
        int few = quick || n >= (1 << 20); /* fewer increments where each case is large or slow */
        if (g.dot) {
            int ni = few ? 3 : 8;
            for (int j = 0; j < ni; ++j)
                run_case(&g, n, few ? dot_inc_few[j][0] : dot_inc[j][0],
                         few ? dot_inc_few[j][1] : dot_inc[j][1]);
        } else {
            int ni = few ? 3 : 5;
            for (int j = 0; j < ni; ++j) run_case(&g, n, few ? asum_inc_few[j] : asum_inc[j], 0);
        }
    }
    if (!g.dot && quick) run_case(&g, 33, 0, 0); /* asum with incx = 0: 0 */
    /* n == 1: the increments are never used, whatever they are (INT64_MIN must not be
     * negated: no signed overflow in dispatch or any rung; run under UBSan-like tools). */
    static const int64_t one_inc[][2] = {{INT64_MIN, INT64_MIN}, {INT64_MIN, 1},
                                         {INT64_MAX, INT64_MIN}, {-INT64_MAX, 7}};
    for (int j = 0; j < 4; ++j) run_case(&g, 1, one_inc[j][0], g.dot ? one_inc[j][1] : 0);

    /* Device pointers 1 and 2 elements past a 16-byte boundary: the scalar head before the
     * first aligned vector (n = 2: the head is the whole vector), x and y at the same and at
     * different offsets (dot: vector path with a head, or the scalar fallback), and strided. */
    static const int64_t off_ns[] = {2, 7, 1000, 4097, 65539, (1 << 20) + 7};
    static const int off_xy[][2] = {{1, 1}, {2, 2}, {1, 2}, {0, 1}, {2, 0}};
    const int non = quick ? 4 : (int)(sizeof off_ns / sizeof off_ns[0]);
    for (int i = 0; i < non; ++i)
        for (int j = 0; j < (g.dot ? 5 : 2); ++j)
            run_case_at(&g, off_ns[i], 1, 1, off_xy[j][0], g.dot ? off_xy[j][1] : 0);
    run_case_at(&g, 4097, 2, g.dot ? -3 : 0, 1, g.dot ? 2 : 0);

    if (op == MINIBLAS_OP_SASUM && !quick) { /* accuracy on an ill-conditioned sum */
        const int64_t n = (int64_t)1 << 25;
        const char *kase = "accuracy: n=2^25 values uniform in [0.5, 1]";
        mbt_context("sasum %s: preparing", kase);
        float *x = mbt_host_alloc((size_t)n * sizeof(float));
        double exact = 0;
        volatile float seq = 0; /* the sequential float sum, in order */
        for (int64_t i = 0; i < n; ++i) {
            x[i] = (float)(0.75 + 0.25 * mbt_rand_uniform());
            exact += x[i];
            seq += x[i];
        }
        double seq_err = fabs((double)seq - exact);
        printf("sasum %s: sequential float sum error %.6g (relative %.3g)\n", kase, seq_err,
               seq_err / exact);
        float *dx = mbt_dev_alloc((size_t)n * sizeof(float));
        mbt_h2d(dx, x, (size_t)n * sizeof(float));
        for (int vi = 0; vi < g.nv; ++vi) {
            mbt_variant *v = &g.v[vi];
            if (v->skip || !mbt_select(h, op, v)) continue;
            mbt_context("sasum [%s] %s", v->label, kase);
            float r = 0;
            miniblas_status_t st = miniblas_sasum(h, n, dx, 1, &r);
            double err = fabs((double)r - exact);
            mbt_expect(v, st == MINIBLAS_STATUS_SUCCESS && err <= seq_err, "sasum", kase,
                       "%s: result %.9g, exact %.17g, error %.6g > sequential float error %.6g",
                       miniblas_status_string(st), (double)r, exact, err, seq_err);
        }
        mbt_dev_free(dx);
        free(x);
    }
    mbt_print_variants(op, g.v, g.nv);
    free(g.v);
}

int main(void) {
    mbt_init("test_reduce_gpu");
    miniblas_handle_t h = NULL;
    miniblas_status_t st = miniblas_create(&h);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, "reduce", "miniblas_create", "returned %s", miniblas_status_string(st));
        return mbt_finish();
    }
    run_op(h, MINIBLAS_OP_SASUM);
    run_op(h, MINIBLAS_OP_DASUM);
    run_op(h, MINIBLAS_OP_SDOT);
    run_op(h, MINIBLAS_OP_DDOT);
    miniblas_destroy(h);
    return mbt_finish();
}
