/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-cblas-bench: one problem (inputs and reference data), each implementation's call
 * (OpenBLAS, the layer, the layer forced to the GPU, the plain cuBLAS offload), verification,
 * the layer's staged transfers measured live, kernel-only timing, and one row's interleaved
 * trials under the stopping rule.
 */
#include "mcb.h"

static size_t idx(int row, int64_t i, int64_t j, int64_t ld) {
    return row ? (size_t)i * (size_t)ld + (size_t)j : (size_t)i + (size_t)j * (size_t)ld;
}
static double getv(const void *p, int dbl, size_t i) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

const char *mem_name(int pinned) { return pinned ? "pinned" : "pageable"; }

/* The operands the implementations see: malloc (pageable) or cudaMallocHost (pinned). */
static void *host_alloc(size_t n, int pinned) {
    void *q = NULL;
    if (!pinned) return malloc(n);
    if (cudaMallocHost(&q, n) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return q;
}

static void host_free(void *q, int pinned) {
    if (q && pinned) cudaFreeHost(q);
    else free(q);
}

void prob_free(prob *p) {
    host_free(p->A, p->pinned), host_free(p->B, p->pinned), host_free(p->C, p->pinned);
    free(p->C0), free(p->Cref), free(p->rs), free(p->cm);
    if (p->dA) cudaFree(p->dA);
    if (p->dB) cudaFree(p->dB);
    if (p->dC) cudaFree(p->dC);
    memset(p, 0, sizeof *p);
}

int prob_init(prob *p, const opdef *op, int row, int64_t m, int64_t n, int64_t k,
                     int device, int pinned) {
    memset(p, 0, sizeof *p);
    p->pinned = pinned;
    p->op = op, p->row = row, p->m = m, p->n = n, p->k = k;
    p->alpha = O.alpha, p->beta = op->kind == K_GEMM ? O.beta : 0;
    p->e = op->dbl ? 8 : 4;
    int dbl = op->dbl;
    uint64_t seed = O.seed ^ ((uint64_t)(m * 131 + n * 7 + k) << 8) ^ (uint64_t)(op - OPS);
    switch (op->kind) {
    case K_GEMM:
        p->lda = row ? k : m, p->ldb = row ? n : k, p->ldc = row ? n : m;
        p->na = (size_t)m * (size_t)k, p->nb = (size_t)k * (size_t)n, p->nc = (size_t)m * (size_t)n;
        break;
    case K_ASUM: p->na = (size_t)n; break;
    case K_DOT: p->na = p->nb = (size_t)n; break;
    case K_OMAT:
        p->m = p->n = p->k = n;
        p->lda = p->ldc = n;
        p->na = p->nc = (size_t)n * (size_t)n;
        break;
    }
    size_t e = p->e;
    if (p->na && !(p->A = host_alloc(p->na * e, pinned))) goto oom;
    if (p->nb && !(p->B = host_alloc(p->nb * e, pinned))) goto oom;
    if (p->nc && (!(p->C = host_alloc(p->nc * e, pinned)) || !(p->C0 = malloc(p->nc * e)) ||
                  !(p->Cref = malloc(p->nc * e))))
        goto oom;
    if (p->A) fill_uniform(p->A, p->na, dbl, seed + 1);
    if (p->B) fill_uniform(p->B, p->nb, dbl, seed + 2);
    if (p->C0) fill_uniform(p->C0, p->nc, dbl, seed + 3);
    if (op->kind == K_GEMM) {
        if (!(p->rs = calloc((size_t)m, sizeof(double))) || !(p->cm = calloc((size_t)n, sizeof(double))))
            goto oom;
        for (int64_t i = 0; i < m; ++i)
            for (int64_t l = 0; l < k; ++l) p->rs[i] += fabs(getv(p->A, dbl, idx(row, i, l, p->lda)));
        for (int64_t l = 0; l < k; ++l)
            for (int64_t j = 0; j < n; ++j) {
                double v = fabs(getv(p->B, dbl, idx(row, l, j, p->ldb)));
                if (v > p->cm[j]) p->cm[j] = v;
            }
    } else if (op->kind == K_ASUM || op->kind == K_DOT) {
        long double s = 0, a = 0;
        for (size_t i = 0; i < p->na; ++i) {
            long double x = getv(p->A, dbl, i);
            long double t = op->kind == K_DOT ? x * (long double)getv(p->B, dbl, i) : fabsl(x);
            s += t, a += fabsl(t);
        }
        p->exact = s, p->absum = (double)a;
    }
    if (device) {
        if (p->na && cudaMalloc(&p->dA, p->na * e) != cudaSuccess) goto doom;
        if (p->nb && cudaMalloc(&p->dB, p->nb * e) != cudaSuccess) goto doom;
        if (p->nc && cudaMalloc(&p->dC, p->nc * e) != cudaSuccess) goto doom;
    }
    return 0;
oom:
    fprintf(stderr, "out of %s host memory for %s n=%lld\n", mem_name(pinned), op->name,
            (long long)n);
    prob_free(p);
    return -1;
doom:
    cudaGetLastError();
    fprintf(stderr, "out of device memory for %s n=%lld\n", op->name, (long long)n);
    prob_free(p);
    return -1;
}

/* The output of one call, prepared before a verification call. */
static void prep_output(prob *p) {
    if (!p->C) return;
    if (p->op->kind == K_GEMM && p->beta != 0)
        memcpy(p->C, p->C0, p->nc * p->e);
    else
        memset(p->C, 0xFF, p->nc * p->e); /* all-ones bits: NaN in float and double */
}

/* ---- the implementations */

static int plain_call(prob *p) {
    size_t e = p->e;
    int dbl = p->op->dbl;
    switch (p->op->kind) {
    case K_GEMM: {
        CUCK(cudaMemcpy(p->dA, p->A, p->na * e, cudaMemcpyHostToDevice));
        CUCK(cudaMemcpy(p->dB, p->B, p->nb * e, cudaMemcpyHostToDevice));
        if (p->beta != 0) CUCK(cudaMemcpy(p->dC, p->C, p->nc * e, cudaMemcpyHostToDevice));
        /* row-major C = A B is column-major C^T = B^T A^T */
        int m = (int)(p->row ? p->n : p->m), n = (int)(p->row ? p->m : p->n), k = (int)p->k;
        const void *A = p->row ? p->dB : p->dA, *B = p->row ? p->dA : p->dB;
        int lda = (int)(p->row ? p->ldb : p->lda), ldb = (int)(p->row ? p->lda : p->ldb);
        if (dbl) {
            double a = p->alpha, b = p->beta;
            CBCK(cublasDgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b,
                             p->dC, (int)p->ldc));
        } else {
            float a = (float)p->alpha, b = (float)p->beta;
            CBCK(cublasSgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &b,
                             p->dC, (int)p->ldc));
        }
        CUCK(cudaMemcpy(p->C, p->dC, p->nc * e, cudaMemcpyDeviceToHost));
        return 0;
    }
    case K_ASUM:
    case K_DOT: {
        CUCK(cudaMemcpy(p->dA, p->A, p->na * e, cudaMemcpyHostToDevice));
        if (p->op->kind == K_DOT) CUCK(cudaMemcpy(p->dB, p->B, p->nb * e, cudaMemcpyHostToDevice));
        int n = (int)p->n;
        if (dbl) {
            double r = 0;
            if (p->op->kind == K_DOT)
                CBCK(cublasDdot(g_cublas, n, p->dA, 1, p->dB, 1, &r));
            else
                CBCK(cublasDasum(g_cublas, n, p->dA, 1, &r));
            p->res[I_PLAIN] = r;
        } else {
            float r = 0;
            if (p->op->kind == K_DOT)
                CBCK(cublasSdot(g_cublas, n, p->dA, 1, p->dB, 1, &r));
            else
                CBCK(cublasSasum(g_cublas, n, p->dA, 1, &r));
            p->res[I_PLAIN] = r;
        }
        return 0;
    }
    case K_OMAT: {
        int n = (int)p->n;
        CUCK(cudaMemcpy(p->dA, p->A, p->na * e, cudaMemcpyHostToDevice));
        if (dbl) {
            double a = p->alpha, z = 0;
            CBCK(cublasDgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &a, p->dA, n, &z, p->dC, n,
                             p->dC, n));
        } else {
            float a = (float)p->alpha, z = 0;
            CBCK(cublasSgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &a, p->dA, n, &z, p->dC, n,
                             p->dC, n));
        }
        CUCK(cudaMemcpy(p->C, p->dC, p->nc * e, cudaMemcpyDeviceToHost));
        return 0;
    }
    }
    return -1;
}

