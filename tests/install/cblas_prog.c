/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A plain cblas.h program: it knows nothing about miniblas. tests/install/run.sh links it
 * against the installed libminiblas_cblas alone, and runs an OpenBLAS build of it with
 * LD_PRELOAD=<prefix>/lib/libminiblas_cblas.so. Results are compared with plain loops. With
 * MINIBLAS_EXPECTED=1 in the environment, the miniblas layer must be the one answering.
 */
#define _GNU_SOURCE
#include <cblas.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fails;
static void check(const char *what, double got, double want, double tol) {
    int ok = fabs(got - want) <= tol;
    if (!ok) ++fails;
    printf("%-10s %.10g (expected %.10g) %s\n", what, got, want, ok ? "ok" : "FAIL");
}

int main(void) {
    enum { M = 23, N = 19, K = 31, L = 1001 };
    static double A[M * K], B[K * N], C[M * N], x[L], y[L];
    static float As[M * K], Bs[K * N], Cs[M * N], xs[L], ys[L];
    for (int i = 0; i < M * K; ++i) As[i] = (float)(A[i] = ((i * 37) % 61) / 30.0 - 1.0);
    for (int i = 0; i < K * N; ++i) Bs[i] = (float)(B[i] = ((i * 53) % 67) / 33.0 - 1.0);
    for (int i = 0; i < L; ++i) {
        xs[i] = (float)(x[i] = ((i * 29) % 71) / 35.0 - 1.0);
        ys[i] = (float)(y[i] = ((i * 31) % 73) / 36.0 - 1.0);
    }
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.5, A, K, B, N, 0.0, C, N);
    cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, M, N, K, -1.0f, As, K, Bs, K, 0.0f, Cs,
                M);
    double md = 0, ms = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            double s = 0, t = 0;
            for (int l = 0; l < K; ++l) {
                s += A[i * K + l] * B[l * N + j];
                t += (double)As[l + i * K] * Bs[l + j * K];
            }
            md = fmax(md, fabs(C[i * N + j] - 1.5 * s));
            ms = fmax(ms, fabs(Cs[i + j * M] + t));
        }
    check("dgemm err", md, 0, 1e-12);
    check("sgemm err", ms, 0, 1e-4);
    double sa = 0, sd = 0;
    for (int i = 0; i < L; ++i) sa += fabs(x[i]), sd += x[i] * y[i];
    check("dasum", cblas_dasum(L, x, 1), sa, 1e-11);
    check("ddot", cblas_ddot(L, x, 1, y, 1), sd, 1e-11);
    check("sasum", cblas_sasum(L, xs, 1), sa, 1e-3);
    check("sdot", cblas_sdot(L, xs, 1, ys, 1), sd, 1e-3);
    void *layer = dlsym(RTLD_DEFAULT, "miniblas_cblas_gpu_available");
    printf("miniblas cblas layer: %s\n", layer ? "present" : "absent");
    const char *e = getenv("MINIBLAS_EXPECTED");
    if (e && atoi(e) == 1 && !layer) {
        printf("FAIL: the calls did not go through libminiblas_cblas\n");
        ++fails;
    }
    printf(fails ? "FAILED\n" : "OK\n");
    return fails ? 1 : 0;
}
