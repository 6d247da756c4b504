/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-cblas-bench: parallel host helpers (pthreads: fill, copy), the bandwidth probe
 * (pinned / pageable / registered transfers, host copy rates by thread count, the layer's
 * operand check), and the transfer-time bounds derived from it.
 */
#include "mcb.h"

/* ---- parallel host helpers (pthreads) */

typedef struct par_job {
    int kind; /* 0 fill uniform, 1 memcpy, 2 streaming-store copy (the layer's, stream_copy.h) */
    char *dst;
    const char *src;
    size_t n;     /* elements (fill) or bytes (memcpy) */
    int dbl;
    uint64_t seed;
} par_job;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void *par_worker(void *arg) {
    par_job *j = arg;
    if (j->kind == 1) {
        memcpy(j->dst, j->src, j->n);
        return NULL;
    }
    if (j->kind == 2) {
        mbc_stream_copy(j->dst, j->src, j->n);
        return NULL;
    }
    uint64_t s = j->seed;
    for (size_t i = 0; i < j->n; ++i) {
        double u = (double)(splitmix(&s) >> 11) * 0x1.0p-53 * 2.0 - 1.0; /* [-1, 1) */
        if (j->dbl)
            ((double *)j->dst)[i] = u;
        else
            ((float *)j->dst)[i] = (float)u;
    }
    return NULL;
}

/* Run nt jobs on nt threads (job 0 on the caller). */
static void par_run(par_job *jobs, int nt) {
    pthread_t th[64];
    int started[64] = {0};
    for (int t = 1; t < nt; ++t) started[t] = pthread_create(&th[t], NULL, par_worker, &jobs[t]) == 0;
    par_worker(&jobs[0]);
    for (int t = 1; t < nt; ++t) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            par_worker(&jobs[t]);
    }
}

