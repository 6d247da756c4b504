/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The native API around the kernels: handles, streams (a created stream, and a CUDA graph
 * capture proving the work goes to the handle's stream), rung selection by name and by the
 * environment (MINIBLAS_SGEMM), math mode, invalid arguments of every op (status
 * MINIBLAS_STATUS_INVALID_VALUE, the CBLAS parameter number, nothing written), NULL handles,
 * and calls with nothing to compute (last rung "none"). The exhaustive argument rules are
 * tested on the CPU (the check is pure C); here a few per op go through the real entry points.
 */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_test_util.h"

#define OPN "api"

static const char *rung0(miniblas_op_t op) {
    const char *n = miniblas_rung_name(op, 0);
    return n ? n : "naive";
}

/* ------------------------------------------------------------------ a checked sgemm */

typedef struct sg {
    int64_t m, n, k;
    float alpha, beta;
    float *hA, *hB, *hC0, *ref;
    double *absab;
    float *dA, *dB, *dC;
} sg;

/* Column-major M x K times K x N, beta != 0, all leading dimensions tight. */
static void sg_init(sg *s, int64_t m, int64_t n, int64_t k) {
    s->m = m, s->n = n, s->k = k;
    s->alpha = (float)mbt_rand_scalar(), s->beta = (float)mbt_rand_scalar();
    s->hA = mbt_host_alloc((size_t)(m * k) * 4);
    s->hB = mbt_host_alloc((size_t)(k * n) * 4);
    s->hC0 = mbt_host_alloc((size_t)(m * n) * 4);
    s->ref = mbt_host_alloc((size_t)(m * n) * 4);
    s->absab = mbt_host_alloc((size_t)(m * n) * 8);
    mbt_fill_uniform(s->hA, (size_t)(m * k), 0);
    mbt_fill_uniform(s->hB, (size_t)(k * n), 0);
    mbt_fill_uniform(s->hC0, (size_t)(m * n), 0);
    memcpy(s->ref, s->hC0, (size_t)(m * n) * 4);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, s->alpha, s->hA,
                (int)m, s->hB, (int)k, s->beta, s->ref, (int)m);
    double *aa = mbt_host_alloc((size_t)(m * k) * 8), *ab = mbt_host_alloc((size_t)(k * n) * 8);
    for (int64_t i = 0; i < m * k; ++i) aa[i] = fabs(s->hA[i]);
    for (int64_t i = 0; i < k * n; ++i) ab[i] = fabs(s->hB[i]);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, aa, (int)m,
                ab, (int)k, 0.0, s->absab, (int)m);
    free(aa), free(ab);
    s->dA = mbt_dev_alloc((size_t)(m * k) * 4);
    s->dB = mbt_dev_alloc((size_t)(k * n) * 4);
    s->dC = mbt_dev_alloc((size_t)(m * n) * 4);
    mbt_h2d(s->dA, s->hA, (size_t)(m * k) * 4);
    mbt_h2d(s->dB, s->hB, (size_t)(k * n) * 4);
    mbt_h2d(s->dC, s->hC0, (size_t)(m * n) * 4);
}

static void sg_reset(sg *s) { mbt_h2d(s->dC, s->hC0, (size_t)(s->m * s->n) * 4); }

static miniblas_status_t sg_call(miniblas_handle_t h, sg *s) {
    return miniblas_sgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, s->m, s->n, s->k,
                          s->alpha, s->dA, s->m, s->dB, s->k, s->beta, s->dC, s->m);
}

/* 1 when the device C matches the reference within the gemm bound (full precision). */
static int sg_result_ok(sg *s, char *why, size_t size) {
    size_t mn = (size_t)(s->m * s->n);
    float *out = mbt_host_alloc(mn * 4);
    mbt_d2h(out, s->dC, mn * 4);
    int ok = 1;
    for (size_t i = 0; i < mn && ok; ++i) {
        double bound = 2.0 * (double)(s->k + 2) * FLT_EPSILON *
                           (fabs(s->alpha) * s->absab[i] + fabs(s->beta) * fabs(s->hC0[i])) +
                       1e-30;
        double err = fabs((double)out[i] - s->ref[i]);
        if (!(err <= bound)) {
            snprintf(why, size, "C[%zu] = %.9g, expected %.9g (bound %.3g)", i, out[i], s->ref[i],
                     bound);
            ok = 0;
        }
    }
    free(out);
    return ok;
}

/* 1 when the device C still holds C0, bit for bit. */
static int sg_untouched(sg *s) {
    size_t mn = (size_t)(s->m * s->n);
    float *out = mbt_host_alloc(mn * 4);
    mbt_d2h(out, s->dC, mn * 4);
    int same = memcmp(out, s->hC0, mn * 4) == 0;
    free(out);
    return same;
}

