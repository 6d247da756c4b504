/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU fuzzer: an independent model of the argument rules of check.h, the fuzzing of the check
 * functions themselves, and the checks common to every library call. */
#include "fuzz_cpu.h"

/* ------------------------------------------------------------------ the model (check.h) */

/* The stored shapes for a valid layout and transposes. */
void gemm_shapes(gemm_args *g) {
    int col = g->layout == CblasColMajor, ta = trans_code(g->ta), tb = trans_code(g->tb);
    int64_t ar = ta ? g->k : g->m, ac = ta ? g->m : g->k; /* op(A) is m x k: A is ar x ac */
    int64_t br = tb ? g->n : g->k, bc = tb ? g->k : g->n;
    if (col) {
        g->a_lead = ar, g->a_other = ac, g->b_lead = br, g->b_other = bc;
        g->c_lead = g->m, g->c_other = g->n;
    } else {
        g->a_lead = ac, g->a_other = ar, g->b_lead = bc, g->b_other = br;
        g->c_lead = g->n, g->c_other = g->m;
    }
}

/* The parameter number check.h documents (caller's numbering), 0 when valid. */
int model_gemm(gemm_args *g) {
    if (g->layout != CblasRowMajor && g->layout != CblasColMajor) return 1;
    if (trans_code(g->ta) < 0) return 2;
    if (trans_code(g->tb) < 0) return 3;
    int col = g->layout == CblasColMajor;
    if (col) {
        if (g->m < 0) return 4;
        if (g->n < 0) return 5;
    } else {
        if (g->n < 0) return 5;
        if (g->m < 0) return 4;
    }
    if (g->k < 0) return 6;
    gemm_shapes(g);
    int64_t a1 = g->a_lead > 1 ? g->a_lead : 1, b1 = g->b_lead > 1 ? g->b_lead : 1,
            c1 = g->c_lead > 1 ? g->c_lead : 1;
    if (col) {
        if (g->lda < a1) return 9;
        if (g->ldb < b1) return 11;
    } else {
        if (g->ldb < b1) return 11;
        if (g->lda < a1) return 9;
    }
    if (g->ldc < c1) return 14;
    int ab = g->m > 0 && g->n > 0 && g->k > 0 && !g->alpha0, c = g->m > 0 && g->n > 0;
    if (ab && g->a_null) return 8;
    if (ab && g->b_null) return 10;
    if (c && g->c_null) return 13;
    if (ab && overflows(mat_extent(g->a_lead, g->a_other, g->lda), g->elem)) return 9;
    if (ab && overflows(mat_extent(g->b_lead, g->b_other, g->ldb), g->elem)) return 11;
    if (c && overflows(mat_extent(g->c_lead, g->c_other, g->ldc), g->elem)) return 14;
    return 0;
}
/* What cblas_xerbla receives: reference CBLAS's row-major gemm renumbering (the swapped
 * column-major call's positions: M 5, N 4, lda 11, ldb 9). */
int rowmajor_swap(int p) {
    switch (p) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return p;
    }
}


int model_omatcopy(omat_args *o) {
    if (o->layout != CblasRowMajor && o->layout != CblasColMajor) return 1;
    if (trans_code(o->trans) < 0) return 2;
    if (o->rows < 0) return 3;
    if (o->cols < 0) return 4;
    int col = o->layout == CblasColMajor, t = trans_code(o->trans);
    o->a_lead = col ? o->rows : o->cols, o->a_other = col ? o->cols : o->rows;
    int b_rows = col ? !t : t;
    o->b_lead = b_rows ? o->rows : o->cols, o->b_other = b_rows ? o->cols : o->rows;
    if (o->lda < (o->a_lead > 1 ? o->a_lead : 1)) return 7;
    if (o->ldb < (o->b_lead > 1 ? o->b_lead : 1)) return 9;
    if (o->rows > 0 && o->cols > 0) {
        if (o->a_null) return 6;
        if (o->b_null) return 8;
        if (overflows(mat_extent(o->a_lead, o->a_other, o->lda), o->elem)) return 7;
        if (overflows(mat_extent(o->b_lead, o->b_other, o->ldb), o->elem)) return 9;
    }
    return 0;
}

