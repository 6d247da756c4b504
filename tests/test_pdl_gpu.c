/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Programmatic dependent launch in the gemm chains (kernels/launch.h, MINIBLAS_PDL): a handle
 * made with MINIBLAS_PDL=0 and one made with it unset give the same bits on the shapes whose
 * calls launch several kernels (split-K sums, the 3xTF32 range guard's zeroing kernel and
 * fixup, dgemm's split-K and last-wave sums, the persistent TMA grid), for every rung that has
 * such a chain, with inputs in the guard's range and with out-of-range elements (Inf, NaN,
 * 2^45: fixup tiles), beta 0 (C poisoned: nothing may leak) and beta != 0 (C read by the
 * sums). The PDL handle runs each case three times, and a chain of four dependent calls
 * (each call's A is the previous call's C) and a call captured into a CUDA graph must also
 * match bit for bit. A sample of elements
 * of each clean case is checked against a double-precision dot product (both handles could
 * otherwise be wrong alike). On a GPU of compute capability 9.0 the default handle must have
 * PDL on and the other off (printed), elsewhere both off (the test then compares plain
 * launches with themselves).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_test_util.h"
#include "internal.h"

#define OPN "pdl"

typedef struct pcase {
    miniblas_op_t op;
    const char *rung;
    miniblas_transpose_t ta, tb;
    int64_t m, n, k;
    int64_t qm, qn, qk; /* MINIBLAS_TEST_QUICK=1 */
    const char *what;
} pcase;

/* 132-SM shapes (H100 / H200): 1024^3 is 64 tiles of 128x128 in 2 slices (split-K, reduce,
 * fixup); 4096x4096x256 1024 tiles, persistent, checked in the main loop; 8192x128x8192 64
 * tiles in 2 slices; 2048x1664x512 208 tiles (persistent, 2 tiles for some blocks); 1000^3
 * edge tiles; dgemm dmma 8192x128x8192 split-K, 2560x2560x512 a split last wave. Quick sizes
 * (compute-sanitizer): 512^3 split-K, 1664x1536x64 156 tiles (persistent), dgemm 257x129x2051
 * its tiny tile split in k, 1536x1536x1024 one wave of big tiles + 24 (split last wave). dgemm
 * auto at 512^3, 640^3 and 1024^3 is one wave whose gemm kernel is itself a dependent launch
 * (capped to ceil(blocks / SMs) per SM, tc_kernel.cuh): in a chain it must wait for the call
 * before it, whose C it reads as A. */
static const pcase cases[] = {
    {MINIBLAS_OP_SGEMM, "auto", MiniblasNoTrans, MiniblasNoTrans, 1024, 1024, 1024, 512, 512, 512, "split-K"},
    {MINIBLAS_OP_SGEMM, "auto", MiniblasTrans, MiniblasTrans, 1024, 1024, 1024, 512, 512, 512, "split-K TT"},
    {MINIBLAS_OP_SGEMM, "auto", MiniblasNoTrans, MiniblasNoTrans, 4096, 4096, 256, 1664, 1536, 64, "persistent"},
    {MINIBLAS_OP_SGEMM, "auto", MiniblasNoTrans, MiniblasNoTrans, 8192, 128, 8192, 1024, 128, 1024, "skinny split-K"},
    {MINIBLAS_OP_SGEMM, "promote4_tf32x3", MiniblasTrans, MiniblasNoTrans, 2048, 1664, 512, 1664, 1536, 64, "persistent TN"},
    {MINIBLAS_OP_SGEMM, "promote4_tf32x3", MiniblasNoTrans, MiniblasTrans, 1000, 1000, 1000, 500, 500, 500, "edges"},
    {MINIBLAS_OP_SGEMM, "fastsplit_tf32x3", MiniblasNoTrans, MiniblasNoTrans, 1024, 1024, 1024, 512, 512, 512, "split-K"},
    {MINIBLAS_OP_SGEMM, "pingpong_tf32x3", MiniblasTrans, MiniblasTrans, 2048, 1664, 512, 1664, 1536, 64, "persistent"},
    {MINIBLAS_OP_SGEMM, "tma_tf32x3", MiniblasNoTrans, MiniblasNoTrans, 1024, 1024, 1024, 512, 512, 512, "split-K"},
    {MINIBLAS_OP_SGEMM, "wgmma_tf32x3", MiniblasNoTrans, MiniblasNoTrans, 1024, 1024, 1024, 512, 512, 512, "split-K"},
    {MINIBLAS_OP_SGEMM, "tf32x3", MiniblasNoTrans, MiniblasTrans, 1024, 1024, 1024, 512, 512, 512, "split-K"},
    {MINIBLAS_OP_DGEMM, "dmma", MiniblasNoTrans, MiniblasNoTrans, 8192, 128, 8192, 257, 129, 2051, "split-K"},
    {MINIBLAS_OP_DGEMM, "dmma", MiniblasTrans, MiniblasNoTrans, 2560, 2560, 512, 1536, 1536, 1024, "last wave split"},
    {MINIBLAS_OP_DGEMM, "auto", MiniblasNoTrans, MiniblasNoTrans, 1024, 1024, 1024, 512, 512, 512, "auto"},
    {MINIBLAS_OP_DGEMM, "auto", MiniblasNoTrans, MiniblasTrans, 640, 640, 640, 640, 640, 640, "one capped wave"},
};

