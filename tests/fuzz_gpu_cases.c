/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fuzzer: the omatcopy and asum / dot cases. */
#include "fuzz_gpu.h"

/* ------------------------------------------------------------------ omatcopy */

void case_omatcopy(fcase *fc, rng *r) {
    const int dbl = fc->dbl;
    const size_t es = dbl ? 8 : 4;
    const int layout0 = chance(r, 50) ? 101 : 102, trans0 = trans_value(r);
    int64_t cap = g_quick ? 100 : 700;
    int64_t r0 = dim(r, cap), c0 = dim(r, cap);
    if (chance(r, 10)) r0 = 1 + rint_(r, 3), c0 = (g_quick ? 100 : 1000) + rint_(r, 3000); /* skinny */
    if (chance(r, 50)) {
        int64_t t = r0;
        r0 = c0, c0 = t;
    }
#ifdef MB_FUZZ_CBLAS
    if (r0 == 0) r0 = 1; /* rows or cols = 0: OpenBLAS's omatcopy calls it an error */
    if (c0 == 0) c0 = 1;
#endif
    double alpha = scalar(r);
    if (!dbl) alpha = (float)alpha;
    const int col = layout0 == 102, t = is_t(trans0);
    const int64_t alead = col ? r0 : c0, aout = col ? c0 : r0;
    const int b_rows = col ? !t : t; /* B's leading dimension bounds rows */
    const int64_t blead = b_rows ? r0 : c0, bout = b_rows ? c0 : r0;
    const int64_t lda0 = imax1(alead) + ld_pad(r), ldb0 = imax1(blead) + ld_pad(r);
    const int density = chance(r, 50) ? 0 : (chance(r, 50) ? 5 : 100);
    const int oa = rint_(r, 3), ob = rint_(r, 3);
    int layout = layout0, trans = trans0;
    int64_t rows = r0, cols = c0, lda = lda0, ldb = ldb0;
    int bad = 0, expect_param = 0;
    if (chance(r, 12)) {
        for (int tries = 0; tries < 20 && !bad; ++tries) {
            switch (rint_(r, 8)) {
            case 0: layout = 103, bad = 1, expect_param = 1; break;
            case 1: trans = 120, bad = 1, expect_param = 2; break;
            case 2: rows = -3, bad = 1, expect_param = 3; break;
            case 3: cols = -1, bad = 1, expect_param = 4; break;
            case 4: lda = imax1(alead) - 1, bad = 1, expect_param = 7; break;
            case 5: ldb = imax1(blead) - 1, bad = 1, expect_param = 9; break;
#ifndef MB_FUZZ_CBLAS
            case 6: if (r0 > 0 && c0 > 0) bad = 2, expect_param = 6; break;
            case 7: if (r0 > 0 && c0 > 0) bad = 3, expect_param = 8; break;
#endif
            default: break;
            }
        }
        if (!bad) cols = -1, bad = 1, expect_param = 4;
        add(&g_invalid, 1);
    }
    snprintf(fc->what, sizeof fc->what,
             "%s %s trans=%d rows=%" PRId64 " cols=%" PRId64 " alpha=%g lda=%" PRId64
             " ldb=%" PRId64 " offsets A+%d B+%d specials %d/1000%s",
             op_names[dbl][OP_OMATCOPY], layout == 101 ? "row" : layout == 102 ? "col" : "bad-layout",
             trans, rows, cols, alpha, lda, ldb, oa, ob, density, bad ? " (INVALID)" : "");
    const int64_t sa = alead > 0 && aout > 0 ? lda0 * (aout - 1) + alead : 1;
    const int64_t sb = blead > 0 && bout > 0 ? ldb0 * (bout - 1) + blead : 1;
    const size_t bbase = (size_t)ob + GUARD;
    const size_t na = (size_t)oa + (size_t)sa, nb = bbase + (size_t)sb + GUARD;
    void *hA = calloc(na, es), *hB = calloc(nb, es), *out = calloc(nb, es);
    char msg[300] = "";
    buf bA, bB;
    memset(&bA, 0, sizeof bA), memset(&bB, 0, sizeof bB);
    if (!hA || !hB || !out) {
        fatal(fc, "host allocation failed");
        goto done;
    }
    for (size_t i = 0; i < na; ++i) padnan(hA, i, dbl);
    for (size_t i = 0; i < nb; ++i) sentinel(hB, i, dbl);
    for (int64_t o = 0; o < aout; ++o)
        for (int64_t l = 0; l < alead; ++l)
            fill_input(r, (char *)hA + ((size_t)oa + (size_t)(o * lda0 + l)) * es, 1, dbl, density,
                       1, 1);
    if (buf_alloc(&bA, pick_kind(r), na * es, msg, sizeof msg) ||
        buf_alloc(&bB, pick_kind(r), nb * es, msg, sizeof msg) ||
        buf_put(&bA, hA, na * es, msg, sizeof msg) || buf_put(&bB, hB, nb * es, msg, sizeof msg)) {
        fatal(fc, msg);
        goto done;
    }
    {
        char *kinds = fc->what + strlen(fc->what);
        snprintf(kinds, sizeof fc->what - strlen(fc->what), " memory A:%s B:%s",
                 kind_names[bA.kind], kind_names[bB.kind]);
    }
    const void *pA = bad == 2 ? NULL : bA.api + (size_t)oa * es;
    void *pB = bad == 3 ? NULL : bB.api + bbase * es;
    outcome oc_;
    memset(&oc_, 0, sizeof oc_);
#ifdef MB_FUZZ_CBLAS
    before_call();
    if (dbl)
        cblas_domatcopy((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)trans, (blasint)rows,
                        (blasint)cols, alpha, pA, (blasint)lda, pB, (blasint)ldb);
    else
        cblas_somatcopy((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)trans, (blasint)rows,
                        (blasint)cols, (float)alpha, pA, (blasint)lda, pB, (blasint)ldb);
    after_call(&oc_);
    cudaError_t se = cudaDeviceSynchronize();
#else
    miniblas_status_t st;
    int sparam = 0;
    cudaError_t se = cudaSuccess;
    if (g_selftest) {
        st = st_omatcopy(dbl, layout, trans, rows, cols, alpha, pA, lda, pB, ldb, &sparam);
    } else {
        st = dbl ? miniblas_domatcopy(fc->w->h, (miniblas_layout_t)layout,
                                      (miniblas_transpose_t)trans, rows, cols, alpha, pA, lda,
                                      pB, ldb)
                 : miniblas_somatcopy(fc->w->h, (miniblas_layout_t)layout,
                                      (miniblas_transpose_t)trans, rows, cols, (float)alpha, pA,
                                      lda, pB, ldb);
        sparam = miniblas_last_error_param(fc->w->h);
        snprintf(oc_.msg, sizeof oc_.msg, "%s; %s", miniblas_status_string(st),
                 miniblas_last_error(fc->w->h));
        se = cudaStreamSynchronize(fc->w->stream);
    }
    oc_.status_ok = st == MINIBLAS_STATUS_SUCCESS;
    oc_.invalid_param = st == MINIBLAS_STATUS_INVALID_VALUE ? sparam : 0;
    if (!oc_.status_ok && st != MINIBLAS_STATUS_INVALID_VALUE) oc_.invalid_param = -2;
#endif
    if (settle_call(fc, &oc_, se, out, &bB, hB, nb, dbl, bad, expect_param, "B")) goto done;
    /* the expected image: sentinels, and B = alpha * op(A) */
    void *want = calloc(nb, es);
    if (!want) {
        fatal(fc, "host allocation failed");
        goto done;
    }
    memcpy(want, hB, nb * es);
    for (int64_t i = 0; i < r0; ++i)
        for (int64_t j = 0; j < c0; ++j) {
            size_t pa = (size_t)oa + pos(col, i, j, lda0);
            size_t pb = bbase + (t ? pos(col, j, i, ldb0) : pos(col, i, j, ldb0));
            double a = eget(hA, pa, dbl);
            double v = alpha == 0 ? 0.0 : dbl ? alpha * a : (double)((float)alpha * (float)a);
            eset(want, pb, v, dbl);
        }
    size_t wrong = 0;
    char first[200] = "";
    for (size_t p = 0; p < nb; ++p) {
        int ok = same_bits(out, want, p, dbl) ||
                 (isnan(eget(want, p, dbl)) && !is_sentinel(want, p, dbl) &&
                  isnan(eget(out, p, dbl)) && !is_sentinel(out, p, dbl));
        if (!ok && !wrong++)
            snprintf(first, sizeof first, "storage element %zd of B: %.17g, expected %.17g%s",
                     (ssize_t)p - (ssize_t)bbase, eget(out, p, dbl), eget(want, p, dbl),
                     is_sentinel(want, p, dbl) ? " (outside B's matrix: must not change)"
                     : is_sentinel(out, p, dbl) ? " (not written)" : "");
    }
    if (wrong) report(fc, "%zu elements wrong; first: %s", wrong, first);
    free(want);
done:
    buf_free(&bA), buf_free(&bB);
    free(hA), free(hB), free(out);
}

