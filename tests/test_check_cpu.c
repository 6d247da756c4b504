/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one argument check (src/check.c), on any machine: every rule of src/check.h, both
 * layouts, all four transpose values, reference CBLAS's row-major renumbering and order of
 * checks, both sides of every leading-dimension bound, NULL pointers where data is (and is
 * not) touched, int64_t overflow of extents, and the messages.
 *
 * Besides the hand-written cases, gemm and omatcopy are swept over small sizes against
 * independent models: gemm against a transcription of reference BLAS xGEMM's checks called
 * the way reference CBLAS calls it (row-major: swapped operands, then cblas_xerbla's
 * renumbering), omatcopy against the column-major problem that src/api.c normalises to.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check.h"
#include "cpu_check.h"



enum { ROW = 101, COL = 102, NT = 111, TR = 112, CT = 113, CN = 114 };
static const int all_trans[4] = {NT, TR, CT, CN};
static int is_nt(int t) { return t == NT || t == CN; }

static float data[4];
#define P ((const void *)data)

/* One expectation on one call: return value, err->param, message empty iff valid, and the
 * message naming the parameter; the same result with err == NULL. */
static void expect(const char *file, int line, const char *what, int expected, int got,
                   int got_noerr, const mb_check_error *e) {
    char tag[32];
    snprintf(tag, sizeof tag, "(parameter %d)", expected);
    int good = got == expected && got_noerr == expected && e->param == expected &&
               (expected == 0 ? e->message[0] == '\0'
                              : (e->message[0] != '\0' && strstr(e->message, tag) != NULL &&
                                 strlen(e->message) < sizeof e->message));
    if (good) {
        ++g_pass;
    } else {
        ++g_fail;
        printf("%s:%d: FAILED: %s: expected %d, got %d (err=NULL: %d, err.param %d, \"%s\")\n",
               file, line, what, expected, got, got_noerr, e->param, e->message);
    }
}

static mb_check_error last; /* the error of the latest call, for message checks */

static int gemm_at(const char *file, int line, int exp, int layout, int ta, int tb, int64_t m,
                   int64_t n, int64_t k, int az, const void *A, int64_t lda, const void *B,
                   int64_t ldb, const void *C, int64_t ldc, size_t elem) {
    memset(&last, 'x', sizeof last); /* stale content must be replaced */
    last.message[sizeof last.message - 1] = '\0';
    last.param = -99;
    int r = mb_check_gemm(layout, ta, tb, m, n, k, az, A, lda, B, ldb, 0, C, ldc, elem, &last);
    int r2 = mb_check_gemm(layout, ta, tb, m, n, k, az, A, lda, B, ldb, 1, C, ldc, elem, NULL);
    char what[160];
    snprintf(what, sizeof what,
             "gemm(%d,%d,%d, M=%" PRId64 " N=%" PRId64 " K=%" PRId64 " az=%d lda=%" PRId64
             " ldb=%" PRId64 " ldc=%" PRId64 " elem=%zu)",
             layout, ta, tb, m, n, k, az, lda, ldb, ldc, elem);
    expect(file, line, what, exp, r, r2, &last);
    /* the fast form (cblas small-call path) never accepts what the full check refuses, and
     * accepts every plain valid call (N/T transposes, sizes below MB_SURELY_LIM, all pointers
     * given) */
    const int64_t lim = MB_SURELY_LIM;
    int s = mb_gemm_surely_valid(layout, ta, tb, m, n, k, A, lda, B, ldb, C, ldc);
    int plain = (ta == NT || ta == TR) && (tb == NT || tb == TR) && m < lim && n < lim &&
                k < lim && lda < lim && ldb < lim && ldc < lim && A && B && C;
    if (!(s && r) && (s || r || !plain)) {
        ++g_pass;
    } else {
        ++g_fail;
        printf("%s:%d: FAILED: %s: mb_gemm_surely_valid %d, mb_check_gemm %d\n", file, line,
               what, s, r);
    }
    return r;
}
#define GEMM(exp, layout, ta, tb, m, n, k, az, A, lda, B, ldb, C, ldc)                        \
    gemm_at(__FILE__, __LINE__, exp, layout, ta, tb, m, n, k, az, A, lda, B, ldb, C, ldc, 4)
#define GEMME(exp, elem, layout, ta, tb, m, n, k, az, A, lda, B, ldb, C, ldc)                 \
    gemm_at(__FILE__, __LINE__, exp, layout, ta, tb, m, n, k, az, A, lda, B, ldb, C, ldc, elem)

/* The fast form (the cblas layer's small-call path) never accepts what the full check refuses
 * (full: its verdict), and accepts every plain call it may take: N/T, sizes > 0 and leading
 * dimensions below MB_SURELY_LIM, both pointers given. */
static void omat_fast_vs_full(const char *file, int line, const char *what, int full, int layout,
                              int t, int64_t rows, int64_t cols, const void *A, int64_t lda,
                              const void *B, int64_t ldb) {
    const int64_t lim = MB_SURELY_LIM;
    int s = mb_omatcopy_surely_valid(layout, t, rows, cols, A, lda, B, ldb);
    int plain = (t == NT || t == TR) && rows > 0 && cols > 0 && rows < lim && cols < lim &&
                lda < lim && ldb < lim && A && B;
    if (!(s && full) && (s || full || !plain)) {
        ++g_pass;
    } else {
        ++g_fail;
        printf("%s:%d: FAILED: %s: mb_omatcopy_surely_valid %d, mb_check_omatcopy %d\n", file,
               line, what, s, full);
    }
}

