/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host side of libminiblas_cblas compiled in directly (src/cblas/entry.c, route.c,
 * config.c, cpu_blas.c, xerbla.c, ptr.c, fork.c, diag.c, copypool.c) with
 * tests/test_cblas_nogpu_stub.c for the GPU side (gpu_*.c, staging.c, trace.c): a
 * CUDA device exists but CUDA answers nothing (the state after a sticky error, at process
 * exit, in a fork() child, or with the GPU disabled). No GPU needed. Checks:
 *   - first calls of 8 threads at once (mode "race"; tests/cblas.cmake also builds this file
 *     with ThreadSanitizer and runs that mode, which must report no data race);
 *   - memory that is not host-readable (an inaccessible reservation, as a device allocation's
 *     host range is) never reaches the CPU BLAS: gemm, asum, dot, omatcopy and the Fortran
 *     symbols refuse it through cblas_xerbla / xerbla_ with the operand's number, nothing
 *     written, no crash (OpenBLAS would fault on it);
 *   - the default cblas_xerbla's message of a row-major gemm in the caller's numbering;
 *   - a program's own call of cblas_xerbla does what the CPU BLAS's does (OpenBLAS's: the same
 *     text on stderr and exit status 255), compared against OpenBLAS's in a child process;
 *   - the CPU completion of a gemm with alpha == 0 or k == 0 reads neither A nor B (NULL);
 *   - MINIBLAS_<OP> rung settings the GPU cannot honour are named, one line each;
 *   - a fork() child has the GPU off and computes right.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "miniblas.h"
#include "cblas_internal.h"
#include "miniblas_cblas.h"
#include "cpu_check.h"

void sgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const float *, const float *, const blasint *, const float *, const blasint *,
            const float *, float *, const blasint *, size_t, size_t);
float sdot_(const blasint *, const float *, const blasint *, const float *, const blasint *);

/* ---- capture of stderr and stdout (OpenBLAS's xerbla_ prints on stdout) ---- */
static FILE *g_cap;
static int g_saved = -1, g_saved1 = -1;
static void cap_begin(void) {
    fflush(stderr);
    fflush(stdout);
    g_cap = tmpfile();
    g_saved = dup(2);
    g_saved1 = dup(1);
    dup2(fileno(g_cap), 2);
    dup2(fileno(g_cap), 1);
}
static char g_text[8192];
static const char *cap_end(void) {
    fflush(stderr);
    fflush(stdout);
    dup2(g_saved, 2);
    dup2(g_saved1, 1);
    close(g_saved);
    close(g_saved1);
    rewind(g_cap);
    size_t n = fread(g_text, 1, sizeof g_text - 1, g_cap);
    g_text[n] = '\0';
    fclose(g_cap);
    return g_text;
}

/* ---- race: the first calls of 8 threads at once ---- */
enum { NT = 8 };
static pthread_barrier_t g_bar;
static float *g_A, *g_B;
static void *race_thread(void *arg) {
    int id = (int)(intptr_t)arg;
    float C[64], Cf[64], Bt[64];
    pthread_barrier_wait(&g_bar);
    switch (id % 4) {
    case 0: cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 8, 8, 8, 1.0f, g_A, 8, g_B, 8, 0.0f, C, 8); break;
    case 1: {
        blasint n = 8;
        float one = 1, zero = 0;
        sgemm_("N", "N", &n, &n, &n, &one, g_A, &n, g_B, &n, &zero, Cf, &n, 1, 1);
        break;
    }
    case 2: cblas_somatcopy(CblasRowMajor, CblasTrans, 8, 8, 1.0f, g_A, 8, Bt, 8); break;
    default: break;
    }
    float r = cblas_sdot(64, g_A, 1, g_B, 1), want = 0;
    for (int i = 0; i < 64; ++i) want += g_A[i] * g_B[i];
    return (void *)(intptr_t)(fabsf(r - want) <= 1e-4f * 64);
}

static int test_race(void) {
    g_A = malloc(64 * sizeof(float)), g_B = malloc(64 * sizeof(float));
    for (int i = 0; i < 64; ++i) g_A[i] = (float)(i % 7) - 3, g_B[i] = (float)(i % 5) * 0.5f;
    pthread_t t[NT];
    pthread_barrier_init(&g_bar, NULL, NT);
    for (int i = 0; i < NT; ++i) pthread_create(&t[i], NULL, race_thread, (void *)(intptr_t)i);
    int ok = 1;
    for (int i = 0; i < NT; ++i) {
        void *r;
        pthread_join(t[i], &r);
        ok &= r != NULL;
    }
    CHECKF(ok, "a thread's first sdot was wrong");
    return ok;
}

