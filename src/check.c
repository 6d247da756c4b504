/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one argument check (see check.h). Pure C11: no CUDA, no allocation, no I/O.
 *
 * Order of the gemm checks follows reference CBLAS: layout, transA, transB, then the Fortran
 * xGEMM checks of the column-major problem (for row-major, the swapped problem
 * xGEMM(TB, TA, N, M, K, alpha, B, ldb, A, lda, beta, C, ldc) reported under the caller's
 * parameter numbers). After those come the checks reference BLAS does not make: NULL
 * pointers where data is touched, and extents that overflow int64_t.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define MB_ROW_MAJOR 101
#define MB_COL_MAJOR 102

int mb_trans_code(int trans) {
    switch (trans) {
    case 111: /* NoTrans */
    case 114: /* ConjNoTrans: same as NoTrans for real data */
        return 0;
    case 112: /* Trans */
    case 113: /* ConjTrans: same as Trans for real data */
        return 1;
    default: return -1;
    }
}

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

/* Record a failure (when err is non-NULL) and return its parameter number. The sentence
 * always ends with "(parameter N)", even when long values made the rest long. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(mb_check_error *err, int param, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int len = vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        if (len < 0) err->message[0] = '\0';
        char tail[24];
        snprintf(tail, sizeof tail, " (parameter %d)", param);
        size_t cap = sizeof err->message, tl = strlen(tail), ml = strlen(err->message);
        if (ml + tl >= cap) ml = cap - 1 - tl;
        memcpy(err->message + ml, tail, tl + 1);
        err->param = param;
    }
    return param;
}

static int ok(mb_check_error *err) {
    if (err) {
        err->param = 0;
        err->message[0] = '\0';
    }
    return 0;
}

/* Element extent ld * (cols - 1) + rows of a stored matrix (rows, cols >= 1, ld >= rows) and
 * its byte extent; 0 when both fit in int64_t, 1 when the elements overflow, 2 the bytes. */
static int matrix_extent_overflows(int64_t rows, int64_t cols, int64_t ld, size_t elem) {
    int64_t e, b;
    if (__builtin_mul_overflow(ld, cols - 1, &e) || __builtin_add_overflow(e, rows, &e)) return 1;
    if (elem > (size_t)INT64_MAX || __builtin_mul_overflow(e, (int64_t)elem, &b)) return 2;
    return 0;
}

/* Element extent (n - 1) * |inc| + 1 of a vector (n >= 1) and its byte extent; as above. */
static int vector_extent_overflows(int64_t n, int64_t inc, size_t elem) {
    int64_t a, e, b;
    if (n > 1) {
        if (inc == INT64_MIN) return 1; /* |inc| does not fit */
        a = inc < 0 ? -inc : inc;
        if (__builtin_mul_overflow(n - 1, a, &e) || __builtin_add_overflow(e, (int64_t)1, &e))
            return 1;
    } else {
        e = 1;
    }
    if (elem > (size_t)INT64_MAX || __builtin_mul_overflow(e, (int64_t)elem, &b)) return 2;
    return 0;
}

static int check_layout(int layout, mb_check_error *err) {
    if (layout != MB_ROW_MAJOR && layout != MB_COL_MAJOR)
        return fail(err, 1, "layout = %d is neither 101 (row-major) nor 102 (column-major)",
                    layout);
    return 0;
}

static int check_trans(int trans, const char *name, int param, mb_check_error *err) {
    if (mb_trans_code(trans) < 0)
        return fail(err, param, "%s = %d is not a transpose value (111, 112, 113 or 114)", name,
                    trans);
    return 0;
}

static int check_size(int64_t v, const char *name, int param, mb_check_error *err) {
    if (v < 0) return fail(err, param, "%s = %" PRId64 " is negative", name, v);
    return 0;
}

/* ld >= max(1, need), where need is the dimension called need_name. */
static int check_ld(int64_t ld, const char *ld_name, int64_t need, const char *need_name,
                    int param, mb_check_error *err) {
    if (ld < max1(need))
        return fail(err, param, "%s = %" PRId64 " is less than max(1, %s) = %" PRId64, ld_name, ld,
                    need_name, max1(need));
    return 0;
}