static void omat_at(const char *file, int line, int exp, int layout, int t, int64_t rows,
                    int64_t cols, const void *A, int64_t lda, const void *B, int64_t ldb,
                    size_t elem) {
    memset(&last, 'x', sizeof last);
    last.message[sizeof last.message - 1] = '\0';
    last.param = -99;
    int r = mb_check_omatcopy(layout, t, rows, cols, A, lda, B, ldb, elem, &last);
    int r2 = mb_check_omatcopy(layout, t, rows, cols, A, lda, B, ldb, elem, NULL);
    char what[160];
    snprintf(what, sizeof what,
             "omatcopy(%d,%d, rows=%" PRId64 " cols=%" PRId64 " lda=%" PRId64 " ldb=%" PRId64
             " elem=%zu)",
             layout, t, rows, cols, lda, ldb, elem);
    expect(file, line, what, exp, r, r2, &last);
    omat_fast_vs_full(file, line, what, r, layout, t, rows, cols, A, lda, B, ldb);
}
#define OMAT(exp, layout, t, rows, cols, A, lda, B, ldb)                                      \
    omat_at(__FILE__, __LINE__, exp, layout, t, rows, cols, A, lda, B, ldb, 4)
#define OMATE(exp, elem, layout, t, rows, cols, A, lda, B, ldb)                               \
    omat_at(__FILE__, __LINE__, exp, layout, t, rows, cols, A, lda, B, ldb, elem)

static void asum_at(const char *file, int line, int exp, int64_t n, const void *x, int64_t incx,
                    const void *res, size_t elem) {
    memset(&last, 'x', sizeof last);
    last.message[sizeof last.message - 1] = '\0';
    last.param = -99;
    int r = mb_check_asum(n, x, incx, res, elem, &last);
    int r2 = mb_check_asum(n, x, incx, res, elem, NULL);
    char what[128];
    snprintf(what, sizeof what, "asum(n=%" PRId64 " x=%s incx=%" PRId64 " result=%s elem=%zu)", n,
             x ? "p" : "NULL", incx, res ? "p" : "NULL", elem);
    expect(file, line, what, exp, r, r2, &last);
}
#define ASUM(exp, n, x, incx, res) asum_at(__FILE__, __LINE__, exp, n, x, incx, res, 4)
#define ASUME(exp, elem, n, x, incx, res) asum_at(__FILE__, __LINE__, exp, n, x, incx, res, elem)

static void dot_at(const char *file, int line, int exp, int64_t n, const void *x, int64_t incx,
                   const void *y, int64_t incy, const void *res, size_t elem) {
    memset(&last, 'x', sizeof last);
    last.message[sizeof last.message - 1] = '\0';
    last.param = -99;
    int r = mb_check_dot(n, x, incx, y, incy, res, elem, &last);
    int r2 = mb_check_dot(n, x, incx, y, incy, res, elem, NULL);
    char what[160];
    snprintf(what, sizeof what,
             "dot(n=%" PRId64 " x=%s incx=%" PRId64 " y=%s incy=%" PRId64 " result=%s elem=%zu)",
             n, x ? "p" : "NULL", incx, y ? "p" : "NULL", incy, res ? "p" : "NULL", elem);
    expect(file, line, what, exp, r, r2, &last);
}
#define DOT(exp, n, x, incx, y, incy, res)                                                    \
    dot_at(__FILE__, __LINE__, exp, n, x, incx, y, incy, res, 4)
#define DOTE(exp, elem, n, x, incx, y, incy, res)                                             \
    dot_at(__FILE__, __LINE__, exp, n, x, incx, y, incy, res, elem)

#define MSG_HAS(s) CHECK(strstr(last.message, s) != NULL)

static int64_t imax1(int64_t v) { return v > 1 ? v : 1; }

/* ------------------------------------------------------------------ independent models */

/* Reference BLAS xGEMM's INFO (Fortran numbering) for valid TRANSA/TRANSB. */
static int f77_gemm_info(int nota, int notb, int64_t m, int64_t n, int64_t k, int64_t lda,
                         int64_t ldb, int64_t ldc) {
    int64_t nrowa = nota ? m : k, nrowb = notb ? k : n;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < imax1(nrowa)) return 8;
    if (ldb < imax1(nrowb)) return 10;
    if (ldc < imax1(m)) return 13;
    return 0;
}

/* Reference CBLAS cblas_xgemm: column-major passes through (INFO + 1: layout is parameter 1);
 * row-major calls xGEMM(TB, TA, N, M, K, .., B, ldb, A, lda, .., C, ldc) and cblas_xerbla
 * swaps 4 <-> 5 and 9 <-> 11. */
static int ref_cblas_gemm(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          int64_t lda, int64_t ldb, int64_t ldc) {
    if (layout == COL) {
        int info = f77_gemm_info(is_nt(ta), is_nt(tb), m, n, k, lda, ldb, ldc);
        return info ? info + 1 : 0;
    }
    int info = f77_gemm_info(is_nt(tb), is_nt(ta), n, m, k, ldb, lda, ldc);
    if (!info) return 0;
    int p = info + 1;
    switch (p) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return p;
    }
}

/* omatcopy as the column-major problem src/api.c hands the kernels: a row-major rows x cols
 * matrix is a column-major cols x rows one; B is r x c (NoTrans) or c x r (Trans). */
static int ref_omatcopy(int layout, int t, int64_t rows, int64_t cols, int64_t lda,
                        int64_t ldb) {
    if (rows < 0) return 3;
    if (cols < 0) return 4;
    int64_t r = layout == COL ? rows : cols, c = layout == COL ? cols : rows;
    if (lda < imax1(r)) return 7;
    if (ldb < imax1(is_nt(t) ? r : c)) return 9;
    return 0;
}

/* ------------------------------------------------------------------ gemm */

static void test_trans_code(void) {
    CHECK(mb_trans_code(111) == 0);
    CHECK(mb_trans_code(114) == 0);
    CHECK(mb_trans_code(112) == 1);
    CHECK(mb_trans_code(113) == 1);
    const int bad[] = {0, -1, 110, 115, 101, 102, 'N', 'T', 'n', 1, 2};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) CHECK(mb_trans_code(bad[i]) == -1);
}