/* ------------------------------------------------------------------ asum, dot */

void case_reduce(fcase *fc, rng *r, int dot) {
    const int dbl = fc->dbl;
    const size_t es = dbl ? 8 : 4;
    static const int64_t incs[] = {1, 1, 1, 2, 3, 7, -1, -2, -5, 0, 1000};
    int64_t n;
    int w = rint_(r, 100);
    if (w < 5) n = 0;
    else if (w < 8) n = -rint_(r, 3) - 1;
    else if (w < 20) n = 1;
    else if (w < 70) n = 2 + rint_(r, 300);
    else if (w < 90) n = 300 + rint_(r, g_quick ? 3000 : 70000);
    else n = g_quick ? 5000 : (1 << 17) + rint_(r, 1 << 17);
    int64_t incx = incs[rint_(r, 11)], incy = incs[rint_(r, 11)];
    if (n > 5000 && (incx == 1000 || incx == -1000)) incx = 3;
    if (n > 5000 && (incy == 1000 || incy == -1000)) incy = -2;
    if (n == 1 && chance(r, 30)) incx = INT64_MIN, incy = chance(r, 50) ? INT64_MAX : -INT64_MAX;
#ifdef MB_FUZZ_CBLAS
    /* blasint is 32-bit: its own extremes (n == 1 only) */
    if (incx < INT32_MIN || incx > INT32_MAX) incx = incx < 0 ? INT32_MIN : INT32_MAX;
    if (incy < INT32_MIN || incy > INT32_MAX) incy = incy < 0 ? -INT32_MAX : INT32_MAX;
    const int device_result = 0;
#else
    const int device_result = !g_selftest && chance(r, 40);
#endif
    const int density = chance(r, 50) ? 0 : (chance(r, 50) ? 2 : 50);
    int ox = rint_(r, 3), oy = rint_(r, 3);
    int bad = 0, expect_param = 0;
#ifndef MB_FUZZ_CBLAS
    if (chance(r, 10)) {
        int reads_x = n > 0 && (dot || incx > 0);
        switch (rint_(r, 4)) {
        case 0: bad = 4, expect_param = dot ? 6 : 4; break; /* result NULL */
        case 1: if (reads_x) bad = 2, expect_param = 2; break;        /* x NULL */
        case 2: if (dot && n > 0) bad = 3, expect_param = 4; break;   /* y NULL */
        case 3: /* the extent of x overflows int64_t */
            if (n > 1 && (dot || incx > 0)) incx = INT64_MAX / 2, bad = 1, expect_param = 3;
            break;
        }
        if (!bad) bad = 4, expect_param = dot ? 6 : 4;
        add(&g_invalid, 1);
    }
#endif
    snprintf(fc->what, sizeof fc->what,
             "%s%s n=%" PRId64 " incx=%" PRId64 "%s%" PRId64 " offsets x+%d y+%d specials %d/1000%s",
             op_names[dbl][dot ? OP_DOT : OP_ASUM], device_result ? "_device" : "", n, incx,
             dot ? " incy=" : "", dot ? incy : 0, ox, oy, density, bad ? " (INVALID)" : "");
    /* storage: the vector's extent (a bad, overflowing increment gets a small buffer) */
    const int64_t ax = bad == 1 ? 1 : (n > 1 ? (n - 1) * (incx < 0 ? -incx : incx) + 1 : 1);
    const int64_t ay = dot ? (n > 1 ? (n - 1) * (incy < 0 ? -incy : incy) + 1 : 1) : 1;
    const size_t nx = (size_t)ox + (size_t)ax, ny = (size_t)oy + (size_t)ay;
    void *hx = calloc(nx, es), *hy = calloc(ny, es);
    double res_img[3], res_out[3];
    char msg[300] = "";
    buf bx, by, bres;
    memset(&bx, 0, sizeof bx), memset(&by, 0, sizeof by), memset(&bres, 0, sizeof bres);
    if (!hx || !hy) {
        fatal(fc, "host allocation failed");
        goto done;
    }
    for (size_t i = 0; i < nx; ++i) padnan(hx, i, dbl);
    for (size_t i = 0; i < ny; ++i) padnan(hy, i, dbl);
    /* the elements a correct call reads; the rest (between strides) stay NaN */
    int64_t nn = n > 0 ? n : 0;
    for (int64_t i = 0; i < nn && bad != 1; ++i) {
        fill_input(r, (char *)hx + ((size_t)ox + vpos(n, incx, i)) * es, 1, dbl, density, 1, 1);
        if (dot) fill_input(r, (char *)hy + ((size_t)oy + vpos(n, incy, i)) * es, 1, dbl, density, 1, 1);
    }
    for (int i = 0; i < 3; ++i) sentinel(res_img, (size_t)i, dbl);
    if (buf_alloc(&bx, pick_kind(r), nx * es, msg, sizeof msg) ||
        buf_put(&bx, hx, nx * es, msg, sizeof msg) ||
        (dot && (buf_alloc(&by, pick_kind(r), ny * es, msg, sizeof msg) ||
                 buf_put(&by, hy, ny * es, msg, sizeof msg)))) {
        fatal(fc, msg);
        goto done;
    }
    if (device_result) {
        int kind;
        do kind = pick_kind(r);
        while (kind == K_HEAP || kind == K_MMAP); /* device-accessible, any kind */
        if (buf_alloc(&bres, kind, 3 * es, msg, sizeof msg) ||
            buf_put(&bres, res_img, 3 * es, msg, sizeof msg)) {
            fatal(fc, msg);
            goto done;
        }
    }
    {
        char *kinds = fc->what + strlen(fc->what);
        snprintf(kinds, sizeof fc->what - strlen(fc->what), " memory x:%s%s%s%s%s",
                 kind_names[bx.kind], dot ? " y:" : "", dot ? kind_names[by.kind] : "",
                 device_result ? " result:" : "", device_result ? kind_names[bres.kind] : "");
    }
    const void *px = bad == 2 ? NULL : bx.api + (size_t)ox * es;
    const void *py = !dot ? NULL : bad == 3 ? NULL : by.api + (size_t)oy * es;
    double hres[3];
    memcpy(hres, res_img, sizeof hres);
#ifndef MB_FUZZ_CBLAS
    void *pres = bad == 4 ? NULL : device_result ? (void *)(bres.api + es) : (void *)((char *)hres + es);
#endif
    outcome oc_;
    memset(&oc_, 0, sizeof oc_);
#ifdef MB_FUZZ_CBLAS
    before_call();
    double rv;
    if (dot)
        rv = dbl ? cblas_ddot((blasint)n, px, (blasint)incx, py, (blasint)incy)
                  : (double)cblas_sdot((blasint)n, px, (blasint)incx, py, (blasint)incy);
    else
        rv = dbl ? cblas_dasum((blasint)n, px, (blasint)incx)
                  : (double)cblas_sasum((blasint)n, px, (blasint)incx);
    after_call(&oc_);
    eset(hres, 1, rv, dbl);
    cudaError_t se = cudaDeviceSynchronize();
#else
    miniblas_status_t st;
    int sparam = 0;
    cudaError_t se = cudaSuccess;
    if (g_selftest) {
        st = st_reduce(dbl, dot, n, px, incx, py, incy, pres, &sparam);
    } else {
        miniblas_handle_t h = fc->w->h;
        if (dot)
            st = dbl ? (device_result ? miniblas_ddot_device : miniblas_ddot)(h, n, px, incx, py, incy, pres)
                     : (device_result ? miniblas_sdot_device : miniblas_sdot)(h, n, px, incx, py, incy, pres);
        else
            st = dbl ? (device_result ? miniblas_dasum_device : miniblas_dasum)(h, n, px, incx, pres)
                     : (device_result ? miniblas_sasum_device : miniblas_sasum)(h, n, px, incx, pres);
        sparam = miniblas_last_error_param(h);
        snprintf(oc_.msg, sizeof oc_.msg, "%s; %s", miniblas_status_string(st),
                 miniblas_last_error(h));
        se = cudaStreamSynchronize(fc->w->stream);
    }
    oc_.status_ok = st == MINIBLAS_STATUS_SUCCESS;
    oc_.invalid_param = st == MINIBLAS_STATUS_INVALID_VALUE ? sparam : 0;
    if (!oc_.status_ok && st != MINIBLAS_STATUS_INVALID_VALUE) oc_.invalid_param = -2;
#endif
    if (se != cudaSuccess) {
        snprintf(msg, sizeof msg, "after the call: %s", cudaGetErrorName(se));
        fatal(fc, msg);
        goto done;
    }
    if (device_result) {
        if (buf_get(res_out, &bres, 3 * es, msg, sizeof msg)) {
            fatal(fc, msg);
            goto done;
        }
    } else {
        memcpy(res_out, hres, sizeof res_out);
    }
    if (bad) {
        if (oc_.status_ok || oc_.invalid_param != expect_param)
            report(fc, "invalid call: expected parameter %d reported, got: %s", expect_param, oc_.msg);
        if (!same_bits(res_out, res_img, 0, dbl) || !same_bits(res_out, res_img, 1, dbl) ||
            !same_bits(res_out, res_img, 2, dbl))
            report(fc, "invalid call wrote the result");
        goto done;
    }
    if (!oc_.status_ok) {
        report(fc, "valid call failed: %s", oc_.msg);
        goto done;
    }
    if (!same_bits(res_out, res_img, 0, dbl) || !same_bits(res_out, res_img, 2, dbl))
        report(fc, "the result's neighbours were overwritten");
    const double got = eget(res_out, 1, dbl);
    if (is_sentinel(res_out, 1, dbl)) {
        report(fc, "the result was not written");
        goto done;
    }
    rsum rs;
    memset(&rs, 0, sizeof rs);
    if (n > 0 && (dot || incx > 0))
        for (int64_t i = 0; i < n; ++i) {
            double a = eget(hx, (size_t)ox + vpos(n, incx, i), dbl);
            double term = fabs(a);
            if (dot) {
                double b = eget(hy, (size_t)oy + vpos(n, incy, i), dbl);
                term = dbl ? a * b : (double)((float)a * (float)b);
            }
            rs_add(&rs, term);
        }
    double want, tol;
    unsigned allowed = expect_combo(&rs, nn > 0 ? nn : 1, dbl, 1.0, 1, 0.0, 0.0, &want, &tol);
    if (n <= 0 || (!dot && incx <= 0)) allowed = CL_FIN, want = 0, tol = 0;
    if (!element_ok(got, allowed, want, tol))
        report(fc, "result %.17g (%s), expected %.17g +- %.3g (%s%s%s%s)", got, cls_name(cls(got)),
               want, tol, allowed & CL_FIN ? "finite " : "", allowed & CL_PINF ? "+Inf " : "",
               allowed & CL_NINF ? "-Inf " : "", allowed & CL_NAN ? "NaN" : "");
done:
    buf_free(&bx), buf_free(&by), buf_free(&bres);
    free(hx), free(hy);
}