static void sg_free(sg *s) {
    free(s->hA), free(s->hB), free(s->hC0), free(s->ref), free(s->absab);
    mbt_dev_free(s->dA), mbt_dev_free(s->dB), mbt_dev_free(s->dC);
}

/* ------------------------------------------------------------------ handles, streams */

static void test_handles(void) {
    miniblas_handle_t a = NULL, b = NULL;
    miniblas_status_t sa = miniblas_create(&a), sb = miniblas_create(&b);
    mbt_expect(NULL, sa == MINIBLAS_STATUS_SUCCESS && sb == MINIBLAS_STATUS_SUCCESS && a && b && a != b,
               OPN, "create two handles", "statuses %s, %s; handles %p, %p",
               miniblas_status_string(sa), miniblas_status_string(sb), (void *)a, (void *)b);
    int dev = -1;
    MBT_CUDA(cudaGetDevice(&dev));
    mbt_expect(NULL, miniblas_get_device(a) == dev, OPN, "get_device",
               "miniblas_get_device = %d, current device %d", miniblas_get_device(a), dev);
    cudaStream_t s = (cudaStream_t)1;
    miniblas_status_t st = miniblas_get_stream(a, &s);
    mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && s == 0, OPN, "default stream",
               "miniblas_get_stream: %s, stream %p (expected the default stream 0)",
               miniblas_status_string(st), (void *)s);
    mbt_expect(NULL, miniblas_get_math_mode(a) == MINIBLAS_MATH_DEFAULT, OPN, "default math mode",
               "miniblas_get_math_mode = %d", (int)miniblas_get_math_mode(a));
    st = miniblas_set_math_mode(a, MINIBLAS_MATH_ALLOW_REDUCED_PRECISION);
    mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS &&
                         miniblas_get_math_mode(a) == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION,
               OPN, "set math mode", "%s, mode %d", miniblas_status_string(st),
               (int)miniblas_get_math_mode(a));
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        const char *r = miniblas_get_rung(a, (miniblas_op_t)op), *l = miniblas_last_rung(a, (miniblas_op_t)op);
        mbt_expect(NULL, r && strcmp(r, "auto") == 0 && l && strcmp(l, "") == 0 &&
                             miniblas_rung_count((miniblas_op_t)op) >= 1,
                   OPN, miniblas_op_name((miniblas_op_t)op),
                   "fresh handle: get_rung '%s' (expected auto), last_rung '%s' (expected \"\"), "
                   "%d rungs",
                   r ? r : "(null)", l ? l : "(null)", miniblas_rung_count((miniblas_op_t)op));
    }
    mbt_expect(NULL, miniblas_destroy(a) == MINIBLAS_STATUS_SUCCESS &&
                         miniblas_destroy(b) == MINIBLAS_STATUS_SUCCESS,
               OPN, "destroy", "miniblas_destroy failed");
    mbt_expect(NULL, miniblas_create(NULL) == MINIBLAS_STATUS_INVALID_VALUE, OPN, "create(NULL)",
               "expected MINIBLAS_STATUS_INVALID_VALUE");
    const char *vs = miniblas_version_string();
    mbt_expect(NULL, vs && *vs, OPN, "version", "miniblas_version_string is empty");
}