/* cublasXt on the host operands, over O.devlist (cublasXtDeviceSelect in main), with block
 * dimension O.xt_blocks[b]; its calls return when C is back in host memory. */
static int xt_call(prob *p, int b) {
    if (!g_xt || p->op->kind != K_GEMM) return -1;
    CBCK(cublasXtSetBlockDim(g_xt, (int)O.xt_blocks[b]));
    /* row-major C = A B is column-major C^T = B^T A^T */
    size_t m = (size_t)(p->row ? p->n : p->m), n = (size_t)(p->row ? p->m : p->n),
           k = (size_t)p->k;
    const void *A = p->row ? p->B : p->A, *B = p->row ? p->A : p->B;
    size_t lda = (size_t)(p->row ? p->ldb : p->lda), ldb = (size_t)(p->row ? p->lda : p->ldb);
    if (p->op->dbl) {
        double a = p->alpha, be = p->beta;
        CBCK(cublasXtDgemm(g_xt, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &be,
                           p->C, (size_t)p->ldc));
    } else {
        float a = (float)p->alpha, be = (float)p->beta;
        CBCK(cublasXtSgemm(g_xt, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb, &be,
                           p->C, (size_t)p->ldc));
    }
    return 0;
}

static int call_impl(prob *p, int impl) {
    if (impl == I_PLAIN) return plain_call(p);
    if (IS_XT(impl)) return xt_call(p, impl - I_XT0);
    const blasfns *b = impl == I_OB ? &OB : &MBC;
    int dbl = p->op->dbl;
    blasint n = (blasint)p->n;
    switch (p->op->kind) {
    case K_GEMM: {
        enum CBLAS_ORDER ord = p->row ? CblasRowMajor : CblasColMajor;
        if (dbl)
            b->dgemm(ord, CblasNoTrans, CblasNoTrans, (blasint)p->m, n, (blasint)p->k, p->alpha,
                     p->A, (blasint)p->lda, p->B, (blasint)p->ldb, p->beta, p->C, (blasint)p->ldc);
        else
            b->sgemm(ord, CblasNoTrans, CblasNoTrans, (blasint)p->m, n, (blasint)p->k,
                     (float)p->alpha, p->A, (blasint)p->lda, p->B, (blasint)p->ldb, (float)p->beta,
                     p->C, (blasint)p->ldc);
        return 0;
    }
    case K_ASUM:
        p->res[impl] = dbl ? b->dasum(n, p->A, 1) : (double)b->sasum(n, p->A, 1);
        return 0;
    case K_DOT:
        p->res[impl] = dbl ? b->ddot(n, p->A, 1, p->B, 1) : (double)b->sdot(n, p->A, 1, p->B, 1);
        return 0;
    case K_OMAT:
        if (dbl ? !b->domatcopy : !b->somatcopy) return -1;
        if (dbl)
            b->domatcopy(CblasRowMajor, CblasTrans, n, n, p->alpha, p->A, (blasint)p->lda, p->C,
                         (blasint)p->ldc);
        else
            b->somatcopy(CblasRowMajor, CblasTrans, n, n, (float)p->alpha, p->A, (blasint)p->lda,
                         p->C, (blasint)p->ldc);
        return 0;
    }
    return -1;
}

