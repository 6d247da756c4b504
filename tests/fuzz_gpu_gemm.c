/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fuzzer: the s/d gemm case. */
#include "fuzz_gpu.h"

/* ------------------------------------------------------------------ gemm */

void case_gemm(fcase *fc, rng *r) {
    const int dbl = fc->dbl;
    const size_t es = dbl ? 8 : 4;
    const int layout0 = chance(r, 50) ? 101 : 102, ta0 = trans_value(r), tb0 = trans_value(r);
    int64_t cap = g_quick ? 70 : 300;
    int64_t m0 = dim(r, cap), n0 = dim(r, cap), k0 = dim(r, cap);
    const int64_t budget = g_quick ? 100000 : 3000000;
    while (m0 * n0 * k0 > budget) {
        if (k0 >= m0 && k0 >= n0) k0 /= 2;
        else if (m0 >= n0) m0 /= 2;
        else n0 /= 2;
    }
    double alpha = scalar(r), beta = scalar(r);
    if (!dbl) alpha = (float)alpha, beta = (float)beta;
    const int col = layout0 == 102, tA = is_t(ta0), tB = is_t(tb0);
    /* stored (lead x outer) shapes of the valid problem */
    const int64_t ar = tA ? k0 : m0, ac = tA ? m0 : k0, br = tB ? n0 : k0, bc = tB ? k0 : n0;
    const int64_t alead = col ? ar : ac, aout = col ? ac : ar;
    const int64_t blead = col ? br : bc, bout = col ? bc : br;
    const int64_t clead = col ? m0 : n0, cout = col ? n0 : m0;
    const int64_t lda0 = imax1(alead) + ld_pad(r), ldb0 = imax1(blead) + ld_pad(r),
                  ldc0 = imax1(clead) + ld_pad(r);
    const int sp_ok = dbl || g_sgemm_specials;
    const int density = chance(r, 60) ? 0 : (chance(r, 50) ? 5 : 60); /* per mille */
    const int oa = rint_(r, 3), ob = rint_(r, 3), oc = rint_(r, 3);

    /* the call's arguments: the valid problem, or it with one bad argument */
    int layout = layout0, ta = ta0, tb = tb0;
    int64_t m = m0, n = n0, k = k0, lda = lda0, ldb = ldb0, ldc = ldc0;
    int bad = 0, expect_param = 0;
    if (chance(r, 12)) {
        const int touched_ab = m0 > 0 && n0 > 0 && k0 > 0 && alpha != 0, touched_c = m0 > 0 && n0 > 0;
        for (int tries = 0; tries < 20 && !bad; ++tries) {
            switch (rint_(r, 13)) {
            case 0: layout = chance(r, 50) ? 100 : 0, bad = 1, expect_param = 1; break;
            case 1: ta = chance(r, 50) ? 110 : 115, bad = 1, expect_param = 2; break;
            case 2: tb = 0, bad = 1, expect_param = 3; break;
            case 3: m = -1 - rint_(r, 5), bad = 1, expect_param = 4; break;
            case 4: n = -1, bad = 1, expect_param = 5; break;
            case 5: k = -7, bad = 1, expect_param = 6; break;
            case 6: lda = imax1(alead) - 1 - rint_(r, 2), bad = 1, expect_param = 9; break;
            case 7: ldb = imax1(blead) - 1, bad = 1, expect_param = 11; break;
            case 8: ldc = chance(r, 50) ? imax1(clead) - 1 : -5, bad = 1, expect_param = 14; break;
#ifndef MB_FUZZ_CBLAS
            case 9: if (touched_ab) bad = 2, expect_param = 8; break;  /* A NULL */
            case 10: if (touched_ab) bad = 3, expect_param = 10; break; /* B NULL */
            case 11: if (touched_c) bad = 4, expect_param = 13; break;  /* C NULL */
            case 12: /* the element extent of A overflows int64_t */
                if (touched_ab && aout >= 3) lda = INT64_MAX / 2, bad = 1, expect_param = 9;
                else if (chance(r, 50)) k = INT64_MIN, bad = 1, expect_param = 6;
                break;
#else
            default: (void)touched_ab, (void)touched_c; break;
#endif
            }
        }
        if (!bad) m = -1, bad = 1, expect_param = 4;
#ifdef MB_FUZZ_CBLAS
        /* reference CBLAS, row-major: the position in the swapped column-major call */
        if (layout == 101) {
            if (expect_param == 4) expect_param = 5;
            else if (expect_param == 5) expect_param = 4;
            else if (expect_param == 9) expect_param = 11;
            else if (expect_param == 11) expect_param = 9;
        }
#endif
        add(&g_invalid, 1);
    }
    snprintf(fc->what, sizeof fc->what,
             "%s %s transA=%d transB=%d M=%" PRId64 " N=%" PRId64 " K=%" PRId64
             " alpha=%g beta=%g lda=%" PRId64 " ldb=%" PRId64 " ldc=%" PRId64
             " offsets A+%d B+%d C+%d specials %d/1000%s",
             op_names[dbl][OP_GEMM], layout == 101 ? "row" : layout == 102 ? "col" : "bad-layout",
             ta, tb, m, n, k, alpha, beta, lda, ldb, ldc, oa, ob, oc, density,
             bad ? " (INVALID)" : "");

    /* buffers laid out for the valid problem (an invalid call must touch none of them) */
    const int64_t sa = alead > 0 && aout > 0 ? lda0 * (aout - 1) + alead : 1;
    const int64_t sb = blead > 0 && bout > 0 ? ldb0 * (bout - 1) + blead : 1;
    const int64_t sc = clead > 0 && cout > 0 ? ldc0 * (cout - 1) + clead : 1;
    const size_t na = (size_t)oa + (size_t)sa, nb = (size_t)ob + (size_t)sb;
    const size_t cbase = (size_t)oc + GUARD, nc = cbase + (size_t)sc + GUARD;
    void *hA = calloc(na, es), *hB = calloc(nb, es), *hC = calloc(nc, es), *out = calloc(nc, es);
    if (!hA || !hB || !hC || !out) {
        fatal(fc, "host allocation failed");
        free(hA), free(hB), free(hC), free(out);
        return;
    }
    /* padding NaN in A and B (a kernel that uses it gives NaN), sentinels around C */
    for (size_t i = 0; i < na; ++i) padnan(hA, i, dbl);
    for (size_t i = 0; i < nb; ++i) padnan(hB, i, dbl);
    for (size_t i = 0; i < nc; ++i) sentinel(hC, i, dbl);
    for (int64_t o = 0; o < aout; ++o)
        for (int64_t l = 0; l < alead; ++l)
            fill_input(r, (char *)hA + ((size_t)oa + (size_t)(o * lda0 + l)) * es, 1, dbl, density,
                       sp_ok, sp_ok);
    for (int64_t o = 0; o < bout; ++o)
        for (int64_t l = 0; l < blead; ++l)
            fill_input(r, (char *)hB + ((size_t)ob + (size_t)(o * ldb0 + l)) * es, 1, dbl, density,
                       sp_ok, sp_ok);
    /* C: values when beta != 0 (or the call is invalid); the sentinel when beta == 0, so an
     * element not written, or C read, shows */
    if (beta != 0 || bad)
        for (int64_t o = 0; o < cout; ++o)
            for (int64_t l = 0; l < clead; ++l)
                fill_input(r, (char *)hC + (cbase + (size_t)(o * ldc0 + l)) * es, 1, dbl, density,
                           sp_ok, sp_ok);
    char msg[300] = "";
    buf bA, bB, bC;
    memset(&bA, 0, sizeof bA), memset(&bB, 0, sizeof bB), memset(&bC, 0, sizeof bC);
    if (buf_alloc(&bA, pick_kind(r), na * es, msg, sizeof msg) ||
        buf_alloc(&bB, pick_kind(r), nb * es, msg, sizeof msg) ||
        buf_alloc(&bC, pick_kind(r), nc * es, msg, sizeof msg) ||
        buf_put(&bA, hA, na * es, msg, sizeof msg) || buf_put(&bB, hB, nb * es, msg, sizeof msg) ||
        buf_put(&bC, hC, nc * es, msg, sizeof msg)) {
        fatal(fc, msg);
        goto done;
    }
    {
        char *kinds = fc->what + strlen(fc->what);
        snprintf(kinds, sizeof fc->what - strlen(fc->what), " memory A:%s B:%s C:%s",
                 kind_names[bA.kind], kind_names[bB.kind], kind_names[bC.kind]);
    }
    const void *pA = bad == 2 ? NULL : bA.api + (size_t)oa * es;
    const void *pB = bad == 3 ? NULL : bB.api + (size_t)ob * es;
    void *pC = bad == 4 ? NULL : bC.api + cbase * es;
    outcome oc_;
    memset(&oc_, 0, sizeof oc_);
#ifdef MB_FUZZ_CBLAS
    before_call();
    if (dbl)
        cblas_dgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb,
                    (blasint)m, (blasint)n, (blasint)k, alpha, pA, (blasint)lda, pB, (blasint)ldb,
                    beta, pC, (blasint)ldc);
    else
        cblas_sgemm((enum CBLAS_ORDER)layout, (enum CBLAS_TRANSPOSE)ta, (enum CBLAS_TRANSPOSE)tb,
                    (blasint)m, (blasint)n, (blasint)k, (float)alpha, pA, (blasint)lda, pB,
                    (blasint)ldb, (float)beta, pC, (blasint)ldc);
    after_call(&oc_);
    cudaError_t se = cudaDeviceSynchronize();
