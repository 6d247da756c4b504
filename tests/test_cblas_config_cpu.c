/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration reader of libminiblas_cblas (src/cblas/config.c, compiled in directly) on
 * made-up environments: the defaults; every user-facing setting with good values (booleans,
 * crossovers with "never", the device list and its alias, MINIBLAS_CBLAS_MIN_GEMM before the
 * per-type crossovers); MINIBLAS_CBLAS_TUNING's keys; bad values (not a number, out of range,
 * an empty device, an unknown tuning key, a variable no longer read) each reported in exactly
 * one line with the default kept. Then the library itself (linked): a process with bad
 * settings and MINIBLAS_CBLAS_VERBOSE unset prints one line per bad setting at its first call
 * and nothing at later calls, and still computes.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cblas_internal.h"
#include "miniblas_cblas.h"

#include "cpu_check.h"

/* The made-up environment: NULL-terminated "NAME=value" strings. */
static const char *const *g_env;
static const char *fake_get(const char *name) {
    size_t n = strlen(name);
    for (const char *const *e = g_env; e && *e; ++e)
        if (!strncmp(*e, name, n) && (*e)[n] == '=') return *e + n + 1;
    return NULL;
}

/* Reads env into *cfg; the lines written go to out (NUL-terminated); returns the count. */
static int read_env(const char *const *env, mbc_config *cfg, char *out, size_t size) {
    g_env = env;
    FILE *f = tmpfile();
    if (!f) {
        perror("tmpfile");
        exit(2);
    }
    int n = mbc_config_read(cfg, fake_get, 8, f);
    rewind(f);
    size_t got = fread(out, 1, size - 1, f);
    out[got] = '\0';
    fclose(f);
    int lines = 0;
    for (const char *p = out; *p; ++p) lines += *p == '\n';
    CHECKF(lines == n, "returned %d but wrote %d lines:\n%s", n, lines, out);
    return n;
}

static void defaults_equal(const mbc_config *c, const char *what) {
    CHECKF(c->cpu_blas_lib[0] == '\0', "%s: cpu_blas_lib '%s'", what, c->cpu_blas_lib);
    CHECKF(c->gpu_enabled == 1, "%s: gpu_enabled %d", what, c->gpu_enabled);
    CHECKF(c->device == 0 && c->ndevices == 0 && !c->all_devices, "%s: device %d (%d listed)", what,
          c->device, c->ndevices);
    CHECKF(c->xover[MBC_X_SGEMM] == 256 * 256 * 256 && c->xover[MBC_X_DGEMM] == 256 * 256 * 256,
          "%s: gemm crossovers %lld %lld", what, (long long)c->xover[MBC_X_SGEMM],
          (long long)c->xover[MBC_X_DGEMM]);
    CHECKF(c->xover[MBC_X_GEMM_DIM] == 256, "%s: gemm dim %lld", what, (long long)c->xover[MBC_X_GEMM_DIM]);
    CHECKF(c->xover[MBC_X_ASUM] == 1 << 24 && c->xover[MBC_X_DOT] == 1 << 23 &&
              c->xover[MBC_X_OMATCOPY] == 512 * 512,
          "%s: asum/dot/omatcopy crossovers", what);
    CHECKF(c->verbose == 0 && c->ptr_check == 1, "%s: verbose %d ptr_check %d", what, c->verbose,
          c->ptr_check);
    CHECKF(c->panel == 0 && c->kslab == -1 && c->nslab == 4, "%s: panel %lld kslab %lld nslab %lld",
          what, (long long)c->panel, (long long)c->kslab, (long long)c->nslab);
    CHECKF(c->chunk_max == (size_t)16 << 20, "%s: chunk %zu", what, c->chunk_max);
    CHECKF(c->copy_threads == 8, "%s: copy_threads %d (8 cores)", what, c->copy_threads);
    CHECKF(c->pin_row_kb == -1, "%s: pin_row_kb %lld", what, (long long)c->pin_row_kb);
    CHECKF(c->row_gemm_k == -1, "%s: row_gemm_k %lld", what, (long long)c->row_gemm_k);
    CHECKF(c->a_parts == -1, "%s: a_parts %lld", what, (long long)c->a_parts);
    CHECKF(c->head_rows == -1, "%s: head_rows %lld", what, (long long)c->head_rows);
    CHECKF(c->row_out == -1, "%s: row_out %lld", what, (long long)c->row_out);
    CHECKF(c->test_fail_gemm == -1 && c->test_fail_dev == -1, "%s: test_fail_gemm %lld@%d", what,
          (long long)c->test_fail_gemm, c->test_fail_dev);
    CHECKF(c->split_cols == -1, "%s: split_cols %lld", what, (long long)c->split_cols);
    CHECKF(c->split_vec == -1, "%s: split_vec %lld", what, (long long)c->split_vec);
    CHECKF(c->test_fail_reduce == -1 && c->test_fail_reduce_dev == -1, "%s: test_fail_reduce %lld@%d",
          what, (long long)c->test_fail_reduce, c->test_fail_reduce_dev);
}