static void test_streams(void) {
    const char *kase = "sgemm on a created stream";
    mbt_context("%s", kase);
    miniblas_handle_t h = NULL;
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, OPN, kase, "miniblas_create failed");
        return;
    }
    cudaStream_t s = NULL, got = NULL;
    MBT_CUDA(cudaStreamCreate(&s));
    miniblas_status_t st = miniblas_set_stream(h, s);
    miniblas_status_t st2 = miniblas_get_stream(h, &got);
    mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && st2 == MINIBLAS_STATUS_SUCCESS && got == s,
               OPN, "set/get stream", "set %s, get %s, stream %p vs %p",
               miniblas_status_string(st), miniblas_status_string(st2), (void *)got, (void *)s);
    sg g;
    sg_init(&g, 65, 33, 17);
    st = sg_call(h, &g);
    MBT_CUDA(cudaStreamSynchronize(s));
    char why[200] = "";
    mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && sg_result_ok(&g, why, sizeof why), OPN,
               kase, "%s %s", miniblas_status_string(st), why);

    /* asum with a host result waits for the handle's stream. */
    float r = -1;
    st = miniblas_sasum(h, 65 * 17, g.dA, 1, &r);
    double ref = cblas_sasum(65 * 17, g.hA, 1);
    mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && fabs(r - ref) <= 65 * 17 * FLT_EPSILON * ref,
               OPN, "sasum on a created stream", "%s: %.9g, expected %.9g",
               miniblas_status_string(st), r, ref);

    /* Graph capture on a non-blocking stream: the kernel must be captured, not run (had it
     * gone to another stream it would have run at once), and the graph must compute C. */
    kase = "sgemm captured into a CUDA graph on the handle's stream";
    mbt_context("%s", kase);
    cudaStream_t cs = NULL;
    MBT_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    miniblas_set_stream(h, cs);
    miniblas_set_rung(h, MINIBLAS_OP_SGEMM, rung0(MINIBLAS_OP_SGEMM));
    sg_reset(&g);
    MBT_CUDA(cudaDeviceSynchronize());
    cudaGraph_t graph = NULL;
    MBT_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    st = sg_call(h, &g);
    cudaError_t ce = cudaStreamEndCapture(cs, &graph);
    cudaGetLastError();
    if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && ce == cudaSuccess && graph, OPN, kase,
                    "call %s (%s), end capture %s", miniblas_status_string(st),
                    miniblas_last_error(h), cudaGetErrorName(ce))) {
        if (graph) cudaGraphDestroy(graph);
    } else {
        MBT_CUDA(cudaDeviceSynchronize());
        mbt_expect(NULL, sg_untouched(&g), OPN, kase,
                   "C changed before the graph was launched: the kernel did not go to the "
                   "handle's stream");
        cudaGraphExec_t exec = NULL;
        MBT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
        MBT_CUDA(cudaGraphLaunch(exec, cs));
        MBT_CUDA(cudaStreamSynchronize(cs));
        why[0] = '\0';
        mbt_expect(NULL, sg_result_ok(&g, why, sizeof why), OPN, kase, "graph result: %s", why);
        mbt_expect(NULL, strcmp(miniblas_last_rung(h, MINIBLAS_OP_SGEMM), rung0(MINIBLAS_OP_SGEMM)) == 0,
                   OPN, kase, "last_rung '%s'", miniblas_last_rung(h, MINIBLAS_OP_SGEMM));
        MBT_CUDA(cudaGraphExecDestroy(exec));
        MBT_CUDA(cudaGraphDestroy(graph));
    }
    miniblas_destroy(h);
    MBT_CUDA(cudaStreamDestroy(s));
    MBT_CUDA(cudaStreamDestroy(cs));
    sg_free(&g);
}

/* ------------------------------------------------------------------ rung selection */

static void test_rung_selection(void) {
    miniblas_handle_t h = NULL;
    mbt_context("rung selection");
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, OPN, "rung selection", "miniblas_create failed");
        return;
    }
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        miniblas_op_t o = (miniblas_op_t)op;
        const char *opn = miniblas_op_name(o);
        miniblas_status_t st = miniblas_set_rung(h, o, "no-such-rung");
        const char *msg = miniblas_last_error(h);
        int lists = msg && strstr(msg, "auto") != NULL;
        for (int i = 0; i < miniblas_rung_count(o) && lists; ++i)
            lists = strstr(msg, miniblas_rung_name(o, i)) != NULL;
        mbt_expect(NULL, st == MINIBLAS_STATUS_UNKNOWN_RUNG && lists, opn, "unknown rung name",
                   "status %s, message '%s' (must list auto and every rung)",
                   miniblas_status_string(st), msg ? msg : "(null)");
        const char *cur = miniblas_get_rung(h, o);
        mbt_expect(NULL, cur && strcmp(cur, "auto") == 0, opn, "unknown rung name",
                   "the setting changed to '%s'", cur ? cur : "(null)");
        for (int i = 0; i < miniblas_rung_count(o); ++i) {
            const char *name = miniblas_rung_name(o, i);
            st = miniblas_set_rung(h, o, name);
            cur = miniblas_get_rung(h, o);
            mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && cur && strcmp(cur, name) == 0, opn,
                       "set_rung every name", "set_rung(%s): %s, get_rung '%s'", name,
                       miniblas_status_string(st), cur ? cur : "(null)");
        }
        st = miniblas_set_rung(h, o, "auto");
        cur = miniblas_get_rung(h, o);
        mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && cur && strcmp(cur, "auto") == 0, opn,
                   "set_rung auto", "%s, get_rung '%s'", miniblas_status_string(st),
                   cur ? cur : "(null)");
        mbt_expect(NULL, miniblas_rung_name(o, miniblas_rung_count(o)) == NULL &&
                             miniblas_rung_name(o, -1) == NULL,
                   opn, "rung_name out of range", "not NULL");
    }
    miniblas_destroy(h);
}

