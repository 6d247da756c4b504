/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU fuzzer: cblas_{s,d}gemm and {s,d}gemm_. */
#include "fuzz_cpu.h"

/* ------------------------------------------------------------------ gemm */

void fuzz_gemm(rng_t *r, int dbl, int fortran) {
    gemm_args g = {0};
    double alpha = scalar(r), beta = scalar(r);
    char fta = 'N', ftb = 'N';
    if (fortran) {
        fta = gen_ftrans(r), ftb = gen_ftrans(r);
        g.layout = CblasColMajor;
        g.ta = strchr("Nn", fta) ? 111 : strchr("Tt", fta) ? 112 : strchr("Cc", fta) ? 113
             : strchr("Rr", fta) ? 114 : 0;
        g.tb = strchr("Nn", ftb) ? 111 : strchr("Tt", ftb) ? 112 : strchr("Cc", ftb) ? 113
             : strchr("Rr", ftb) ? 114 : 0;
    } else {
        g.layout = gen_layout(r), g.ta = gen_trans(r), g.tb = gen_trans(r);
    }
    g.m = gen_dim(r), g.n = gen_dim(r), g.k = gen_dim(r);
    {
        int ta = trans_code(g.ta), tb = trans_code(g.tb), col = g.layout != CblasRowMajor;
        int64_t ar = ta > 0 ? g.k : g.m, ac = ta > 0 ? g.m : g.k, br = tb > 0 ? g.n : g.k,
                bc = tb > 0 ? g.k : g.n;
        g.lda = gen_ld32(r, col ? ar : ac), g.ldb = gen_ld32(r, col ? br : bc);
        g.ldc = gen_ld32(r, col ? g.m : g.n);
    }
    g.alpha0 = alpha == 0;
    g.a_null = chance(r, 3), g.b_null = chance(r, 3), g.c_null = chance(r, 3);
    g.elem = dbl ? 8 : 4;
    int want = model_gemm(&g); /* caller's numbering */
    int valid = want == 0;
    i128 ea = 0, eb = 0, ec = 0;
    if (valid || want > 6) { /* layout, transposes and sizes valid: the shapes are known */
        ea = mat_extent(g.a_lead, g.a_other, g.lda), eb = mat_extent(g.b_lead, g.b_other, g.ldb);
        ec = mat_extent(g.c_lead, g.c_other, g.ldc);
    } else {
        ea = eb = ec = rnd(r, 64);
    }
    if (valid && (ea > cap_elems || eb > cap_elems || ec > cap_elems)) return; /* too large */
    if (fortran && (g.m > INT_MAX || g.n > INT_MAX)) return;
    ++g_calls;
    const char *name = fortran ? (dbl ? "DGEMM " : "SGEMM ") : (dbl ? "cblas_dgemm" : "cblas_sgemm");
    char tas[16], tbs[16];
    if (fortran) snprintf(tas, sizeof tas, "'%c'", fta), snprintf(tbs, sizeof tbs, "'%c'", ftb);
    else snprintf(tas, sizeof tas, "%d", g.ta), snprintf(tbs, sizeof tbs, "%d", g.tb);
    snprintf(g_call, sizeof g_call,
             "%s(%s%s, %s, %" PRId64 ", %" PRId64 ", %" PRId64 ", alpha=%g, A%s, lda=%" PRId64
             ", B%s, ldb=%" PRId64 ", beta=%g, C%s, ldc=%" PRId64 ")",
             fortran ? (dbl ? "dgemm_" : "sgemm_") : name, fortran ? "" : (g.layout == 101 ? "Row, " : g.layout == 102 ? "Col, " : "layout?, "),
             tas, tbs, g.m, g.n, g.k, alpha,
             g.a_null ? "=NULL" : "", g.lda, g.b_null ? "=NULL" : "", g.ldb, beta,
             g.c_null ? "=NULL" : "", g.ldc);
    if (g_verbose) fprintf(stderr, "[%" PRId64 "] %s\n", g_iter, g_call);
    int heap = chance(r, 15);
    gbuf A, B, C;
    size_t e = g.elem;
    gb_alloc(&A, buf_elems(r, ea, valid) * e, chance(r, 50), heap);
    gb_alloc(&B, buf_elems(r, eb, valid) * e, chance(r, 50), heap);
    gb_alloc(&C, buf_elems(r, ec, valid) * e, chance(r, 50), heap);
    int specials = chance(r, 15);
    fill(r, A.data, dbl, A.bytes / e, specials);
    fill(r, B.data, dbl, B.bytes / e, specials);
    poison(C.data, dbl, C.bytes / e);
    if (valid) /* the used part of C: values (beta == 0: NaN, which must not survive) */
        for (int64_t j = 0; j < g.c_other; ++j)
            for (int64_t i = 0; i < g.c_lead; ++i) {
                double v = beta == 0 ? NAN : (specials && chance(r, 3) ? special_value(r) : unif(r));
                if (dbl) ((double *)C.data)[i + j * g.ldc] = v;
                else ((float *)C.data)[i + j * g.ldc] = (float)v;
            }
    gb_save(&A), gb_save(&B), gb_save(&C);
    gb_readonly(&A), gb_readonly(&B);
    const void *pa = g.a_null ? NULL : A.data, *pb = g.b_null ? NULL : B.data;
    void *pc = g.c_null ? NULL : C.data;

    /* ours */
    xe_reset();
    if (fortran) {
        blasint M = (blasint)g.m, N = (blasint)g.n, K = (blasint)g.k, LDA = (blasint)g.lda,
                LDB = (blasint)g.ldb, LDC = (blasint)g.ldc;
        if (dbl) dgemm_(&fta, &ftb, &M, &N, &K, &alpha, pa, &LDA, pb, &LDB, &beta, pc, &LDC, 1, 1);
        else {
            float fa = (float)alpha, fb = (float)beta;
            sgemm_(&fta, &ftb, &M, &N, &K, &fa, pa, &LDA, pb, &LDB, &fb, pc, &LDC, 1, 1);
        }
    } else if (dbl) {
        cblas_dgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, alpha, pa,
                    (blasint)g.lda, pb, (blasint)g.ldb, beta, pc, (blasint)g.ldc);
    } else {
        cblas_sgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, (float)alpha,
                    pa, (blasint)g.lda, pb, (blasint)g.ldb, (float)beta, pc, (blasint)g.ldc);
    }
    int got_param = g_xe.param;
    int due = fortran ? (valid ? 0 : want - 1)
                      : (g.layout == CblasRowMajor ? rowmajor_swap(want) : want);
    if (!valid) {
        ++g_invalid;
        /* an extent that overflows int64_t (reference BLAS has no such check): either
         * numbering of the row-major call is accepted */
        int overflow_err = 0;
        if (want == 9 || want == 11 || want == 14) {
            int64_t need = want == 9 ? g.a_lead : want == 11 ? g.b_lead : g.c_lead;
            int64_t ld = want == 9 ? g.lda : want == 11 ? g.ldb : g.ldc;
            overflow_err = ld >= (need > 1 ? need : 1);
        }
        int rowmajor_swapped = !fortran && g.layout == CblasRowMajor && rowmajor_swap(want) != want &&
                               !overflow_err;
        if (overflow_err && !fortran && g.layout == CblasRowMajor && g_xe.n == 1 && got_param == want)
            due = want;
        if (!expect_xerbla(due, name, fortran) && g_xe.n == 1)
            finding("xerbla parameter %d, expected %d%s", got_param, due,
                    rowmajor_swapped && got_param == want ? " (the caller's number, not reference CBLAS's row-major one)" : "");
        if (!gb_unchanged(&A) || !gb_unchanged(&B) || !gb_unchanged(&C))
            finding("a buffer changed on an invalid call");
        /* OpenBLAS checks layout, transposes, sizes and leading dimensions (not NULL, nor
         * extents): the same call on plain copies as large as the extents, when small */
        int ob_checks = want >= 1 && want <= 6;
        if (want == 9 || want == 11 || want == 14) { /* an ld error, not an extent overflow */
            int64_t need = want == 9 ? g.a_lead : want == 11 ? g.b_lead : g.c_lead;
            int64_t ld = want == 9 ? g.lda : want == 11 ? g.ldb : g.ldc;
            ob_checks = ld < (need > 1 ? need : 1);
        }
        if (ob_checks && ea <= 4096 && eb <= 4096 && ec <= 4096) {
            size_t la = (size_t)(ea > 0 ? ea : 1) * e, lb = (size_t)(eb > 0 ? eb : 1) * e,
                   lc = (size_t)(ec > 0 ? ec : 1) * e;
            void *ca = calloc(1, la > A.bytes ? la : A.bytes + 1), *cb = calloc(1, lb > B.bytes ? lb : B.bytes + 1),
                 *cc = calloc(1, lc > C.bytes ? lc : C.bytes + 1);
            memcpy(ca, A.data, A.bytes), memcpy(cb, B.data, B.bytes), memcpy(cc, C.data, C.bytes);
            xe_reset();
            if (fortran) {
                blasint M = (blasint)g.m, N = (blasint)g.n, K = (blasint)g.k,
                        LDA = (blasint)g.lda, LDB = (blasint)g.ldb, LDC = (blasint)g.ldc;
                if (dbl) ob.dgemm_(&fta, &ftb, &M, &N, &K, &alpha, ca, &LDA, cb, &LDB, &beta, cc, &LDC, 1, 1);
                else {
                    float fa = (float)alpha, fb = (float)beta;
                    ob.sgemm_(&fta, &ftb, &M, &N, &K, &fa, ca, &LDA, cb, &LDB, &fb, cc, &LDC, 1, 1);
                }
            } else if (dbl) {
                ob.dgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, alpha, ca,
                         (blasint)g.lda, cb, (blasint)g.ldb, beta, cc, (blasint)g.ldc);
            } else {
                ob.sgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, (float)alpha,
                         ca, (blasint)g.lda, cb, (blasint)g.ldb, (float)beta, cc, (blasint)g.ldc);
            }
            /* OpenBLAS's xerbla_ gets the Fortran number; cblas numbers are one more */
            int obp = g_xe.n ? g_xe.param + (fortran ? 0 : 1) : 0;
            if (!g_xe.n || obp != due) {
                char key[160];
                snprintf(key, sizeof key, "%s%s: OpenBLAS reports %d%s where the rules give %d",
                         name, fortran ? "" : (g.layout == 101 ? " row-major" : g.layout == 102 ? " col-major" : " bad layout"),
                         obp, g_xe.n ? "" : " (no xerbla)", due);
                divergence(key);
            }
            free(ca), free(cb), free(cc);
        }
        goto out;
    }
    ++g_valid;
    expect_xerbla(0, name, fortran);
    if (!gb_margins_ok(&A) || !gb_margins_ok(&B) || !gb_margins_ok(&C))
        finding("a heap operand's margin changed");
    /* padding of C (rows beyond c_lead in each column, and everything when m or n is 0) */
    {
        int empty = g.m == 0 || g.n == 0;
        for (int64_t j = 0; j < g.c_other || (empty && j == 0); ++j)
            for (int64_t i = empty ? 0 : g.c_lead; i < g.ldc; ++i) {
                int64_t at = i + j * g.ldc;
                if ((size_t)at >= C.bytes / e) break;
                if (!same_bits(C.data, C.saved, dbl, at)) {
                    finding("C[%" PRId64 "] (padding or empty C) changed", at);
                    goto out;
                }
            }
    }
    if (g.m == 0 || g.n == 0) goto out;
    /* the expected C */
    int64_t cn = (int64_t)(C.bytes / e);
    void *ref = malloc(C.bytes);
    memcpy(ref, C.saved, C.bytes);
    int simple = g.k == 0 || alpha == 0;
    if (simple) {
        for (int64_t j = 0; j < g.c_other; ++j)
            for (int64_t i = 0; i < g.c_lead; ++i) {
                int64_t at = i + j * g.ldc;
                if (dbl) ((double *)ref)[at] = beta == 0 ? 0.0 : beta * ((double *)ref)[at];
                else ((float *)ref)[at] = beta == 0 ? 0.0f : (float)beta * ((float *)ref)[at];
            }
    } else {
        xe_reset();
        if (fortran) {
            blasint M = (blasint)g.m, N = (blasint)g.n, K = (blasint)g.k, LDA = (blasint)g.lda,
                    LDB = (blasint)g.ldb, LDC = (blasint)g.ldc;
            if (dbl) ob.dgemm_(&fta, &ftb, &M, &N, &K, &alpha, A.saved, &LDA, B.saved, &LDB, &beta, ref, &LDC, 1, 1);
            else {
                float fa = (float)alpha, fb = (float)beta;
                ob.sgemm_(&fta, &ftb, &M, &N, &K, &fa, A.saved, &LDA, B.saved, &LDB, &fb, ref, &LDC, 1, 1);
            }
        } else if (dbl) {
            ob.dgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, alpha, A.saved,
                     (blasint)g.lda, B.saved, (blasint)g.ldb, beta, ref, (blasint)g.ldc);
        } else {
            ob.sgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, (float)alpha,
                     A.saved, (blasint)g.lda, B.saved, (blasint)g.ldb, (float)beta, ref, (blasint)g.ldc);
        }
        if (g_xe.n) finding("OpenBLAS called xerbla on a call the rules accept");
    }
    /* compare: op(A)(i,l) and op(B)(l,j) for the bound */
    {
        int col = g.layout != CblasRowMajor, ta = trans_code(g.ta), tb = trans_code(g.tb);
        double eps = dbl ? DBL_EPSILON : FLT_EPSILON, tiny = dbl ? DBL_MIN : FLT_MIN;
        int reported = 0;
        for (int64_t i = 0; i < g.m && !reported; ++i)
            for (int64_t j = 0; j < g.n && !reported; ++j) {
                int64_t at = col ? i + j * g.ldc : j + i * g.ldc;
                if (at >= cn) continue;
                double got = get(C.data, dbl, at), want_v = get(ref, dbl, at);
                double bound = 0;
                if (!simple) {
                    for (int64_t l = 0; l < g.k; ++l) {
                        int64_t ia = col ? (ta ? l + i * g.lda : i + l * g.lda) : (ta ? i + l * g.lda : l + i * g.lda);
                        int64_t ib = col ? (tb ? j + l * g.ldb : l + j * g.ldb) : (tb ? l + j * g.ldb : j + l * g.ldb);
                        bound += fabs(get(A.saved, dbl, ia) * get(B.saved, dbl, ib));
                    }
                    bound = bound * fabs(alpha) + fabs(beta * get(C.saved, dbl, at));
                    bound = (double)(g.k + 4) * eps * bound + (double)(g.k + 4) * tiny;
                }
                int ok;
                if (isnan(want_v)) ok = isnan(got);
                else if (isinf(want_v)) ok = got == want_v;
                else if (simple) ok = same_bits(C.data, ref, dbl, at) || (got == 0 && want_v == 0);
                else if (isnan(bound) || isinf(bound)) ok = got == want_v;
                else ok = fabs(got - want_v) <= bound;
                if (!ok) {
                    finding("C(%" PRId64 ",%" PRId64 ") = %.9g, OpenBLAS %.9g (bound %.3g)", i, j, got, want_v, bound);
                    reported = 1;
                }
            }
    }
    free(ref);
out:
    gb_free(&A), gb_free(&B), gb_free(&C);
}
