/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Support for the GPU correctness tests; see gpu_test_util.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "gpu_test_util.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *g_name = "test";
static uint64_t g_seed, g_state;
static int g_quick;
static long g_passed, g_failed, g_printed;
static char g_context[512];

#define MBT_MAX_PRINTED 200

/* ------------------------------------------------------------------ start, end */

void mbt_require_gpu(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("no CUDA device: skipped\n");
        fflush(stdout);
        exit(77);
    }
}

void mbt_init(const char *testname) {
    g_name = testname;
    setvbuf(stdout, NULL, _IOLBF, 0);
    mbt_require_gpu();
    const char *s = getenv("MINIBLAS_TEST_SEED");
    if (s && *s)
        g_seed = strtoull(s, NULL, 0);
    else
        g_seed = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ (uint64_t)clock();
    g_state = g_seed;
    const char *q = getenv("MINIBLAS_TEST_QUICK");
    g_quick = q && *q && strcmp(q, "0") != 0;
    /* "auto" must mean auto: the user's shell may select rungs. */
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        char var[64];
        const char *name = miniblas_op_name((miniblas_op_t)op);
        snprintf(var, sizeof var, "MINIBLAS_%s", name ? name : "");
        for (char *c = var; *c; ++c)
            if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
        unsetenv(var);
    }
    unsetenv("MINIBLAS_MATH_MODE");
    int dev = 0;
    struct cudaDeviceProp prop;
    MBT_CUDA(cudaGetDevice(&dev));
    MBT_CUDA(cudaGetDeviceProperties(&prop, dev));
    printf("%s: seed %" PRIu64 " (replay: MINIBLAS_TEST_SEED=%" PRIu64 ")%s, device %d %s (cc %d.%d)\n",
           g_name, g_seed, g_seed, g_quick ? ", quick mode" : "", dev, prop.name, prop.major,
           prop.minor);
}

int mbt_quick(void) { return g_quick; }

long mbt_failures(void) { return g_failed; }

int mbt_finish(void) {
    if (g_printed > MBT_MAX_PRINTED)
        printf("(%ld failure messages not printed)\n", g_printed - MBT_MAX_PRINTED);
    if (g_failed) printf("replay with MINIBLAS_TEST_SEED=%" PRIu64 "\n", g_seed);
    printf("%s: %ld passed, %ld failed\n", g_name, g_passed, g_failed);
    fflush(stdout);
    return g_failed ? 1 : 0;
}

/* ------------------------------------------------------------------ RNG */

uint64_t mbt_seed(void) { return g_seed; }

uint64_t mbt_rand_u64(void) { /* splitmix64 */
    uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double mbt_rand_uniform(void) { return (double)(mbt_rand_u64() >> 11) * 0x1.0p-52 - 1.0; }

double mbt_rand_scalar(void) {
    double v = mbt_rand_uniform();
    double m = 0.1 + 0.9 * fabs(v);
    return v < 0 ? -m : m;
}

/* ------------------------------------------------------------------ elements */

#define SENT_F 0x7FC0DEADu
#define SENT_D 0x7FF8DEADBEEFDEADull
#define NAN2_F 0x7FC0BEEFu
#define NAN2_D 0x7FF8BEEFBEEFBEEFull

double mbt_get(const void *p, size_t i, int dbl) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

void mbt_set(void *p, size_t i, double v, int dbl) {
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

void mbt_fill_uniform(void *p, size_t n, int dbl) {
    if (dbl) {
        double *d = p;
        for (size_t i = 0; i < n; ++i) d[i] = mbt_rand_uniform();
    } else {
        float *f = p;
        for (size_t i = 0; i < n; ++i) f[i] = (float)mbt_rand_uniform();
    }
}

void mbt_set_sentinel(void *p, size_t i, int dbl) {
    if (dbl) {
        uint64_t b = SENT_D;
        memcpy((double *)p + i, &b, 8);
    } else {
        uint32_t b = SENT_F;
        memcpy((float *)p + i, &b, 4);
    }
}

void mbt_set_nan2(void *p, size_t i, int dbl) {
    if (dbl) {
        uint64_t b = NAN2_D;
        memcpy((double *)p + i, &b, 8);
    } else {
        uint32_t b = NAN2_F;
        memcpy((float *)p + i, &b, 4);
    }
}

int mbt_is_sentinel(const void *p, size_t i, int dbl) {
    if (dbl) {
        uint64_t b;
        memcpy(&b, (const double *)p + i, 8);
        return b == SENT_D;
    }
    uint32_t b;
    memcpy(&b, (const float *)p + i, 4);
    return b == SENT_F;
}

void mbt_poison(void *p, size_t n, int dbl) {
    if (dbl) {
        uint64_t *u = p;
        for (size_t i = 0; i < n; ++i) u[i] = SENT_D;
    } else {
        uint32_t *u = p;
        for (size_t i = 0; i < n; ++i) u[i] = SENT_F;
    }
}

int mbt_same_bits(const void *a, const void *b, size_t i, int dbl) {
    size_t e = mbt_elem(dbl);
    return memcmp((const char *)a + i * e, (const char *)b + i * e, e) == 0;
}

/* ------------------------------------------------------------------ memory */

void mbt_context(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_context, sizeof g_context, fmt, ap);
    va_end(ap);
}

void mbt_cuda_check(cudaError_t e, const char *what, const char *file, int line) {
    if (e == cudaSuccess) return;
    printf("CUDA error %s (%s) in %s at %s:%d\n  while: %s\n", cudaGetErrorName(e),
           cudaGetErrorString(e), what, file, line, g_context[0] ? g_context : "(start)");
    printf("replay with MINIBLAS_TEST_SEED=%" PRIu64 "\n", g_seed);
    printf("%s: %ld passed, %ld failed\n", g_name, g_passed, g_failed + 1);
    fflush(stdout);
    exit(1);
}

void *mbt_host_alloc(size_t bytes) {
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        printf("host allocation of %zu bytes failed\n  while: %s\n", bytes, g_context);
        printf("%s: %ld passed, %ld failed\n", g_name, g_passed, g_failed + 1);
        exit(1);
    }
    return p;
}