static void test_gemm_enums(void) {
    /* valid baseline */
    for (int l = 0; l < 2; ++l)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b)
                GEMM(0, l ? ROW : COL, all_trans[a], all_trans[b], 8, 8, 8, 0, P, 8, P, 8, P, 8);
    const int bad_layout[] = {0, -1, 100, 103, 111, 'R', 'C'};
    for (size_t i = 0; i < sizeof bad_layout / sizeof bad_layout[0]; ++i)
        GEMM(1, bad_layout[i], NT, NT, 2, 2, 2, 0, P, 2, P, 2, P, 2);
    /* layout first, even with everything else wrong */
    GEMM(1, 7, 0, 0, -1, -1, -1, 0, NULL, 0, NULL, 0, NULL, 0);
    const int bad_trans[] = {0, -1, 110, 115, 101, 102, 'N', 'T'};
    for (int l = 0; l < 2; ++l) {
        int lay = l ? ROW : COL;
        for (size_t i = 0; i < sizeof bad_trans / sizeof bad_trans[0]; ++i) {
            GEMM(2, lay, bad_trans[i], NT, 2, 2, 2, 0, P, 2, P, 2, P, 2);
            GEMM(3, lay, NT, bad_trans[i], 2, 2, 2, 0, P, 2, P, 2, P, 2);
            GEMM(3, lay, TR, bad_trans[i], 2, 2, 2, 0, P, 2, P, 2, P, 2);
            GEMM(2, lay, bad_trans[i], bad_trans[i], 2, 2, 2, 0, P, 2, P, 2, P, 2);
        }
        /* transposes before sizes and leading dimensions */
        GEMM(2, lay, 0, NT, -1, -1, -1, 0, NULL, 0, NULL, 0, NULL, 0);
        GEMM(3, lay, CN, 0, -1, -1, -1, 0, NULL, 0, NULL, 0, NULL, 0);
    }
    GEMM(1, 0, NT, NT, 2, 2, 2, 0, P, 2, P, 2, P, 2);
    MSG_HAS("layout");
    GEMM(2, COL, 99, NT, 2, 2, 2, 0, P, 2, P, 2, P, 2);
    MSG_HAS("99");
}

static void test_gemm_sizes_and_order(void) {
    /* column-major: M, N, K in that order */
    GEMM(4, COL, NT, NT, -1, 2, 2, 0, P, 2, P, 2, P, 2);
    GEMM(5, COL, NT, NT, 2, -1, 2, 0, P, 2, P, 2, P, 2);
    GEMM(6, COL, NT, NT, 2, 2, -1, 0, P, 2, P, 2, P, 2);
    GEMM(4, COL, NT, NT, -1, -1, 2, 0, P, 2, P, 2, P, 2);
    GEMM(4, COL, NT, NT, -1, -1, -1, 0, P, 2, P, 2, P, 2);
    GEMM(5, COL, NT, NT, 2, -1, -1, 0, P, 2, P, 2, P, 2);
    GEMM(4, COL, TR, TR, INT64_MIN, 2, 2, 0, P, 2, P, 2, P, 2);
    MSG_HAS("M");
    MSG_HAS("negative");
    /* row-major: N, then M, then K (the swapped column-major problem) */
    GEMM(4, ROW, NT, NT, -1, 2, 2, 0, P, 2, P, 2, P, 2);
    GEMM(5, ROW, NT, NT, 2, -1, 2, 0, P, 2, P, 2, P, 2);
    GEMM(6, ROW, NT, NT, 2, 2, -1, 0, P, 2, P, 2, P, 2);
    GEMM(5, ROW, NT, NT, -1, -1, 2, 0, P, 2, P, 2, P, 2);
    GEMM(5, ROW, NT, NT, -1, -1, -1, 0, P, 2, P, 2, P, 2);
    GEMM(4, ROW, NT, NT, -1, 2, -1, 0, P, 2, P, 2, P, 2);
    GEMM(5, ROW, TR, CT, -7, -3, -1, 0, NULL, 0, NULL, 0, NULL, 0);
    /* sizes before leading dimensions and pointers */
    GEMM(6, COL, NT, NT, 3, 3, -1, 0, NULL, 0, NULL, 0, NULL, 0);
    GEMM(6, ROW, NT, NT, 3, 3, -1, 0, NULL, 0, NULL, 0, NULL, 0);

    /* M=5, N=7, K=3; all leading dimensions wrong: the first in reference order wins */
    GEMM(9, COL, NT, NT, 5, 7, 3, 0, P, 1, P, 1, P, 1);
    GEMM(11, COL, NT, NT, 5, 7, 3, 0, P, 5, P, 1, P, 1);
    GEMM(14, COL, NT, NT, 5, 7, 3, 0, P, 5, P, 3, P, 4);
    GEMM(11, ROW, NT, NT, 5, 7, 3, 0, P, 1, P, 1, P, 1);  /* ldb checked before lda */
    GEMM(9, ROW, NT, NT, 5, 7, 3, 0, P, 2, P, 7, P, 1);   /* then lda */
    GEMM(14, ROW, NT, NT, 5, 7, 3, 0, P, 3, P, 7, P, 6);  /* then ldc >= N */
    GEMM(0, ROW, NT, NT, 5, 7, 3, 0, P, 3, P, 7, P, 7);
    /* leading dimensions before NULL pointers */
    GEMM(9, COL, NT, NT, 5, 7, 3, 0, NULL, 4, NULL, 3, NULL, 5);
    GEMM(11, ROW, NT, NT, 5, 7, 3, 0, NULL, 2, NULL, 6, NULL, 7);
    GEMM(14, COL, NT, NT, 5, 7, 3, 0, NULL, 5, NULL, 3, NULL, 4);
}

/* Required leading dimensions by the rules of check.h, written out per layout. */
static void gemm_required(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          int64_t *lda, int64_t *ldb, int64_t *ldc) {
    if (layout == COL) {
        *lda = imax1(is_nt(ta) ? m : k);
        *ldb = imax1(is_nt(tb) ? k : n);
        *ldc = imax1(m);
    } else {
        *lda = imax1(is_nt(ta) ? k : m);
        *ldb = imax1(is_nt(tb) ? n : k);
        *ldc = imax1(n);
    }
}

