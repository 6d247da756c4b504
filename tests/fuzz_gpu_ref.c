/* SPDX-License-Identifier: BSD-3-Clause */
/* GPU fuzzer: failure reports, the cblas_xerbla of the drop-in build, the plain C stand-in for
 * the library (--selftest) and the oracle (expected classes and error bounds). */
#include "fuzz_gpu.h"

void report(fcase *c, const char *fmt, ...) {
    add(&g_failures, 1);
    c->failed = 1;
    if (__atomic_fetch_add(&g_printed, 1, __ATOMIC_RELAXED) >= 60) return;
    pthread_mutex_lock(&g_print_lock);
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL [thread %d, case 0x%016" PRIx64 "] %s%s%s: ", c->w ? c->w->id : -1, c->seed,
           c->what, c->w && c->w->rung ? " rung " : "", c->w && c->w->rung ? c->w->rung : "");
    vprintf(fmt, ap);
    printf("\n  replay: MINIBLAS_FUZZ_CASE=0x%016" PRIx64 "%s\n", c->seed,
           g_sgemm_specials ? " MINIBLAS_FUZZ_SGEMM_SPECIALS=1" : "");
    va_end(ap);
    fflush(stdout);
    pthread_mutex_unlock(&g_print_lock);
}

/* A CUDA failure outside the library's calls: this thread stops (the context may be broken). */
void fatal(fcase *c, const char *msg) {
    report(c, "%s", msg);
    add(&g_fatal, 1);
}

#ifdef MB_FUZZ_CBLAS
static _Thread_local int t_xerbla_calls, t_xerbla_param;
void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    (void)rout;
    (void)form;
    ++t_xerbla_calls;
    t_xerbla_param = (int)p;
}
void before_call(void) { t_xerbla_calls = 0, t_xerbla_param = 0; }
void after_call(outcome *o) {
    o->status_ok = t_xerbla_calls == 0;
    o->invalid_param = t_xerbla_param;
    snprintf(o->msg, sizeof o->msg, "cblas_xerbla called %d times, parameter %d", t_xerbla_calls,
             t_xerbla_param);
    if (t_xerbla_calls > 1) o->invalid_param = -1;
}
#endif

/* ---- the plain C stand-in for the library (--selftest) ---- */
#ifndef MB_FUZZ_CBLAS
miniblas_status_t st_gemm(int dbl, int layout, int ta, int tb, int64_t m, int64_t n,
                          int64_t k, double alpha, const void *A, int64_t lda,
                          const void *B, int64_t ldb, double beta, void *C, int64_t ldc,
                          int *param) {
    mb_check_error ce;
    *param = mb_check_gemm(layout, ta, tb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 0, C,
                           ldc, dbl ? 8 : 4, &ce);
    if (*param) return MINIBLAS_STATUS_INVALID_VALUE;
    const int col = layout == 102;
    const int tA = mb_trans_code(ta), tB = mb_trans_code(tb);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            size_t pc = pos(col, i, j, ldc);
            if (dbl) {
                double s = 0;
                if (alpha != 0)
                    for (int64_t l = 0; l < k; ++l)
                        s += ((const double *)A)[tA ? pos(col, l, i, lda) : pos(col, i, l, lda)] *
                             ((const double *)B)[tB ? pos(col, j, l, ldb) : pos(col, l, j, ldb)];
                double c = beta == 0 ? 0 : beta * ((double *)C)[pc];
                ((double *)C)[pc] = (alpha == 0 || k == 0) ? c : alpha * s + c;
            } else {
                float s = 0, al = (float)alpha, be = (float)beta;
                if (alpha != 0)
                    for (int64_t l = 0; l < k; ++l)
                        s += ((const float *)A)[tA ? pos(col, l, i, lda) : pos(col, i, l, lda)] *
                             ((const float *)B)[tB ? pos(col, j, l, ldb) : pos(col, l, j, ldb)];
                float c = be == 0 ? 0 : be * ((float *)C)[pc];
                ((float *)C)[pc] = (al == 0 || k == 0) ? c : al * s + c;
            }
        }
    return MINIBLAS_STATUS_SUCCESS;
}
miniblas_status_t st_omatcopy(int dbl, int layout, int trans, int64_t rows, int64_t cols,
                              double alpha, const void *A, int64_t lda, void *B,
                              int64_t ldb, int *param) {
    mb_check_error ce;
    *param = mb_check_omatcopy(layout, trans, rows, cols, A, lda, B, ldb, dbl ? 8 : 4, &ce);
    if (*param) return MINIBLAS_STATUS_INVALID_VALUE;
    const int col = layout == 102, t = mb_trans_code(trans);
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) {
            size_t pa = pos(col, i, j, lda), pb = t ? pos(col, j, i, ldb) : pos(col, i, j, ldb);
            if (dbl) ((double *)B)[pb] = alpha == 0 ? 0.0 : alpha * ((const double *)A)[pa];
            else ((float *)B)[pb] = (float)alpha == 0 ? 0.0f : (float)alpha * ((const float *)A)[pa];
        }
    return MINIBLAS_STATUS_SUCCESS;
}
miniblas_status_t st_reduce(int dbl, int dot, int64_t n, const void *x, int64_t incx,
                            const void *y, int64_t incy, void *result, int *param) {
    mb_check_error ce;
    *param = dot ? mb_check_dot(n, x, incx, y, incy, result, dbl ? 8 : 4, &ce)
                 : mb_check_asum(n, x, incx, result, dbl ? 8 : 4, &ce);
    if (*param) return MINIBLAS_STATUS_INVALID_VALUE;
    double s = 0;
    float sf = 0;
    if (n > 0 && (dot || incx > 0)) {
        for (int64_t i = 0; i < n; ++i) {
            double a = eget(x, vpos(n, incx, i), dbl);
            double t = dot ? a * eget(y, vpos(n, incy, i), dbl) : fabs(a);
            if (dot && !dbl) t = (double)((float)a * (float)eget(y, vpos(n, incy, i), 0));
            s += t;
            sf += (float)t;
        }
    }
    eset(result, 0, dbl ? s : (double)sf, dbl);
    return MINIBLAS_STATUS_SUCCESS;
}
#endif