static void set_force(int impl) {
    MBC.force_path(impl == I_GPU ? MINIBLAS_CBLAS_PATH_GPU : MINIBLAS_CBLAS_PATH_AUTO);
}

/* Per-call seconds of reps calls; negative on failure. */
static double time_calls(prob *p, int impl, long reps) {
    set_force(impl);
    double t = now();
    for (long r = 0; r < reps; ++r)
        if (call_impl(p, impl)) {
            set_force(I_MBC);
            return -1;
        }
    t = now() - t;
    set_force(I_MBC);
    return t / (double)reps;
}

/* ---- the staged way, measured live: the layer's transfers without its gemms. The host's copy
   rate moves between machines and within one run (measured: the layer packed the same 256 MB
   in 4.4 ms on one machine, in 5 to 19 ms from call to call on another), and the copies share
   the host's memory with the DMA, so the probe's rates (1 GiB copies, no DMA at the same time)
   can be far from what a call meets. Timed once before each of the layer's trials. */
#define LIVE_CH ((size_t)16 << 20) /* the layer's chunk (MINIBLAS_CBLAS_TUNING chunk_mb) */
#define LIVE_NCH 3                 /* its in chunks, and its sgemm out chunks */
#define LIVE_PIECE ((size_t)256 << 10)
static struct {
    int ok, threads;
    char *pin[2][LIVE_NCH];
    cudaEvent_t ev[2][LIVE_NCH];
    char *dev;
    cudaStream_t s;
} L;

typedef struct live_copy {
    char *dst;
    const char *src;
    size_t n;
} live_copy;

static void live_item(void *ctx, int64_t i) {
    const live_copy *c = ctx;
    size_t off = (size_t)i * LIVE_PIECE, len = c->n - off < LIVE_PIECE ? c->n - off : LIVE_PIECE;
    memcpy(c->dst + off, c->src + off, len);
}

static void live_pool_copy(char *dst, const char *src, size_t n) {
    live_copy c = {dst, src, n};
    mbc_pool_run((int64_t)((n + LIVE_PIECE - 1) / LIVE_PIECE), live_item, &c, L.threads);
}

static int live_init(void) {
    if (L.ok) return L.ok > 0 ? 0 : -1;
    L.ok = -1;
    L.threads = P.layer_threads;
    for (int d = 0; d < 2; ++d)
        for (int c = 0; c < LIVE_NCH; ++c) {
            if (cudaMallocHost((void **)&L.pin[d][c], LIVE_CH) != cudaSuccess ||
                cudaEventCreateWithFlags(&L.ev[d][c], cudaEventDisableTiming) != cudaSuccess)
                return cudaGetLastError(), -1;
            memset(L.pin[d][c], 0, LIVE_CH);
        }
    if (cudaMalloc((void **)&L.dev, LIVE_NCH * LIVE_CH) != cudaSuccess ||
        cudaStreamCreateWithFlags(&L.s, cudaStreamNonBlocking) != cudaSuccess)
        return cudaGetLastError(), -1;
    L.ok = 1;
    return 0;
}