#else
    miniblas_status_t st;
    int sparam = 0;
    cudaError_t se = cudaSuccess;
    if (g_selftest) {
        st = st_gemm(dbl, layout, ta, tb, m, n, k, alpha, pA, lda, pB, ldb, beta, pC, ldc, &sparam);
    } else {
        if (dbl)
            st = miniblas_dgemm(fc->w->h, (miniblas_layout_t)layout, (miniblas_transpose_t)ta,
                                (miniblas_transpose_t)tb, m, n, k, alpha, pA, lda, pB, ldb, beta,
                                pC, ldc);
        else
            st = miniblas_sgemm(fc->w->h, (miniblas_layout_t)layout, (miniblas_transpose_t)ta,
                                (miniblas_transpose_t)tb, m, n, k, (float)alpha, pA, lda, pB, ldb,
                                (float)beta, pC, ldc);
        sparam = miniblas_last_error_param(fc->w->h);
        snprintf(oc_.msg, sizeof oc_.msg, "%s; %s", miniblas_status_string(st),
                 miniblas_last_error(fc->w->h));
        se = cudaStreamSynchronize(fc->w->stream);
    }
    oc_.status_ok = st == MINIBLAS_STATUS_SUCCESS;
    oc_.invalid_param = st == MINIBLAS_STATUS_INVALID_VALUE ? sparam : 0;
    if (!oc_.status_ok && st != MINIBLAS_STATUS_INVALID_VALUE) oc_.invalid_param = -2;