/* ------------------------------------------------------------------ checking helpers */

unsigned cls(double v) {
    return isnan(v) ? CL_NAN : isinf(v) ? (v > 0 ? CL_PINF : CL_NINF) : CL_FIN;
}
const char *cls_name(unsigned c) {
    return c == CL_NAN ? "NaN" : c == CL_PINF ? "+Inf" : c == CL_NINF ? "-Inf" : "finite";
}

void rs_add(rsum *r, double t) {
    if (isnan(t)) r->nan = 1;
    else if (isinf(t)) (t > 0 ? (r->pinf = 1) : (r->ninf = 1));
    else {
        r->s += t;
        r->abs += fabs(t);
    }
}

/* Expected out = alpha * S + (beta_zero ? 0 : beta * c) for a sum S of `terms` terms computed
 * in precision dbl with error up to the bound. Returns the allowed classes; *want and *tol the
 * value and tolerance when finite is allowed. alpha_inf_nan: alpha = +-Inf may also give NaN. */
unsigned expect_combo(const rsum *r, int64_t terms, int dbl, double alpha, int beta_zero,
                      double beta, double c, double *want, double *tol) {
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    const double tiny = dbl ? DBL_TRUE_MIN : (double)FLT_TRUE_MIN;
    const double bc = beta_zero ? 0.0 : beta * c;
    unsigned allowed = 0;
    if (r->nan || (r->pinf && r->ninf)) {
        allowed = cls(alpha * NAN + bc);
        *want = NAN;
        *tol = 0;
        return allowed | CL_NAN;
    }
    if (r->pinf || r->ninf) {
        double S = r->pinf ? INFINITY : -INFINITY;
        allowed = cls(alpha * S + bc);
        if (isinf(alpha) || alpha == 0) allowed |= CL_NAN;
        *want = alpha * S + bc;
        *tol = 0;
        return allowed;
    }
    const double S = (double)r->s;
    const double E = 2.0 * (double)(terms + 2) * eps * (double)r->abs + 4.0 * (double)terms * tiny;
    const double cand[4] = {S - E, S, S + E, 0.0};
    const int ncand = (S - E <= 0 && S + E >= 0) ? 4 : 3;
    for (int i = 0; i < ncand; ++i) allowed |= cls(alpha * cand[i] + bc);
    if (isinf(alpha)) allowed |= CL_NAN;
    *want = alpha * S + bc;
    *tol = fabs(alpha) * E + 2.0 * eps * (fabs(alpha * S) + fabs(bc)) + 4.0 * tiny;
    return allowed;
}

/* Checks one output element: returns 1 when acceptable. */
int element_ok(double got, unsigned allowed, double want, double tol) {
    unsigned c = cls(got);
    if (!(c & allowed)) return 0;
    if (c != CL_FIN) return 1;
    if (!isfinite(want)) return 1; /* finite is allowed only by the error interval */
    return fabs(got - want) <= tol;
}

int settle_call(fcase *c, const outcome *oc, cudaError_t se, void *out, const buf *b,
                const void *before, size_t n, int dbl, int bad, int expect_param,
                const char *name) {
    char msg[300];
    if (se != cudaSuccess) {
        snprintf(msg, sizeof msg, "after the call: %s (%s)", cudaGetErrorName(se),
                 cudaGetErrorString(se));
        fatal(c, msg);
        return 1;
    }
    if (buf_get(out, b, n * (dbl ? 8 : 4), msg, sizeof msg)) {
        fatal(c, msg);
        return 1;
    }
    if (bad) {
        if (oc->status_ok || oc->invalid_param != expect_param)
            report(c, "invalid call: expected parameter %d reported, got: %s", expect_param,
                   oc->msg);
        size_t changed = 0;
        for (size_t i = 0; i < n; ++i) changed += !same_bits(out, before, i, dbl);
        if (changed) report(c, "invalid call wrote %zu elements of %s's buffer", changed, name);
        return 1;
    }
    if (!oc->status_ok) {
        report(c, "valid call failed: %s", oc->msg);
        return 1;
    }
    return 0;
}