static void test_defaults(void) {
    mbc_config c;
    char out[4096];
    const char *none[] = {NULL};
    CHECKF(read_env(none, &c, out, sizeof out) == 0, "defaults: lines\n%s", out);
    defaults_equal(&c, "defaults");
    /* empty values are unset */
    const char *empty[] = {"MINIBLAS_CBLAS_VERBOSE=", "MINIBLAS_CBLAS_TUNING=", "MINIBLAS_CBLAS_DEVICES=", NULL};
    CHECKF(read_env(empty, &c, out, sizeof out) == 0, "empty values: lines\n%s", out);
    defaults_equal(&c, "empty values");
    /* copy_threads: 16 per GPU, at most 32 and at most every core */
    g_env = none;
    mbc_config_read(&c, fake_get, 64, NULL);
    CHECKF(c.copy_threads == 16 && c.copy_threads_auto, "64 cores: copy_threads %d auto %d",
           c.copy_threads, c.copy_threads_auto);
    mbc_config_read(&c, fake_get, -1, NULL);
    CHECKF(c.copy_threads == 1, "unknown cores: copy_threads %d", c.copy_threads);
    static const struct { long ncpu; int ngpu, want; } ct[] = {
        {64, 1, 16}, {64, 2, 32}, {64, 4, 32}, {64, 0, 16}, {24, 2, 24}, {8, 2, 8}, {0, 2, 1}};
    for (size_t i = 0; i < sizeof ct / sizeof ct[0]; ++i)
        CHECKF(mbc_copy_threads_auto(ct[i].ncpu, ct[i].ngpu) == ct[i].want,
               "copy_threads_auto(%ld cores, %d GPUs) = %d, want %d", ct[i].ncpu, ct[i].ngpu,
               mbc_copy_threads_auto(ct[i].ncpu, ct[i].ngpu), ct[i].want);
}