/* ---- memory the CPU BLAS must not get ---- */
enum { HEAD = 1 << 16, RES = 1 << 24 };
static char *g_res; /* HEAD accessible bytes, then an inaccessible reservation */

static int has(const char *text, const char *what) { return strstr(text, what) != NULL; }

static void test_unreachable(void) {
    g_res = mmap(NULL, RES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK(g_res != MAP_FAILED);
    if (g_res == MAP_FAILED) return;
    CHECK(mprotect(g_res, HEAD, PROT_READ | PROT_WRITE) == 0);
    const float *dev = (const float *)(g_res + RES / 2);
    float *x = malloc(4096 * sizeof(float)), *C = malloc(64 * sizeof(float));
    for (int i = 0; i < 4096; ++i) x[i] = 1.0f;
    const char *t;

    cap_begin();
    float r = cblas_sdot(16, dev, 1, x, 1);
    t = cap_end();
    CHECKF(r == 0 && has(t, "Parameter 2 to routine cblas_sdot was incorrect") &&
               has(t, "not host memory"), "sdot x inaccessible: %g, stderr: %s", r, t);
    cap_begin();
    r = cblas_sdot(16, x, 1, dev, -2);
    t = cap_end();
    CHECKF(r == 0 && has(t, "Parameter 4 to routine cblas_sdot"), "sdot y inaccessible: %s", t);
    cap_begin();
    double d = cblas_dasum(16, (const double *)dev, 1);
    t = cap_end();
    CHECKF(d == 0 && has(t, "Parameter 2 to routine cblas_dasum"), "dasum: %s", t);
    /* an extent whose first bytes are host memory and whose last are not */
    const float *edge = (const float *)(g_res + HEAD) - 8;
    cap_begin();
    r = cblas_sasum(16, edge, 1);
    t = cap_end();
    CHECKF(r == 0 && has(t, "Parameter 2 to routine cblas_sasum"), "sasum across the edge: %s", t);
    cap_begin();
    r = cblas_sasum(8, edge, 1); /* wholly accessible (mmap'd, zero): computed */
    t = cap_end();
    CHECKF(r == 0 && t[0] == '\0', "sasum of accessible mmap'd memory: %g, stderr: %s", r, t);

    static const struct { int layout, which, expect; } gc[] = {
        {CblasColMajor, 0, 8}, {CblasColMajor, 1, 10}, {CblasColMajor, 2, 13},
        {CblasRowMajor, 0, 8}, {CblasRowMajor, 1, 10}, {CblasRowMajor, 2, 13}};
    for (size_t i = 0; i < sizeof gc / sizeof gc[0]; ++i) {
        for (int j = 0; j < 64; ++j) C[j] = 12345.0f;
        const float *A = gc[i].which == 0 ? dev : x, *B = gc[i].which == 1 ? dev : x;
        float *Cp = gc[i].which == 2 ? (float *)dev : C;
        char want[80];
        snprintf(want, sizeof want, "Parameter %d to routine cblas_sgemm was incorrect", gc[i].expect);
        cap_begin();
        cblas_sgemm(gc[i].layout, CblasNoTrans, CblasTrans, 8, 8, 8, 1.0f, A, 8, B, 8, 0.5f, Cp, 8);
        t = cap_end();
        int untouched = 1;
        for (int j = 0; j < 64; ++j) untouched &= C[j] == 12345.0f;
        CHECKF(has(t, want) && untouched && miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_NONE,
               "sgemm case %zu (want %d): stderr %s%s", i, gc[i].expect, t,
               untouched ? "" : " and C written");
    }
    /* alpha == 0: A and B are not referenced, so their memory does not matter */
    for (int j = 0; j < 64; ++j) C[j] = 2.0f;
    cap_begin();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 8, 8, 8, 0.0f, dev, 8, dev, 8, 0.5f, C, 8);
    t = cap_end();
    CHECKF(t[0] == '\0' && C[0] == 1.0f && C[63] == 1.0f, "alpha 0, A B inaccessible: %s", t);

    cap_begin();
    cblas_somatcopy(CblasColMajor, CblasNoTrans, 8, 8, 1.0f, dev, 8, C, 8);
    t = cap_end();
    CHECKF(has(t, "Parameter 6 to routine cblas_somatcopy"), "somatcopy A: %s", t);
    cap_begin();
    cblas_somatcopy(CblasRowMajor, CblasTrans, 8, 8, 1.0f, x, 8, (float *)dev, 8);
    t = cap_end();
    CHECKF(has(t, "Parameter 8 to routine cblas_somatcopy"), "somatcopy B: %s", t);

    /* Fortran: xerbla_ (the CPU BLAS's here) with the Fortran number */
    blasint n = 16, one = 1, m8 = 8;
    cap_begin();
    r = sdot_(&n, dev, &one, x, &one);
    t = cap_end();
    CHECKF(r == 0 && has(t, "SDOT") && has(t, " 2 "), "sdot_: %s", t);
    float fone = 1, fzero = 0;
    cap_begin();
    sgemm_("N", "N", &m8, &m8, &m8, &fone, x, &m8, x, &m8, &fzero, (float *)dev, &m8, 1, 1);
    t = cap_end();
    CHECKF(has(t, "SGEMM") && has(t, "12"), "sgemm_ C inaccessible: %s", t);
    free(x), free(C);
}