static int check_matrix_extent(const char *mat, int64_t rows, int64_t cols, int64_t ld,
                               const char *ld_name, size_t elem, int param,
                               mb_check_error *err) {
    int o = matrix_extent_overflows(rows, cols, ld, elem);
    if (o)
        return fail(err, param,
                    "the %s extent of %s (%s = %" PRId64 ", %" PRId64 " x %" PRId64
                    " stored) overflows int64_t",
                    o == 1 ? "element" : "byte", mat, ld_name, ld, rows, cols);
    return 0;
}

/* ------------------------------------------------------------------ gemm */

int mb_check_gemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  int alpha_is_zero, const void *A, int64_t lda, const void *B, int64_t ldb,
                  int beta_is_zero, const void *C, int64_t ldc, size_t elem_size,
                  mb_check_error *err) {
    (void)beta_is_zero; /* C is written whenever M, N > 0, whatever beta is */
    int p;
    if ((p = check_layout(layout, err))) return p;
    if ((p = check_trans(transa, "transA", 2, err))) return p;
    if ((p = check_trans(transb, "transB", 3, err))) return p;
    int ta = mb_trans_code(transa), tb = mb_trans_code(transb);

    /* The stored shape of each matrix: the ld rule bounds its rows (the leading dimension
     * of its storage), cols is the other dimension. */
    int64_t a_rows, a_cols, b_rows, b_cols, c_rows, c_cols;
    const char *a_need, *b_need, *c_need;
    if (layout == MB_COL_MAJOR) {
        if ((p = check_size(m, "M", 4, err))) return p;
        if ((p = check_size(n, "N", 5, err))) return p;
        if ((p = check_size(k, "K", 6, err))) return p;
        a_rows = ta == 0 ? m : k, a_cols = ta == 0 ? k : m, a_need = ta == 0 ? "M" : "K";
        b_rows = tb == 0 ? k : n, b_cols = tb == 0 ? n : k, b_need = tb == 0 ? "K" : "N";
        c_rows = m, c_cols = n, c_need = "M";
        if ((p = check_ld(lda, "lda", a_rows, a_need, 9, err))) return p;
        if ((p = check_ld(ldb, "ldb", b_rows, b_need, 11, err))) return p;
        if ((p = check_ld(ldc, "ldc", c_rows, c_need, 14, err))) return p;
    } else { /* row-major: reference CBLAS checks xGEMM(TB, TA, N, M, K, .., B, ldb, A, lda, ..) */
        if ((p = check_size(n, "N", 5, err))) return p;
        if ((p = check_size(m, "M", 4, err))) return p;
        if ((p = check_size(k, "K", 6, err))) return p;
        a_rows = ta == 0 ? k : m, a_cols = ta == 0 ? m : k, a_need = ta == 0 ? "K" : "M";
        b_rows = tb == 0 ? n : k, b_cols = tb == 0 ? k : n, b_need = tb == 0 ? "N" : "K";
        c_rows = n, c_cols = m, c_need = "N";
        if ((p = check_ld(ldb, "ldb", b_rows, b_need, 11, err))) return p;
        if ((p = check_ld(lda, "lda", a_rows, a_need, 9, err))) return p;
        if ((p = check_ld(ldc, "ldc", c_rows, c_need, 14, err))) return p;
    }

    int ab_touched = m > 0 && n > 0 && k > 0 && !alpha_is_zero;
    int c_touched = m > 0 && n > 0;
    if (ab_touched && !A) return fail(err, 8, "A is NULL while M, N, K > 0 and alpha != 0");
    if (ab_touched && !B) return fail(err, 10, "B is NULL while M, N, K > 0 and alpha != 0");
    if (c_touched && !C) return fail(err, 13, "C is NULL while M, N > 0");
    if (ab_touched) {
        if ((p = check_matrix_extent("A", a_rows, a_cols, lda, "lda", elem_size, 9, err)))
            return p;
        if ((p = check_matrix_extent("B", b_rows, b_cols, ldb, "ldb", elem_size, 11, err)))
            return p;
    }
    if (c_touched &&
        (p = check_matrix_extent("C", c_rows, c_cols, ldc, "ldc", elem_size, 14, err)))
        return p;
    return ok(err);
}