static miniblas_status_t gemm(miniblas_handle_t h, const pcase *c, int64_t m, int64_t n,
                              int64_t k, double alpha, const void *A, int64_t lda, const void *B,
                              int64_t ldb, double beta, void *C) {
    if (c->op == MINIBLAS_OP_DGEMM)
        return miniblas_dgemm(h, MiniblasColMajor, c->ta, c->tb, m, n, k, alpha, A, lda, B, ldb,
                              beta, C, m);
    return miniblas_sgemm(h, MiniblasColMajor, c->ta, c->tb, m, n, k, (float)alpha, A, lda, B,
                          ldb, (float)beta, C, m);
}

/* Count of elements whose bits differ. */
static size_t diff_bits(const void *a, const void *b, size_t n, int dbl) {
    size_t d = 0;
    for (size_t i = 0; i < n; ++i) d += !mbt_same_bits(a, b, i, dbl);
    return d;
}

/* Element (i, j) of op(X) for X stored column-major with ld, transposed or not. */
static double opel(const void *X, int64_t ld, int trans, int64_t i, int64_t j, int dbl) {
    return mbt_get(X, (size_t)(trans ? j + i * ld : i + j * ld), dbl);
}

/* Selects rung (or "auto") on h; counts a failure when that fails. */
static int select_rung(miniblas_handle_t h, miniblas_op_t op, const char *rung) {
    mbt_variant v;
    memset(&v, 0, sizeof v);
    snprintf(v.label, sizeof v.label, "%s", rung);
    v.rung = rung;
    v.index = -1;
    return mbt_select(h, op, &v);
}

