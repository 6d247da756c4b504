/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one argument check, shared by the native API (src/api.c) and the cblas layer
 * (src/cblas/). Pure C: no CUDA, no allocation, no I/O, so it can be unit-tested and fuzzed
 * on any machine.
 *
 * Each function returns 0 when the arguments are valid, else the number of the first bad
 * parameter as reference CBLAS numbers it for the matching cblas_* routine (the layout is
 * parameter 1), and fills *err (when non-NULL) with that number and a sentence naming the
 * parameter and the rule. For gemm in row-major layout the numbering and the order of the
 * checks follow reference CBLAS's row-major renumbering (the problem is checked as the
 * column-major problem it becomes, with M<->N and lda<->ldb swapped, and reported under the
 * caller's parameter numbers).
 *
 * Rules: layout and transpose values; sizes >= 0; leading dimensions >= max(1, rows of the
 * stored matrix) for the layout and transpose; a NULL pointer where data will be touched;
 * sizes whose element extents (or byte extents) overflow int64_t. Increments: asum and dot
 * accept any value (reference BLAS: asum with incx <= 0 is 0; dot with a zero increment
 * repeats element 0), so only their extents are checked.
 * The result pointer of asum/dot is parameter 4 (asum) / 6 (dot).
 */
#ifndef MINIBLAS_CHECK_H
#define MINIBLAS_CHECK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mb_check_error {
    int param;        /* 0 when valid */
    char message[200];
} mb_check_error;

/* layout: 101 row / 102 col; trans: 111 N, 112 T, 113 C (= T), 114 (= N), as CBLAS. */
int mb_check_gemm(int layout, int transa, int transb, int64_t m, int64_t n, int64_t k,
                  int alpha_is_zero, const void *A, int64_t lda, const void *B, int64_t ldb,
                  int beta_is_zero, const void *C, int64_t ldc, size_t elem_size,
                  mb_check_error *err);

/* cblas_?omatcopy(layout 1, trans 2, rows 3, cols 4, alpha 5, A 6, lda 7, B 8, ldb 9). */
int mb_check_omatcopy(int layout, int trans, int64_t rows, int64_t cols, const void *A,
                      int64_t lda, const void *B, int64_t ldb, size_t elem_size,
                      mb_check_error *err);

/* cblas_?asum(n 1, x 2, incx 3); result 4. */
int mb_check_asum(int64_t n, const void *x, int64_t incx, const void *result, size_t elem_size,
                  mb_check_error *err);

/* cblas_?dot(n 1, x 2, incx 3, y 4, incy 5); result 6. */
int mb_check_dot(int64_t n, const void *x, int64_t incx, const void *y, int64_t incy,
                 const void *result, size_t elem_size, mb_check_error *err);

/* Transpose value -> 0 (no transpose) / 1 (transpose) / -1 (invalid). */
int mb_trans_code(int trans);

/* Offset in elements of logical element 0 of an n-element vector with increment inc (BLAS: a
 * negative increment walks the vector from its far end): (n - 1) * -inc when n > 1 and
 * inc < 0, else 0. For arguments mb_check_asum / mb_check_dot accepted (the extent fits
 * int64_t). inc is never negated: n == 1 (or n <= 0) with inc == INT64_MIN gives 0, with no
 * signed overflow. */
static inline int64_t mb_vector_start(int64_t n, int64_t inc) {
    if (n <= 1 || inc >= 0) return 0;
    return (int64_t)((uint64_t)(n - 1) * (0u - (uint64_t)inc));
}

/* The fast forms below accept sizes and leading dimensions below MB_SURELY_LIM only: then an
 * element extent ld * (cols - 1) + rows stays below 2^58 and its bytes below 2^62 for any
 * element size up to 16, so no extent can overflow int64_t. (With 2^31, the bound of a 32-bit
 * blasint, (2^31 - 1)^2 doubles would pass the fast form of gemm while the full check refuses
 * their byte extent.) Anything larger takes the full check. */
#define MB_SURELY_LIM ((int64_t)1 << 29)

/* The common case of mb_check_gemm in a few compares, for the cblas layer's small-call path
 * (where the full check was ~145 instructions of a ~1 us sgemm 16^3): 1 when the call is
 * surely valid: layout 101/102, transposes 111/112 (N/T), m, n, k >= 0 and every size and
 * leading dimension < MB_SURELY_LIM, each leading dimension >= max(1, rows of its stored
 * matrix), A and B non-NULL when m, n, k > 0 and C non-NULL when m, n > 0 (as the full check:
 * alpha == 0 makes NULL A/B valid there, not here). 0 means "not surely": call mb_check_gemm,
 * which decides and explains. Same rules, so the two cannot disagree on a call this one
 * accepts (tests/test_check_cpu.c compares them). */
static inline int mb_gemm_surely_valid(int layout, int transa, int transb, int64_t m, int64_t n,
                                       int64_t k, const void *A, int64_t lda, const void *B,
                                       int64_t ldb, const void *C, int64_t ldc) {
    const int64_t lim = MB_SURELY_LIM;
    if ((layout != 101 && layout != 102) || (transa != 111 && transa != 112) ||
        (transb != 111 && transb != 112) || m < 0 || n < 0 || k < 0 || m >= lim || n >= lim ||
        k >= lim || lda >= lim || ldb >= lim || ldc >= lim)
        return 0;
    const int col = layout == 102, ta = transa == 112, tb = transb == 112;
    /* rows of the stored A, B, C (column-major: op(A) is m x k; row-major: the transpose) */
    int64_t ar = col ? (ta ? k : m) : (ta ? m : k);
    int64_t br = col ? (tb ? n : k) : (tb ? k : n);
    int64_t cr = col ? m : n;
    if (lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) || ldc < (cr > 1 ? cr : 1)) return 0;
    if (m > 0 && n > 0 && (!C || (k > 0 && (!A || !B)))) return 0;
    return 1;
}

/* The common case of mb_check_omatcopy, as mb_gemm_surely_valid: layout 101/102, trans 111/112,
 * 0 < rows, cols < MB_SURELY_LIM, lda >= the first stored dimension of A (rows in column-major,
 * cols in row-major), ldb >= that of B (B is rows x cols, or cols x rows with trans), both
 * below MB_SURELY_LIM, A and B non-NULL. */
static inline int mb_omatcopy_surely_valid(int layout, int trans, int64_t rows, int64_t cols,
                                           const void *A, int64_t lda, const void *B,
                                           int64_t ldb) {
    const int64_t lim = MB_SURELY_LIM;
    if ((layout != 101 && layout != 102) || (trans != 111 && trans != 112) || rows <= 0 ||
        cols <= 0 || rows >= lim || cols >= lim || lda >= lim || ldb >= lim || !A || !B)
        return 0;
    const int col = layout == 102, t = trans == 112;
    return lda >= (col ? rows : cols) && ldb >= (col != t ? rows : cols);
}

#ifdef __cplusplus
}
#endif
#endif