/* ------------------------------------------------------------------ omatcopy */

int mb_check_omatcopy(int layout, int trans, int64_t rows, int64_t cols, const void *A,
                      int64_t lda, const void *B, int64_t ldb, size_t elem_size,
                      mb_check_error *err) {
    int p;
    if ((p = check_layout(layout, err))) return p;
    if ((p = check_trans(trans, "trans", 2, err))) return p;
    if ((p = check_size(rows, "rows", 3, err))) return p;
    if ((p = check_size(cols, "cols", 4, err))) return p;
    int t = mb_trans_code(trans);
    int col = layout == MB_COL_MAJOR;
    /* Stored shapes: A is rows x cols in the layout; B is rows x cols (NoTrans) or cols x rows
     * (Trans) in the layout. The leading dimension bounds the first stored dimension. */
    int64_t a_lead = col ? rows : cols, a_other = col ? cols : rows;
    const char *a_need = col ? "rows" : "cols";
    int b_lead_is_rows = col ? (t == 0) : (t == 1);
    int64_t b_lead = b_lead_is_rows ? rows : cols, b_other = b_lead_is_rows ? cols : rows;
    const char *b_need = b_lead_is_rows ? "rows" : "cols";
    if ((p = check_ld(lda, "lda", a_lead, a_need, 7, err))) return p;
    if ((p = check_ld(ldb, "ldb", b_lead, b_need, 9, err))) return p;
    if (rows > 0 && cols > 0) {
        if (!A) return fail(err, 6, "A is NULL while rows, cols > 0");
        if (!B) return fail(err, 8, "B is NULL while rows, cols > 0");
        if ((p = check_matrix_extent("A", a_lead, a_other, lda, "lda", elem_size, 7, err)))
            return p;
        if ((p = check_matrix_extent("B", b_lead, b_other, ldb, "ldb", elem_size, 9, err)))
            return p;
    }
    return ok(err);
}

/* ------------------------------------------------------------------ asum, dot */

static int check_vector_extent(const char *vec, int64_t n, int64_t inc, const char *inc_name,
                               size_t elem, int param, mb_check_error *err) {
    int o = vector_extent_overflows(n, inc, elem);
    if (o)
        return fail(err, param,
                    "the %s extent of %s (n = %" PRId64 ", %s = %" PRId64 ") overflows int64_t",
                    o == 1 ? "element" : "byte", vec, n, inc_name, inc);
    return 0;
}

int mb_check_asum(int64_t n, const void *x, int64_t incx, const void *result, size_t elem_size,
                  mb_check_error *err) {
    int p;
    if (n > 0 && incx > 0) { /* otherwise x is not read and the result is 0 */
        if (!x) return fail(err, 2, "x is NULL while n > 0 and incx > 0");
        if ((p = check_vector_extent("x", n, incx, "incx", elem_size, 3, err))) return p;
    }
    if (!result) return fail(err, 4, "result is NULL");
    return ok(err);
}

int mb_check_dot(int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                 const void *result, size_t elem_size, mb_check_error *err) {
    int p;
    if (n > 0) { /* otherwise nothing is read and the result is 0 */
        if (!x) return fail(err, 2, "x is NULL while n > 0");
        if ((p = check_vector_extent("x", n, incx, "incx", elem_size, 3, err))) return p;
        if (!y) return fail(err, 4, "y is NULL while n > 0");
        if ((p = check_vector_extent("y", n, incy, "incy", elem_size, 5, err))) return p;
    }
    if (!result) return fail(err, 6, "result is NULL");
    return ok(err);
}