static void test_good(void) {
    mbc_config c;
    char out[4096];
    const char *env[] = {"MINIBLAS_CPU_BLAS_LIB=/opt/blas/libblas.so.3",
                         "MINIBLAS_CBLAS_GPU=off",
                         "MINIBLAS_CBLAS_DEVICES=2,0,1",
                         "MINIBLAS_CBLAS_DEVICE=5", /* the alias gives way */
                         "MINIBLAS_CBLAS_MIN_GEMM=1000",
                         "MINIBLAS_CBLAS_MIN_DGEMM=never",
                         "MINIBLAS_CBLAS_MIN_GEMM_DIM=0",
                         "MINIBLAS_CBLAS_MIN_ASUM=off",
                         "MINIBLAS_CBLAS_MIN_DOT=123456789012",
                         "MINIBLAS_CBLAS_MIN_OMATCOPY=1",
                         "MINIBLAS_CBLAS_VERBOSE=3",
                         "MINIBLAS_CBLAS_PTR_CHECK=0",
                         "MINIBLAS_CBLAS_TUNING=panel=2048,kslab=off,nslab=64,chunk_mb=4096,copy_threads=3,pin_row_kb=0,row_gemm_k=off,head_rows=off,row_out=off,split_cols=4096,split_vec=12345,a_parts=off",
                         "MINIBLAS_CBLAS_TEST_FAIL_GEMM=7",
                         "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=2@1",
                         NULL};
    CHECKF(read_env(env, &c, out, sizeof out) == 0, "good values: lines\n%s", out);
    CHECKF(!strcmp(c.cpu_blas_lib, "/opt/blas/libblas.so.3"), "cpu_blas_lib '%s'", c.cpu_blas_lib);
    CHECKF(c.gpu_enabled == 0, "gpu_enabled %d", c.gpu_enabled);
    CHECKF(c.device == 2 && c.ndevices == 3 && c.devices[1] == 0 && c.devices[2] == 1 && !c.all_devices,
          "devices: first %d, %d listed", c.device, c.ndevices);
    CHECKF(c.xover[MBC_X_SGEMM] == 1000, "MIN_GEMM -> sgemm %lld", (long long)c.xover[MBC_X_SGEMM]);
    CHECKF(c.xover[MBC_X_DGEMM] == MBC_NEVER, "MIN_DGEMM=never after MIN_GEMM: %lld",
          (long long)c.xover[MBC_X_DGEMM]);
    CHECKF(c.xover[MBC_X_GEMM_DIM] == 0 && c.xover[MBC_X_ASUM] == MBC_NEVER &&
              c.xover[MBC_X_DOT] == 123456789012LL && c.xover[MBC_X_OMATCOPY] == 1,
          "crossovers %lld %lld %lld %lld", (long long)c.xover[MBC_X_GEMM_DIM],
          (long long)c.xover[MBC_X_ASUM], (long long)c.xover[MBC_X_DOT],
          (long long)c.xover[MBC_X_OMATCOPY]);
    CHECKF(c.verbose == 3 && c.ptr_check == 0, "verbose %d ptr_check %d", c.verbose, c.ptr_check);
    CHECKF(c.panel == 2048 && c.kslab == 0 && c.nslab == 64 && c.chunk_max == (size_t)4096 << 20 &&
              c.copy_threads == 3 && !c.copy_threads_auto,
          "tuning: panel %lld kslab %lld nslab %lld chunk %zu threads %d", (long long)c.panel,
          (long long)c.kslab, (long long)c.nslab, c.chunk_max, c.copy_threads);
    CHECKF(c.test_fail_gemm == 7 && c.test_fail_dev == -1, "test_fail_gemm %lld@%d",
          (long long)c.test_fail_gemm, c.test_fail_dev);
    CHECKF(c.split_cols == 4096, "split_cols %lld", (long long)c.split_cols);
    CHECKF(c.pin_row_kb == 0, "pin_row_kb %lld", (long long)c.pin_row_kb);
    CHECKF(c.row_gemm_k == 0, "row_gemm_k %lld", (long long)c.row_gemm_k);
    CHECKF(c.split_vec == 12345, "split_vec %lld", (long long)c.split_vec);
    CHECKF(c.a_parts == 0, "a_parts=off: %lld", (long long)c.a_parts);
    CHECKF(c.head_rows == 0 && c.row_out == 0, "head_rows=off: %lld row_out=off: %lld", (long long)c.head_rows,
           (long long)c.row_out);
    CHECKF(c.test_fail_reduce == 2 && c.test_fail_reduce_dev == 1, "test_fail_reduce %lld@%d",
          (long long)c.test_fail_reduce, c.test_fail_reduce_dev);

    const char *env2[] = {"MINIBLAS_CBLAS_DEVICE=3", "MINIBLAS_CBLAS_GPU=yes",
                          "MINIBLAS_CBLAS_TUNING=kslab=512,panel=auto,,chunk_mb=1,pin_row_kb=1024,row_gemm_k=12", NULL};
    CHECKF(read_env(env2, &c, out, sizeof out) == 0, "alias: lines\n%s", out);
    CHECKF(c.device == 3 && c.ndevices == 1, "MINIBLAS_CBLAS_DEVICE=3: device %d (%d listed)", c.device,
          c.ndevices);
    CHECKF(c.gpu_enabled == 1 && c.kslab == 512 && c.panel == 0 && c.chunk_max == (size_t)1 << 20 &&
              c.pin_row_kb == 1024 && c.row_gemm_k == 12,
          "gpu %d kslab %lld panel %lld chunk %zu pin_row_kb %lld row_gemm_k %lld", c.gpu_enabled,
          (long long)c.kslab, (long long)c.panel, c.chunk_max, (long long)c.pin_row_kb,
          (long long)c.row_gemm_k);

    const char *env4[] = {"MINIBLAS_CBLAS_TEST_FAIL_GEMM=5@1", "MINIBLAS_CBLAS_TEST_FAIL_REDUCE=0",
                          "MINIBLAS_CBLAS_TUNING=split_cols=auto,split_vec=auto,a_parts=1,head_rows=1,row_out=1", NULL};
    CHECKF(read_env(env4, &c, out, sizeof out) == 0, "fail at 5@1: lines\n%s", out);
    CHECKF(c.test_fail_gemm == 5 && c.test_fail_dev == 1 && c.split_cols == -1 && c.split_vec == -1 &&
              c.a_parts == 1 && c.head_rows == 1 && c.row_out == 1,
          "5@1: test_fail_gemm %lld@%d split_cols %lld split_vec %lld a_parts %lld",
          (long long)c.test_fail_gemm, c.test_fail_dev, (long long)c.split_cols, (long long)c.split_vec,
          (long long)c.a_parts);
    CHECKF(c.test_fail_reduce == 0 && c.test_fail_reduce_dev == -1, "0: test_fail_reduce %lld@%d",
          (long long)c.test_fail_reduce, c.test_fail_reduce_dev);

    const char *env3[] = {"MINIBLAS_CBLAS_DEVICES=all", "MINIBLAS_CBLAS_TUNING=kslab=auto,panel=0", NULL};
    CHECKF(read_env(env3, &c, out, sizeof out) == 0, "all: lines\n%s", out);
    CHECKF(c.all_devices && c.device == 0, "all: device %d", c.device);
    CHECKF(c.kslab == -1 && c.panel == 0, "kslab=auto %lld, panel=0 %lld", (long long)c.kslab,
          (long long)c.panel);
}