static void test_environment(void) {
    const char *kase = "MINIBLAS_SGEMM=naive";
    mbt_context("%s", kase);
    sg g;
    sg_init(&g, 33, 17, 65);
    miniblas_handle_t h = NULL;
    setenv("MINIBLAS_SGEMM", "naive", 1);
    miniblas_status_t st = miniblas_create(&h);
    unsetenv("MINIBLAS_SGEMM");
    if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "miniblas_create: %s",
                    miniblas_status_string(st)))
        return;
    const char *cur = miniblas_get_rung(h, MINIBLAS_OP_SGEMM);
    mbt_expect(NULL, cur && strcmp(cur, "naive") == 0, OPN, kase, "get_rung '%s'", cur ? cur : "(null)");
    st = sg_call(h, &g);
    char why[200] = "";
    mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && sg_result_ok(&g, why, sizeof why), OPN, kase,
               "%s %s", miniblas_status_string(st), why);
    const char *last = miniblas_last_rung(h, MINIBLAS_OP_SGEMM);
    mbt_expect(NULL, strcmp(last, "naive") == 0, OPN, kase, "last_rung '%s'", last);
    /* The handle setting wins over the environment. */
    const char *other = NULL;
    for (int i = miniblas_rung_count(MINIBLAS_OP_SGEMM) - 1; i >= 0 && !other; --i) {
        const char *name = miniblas_rung_name(MINIBLAS_OP_SGEMM, i);
        if (!(miniblas_rung_flags(MINIBLAS_OP_SGEMM, i) &
              (MINIBLAS_RUNG_REDUCED_PRECISION | MINIBLAS_RUNG_NEEDS_SM90A)) &&
            strcmp(name, "naive") != 0 &&
            miniblas_rung_supported(h, MINIBLAS_OP_SGEMM, name) == MINIBLAS_STATUS_SUCCESS)
            other = name;
    }
    if (other) {
        miniblas_set_rung(h, MINIBLAS_OP_SGEMM, other);
        sg_reset(&g);
        st = sg_call(h, &g);
        last = miniblas_last_rung(h, MINIBLAS_OP_SGEMM);
        mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && strcmp(last, other) == 0 &&
                             sg_result_ok(&g, why, sizeof why),
                   OPN, "handle setting wins over MINIBLAS_SGEMM=naive",
                   "%s, last_rung '%s' (expected '%s') %s", miniblas_status_string(st), last,
                   other, why);
    }
    miniblas_destroy(h);

    kase = "MINIBLAS_SGEMM=no-such-rung";
    mbt_context("%s", kase);
    setenv("MINIBLAS_SGEMM", "no-such-rung", 1);
    st = miniblas_create(&h);
    unsetenv("MINIBLAS_SGEMM");
    if (mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "miniblas_create: %s",
                   miniblas_status_string(st))) {
        sg_reset(&g);
        st = sg_call(h, &g);
        MBT_CUDA(cudaDeviceSynchronize());
        mbt_expect(NULL, st == MINIBLAS_STATUS_UNKNOWN_RUNG, OPN, kase,
                   "sgemm returned %s, expected MINIBLAS_STATUS_UNKNOWN_RUNG",
                   miniblas_status_string(st));
        mbt_expect(NULL, sg_untouched(&g), OPN, kase, "C was written");
        /* other ops are not affected */
        float r = -1;
        st = miniblas_sasum(h, 17, g.dA, 1, &r);
        mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "sasum returned %s",
                   miniblas_status_string(st));
        /* the handle setting wins */
        miniblas_set_rung(h, MINIBLAS_OP_SGEMM, "naive");
        st = sg_call(h, &g);
        last = miniblas_last_rung(h, MINIBLAS_OP_SGEMM);
        mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && strcmp(last, "naive") == 0 &&
                             sg_result_ok(&g, why, sizeof why),
                   OPN, "handle setting wins over MINIBLAS_SGEMM=no-such-rung",
                   "%s, last_rung '%s' %s", miniblas_status_string(st), last, why);
        miniblas_destroy(h);
    }

    kase = "MINIBLAS_MATH_MODE=tf32";
    setenv("MINIBLAS_MATH_MODE", "tf32", 1);
    st = miniblas_create(&h);
    unsetenv("MINIBLAS_MATH_MODE");
    if (mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "miniblas_create: %s",
                   miniblas_status_string(st))) {
        mbt_expect(NULL, miniblas_get_math_mode(h) == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION, OPN,
                   kase, "math mode %d", (int)miniblas_get_math_mode(h));
        miniblas_destroy(h);
    }
    sg_free(&g);
}

/* ------------------------------------------------------------------ invalid arguments */

