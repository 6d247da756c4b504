/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A plain cblas.h program (it knows nothing about miniblas). Built three ways by the test
 * `cblas_example` (tests/cblas.cmake): against OpenBLAS alone, relinked with libminiblas_cblas
 * first, and the OpenBLAS build run with LD_PRELOAD=libminiblas_cblas.so. compare.sh checks
 * that the three outputs agree.
 *
 * Each output line is:  name  value  scale  tol
 * and two runs agree on a line when |value1 - value2| <= tol * scale. scale bounds the sum of
 * the magnitudes that went into the value (e.g. |alpha| sum_l |a_il b_lj| + |beta c_ij| for a
 * gemm element), tol is a multiple of the unit roundoff times the length of the sums, so any
 * two correct BLAS (CPU or GPU, any summation order) agree, and a wrong element does not.
 *
 *   cc cblas_example.c -lopenblas -lm                 (or -lminiblas_cblas -lopenblas -lm)
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long g_state = 0x2545F4914F6CDD1Dull;
static double rnd(void) { /* uniform in [-1, 1) */
    g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(g_state >> 11) / 4503599627370496.0 - 1.0;
}

static void line(const char *name, double value, double scale, double tol) {
    printf("%-28s % .17e %.6e %.3e\n", name, value, scale, tol);
}