/* One bad setting: exactly one line naming `name`, everything at its default. */
static void one_bad(const char *setting, const char *name) {
    mbc_config c;
    char out[4096];
    const char *env[] = {setting, NULL};
    int n = read_env(env, &c, out, sizeof out);
    CHECKF(n == 1, "%s: %d lines:\n%s", setting, n, out);
    CHECKF(strstr(out, name) != NULL && !strncmp(out, "miniblas_cblas: ", 16),
          "%s: the line does not name %s:\n%s", setting, name, out);
    defaults_equal(&c, setting);
}

static void test_bad(void) {
    one_bad("MINIBLAS_CBLAS_VERBOSE=abc", "MINIBLAS_CBLAS_VERBOSE");
    one_bad("MINIBLAS_CBLAS_VERBOSE=4", "MINIBLAS_CBLAS_VERBOSE");
    one_bad("MINIBLAS_CBLAS_VERBOSE=1 ", "MINIBLAS_CBLAS_VERBOSE");
    one_bad("MINIBLAS_CBLAS_GPU=2", "MINIBLAS_CBLAS_GPU");
    one_bad("MINIBLAS_CBLAS_PTR_CHECK=maybe", "MINIBLAS_CBLAS_PTR_CHECK");
    one_bad("MINIBLAS_CBLAS_MIN_DOT=-5", "MINIBLAS_CBLAS_MIN_DOT");
    one_bad("MINIBLAS_CBLAS_MIN_ASUM=12x", "MINIBLAS_CBLAS_MIN_ASUM");
    one_bad("MINIBLAS_CBLAS_MIN_GEMM=99999999999999999999", "MINIBLAS_CBLAS_MIN_GEMM");
    one_bad("MINIBLAS_CBLAS_DEVICES=1,,2", "MINIBLAS_CBLAS_DEVICES");
    one_bad("MINIBLAS_CBLAS_DEVICES=gpu0", "MINIBLAS_CBLAS_DEVICES");
    one_bad("MINIBLAS_CBLAS_DEVICES=1,", "MINIBLAS_CBLAS_DEVICES");
    one_bad("MINIBLAS_CBLAS_DEVICE=-1", "MINIBLAS_CBLAS_DEVICE");
    one_bad("MINIBLAS_CBLAS_TEST_FAIL_GEMM=-1", "MINIBLAS_CBLAS_TEST_FAIL_GEMM");
    one_bad("MINIBLAS_CBLAS_TEST_FAIL_GEMM=3@x", "MINIBLAS_CBLAS_TEST_FAIL_GEMM");
    one_bad("MINIBLAS_CBLAS_TEST_FAIL_GEMM=3@64", "MINIBLAS_CBLAS_TEST_FAIL_GEMM");
    one_bad("MINIBLAS_CBLAS_TEST_FAIL_GEMM=@1", "MINIBLAS_CBLAS_TEST_FAIL_GEMM");
    one_bad("MINIBLAS_CBLAS_TUNING=split_cols=-2", "split_cols");
    one_bad("MINIBLAS_CBLAS_TUNING=split_vec=-2", "split_vec");
    one_bad("MINIBLAS_CBLAS_TUNING=split_vec=1e6", "split_vec");
    one_bad("MINIBLAS_CBLAS_TEST_FAIL_REDUCE=x", "MINIBLAS_CBLAS_TEST_FAIL_REDUCE");
    one_bad("MINIBLAS_CBLAS_TEST_FAIL_REDUCE=1@64", "MINIBLAS_CBLAS_TEST_FAIL_REDUCE");
    one_bad("MINIBLAS_CBLAS_TUNING=pannel=96", "pannel");
    one_bad("MINIBLAS_CBLAS_TUNING=panel", "panel");
    one_bad("MINIBLAS_CBLAS_TUNING=panel=abc", "panel");
    one_bad("MINIBLAS_CBLAS_TUNING=panel=off", "panel");
    one_bad("MINIBLAS_CBLAS_TUNING=chunk_mb=0", "chunk_mb");
    one_bad("MINIBLAS_CBLAS_TUNING=chunk_mb=4097", "chunk_mb");
    one_bad("MINIBLAS_CBLAS_TUNING=nslab=65", "nslab");
    one_bad("MINIBLAS_CBLAS_TUNING=copy_threads=0", "copy_threads");
    one_bad("MINIBLAS_CBLAS_TUNING=pin_row_kb=-1", "pin_row_kb");
    one_bad("MINIBLAS_CBLAS_TUNING=pin_row_kb=never", "pin_row_kb");
    one_bad("MINIBLAS_CBLAS_TUNING=pin_row_kb=1048577", "pin_row_kb");
    one_bad("MINIBLAS_CBLAS_TUNING=kslab=-3", "kslab");
    one_bad("MINIBLAS_CBLAS_TUNING=row_gemm_k=-1", "row_gemm_k");
    one_bad("MINIBLAS_CBLAS_TUNING=a_parts=2", "a_parts");
    one_bad("MINIBLAS_CBLAS_TUNING=a_parts=never", "a_parts");
    one_bad("MINIBLAS_CBLAS_TUNING=head_rows=2", "head_rows");
    one_bad("MINIBLAS_CBLAS_TUNING=row_out=on", "row_out");
    /* settings no longer read: named, with what replaces them */
    one_bad("MINIBLAS_CBLAS_PANEL=96", "MINIBLAS_CBLAS_TUNING=panel");
    one_bad("MINIBLAS_CBLAS_STREAM_STORES=1", "MINIBLAS_CBLAS_STREAM_STORES");
    one_bad("MINIBLAS_CBLAS_TAPER=0", "MINIBLAS_CBLAS_TAPER");

    /* several at once: one line each; the good ones around them still apply */
    mbc_config c;
    char out[4096];
    const char *env[] = {"MINIBLAS_CBLAS_VERBOSE=x", "MINIBLAS_CBLAS_MIN_SGEMM=5",
                         "MINIBLAS_CBLAS_TUNING=panel=abc,foo=1,chunk_mb=0,nslab=65,copy_threads=4,kslab=32",
                         "MINIBLAS_CBLAS_CHUNK_MB=1", NULL};
    int n = read_env(env, &c, out, sizeof out);
    CHECKF(n == 6, "several: %d lines:\n%s", n, out);
    CHECKF(c.verbose == 0 && c.xover[MBC_X_SGEMM] == 5 && c.copy_threads == 4 && c.kslab == 32 &&
              c.panel == 0 && c.nslab == 4 && c.chunk_max == (size_t)16 << 20,
          "several: verbose %d sgemm %lld threads %d kslab %lld panel %lld nslab %lld chunk %zu",
          c.verbose, (long long)c.xover[MBC_X_SGEMM], c.copy_threads, (long long)c.kslab,
          (long long)c.panel, (long long)c.nslab, c.chunk_max);
}