#endif
    if (settle_call(fc, &oc_, se, out, &bC, hC, nc, dbl, bad, expect_param, "C")) goto done;
    /* every element of C, and everything around it */
    size_t wrong = 0, unwritten = 0, clobbered = 0;
    char first[260] = "";
    for (size_t p = 0; p < nc; ++p) {
        int in_c = p >= cbase && p < cbase + (size_t)sc && m0 > 0 && n0 > 0 &&
                   (int64_t)((p - cbase) % (size_t)ldc0) < clead;
        if (!in_c) {
            if (!same_bits(out, hC, p, dbl) && !clobbered++ && !first[0])
                snprintf(first, sizeof first, "storage element %zu (outside C's matrix) changed to %.9g",
                         p, eget(out, p, dbl));
            continue;
        }
        int64_t q = (int64_t)(p - cbase), l = q % ldc0, o = q / ldc0;
        int64_t i = col ? l : o, j = col ? o : l; /* C(i, j) */
        if (is_sentinel(out, p, dbl)) {
            if (!unwritten++ && !first[0])
                snprintf(first, sizeof first, "C(%" PRId64 ",%" PRId64 ") not written", i, j);
            continue;
        }
        rsum rs;
        memset(&rs, 0, sizeof rs);
        if (alpha != 0)
            for (int64_t t = 0; t < k0; ++t) {
                size_t paa = (size_t)oa + (tA ? pos(col, t, i, lda0) : pos(col, i, t, lda0));
                size_t pbb = (size_t)ob + (tB ? pos(col, j, t, ldb0) : pos(col, t, j, ldb0));
                rs_add(&rs, eget(hA, paa, dbl) * eget(hB, pbb, dbl));
            }
        double want, tol;
        unsigned allowed;
        const double c0 = eget(hC, p, dbl);
        if (alpha == 0 || k0 == 0) {
            double v = beta == 0 ? 0.0 : (dbl ? beta * c0 : (double)((float)beta * (float)c0));
            allowed = cls(v), want = v, tol = 0;
        } else {
            allowed = expect_combo(&rs, k0, dbl, alpha, beta == 0, beta, c0, &want, &tol);
        }
        double got = eget(out, p, dbl);
        if (!element_ok(got, allowed, want, tol)) {
            if (!wrong++ && !first[0])
                snprintf(first, sizeof first,
                         "C(%" PRId64 ",%" PRId64 ") = %.17g (%s), expected %.17g +- %.3g "
                         "(classes allowed: %s%s%s%s)",
                         i, j, got, cls_name(cls(got)), want, tol,
                         allowed & CL_FIN ? "finite " : "", allowed & CL_PINF ? "+Inf " : "",
                         allowed & CL_NINF ? "-Inf " : "", allowed & CL_NAN ? "NaN" : "");
        }
    }
    if (wrong || unwritten || clobbered)
        report(fc, "%zu wrong, %zu not written, %zu outside C changed; first: %s", wrong,
               unwritten, clobbered, first);
done:
    buf_free(&bA), buf_free(&bB), buf_free(&bC);
    free(hA), free(hB), free(hC), free(out);
}