typedef struct gemm_bad {
    int layout, ta, tb;
    int64_t m, n, k, lda, ldb, ldc;
    int nullA, nullB, nullC;
    int param;
} gemm_bad;

static void test_invalid_gemm(miniblas_handle_t h, int dbl) {
    const char *opn = dbl ? "dgemm" : "sgemm";
    const size_t es = mbt_elem(dbl), nbuf = 4096;
    /* Valid: column-major M=7 N=5 K=3 (NN: lda >= 7, ldb >= 3, ldc >= 7); row-major NN:
     * lda >= K = 3, ldb >= N = 5, ldc >= N = 5. */
    const gemm_bad cases[] = {
        {100, 111, 111, 7, 5, 3, 7, 3, 7, 0, 0, 0, 1},
        {102, 110, 111, 7, 5, 3, 7, 3, 7, 0, 0, 0, 2},
        {102, 111, 115, 7, 5, 3, 7, 3, 7, 0, 0, 0, 3},
        {102, 111, 111, -1, 5, 3, 7, 3, 7, 0, 0, 0, 4},
        {102, 111, 111, 7, -1, 3, 7, 3, 7, 0, 0, 0, 5},
        {102, 111, 111, 7, 5, -1, 7, 3, 7, 0, 0, 0, 6},
        {102, 111, 111, 7, 5, 3, 6, 3, 7, 0, 0, 0, 9},
        {102, 111, 111, 7, 5, 3, 7, 2, 7, 0, 0, 0, 11},
        {102, 111, 111, 7, 5, 3, 7, 3, 6, 0, 0, 0, 14},
        {102, 112, 111, 7, 5, 3, 2, 3, 7, 0, 0, 0, 9},   /* A^T: lda >= K */
        {102, 111, 112, 7, 5, 3, 7, 4, 7, 0, 0, 0, 11},  /* B^T: ldb >= N */
        {101, 111, 111, 7, 5, 3, 2, 5, 5, 0, 0, 0, 9},   /* row: lda >= K */
        {101, 111, 111, 7, 5, 3, 3, 4, 5, 0, 0, 0, 11},  /* row: ldb >= N */
        {101, 111, 111, 7, 5, 3, 3, 5, 4, 0, 0, 0, 14},  /* row: ldc >= N */
        {102, 111, 111, 7, 5, 3, 7, 3, 7, 1, 0, 0, 8},
        {102, 111, 111, 7, 5, 3, 7, 3, 7, 0, 1, 0, 10},
        {102, 111, 111, 7, 5, 3, 7, 3, 7, 0, 0, 1, 13},
    };
    void *img = mbt_host_alloc(nbuf * es), *out = mbt_host_alloc(nbuf * es);
    mbt_fill_uniform(img, nbuf, dbl);
    char *dA = mbt_dev_alloc(nbuf * es), *dB = mbt_dev_alloc(nbuf * es), *dC = mbt_dev_alloc(nbuf * es);
    mbt_h2d(dA, img, nbuf * es);
    mbt_h2d(dB, img, nbuf * es);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const gemm_bad *c = &cases[i];
        char kase[160];
        snprintf(kase, sizeof kase, "invalid: layout=%d ta=%d tb=%d M=%lld N=%lld K=%lld lda=%lld ldb=%lld ldc=%lld%s%s%s",
                 c->layout, c->ta, c->tb, (long long)c->m, (long long)c->n, (long long)c->k,
                 (long long)c->lda, (long long)c->ldb, (long long)c->ldc, c->nullA ? " A=NULL" : "",
                 c->nullB ? " B=NULL" : "", c->nullC ? " C=NULL" : "");
        mbt_context("%s %s", opn, kase);
        mbt_h2d(dC, img, nbuf * es);
        const void *A = c->nullA ? NULL : dA, *B = c->nullB ? NULL : dB;
        void *C = c->nullC ? NULL : dC;
        miniblas_status_t st =
            dbl ? miniblas_dgemm(h, (miniblas_layout_t)c->layout, (miniblas_transpose_t)c->ta,
                                 (miniblas_transpose_t)c->tb, c->m, c->n, c->k, 0.5, A, c->lda, B,
                                 c->ldb, 0.25, C, c->ldc)
                : miniblas_sgemm(h, (miniblas_layout_t)c->layout, (miniblas_transpose_t)c->ta,
                                 (miniblas_transpose_t)c->tb, c->m, c->n, c->k, 0.5f, A, c->lda,
                                 B, c->ldb, 0.25f, C, c->ldc);
        int param = miniblas_last_error_param(h);
        MBT_CUDA(cudaDeviceSynchronize());
        mbt_d2h(out, dC, nbuf * es);
        mbt_expect(NULL, st == MINIBLAS_STATUS_INVALID_VALUE && param == c->param &&
                             memcmp(out, img, nbuf * es) == 0,
                   opn, kase, "status %s, parameter %d (expected %d), C %s; message '%s'",
                   miniblas_status_string(st), param, c->param,
                   memcmp(out, img, nbuf * es) ? "WRITTEN" : "untouched", miniblas_last_error(h));
    }
    /* M = 0 (and N = 0): success, nothing computed, last rung "none", C untouched. */
    for (int which = 0; which < 2; ++which) {
        const char *kase = which ? "N = 0" : "M = 0";
        mbt_h2d(dC, img, nbuf * es);
        int64_t m = which ? 7 : 0, n = which ? 0 : 5;
        miniblas_status_t st =
            dbl ? miniblas_dgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, m, n, 3,
                                 1.0, (void *)dA, 7, (void *)dB, 3, 0.0, (void *)dC, 7)
                : miniblas_sgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, m, n, 3,
                                 1.0f, (void *)dA, 7, (void *)dB, 3, 0.0f, (void *)dC, 7);
        const char *last = miniblas_last_rung(h, dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM);
        MBT_CUDA(cudaDeviceSynchronize());
        mbt_d2h(out, dC, nbuf * es);
        mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && last && strcmp(last, "none") == 0 &&
                             memcmp(out, img, nbuf * es) == 0,
                   opn, kase, "status %s, last_rung '%s', C %s", miniblas_status_string(st),
                   last ? last : "(null)", memcmp(out, img, nbuf * es) ? "WRITTEN" : "untouched");
    }
    mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(img), free(out);
}