/* Operand bytes [0, n) of src -> the device through the in chunks (k: pieces so far). */
static int live_in(const char *src, size_t n, int *k) {
    for (size_t off = 0; off < n; off += LIVE_CH, ++*k) {
        int c = *k % LIVE_NCH;
        size_t len = n - off < LIVE_CH ? n - off : LIVE_CH;
        if (cudaEventSynchronize(L.ev[0][c]) != cudaSuccess) return -1;
        live_pool_copy(L.pin[0][c], src + off, len);
        if (cudaMemcpyAsync(L.dev + (size_t)c * LIVE_CH, L.pin[0][c], len, cudaMemcpyHostToDevice,
                            L.s) != cudaSuccess ||
            cudaEventRecord(L.ev[0][c], L.s) != cudaSuccess)
            return -1;
    }
    return 0;
}

static int stage_live(const prob *p, double *t_in, double *t_out) {
    if (live_init()) return -1;
    int k = 0;
    double t = now();
    if (live_in(p->A, p->na * p->e, &k) || live_in(p->B, p->nb * p->e, &k) ||
        (p->beta != 0 && live_in(p->C, p->nc * p->e, &k)) || cudaStreamSynchronize(L.s))
        return cudaGetLastError(), -1;
    *t_in = now() - t;
    t = now();
    /* C back: piece q DMA'd into out chunk q % 3, unpacked once the piece 3 later needs it */
    size_t n = p->nc * p->e, np = (n + LIVE_CH - 1) / LIVE_CH;
    for (size_t q = 0; q < np + LIVE_NCH; ++q) {
        int c = (int)(q % LIVE_NCH);
        if (q >= LIVE_NCH) {
            size_t off = (q - LIVE_NCH) * LIVE_CH, len = n - off < LIVE_CH ? n - off : LIVE_CH;
            if (cudaEventSynchronize(L.ev[1][c]) != cudaSuccess) return cudaGetLastError(), -1;
            live_pool_copy((char *)p->C + off, L.pin[1][c], len);
        }
        if (q < np) {
            size_t off = q * LIVE_CH, len = n - off < LIVE_CH ? n - off : LIVE_CH;
            if (cudaMemcpyAsync(L.pin[1][c], L.dev + (size_t)c * LIVE_CH, len,
                                cudaMemcpyDeviceToHost, L.s) != cudaSuccess ||
                cudaEventRecord(L.ev[1][c], L.s) != cudaSuccess)
                return cudaGetLastError(), -1;
        }
    }
    *t_out = now() - t;
    return 0;
}

/* ---- verification: the error over its bound (<= 1 passes; NaN counts as infinite) */

static double check_gemm(const prob *p, const void *C, const void *Cref) {
    int dbl = p->op->dbl, row = p->row;
    double eps = dbl ? DBL_EPSILON : FLT_EPSILON, worst = 0;
    double g = 2.0 * (double)p->k * eps;
    for (int64_t a = 0; a < (row ? p->m : p->n); ++a)
        for (int64_t b = 0; b < (row ? p->n : p->m); ++b) {
            int64_t i = row ? a : b, j = row ? b : a;
            size_t at = idx(row, i, j, p->ldc);
            double tol = g * (fabs(p->alpha) * p->rs[i] * p->cm[j] +
                              fabs(p->beta) * fabs(getv(p->C0, dbl, at))) + DBL_MIN;
            double d = fabs(getv(C, dbl, at) - getv(Cref, dbl, at));
            double r = d / tol;
            if (!(r <= worst)) worst = isnan(r) ? INFINITY : r;
        }
    return worst;
}

static double check_reduce(const prob *p, double r) {
    double eps = p->op->dbl ? DBL_EPSILON : FLT_EPSILON;
    double s = sqrt((double)p->n) * 4;
    double tol = 2 * eps * (s > 64 ? s : 64) * p->absum + DBL_MIN;
    double d = fabs((double)((long double)r - p->exact)) / tol;
    return isnan(d) ? INFINITY : d;
}

static double check_omat(const prob *p) {
    int dbl = p->op->dbl;
    int64_t n = p->n;
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
            /* row-major B = alpha A^T: B[i][j] = alpha A[j][i] */
            size_t at = (size_t)i * (size_t)p->ldc + (size_t)j;
            size_t src = (size_t)j * (size_t)p->lda + (size_t)i;
            if (dbl) {
                double want = p->alpha * ((const double *)p->A)[src];
                if (!(((const double *)p->C)[at] == want)) return INFINITY;
            } else {
                float want = (float)p->alpha * ((const float *)p->A)[src];
                if (!(((const float *)p->C)[at] == want)) return INFINITY;
            }
        }
    return 0;
}

/* ---- kernel-only timing on device buffers (after the plain offload filled them) */

