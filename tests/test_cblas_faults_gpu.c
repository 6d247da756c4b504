/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libminiblas_cblas when things go wrong on a GPU machine (exits 77 without a GPU). Each case
 * runs in a child process of its own (this program re-executed with the case's name and
 * environment), whose exit status and stderr the parent judges:
 *   midgemm N  a staged gemm fails after N of its GPU gemms (MINIBLAS_CBLAS_TEST_FAIL_GEMM, a
 *              real failure of the handle): host C is finished right on the CPU BLAS (beta 0
 *              and not, pinned C with beta 0 too); device C, or pinned C with beta 0 beside a
 *              device operand, is reported through cblas_xerbla as undefined; the verbose
 *              notice keeps the cause (the handle's message);
 *   sticky     after a sticky CUDA error made by another kernel (an illegal address), calls on
 *              device pointers are refused through cblas_xerbla, nothing written, no crash,
 *              and host calls still give right answers;
 *   atexit     an atexit handler calling cblas_sdot on device memory and on host memory while
 *              the process exits: refused / right, no crash;
 *   fork       the child of a process that used the GPU path computes right on the CPU path,
 *              refuses device pointers, never hangs; the parent keeps its GPU;
 *   rungenv    MINIBLAS_SGEMM naming no rung: said once on stderr at initialisation (without
 *              MINIBLAS_CBLAS_VERBOSE), device-pointer sgemm refused through cblas_xerbla.
 * Links libminiblas_cblas (not OpenBLAS: the layer dlopens it) and libminiblas (the kernel that
 * makes the sticky error); references are plain C loops in double.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cblas.h>
#include "miniblas.h"
#include "miniblas_cblas.h"

#include "cpu_check.h"

/* The program's cblas_xerbla: records the call (the layer then prints nothing). */
static int x_calls, x_param;
static char x_msg[1024];
void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    (void)rout;
    va_list ap;
    va_start(ap, form);
    ++x_calls;
    x_param = p;
    vsnprintf(x_msg, sizeof x_msg, form, ap);
    va_end(ap);
}
static void x_reset(void) { x_calls = 0, x_param = -1, x_msg[0] = '\0'; }

static uint64_t g_seed = 0x9E3779B97F4A7C15ull;
static float frand(void) {
    g_seed ^= g_seed << 13, g_seed ^= g_seed >> 7, g_seed ^= g_seed << 17;
    return (float)((double)(g_seed >> 11) / 4503599627370496.0 - 1.0);
}

static float *host_rand(size_t n) {
    float *p = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; ++i) p[i] = frand();
    return p;
}

static void *dev_copy(const void *h, size_t bytes) {
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess || cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("cudaMalloc/cudaMemcpy failed\n");
        exit(3);
    }
    return d;
}

/* Column-major C = alpha A B + beta C0 (A m x k, B k x n), checked elementwise against a
 * double reference with the bound k * eps * (|alpha| |A| |B| + |beta| |C0|) * 4. */
static int gemm_ok(int64_t m, int64_t n, int64_t k, float alpha, const float *A, const float *B,
                   float beta, const float *C0, const float *C, const char *what) {
    int64_t bad = 0;
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            double s = 0, a = 0;
            for (int64_t q = 0; q < k; ++q) {
                s += (double)A[i + q * m] * B[q + j * k];
                a += fabs((double)A[i + q * m] * B[q + j * k]);
            }
            double c0 = beta == 0 ? 0 : C0[i + j * m];
            double want = alpha * s + beta * c0;
            double tol = 4.0 * (double)(k + 2) * 1.2e-7 * (fabs(alpha) * a + fabs(beta * c0)) + 1e-30;
            double got = C[i + j * m];
            if (!(fabs(got - want) <= tol)) {
                if (bad < 3)
                    printf("%s: C(%lld,%lld) = %g, want %g\n", what, (long long)i, (long long)j, got, want);
                ++bad;
            }
        }
    return bad == 0;
}

/* ------------------------------------------------------------------ midgemm */

/* After a gemm on device / pinned C that may have failed: either it was refused as undefined
 * (cblas_xerbla, parameter 0) or it succeeded and C (copied back into `got`) is right. */
static int undefined_or_right(const float *Cdev, int64_t m, int64_t n, int64_t k, float alpha,
                              const float *A, const float *B, float beta, const float *C0,
                              float *got, int must_fail, const char *what) {
    if (x_calls == 1) {
        CHECKF(x_param == 0 && strstr(x_msg, "C is undefined"), "%s: xerbla param %d '%s'",
              what, x_param, x_msg);
        return 1;
    }
    CHECKF(!must_fail, "%s: no failure although the fault comes before its last gemm", what);
    if (cudaMemcpy(got, Cdev, (size_t)(m * n) * sizeof(float), cudaMemcpyDefault) != cudaSuccess)
        return 0;
    CHECKF(gemm_ok(m, n, k, alpha, A, B, beta, C0, got, what), "%s: succeeded but wrong", what);
    return 1;
}