/* ------------------------------------------------------------------ the library */

/* Child: the first calls of a process with bad settings; stderr goes to the parent. */
static int child_calls(void) {
    float x[64], y[64];
    double want = 0;
    for (int i = 0; i < 64; ++i) x[i] = (float)(i % 7) - 3, y[i] = (float)(i % 5) * 0.5f, want += (double)x[i] * y[i];
    float got = 0;
    for (int r = 0; r < 3; ++r) got = cblas_sdot(64, x, 1, y, 1);
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_AUTO);
    if (fabs(got - want) > 1e-3) {
        fprintf(stdout, "sdot %g, want %g\n", got, want);
        return 1;
    }
    return 0;
}

static void test_library(const char *self) {
    int fd[2];
    if (pipe(fd)) {
        perror("pipe");
        ++g_fail;
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 2);
        close(fd[0]);
        unsetenv("MINIBLAS_CBLAS_VERBOSE");
        setenv("MINIBLAS_CBLAS_GPU", "0", 1);
        setenv("MINIBLAS_CBLAS_MIN_DOT", "lots", 1);
        setenv("MINIBLAS_CBLAS_TUNING", "panel=96,bogus=1", 1);
        execl(self, self, "calls", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char err[8192];
    size_t got = 0;
    ssize_t r;
    while (got + 1 < sizeof err && (r = read(fd[0], err + got, sizeof err - 1 - got)) > 0)
        got += (size_t)r;
    err[got] = '\0';
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "library child: status 0x%x; stderr:\n%s", st, err);
    int lines = 0;
    for (const char *p = err; *p; ++p) lines += *p == '\n';
    CHECKF(lines == 2 && strstr(err, "MINIBLAS_CBLAS_MIN_DOT=lots") && strstr(err, "bogus"),
          "library child: want one line for each of the 2 bad settings, got %d:\n%s", lines, err);
    CHECKF(strstr(err, "(keys: panel, kslab, nslab, chunk_mb, copy_threads, pin_row_kb, row_gemm_k, head_rows, row_out, split_cols, "
                       "split_vec, a_parts; e.g."),
           "the unknown key's line lists every key:\n%s", err);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "calls")) return child_calls();
    test_defaults();
    test_good();
    test_bad();
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0) {
        self[len] = '\0';
        test_library(self);
    } else {
        CHECKF(0, "readlink /proc/self/exe");
    }
    if (g_fail) {
        fprintf(stderr, "test_cblas_config_cpu: %d failures\n", g_fail);
        return 1;
    }
    printf("test_cblas_config_cpu: all passed\n");
    return 0;
}