static void test_gemm_ld_bounds(void) {
    const int64_t shapes[][3] = {{5, 7, 3}, {3, 5, 7}, {7, 3, 5}, {1, 1, 1}, {0, 4, 6},
                                 {4, 0, 6}, {4, 6, 0}, {0, 0, 0}, {1000, 1, 33}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int l = 0; l < 2; ++l)
            for (int a = 0; a < 4; ++a)
                for (int b = 0; b < 4; ++b) {
                    int lay = l ? ROW : COL, ta = all_trans[a], tb = all_trans[b];
                    int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                    int64_t ra, rb, rc;
                    gemm_required(lay, ta, tb, m, n, k, &ra, &rb, &rc);
                    GEMM(0, lay, ta, tb, m, n, k, 0, P, ra, P, rb, P, rc);
                    GEMM(0, lay, ta, tb, m, n, k, 0, P, ra + 9, P, rb + 1, P, rc + 100);
                    GEMM(9, lay, ta, tb, m, n, k, 0, P, ra - 1, P, rb, P, rc);
                    GEMM(11, lay, ta, tb, m, n, k, 0, P, ra, P, rb - 1, P, rc);
                    GEMM(14, lay, ta, tb, m, n, k, 0, P, ra, P, rb, P, rc - 1);
                    GEMM(9, lay, ta, tb, m, n, k, 0, P, -5, P, rb, P, rc);
                    GEMM(9, lay, ta, tb, m, n, k, 0, P, INT64_MIN, P, rb, P, rc);
                }
    /* the messages name the rule with its values */
    GEMM(9, COL, TR, NT, 2, 2, 7, 0, P, 3, P, 7, P, 2);
    CHECK(strcmp(last.message, "lda = 3 is less than max(1, K) = 7 (parameter 9)") == 0);
    GEMM(9, COL, NT, NT, 6, 2, 7, 0, P, 5, P, 7, P, 6);
    CHECK(strcmp(last.message, "lda = 5 is less than max(1, M) = 6 (parameter 9)") == 0);
    GEMM(11, COL, NT, CT, 6, 4, 7, 0, P, 6, P, 3, P, 6);
    CHECK(strcmp(last.message, "ldb = 3 is less than max(1, N) = 4 (parameter 11)") == 0);
    GEMM(14, COL, NT, NT, 0, 4, 7, 0, P, 1, P, 7, P, 0);
    CHECK(strcmp(last.message, "ldc = 0 is less than max(1, M) = 1 (parameter 14)") == 0);
    GEMM(9, ROW, NT, NT, 5, 7, 3, 0, P, 2, P, 7, P, 7);
    CHECK(strcmp(last.message, "lda = 2 is less than max(1, K) = 3 (parameter 9)") == 0);
    GEMM(9, ROW, TR, NT, 5, 7, 3, 0, P, 4, P, 7, P, 7);
    CHECK(strcmp(last.message, "lda = 4 is less than max(1, M) = 5 (parameter 9)") == 0);
    GEMM(11, ROW, NT, NT, 5, 7, 3, 0, P, 3, P, 6, P, 7);
    CHECK(strcmp(last.message, "ldb = 6 is less than max(1, N) = 7 (parameter 11)") == 0);
    GEMM(11, ROW, NT, TR, 5, 7, 3, 0, P, 3, P, 2, P, 7);
    CHECK(strcmp(last.message, "ldb = 2 is less than max(1, K) = 3 (parameter 11)") == 0);
    GEMM(14, ROW, NT, NT, 5, 7, 3, 0, P, 3, P, 7, P, 6);
    CHECK(strcmp(last.message, "ldc = 6 is less than max(1, N) = 7 (parameter 14)") == 0);
}

/* Small sizes and leading dimensions, all combinations, against reference CBLAS's checks. */
static void test_gemm_sweep(void) {
    const int64_t v[] = {-2, -1, 0, 1, 2, 3};
    const int nv = (int)(sizeof v / sizeof v[0]);
    for (int l = 0; l < 2; ++l)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                int lay = l ? ROW : COL, ta = all_trans[a], tb = all_trans[b];
                long mismatches = 0, calls = 0;
                for (int im = 0; im < nv; ++im)
                    for (int in = 0; in < nv; ++in)
                        for (int ik = 0; ik < nv; ++ik)
                            for (int ia = 0; ia < nv; ++ia)
                                for (int ib = 0; ib < nv; ++ib)
                                    for (int ic = 0; ic < nv; ++ic) {
                                        int64_t m = v[im], n = v[in], k = v[ik];
                                        int64_t lda = v[ia], ldb = v[ib], ldc = v[ic];
                                        int want =
                                            ref_cblas_gemm(lay, ta, tb, m, n, k, lda, ldb, ldc);
                                        mb_check_error e;
                                        int got = mb_check_gemm(lay, ta, tb, m, n, k, 0, P, lda,
                                                                P, ldb, 0, P, ldc, 8, &e);
                                        ++calls;
                                        if (got != want || e.param != want) {
                                            if (++mismatches <= 5)
                                                printf("%s:%d: FAILED: sweep gemm(%d,%d,%d, M=%" PRId64
                                                       " N=%" PRId64 " K=%" PRId64 " lda=%" PRId64
                                                       " ldb=%" PRId64 " ldc=%" PRId64
                                                       "): reference %d, got %d\n",
                                                       __FILE__, __LINE__, lay, ta, tb, m, n, k,
                                                       lda, ldb, ldc, want, got);
                                        }
                                    }
                CHECK(mismatches == 0 && calls == 46656);
            }
}