static void run_case(miniblas_handle_t h0, miniblas_handle_t hp, const pcase *c, int specials,
                     double beta) {
    const int dbl = c->op == MINIBLAS_OP_DGEMM, quick = mbt_quick();
    const size_t es = mbt_elem(dbl);
    const int64_t m = quick ? c->qm : c->m, n = quick ? c->qn : c->n, k = quick ? c->qk : c->k;
    const int ta = c->ta == MiniblasTrans, tb = c->tb == MiniblasTrans;
    const int64_t lda = ta ? k : m, ldb = tb ? n : k;
    const size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
    char kase[160];
    snprintf(kase, sizeof kase, "%s %s %c%c %lldx%lldx%lld %s%s beta %g", miniblas_op_name(c->op),
             c->rung, ta ? 'T' : 'N', tb ? 'T' : 'N', (long long)m, (long long)n, (long long)k,
             c->what, specials ? " specials" : "", beta);
    if (miniblas_rung_supported(h0, c->op, c->rung) != MINIBLAS_STATUS_SUCCESS) {
        printf("  skip %s: %s\n", kase, miniblas_last_error(h0));
        return;
    }
    mbt_context("%s", kase);
    void *hA = mbt_host_alloc(na * es), *hB = mbt_host_alloc(nb * es), *hC = mbt_host_alloc(nc * es);
    void *r0 = mbt_host_alloc(nc * es), *r1 = mbt_host_alloc(nc * es);
    mbt_fill_uniform(hA, na, dbl);
    mbt_fill_uniform(hB, nb, dbl);
    mbt_fill_uniform(hC, nc, dbl);
    if (specials && !dbl) { /* out of the 3xTF32 guard's range: their tiles take the fixup */
        mbt_set(hA, (size_t)(mbt_rand_u64() % na), INFINITY, 0);
        mbt_set(hA, (size_t)(mbt_rand_u64() % na), 35184372088832.0, 0); /* 2^45 */
        mbt_set(hB, (size_t)(mbt_rand_u64() % nb), NAN, 0);
        mbt_set(hB, (size_t)(mbt_rand_u64() % nb), 1e-30, 0);
    }
    if (beta == 0.0) mbt_poison(hC, nc, dbl); /* beta = 0: C must not be read */
    void *dA = mbt_dev_alloc(na * es), *dB = mbt_dev_alloc(nb * es), *dC = mbt_dev_alloc(nc * es);
    mbt_h2d(dA, hA, na * es);
    mbt_h2d(dB, hB, nb * es);
    const double alpha = 0.75;

    /* plain launches: the reference bits */
    if (!select_rung(h0, c->op, c->rung) || !select_rung(hp, c->op, c->rung)) goto out;
    mbt_h2d(dC, hC, nc * es);
    miniblas_status_t st = gemm(h0, c, m, n, k, alpha, dA, lda, dB, ldb, beta, dC);
    mbt_device_sync();
    if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "MINIBLAS_PDL=0 call: %s",
                    miniblas_last_error(h0)))
        goto out;
    mbt_d2h(r0, dC, nc * es);

    /* a sample against a double-precision dot product (clean inputs) */
    if (!specials) {
        const double eps = dbl ? 0x1p-53 : 0x1p-24;
        int bad = 0;
        for (int s = 0; s < 64; ++s) {
            const int64_t i = (int64_t)(mbt_rand_u64() % (uint64_t)m);
            const int64_t j = (int64_t)(mbt_rand_u64() % (uint64_t)n);
            double dot = 0.0, mag = 0.0;
            for (int64_t q = 0; q < k; ++q) {
                const double a = opel(hA, lda, ta, i, q, dbl), b = opel(hB, ldb, tb, q, j, dbl);
                dot += a * b;
                mag += fabs(a * b);
            }
            const double c0 = beta == 0.0 ? 0.0 : mbt_get(hC, (size_t)(i + j * m), dbl);
            const double want = alpha * dot + beta * c0;
            const double got = mbt_get(r0, (size_t)(i + j * m), dbl);
            const double bound = 4.0 * (double)(k + 2) * eps * (alpha * mag + fabs(beta * c0));
            if (!(fabs(got - want) <= bound) && bad++ < 3)
                printf("    (%lld, %lld): %.9g, want %.9g (bound %.3g)\n", (long long)i,
                       (long long)j, got, want, bound);
        }
        mbt_expect(NULL, bad == 0, OPN, kase, "%d of 64 sampled elements off the reference", bad);
    }

    /* PDL: three runs, each the same bits */
    for (int rep = 0; rep < 3; ++rep) {
        mbt_h2d(dC, hC, nc * es);
        st = gemm(hp, c, m, n, k, alpha, dA, lda, dB, ldb, beta, dC);
        mbt_device_sync();
        if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "call: %s",
                        miniblas_last_error(hp)))
            goto out;
        mbt_d2h(r1, dC, nc * es);
        const size_t d = diff_bits(r0, r1, nc, dbl);
        mbt_expect(NULL, d == 0, OPN, kase, "run %d: %zu of %zu elements differ from MINIBLAS_PDL=0",
                   rep, d, nc);
    }
out:
    mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(hA), free(hB), free(hC), free(r0), free(r1);
}

/* Four dependent square calls on one stream, C_{i+1} = alpha op(C_i) op(B) (+ beta C_{i+1}):
 * each call's first kernel must see the previous call's last writes. */