int model_asum(int64_t n, int x_null, int64_t incx, int res_null, size_t elem) {
    if (n > 0 && incx > 0) {
        if (x_null) return 2;
        if (incx == INT64_MIN || overflows(vec_extent(n, incx), elem)) return 3;
    }
    return res_null ? 4 : 0;
}
int model_dot(int64_t n, int x_null, int64_t incx, int y_null, int64_t incy, int res_null,
              size_t elem) {
    if (n > 0) {
        if (x_null) return 2;
        if ((n > 1 && incx == INT64_MIN) || overflows(vec_extent(n, incx), elem)) return 3;
        if (y_null) return 4;
        if ((n > 1 && incy == INT64_MIN) || overflows(vec_extent(n, incy), elem)) return 5;
    }
    return res_null ? 6 : 0;
}

/* ------------------------------------------------------------------ the check functions */

int64_t gen_any64(rng_t *r) {
    switch (rnd(r, 10)) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return (int64_t)(next(r));
    case 3: return ((int64_t)1 << (rnd(r, 62))) + rnd(r, 3) - 1;
    case 4: return -rnd(r, 4);
    case 5: return MB_SURELY_LIM - 1 + rnd(r, 3);
    default: return rnd(r, 50);
    }
}

void check_message(int p, const mb_check_error *e) {
    char tail[32];
    snprintf(tail, sizeof tail, "(parameter %d)", p);
    size_t ml = strlen(e->message), tl = strlen(tail);
    if (e->param != p) finding("err->param %d, returned %d", e->param, p);
    if (p && (ml < tl || strcmp(e->message + ml - tl, tail)))
        finding("message \"%s\" does not end with \"%s\"", e->message, tail);
    if (!p && e->message[0]) finding("valid call with a message \"%s\"", e->message);
}