static int case_midgemm(int64_t fail_after) {
    const int64_t m = 700, n = 500, k = 300;
    const size_t bytes = (size_t)(m * n) * sizeof(float);
    float *A = host_rand(m * k), *B = host_rand(k * n), *C0 = host_rand(m * n);
    float *C = malloc(bytes);
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
    /* host C, beta != 0 and beta == 0 (NaN in C must not survive): 10 GPU gemms (4 A row
     * blocks, 7 panels of <= 96 columns), so the fault always comes; from 6 on, panels of C
     * may already be back (the CPU finishes only the rest) */
    for (int b = 0; b < 2; ++b) {
        float beta = b ? 0.0f : 0.75f;
        memcpy(C, C0, bytes);
        if (b) C[5] = NAN;
        x_reset();
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.25f, A, m, B, k, beta, C, m);
        int path = miniblas_cblas_last_path();
        CHECKF(x_calls == 0 && path == MINIBLAS_CBLAS_PATH_GPU_FALLBACK,
              "host C beta %g: xerbla %d, path %d (want the CPU completion)", beta, x_calls, path);
        CHECKF(gemm_ok(m, n, k, 1.25f, A, B, beta, C0, C, "host C after a GPU failure"),
              "host C beta %g: wrong result after the CPU completion", beta);
    }
    /* pinned C, beta == 0 (written by DMA directly): recomputed whole on the CPU */
    float *Cp = NULL;
    if (cudaMallocHost((void **)&Cp, bytes) != cudaSuccess) return 3;
    for (int64_t i = 0; i < m * n; ++i) Cp[i] = NAN;
    x_reset();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, m, B, k, 0.0f, Cp, m);
    CHECKF(x_calls == 0 && miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU_FALLBACK,
          "pinned C: xerbla %d path %d", x_calls, miniblas_cblas_last_path());
    CHECKF(gemm_ok(m, n, k, 1.0f, A, B, 0.0f, C0, Cp, "pinned C"), "pinned C: wrong result");
    /* device C (host A, B; 10 gemms): cannot be finished on the CPU: undefined, said so */
    float *dC = dev_copy(C0, bytes);
    x_reset();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, m, B, k, 0.5f, dC, m);
    undefined_or_right(dC, m, n, k, 1.0f, A, B, 0.5f, C0, C, fail_after < 10, "device C");
    /* all on the device: one gemm in place */
    float *dA = dev_copy(A, m * k * sizeof(float)), *dB = dev_copy(B, k * n * sizeof(float));
    cudaMemcpy(dC, C0, bytes, cudaMemcpyHostToDevice);
    x_reset();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, dA, m, dB, k, 0.5f, dC, m);
    undefined_or_right(dC, m, n, k, 1.0f, A, B, 0.5f, C0, C, fail_after < 1, "all device");
    /* pinned C with beta == 0 beside a device A (7 gemms, one per panel): undefined */
    x_reset();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, dA, m, B, k, 0.0f, Cp, m);
    undefined_or_right(Cp, m, n, k, 1.0f, A, B, 0.0f, C0, C, fail_after < 7, "pinned C, device A");
    cudaFree(dA), cudaFree(dB), cudaFree(dC), cudaFreeHost(Cp);
    free(A), free(B), free(C0), free(C);
    return g_fail ? 1 : 0;
}

/* ------------------------------------------------------------------ sticky */

static int make_sticky_error(void) {
    void *gone = NULL;
    if (cudaMalloc(&gone, 256u << 20) != cudaSuccess) return 0;
    cudaFree(gone);
    miniblas_handle_t h;
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) return 0;
    float r = 0;
    miniblas_sasum(h, 1 << 24, (const float *)gone, 1, &r); /* reads freed memory */
    cudaDeviceSynchronize();
    cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess) return 1; /* still failing: sticky */
    miniblas_sasum(h, 1 << 20, (const float *)(uintptr_t)0x1000, 1, &r); /* never mapped */
    cudaDeviceSynchronize();
    cudaGetLastError();
    return cudaDeviceSynchronize() != cudaSuccess;
}