static void run_chain(miniblas_handle_t h0, miniblas_handle_t hp, const pcase *c) {
    const int dbl = c->op == MINIBLAS_OP_DGEMM, quick = mbt_quick();
    const size_t es = mbt_elem(dbl);
    const int64_t n = quick ? c->qm : c->m; /* square n x n x n */
    const size_t nn = (size_t)(n * n);
    char kase[128];
    snprintf(kase, sizeof kase, "%s %s chain of 4 at %lld^3", miniblas_op_name(c->op), c->rung,
             (long long)n);
    if (miniblas_rung_supported(h0, c->op, c->rung) != MINIBLAS_STATUS_SUCCESS) return;
    mbt_context("%s", kase);
    void *h0m = mbt_host_alloc(nn * es), *hB = mbt_host_alloc(nn * es);
    void *r0 = mbt_host_alloc(nn * es), *r1 = mbt_host_alloc(nn * es);
    mbt_fill_uniform(h0m, nn, dbl);
    mbt_fill_uniform(hB, nn, dbl);
    void *dB = mbt_dev_alloc(nn * es), *d[5];
    for (int i = 0; i < 5; ++i) d[i] = mbt_dev_alloc(nn * es);
    mbt_h2d(dB, hB, nn * es);
    const double alpha = 2.0 / sqrt((double)n); /* keeps the values near 1 */
    for (int pass = 0; pass < 2; ++pass) {
        miniblas_handle_t h = pass ? hp : h0;
        if (!select_rung(h, c->op, c->rung)) goto out;
        mbt_h2d(d[0], h0m, nn * es);
        for (int i = 1; i < 5; ++i) MBT_CUDA(cudaMemset(d[i], 0, nn * es));
        mbt_device_sync();
        miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
        for (int i = 0; i < 4 && st == MINIBLAS_STATUS_SUCCESS; ++i)
            st = gemm(h, c, n, n, n, alpha, d[i], n, dB, n, i % 2 ? 0.5 : 0.0, d[i + 1]);
        mbt_device_sync();
        if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "call: %s",
                        miniblas_last_error(h)))
            goto out;
        mbt_d2h(pass ? r1 : r0, d[4], nn * es);
    }
    {
        const size_t dd = diff_bits(r0, r1, nn, dbl);
        mbt_expect(NULL, dd == 0, OPN, kase, "%zu of %zu elements differ from MINIBLAS_PDL=0", dd,
                   nn);
    }
out:
    mbt_dev_free(dB);
    for (int i = 0; i < 5; ++i) mbt_dev_free(d[i]);
    free(h0m), free(hB), free(r0), free(r1);
}

/* The chain captured into a CUDA graph on a non-blocking stream (the programmatic launches
 * become graph edges) and the graph launched twice: the bits of MINIBLAS_PDL=0. */
static void run_graph(miniblas_handle_t h0, miniblas_handle_t hp, const pcase *c) {
    const int dbl = c->op == MINIBLAS_OP_DGEMM, quick = mbt_quick();
    const size_t es = mbt_elem(dbl);
    const int64_t m = quick ? c->qm : c->m, n = quick ? c->qn : c->n, k = quick ? c->qk : c->k;
    const int ta = c->ta == MiniblasTrans, tb = c->tb == MiniblasTrans;
    const int64_t lda = ta ? k : m, ldb = tb ? n : k;
    const size_t na = (size_t)(m * k), nb = (size_t)(k * n), nc = (size_t)(m * n);
    char kase[128];
    snprintf(kase, sizeof kase, "%s %s %lldx%lldx%lld captured in a graph", miniblas_op_name(c->op),
             c->rung, (long long)m, (long long)n, (long long)k);
    if (miniblas_rung_supported(h0, c->op, c->rung) != MINIBLAS_STATUS_SUCCESS) return;
    mbt_context("%s", kase);
    void *hA = mbt_host_alloc(na * es), *hB = mbt_host_alloc(nb * es), *hC = mbt_host_alloc(nc * es);
    void *r0 = mbt_host_alloc(nc * es), *r1 = mbt_host_alloc(nc * es);
    mbt_fill_uniform(hA, na, dbl);
    mbt_fill_uniform(hB, nb, dbl);
    mbt_fill_uniform(hC, nc, dbl);
    void *dA = mbt_dev_alloc(na * es), *dB = mbt_dev_alloc(nb * es), *dC = mbt_dev_alloc(nc * es);
    mbt_h2d(dA, hA, na * es);
    mbt_h2d(dB, hB, nb * es);
    cudaStream_t cs = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    if (!select_rung(h0, c->op, c->rung) || !select_rung(hp, c->op, c->rung)) goto out;
    mbt_h2d(dC, hC, nc * es);
    miniblas_status_t st = gemm(h0, c, m, n, k, 0.5, dA, lda, dB, ldb, 0.25, dC);
    mbt_device_sync();
    if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "MINIBLAS_PDL=0 call: %s",
                    miniblas_last_error(h0)))
        goto out;
    mbt_d2h(r0, dC, nc * es);
    MBT_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    if (!mbt_expect(NULL, miniblas_set_stream(hp, cs) == MINIBLAS_STATUS_SUCCESS, OPN, kase,
                    "miniblas_set_stream: %s", miniblas_last_error(hp)))
        goto out;
    MBT_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    st = gemm(hp, c, m, n, k, 0.5, dA, lda, dB, ldb, 0.25, dC);
    const cudaError_t ce = cudaStreamEndCapture(cs, &graph);
    cudaGetLastError();
    if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS && ce == cudaSuccess && graph, OPN, kase,
                    "captured call: %s (%s), end capture %s", miniblas_status_string(st),
                    miniblas_last_error(hp), cudaGetErrorName(ce)))
        goto out;
    MBT_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < 2; ++rep) {
        mbt_h2d(dC, hC, nc * es);
        MBT_CUDA(cudaGraphLaunch(exec, cs));
        MBT_CUDA(cudaStreamSynchronize(cs));
        mbt_d2h(r1, dC, nc * es);
        const size_t d = diff_bits(r0, r1, nc, dbl);
        mbt_expect(NULL, d == 0, OPN, kase, "launch %d: %zu of %zu elements differ from "
                   "MINIBLAS_PDL=0", rep, d, nc);
    }