static void test_gemm_pointers(void) {
    for (int l = 0; l < 2; ++l)
        for (int a = 0; a < 4; ++a)
            for (int b = 0; b < 4; ++b) {
                int lay = l ? ROW : COL, ta = all_trans[a], tb = all_trans[b];
                /* data touched: every NULL is an error, first in parameter order */
                GEMM(8, lay, ta, tb, 4, 4, 4, 0, NULL, 4, P, 4, P, 4);
                GEMM(10, lay, ta, tb, 4, 4, 4, 0, P, 4, NULL, 4, P, 4);
                GEMM(13, lay, ta, tb, 4, 4, 4, 0, P, 4, P, 4, NULL, 4);
                GEMM(8, lay, ta, tb, 4, 4, 4, 0, NULL, 4, NULL, 4, NULL, 4);
                GEMM(10, lay, ta, tb, 4, 4, 4, 0, P, 4, NULL, 4, NULL, 4);
                GEMM(8, lay, ta, tb, 1, 1, 1, 0, NULL, 1, P, 1, P, 1);
                /* alpha == 0: A and B are not read, C still written */
                GEMM(0, lay, ta, tb, 4, 4, 4, 1, NULL, 4, NULL, 4, P, 4);
                GEMM(13, lay, ta, tb, 4, 4, 4, 1, NULL, 4, NULL, 4, NULL, 4);
                /* K == 0: A and B are not read, C is scaled */
                GEMM(0, lay, ta, tb, 4, 4, 0, 0, NULL, 4, NULL, 4, P, 4);
                GEMM(13, lay, ta, tb, 4, 4, 0, 0, NULL, 4, NULL, 4, NULL, 4);
                /* M == 0 or N == 0: nothing is touched */
                GEMM(0, lay, ta, tb, 0, 4, 4, 0, NULL, 4, NULL, 4, NULL, 4);
                GEMM(0, lay, ta, tb, 4, 0, 4, 0, NULL, 4, NULL, 4, NULL, 4);
                GEMM(0, lay, ta, tb, 0, 0, 0, 0, NULL, 1, NULL, 1, NULL, 1);
            }
    GEMM(8, COL, NT, NT, 4, 4, 4, 0, NULL, 4, P, 4, P, 4);
    MSG_HAS("A");
    GEMM(10, ROW, NT, NT, 4, 4, 4, 0, P, 4, NULL, 4, P, 4);
    MSG_HAS("B");
    GEMM(13, COL, NT, NT, 4, 4, 4, 0, P, 4, P, 4, NULL, 4);
    MSG_HAS("C");
    /* beta does not matter: C is written whenever M, N > 0 */
    mb_check_error e;
    CHECK(mb_check_gemm(COL, NT, NT, 2, 2, 2, 0, P, 2, P, 2, 1, NULL, 2, 4, &e) == 13);
    CHECK(mb_check_gemm(COL, NT, NT, 2, 2, 2, 0, P, 2, P, 2, 0, NULL, 2, 4, &e) == 13);
}

static void test_gemm_overflow(void) {
    const int64_t big = (int64_t)1 << 62, max = INT64_MAX;
    /* A's element extent lda * (K - 1) + M overflows */
    GEMM(9, COL, NT, NT, 1, 1, big, 0, P, 4, P, big, P, 1);
    MSG_HAS("A");
    MSG_HAS("overflow");
    GEMM(9, COL, TR, NT, big, 1, 1, 0, P, 1, P, 1, P, big); /* A^T stored K x M */
    GEMME(0, 1, COL, TR, NT, 2, 1, 1, 0, P, 1, P, 1, P, 2);
    /* B's extent ldb * (N - 1) + K overflows; A and C fit (element size 1) */
    GEMME(11, 1, COL, NT, NT, 1, big, 1, 0, P, 1, P, 4, P, 1);
    MSG_HAS("B");
    /* C's extent alone: A and B are not touched when alpha == 0 or K == 0 */
    GEMM(14, COL, NT, NT, 2, big, 1, 1, NULL, 2, NULL, 1, P, 4);
    MSG_HAS("C");
    GEMM(14, COL, NT, NT, 2, big, 0, 0, NULL, 2, NULL, 1, P, 4);
    GEMM(14, ROW, NT, NT, big, 2, 0, 0, NULL, 1, NULL, 2, P, 4);
    /* byte extent only: 2^61 + 1 elements fit, 8 bytes each do not */
    int64_t e61 = ((int64_t)1 << 61) + 1;
    GEMME(9, 8, COL, NT, NT, 1, 1, e61, 0, P, 1, P, e61, P, 1);
    MSG_HAS("byte");
    GEMME(0, 1, COL, NT, NT, 1, 1, e61, 0, P, 1, P, e61, P, 1);
    GEMME(0, 2, COL, NT, NT, 1, 1, e61, 0, P, 1, P, e61, P, 1);
    GEMME(9, 4, COL, NT, NT, 1, 1, e61, 0, P, 1, P, e61, P, 1);
    /* 32-bit sizes whose byte extent overflows: (2^31 - 1)^2 elements of 8 bytes (the fast
       form of the cblas layer must not accept these either) */
    const int64_t l31 = ((int64_t)1 << 31) - 1;
    GEMME(9, 8, COL, NT, NT, 1, 1, l31, 0, P, l31, P, l31, P, 1);
    MSG_HAS("byte");
    GEMME(9, 8, ROW, NT, NT, l31, 1, 1, 0, P, l31, P, 1, P, 1); /* A stored M x K, lda >= K */
    /* the largest extent that fits: lda * 1 + 1 == INT64_MAX */
    GEMME(0, 1, COL, NT, NT, 1, 1, 2, 0, P, max - 1, P, 2, P, 1);
    GEMME(9, 1, COL, NT, NT, 1, 1, 2, 0, P, max, P, 2, P, 1);
    GEMME(9, 2, COL, NT, NT, 1, 1, 2, 0, P, max - 1, P, 2, P, 1);
    /* a huge leading dimension with one stored column is fine */
    GEMM(0, COL, NT, NT, 1, 1, 1, 0, P, max, P, max, P, max);
    GEMM(0, ROW, TR, TR, 1, 1, 1, 0, P, max, P, max, P, max);
    /* INT64_MAX sizes */
    GEMME(0, 1, COL, NT, NT, max, 1, 1, 0, P, max, P, 1, P, max);
    GEMM(9, COL, NT, NT, max, 1, 1, 0, P, max, P, 1, P, max);
    GEMM(9, COL, NT, NT, max, max, max, 0, P, max, P, max, P, max);
    GEMM(14, COL, NT, NT, max, max, max, 1, P, max, P, max, P, max);
    GEMM(0, COL, NT, NT, 0, max, max, 0, NULL, 1, NULL, max, NULL, 1); /* M = 0: nothing */
    /* row-major: A stored K x M (NoTrans) with lda >= K */
    GEMM(9, ROW, NT, NT, big, 1, 1, 0, P, 4, P, 1, P, 1);
    GEMME(0, 1, ROW, NT, NT, 3, 1, 1, 0, P, 4, P, 1, P, 1);
    GEMME(11, 1, ROW, NT, NT, 1, 2, big, 0, P, big, P, 4, P, 2); /* B: ldb * (K - 1) + N */
    GEMME(0, 1, ROW, NT, NT, 1, big, 1, 0, P, 1, P, big, P, big);
    GEMME(11, 1, ROW, NT, TR, 1, big, 2, 0, P, 2, P, big, P, big); /* B^T: ldb * (N - 1) + K */
    GEMME(0, 1, ROW, NT, TR, 1, big, 1, 0, P, 1, P, 1, P, big);
    GEMME(14, 1, ROW, NT, NT, 2, 3, 1, 0, P, 1, P, 3, P, max);  /* C: M rows of ldc */
    GEMME(0, 1, ROW, NT, NT, 1, 3, 1, 0, P, 1, P, 3, P, max);
    /* untouched matrices are not checked */
    GEMM(0, COL, NT, NT, 1, 1, big, 1, P, 4, P, big, P, 1);
    GEMM(0, COL, NT, NT, 0, 1, big, 0, P, 4, P, big, P, 1);
}