typedef struct omat_bad {
    int layout, trans;
    int64_t rows, cols, lda, ldb;
    int nullA, nullB;
    int param;
} omat_bad;

static void test_invalid_omatcopy(miniblas_handle_t h, int dbl) {
    const char *opn = dbl ? "domatcopy" : "somatcopy";
    const size_t es = mbt_elem(dbl), nbuf = 1024;
    /* Valid: rows=7 cols=5; col NoTrans lda, ldb >= 7; col Trans ldb >= 5; row NoTrans
     * lda, ldb >= 5. */
    const omat_bad cases[] = {
        {0, 111, 7, 5, 7, 7, 0, 0, 1},       {102, 115, 7, 5, 7, 7, 0, 0, 2},
        {102, 111, -1, 5, 7, 7, 0, 0, 3},    {102, 111, 7, -1, 7, 7, 0, 0, 4},
        {102, 111, 7, 5, 6, 7, 0, 0, 7},     {102, 111, 7, 5, 7, 6, 0, 0, 9},
        {102, 112, 7, 5, 7, 4, 0, 0, 9},     {101, 111, 7, 5, 4, 5, 0, 0, 7},
        {101, 112, 7, 5, 5, 6, 0, 0, 9},     {102, 111, 7, 5, 7, 7, 1, 0, 6},
        {102, 111, 7, 5, 7, 7, 0, 1, 8},
    };
    void *img = mbt_host_alloc(nbuf * es), *out = mbt_host_alloc(nbuf * es);
    mbt_fill_uniform(img, nbuf, dbl);
    char *dA = mbt_dev_alloc(nbuf * es), *dB = mbt_dev_alloc(nbuf * es);
    mbt_h2d(dA, img, nbuf * es);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] + 1; ++i) {
        /* the last iteration: rows = 0, a valid call with nothing to do */
        omat_bad empty = {102, 111, 0, 5, 1, 1, 0, 0, 0};
        const omat_bad *c = i < sizeof cases / sizeof cases[0] ? &cases[i] : &empty;
        char kase[160];
        snprintf(kase, sizeof kase, "%s: layout=%d trans=%d rows=%lld cols=%lld lda=%lld ldb=%lld%s%s",
                 c->param ? "invalid" : "empty", c->layout, c->trans, (long long)c->rows,
                 (long long)c->cols, (long long)c->lda, (long long)c->ldb,
                 c->nullA ? " A=NULL" : "", c->nullB ? " B=NULL" : "");
        mbt_context("%s %s", opn, kase);
        mbt_h2d(dB, img, nbuf * es);
        const void *A = c->nullA ? NULL : dA;
        void *B = c->nullB ? NULL : dB;
        miniblas_status_t st =
            dbl ? miniblas_domatcopy(h, (miniblas_layout_t)c->layout, (miniblas_transpose_t)c->trans,
                                     c->rows, c->cols, 2.0, A, c->lda, B, c->ldb)
                : miniblas_somatcopy(h, (miniblas_layout_t)c->layout, (miniblas_transpose_t)c->trans,
                                     c->rows, c->cols, 2.0f, A, c->lda, B, c->ldb);
        int param = miniblas_last_error_param(h);
        const char *last = miniblas_last_rung(h, dbl ? MINIBLAS_OP_DOMATCOPY : MINIBLAS_OP_SOMATCOPY);
        MBT_CUDA(cudaDeviceSynchronize());
        mbt_d2h(out, dB, nbuf * es);
        int untouched = memcmp(out, img, nbuf * es) == 0;
        if (c->param)
            mbt_expect(NULL, st == MINIBLAS_STATUS_INVALID_VALUE && param == c->param && untouched,
                       opn, kase, "status %s, parameter %d (expected %d), B %s; message '%s'",
                       miniblas_status_string(st), param, c->param,
                       untouched ? "untouched" : "WRITTEN", miniblas_last_error(h));
        else
            mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && untouched && last && strcmp(last, "none") == 0,
                       opn, kase, "status %s, last_rung '%s', B %s", miniblas_status_string(st),
                       last ? last : "(null)", untouched ? "untouched" : "WRITTEN");
    }
    mbt_dev_free(dA), mbt_dev_free(dB);
    free(img), free(out);
}