static int case_sticky(void) {
    const int n = 4096;
    float *x = host_rand(n), *y = host_rand(n);
    float *dx = dev_copy(x, n * sizeof(float)), *dy = dev_copy(y, n * sizeof(float));
    x_reset();
    float before = cblas_sdot(n, dx, 1, dy, 1);
    CHECKF(x_calls == 0 && miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU_INPLACE,
          "sdot on device pointers before the error: xerbla %d path %d", x_calls,
          miniblas_cblas_last_path());
    (void)before;
    if (!make_sticky_error()) {
        printf("could not make a sticky CUDA error\n");
        return 2;
    }
    for (int rep = 0; rep < 2; ++rep) {
        x_reset();
        float r = cblas_sdot(n, dx, 1, dy, 1);
        CHECKF(r == 0 && x_calls == 1, "sdot on device pointers after a sticky error (%d): %g, "
              "xerbla %d '%s'", rep, r, x_calls, x_msg);
        x_reset();
        double a = cblas_sasum(n, dx, 1);
        CHECKF(a == 0 && x_calls == 1, "sasum on a device pointer: %g, xerbla %d", a, x_calls);
        float *hc = malloc(64 * 64 * sizeof(float));
        for (int i = 0; i < 64 * 64; ++i) hc[i] = 7.0f;
        x_reset();
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 64, 64, 64, 1.0f, dx, 64, dy, 64,
                    0.0f, hc, 64);
        int untouched = 1;
        for (int i = 0; i < 64 * 64; ++i) untouched &= hc[i] == 7.0f;
        CHECKF(x_calls == 1 && untouched, "sgemm device A, B, host C: xerbla %d, C %s", x_calls,
              untouched ? "untouched" : "written");
        free(hc);
    }
    /* host memory still right (the CPU BLAS) */
    double want = 0;
    for (int i = 0; i < n; ++i) want += (double)x[i] * y[i];
    x_reset();
    float r = cblas_sdot(n, x, 1, y, 1);
    CHECKF(x_calls == 0 && fabs(r - want) < 1e-3, "host sdot after the error: %g want %g", r, want);
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
    const int64_t m = 300;
    float *A = host_rand(m * m), *B = host_rand(m * m), *C = malloc(m * m * sizeof(float));
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, A, m, B, m, 0.0f, C, m);
    CHECKF(x_calls == 0 && gemm_ok(m, m, m, 1.0f, A, B, 0.0f, NULL, C, "host gemm after the error"),
          "host sgemm after the error: xerbla %d", x_calls);
    CHECKF(!miniblas_cblas_gpu_available(), "the layer still offers the GPU after a sticky error");
    return g_fail ? 1 : 0;
}

/* ------------------------------------------------------------------ atexit */

static float *g_dx, *g_hx;
static double g_hsum;
static void at_exit_handler(void) {
    x_reset();
    float r = cblas_sdot(1024, g_dx, 1, g_dx, 1);
    int ok = r == 0 && x_calls == 1;
    if (!ok) printf("atexit: device sdot %g, xerbla %d '%s'\n", r, x_calls, x_msg);
    x_reset();
    double s = cblas_sasum(1024, g_hx, 1);
    int ok2 = x_calls == 0 && fabs(s - g_hsum) < 1e-3;
    if (!ok2) printf("atexit: host sasum %g want %g\n", s, g_hsum);
    fflush(stdout);
    _exit(ok && ok2 ? 0 : 1);
}

static int case_atexit(void) {
    atexit(at_exit_handler); /* before the layer's and CUDA's own: runs after them */
    g_hx = host_rand(1024);
    g_hsum = 0;
    for (int i = 0; i < 1024; ++i) g_hsum += fabs(g_hx[i]);
    g_dx = dev_copy(g_hx, 1024 * sizeof(float));
    x_reset();
    float r = cblas_sdot(1024, g_dx, 1, g_dx, 1);
    CHECKF(x_calls == 0 && r > 0 && miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU_INPLACE,
          "device sdot before exit: %g xerbla %d", r, x_calls);
    return g_fail ? 1 : 0; /* exit runs the handler, whose status wins */
}

/* ------------------------------------------------------------------ fork */

static int case_fork(void) {
    const int64_t m = 400;
    float *A = host_rand(m * m), *B = host_rand(m * m), *C = malloc(m * m * sizeof(float));
    float *dx = dev_copy(A, 1024 * sizeof(float));
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, A, m, B, m, 0.0f, C, m);
    CHECKF(miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU, "parent: GPU path before fork");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(120); /* a hang fails the case (SIGALRM) instead of the whole test timing out */
        memset(C, 0, m * m * sizeof(float));
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, A, m, B, m, 0.0f, C, m);
        int ok = miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_CPU &&
                 gemm_ok(m, m, m, 1.0f, A, B, 0.0f, NULL, C, "fork child");
        x_reset();
        float r = cblas_sdot(1024, dx, 1, dx, 1);
        ok &= r == 0 && x_calls == 1 && !miniblas_cblas_gpu_available();
        if (!ok) printf("fork child: path %d, device sdot %g xerbla %d\n",
                        miniblas_cblas_last_path(), r, x_calls);
        fflush(stdout);
        _exit(ok ? 0 : 1);
    }
    int st = -1;
    waitpid(pid, &st, 0);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child: status 0x%x", st);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0f, A, m, B, m, 0.0f, C, m);
    CHECKF(miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU &&
              gemm_ok(m, m, m, 1.0f, A, B, 0.0f, NULL, C, "parent after fork"),
          "parent after fork: path %d", miniblas_cblas_last_path());
    return g_fail ? 1 : 0;
}