int main(void) {
    const double feps = 5.960464477539063e-08, deps = 1.1102230246251565e-16;

    /* ---- sgemm, row-major, C = A * B^T + 0.5 C, n = 2048 (large enough for the GPU) ---- */
    {
        const int n = 2048;
        const float alpha = 1.0f, beta = 0.5f;
        float *A = malloc(sizeof(float) * n * n), *B = malloc(sizeof(float) * n * n);
        float *C = malloc(sizeof(float) * n * n), *C0 = malloc(sizeof(float) * n * n);
        for (long i = 0; i < (long)n * n; ++i) {
            A[i] = (float)rnd();
            B[i] = (float)rnd();
            C[i] = C0[i] = (float)rnd();
        }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, alpha, A, n, B, n, beta, C, n);
        double tol = 2.0 * (n + 2) * feps;
        /* sampled elements, each with its own scale */
        for (int s = 0; s < 48; ++s) {
            int i = (int)((rnd() + 1) / 2 * n), j = (int)((rnd() + 1) / 2 * n);
            double sc = fabs(beta * C0[(long)i * n + j]);
            for (int l = 0; l < n; ++l) sc += fabs(alpha * A[(long)i * n + l] * B[(long)j * n + l]);
            char name[40];
            snprintf(name, sizeof name, "sgemm.C[%d,%d]", i, j);
            line(name, C[(long)i * n + j], sc, tol);
        }
        /* w^T C v and sum |C|: scales from column sums, O(n^2) */
        double *w = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
        double *wa = calloc(n, sizeof(double)), *bv = calloc(n, sizeof(double));
        for (int i = 0; i < n; ++i) w[i] = rnd(), v[i] = rnd();
        double wcv = 0, sabs = 0, sc_wcv = 0, sc_abs = 0;
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double c = C[(long)i * n + j];
                wcv += w[i] * c * v[j];
                sabs += fabs(c);
                sc_wcv += fabs(w[i] * beta * C0[(long)i * n + j] * v[j]);
                sc_abs += fabs(beta * C0[(long)i * n + j]);
            }
        /* sum_ij |w_i| |a_il| |b_jl| |v_j| = sum_l (sum_i |w_i a_il|)(sum_j |b_jl v_j|) */
        double *ca = calloc(n, sizeof(double)), *cb = calloc(n, sizeof(double));
        for (int i = 0; i < n; ++i)
            for (int l = 0; l < n; ++l) {
                wa[l] += fabs(w[i] * A[(long)i * n + l]);
                bv[l] += fabs(B[(long)i * n + l] * v[i]);
                ca[l] += fabs(A[(long)i * n + l]);
                cb[l] += fabs(B[(long)i * n + l]);
            }
        for (int l = 0; l < n; ++l) sc_wcv += fabs(alpha) * wa[l] * bv[l], sc_abs += fabs(alpha) * ca[l] * cb[l];
        line("sgemm.wCv", wcv, sc_wcv, tol);
        line("sgemm.sum|C|", sabs, sc_abs, tol);
        free(A), free(B), free(C), free(C0), free(w), free(v), free(wa), free(bv), free(ca), free(cb);
    }

    /* ---- dgemm, column-major, C = -0.5 A^T B (beta = 0: C's NaNs must not survive) ---- */
    {
        const int m = 600, n = 500, k = 700, lda = k + 3, ldb = k + 1, ldc = m + 5;
        double *A = malloc(sizeof(double) * lda * m), *B = malloc(sizeof(double) * ldb * n);
        double *C = malloc(sizeof(double) * ldc * n);
        for (long i = 0; i < (long)lda * m; ++i) A[i] = rnd();
        for (long i = 0; i < (long)ldb * n; ++i) B[i] = rnd();
        for (long i = 0; i < (long)ldc * n; ++i) C[i] = NAN;
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, m, n, k, -0.5, A, lda, B, ldb, 0.0, C, ldc);
        double tol = 2.0 * (k + 2) * deps, sabs = 0, sc = 0;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) sabs += fabs(C[i + (long)j * ldc]);
        for (int s = 0; s < 32; ++s) {
            int i = (int)((rnd() + 1) / 2 * m), j = (int)((rnd() + 1) / 2 * n);
            double e = 0;
            for (int l = 0; l < k; ++l) e += fabs(0.5 * A[l + (long)i * lda] * B[l + (long)j * ldb]);
            char name[40];
            snprintf(name, sizeof name, "dgemm.C[%d,%d]", i, j);
            line(name, C[i + (long)j * ldc], e, tol);
        }
        sc = 0.5 * k * (double)m * n; /* |a|, |b| < 1 */
        line("dgemm.sum|C|", sabs, sc, tol);
        free(A), free(B), free(C);
    }

    /* ---- asum and dot, unit and non-unit (negative) increments ---- */
    {
        const int n = 1 << 20;
        float *xs = malloc(sizeof(float) * 3 * n), *ys = malloc(sizeof(float) * 3 * n);
        double *xd = malloc(sizeof(double) * 3 * n), *yd = malloc(sizeof(double) * 3 * n);
        double s1 = 0, s3 = 0, d1 = 0, dsd = 0;
        for (long i = 0; i < 3L * n; ++i) {
            xs[i] = (float)rnd(), ys[i] = (float)rnd();
            xd[i] = rnd(), yd[i] = rnd();
        }
        for (long i = 0; i < n; ++i) {
            s1 += fabs(xs[i]);
            s3 += fabs(xd[3 * i]);
            d1 += fabs((double)xs[i] * ys[i]);
            dsd += fabs(xd[3 * i] * yd[2 * i]);
        }
        line("sasum", cblas_sasum(n, xs, 1), s1, 2.0 * n * feps);
        line("dasum.inc3", cblas_dasum(n, xd, 3), s3, 2.0 * n * deps);
        line("sdot", cblas_sdot(n, xs, 1, ys, 1), d1, 2.0 * n * feps);
        line("ddot.inc3.incm2", cblas_ddot(n, xd, 3, yd, -2), dsd, 2.0 * n * deps);
        /* a BLAS function miniblas does not provide: still the program's own BLAS */
        cblas_saxpy(n, 2.0f, xs, 1, ys, 1);
        line("saxpy(openblas).sasum", cblas_sasum(n, ys, 1), 3.0 * n, 4.0 * n * feps);
        free(xs), free(ys), free(xd), free(yd);
    }

    /* ---- omatcopy: B = 2 A^T (row-major float), B = -A (column-major double) ---- */
    {
        const int rows = 1000, cols = 700;
        float *A = malloc(sizeof(float) * rows * cols), *B = malloc(sizeof(float) * rows * cols);
        double *Ad = malloc(sizeof(double) * rows * cols), *Bd = malloc(sizeof(double) * rows * cols);
        for (long i = 0; i < (long)rows * cols; ++i) A[i] = (float)rnd(), Ad[i] = rnd();
        cblas_somatcopy(CblasRowMajor, CblasTrans, rows, cols, 2.0f, A, cols, B, rows);
        cblas_domatcopy(CblasColMajor, CblasNoTrans, rows, cols, -1.0, Ad, rows, Bd, rows);
        double wsum = 0, wabs = 0, dsum = 0, dabs = 0;
        for (int i = 0; i < rows; ++i)
            for (int j = 0; j < cols; ++j) {
                double wgt = 1.0 + (i * 7 + j * 13) % 17; /* catches misplaced elements */
                wsum += wgt * B[(long)j * rows + i];    /* B is cols x rows, row-major */
                wabs += wgt * fabs(B[(long)j * rows + i]);
                dsum += wgt * Bd[i + (long)j * rows];
                dabs += wgt * fabs(Bd[i + (long)j * rows]);
            }
        line("somatcopy.weighted", wsum, wabs, 4 * feps);
        line("domatcopy.weighted", dsum, dabs, 4 * deps);
        free(A), free(B), free(Ad), free(Bd);
    }
    return 0;
}