out:
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    if (cs) {
        miniblas_set_stream(hp, 0);
        MBT_CUDA(cudaStreamSynchronize(cs));
        cudaStreamDestroy(cs);
    }
    mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(hA), free(hB), free(hC), free(r0), free(r1);
}

int main(void) {
    mbt_init("test_pdl_gpu");
    unsetenv("MINIBLAS_PDL");
    miniblas_handle_t hp = NULL, h0 = NULL;
    if (miniblas_create(&hp) != MINIBLAS_STATUS_SUCCESS) {
        printf("miniblas_create: %s\n", miniblas_last_create_error());
        return 1;
    }
    setenv("MINIBLAS_PDL", "0", 1);
    if (miniblas_create(&h0) != MINIBLAS_STATUS_SUCCESS) {
        printf("miniblas_create (MINIBLAS_PDL=0): %s\n", miniblas_last_create_error());
        return 1;
    }
    unsetenv("MINIBLAS_PDL");
    const struct miniblas_context *cp = (const struct miniblas_context *)hp;
    const struct miniblas_context *c0 = (const struct miniblas_context *)h0;
    const int cc = cp->cc_major * 10 + cp->cc_minor;
    printf("compute capability %d.%d: programmatic dependent launch %s (MINIBLAS_PDL=0 handle: "
           "%s)\n", cc / 10, cc % 10, cp->pdl ? "on" : "off", c0->pdl ? "on" : "off");
    mbt_expect(NULL, c0->pdl == 0, OPN, "MINIBLAS_PDL=0", "the handle has PDL on");
    /* on 9.0 with the Hopper rungs built (so code for 9.0 runs): on; before 9.0: off */
    const int hopper =
        miniblas_rung_supported(hp, MINIBLAS_OP_SGEMM, "promote4_tf32x3") == MINIBLAS_STATUS_SUCCESS;
    mbt_expect(NULL, cc < 90 ? cp->pdl == 0 : (!hopper || cp->pdl == 1), OPN, "default",
               "PDL %d on compute capability %d.%d", cp->pdl, cc / 10, cc % 10);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_case(h0, hp, &cases[i], 0, 0.0);
        run_case(h0, hp, &cases[i], 0, -0.5);
        if (cases[i].op == MINIBLAS_OP_SGEMM) {
            run_case(h0, hp, &cases[i], 1, 0.0);
            run_case(h0, hp, &cases[i], 1, 1.25);
        }
    }
    run_chain(h0, hp, &cases[0]);
    run_chain(h0, hp, &cases[13]);
    run_chain(h0, hp, &cases[14]);
    run_graph(h0, hp, &cases[0]);  /* sgemm split-K: zero, gemm, reduce, fixup */
    run_graph(h0, hp, &cases[11]); /* dgemm dmma split-K: gemm, reduce */
    run_graph(h0, hp, &cases[14]); /* dgemm auto, one capped dependent wave */
    miniblas_destroy(hp);
    miniblas_destroy(h0);
    return mbt_finish();
}