static miniblas_status_t reduce_call(miniblas_handle_t h, int dbl, int dot, int device, int64_t n,
                                     const void *x, int64_t incx, const void *y, int64_t incy,
                                     void *r) {
    if (dot) {
        if (dbl)
            return device ? miniblas_ddot_device(h, n, x, incx, y, incy, r)
                          : miniblas_ddot(h, n, x, incx, y, incy, r);
        return device ? miniblas_sdot_device(h, n, x, incx, y, incy, r)
                      : miniblas_sdot(h, n, x, incx, y, incy, r);
    }
    if (dbl) return device ? miniblas_dasum_device(h, n, x, incx, r) : miniblas_dasum(h, n, x, incx, r);
    return device ? miniblas_sasum_device(h, n, x, incx, r) : miniblas_sasum(h, n, x, incx, r);
}

typedef struct red_bad {
    int64_t n, incx, incy;
    int nullx, nully, nullr;
    int param_asum, param_dot; /* 0: not a case for that op */
} red_bad;

static void test_invalid_reduce(miniblas_handle_t h, int dbl, int dot) {
    miniblas_op_t op = dot ? (dbl ? MINIBLAS_OP_DDOT : MINIBLAS_OP_SDOT)
                           : (dbl ? MINIBLAS_OP_DASUM : MINIBLAS_OP_SASUM);
    const char *opn = miniblas_op_name(op);
    const size_t es = mbt_elem(dbl);
    const red_bad cases[] = {
        {5, 1, 1, 1, 0, 0, 2, 2},
        {5, 1, 1, 0, 1, 0, 0, 4},
        {5, 1, 1, 0, 0, 1, 4, 6},
        {INT64_MAX / 2, 4, 1, 0, 0, 0, 3, 3},  /* x extent overflows */
        {INT64_MAX / 16, 1, -16, 0, 0, 0, 0, 5}, /* y byte extent overflows */
    };
    char *dx = mbt_dev_alloc(64 * es), *dy = mbt_dev_alloc(64 * es), *dr = mbt_dev_alloc(4 * es);
    double img[4], out[4];
    mbt_poison(img, 4, dbl);
    for (int device = 0; device < 2; ++device)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
            const red_bad *c = &cases[i];
            int want = dot ? c->param_dot : c->param_asum;
            if (!want) continue;
            char kase[160];
            snprintf(kase, sizeof kase, "invalid, %s result: n=%lld incx=%lld incy=%lld%s%s%s",
                     device ? "device" : "host", (long long)c->n, (long long)c->incx,
                     (long long)c->incy, c->nullx ? " x=NULL" : "", c->nully ? " y=NULL" : "",
                     c->nullr ? " result=NULL" : "");
            mbt_context("%s %s", opn, kase);
            double hres[1];
            mbt_poison(hres, 1, dbl);
            mbt_h2d(dr, img, 4 * es);
            void *r = c->nullr ? NULL : device ? (void *)(dr + es) : (void *)hres;
            miniblas_status_t st = reduce_call(h, dbl, dot, device, c->n, c->nullx ? NULL : dx,
                                               c->incx, c->nully ? NULL : dy, c->incy, r);
            int param = miniblas_last_error_param(h);
            MBT_CUDA(cudaDeviceSynchronize());
            mbt_d2h(out, dr, 4 * es);
            int untouched = mbt_is_sentinel(hres, 0, dbl) && memcmp(out, img, 4 * es) == 0;
            mbt_expect(NULL, st == MINIBLAS_STATUS_INVALID_VALUE && param == want && untouched,
                       opn, kase, "status %s, parameter %d (expected %d), result %s; message '%s'",
                       miniblas_status_string(st), param, want, untouched ? "untouched" : "WRITTEN",
                       miniblas_last_error(h));
        }
    /* n = 0: success, result 0, last rung "none". */
    for (int device = 0; device < 2; ++device) {
        const char *kase = device ? "n = 0, device result" : "n = 0, host result";
        double hres[1];
        mbt_poison(hres, 1, dbl);
        mbt_h2d(dr, img, 4 * es);
        miniblas_status_t st = reduce_call(h, dbl, dot, device, 0, dx, 1, dy, 1,
                                           device ? (void *)(dr + es) : (void *)hres);
        MBT_CUDA(cudaDeviceSynchronize());
        mbt_d2h(out, dr, 4 * es);
        double r = device ? mbt_get(out, 1, dbl) : mbt_get(hres, 0, dbl);
        const char *last = miniblas_last_rung(h, op);
        mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && r == 0 && last && strcmp(last, "none") == 0,
                   opn, kase, "status %s, result %.9g, last_rung '%s'", miniblas_status_string(st),
                   r, last ? last : "(null)");
    }
    mbt_dev_free(dx), mbt_dev_free(dy), mbt_dev_free(dr);
}