/* ------------------------------------------------------------------ rungenv */

static int case_rungenv(void) {
    float x[64] = {1};
    for (int i = 0; i < 5; ++i) cblas_sasum(64, x, 1); /* initialisation, and more calls */
    float *dA = dev_copy(x, sizeof x);
    x_reset();
    float C[4] = {0};
    float *dC = dev_copy(C, sizeof C);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0f, dA, 2, dA, 2, 0.0f, dC, 2);
    CHECKF(x_calls == 1 && x_param == 0, "device sgemm with MINIBLAS_SGEMM unknown: xerbla %d", x_calls);
    return g_fail ? 1 : 0;
}

/* ------------------------------------------------------------------ driver */

/* Runs this program with `mode` (and `arg`) and the environment entries `env` (NULL-ended);
 * returns its exit status, its stderr in err. */
static int run_child(const char *self, const char *mode, const char *arg, const char **env,
                     char *err, size_t size) {
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        for (const char **e = env; e && *e; ++e) putenv((char *)*e);
        execl(self, self, mode, arg, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    time_t t0 = time(NULL);
    while ((r = read(fd[0], err + got, size - 1 - got)) > 0) {
        got += (size_t)r;
        if (got + 1 >= size) got = 0; /* keep the tail */
    }
    err[got] = '\0';
    close(fd[0]);
    int st = -1;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (time(NULL) - t0 > 300) kill(pid, SIGKILL);
        usleep(10000);
    }
    return st;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        const char *mode = argv[1];
        if (!strcmp(mode, "midgemm")) {
            const char *n = getenv("MINIBLAS_CBLAS_TEST_FAIL_GEMM");
            return case_midgemm(n ? atoll(n) : 0);
        }
        if (!strcmp(mode, "sticky")) return case_sticky();
        if (!strcmp(mode, "atexit")) return case_atexit();
        if (!strcmp(mode, "fork")) return case_fork();
        if (!strcmp(mode, "rungenv")) return case_rungenv();
        return 2;
    }
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("test_cblas_faults_gpu: no GPU, skipped\n");
        return 77;
    }
    static char err[1 << 16];
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) return 2;
    self[len] = '\0';

    static const char *fail_at[] = {"MINIBLAS_CBLAS_TEST_FAIL_GEMM=0", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=2",
                                    "MINIBLAS_CBLAS_TEST_FAIL_GEMM=7", "MINIBLAS_CBLAS_TEST_FAIL_GEMM=9"};
    for (int i = 0; i < 4; ++i) {
        const char *env[] = {fail_at[i], "MINIBLAS_CBLAS_TUNING=panel=96,chunk_mb=1",
                             "MINIBLAS_CBLAS_VERBOSE=1", NULL};
        int st = run_child(self, "midgemm", NULL, env, err, sizeof err);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "midgemm %s: status 0x%x; stderr:\n%s", fail_at[i], st, err);
        /* the notice names the cause: the handle's message, not an empty one */
        CHECKF(strstr(err, "'(MINIBLAS_CBLAS_TEST_FAIL_GEMM)' names no sgemm rung"),
              "midgemm %s: the fallback notice lost its cause; stderr:\n%s", fail_at[i], err);
    }
    static const char *modes[] = {"sticky", "atexit", "fork"};
    for (int i = 0; i < 3; ++i) {
        int st = run_child(self, modes[i], NULL, NULL, err, sizeof err);
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status 0x%x; stderr:\n%s", modes[i], st, err);
    }
    {
        const char *env[] = {"MINIBLAS_SGEMM=no-such-rung", NULL};
        int st = run_child(self, "rungenv", NULL, env, err, sizeof err);
        int lines = 0;
        for (const char *p = err; (p = strstr(p, "MINIBLAS_SGEMM=no-such-rung")); ++p) ++lines;
        CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0 && lines == 1,
              "rungenv: status 0x%x, %d lines naming the setting (want 1); stderr:\n%s", st, lines, err);
    }
    printf("test_cblas_faults_gpu: %s\n", g_fail ? "FAILED" : "passed");
    return g_fail ? 1 : 0;
}
