/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU fuzzer: cblas_{s,d}{asum,dot}, {s,d}{asum,dot}_, cblas_{s,d}omatcopy. */
#include "fuzz_cpu.h"

/* ------------------------------------------------------------------ asum, dot */

void fuzz_reduce(rng_t *r, int dbl, int is_dot, int fortran) {
    int64_t n = gen_dim(r), incx = gen_inc(r), incy = is_dot ? gen_inc(r) : 1;
    int xn = chance(r, 4), yn = is_dot && chance(r, 4);
    size_t e = dbl ? 8 : 4;
    int want = is_dot ? model_dot(n, xn, incx, yn, incy, 0, e) : model_asum(n, xn, incx, 0, e);
    int valid = want == 0;
    i128 ex = (is_dot || incx > 0) ? vec_extent(n, incx) : 0, ey = is_dot ? vec_extent(n, incy) : 0;
    if (valid && (ex > cap_elems || ey > cap_elems)) return;
    ++g_calls;
    const char *name = is_dot ? (fortran ? (dbl ? "DDOT  " : "SDOT  ") : (dbl ? "cblas_ddot" : "cblas_sdot"))
                              : (fortran ? (dbl ? "DASUM " : "SASUM ") : (dbl ? "cblas_dasum" : "cblas_sasum"));
    snprintf(g_call, sizeof g_call, "%s%s(n=%" PRId64 ", x%s, incx=%" PRId64 "%s%s%s%" PRId64 ")",
             is_dot ? (dbl ? "ddot" : "sdot") : (dbl ? "dasum" : "sasum"), fortran ? "_" : " (cblas)", n,
             xn ? "=NULL" : "", incx, is_dot ? ", y" : "", yn ? "=NULL" : "", is_dot ? ", incy=" : "",
             is_dot ? incy : (int64_t)0);
    if (g_verbose) fprintf(stderr, "[%" PRId64 "] %s\n", g_iter, g_call);
    int heap = chance(r, 20);
    gbuf X, Y;
    gb_alloc(&X, buf_elems(r, ex, valid) * e, chance(r, 50), heap);
    gb_alloc(&Y, buf_elems(r, ey, valid) * e, chance(r, 50), heap);
    int specials = chance(r, 15);
    fill(r, X.data, dbl, X.bytes / e, specials);
    fill(r, Y.data, dbl, Y.bytes / e, specials);
    gb_save(&X), gb_save(&Y);
    gb_readonly(&X), gb_readonly(&Y);
    const void *px = xn ? NULL : X.data, *py = yn ? NULL : Y.data;
    blasint N = (blasint)n, IX = (blasint)incx, IY = (blasint)incy;
    double got;
    xe_reset();
    if (fortran) {
        if (is_dot) got = dbl ? ddot_(&N, px, &IX, py, &IY) : sdot_(&N, px, &IX, py, &IY);
        else got = dbl ? dasum_(&N, px, &IX) : sasum_(&N, px, &IX);
    } else {
        if (is_dot) got = dbl ? cblas_ddot(N, px, IX, py, IY) : cblas_sdot(N, px, IX, py, IY);
        else got = dbl ? cblas_dasum(N, px, IX) : cblas_sasum(N, px, IX);
    }
    if (!valid) {
        ++g_invalid;
        if (!expect_xerbla(want, name, fortran) && g_xe.n == 1)
            finding("xerbla parameter %d, expected %d", g_xe.param, want);
        if (got != 0) finding("returned %g on an invalid call (0 due)", got);
    } else {
        ++g_valid;
        expect_xerbla(0, name, fortran);
        double ref = 0;
        int zero = n <= 0 || (!is_dot && incx <= 0);
        if (!zero) {
            if (is_dot) ref = dbl ? ob.ddot(N, X.saved, IX, Y.saved, IY) : ob.sdot(N, X.saved, IX, Y.saved, IY);
            else ref = dbl ? ob.dasum(N, X.saved, IX) : ob.sasum(N, X.saved, IX);
        }
        double bound = 0, eps = dbl ? DBL_EPSILON : FLT_EPSILON;
        for (int64_t i = 0; !zero && i < n; ++i) {
            int64_t ax = incx >= 0 ? i * incx : (n - 1 - i) * -incx;
            double xv = get(X.saved, dbl, ax);
            if (is_dot) {
                int64_t ay = incy >= 0 ? i * incy : (n - 1 - i) * -incy;
                bound += fabs(xv * get(Y.saved, dbl, ay));
            } else {
                bound += fabs(xv);
            }
        }
        bound = (double)(n + 4) * eps * bound + (dbl ? DBL_MIN : FLT_MIN) * (double)(n + 4);
        int ok = zero ? got == 0 && !signbit(got)
                      : isnan(ref) ? isnan(got)
                      : isinf(ref) ? got == ref
                      : (isnan(bound) || isinf(bound)) ? got == ref
                      : fabs(got - ref) <= bound;
        if (zero && got == 0) ok = 1;
        if (!ok) finding("returned %.17g, OpenBLAS %.17g (bound %.3g)", got, ref, bound);
    }
    if (!gb_unchanged(&X) || !gb_unchanged(&Y)) finding("an input changed");
    gb_free(&X), gb_free(&Y);
}