static int kern_launch(prob *p, int cublas) {
    int dbl = p->op->dbl;
    switch (p->op->kind) {
    case K_GEMM:
        if (!cublas) {
            miniblas_layout_t lay = p->row ? MiniblasRowMajor : MiniblasColMajor;
            if (dbl)
                MBCK(miniblas_dgemm(g_mb, lay, MiniblasNoTrans, MiniblasNoTrans, p->m, p->n, p->k,
                                    p->alpha, p->dA, p->lda, p->dB, p->ldb, p->beta, p->dC, p->ldc));
            else
                MBCK(miniblas_sgemm(g_mb, lay, MiniblasNoTrans, MiniblasNoTrans, p->m, p->n, p->k,
                                    (float)p->alpha, p->dA, p->lda, p->dB, p->ldb, (float)p->beta,
                                    p->dC, p->ldc));
        } else {
            int m = (int)(p->row ? p->n : p->m), n = (int)(p->row ? p->m : p->n), k = (int)p->k;
            const void *A = p->row ? p->dB : p->dA, *B = p->row ? p->dA : p->dB;
            int lda = (int)(p->row ? p->ldb : p->lda), ldb = (int)(p->row ? p->lda : p->ldb);
            if (dbl) {
                double a = p->alpha, b = p->beta;
                CBCK(cublasDgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb,
                                 &b, p->dC, (int)p->ldc));
            } else {
                float a = (float)p->alpha, b = (float)p->beta;
                CBCK(cublasSgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a, A, lda, B, ldb,
                                 &b, p->dC, (int)p->ldc));
            }
        }
        return 0;
    case K_ASUM:
    case K_DOT: {
        int dot = p->op->kind == K_DOT;
        if (!cublas) {
            if (dbl)
                MBCK(dot ? miniblas_ddot_device(g_mb, p->n, p->dA, 1, p->dB, 1, g_dres)
                         : miniblas_dasum_device(g_mb, p->n, p->dA, 1, g_dres));
            else
                MBCK(dot ? miniblas_sdot_device(g_mb, p->n, p->dA, 1, p->dB, 1, g_dres)
                         : miniblas_sasum_device(g_mb, p->n, p->dA, 1, g_dres));
        } else {
            int n = (int)p->n;
            if (dbl)
                CBCK(dot ? cublasDdot(g_cublas, n, p->dA, 1, p->dB, 1, g_dres)
                         : cublasDasum(g_cublas, n, p->dA, 1, g_dres));
            else
                CBCK(dot ? cublasSdot(g_cublas, n, p->dA, 1, p->dB, 1, g_dres)
                         : cublasSasum(g_cublas, n, p->dA, 1, g_dres));
        }
        return 0;
    }
    case K_OMAT:
        if (!cublas) {
            if (dbl)
                MBCK(miniblas_domatcopy(g_mb, MiniblasRowMajor, MiniblasTrans, p->n, p->n, p->alpha,
                                        p->dA, p->lda, p->dC, p->ldc));
            else
                MBCK(miniblas_somatcopy(g_mb, MiniblasRowMajor, MiniblasTrans, p->n, p->n,
                                        (float)p->alpha, p->dA, p->lda, p->dC, p->ldc));
        } else {
            int n = (int)p->n;
            if (dbl) {
                double a = p->alpha, z = 0;
                CBCK(cublasDgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &a, p->dA, n, &z, p->dC,
                                 n, p->dC, n));
            } else {
                float a = (float)p->alpha, z = 0;
                CBCK(cublasSgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, n, n, &a, p->dA, n, &z, p->dC,
                                 n, p->dC, n));
            }
        }
        return 0;
    }
    return -1;
}

static int events_time(prob *p, int cublas, long reps, cudaEvent_t e0, cudaEvent_t e1, double *s) {
    CUCK(cudaEventRecord(e0, 0));
    for (long r = 0; r < reps; ++r)
        if (kern_launch(p, cublas)) return -1;
    CUCK(cudaGetLastError());
    CUCK(cudaEventRecord(e1, 0));
    CUCK(cudaEventSynchronize(e1));
    float ms = 0;
    CUCK(cudaEventElapsedTime(&ms, e0, e1));
    *s = 1e-3 * ms / (double)reps;
    return 0;
}

/* Median seconds per launch; -1 on failure. */
static double kern_time(prob *p, int cublas, bench_stats *st) {
    cudaEvent_t e0 = NULL, e1 = NULL;
    double t1 = -1, v[MAXTR];
    int nv = 0, rc = -1, devptr = 0;
    if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) goto out;
    devptr = cublas && (p->op->kind == K_ASUM || p->op->kind == K_DOT); /* result on device */
    if (devptr && cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS)
        goto out;
    if (events_time(p, cublas, 1, e0, e1, &t1)) goto out; /* warm */
    if (events_time(p, cublas, 1, e0, e1, &t1)) goto out; /* calibrate */
    long reps = t1 > 0 ? (long)ceil(O.min_time / t1) : 1000;
    if (reps < 1) reps = 1;
    if (reps > 1000) reps = 1000;
    int want = (int)fmin(O.budget / (t1 * (double)reps), (double)MAXTR);
    if (want > O.trials) want = O.trials;
    if (want < 1) want = 1;
    for (nv = 0; nv < want; ++nv)
        if (events_time(p, cublas, reps, e0, e1, &v[nv])) goto out;
    rc = 0;