/* ------------------------------------------------------------------ omatcopy */

static void test_omatcopy(void) {
    const int bad_layout[] = {0, -1, 100, 103};
    for (size_t i = 0; i < 4; ++i) OMAT(1, bad_layout[i], NT, 2, 2, P, 2, P, 2);
    OMAT(1, 0, 0, -1, -1, NULL, 0, NULL, 0);
    MSG_HAS("layout");
    const int bad_trans[] = {0, -1, 110, 115, 'T'};
    for (size_t i = 0; i < 5; ++i) {
        OMAT(2, COL, bad_trans[i], 2, 2, P, 2, P, 2);
        OMAT(2, ROW, bad_trans[i], -1, -1, NULL, 0, NULL, 0);
    }
    for (int l = 0; l < 2; ++l) {
        int lay = l ? ROW : COL;
        OMAT(3, lay, NT, -1, 2, P, 2, P, 2);
        OMAT(4, lay, NT, 2, -1, P, 2, P, 2);
        OMAT(3, lay, TR, -1, -1, P, 2, P, 2);
        OMAT(3, lay, TR, INT64_MIN, 2, NULL, 0, NULL, 0);
        OMAT(4, lay, TR, 2, -5, NULL, 0, NULL, 0);
    }
    /* leading dimensions, rows = 5, cols = 3 (and the reverse), every layout and transpose */
    const int64_t shapes[][2] = {{5, 3}, {3, 5}, {1, 1}, {0, 4}, {4, 0}, {0, 0}, {1, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s)
        for (int l = 0; l < 2; ++l)
            for (int a = 0; a < 4; ++a) {
                int lay = l ? ROW : COL, t = all_trans[a];
                int64_t r = shapes[s][0], c = shapes[s][1];
                int64_t ra = imax1(lay == COL ? r : c);
                int64_t rb = imax1(lay == COL ? (is_nt(t) ? r : c) : (is_nt(t) ? c : r));
                OMAT(0, lay, t, r, c, P, ra, P, rb);
                OMAT(0, lay, t, r, c, P, ra + 3, P, rb + 17);
                OMAT(7, lay, t, r, c, P, ra - 1, P, rb);
                OMAT(9, lay, t, r, c, P, ra, P, rb - 1);
                OMAT(7, lay, t, r, c, P, ra - 1, P, rb - 1); /* lda first */
                OMAT(7, lay, t, r, c, NULL, ra - 1, NULL, rb);
                OMAT(9, lay, t, r, c, NULL, ra, NULL, rb - 1);
                /* NULL pointers: only when there is data */
                int touched = r > 0 && c > 0;
                OMAT(touched ? 6 : 0, lay, t, r, c, NULL, ra, P, rb);
                OMAT(touched ? 8 : 0, lay, t, r, c, P, ra, NULL, rb);
                OMAT(touched ? 6 : 0, lay, t, r, c, NULL, ra, NULL, rb);
            }
    OMAT(7, COL, NT, 5, 3, P, 4, P, 5);
    CHECK(strcmp(last.message, "lda = 4 is less than max(1, rows) = 5 (parameter 7)") == 0);
    OMAT(7, ROW, NT, 5, 3, P, 2, P, 3);
    CHECK(strcmp(last.message, "lda = 2 is less than max(1, cols) = 3 (parameter 7)") == 0);
    OMAT(9, COL, TR, 5, 3, P, 5, P, 2);
    CHECK(strcmp(last.message, "ldb = 2 is less than max(1, cols) = 3 (parameter 9)") == 0);
    OMAT(9, ROW, TR, 5, 3, P, 3, P, 4);
    CHECK(strcmp(last.message, "ldb = 4 is less than max(1, rows) = 5 (parameter 9)") == 0);
    OMAT(9, ROW, CT, 5, 3, P, 3, P, 4);
    OMAT(9, COL, CN, 5, 3, P, 5, P, 4);
    OMAT(6, COL, NT, 5, 3, NULL, 5, P, 5);
    MSG_HAS("A");
    OMAT(8, COL, NT, 5, 3, P, 5, NULL, 5);
    MSG_HAS("B");
    /* zero sizes are a valid no-op (OpenBLAS rejects them; we do not) */
    OMAT(0, COL, NT, 0, 3, NULL, 1, NULL, 1);
    OMAT(0, ROW, TR, 3, 0, NULL, 1, NULL, 3);
    OMAT(7, COL, NT, 0, 3, NULL, 0, NULL, 1); /* but ld >= 1 still holds */

    /* sweep against the column-major problem of src/api.c */
    const int64_t v[] = {-1, 0, 1, 2, 3, 4};
    long mismatches = 0;
    for (int l = 0; l < 2; ++l)
        for (int a = 0; a < 4; ++a)
            for (int ir = 0; ir < 6; ++ir)
                for (int ic = 0; ic < 6; ++ic)
                    for (int ia = 0; ia < 6; ++ia)
                        for (int ib = 0; ib < 6; ++ib) {
                            int lay = l ? ROW : COL, t = all_trans[a];
                            int want = ref_omatcopy(lay, t, v[ir], v[ic], v[ia], v[ib]);
                            mb_check_error e;
                            int got = mb_check_omatcopy(lay, t, v[ir], v[ic], P, v[ia], P, v[ib],
                                                        8, &e);
                            if ((got != want || e.param != want) && ++mismatches <= 5)
                                printf("%s:%d: FAILED: sweep omatcopy(%d,%d, %" PRId64 " x %" PRId64
                                       " lda=%" PRId64 " ldb=%" PRId64 "): model %d, got %d\n",
                                       __FILE__, __LINE__, lay, t, v[ir], v[ic], v[ia], v[ib],
                                       want, got);
                            omat_fast_vs_full(__FILE__, __LINE__, "sweep omatcopy", got, lay, t,
                                              v[ir], v[ic], P, v[ia], P, v[ib]);
                        }
    CHECK(mismatches == 0);

    /* overflow */
    const int64_t big = (int64_t)1 << 62, max = INT64_MAX;
    OMAT(7, COL, NT, 1, big, P, 4, P, 1);        /* A: lda * (cols - 1) + rows */
    MSG_HAS("A");
    MSG_HAS("overflow");
    OMATE(9, 1, COL, NT, 1, big, P, 1, P, 4);    /* B only (element size 1) */
    MSG_HAS("B");
    OMATE(0, 1, COL, NT, 1, big, P, 1, P, 1);
    OMATE(7, 8, COL, NT, 1, big, P, 1, P, 1);    /* bytes */
    {   /* 32-bit sizes whose byte extent overflows: (2^31 - 1)^2 doubles */
        const int64_t l31 = ((int64_t)1 << 31) - 1;
        OMATE(7, 8, COL, NT, 1, l31, P, l31, P, 1);
        OMATE(9, 8, COL, NT, 1, l31, P, 1, P, l31);
    }
    MSG_HAS("byte");
    OMATE(9, 1, COL, TR, 3, big / 4, P, 3, P, big); /* B^T: ldb * (rows - 1) + cols */
    OMATE(0, 1, COL, TR, 3, big / 4, P, 3, P, big / 2);
    OMATE(0, 1, COL, TR, 1, big, P, 1, P, big);
    OMAT(7, ROW, NT, big, 1, P, 4, P, 4);        /* row-major A: lda * (rows - 1) + cols */
    OMATE(0, 1, ROW, NT, big, 1, P, 1, P, 1);
    OMATE(0, 1, ROW, NT, big, 1, P, 1, P, 2);     /* 2 * (2^62 - 1) + 1 == INT64_MAX fits */
    OMATE(9, 1, ROW, NT, big, 1, P, 1, P, 3);
    OMATE(9, 1, ROW, TR, 1, big, P, big, P, 3);  /* row-major B^T: cols rows of ldb */
    OMATE(0, 1, ROW, TR, 1, big, P, big, P, 1);
    OMAT(0, COL, NT, 1, 1, P, max, P, max);      /* one column: ld is never multiplied */
    OMATE(0, 1, COL, NT, 1, 2, P, max - 1, P, 1);
    OMATE(7, 1, COL, NT, 1, 2, P, max, P, 1);
    OMAT(0, COL, NT, 0, big, NULL, 4, NULL, 4);  /* nothing touched: nothing to overflow */
}

/* ------------------------------------------------------------------ asum, dot */

static void test_asum(void) {
    const int64_t big = (int64_t)1 << 62, max = INT64_MAX;
    ASUM(0, 10, P, 1, P);
    ASUM(0, 10, P, 7, P);
    ASUM(0, 1, P, max, P);
    /* result: always needed */
    ASUM(4, 10, P, 1, NULL);
    MSG_HAS("result");
    ASUM(4, 0, NULL, 1, NULL);
    ASUM(4, -3, NULL, -1, NULL);
    /* x: only read when n > 0 and incx > 0 */
    ASUM(2, 10, NULL, 1, P);
    MSG_HAS("x");
    ASUM(2, 10, NULL, 1, NULL); /* first in parameter order */
    ASUM(0, 0, NULL, 1, P);
    ASUM(0, -5, NULL, 1, P);
    ASUM(0, 10, NULL, 0, P);
    ASUM(0, 10, NULL, -1, P);
    ASUM(0, 10, NULL, INT64_MIN, P);
    ASUM(0, INT64_MIN, NULL, INT64_MIN, P);
    ASUM(0, 10, P, 0, P);   /* incx <= 0 is valid: the result is 0 */
    ASUM(0, 10, P, -3, P);
    /* overflow of (n - 1) * incx + 1 elements and of the bytes */
    ASUM(3, big, P, 4, P);
    MSG_HAS("overflow");
    ASUM(3, 2, P, max, P);
    ASUME(0, 1, 2, P, max - 1, P);  /* extent exactly INT64_MAX */
    ASUME(0, 1, max, P, 1, P);
    ASUM(3, max, P, 1, P);
    ASUME(3, 8, big, P, 1, P);      /* 2^62 elements fit, 2^65 bytes do not */
    MSG_HAS("byte");
    ASUME(0, 1, big, P, 1, P);
    ASUME(0, 2, big - 1, P, 1, P);
    ASUM(0, big, P, 0, P);          /* incx <= 0: nothing read, nothing to overflow */
    ASUM(0, max, P, -max, P);
}

static void test_dot(void) {
    const int64_t big = (int64_t)1 << 62, max = INT64_MAX;
    const int64_t incs[] = {1, 2, 0, -1, -3, 1000};
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
            DOT(0, 10, P, incs[i], P, incs[j], P);   /* every increment is valid */
            DOT(2, 10, NULL, incs[i], P, incs[j], P);
            DOT(4, 10, P, incs[i], NULL, incs[j], P);
            DOT(6, 10, P, incs[i], P, incs[j], NULL);
            DOT(2, 10, NULL, incs[i], NULL, incs[j], NULL);
            DOT(0, 0, NULL, incs[i], NULL, incs[j], P); /* n <= 0: nothing read */
            DOT(0, -4, NULL, incs[i], NULL, incs[j], P);
            DOT(6, 0, NULL, incs[i], NULL, incs[j], NULL);
        }
    DOT(2, 3, NULL, 1, P, 1, P);
    MSG_HAS("x");
    DOT(4, 3, P, 1, NULL, 1, P);
    MSG_HAS("y");
    DOT(6, 3, P, 1, P, 1, NULL);
    MSG_HAS("result");
    /* overflow of (n - 1) * |inc| + 1 elements and of the bytes */
    DOT(3, big, P, 4, P, 1, P);
    MSG_HAS("x");
    MSG_HAS("overflow");
    DOT(3, big, P, -4, P, 1, P);
    DOTE(5, 1, big, P, 1, P, 4, P);
    DOTE(5, 1, big, P, 1, P, -4, P);
    MSG_HAS("y");
    DOT(3, big, P, -4, P, -4, P);   /* x first */
    DOT(3, 2, P, INT64_MIN, P, 1, P);   /* |INT64_MIN| does not fit */
    DOT(5, 2, P, 1, P, INT64_MIN, P);
    DOTE(3, 1, 2, P, INT64_MIN, P, 1, P);  /* even with 1-byte elements */
    DOTE(5, 1, 2, P, 1, P, INT64_MIN, P);
    DOT(3, 2, P, -max, P, 1, P);        /* max + 1 elements */
    DOTE(0, 1, 2, P, -(max - 1), P, max - 1, P); /* exactly INT64_MAX */
    DOT(0, 1, P, INT64_MIN, P, INT64_MIN, P);   /* n == 1: the increment is never used */
    DOT(0, 1, P, max, P, -max, P);
    DOT(0, max, P, 0, P, 0, P);         /* a zero increment reads element 0 only */
    DOTE(0, 8, max, P, 0, P, 0, P);
    DOTE(3, 8, big, P, 1, P, 1, P);     /* bytes */
    MSG_HAS("byte");
    DOTE(5, 8, big, P, 0, P, -1, P);
    DOTE(0, 1, big, P, -1, P, 1, P);
}