void *mbt_dev_alloc(size_t bytes) {
    void *p = NULL;
    mbt_cuda_check(cudaMalloc(&p, bytes < 256 ? 256 : bytes), "cudaMalloc", __FILE__, __LINE__);
    return p;
}

void mbt_dev_free(void *p) {
    if (p) mbt_cuda_check(cudaFree(p), "cudaFree", __FILE__, __LINE__);
}

void mbt_h2d(void *dst, const void *src, size_t bytes) {
    if (!bytes) return;
    mbt_cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice),
                   "cudaMemcpy host to device", __FILE__, __LINE__);
    /* from pageable memory the copy may return before its DMA lands, and a non-blocking
     * stream does not wait for the legacy stream: the data is in place on return */
    mbt_cuda_check(cudaStreamSynchronize(0), "cudaStreamSynchronize after an upload", __FILE__,
                   __LINE__);
}

void mbt_d2h(void *dst, const void *src, size_t bytes) {
    if (bytes)
        mbt_cuda_check(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost),
                       "cudaMemcpy device to host", __FILE__, __LINE__);
}

void mbt_device_sync(void) {
    mbt_cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", __FILE__, __LINE__);
}

/* ------------------------------------------------------------------ counting */

void mbt_pass(mbt_variant *v) {
    ++g_passed;
    if (v) ++v->passed;
}

static void vfail(mbt_variant *v, const char *op, const char *kase, const char *fmt, va_list ap) {
    ++g_failed;
    if (v) ++v->failed;
    if (++g_printed > MBT_MAX_PRINTED) return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    printf("FAIL %s [%s] %s: %s\n", op ? op : "-", v ? v->label : "-", kase ? kase : "-", msg);
}

void mbt_fail(mbt_variant *v, const char *op, const char *kase, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfail(v, op, kase, fmt, ap);
    va_end(ap);
}

int mbt_expect(mbt_variant *v, int ok, const char *op, const char *kase, const char *fmt, ...) {
    if (ok) {
        mbt_pass(v);
        return 1;
    }
    va_list ap;
    va_start(ap, fmt);
    vfail(v, op, kase, fmt, ap);
    va_end(ap);
    return 0;
}

/* ------------------------------------------------------------------ variants */