/* ---- the default cblas_xerbla's message: the caller's numbering ---- */
static void test_default_message(void) {
    float buf[64] = {0}, C[64];
    const char *t;
    cap_begin();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 1.0f, buf, 2, buf, 2, 0.0f, C, 2);
    t = cap_end();
    CHECKF(has(t, "Parameter 4 to routine cblas_sgemm was incorrect"), "row-major M < 0: %s", t);
    cap_begin();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 3, 1.0, (double *)buf, 2,
                (double *)buf, 2, 0.0, (double *)C, 2);
    t = cap_end();
    CHECKF(has(t, "Parameter 9 to routine cblas_dgemm was incorrect"), "row-major lda < K: %s", t);
    cap_begin();
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 2, 2, 1.0f, buf, 2, buf, 2, 0.0f, C, 2);
    t = cap_end();
    CHECKF(has(t, "Parameter 4 to routine cblas_sgemm was incorrect"), "col-major M < 0: %s", t);
}

/* ---- a program's own cblas_xerbla call, against OpenBLAS's ---- */
typedef void (*xerbla_fn)(blasint, char *, char *, ...);
static int child_output(int use_openblas, int param, char *out, size_t size, int *status) {
    int fd[2];
    if (pipe(fd)) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        char rout[] = "cblas_foo", form[] = "extra %d and %s\n";
        if (use_openblas) {
            void *h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
            xerbla_fn f = h ? (xerbla_fn)dlsym(h, "cblas_xerbla") : NULL;
            if (!f) _exit(99);
            f(param, rout, form, 5, "more");
        } else {
            cblas_xerbla(param, rout, form, 5, "more");
        }
        _exit(0); /* returned */
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while ((r = read(fd[0], out + got, size - 1 - got)) > 0) got += (size_t)r;
    out[got] = '\0';
    close(fd[0]);
    waitpid(pid, status, 0);
    return 0;
}

static void test_program_xerbla(void) {
    for (int param = 0; param < 4; param += 3) {
        char theirs[512], ours[512];
        int st_t = 0, st_o = 0;
        child_output(1, param, theirs, sizeof theirs, &st_t);
        if (WIFEXITED(st_t) && WEXITSTATUS(st_t) == 99) {
            printf("(no libopenblas.so.0: program cblas_xerbla comparison skipped)\n");
            return;
        }
        child_output(0, param, ours, sizeof ours, &st_o);
        CHECKF(st_t == st_o && !strcmp(theirs, ours),
               "cblas_xerbla(%d, ...) called by the program: OpenBLAS status %d text '%s', "
               "with the layer status %d text '%s'", param, st_t, theirs, st_o, ours);
    }
}