/* Logical element 0 of a vector (src/api.c: x + mb_vector_start(n, incx)). The native dot with
 * n == 1 and an increment of INT64_MIN used to negate the increment (signed overflow); the
 * offset must be 0 there without negating, and (n - 1) * -inc, computed exactly, wherever the
 * check accepts the vector. */
static void test_vector_start(void) {
    const int64_t max = INT64_MAX;
    CHECK(mb_vector_start(1, INT64_MIN) == 0);
    CHECK(mb_vector_start(0, INT64_MIN) == 0);
    CHECK(mb_vector_start(-3, INT64_MIN) == 0);
    CHECK(mb_vector_start(INT64_MIN, -1) == 0);
    CHECK(mb_vector_start(1, -max) == 0);
    CHECK(mb_vector_start(5, 0) == 0 && mb_vector_start(5, 7) == 0);
    CHECK(mb_vector_start(3, -2) == 4);
    CHECK(mb_vector_start(2, -(max - 1)) == max - 1);
    CHECK(mb_vector_start(max, -1) == max - 1);
    const int64_t ns[] = {INT64_MIN, -1, 0, 1, 2, 3, 1000, (int64_t)1 << 31, (int64_t)1 << 40,
                          max / 2, max - 1, max};
    const int64_t incs[] = {INT64_MIN, INT64_MIN + 1, -max / 2, -((int64_t)1 << 32), -1000, -2,
                            -1, 0, 1, 2, max};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; ++i)
        for (size_t j = 0; j < sizeof incs / sizeof incs[0]; ++j) {
            const int64_t n = ns[i], inc = incs[j];
            if (mb_check_dot(n, P, inc, P, 1, P, 1, NULL) != 0) continue; /* never reaches it */
            __int128 want = (n > 1 && inc < 0) ? (__int128)(n - 1) * -(__int128)inc : 0;
            CHECKF(want <= max && (__int128)mb_vector_start(n, inc) == want,
                   "n=%" PRId64 " inc=%" PRId64, n, inc);
        }
}