static int wanted(const char *label) {
    const char *f = getenv("MINIBLAS_TEST_RUNG");
    if (!f || !*f) return 1;
    size_t len = strlen(label);
    for (const char *p = f; *p;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == len && strncmp(p, label, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

int mbt_variants(miniblas_op_t op, mbt_variant **out) {
    int n = miniblas_rung_count(op), any_reduced = 0, k = 0;
    mbt_variant *v = mbt_host_alloc(sizeof *v * (size_t)(n + 2));
    /* A rung this GPU or this build cannot run (a Hopper-only rung elsewhere, or on Hopper with
     * no sm_90a code in the library) is skipped, with the library's reason. */
    miniblas_handle_t hq = NULL;
    miniblas_status_t cst = miniblas_create(&hq);
    if (cst != MINIBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "mbt_variants: miniblas_create: %s: %s\n", miniblas_status_string(cst),
                miniblas_last_create_error());
        exit(1);
    }
    for (int i = 0; i < n; ++i) {
        unsigned fl = miniblas_rung_flags(op, i);
        const char *name = miniblas_rung_name(op, i);
        if (fl & MINIBLAS_RUNG_REDUCED_PRECISION) any_reduced = 1;
        if (!name || !wanted(name)) continue;
        mbt_variant *x = &v[k++];
        snprintf(x->label, sizeof x->label, "%s", name);
        x->rung = name;
        x->index = i;
        x->reduced = (fl & MINIBLAS_RUNG_REDUCED_PRECISION) != 0;
        x->skip = miniblas_rung_supported(hq, op, name) == MINIBLAS_STATUS_NOT_SUPPORTED;
        if (x->skip)
            printf("%s rung %s skipped: %s\n", miniblas_op_name(op), name, miniblas_last_error(hq));
    }
    miniblas_destroy(hq);
    if (wanted("auto")) {
        mbt_variant *x = &v[k++];
        snprintf(x->label, sizeof x->label, "auto");
        x->rung = "auto";
        x->index = -1;
    }
    if (any_reduced && wanted("auto+tf32")) {
        mbt_variant *x = &v[k++];
        snprintf(x->label, sizeof x->label, "auto+tf32");
        x->rung = "auto";
        x->index = -1;
        x->reduced = 1;
    }
    *out = v;
    return k;
}

int mbt_select(miniblas_handle_t h, miniblas_op_t op, mbt_variant *v) {
    const char *opn = miniblas_op_name(op);
    miniblas_status_t st = miniblas_set_math_mode(
        h, v->reduced ? MINIBLAS_MATH_ALLOW_REDUCED_PRECISION : MINIBLAS_MATH_DEFAULT);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(v, opn, "select", "miniblas_set_math_mode: %s", miniblas_status_string(st));
        return 0;
    }
    st = miniblas_set_rung(h, op, v->rung);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(v, opn, "select", "miniblas_set_rung(%s): %s: %s", v->rung,
                 miniblas_status_string(st), miniblas_last_error(h));
        return 0;
    }
    const char *got = miniblas_get_rung(h, op);
    if (!got || strcmp(got, v->rung) != 0) {
        mbt_fail(v, opn, "select", "miniblas_get_rung = '%s' after selecting '%s'",
                 got ? got : "(null)", v->rung);
        return 0;
    }
    return 1;
}

int mbt_check_last_rung(miniblas_handle_t h, miniblas_op_t op, mbt_variant *v, const char *expect,
                        const char *kase) {
    const char *opn = miniblas_op_name(op);
    const char *got = miniblas_last_rung(h, op);
    if (!got) got = "(null)";
    if (expect)
        return mbt_expect(v, strcmp(got, expect) == 0, opn, kase,
                          "miniblas_last_rung = '%s', expected '%s'", got, expect);
    if (v->index >= 0)
        return mbt_expect(v, strcmp(got, v->rung) == 0, opn, kase,
                          "miniblas_last_rung = '%s', expected the selected rung '%s'", got,
                          v->rung);
    int n = miniblas_rung_count(op);
    for (int i = 0; i < n; ++i) {
        const char *name = miniblas_rung_name(op, i);
        if (name && strcmp(name, got) == 0) {
            int reduced = (miniblas_rung_flags(op, i) & MINIBLAS_RUNG_REDUCED_PRECISION) != 0;
            return mbt_expect(v, !reduced || v->reduced, opn, kase,
                              "auto chose the reduced-precision rung '%s' under the default "
                              "math mode",
                              got);
        }
    }
    mbt_fail(v, opn, kase, "auto: miniblas_last_rung = '%s' is no registered rung", got);
    return 0;
}

void mbt_print_variants(miniblas_op_t op, const mbt_variant *v, int n) {
    printf("%s:", miniblas_op_name(op));
    for (int i = 0; i < n; ++i)
        printf(" %s %s%d/%d", v[i].label, v[i].skip ? "(skipped) " : "", v[i].passed,
               v[i].passed + v[i].failed);
    printf("\n");
}