int ncpu(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

void fill_uniform(void *p, size_t n, int dbl, uint64_t seed) {
    int nt = n < ((size_t)1 << 20) ? 1 : ncpu();
    par_job jobs[64];
    size_t e = dbl ? 8 : 4, per = (n + (size_t)nt - 1) / (size_t)nt;
    for (int t = 0; t < nt; ++t) {
        size_t b = (size_t)t * per, c = b >= n ? 0 : (per < n - b ? per : n - b);
        jobs[t] = (par_job){0, (char *)p + (b < n ? b : n) * e, NULL, c, dbl,
                            seed * 0x2545F4914F6CDD1Dull + (uint64_t)t * 0x9E3779B97F4A7C15ull + 1};
    }
    par_run(jobs, nt);
}

/* Copy of bytes on nt threads (kind 1: memcpy; 2: streaming stores, the layer's staging copy). */
void par_copy(void *dst, const void *src, size_t bytes, int nt, int kind) {
    par_job jobs[64];
    if (nt > 64) nt = 64;
    size_t per = ((bytes / (size_t)nt) + 63) & ~(size_t)63;
    for (int t = 0; t < nt; ++t) {
        size_t b = (size_t)t * per, c = b >= bytes ? 0 : (per < bytes - b ? per : bytes - b);
        if (b > bytes) b = bytes;
        jobs[t] = (par_job){kind, (char *)dst + b, (const char *)src + b, c, 0, 0};
    }
    par_run(jobs, nt);
}

/* ------------------------------------------------------------------ probe */

probe_t P;

static int sync_copy_time(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind k,
                          double *bw) {
    double s[5];
    CUCK(cudaMemcpy(dst, src, bytes, k)); /* warm */
    CUCK(cudaDeviceSynchronize());
    for (int r = 0; r < 5; ++r) {
        double t = now();
        CUCK(cudaMemcpy(dst, src, bytes, k));
        CUCK(cudaDeviceSynchronize()); /* a pageable H2D copy may return before its DMA ends */
        s[r] = now() - t;
    }
    *bw = (double)bytes / median(s, 5);
    return 0;
}

/* ---- the aggregate rates of several GPUs: one thread per GPU, each with its own pinned,
   pageable and device buffers; the copies of one kind start together (a barrier) and the
   time runs until the last has ended (another barrier). */
enum { AGG_H2D_PIN, AGG_D2H_PIN, AGG_H2D_PAGE, AGG_D2H_PAGE, AGG_KINDS };
#define AGG_REPS 6 /* the first warms up */
typedef struct agg_dev {
    int dev, err;
    size_t bytes;
    pthread_barrier_t *bar;
} agg_dev;

static int agg_copy(void *pin, void *page, void *d, size_t bytes, int kind) {
    void *host = kind == AGG_H2D_PIN || kind == AGG_D2H_PIN ? pin : page;
    int h2d = kind == AGG_H2D_PIN || kind == AGG_H2D_PAGE;
    if (cudaMemcpy(h2d ? d : host, h2d ? host : d, bytes,
                   h2d ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost) != cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
        return cudaGetLastError(), -1;
    return 0;
}

static void *agg_thread(void *arg) {
    agg_dev *a = arg;
    void *pin = NULL, *d = NULL;
    char *page = NULL;
    if (cudaSetDevice(a->dev) != cudaSuccess || cudaMallocHost(&pin, a->bytes) != cudaSuccess ||
        cudaMalloc(&d, a->bytes) != cudaSuccess ||
        !(page = aligned_alloc(4096, (a->bytes + 4095) / 4096 * 4096)))
        a->err = 1, cudaGetLastError();
    if (!a->err) memset(pin, 0, a->bytes), memset(page, 0, a->bytes);
    pthread_barrier_wait(a->bar); /* ready */
    for (int r = 0; r < AGG_REPS; ++r)
        for (int kind = 0; kind < AGG_KINDS; ++kind) {
            pthread_barrier_wait(a->bar);
            if (!a->err && agg_copy(pin, page, d, a->bytes, kind)) a->err = 1;
            pthread_barrier_wait(a->bar);
        }
    if (pin) cudaFreeHost(pin);
    if (d) cudaFree(d);
    free(page);
    return NULL;
}

static int run_probe_multi(size_t bytes) {
    int n = O.ndev;
    agg_dev a[MAXDEV];
    pthread_t th[MAXDEV];
    pthread_barrier_t bar;
    double s[AGG_KINDS][AGG_REPS];
    if (pthread_barrier_init(&bar, NULL, (unsigned)n + 1)) return -1;
    fprintf(stderr, "[probe] %d GPUs copying at once...\n", n);
    int started = 0;
    for (; started < n; ++started) {
        a[started] = (agg_dev){O.devlist[started], 0, bytes, &bar};
        if (pthread_create(&th[started], NULL, agg_thread, &a[started])) break;
    }
    if (started < n) { /* the barrier cannot complete: give up before using it */
        fprintf(stderr, "cannot start the probe's threads\n");
        exit(2);
    }
    pthread_barrier_wait(&bar);
    for (int r = 0; r < AGG_REPS; ++r)
        for (int kind = 0; kind < AGG_KINDS; ++kind) {
            pthread_barrier_wait(&bar);
            double t = now();
            pthread_barrier_wait(&bar);
            s[kind][r] = now() - t;
        }
    int err = 0;
    for (int i = 0; i < n; ++i) pthread_join(th[i], NULL), err |= a[i].err;
    pthread_barrier_destroy(&bar);
    if (err) {
        fprintf(stderr, "the probe of %d GPUs at once failed\n", n);
        return -1;
    }
    double *out[AGG_KINDS] = {&P.agg_h2d_pin, &P.agg_d2h_pin, &P.agg_h2d_page, &P.agg_d2h_page};
    for (int kind = 0; kind < AGG_KINDS; ++kind)
        *out[kind] = (double)n * (double)bytes / median(s[kind] + 1, AGG_REPS - 1);
    P.agg_n = n;
    return 0;
}

int run_probe(void) {
    size_t bytes = (size_t)O.probe_bytes;
    void *pin = NULL, *dev = NULL;
    char *page = NULL;
    P.bytes = (double)bytes;
    fprintf(stderr, "[probe] %zu MiB buffers: bandwidths and staging costs...\n", bytes >> 20);
    CUCK(cudaMallocHost(&pin, bytes));
    CUCK(cudaMalloc(&dev, bytes));
    page = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (!page) {
        fprintf(stderr, "out of host memory for the probe\n");
        return -1;
    }
    fill_uniform(page, bytes / 4, 0, 7);
    memset(pin, 0, bytes);
    if (sync_copy_time(dev, pin, bytes, cudaMemcpyHostToDevice, &P.h2d_pin)) return -1;
    if (sync_copy_time(pin, dev, bytes, cudaMemcpyDeviceToHost, &P.d2h_pin)) return -1;
    if (sync_copy_time(dev, page, bytes, cudaMemcpyHostToDevice, &P.h2d_page)) return -1;
    if (sync_copy_time(page, dev, bytes, cudaMemcpyDeviceToHost, &P.d2h_page)) return -1;

    /* multi-threaded staging copies */
    int nc = ncpu(), cand[NPT] = {1, 2, 4, 8, 16, 32};
    const char *tu = getenv("MINIBLAS_CBLAS_TUNING"), *ct = tu ? strstr(tu, "copy_threads=") : NULL;
    ct = ct ? ct + strlen("copy_threads=") : NULL;
    P.layer_threads = ct && atoi(ct) > 0 ? atoi(ct) : (nc > 16 ? 16 : nc); /* the layer's default */
    P.nnthr = 0;
    for (int i = 0; i < NPT; ++i)
        if (cand[i] <= nc || i == 0) P.nthr[P.nnthr++] = cand[i];
    P.cp_in_best = P.cp_out_best = 0;
    for (int kind = 1; kind <= 2; ++kind) {
        for (int i = 0; i < P.nnthr; ++i) {
            double si[5], so[5];
            par_copy(pin, page, bytes, P.nthr[i], kind); /* warm */
            for (int r = 0; r < 5; ++r) {
                double t = now();
                par_copy(pin, page, bytes, P.nthr[i], kind);
                si[r] = now() - t;
                t = now();
                par_copy(page, pin, bytes, P.nthr[i], kind);
                so[r] = now() - t;
            }
            double *ci = &P.cp_in[kind - 1][i], *co = &P.cp_out[kind - 1][i];
            *ci = (double)bytes / median(si, 5);
            *co = (double)bytes / median(so, 5);
            if (*ci > P.cp_in_best) P.cp_in_best = *ci;
            if (*co > P.cp_out_best) P.cp_out_best = *co;
        }
        double si[3], so[3];
        for (int r = 0; r < 3; ++r) {
            double t = now();
            par_copy(pin, page, bytes, P.layer_threads, kind);
            si[r] = now() - t;
            t = now();
            par_copy(page, pin, bytes, P.layer_threads, kind);
            so[r] = now() - t;
        }
        P.cp_in_layer[kind - 1] = (double)bytes / median(si, 3);
        P.cp_out_layer[kind - 1] = (double)bytes / median(so, 3);
    }

    /* cudaHostRegister in place */
    double rs[3], us[3], hs[3];
    for (int r = 0; r < 3; ++r) {
        double t = now();
        CUCK(cudaHostRegister(page, bytes, cudaHostRegisterDefault));
        rs[r] = now() - t;
        t = now();
        CUCK(cudaMemcpy(dev, page, bytes, cudaMemcpyHostToDevice));
        CUCK(cudaDeviceSynchronize());
        hs[r] = now() - t;
        t = now();
        CUCK(cudaHostUnregister(page));
        us[r] = now() - t;
    }
    /* the layer classifies every operand of a host-pointer call (MINIBLAS_CBLAS_PTR_CHECK) */
    {
        double pa[5];
        struct cudaPointerAttributes at;
        for (int r = 0; r < 5; ++r) {
            double t = now();
            for (int q = 0; q < 20000; ++q) {
                if (cudaPointerGetAttributes(&at, page + ((size_t)q * 64) % bytes) != cudaSuccess)
                    cudaGetLastError();
            }
            pa[r] = (now() - t) / 20000;
        }
        P.ptrattr_s = median(pa, 5);
    }
    P.reg_s = median(rs, 3);
    P.unreg_s = median(us, 3);
    P.h2d_reg = (double)bytes / median(hs, 3);

    cudaFreeHost(pin);
    cudaFree(dev);
    free(page);
    P.agg_n = 0;
    if (O.ndev > 1 && run_probe_multi(bytes)) return -1;
    P.done = 1;
    return 0;
}

void print_probe(FILE *f, const char *pre) {
    double G = 1e9;
    fprintf(f, "%sprobe (%.0f MiB buffers, median of 5):\n", pre, P.bytes / 1048576.0);
    fprintf(f, "%s  pinned   H2D %7.2f GB/s   D2H %7.2f GB/s   (cudaMallocHost)\n", pre,
            P.h2d_pin / G, P.d2h_pin / G);
    fprintf(f, "%s  pageable H2D %7.2f GB/s   D2H %7.2f GB/s   (malloc, cudaMemcpy)\n", pre,
            P.h2d_page / G, P.d2h_page / G);
    fprintf(f, "%s  cudaHostRegister %.1f ms, cudaHostUnregister %.1f ms (%.2f + %.2f ms/GiB); "
               "registered H2D %.2f GB/s\n",
            pre, P.reg_s * 1e3, P.unreg_s * 1e3, P.reg_s * 1e3 * 1073741824.0 / P.bytes,
            P.unreg_s * 1e3 * 1073741824.0 / P.bytes, P.h2d_reg / G);
    for (int k = 0; k < 2; ++k) {
        fprintf(f, "%s  host %s pageable->pinned / pinned->pageable, GB/s by threads:", pre,
                k ? "streaming-store copy" : "memcpy");
        for (int i = 0; i < P.nnthr; ++i)
            fprintf(f, "  %d: %.1f/%.1f", P.nthr[i], P.cp_in[k][i] / G, P.cp_out[k][i] / G);
        fprintf(f, "\n");
    }
    fprintf(f, "%s  the layer's %d copy threads: memcpy %.1f/%.1f GB/s, streaming stores "
               "%.1f/%.1f GB/s\n", pre, P.layer_threads, P.cp_in_layer[0] / G,
            P.cp_out_layer[0] / G, P.cp_in_layer[1] / G, P.cp_out_layer[1] / G);
    fprintf(f, "%s  cudaPointerGetAttributes on pageable memory: %.0f ns per call (the layer's "
               "operand check, per operand of a host-pointer call)\n", pre, P.ptrattr_s * 1e9);
    if (P.agg_n > 1)
        fprintf(f, "%s  %d GPUs copying at once, all together: pinned H2D %.2f GB/s D2H %.2f GB/s, "
                   "pageable H2D %.2f GB/s D2H %.2f GB/s (the gemm bounds of this run use these)\n",
                pre, P.agg_n, P.agg_h2d_pin / G, P.agg_d2h_pin / G, P.agg_h2d_page / G,
                P.agg_d2h_page / G);
}

/* Time of moving in_b bytes to the GPU and out_b back, by each way: see xfer_t in mcb.h. */

void xfer_best(xfer_t *x) {
    x->best = x->pageable, x->best_name = "pageable";
    if (x->staged < x->best) x->best = x->staged, x->best_name = "staged";
    if (x->registered < x->best) x->best = x->registered, x->best_name = "registered";
}

xfer_t xfer_times(double in_b, double out_b, double reg_b) {
    xfer_t x;
    /* several GPUs: the DMA rates of all of them copying at once; the host copies of the
       staged way share the host's memory whatever the GPUs, so their rates stay */
    const int agg = P.agg_n > 1;
    const double h2d_pin = agg ? P.agg_h2d_pin : P.h2d_pin, d2h_pin = agg ? P.agg_d2h_pin : P.d2h_pin;
    const double h2d_page = agg ? P.agg_h2d_page : P.h2d_page;
    const double d2h_page = agg ? P.agg_d2h_page : P.d2h_page;
    const double h2d_reg = agg ? P.agg_h2d_pin : P.h2d_reg; /* registered: pinned DMA */
    x.pinned = in_b / h2d_pin + out_b / d2h_pin;
    x.pageable = in_b / h2d_page + out_b / d2h_page;
    double si = P.cp_in_best < h2d_pin ? P.cp_in_best : h2d_pin;
    double so = P.cp_out_best < d2h_pin ? P.cp_out_best : d2h_pin;
    x.staged = x.staged_probe = in_b / si + out_b / so; /* copy and DMA pipelined: the slower */
    x.registered = (P.reg_s + P.unreg_s) / P.bytes * reg_b + in_b / h2d_reg +
                   out_b / d2h_pin;
    xfer_best(&x);
    return x;
}