static void test_valid_clears(void) {
    mb_check_error e;
    CHECK(mb_check_gemm(COL, NT, NT, -1, 1, 1, 0, P, 1, P, 1, 0, P, 1, 4, &e) == 4);
    CHECK(e.param == 4 && e.message[0] != '\0');
    CHECK(mb_check_gemm(COL, NT, NT, 1, 1, 1, 0, P, 1, P, 1, 0, P, 1, 4, &e) == 0);
    CHECK(e.param == 0 && e.message[0] == '\0');
    CHECK(mb_check_asum(1, NULL, 1, P, 4, &e) == 2);
    CHECK(mb_check_asum(1, P, 1, P, 4, &e) == 0 && e.param == 0 && e.message[0] == '\0');
    CHECK(mb_check_dot(1, P, 1, NULL, 1, P, 4, &e) == 4);
    CHECK(mb_check_dot(1, P, 1, P, 1, P, 4, &e) == 0 && e.param == 0 && e.message[0] == '\0');
    CHECK(mb_check_omatcopy(COL, NT, 1, 1, P, 0, P, 1, 4, &e) == 7);
    CHECK(mb_check_omatcopy(COL, NT, 1, 1, P, 1, P, 1, 4, &e) == 0 && e.param == 0 &&
          e.message[0] == '\0');
    /* the longest messages still end with their parameter number */
    CHECK(mb_check_gemm(COL, NT, NT, INT64_MAX, INT64_MAX, INT64_MAX, 0, P, INT64_MAX, P,
                        INT64_MAX, 0, P, INT64_MAX, 8, &e) == 9);
    CHECK(strstr(e.message, "(parameter 9)") != NULL && strlen(e.message) < sizeof e.message);
}

int main(void) {
    test_trans_code();
    test_gemm_enums();
    test_gemm_sizes_and_order();
    test_gemm_ld_bounds();
    test_gemm_sweep();
    test_gemm_pointers();
    test_gemm_overflow();
    test_omatcopy();
    test_asum();
    test_dot();
    test_vector_start();
    test_valid_clears();
    return cpu_check_report("check");
}