/* ------------------------------------------------------------------ omatcopy */

void fuzz_omatcopy(rng_t *r, int dbl) {
    omat_args o = {0};
    double alpha = scalar(r);
    o.layout = gen_layout(r), o.trans = gen_trans(r);
    o.rows = gen_dim(r), o.cols = gen_dim(r);
    {
        int col = o.layout != CblasRowMajor, t = trans_code(o.trans) > 0;
        o.lda = gen_ld32(r, col ? o.rows : o.cols);
        o.ldb = gen_ld32(r, (col ? !t : t) ? o.rows : o.cols);
    }
    o.a_null = chance(r, 3), o.b_null = chance(r, 3), o.elem = dbl ? 8 : 4;
    int want = model_omatcopy(&o), valid = want == 0;
    i128 ea = 0, eb = 0;
    if (valid || want > 4) {
        ea = mat_extent(o.a_lead, o.a_other, o.lda), eb = mat_extent(o.b_lead, o.b_other, o.ldb);
    } else {
        ea = eb = rnd(r, 64);
    }
    if (valid && (ea > cap_elems || eb > cap_elems)) return;
    ++g_calls;
    const char *name = dbl ? "cblas_domatcopy" : "cblas_somatcopy";
    snprintf(g_call, sizeof g_call,
             "%s(%d, %d, rows=%" PRId64 ", cols=%" PRId64 ", alpha=%g, A%s, lda=%" PRId64 ", B%s, ldb=%" PRId64 ")",
             name, o.layout, o.trans, o.rows, o.cols, alpha, o.a_null ? "=NULL" : "", o.lda,
             o.b_null ? "=NULL" : "", o.ldb);
    if (g_verbose) fprintf(stderr, "[%" PRId64 "] %s\n", g_iter, g_call);
    size_t e = o.elem;
    int heap = chance(r, 20);
    gbuf A, B;
    gb_alloc(&A, buf_elems(r, ea, valid) * e, chance(r, 50), heap);
    gb_alloc(&B, buf_elems(r, eb, valid) * e, chance(r, 50), heap);
    fill(r, A.data, dbl, A.bytes / e, chance(r, 15));
    poison(B.data, dbl, B.bytes / e);
    gb_save(&A), gb_save(&B);
    gb_readonly(&A);
    const void *pa = o.a_null ? NULL : A.data;
    void *pb = o.b_null ? NULL : B.data;
    xe_reset();
    if (dbl)
        cblas_domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, pa,
                        (blasint)o.lda, pb, (blasint)o.ldb);
    else
        cblas_somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, pa,
                        (blasint)o.lda, pb, (blasint)o.ldb);
    int ob_checks = want >= 1 && want <= 4; /* OpenBLAS: also ld errors (7, 9) when not overflow */
    if (want == 7 || want == 9) {
        int64_t need = want == 7 ? o.a_lead : o.b_lead, ld = want == 7 ? o.lda : o.ldb;
        ob_checks = ld < (need > 1 ? need : 1);
    }
    if (!valid) {
        ++g_invalid;
        if (!expect_xerbla(want, name, 0) && g_xe.n == 1)
            finding("xerbla parameter %d, expected %d", g_xe.param, want);
        if (!gb_unchanged(&A) || !gb_unchanged(&B)) finding("a buffer changed on an invalid call");
    } else {
        ++g_valid;
        expect_xerbla(0, name, 0);
        if (!gb_margins_ok(&A) || !gb_margins_ok(&B)) finding("a heap operand's margin changed");
    }
    if (valid && o.rows > 0 && o.cols > 0) {
        /* OpenBLAS's result (the CPU path calls it) */
        void *ref = malloc(B.bytes);
        memcpy(ref, B.saved, B.bytes);
        xe_reset();
        if (dbl) ob.domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, A.saved, (blasint)o.lda, ref, (blasint)o.ldb);
        else ob.somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, A.saved, (blasint)o.lda, ref, (blasint)o.ldb);
        /* expected: B = alpha op(A) in the layout (alpha == 0: zeros, A not read); padding
         * untouched; and OpenBLAS's answer, bitwise up to the NaN class */
        int col = o.layout != CblasRowMajor, t = trans_code(o.trans) > 0;
        int64_t bn = (int64_t)(B.bytes / e);
        char *mark = calloc((size_t)bn + 1, 1);
        int reported = 0, ob_noted = 0;
        for (int64_t i = 0; i < o.rows && !reported; ++i)
            for (int64_t j = 0; j < o.cols && !reported; ++j) {
                int64_t ia = col ? i + j * o.lda : j + i * o.lda;
                int64_t ib = col ? (t ? j + i * o.ldb : i + j * o.ldb) : (t ? i + j * o.ldb : j + i * o.ldb);
                double want_v = alpha == 0 ? 0.0
                                           : (dbl ? alpha * get(A.saved, 1, ia)
                                                  : (double)((float)alpha * (float)get(A.saved, 0, ia)));
                double got = get(B.data, dbl, ib), obv = get(ref, dbl, ib);
                mark[ib] = 1;
                int same_as_ob = same_bits(B.data, ref, dbl, ib) || (isnan(got) && isnan(obv)) || (got == 0 && obv == 0);
                int ok = isnan(want_v) ? isnan(got) : got == want_v;
                if (!ok && same_as_ob && alpha == 0) {
                    /* OpenBLAS itself reads A when alpha == 0 here: the CPU path passes that on */
                    if (!ob_noted) {
                        char key[160];
                        snprintf(key, sizeof key, "%s %s trans=%d: alpha == 0 with NaN/Inf in A: OpenBLAS writes NaN (reads A), so does the CPU path; the rule is 0",
                                 name, col ? "col-major" : "row-major", t);
                        divergence(key);
                        ob_noted = 1;
                    }
                } else if (!ok) {
                    finding("B(%" PRId64 ") = %.9g, alpha * A = %.9g (OpenBLAS %.9g)", ib, got, want_v, obv);
                    reported = 1;
                } else if (!same_as_ob && !reported) {
                    char key[160];
                    snprintf(key, sizeof key, "%s: OpenBLAS's result differs from alpha * A (%s)", name,
                             alpha == 0 ? "alpha == 0" : "alpha != 0");
                    divergence(key);
                    reported = 1;
                }
            }
        for (int64_t i = 0; i < bn && !reported; ++i)
            if (!mark[i] && !same_bits(B.data, B.saved, dbl, i)) {
                finding("B[%" PRId64 "] (padding) changed", i);
                reported = 1;
            }
        free(mark);
        free(ref);
    } else if (valid) { /* rows or cols 0: nothing written */
        if (!gb_unchanged(&B)) finding("B changed on an empty call");
        /* OpenBLAS refuses rows or cols <= 0 (xerbla 3 / 4): listed, the check accepts them */
        void *cb = malloc(B.bytes + 1);
        xe_reset();
        if (dbl) ob.domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, A.saved, (blasint)o.lda, cb, (blasint)o.ldb);
        else ob.somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, A.saved, (blasint)o.lda, cb, (blasint)o.ldb);
        if (g_xe.n) {
            char key[160];
            snprintf(key, sizeof key, "%s: empty (rows or cols 0): OpenBLAS reports xerbla %d, the check accepts (no-op)",
                     name, g_xe.param);
            divergence(key);
        }
        free(cb);
    } else if (ob_checks) {
        size_t la = A.bytes ? A.bytes : 1, lb = B.bytes ? B.bytes : 1;
        void *ca = malloc(la), *cb = malloc(lb);
        memcpy(ca, A.saved, A.bytes);
        xe_reset();
        if (dbl) ob.domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, ca, (blasint)o.lda, cb, (blasint)o.ldb);
        else ob.somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, ca, (blasint)o.lda, cb, (blasint)o.ldb);
        if (!g_xe.n || g_xe.param != want) {
            char key[160];
            snprintf(key, sizeof key, "%s: OpenBLAS reports %d%s where the rules give %d", name,
                     g_xe.n ? g_xe.param : 0, g_xe.n ? "" : " (no xerbla)", want);
            divergence(key);
        }
        free(ca), free(cb);
    }
    gb_free(&A), gb_free(&B);
}