out:
    if (devptr) cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaGetLastError();
    stats_compute(v, rc ? 0 : nv, O.max_noise, st);
    return rc ? -1 : median(v, nv);
}


/* ------------------------------------------------------------------ one row */

double work_of(const prob *p) {
    return p->op->kind == K_GEMM ? (double)p->m * (double)p->n * (double)p->k
           : p->op->kind == K_OMAT ? (double)p->n * (double)p->n
                                   : (double)p->n;
}

static void addnote(rowres *r, const char *s) {
    size_t l = strlen(r->note);
    snprintf(r->note + l, sizeof r->note - l, "%s%s", l ? "; " : "", s);
}

static void sleep_s(double s) {
    if (s <= 0) return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

void run_row(prob *p, unsigned mask, int kernels, pred_t *pred, rowres *r) {
    memset(r, 0, sizeof *r);
    r->op = p->op, r->row = p->row, r->pinned = p->pinned, r->m = p->m, r->n = p->n, r->k = p->k;
    r->best_xt = -1;
    r->kmb = r->kcb = r->bound_pin = r->bound_host = r->live_in = r->live_out = r->r_pair =
        r->r_ob_pair = -1;
    for (int i = 0; i < NIMPL; ++i) r->t[i] = r->err[i] = -1, r->path[i] = -2;
    int kind = p->op->kind;

    /* OpenBLAS predicted too slow? */
    if ((mask & (1u << I_OB)) && pred && pred->t > 0) {
        double guess = pred->t * work_of(p) / pred->work;
        if (guess > O.max_seconds) {
            mask &= ~(1u << I_OB);
            char s[96];
            snprintf(s, sizeof s, "openblas skipped (predicted %.1f s > --max-seconds)", guess);
            addnote(r, s);
        }
    }
    if (kind == K_OMAT && (p->op->dbl ? !OB.domatcopy : !OB.somatcopy)) {
        mask &= ~(1u << I_OB);
        addnote(r, "the CPU BLAS has no omatcopy");
    }
    if (kind != K_GEMM) mask &= (1u << I_XT0) - 1; /* cublasXt: gemm only */
    int ref = kind == K_GEMM ? ((mask & (1u << I_OB)) ? I_OB : I_PLAIN) : -1;
    if (kind == K_GEMM && !(mask & (1u << ref))) ref = -1;

    /* verification calls (the reference first), timed */
    int order[NIMPL] = {I_OB, I_PLAIN, I_MBC, I_GPU};
    if (ref == I_OB) order[0] = I_OB, order[1] = I_MBC, order[2] = I_GPU, order[3] = I_PLAIN;
    for (int i = I_XT0; i < NIMPL; ++i) order[i] = i; /* cublasXt's blocks, checked like plain */
    double t0[NIMPL] = {0};
    for (int oi = 0; oi < NIMPL; ++oi) {
        int i = order[oi];
        if (!(mask & (1u << i))) continue;
        prep_output(p);
        fprintf(stderr, "  %s ...", IMPL_NAME[i]);
        set_force(i);
        double t = now();
        int rc = call_impl(p, i);
        t0[i] = now() - t;
        set_force(I_MBC);
        fprintf(stderr, " %.4g ms\n", t0[i] * 1e3);
        if (i == I_MBC || i == I_GPU) r->path[i] = MBC.last_path();
        if (rc) {
            r->failed[i] = 1, g_fail = 1;
            mask &= ~(1u << i);
            char s[64];
            snprintf(s, sizeof s, "%s FAILED", IMPL_NAME[i]);
            addnote(r, s);
            continue;
        }
        switch (kind) {
        case K_GEMM:
            if (i == ref)
                memcpy(p->Cref, p->C, p->nc * p->e), r->err[i] = ref == I_OB ? -1 : 0;
            else if (ref >= 0)
                r->err[i] = check_gemm(p, p->C, p->Cref);
            break;
        case K_ASUM:
        case K_DOT: r->err[i] = check_reduce(p, p->res[i]); break;
        case K_OMAT: r->err[i] = check_omat(p); break;
        }
        if (r->err[i] > 1) g_fail = 1;
    }
    if (ref == I_PLAIN) addnote(r, "reference: cuBLAS");
    /* the layer's quick path to the CPU BLAS takes vectors in the brk heap (src/cblas/ptr.c) */
    if ((kind == K_ASUM || kind == K_DOT) && !mbc_in_heap2(p->A, p->B ? p->B : p->A))
        addnote(r, "vectors outside the brk heap: not the layer's quick path");
    if ((mask & (1u << I_GPU)) && r->path[I_GPU] != MINIBLAS_CBLAS_PATH_GPU)
        addnote(r, "forced GPU did not run on the GPU");

    /* calibration: reps per trial and trials per implementation */
    double samp[NIMPL][MAXTR];
    int have[NIMPL] = {0}, want[NIMPL] = {0}, rnd[NIMPL][MAXTR]; /* rnd: the sample's round */
    long reps[NIMPL] = {0};
    for (int i = 0; i < NIMPL; ++i) {
        if (!(mask & (1u << i))) continue;
        double t1;
        if (i == I_OB && t0[i] >= 0.5) {
            /* a slow OpenBLAS call: the verification call is a trial (nothing to warm up) */
            rnd[i][have[i]] = -1, samp[i][have[i]++] = t0[i], reps[i] = 1, t1 = t0[i];
        } else {
            /* the first calls of the GPU paths allocate (state, pinned chunks, device buffers,
               cuBLAS modules): calibrate on warm calls; a slow warm call is a trial */
            long rr = 1;
            for (;;) {
                t1 = time_calls(p, i, rr);
                if (t1 < 0 || t1 * (double)rr >= 2e-3 || rr >= (1L << 22)) break;
                rr *= 4;
            }
            if (t1 < 0) {
                r->failed[i] = 1, g_fail = 1, mask &= ~(1u << i);
                continue;
            }
            if (rr == 1 && t1 >= 0.5) {
                rnd[i][have[i]] = -1, samp[i][have[i]++] = t1, reps[i] = 1;
            } else {
                reps[i] = (long)ceil(O.min_time / (t1 > 0 ? t1 : 1e-9));
                if (reps[i] < 1) reps[i] = 1;
                if (reps[i] > (1L << 24)) reps[i] = 1L << 24;
            }
        }
        double per = t1 * (double)reps[i];
        int w = per > 0 ? (int)fmin(O.budget / per, (double)MAXTR) : O.trials;
        /* short calls: the 5% verdict needs more than 5 trials there, and they are cheap */
        int tmax = (i == I_OB || i == I_MBC) && t1 <= SHORT_CALL && O.trials_short > O.trials
                       ? O.trials_short
                       : O.trials;
        want[i] = w > tmax ? tmax : w < 1 ? 1 : w;
    }
    /* the live staged way: gemm rows with the probe done, the layer on the GPU */
    int live = kind == K_GEMM && P.done && !p->pinned && (mask & (1u << I_MBC)) &&
               r->path[I_MBC] == MINIBLAS_CBLAS_PATH_GPU;
    double live_s[2][MAXTR];
    int nlive = 0, pair[MAXTR]; /* pair[t]: the live measurement just before the layer's trial t */
    for (int t = 0; t < MAXTR; ++t) pair[t] = -1;
    /* interleaved trials; before each trial of slow calls a pause, so that the spinning worker
       threads of the one before go to sleep: OpenBLAS's (pthreads build) spin for 2^28 TSC
       ticks (~0.13 s here) after each call, so in a row that runs the CPU BLAS the pause is
       --settle-cpu-ms (measured: with only the 10 ms pause, the layer's host copies right
       after an OpenBLAS trial ran at half speed, its 8 threads still spinning on 16 cores).
       The same pause before every trial of the row: with it only after CPU-BLAS trials, the
       layer's CPU path (after OpenBLAS's trial) always came after 200 ms and OpenBLAS (after
       the plain offload's) after 10 ms, and at 2^22-2^23 (vectors that fit the host's 300 MB
       L3, shared with other guests) the same OpenBLAS function measured 20-25% slower through
       the layer. */
    int cpu_row = (mask & (1u << I_OB)) || r->path[I_MBC] == MINIBLAS_CBLAS_PATH_CPU;
    const double pause = cpu_row ? fmax(O.settle, O.settle_cpu) : O.settle;
    /* an implementation is done after its want[] trials if its noise meets --max-noise, else
       it goes on to --max-trials or --max-time (budget) of trials (by default --max-trials
       is the trial count: a fixed number of trials) */
    double spent[NIMPL] = {0};
    int done[NIMPL] = {0};
    stop_rule rule = {1, 1, O.max_noise, O.budget};
    for (int tr = 0;; ++tr) {
        int any = 0;
        for (int i = 0; i < NIMPL; ++i) {
            if (!(mask & (1u << i)) || done[i]) continue;
            if (have[i] >= want[i]) {
                rule.min_trials = want[i];
                rule.max_trials = O.max_trials > want[i] ? (O.max_trials < MAXTR ? O.max_trials : MAXTR)
                                                         : want[i];
                if (stop_done(&rule, samp[i], have[i], spent[i])) {
                    done[i] = 1;
                    continue;
                }
            }
            any = 1;
            const int slow = reps[i] == 1 || (have[i] && samp[i][0] >= 1e-3);
            if (slow) sleep_s(pause);
            int lv = -1;
            if (i == I_MBC && live && nlive < MAXTR) {
                if (stage_live(p, &live_s[0][nlive], &live_s[1][nlive]) == 0) lv = nlive++;
                if (slow) sleep_s(pause);
            }
            double t = time_calls(p, i, reps[i]);
            if (t < 0) {
                r->failed[i] = 1, g_fail = 1, mask &= ~(1u << i);
                continue;
            }
            if (i == I_MBC) pair[have[i]] = lv;
            rnd[i][have[i]] = tr;
            samp[i][have[i]++] = t;
            spent[i] += t * (double)reps[i];
        }
        if (!any) break;
    }
    for (int i = 0; i < NIMPL; ++i) {
        if (!(mask & (1u << i))) continue;
        stats_compute(samp[i], have[i], O.max_noise, &r->st[i]);
        r->t[i] = have[i] ? r->st[i].median : -1; /* samp stays in trial order for the pairs */
        r->ntr[i] = have[i], r->reps[i] = reps[i];
    }
    /* the layer against OpenBLAS round by round (their trials of a round run back to back), so
       that a drift of the machine over the row does not enter the ratio */
    if ((mask & (1u << I_OB)) && (mask & (1u << I_MBC))) {
        double pr[MAXTR];
        int npr = 0;
        for (int a = 0; a < have[I_MBC]; ++a)
            for (int b = 0; b < have[I_OB] && rnd[I_MBC][a] >= 0; ++b)
                if (rnd[I_OB][b] == rnd[I_MBC][a] && samp[I_OB][b] > 0)
                    pr[npr++] = samp[I_MBC][a] / samp[I_OB][b];
        if (npr > 0) r->r_ob_pair = median(pr, npr);
    }
    for (int i = I_XT0; i < NIMPL; ++i) /* the fastest cublasXt block */
        if (r->t[i] > 0 && (r->best_xt < 0 || r->t[i] < r->t[r->best_xt])) r->best_xt = i;
    if (pred && r->t[I_OB] > 0) pred->t = r->t[I_OB], pred->work = work_of(p);

    /* kernels (the plain offload left the inputs on the device) */
    if (kernels && p->dA) {
        if (!(mask & (1u << I_PLAIN))) { /* the inputs on the device without the plain offload */
            if (cudaMemcpy(p->dA, p->A, p->na * p->e, cudaMemcpyHostToDevice) != cudaSuccess ||
                (p->dB && cudaMemcpy(p->dB, p->B, p->nb * p->e, cudaMemcpyHostToDevice) != cudaSuccess))
                cudaGetLastError();
        }
        if (kind == K_GEMM && p->beta != 0) /* restore C0 on the device: values stay finite */
            cudaMemcpy(p->dC, p->C0, p->nc * p->e, cudaMemcpyHostToDevice);
        r->kmb = kern_time(p, 0, &r->st_kmb);
        r->kcb = kern_time(p, 1, &r->st_kcb);
        if (r->kmb < 0 || r->kcb < 0) addnote(r, "kernel timing failed"), g_fail = 1;
    }
    if (kind == K_GEMM && P.done) {
        double in_b = (double)(p->na + p->nb + (p->beta != 0 ? p->nc : 0)) * (double)p->e;
        double out_b = (double)p->nc * (double)p->e;
        r->x = xfer_times(in_b, out_b, (double)(p->na + p->nb + p->nc) * (double)p->e);
        if (nlive > 0) { /* the staged way at the speed the host had during the trials */
            r->live_in = median(live_s[0], nlive), r->live_out = median(live_s[1], nlive);
            r->live_n = nlive;
            r->x.staged = r->live_in + r->live_out;
            xfer_best(&r->x);
        }
        /* N GPUs: the kernel time of one GPU shared N ways (the bench times the kernel on the
           first GPU of the set only) */
        double kt = r->kmb > 0 ? r->kmb / (O.ndev > 1 ? O.ndev : 1) : 0;
        /* Paired: each of the layer's trials against the bound measured just before it. The
           host's copy rate drifts within a run (2-4x between calls on one machine), so medians
           of the two taken separately can pair a fast moment of one with a slow one of the
           other; the median of the per-trial ratios cannot. */
        if (p->pinned) /* the caller's memory is pinned already: DMA straight from it */
            r->x.best = r->x.pinned, r->x.best_name = "pinned";
        double rp[MAXTR];
        int np = 0;
        for (int t = 0; t < have[I_MBC] && (mask & (1u << I_MBC)); ++t) {
            if (pair[t] < 0) continue;
            xfer_t x = r->x;
            x.staged = live_s[0][pair[t]] + live_s[1][pair[t]];
            xfer_best(&x);
            double b = kt > x.best ? kt : x.best;
            if (b > 0) rp[np++] = samp[I_MBC][t] / b;
        }
        if (np > 0) r->r_pair = median(rp, np);
        r->bound_pin = kt > r->x.pinned ? kt : r->x.pinned;
        r->bound_host = kt > r->x.best ? kt : r->x.best;
    }
    if ((kind == K_ASUM || kind == K_DOT) && P.done) {
        /* asum, dot: the vectors' copy to the GPUs (several: all copying at once, each its
           share) against the kernel shared N ways; the result coming back is a few bytes */
        double in_b = (double)(p->na + p->nb) * (double)p->e;
        r->x = xfer_times(in_b, 0, in_b);
        if (p->pinned) r->x.best = r->x.pinned, r->x.best_name = "pinned";
        double kt = r->kmb > 0 ? r->kmb / (O.ndev > 1 ? O.ndev : 1) : 0;
        r->bound_pin = kt > r->x.pinned ? kt : r->x.pinned;
        r->bound_host = kt > r->x.best ? kt : r->x.best;
    }
}