static void test_null_handle(void) {
    float f = 0, *d = (float *)(uintptr_t)256; /* never dereferenced */
    double g = 0, *dd = (double *)(uintptr_t)256;
    cudaStream_t s;
    const struct {
        const char *what;
        miniblas_status_t st;
    } calls[] = {
        {"sgemm", miniblas_sgemm(NULL, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 1, 1, 1,
                                 1.0f, d, 1, d, 1, 0.0f, d, 1)},
        {"dgemm", miniblas_dgemm(NULL, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 1, 1, 1,
                                 1.0, dd, 1, dd, 1, 0.0, dd, 1)},
        {"somatcopy", miniblas_somatcopy(NULL, MiniblasColMajor, MiniblasNoTrans, 1, 1, 1.0f, d, 1, d, 1)},
        {"domatcopy", miniblas_domatcopy(NULL, MiniblasColMajor, MiniblasNoTrans, 1, 1, 1.0, dd, 1, dd, 1)},
        {"sasum", miniblas_sasum(NULL, 1, d, 1, &f)},
        {"dasum", miniblas_dasum(NULL, 1, dd, 1, &g)},
        {"sdot", miniblas_sdot(NULL, 1, d, 1, d, 1, &f)},
        {"ddot", miniblas_ddot(NULL, 1, dd, 1, dd, 1, &g)},
        {"sasum_device", miniblas_sasum_device(NULL, 1, d, 1, d)},
        {"dasum_device", miniblas_dasum_device(NULL, 1, dd, 1, dd)},
        {"sdot_device", miniblas_sdot_device(NULL, 1, d, 1, d, 1, d)},
        {"ddot_device", miniblas_ddot_device(NULL, 1, dd, 1, dd, 1, dd)},
        {"set_stream", miniblas_set_stream(NULL, 0)},
        {"get_stream", miniblas_get_stream(NULL, &s)},
        {"set_math_mode", miniblas_set_math_mode(NULL, MINIBLAS_MATH_DEFAULT)},
        {"set_rung", miniblas_set_rung(NULL, MINIBLAS_OP_SGEMM, "auto")},
        {"destroy", miniblas_destroy(NULL)},
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; ++i)
        mbt_expect(NULL, calls[i].st == MINIBLAS_STATUS_NOT_INITIALIZED, calls[i].what,
                   "NULL handle", "returned %s, expected MINIBLAS_STATUS_NOT_INITIALIZED",
                   miniblas_status_string(calls[i].st));
    mbt_expect(NULL, f == 0 && g == 0, OPN, "NULL handle", "a host result was written");
}

int main(void) {
    mbt_init("test_api_gpu");
    test_handles();
    test_streams();
    test_rung_selection();
    test_environment();
    test_null_handle();
    miniblas_handle_t h = NULL;
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, OPN, "miniblas_create", "failed");
        return mbt_finish();
    }
    for (int dbl = 0; dbl < 2; ++dbl) {
        test_invalid_gemm(h, dbl);
        test_invalid_omatcopy(h, dbl);
        test_invalid_reduce(h, dbl, 0);
        test_invalid_reduce(h, dbl, 1);
    }
    miniblas_destroy(h);
    return mbt_finish();
}