/* ---- CPU completion of a gemm: alpha == 0 or k == 0 with NULL A and B ---- */
static void test_cpu_completion(void) {
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int c = 0; c < 3; ++c) {
            double Cd[40];
            float Cf[40];
            for (int i = 0; i < 40; ++i) Cd[i] = Cf[i] = (float)(i + 1);
            Cd[1] = Cf[1] = NAN;
            double alpha = c == 1 ? 1.0 : 0.0, beta = c == 2 ? 0.0 : -2.0;
            int64_t k = c == 1 ? 0 : 5;
            int rc = mbc_cpu_gemm_colmajor(dbl, 0, 1, 4, 5, k, alpha, NULL, 4, NULL, 5, beta,
                                           dbl ? (void *)Cd : (void *)Cf, 8);
            int ok = rc == 0;
            for (int j = 0; j < 5; ++j)
                for (int i = 0; i < 8; ++i) {
                    int at = i + 8 * j;
                    double orig = at == 1 ? NAN : at + 1;
                    double want = i >= 4 ? orig : beta == 0 ? 0.0 : beta * orig;
                    double got = dbl ? Cd[at] : Cf[at];
                    ok &= (isnan(want) && isnan(got)) || got == want;
                }
            CHECKF(ok, "mbc_cpu_gemm_colmajor %s alpha %g k %lld beta %g: C != beta C",
                   dbl ? "d" : "s", alpha, (long long)k, beta);
        }
}

/* ---- MINIBLAS_<OP> rung settings ---- */
static int rung_env_lines(int ccmaj, int ccmin, char *text, size_t size) {
    FILE *f = tmpfile();
    int n = mbc_check_rung_env(ccmaj, ccmin, f);
    rewind(f);
    size_t got = fread(text, 1, size - 1, f);
    text[got] = '\0';
    fclose(f);
    return n;
}

static void test_rung_env(void) {
    char t[2048];
    unsetenv("MINIBLAS_MATH_MODE");
    setenv("MINIBLAS_SGEMM", "no-such-rung", 1);
    setenv("MINIBLAS_DDOT", "auto", 1);
    int n = rung_env_lines(9, 0, t, sizeof t);
    CHECKF(n == 1 && has(t, "MINIBLAS_SGEMM=no-such-rung names no sgemm rung") &&
               has(t, "device pointers will fail"), "unknown rung: %d lines: %s", n, t);
    unsetenv("MINIBLAS_SGEMM");
    CHECKF(rung_env_lines(9, 0, t, sizeof t) == 0, "nothing set, yet: %s", t);
    for (int i = 0; i < miniblas_rung_count(MINIBLAS_OP_SGEMM); ++i) {
        unsigned fl = miniblas_rung_flags(MINIBLAS_OP_SGEMM, i);
        const char *name = miniblas_rung_name(MINIBLAS_OP_SGEMM, i);
        setenv("MINIBLAS_SGEMM", name, 1);
        if (fl & MINIBLAS_RUNG_REDUCED_PRECISION) {
            n = rung_env_lines(9, 0, t, sizeof t);
            CHECKF(n == 1 && has(t, "MINIBLAS_MATH_MODE"), "%s without tf32 mode: %s", name, t);
            setenv("MINIBLAS_MATH_MODE", "tf32", 1);
            CHECKF(rung_env_lines(9, 0, t, sizeof t) == 0, "%s in tf32 mode: %s", name, t);
            unsetenv("MINIBLAS_MATH_MODE");
        } else if (fl & MINIBLAS_RUNG_NEEDS_SM90A) {
            CHECKF(rung_env_lines(8, 0, t, sizeof t) == 1, "%s on cc 8.0: %s", name, t);
            CHECKF(rung_env_lines(9, 0, t, sizeof t) == 0, "%s on cc 9.0: %s", name, t);
        } else {
            CHECKF(rung_env_lines(8, 6, t, sizeof t) == 0, "%s: %s", name, t);
        }
    }
    unsetenv("MINIBLAS_SGEMM");
    unsetenv("MINIBLAS_DDOT");
}

/* ---- fork ---- */
static void test_fork(void) {
    CHECK(!mbc_flag(&mbc_forked));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        float A[6] = {1, 2, 3, 4, 5, 6}, C[4] = {0};
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 2, 2, 3, 1.0f, A, 3, A, 3, 0.0f, C, 2);
        int ok = mbc_flag(&mbc_forked) && !miniblas_cblas_gpu_available() && C[0] == 14 &&
                 C[1] == 32 && C[2] == 32 && C[3] == 77;
        _exit(ok ? 0 : 1);
    }
    int st = -1;
    waitpid(pid, &st, 0);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "fork child: status %d", st);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "race")) {
        test_race();
        return cpu_check_report("test_cblas_layer_cpu race");
    }
    test_race();
    if (!miniblas_cblas_cpu_blas()) {
        printf("no CPU BLAS loaded: skipped\n");
        return 77;
    }
    test_unreachable();
    test_default_message();
    test_program_xerbla();
    test_cpu_completion();
    test_rung_env();
    test_fork();
    return cpu_check_report("test_cblas_layer_cpu");
}