void fuzz_checks(rng_t *r) {
    static const size_t elems[] = {4, 8, 16};
    const void *P = &g_seed; /* any non-NULL pointer: the check never dereferences */
    mb_check_error e;
    /* gemm */
    gemm_args g = {0};
    int small = chance(r, 50);
    g.layout = gen_layout(r), g.ta = gen_trans(r), g.tb = gen_trans(r);
    g.m = small ? gen_dim(r) : gen_any64(r), g.n = small ? gen_dim(r) : gen_any64(r);
    g.k = small ? gen_dim(r) : gen_any64(r);
    g.lda = small ? gen_ld(r, g.m) : gen_any64(r), g.ldb = small ? gen_ld(r, g.k) : gen_any64(r);
    g.ldc = small ? gen_ld(r, g.m) : gen_any64(r);
    g.alpha0 = chance(r, 15), g.a_null = chance(r, 5), g.b_null = chance(r, 5), g.c_null = chance(r, 5);
    g.elem = elems[rnd(r, 3)];
    snprintf(g_call, sizeof g_call,
             "mb_check_gemm(%d, %d, %d, %" PRId64 ", %" PRId64 ", %" PRId64 ", alpha0=%d, A%s, %" PRId64
             ", B%s, %" PRId64 ", C%s, %" PRId64 ", elem %zu)",
             g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha0, g.a_null ? "=NULL" : "", g.lda,
             g.b_null ? "=NULL" : "", g.ldb, g.c_null ? "=NULL" : "", g.ldc, g.elem);
    int want = model_gemm(&g);
    int got = mb_check_gemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha0, g.a_null ? NULL : P,
                            g.lda, g.b_null ? NULL : P, g.ldb, 0, g.c_null ? NULL : P, g.ldc,
                            g.elem, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    if (mb_check_gemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha0, g.a_null ? NULL : P, g.lda,
                      g.b_null ? NULL : P, g.ldb, 1, g.c_null ? NULL : P, g.ldc, g.elem, NULL) != got)
        finding("the answer depends on beta == 0 or on err == NULL");
    if (g.elem <= 16 &&
        mb_gemm_surely_valid(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.a_null ? NULL : P, g.lda,
                             g.b_null ? NULL : P, g.ldb, g.c_null ? NULL : P, g.ldc) &&
        want != 0)
        finding("mb_gemm_surely_valid accepts a call the rules refuse (parameter %d)", want);
    /* omatcopy */
    omat_args o = {0};
    o.layout = gen_layout(r), o.trans = gen_trans(r);
    o.rows = small ? gen_dim(r) : gen_any64(r), o.cols = small ? gen_dim(r) : gen_any64(r);
    o.lda = small ? gen_ld(r, o.rows) : gen_any64(r), o.ldb = small ? gen_ld(r, o.cols) : gen_any64(r);
    o.a_null = chance(r, 5), o.b_null = chance(r, 5), o.elem = elems[rnd(r, 3)];
    snprintf(g_call, sizeof g_call,
             "mb_check_omatcopy(%d, %d, %" PRId64 ", %" PRId64 ", A%s, %" PRId64 ", B%s, %" PRId64
             ", elem %zu)",
             o.layout, o.trans, o.rows, o.cols, o.a_null ? "=NULL" : "", o.lda,
             o.b_null ? "=NULL" : "", o.ldb, o.elem);
    want = model_omatcopy(&o);
    got = mb_check_omatcopy(o.layout, o.trans, o.rows, o.cols, o.a_null ? NULL : P, o.lda,
                            o.b_null ? NULL : P, o.ldb, o.elem, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    if (o.elem <= 16 &&
        mb_omatcopy_surely_valid(o.layout, o.trans, o.rows, o.cols, o.a_null ? NULL : P, o.lda,
                                 o.b_null ? NULL : P, o.ldb) &&
        want != 0)
        finding("mb_omatcopy_surely_valid accepts a call the rules refuse (parameter %d)", want);
    /* asum, dot */
    int64_t n = small ? gen_dim(r) : gen_any64(r), ix = small ? gen_inc(r) : gen_any64(r),
            iy = small ? gen_inc(r) : gen_any64(r);
    int xn = chance(r, 5), yn = chance(r, 5), rn = chance(r, 5);
    size_t el = elems[rnd(r, 3)];
    snprintf(g_call, sizeof g_call, "mb_check_asum(%" PRId64 ", x%s, %" PRId64 ", result%s, elem %zu)",
             n, xn ? "=NULL" : "", ix, rn ? "=NULL" : "", el);
    want = model_asum(n, xn, ix, rn, el);
    got = mb_check_asum(n, xn ? NULL : P, ix, rn ? NULL : P, el, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    snprintf(g_call, sizeof g_call,
             "mb_check_dot(%" PRId64 ", x%s, %" PRId64 ", y%s, %" PRId64 ", result%s, elem %zu)", n,
             xn ? "=NULL" : "", ix, yn ? "=NULL" : "", iy, rn ? "=NULL" : "", el);
    want = model_dot(n, xn, ix, yn, iy, rn, el);
    got = mb_check_dot(n, xn ? NULL : P, ix, yn ? NULL : P, iy, rn ? NULL : P, el, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    int tc = (int)rnd(r, 120);
    if (mb_trans_code(tc) != trans_code(tc)) finding("mb_trans_code(%d) = %d", tc, mb_trans_code(tc));
}

/* ------------------------------------------------------------------ common call checks */

/* The xerbla expectation after a call: want == 0: none; else exactly one, with that number
 * and that routine name. Returns 1 when it matched. */
int expect_xerbla(int want, const char *name, int fortran) {
    if (want == 0) {
        if (g_xe.n) finding("xerbla (%s, %d) on a valid call", g_xe.name, g_xe.param);
        return g_xe.n == 0;
    }
    if (g_xe.n != 1) {
        finding("%d xerbla calls where one with parameter %d was due", g_xe.n, want);
        return 0;
    }
    if (g_xe.fortran != fortran || strcmp(g_xe.name, name)) {
        finding("xerbla named \"%s\" (%s) where \"%s\" (%s) was due", g_xe.name,
                g_xe.fortran ? "xerbla_" : "cblas_xerbla", name, fortran ? "xerbla_" : "cblas_xerbla");
        return 0;
    }
    return g_xe.param == want;
}

int64_t cap_elems = (int64_t)1 << 21; /* the largest operand a valid call may have */

/* Element count of a buffer for an operand of extent ext (valid calls: exactly ext; invalid
 * ones: whatever, small: nothing may be touched). */
size_t buf_elems(rng_t *r, i128 ext, int valid) {
    if (valid) return (size_t)ext;
    if (ext <= 0) return 0;
    if (ext > 4096) return (size_t)rnd(r, 4096);
    return chance(r, 50) ? (size_t)ext : (size_t)rnd(r, (int64_t)ext + 1);
}

