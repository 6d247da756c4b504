/*
 * miniblas-cblas-bench: the cblas drop-in layer (libminiblas_cblas) on HOST pointers against
 * OpenBLAS alone, side by side in one process, with the bounds the layer is judged by.
 *
 *   miniblas-cblas-bench [--ops LIST] [--sizes LIST] [--vec-sizes LIST] [--trials N] ...
 *   miniblas-cblas-bench --crossover      (suggest the crossover table of src/cblas/entry.c)
 *   miniblas-cblas-bench --help
 *
 * Both libraries are dlopen()ed with RTLD_LOCAL and every function is looked up with dlsym on
 * its own handle, so OpenBLAS's cblas_sgemm and libminiblas_cblas's cblas_sgemm live in one
 * process without clashing. The layer is told to use the same CPU BLAS (MINIBLAS_CPU_BLAS_LIB
 * is set to it, unless already set), so "OpenBLAS alone" and the layer's CPU path are one
 * library instance. Columns, per op and size:
 *   openblas  OpenBLAS alone (cblas_* of the CPU BLAS handle)
 *   mbc       libminiblas_cblas with its default decisions (the table in src/cblas/entry.c and
 *             any MINIBLAS_CBLAS_* environment); "path" is where its call went (cpu/gpu)
 *   mbc_gpu   libminiblas_cblas forced to the GPU (miniblas_cblas_force_path, through dlsym)
 *   plain     a plain offload: pageable cudaMemcpy of the inputs (C too when beta != 0), cuBLAS,
 *             pageable cudaMemcpy of the output back (device buffers allocated beforehand)
 *   kern_mb / kern_cublas   kernel only, device buffers, CUDA events: the miniblas native API
 *             (auto rung) and cuBLAS (default math: no TF32)
 *   ratio     mbc / openblas (the target: <= 1.05 at every size; SLOW beyond): the median over
 *             rounds of the layer's trial over OpenBLAS's trial of the same round (paired: a
 *             drift of the machine over the row cancels; the two trials of a round run back to
 *             back), else the ratio of the medians; the CSV has both. A SLOW row also gives the
 *             layer's cost per call in ns (a constant 1-3 ns is more than 5% of a 20 ns call)
 *   gemm bounds: bound_pin = max(kern_mb, in/pinned_h2d + out/pinned_d2h) (the target: mbc
 *             within 1.25x), and bound_host = max(kern_mb, the best measured way of getting the
 *             caller's pageable memory across: pageable cudaMemcpy, multi-threaded staging into
 *             pinned buffers (pipelined with the DMA), or cudaHostRegister in place plus its
 *             cost); in = A + B (+ C when beta != 0), out = C. Where the layer runs on the
 *             GPU, the staged way is measured live, once before each of the layer's trials:
 *             the layer's transfers without its gemms (A, B (, C) packed into 3 pinned 16 MB
 *             chunks by the copy pool with the layer's thread count, each DMA'd while the next
 *             is packed; then C back through 3 chunks and unpacked), median over the trials;
 *             the probe's estimate is printed beside it, and the median over the layer's
 *             trials of its time over the bound of just before the trial (paired: the host's
 *             copy rate drifts within a run). MISS: beyond 1.25x of both bounds, paired too.
 * Times: host clock (the calls are synchronous), per call, median over trials; a trial is as
 * many back-to-back calls as fill --min-time-ms; implementations are interleaved trial by
 * trial; OpenBLAS and the layer get --trials-short trials (default 21) where a call takes
 * <= 20 us, since 5 do not resolve 5% there. Each implementation gets at most --budget seconds
 * of trials per row (at least one: OpenBLAS gemm 8192 gets 1-2; its verification call counts
 * as a trial when it takes >= 0.5 s),
 * and OpenBLAS is skipped where one call is predicted (from the previous size) to take more
 * than --max-seconds.
 * Verification, before timing, on fresh random inputs in [-1, 1): gemm: every element against
 * OpenBLAS (cuBLAS when OpenBLAS is skipped), |C - Cref| <= 2 k eps (|alpha| rowsum_i|A| *
 * colmax_j|B| + |beta| |C0_ij|) (an upper estimate of the standard bound's |A||B|), NaN in C
 * before each call when beta == 0; asum/dot: against a long-double sum, |r - exact| <= 2 eps
 * max(64, 4 sqrt n) sum|terms|; omatcopy: exact, output poisoned with NaN. A failing
 * implementation is marked WRONG and the exit status is 1.
 * Probe (once, first): pinned and pageable H2D/D2H bandwidth, cudaHostRegister/Unregister
 * cost and registered H2D bandwidth on a --probe-mb buffer, pageable<->pinned copy bandwidth
 * with 1..16 threads (pthreads; memcpy and the layer's streaming-store copy), and the cost of
 * one cudaPointerGetAttributes on pageable memory (the layer's operand check).
 *
 * Exit status: 0 all correct; 1 a result was WRONG or a call failed; 2 bad usage, no CUDA
 * device, or a library could not be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cblas.h> /* OpenBLAS's (the layer's PUBLIC include): function types, blasint, enums */
#include "miniblas.h"
#include "miniblas_cblas.h"
#include "stream_copy.h" /* the layer's staging copy, measured by the probe */
#include "copypool.h"    /* the layer's copy pool (its own instance): the live staged way */
#include "cblas_ptr.h"   /* the layer's address test (its own copy): where small vectors lie */

#ifndef MCB_CBLAS_LIB
#define MCB_CBLAS_LIB "libminiblas_cblas.so.0"
#endif
#ifndef MCB_CPU_BLAS
#define MCB_CPU_BLAS ""
#endif

/* ------------------------------------------------------------------ options */

#define MAXSZ 64
#define MAXTR 64
#define SHORT_CALL 20e-6 /* s: calls this short get --trials-short trials (OpenBLAS, the layer) */

typedef struct opts {
    unsigned ops;                  /* bit per op */
    unsigned impls;                /* bit per implementation (I_OB..I_PLAIN) */
    int64_t sizes[MAXSZ];          /* gemm (and omatcopy when given) */
    int nsizes, sizes_given;
    int64_t omsizes[MAXSZ];
    int nomsizes;
    int64_t vsizes[MAXSZ];
    int nvsizes;
    int layouts[2];
    int nlayouts;
    int trials;
    int trials_short;              /* OpenBLAS's and the layer's trials of calls <= SHORT_CALL */
    double min_time;               /* s */
    double max_seconds;            /* skip OpenBLAS where one call is predicted beyond it */
    double budget;                 /* seconds of trials per implementation and row */
    double settle;                 /* s of pause between trials of calls >= 1 ms */
    double settle_cpu;             /* s of pause after a trial that ran the CPU BLAS (>= 1 ms) */
    double alpha, beta;
    int quick, crossover, probe, kernels, dry;
    int64_t thin;                  /* crossover thin sweeps: the two large dimensions */
    int64_t probe_bytes;
    const char *csv, *lib, *cpu_lib;
    uint64_t seed;
} opts;

static opts O;

/* ------------------------------------------------------------------ ops */

enum { K_GEMM, K_ASUM, K_DOT, K_OMAT };
typedef struct opdef {
    const char *name;
    int kind, dbl;
} opdef;
static const opdef OPS[] = {
    {"sgemm", K_GEMM, 0}, {"dgemm", K_GEMM, 1}, {"sasum", K_ASUM, 0},     {"dasum", K_ASUM, 1},
    {"sdot", K_DOT, 0},   {"ddot", K_DOT, 1},   {"somatcopy", K_OMAT, 0}, {"domatcopy", K_OMAT, 1},
};
#define NOPS ((int)(sizeof OPS / sizeof OPS[0]))

enum { I_OB, I_MBC, I_GPU, I_PLAIN, NIMPL };
static const char *IMPL_NAME[NIMPL] = {"openblas", "mbc", "mbc_gpu", "plain"};

/* ------------------------------------------------------------------ libraries */

typedef struct blasfns {
    void *h;
    char path[1024];
    __typeof__(&cblas_sgemm) sgemm;
    __typeof__(&cblas_dgemm) dgemm;
    __typeof__(&cblas_sasum) sasum;
    __typeof__(&cblas_dasum) dasum;
    __typeof__(&cblas_sdot) sdot;
    __typeof__(&cblas_ddot) ddot;
    __typeof__(&cblas_somatcopy) somatcopy;
    __typeof__(&cblas_domatcopy) domatcopy;
    /* libminiblas_cblas extras */
    __typeof__(&miniblas_cblas_force_path) force_path;
    __typeof__(&miniblas_cblas_last_path) last_path;
    __typeof__(&miniblas_cblas_gpu_available) gpu_available;
    __typeof__(&miniblas_cblas_cpu_blas) cpu_blas;
} blasfns;

static blasfns OB, MBC;
static cublasHandle_t g_cublas;
static miniblas_handle_t g_mb;
static void *g_dres; /* device result slot of the kernel-only reductions */
static int g_fail;   /* a WRONG result or a failed call: exit 1 */

static void *lsym(blasfns *b, const char *name) {
    void *p = dlsym(b->h, name);
    if (!p) return NULL;
    Dl_info self, it; /* must resolve into this very library, not a dependency */
    void *any = dlsym(b->h, "cblas_sgemm");
    if (any && dladdr(any, &self) && dladdr(p, &it) && self.dli_fbase != it.dli_fbase) {
        fprintf(stderr, "note: %s of %s resolves into %s\n", name, b->path, it.dli_fname);
    }
    return p;
}

static int load_lib(blasfns *b, const char *path, int is_mbc) {
    memset(b, 0, sizeof *b);
    if (!path || !path[0]) return -1;
    b->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!b->h) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    snprintf(b->path, sizeof b->path, "%s", path);
#define GET(f, s) b->f = (__typeof__(b->f))lsym(b, s)
    GET(sgemm, "cblas_sgemm");
    GET(dgemm, "cblas_dgemm");
    GET(sasum, "cblas_sasum");
    GET(dasum, "cblas_dasum");
    GET(sdot, "cblas_sdot");
    GET(ddot, "cblas_ddot");
    GET(somatcopy, "cblas_somatcopy");
    GET(domatcopy, "cblas_domatcopy");
    if (is_mbc) {
        GET(force_path, "miniblas_cblas_force_path");
        GET(last_path, "miniblas_cblas_last_path");
        GET(gpu_available, "miniblas_cblas_gpu_available");
        GET(cpu_blas, "miniblas_cblas_cpu_blas");
    }
#undef GET
    if (!b->sgemm || !b->dgemm || !b->sasum || !b->dasum || !b->sdot || !b->ddot) {
        fprintf(stderr, "%s lacks cblas_sgemm/dgemm/sasum/dasum/sdot/ddot\n", path);
        return -1;
    }
    if (is_mbc && (!b->force_path || !b->last_path || !b->gpu_available || !b->somatcopy)) {
        fprintf(stderr, "%s is not libminiblas_cblas (no miniblas_cblas_force_path ...)\n", path);
        return -1;
    }
    return 0;
}

static const char *path_name(int p) {
    switch (p) {
    case MINIBLAS_CBLAS_PATH_CPU: return "cpu";
    case MINIBLAS_CBLAS_PATH_GPU: return "gpu";
    case MINIBLAS_CBLAS_PATH_GPU_INPLACE: return "gpuD";
    case MINIBLAS_CBLAS_PATH_GPU_FALLBACK: return "FALL";
    default: return "-";
    }
}

/* ------------------------------------------------------------------ small helpers */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    if (n <= 0) return -1;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

#define CUCK(x)                                                                                  \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__,    \
                    __LINE__, #x);                                                               \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)
#define CBCK(x)                                                                                  \
    do {                                                                                         \
        cublasStatus_t s_ = (x);                                                                 \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                       \
            fprintf(stderr, "cuBLAS error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #x);  \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)
#define MBCK(x)                                                                                  \
    do {                                                                                         \
        miniblas_status_t s_ = (x);                                                              \
        if (s_ != MINIBLAS_STATUS_SUCCESS) {                                                     \
            fprintf(stderr, "miniblas error %s at %s:%d: %s (%s)\n", miniblas_status_string(s_), \
                    __FILE__, __LINE__, #x, miniblas_last_error(g_mb));                          \
            return -1;                                                                           \
        }                                                                                        \
    } while (0)

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

static int ncpu(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static void fill_uniform(void *p, size_t n, int dbl, uint64_t seed) {
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
static void par_copy(void *dst, const void *src, size_t bytes, int nt, int kind) {
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

#define NPT 6
typedef struct probe_t {
    int done;
    double h2d_pin, d2h_pin, h2d_page, d2h_page, h2d_reg; /* bytes/s */
    double reg_s, unreg_s, bytes;                           /* cost of register/unregister */
    int nthr[NPT];
    int nnthr;
    double cp_in[2][NPT], cp_out[2][NPT]; /* [memcpy, streaming] pageable->pinned, ->pageable, B/s */
    double cp_in_best, cp_out_best;
    int layer_threads;
    double cp_in_layer[2], cp_out_layer[2];
    double ptrattr_s; /* one cudaPointerGetAttributes on pageable memory (the layer's check) */
} probe_t;
static probe_t P;

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

static int run_probe(void) {
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
    P.done = 1;
    return 0;
}

static void print_probe(FILE *f, const char *pre) {
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
}

/* Time of moving in_b bytes to the GPU and out_b back, by each way (reg_b: the bytes that
 * would be registered in place: A, B, C once); best is the fastest way from pageable memory. */
typedef struct xfer_t {
    double pinned, pageable, staged, registered, best;
    double staged_probe; /* staged at the probe's rates (staged: live when measured) */
    const char *best_name;
} xfer_t;

static void xfer_best(xfer_t *x) {
    x->best = x->pageable, x->best_name = "pageable";
    if (x->staged < x->best) x->best = x->staged, x->best_name = "staged";
    if (x->registered < x->best) x->best = x->registered, x->best_name = "registered";
}

static xfer_t xfer_times(double in_b, double out_b, double reg_b) {
    xfer_t x;
    x.pinned = in_b / P.h2d_pin + out_b / P.d2h_pin;
    x.pageable = in_b / P.h2d_page + out_b / P.d2h_page;
    double si = P.cp_in_best < P.h2d_pin ? P.cp_in_best : P.h2d_pin;
    double so = P.cp_out_best < P.d2h_pin ? P.cp_out_best : P.d2h_pin;
    x.staged = x.staged_probe = in_b / si + out_b / so; /* copy and DMA pipelined: the slower */
    x.registered = (P.reg_s + P.unreg_s) / P.bytes * reg_b + in_b / P.h2d_reg +
                   out_b / P.d2h_pin;
    xfer_best(&x);
    return x;
}

/* ------------------------------------------------------------------ problems */

typedef struct prob {
    const opdef *op;
    int row;            /* gemm: row-major */
    int64_t m, n, k;    /* gemm m n k; asum/dot n; omatcopy n x n */
    double alpha, beta;
    size_t e;
    void *A, *B, *C, *C0, *Cref;
    int64_t lda, ldb, ldc;
    size_t na, nb, nc; /* elements */
    void *dA, *dB, *dC;
    double res[NIMPL];
    double *rs, *cm;    /* gemm: row sums of |A|, column maxima of |B| */
    long double exact;  /* reductions */
    double absum;
} prob;

static size_t idx(int row, int64_t i, int64_t j, int64_t ld) {
    return row ? (size_t)i * (size_t)ld + (size_t)j : (size_t)i + (size_t)j * (size_t)ld;
}
static double getv(const void *p, int dbl, size_t i) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void prob_free(prob *p) {
    free(p->A), free(p->B), free(p->C), free(p->C0), free(p->Cref), free(p->rs), free(p->cm);
    if (p->dA) cudaFree(p->dA);
    if (p->dB) cudaFree(p->dB);
    if (p->dC) cudaFree(p->dC);
    memset(p, 0, sizeof *p);
}

static int prob_init(prob *p, const opdef *op, int row, int64_t m, int64_t n, int64_t k,
                     int device) {
    memset(p, 0, sizeof *p);
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
    if (p->na && !(p->A = malloc(p->na * e))) goto oom;
    if (p->nb && !(p->B = malloc(p->nb * e))) goto oom;
    if (p->nc && (!(p->C = malloc(p->nc * e)) || !(p->C0 = malloc(p->nc * e)) ||
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
    fprintf(stderr, "out of host memory for %s n=%lld\n", op->name, (long long)n);
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

static int call_impl(prob *p, int impl) {
    if (impl == I_PLAIN) return plain_call(p);
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
   rate moves between machines and within one run (session 10: the layer packed the same 256 MB
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
static double kern_time(prob *p, int cublas) {
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
    return rc ? -1 : median(v, nv);
}

/* ------------------------------------------------------------------ one row */

typedef struct rowres {
    const opdef *op;
    int row;
    int64_t m, n, k;
    double t[NIMPL]; /* median s per call; < 0 not run */
    int ntr[NIMPL];
    long reps[NIMPL];
    double err[NIMPL]; /* error over bound; < 0 not checked */
    int path[NIMPL];
    int failed[NIMPL];
    double kmb, kcb;
    double bound_pin, bound_host;
    xfer_t x;
    double live_in, live_out; /* the staged way, live: medians over trials (s); < 0 not measured */
    int live_n;
    double r_pair; /* median over the layer's trials of its time / the bound of just before; < 0 none */
    double r_ob_pair; /* median over rounds of the layer's trial / OpenBLAS's of the same round */
    char note[160];
} rowres;

/* OpenBLAS's last time per (op, layout, sweep) and its work measure, to predict the next. */
typedef struct pred_t {
    double t, work;
} pred_t;

static double work_of(const prob *p) {
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

static void run_row(prob *p, unsigned mask, int kernels, pred_t *pred, rowres *r) {
    memset(r, 0, sizeof *r);
    r->op = p->op, r->row = p->row, r->m = p->m, r->n = p->n, r->k = p->k;
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
    int ref = kind == K_GEMM ? ((mask & (1u << I_OB)) ? I_OB : I_PLAIN) : -1;
    if (kind == K_GEMM && !(mask & (1u << ref))) ref = -1;

    /* verification calls (the reference first), timed */
    int order[NIMPL] = {I_OB, I_PLAIN, I_MBC, I_GPU};
    if (ref == I_OB) order[0] = I_OB, order[1] = I_MBC, order[2] = I_GPU, order[3] = I_PLAIN;
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
    int live = kind == K_GEMM && P.done && (mask & (1u << I_MBC)) &&
               r->path[I_MBC] == MINIBLAS_CBLAS_PATH_GPU;
    double live_s[2][MAXTR];
    int nlive = 0, pair[MAXTR]; /* pair[t]: the live measurement just before the layer's trial t */
    for (int t = 0; t < MAXTR; ++t) pair[t] = -1;
    /* interleaved trials; before each trial of slow calls a pause, so that the spinning worker
       threads of the one before go to sleep: OpenBLAS's (pthreads build) spin for 2^28 TSC
       ticks (~0.13 s here) after each call, so in a row that runs the CPU BLAS the pause is
       --settle-cpu-ms (session 9: with only the 10 ms pause, the layer's host copies right
       after an OpenBLAS trial ran at half speed, its 8 threads still spinning on 16 cores).
       The same pause before every trial of the row: with it only after CPU-BLAS trials, the
       layer's CPU path (after OpenBLAS's trial) always came after 200 ms and OpenBLAS (after
       the plain offload's) after 10 ms, and at 2^22-2^23 (vectors that fit the host's 300 MB
       L3, shared with other guests) the same OpenBLAS function measured 20-25% slower through
       the layer (session 10 runs 7-8). */
    int cpu_row = (mask & (1u << I_OB)) || r->path[I_MBC] == MINIBLAS_CBLAS_PATH_CPU;
    const double pause = cpu_row ? fmax(O.settle, O.settle_cpu) : O.settle;
    for (int tr = 0;; ++tr) {
        int any = 0;
        for (int i = 0; i < NIMPL; ++i) {
            if (!(mask & (1u << i)) || have[i] >= want[i]) continue;
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
        }
        if (!any) break;
    }
    for (int i = 0; i < NIMPL; ++i) {
        if (!(mask & (1u << i))) continue;
        r->t[i] = median(samp[i], have[i]);
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
    if (pred && r->t[I_OB] > 0) pred->t = r->t[I_OB], pred->work = work_of(p);

    /* kernels (the plain offload left the inputs on the device) */
    if (kernels && (mask & (1u << I_PLAIN))) {
        if (kind == K_GEMM && p->beta != 0) /* restore C0 on the device: values stay finite */
            cudaMemcpy(p->dC, p->C0, p->nc * p->e, cudaMemcpyHostToDevice);
        r->kmb = kern_time(p, 0);
        r->kcb = kern_time(p, 1);
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
        double kt = r->kmb > 0 ? r->kmb : 0;
        /* Paired: each of the layer's trials against the bound measured just before it. The
           host's copy rate drifts within a run (session 10: 2-4x between calls), so medians
           of the two taken separately can pair a fast moment of one with a slow one of the
           other; the median of the per-trial ratios cannot. */
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
}

/* ------------------------------------------------------------------ output */

static FILE *g_csv;

static void fmt_ms(char *b, size_t n, double s) {
    double ms = s * 1e3;
    if (s < 0)
        snprintf(b, n, "-");
    else /* 4 significant digits (3 below 10 ns), no exponent */
        snprintf(b, n, "%.*f", ms >= 1000 ? 0 : ms >= 100 ? 1 : ms >= 10 ? 2 : ms >= 1 ? 3
                               : ms >= 0.1 ? 4 : ms >= 0.01 ? 5 : ms >= 0.001 ? 6
                               : ms >= 0.0001 ? 7 : 8, ms);
}

static void shape_str(char *b, size_t n, const rowres *r) {
    if (r->op->kind == K_GEMM)
        snprintf(b, n, "%lldx%lldx%lld", (long long)r->m, (long long)r->n, (long long)r->k);
    else if (r->op->kind == K_OMAT)
        snprintf(b, n, "%lldx%lld", (long long)r->n, (long long)r->n);
    else {
        int64_t v = r->n;
        int lg = 0;
        while (v > 1 && v % 2 == 0) v /= 2, ++lg;
        if (v == 1)
            snprintf(b, n, "2^%d", lg);
        else
            snprintf(b, n, "%lld", (long long)r->n);
    }
}

static void print_header(void) {
    printf("\n%-9s %-3s %-15s %10s %3s %10s %-4s %6s %10s %10s %9s %9s %9s %9s %5s %5s  %s\n",
           "op", "lay", "shape", "openblas", "tr", "mbc", "path", "ratio", "mbc_gpu", "plain",
           "kern_mb", "kern_cb", "bnd_pin", "bnd_host", "r_pin", "r_hst", "check / notes");
    printf("%-9s %-3s %-15s %10s %3s %10s %-4s %6s %10s %10s %9s %9s %9s %9s %5s %5s\n", "", "",
           "", "ms", "", "ms", "", "paired", "ms", "ms", "ms", "ms", "ms", "ms", "", "");
}

static int g_slow, g_slow_3ns, g_miss;

static void print_row(const rowres *r) {
    char sh[48], t[NIMPL][24], km[24], kc[24], bp[24], bh[24], ratio[16] = "-", rp[16] = "-",
                                                                  rh[16] = "-";
    shape_str(sh, sizeof sh, r);
    for (int i = 0; i < NIMPL; ++i) fmt_ms(t[i], sizeof t[i], r->t[i]);
    fmt_ms(km, sizeof km, r->kmb), fmt_ms(kc, sizeof kc, r->kcb);
    fmt_ms(bp, sizeof bp, r->bound_pin), fmt_ms(bh, sizeof bh, r->bound_host);
    const double rmed = r->t[I_OB] > 0 && r->t[I_MBC] > 0 ? r->t[I_MBC] / r->t[I_OB] : -1;
    const double rat = r->r_ob_pair > 0 ? r->r_ob_pair : rmed; /* the verdict's ratio */
    double rpin = r->bound_pin > 0 && r->t[I_MBC] > 0 ? r->t[I_MBC] / r->bound_pin : -1;
    double rhst = r->bound_host > 0 && r->t[I_MBC] > 0 ? r->t[I_MBC] / r->bound_host : -1;
    if (rat >= 0) snprintf(ratio, sizeof ratio, "%.3f", rat);
    if (rpin >= 0) snprintf(rp, sizeof rp, "%.2f", rpin);
    if (rhst >= 0) snprintf(rh, sizeof rh, "%.2f", rhst);

    char check[256] = "";
    int wrong = 0;
    for (int i = 0; i < NIMPL; ++i)
        if (r->err[i] > 1 || r->failed[i]) {
            size_t l = strlen(check);
            snprintf(check + l, sizeof check - l, "%s%s", wrong++ ? "," : "WRONG(", IMPL_NAME[i]);
        }
    if (wrong) strcat(check, ")");
    else strcpy(check, "ok");
    int slow = rat > 1.05, miss = r->op->kind == K_GEMM && r->m >= 4096 && rpin > 1.25;
    if (slow) {
        char sl[64]; /* the cost in time too: at tiny sizes a constant ns or two is > 5% */
        const double ns = (rat - 1) * r->t[I_OB] * 1e9;
        snprintf(sl, sizeof sl, " SLOW(+%.1f ns)", ns);
        strcat(check, sl), ++g_slow, g_slow_3ns += ns <= 3;
    }
    if (miss) {
        int host_miss = rhst > 1.25 && !(r->r_pair > 0 && r->r_pair <= 1.25);
        strcat(check, host_miss ? " MISS" : rhst > 1.25 ? " miss-host(paired ok)" : " miss-pin(host-bound ok)");
        if (host_miss) ++g_miss;
    }
    if (r->note[0]) {
        size_t l = strlen(check);
        snprintf(check + l, sizeof check - l, "; %s", r->note);
    }
    printf("%-9s %-3s %-15s %10s %3d %10s %-4s %6s %10s %10s %9s %9s %9s %9s %5s %5s  %s\n",
           r->op->name, r->op->kind == K_GEMM ? (r->row ? "row" : "col") : "-", sh, t[I_OB],
           r->ntr[I_OB], t[I_MBC], path_name(r->path[I_MBC]), ratio, t[I_GPU], t[I_PLAIN], km, kc,
           bp, bh, rp, rh, check);
    if (r->op->kind == K_GEMM && r->bound_pin > 0 && r->m >= 4096) {
        char live[200] = "";
        if (r->live_in >= 0)
            snprintf(live, sizeof live, " (live: in %.4g + out %.4g, median of %d; the probe's "
                     "rates: %.4g; mbc / bound paired by trial: %.2f)", r->live_in * 1e3,
                     r->live_out * 1e3, r->live_n, r->x.staged_probe * 1e3, r->r_pair);
        printf("%-29s transfer by way (ms): pinned %.4g, pageable %.4g, staged %.4g%s, registered "
               "%.4g -> best %s\n",
               "", r->x.pinned * 1e3, r->x.pageable * 1e3, r->x.staged * 1e3, live,
               r->x.registered * 1e3, r->x.best_name);
    }
    fflush(stdout);
    if (g_csv) {
        fprintf(g_csv, "%s,%s,%lld,%lld,%lld", r->op->name,
                r->op->kind == K_GEMM ? (r->row ? "row" : "col") : "", (long long)r->m,
                (long long)r->n, (long long)r->k);
        for (int i = 0; i < NIMPL; ++i) {
            if (r->t[i] >= 0)
                fprintf(g_csv, ",%.6g,%d", r->t[i] * 1e3, r->ntr[i]);
            else
                fprintf(g_csv, ",,");
        }
        fprintf(g_csv, ",%s,%s", path_name(r->path[I_MBC]), path_name(r->path[I_GPU]));
        double v[9] = {rmed, r->r_ob_pair, r->kmb * 1e3, r->kcb * 1e3, r->bound_pin * 1e3,
                       r->bound_host * 1e3, rpin, rhst, r->r_pair};
        for (int i = 0; i < 9; ++i)
            if (v[i] >= 0) fprintf(g_csv, ",%.6g", v[i]);
            else fprintf(g_csv, ",");
        double we = 0;
        for (int i = 0; i < NIMPL; ++i)
            if (r->err[i] > we) we = r->err[i];
        fprintf(g_csv, ",%s,%.3g,\"%s\"\n", wrong ? "WRONG" : "ok", we, r->note);
        fflush(g_csv);
    }
}

static void csv_header(void) {
    fprintf(g_csv, "op,layout,m,n,k,openblas_ms,openblas_trials,mbc_ms,mbc_trials,mbc_gpu_ms,"
                   "mbc_gpu_trials,plain_ms,plain_trials,mbc_path,mbc_gpu_path,mbc_over_openblas,"
                   "mbc_over_openblas_paired,"
                   "kern_mb_ms,kern_cublas_ms,bound_pinned_ms,bound_host_ms,mbc_over_bound_pinned,"
                   "mbc_over_bound_host,mbc_over_bound_paired,check,max_err_over_bound,note\n");
}

/* ------------------------------------------------------------------ sweeps */

static int run_one(const opdef *op, int row, int64_t m, int64_t n, int64_t k, unsigned mask,
                   int kernels, pred_t *pred, rowres *out) {
    prob p;
    char sh[64];
    snprintf(sh, sizeof sh, "%lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
    fprintf(stderr, "[%s%s %s]\n", op->name,
            op->kind == K_GEMM ? (row ? " row" : " col") : "",
            op->kind == K_GEMM ? sh : (snprintf(sh, sizeof sh, "n=%lld", (long long)n), sh));
    if (prob_init(&p, op, row, m, n, k, (mask & (1u << I_PLAIN)) != 0)) {
        g_fail = 1;
        return -1;
    }
    run_row(&p, mask, kernels, pred, out);
    prob_free(&p);
    return 0;
}

static void run_table(void) {
    unsigned all = ((1u << I_OB) | (1u << I_MBC) | (1u << I_GPU) | (O.dry ? 0 : 1u << I_PLAIN)) &
                   O.impls;
    for (int o = 0; o < NOPS; ++o) {
        if (!(O.ops & (1u << o))) continue;
        const opdef *op = &OPS[o];
        print_header();
        int nl = op->kind == K_GEMM ? O.nlayouts : 1;
        for (int li = 0; li < nl; ++li) {
            pred_t pred = {0, 0};
            const int64_t *sz = op->kind == K_GEMM ? O.sizes : op->kind == K_OMAT ? O.omsizes : O.vsizes;
            int ns = op->kind == K_GEMM ? O.nsizes : op->kind == K_OMAT ? O.nomsizes : O.nvsizes;
            for (int s = 0; s < ns; ++s) {
                rowres r;
                if (run_one(op, O.layouts[li] == CblasRowMajor, sz[s], sz[s], sz[s], all,
                            O.kernels, &pred, &r) == 0)
                    print_row(&r);
            }
        }
    }
}

/* ---- crossover: the smallest size from which the forced GPU path beats OpenBLAS at every
 * larger size measured; -1 when it never does. */

typedef struct xpoint {
    int64_t size;
    double ob, gpu;
} xpoint;

static int64_t crossover_of(const xpoint *x, int n) {
    int64_t at = -1;
    for (int i = n - 1; i >= 0; --i) {
        if (x[i].ob > 0 && x[i].gpu > 0 && x[i].gpu < x[i].ob)
            at = x[i].size;
        else if (x[i].ob > 0 && x[i].gpu > 0)
            break;
    }
    return at;
}

static void print_x(const char *what, const xpoint *x, int n, int64_t at) {
    printf("  %s\n    %-10s %12s %12s %8s\n", what, "size", "openblas ms", "mbc_gpu ms", "gpu/ob");
    for (int i = 0; i < n; ++i)
        printf("    %-10lld %12.4g %12.4g %8.3f%s\n", (long long)x[i].size, x[i].ob * 1e3,
               x[i].gpu * 1e3, x[i].ob > 0 ? x[i].gpu / x[i].ob : -1.0,
               x[i].size == at ? "  <- crossover" : "");
    if (at < 0) printf("    the GPU never wins at every larger size measured\n");
}

static int64_t sweep(const opdef *op, int row, int which, const int64_t *sz, int ns, xpoint *x) {
    /* which: 0 square/vector, 1 thin k (m = n = thin), 2 thin m (n = k = thin) */
    unsigned mask = (1u << I_OB) | (1u << I_GPU);
    pred_t pred = {0, 0};
    for (int s = 0; s < ns; ++s) {
        int64_t m = sz[s], n = sz[s], k = sz[s];
        if (which == 1) m = n = O.thin;
        if (which == 2) n = k = O.thin;
        rowres r;
        x[s].size = sz[s], x[s].ob = x[s].gpu = -1;
        if (run_one(op, row, m, n, k, mask, 0, &pred, &r) == 0) {
            x[s].ob = r.t[I_OB], x[s].gpu = r.t[I_GPU];
            if (r.err[I_GPU] > 1) fprintf(stderr, "  WARNING: forced GPU result WRONG\n");
            if (r.path[I_GPU] != MINIBLAS_CBLAS_PATH_GPU)
                fprintf(stderr, "  WARNING: forced GPU ran on %s\n", path_name(r.path[I_GPU]));
        }
    }
    return crossover_of(x, ns);
}

static void put_suggestion(char *b, size_t n, int64_t v, const char *expr) {
    if (v < 0)
        snprintf(b, n, "never");
    else if (expr)
        snprintf(b, n, "%lld (%s)", (long long)v, expr);
    else
        snprintf(b, n, "%lld", (long long)v);
}

static void run_crossover(void) {
    static const int64_t gsq[] = {64, 96, 128, 160, 192, 256, 320, 384, 448, 512,
                                  640, 768, 896, 1024, 1280, 1536, 2048};
    static const int64_t gthin[] = {16, 32, 64, 128, 192, 256, 384, 512, 768, 1024, 2048};
    static const int64_t om[] = {256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192};
    const int64_t *sq = O.sizes_given ? O.sizes : gsq;
    int nsq = O.sizes_given ? O.nsizes : (int)(sizeof gsq / sizeof gsq[0]);
    const int64_t *oms = O.sizes_given ? O.sizes : om;
    int noms = O.sizes_given ? O.nsizes : (int)(sizeof om / sizeof om[0]);
    xpoint x[MAXSZ];
    int64_t gemm_min[2] = {-2, -2}, dim = -2, red[4] = {-2, -2, -2, -2}, omc[2] = {-2, -2};
    printf("\ncrossover: forced GPU path (host pointers, pageable) against OpenBLAS alone, median "
           "per call\n");
    for (int o = 0; o < NOPS; ++o) {
        if (!(O.ops & (1u << o))) continue;
        const opdef *op = &OPS[o];
        printf("\n%s\n", op->name);
        if (op->kind == K_GEMM) {
            int64_t worst = -2; /* the larger over the layouts; -1 (never) wins */
            for (int li = 0; li < O.nlayouts; ++li) {
                int row = O.layouts[li] == CblasRowMajor;
                int64_t at = sweep(op, row, 0, sq, nsq, x);
                char w[64];
                snprintf(w, sizeof w, "square n, %s-major", row ? "row" : "col");
                print_x(w, x, nsq, at);
                if (at < 0 || worst == -1)
                    worst = -1;
                else if (at > worst)
                    worst = at;
            }
            gemm_min[op->dbl] = worst;
            for (int which = 1; which <= 2; ++which) {
                int64_t at = sweep(op, 0, which, gthin, (int)(sizeof gthin / sizeof gthin[0]), x);
                char w[96];
                snprintf(w, sizeof w, which == 1 ? "thin: m = n = %lld, k = size (col-major)"
                                                 : "thin: n = k = %lld, m = size (col-major)",
                         (long long)O.thin);
                print_x(w, x, (int)(sizeof gthin / sizeof gthin[0]), at);
                if (at < 0) at = O.thin; /* never wins thin up to 2048: keep thin ones on the CPU */
                if (at > dim) dim = at;
            }
        } else if (op->kind == K_OMAT) {
            int64_t at = sweep(op, 1, 0, oms, noms, x);
            print_x("n x n, row-major, transposed", x, noms, at);
            omc[op->dbl] = at;
        } else {
            int64_t at = sweep(op, 0, 0, O.vsizes, O.nvsizes, x);
            print_x("n", x, O.nvsizes, at);
            red[(op->kind == K_DOT ? 2 : 0) + op->dbl] = at;
        }
    }
    /* one threshold per table entry (asum, dot, omatcopy cover both precisions: both must win) */
    printf("\nsuggested crossover table (src/cblas/entry.c g_xover, or the environment):\n");
    char b[96], ex[64];
    for (int d = 0; d < 2; ++d)
        if (gemm_min[d] != -2) {
            int64_t v = gemm_min[d] < 0 ? -1 : gemm_min[d] * gemm_min[d] * gemm_min[d];
            snprintf(ex, sizeof ex, "%lld^3", (long long)gemm_min[d]);
            put_suggestion(b, sizeof b, v, ex);
            printf("  MINIBLAS_CBLAS_MIN_%s=%s\n", d ? "DGEMM" : "SGEMM", b);
        }
    if (dim != -2) {
        put_suggestion(b, sizeof b, dim, NULL);
        printf("  MINIBLAS_CBLAS_MIN_GEMM_DIM=%s   (thin sweeps at %lld; the larger of the two)\n",
               b, (long long)O.thin);
    }
    const char *rn[2] = {"ASUM", "DOT"};
    for (int q = 0; q < 2; ++q) {
        int64_t a = red[2 * q], c = red[2 * q + 1];
        if (a == -2 && c == -2) continue;
        /* the layer counts bytes: n of the float routine, 2n of the double one */
        int64_t c2 = c > 0 ? 2 * c : c;
        int64_t v = (a == -1 || c == -1) ? -1 : (a > c2 ? a : c2);
        put_suggestion(b, sizeof b, v, NULL);
        printf("  MINIBLAS_CBLAS_MIN_%s=%s   (s: n = %lld, d: n = %lld, counted twice; -1 never, "
               "-2 not measured)\n", rn[q], b, (long long)a, (long long)c);
    }
    if (omc[0] != -2 || omc[1] != -2) {
        int64_t a = omc[0], c = omc[1];
        int64_t v = (a == -1 || c == -1) ? -1 : (a > c ? a : c);
        put_suggestion(b, sizeof b, v < 0 ? -1 : v * v, NULL);
        printf("  MINIBLAS_CBLAS_MIN_OMATCOPY=%s   (rows*cols; s: n=%lld, d: n=%lld)\n", b,
               (long long)a, (long long)c);
    }
    printf("(a value is the smallest size measured from which the GPU path wins at every larger "
           "size measured; \"never\": it does not win up to the largest size)\n");
}

/* ------------------------------------------------------------------ arguments */

static void usage(FILE *f) {
    fprintf(f,
        "usage: miniblas-cblas-bench [options]\n"
        "  --ops LIST         sgemm,dgemm,sasum,dasum,sdot,ddot,somatcopy,domatcopy or groups\n"
        "                     gemm, asum, dot, omatcopy, all (default all)\n"
        "  --sizes LIST       square gemm (and omatcopy) sizes (default 16,32,...,8192; omatcopy\n"
        "                     8,16,...,8192); 2^k accepted\n"
        "  --vec-sizes LIST   asum/dot lengths (default 2^4,2^5,...,2^28)\n"
        "  --layouts LIST     gemm layouts: row,col (default both)\n"
        "  --impls LIST       implementations to time: openblas,mbc,mbc_gpu,plain (default all;\n"
        "                     without openblas and plain, gemm results are not verified)\n"
        "  --trials N         trials per implementation (default 5)\n"
        "  --trials-short N   OpenBLAS's and the layer's trials where a call takes <= 20 us\n"
        "                     (default 21; never fewer than --trials)\n"
        "  --min-time-ms X    minimum time of one trial (repeats small calls; default 20)\n"
        "  --max-seconds S    skip OpenBLAS where one call is predicted (from the previous size)\n"
        "                     to take longer (default 30)\n"
        "  --budget S         seconds of trials per implementation and row: fewer trials where\n"
        "                     calls are slow, at least 1 (default 8: OpenBLAS gemm 8192 gets 1-2)\n"
        "  --settle-ms X      pause between trials of calls taking >= 1 ms (default 10)\n"
        "  --settle-cpu-ms X  the pause instead, before every trial of a row that runs the CPU\n"
        "                     BLAS, whose threads spin for a while after each call (default 200)\n"
        "  --alpha A --beta B gemm scalars (default 1, 0); omatcopy uses alpha\n"
        "  --quick            fewer sizes and trials\n"
        "  --crossover        measure the crossovers and print the suggested MINIBLAS_CBLAS_MIN_*\n"
        "                     values (square gemm 64..2048, thin gemm at --thin, asum/dot over\n"
        "                     --vec-sizes, omatcopy 256..8192; --sizes overrides the square ones)\n"
        "  --thin N           the large dimensions of the thin crossover sweeps (default 4096)\n"
        "  --no-kernels       skip the kernel-only timings\n"
        "  --no-probe         skip the bandwidth probe (then no gemm bounds)\n"
        "  --probe-mb N       probe buffer size (default 1024)\n"
        "  --csv FILE         also write the rows as CSV (probe figures as # lines)\n"
        "  --lib PATH         libminiblas_cblas to load (default %s)\n"
        "  --cpu-lib PATH     the CPU BLAS (default $MINIBLAS_CPU_BLAS_LIB, else libopenblas.so.0,\n"
        "                     else %s); the layer is told to use the same one\n"
        "  --seed N           random inputs\n"
        "  --dry-run-cpu      check the harness without a GPU: OpenBLAS against the layer's\n"
        "                     CPU path only (no plain offload, kernels, probe; mbc_gpu falls\n"
        "                     back to the CPU); the times mean nothing about the GPU\n"
        "exit: 0 ok, 1 WRONG result or failed call, 2 usage / no CUDA device / cannot load\n",
        MCB_CBLAS_LIB, MCB_CPU_BLAS[0] ? MCB_CPU_BLAS : "(none found at configure time)");
}

static int parse_size(const char *s, int64_t *v) {
    char *end;
    if (s[0] == '2' && s[1] == '^') {
        long e = strtol(s + 2, &end, 10);
        if (*end || e < 0 || e > 40) return -1;
        *v = (int64_t)1 << e;
        return 0;
    }
    long long x = strtoll(s, &end, 10);
    if (*end || x < 1) return -1;
    *v = x;
    return 0;
}

static int parse_list(const char *arg, int64_t *out, int *n) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%s", arg);
    *n = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n >= MAXSZ || parse_size(t, &out[*n])) return -1;
        ++*n;
    }
    return *n ? 0 : -1;
}

static int parse_ops(const char *arg, unsigned *ops) {
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    *ops = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int hit = 0;
        for (int o = 0; o < NOPS; ++o) {
            const char *nm = OPS[o].name;
            if (!strcmp(t, "all") || !strcmp(t, nm) || !strcmp(t, nm + 1)) *ops |= 1u << o, hit = 1;
        }
        if (!hit) return -1;
    }
    return 0;
}

static int parse_impls(const char *arg, unsigned *impls) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    *impls = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < NIMPL && strcmp(t, IMPL_NAME[i]) != 0) ++i;
        if (i == NIMPL) return -1;
        *impls |= 1u << i;
    }
    return *impls ? 0 : -1;
}

static void set_pow2(int64_t *v, int *n, int lo, int hi, int step) {
    *n = 0;
    for (int e = lo; e <= hi && *n < MAXSZ; e += step) v[(*n)++] = (int64_t)1 << e;
}

static int parse_args(int argc, char **argv) {
    memset(&O, 0, sizeof O);
    O.ops = (1u << NOPS) - 1;
    O.impls = (1u << NIMPL) - 1;
    O.layouts[0] = CblasRowMajor, O.layouts[1] = CblasColMajor, O.nlayouts = 2;
    O.trials = 5, O.trials_short = 21, O.min_time = 0.020, O.max_seconds = 30, O.budget = 8, O.settle = 0.010, O.settle_cpu = 0.200, O.alpha = 1, O.beta = 0;
    O.probe = 1, O.kernels = 1, O.thin = 4096, O.probe_bytes = (int64_t)1 << 30, O.seed = 12345;
    O.lib = MCB_CBLAS_LIB;
    int ts = 0, tv = 0, tt = 0, tsh = 0, tm = 0, tb = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED()                                                                                   \
    do {                                                                                         \
        if (!v) {                                                                                \
            fprintf(stderr, "%s needs a value\n", a);                                            \
            return -1;                                                                           \
        }                                                                                        \
        ++i;                                                                                     \
    } while (0)
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "--ops")) {
            NEED();
            if (parse_ops(v, &O.ops)) return fprintf(stderr, "bad --ops %s\n", v), -1;
        } else if (!strcmp(a, "--sizes")) {
            NEED();
            if (parse_list(v, O.sizes, &O.nsizes)) return fprintf(stderr, "bad --sizes\n"), -1;
            ts = 1;
        } else if (!strcmp(a, "--vec-sizes")) {
            NEED();
            if (parse_list(v, O.vsizes, &O.nvsizes)) return fprintf(stderr, "bad --vec-sizes\n"), -1;
            tv = 1;
        } else if (!strcmp(a, "--layouts")) {
            NEED();
            O.nlayouts = 0;
            if (strstr(v, "row")) O.layouts[O.nlayouts++] = CblasRowMajor;
            if (strstr(v, "col")) O.layouts[O.nlayouts++] = CblasColMajor;
            if (!O.nlayouts) return fprintf(stderr, "bad --layouts\n"), -1;
        } else if (!strcmp(a, "--trials")) {
            NEED();
            O.trials = atoi(v), tt = 1;
            if (O.trials < 1 || O.trials > MAXTR) return fprintf(stderr, "bad --trials\n"), -1;
        } else if (!strcmp(a, "--trials-short")) {
            NEED();
            O.trials_short = atoi(v), tsh = 1;
            if (O.trials_short < 1 || O.trials_short > MAXTR)
                return fprintf(stderr, "bad --trials-short\n"), -1;
        } else if (!strcmp(a, "--min-time-ms")) {
            NEED();
            O.min_time = atof(v) * 1e-3;
            if (!(O.min_time > 0)) return fprintf(stderr, "bad --min-time-ms\n"), -1;
        } else if (!strcmp(a, "--max-seconds")) {
            NEED();
            O.max_seconds = atof(v), tm = 1;
            if (!(O.max_seconds > 0)) return fprintf(stderr, "bad --max-seconds\n"), -1;
        } else if (!strcmp(a, "--budget")) {
            NEED();
            O.budget = atof(v), tb = 1;
            if (!(O.budget > 0)) return fprintf(stderr, "bad --budget\n"), -1;
        } else if (!strcmp(a, "--settle-ms")) {
            NEED();
            O.settle = atof(v) * 1e-3;
            if (!(O.settle >= 0)) return fprintf(stderr, "bad --settle-ms\n"), -1;
        } else if (!strcmp(a, "--settle-cpu-ms")) {
            NEED();
            O.settle_cpu = atof(v) * 1e-3;
            if (!(O.settle_cpu >= 0)) return fprintf(stderr, "bad --settle-cpu-ms\n"), -1;
        } else if (!strcmp(a, "--alpha")) {
            NEED();
            O.alpha = atof(v);
        } else if (!strcmp(a, "--beta")) {
            NEED();
            O.beta = atof(v);
        } else if (!strcmp(a, "--impls")) {
            NEED();
            if (parse_impls(v, &O.impls)) return fprintf(stderr, "bad --impls %s\n", v), -1;
        } else if (!strcmp(a, "--quick")) {
            O.quick = 1;
        } else if (!strcmp(a, "--crossover")) {
            O.crossover = 1;
        } else if (!strcmp(a, "--thin")) {
            NEED();
            if (parse_size(v, &O.thin)) return fprintf(stderr, "bad --thin\n"), -1;
        } else if (!strcmp(a, "--dry-run-cpu")) {
            O.dry = 1;
        } else if (!strcmp(a, "--no-kernels")) {
            O.kernels = 0;
        } else if (!strcmp(a, "--no-probe")) {
            O.probe = 0;
        } else if (!strcmp(a, "--probe-mb")) {
            NEED();
            O.probe_bytes = (int64_t)atoi(v) << 20;
            if (O.probe_bytes < (1 << 20)) return fprintf(stderr, "bad --probe-mb\n"), -1;
        } else if (!strcmp(a, "--csv")) {
            NEED();
            O.csv = v;
        } else if (!strcmp(a, "--lib")) {
            NEED();
            O.lib = v;
        } else if (!strcmp(a, "--cpu-lib")) {
            NEED();
            O.cpu_lib = v;
        } else if (!strcmp(a, "--seed")) {
            NEED();
            O.seed = strtoull(v, NULL, 10);
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return -1;
        }
#undef NEED
    }
    if (!ts) {
        if (O.quick) {
            static const int64_t q[] = {16, 64, 256, 1024, 4096};
            O.nsizes = 5;
            memcpy(O.sizes, q, sizeof q);
        } else {
            set_pow2(O.sizes, &O.nsizes, 4, 13, 1);
        }
    }
    O.sizes_given = ts;
    if (ts) {
        memcpy(O.omsizes, O.sizes, sizeof O.sizes);
        O.nomsizes = O.nsizes;
    } else if (O.quick) {
        set_pow2(O.omsizes, &O.nomsizes, 8, 12, 2);
    } else {
        set_pow2(O.omsizes, &O.nomsizes, 3, 13, 1);
    }
    if (!tv) {
        if (O.quick) set_pow2(O.vsizes, &O.nvsizes, 10, 26, 4);
        else set_pow2(O.vsizes, &O.nvsizes, 4, 28, 1);
    }
    if (O.quick && !tt) O.trials = 3;
    if (O.quick && !tsh) O.trials_short = 3;
    if (O.quick && !tm) O.max_seconds = 10;
    if (O.quick && !tb) O.budget = 3;
    return 0;
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
    if (parse_args(argc, argv)) {
        usage(stderr);
        return 2;
    }
    mbc_ptr_init();
    int count = 0;
    cudaError_t ce = cudaGetDeviceCount(&count);
    if (O.dry) {
        O.probe = O.kernels = 0;
    } else if (ce != cudaSuccess || count == 0) {
        fprintf(stderr, "miniblas-cblas-bench: no CUDA device (%s)\n",
                ce != cudaSuccess ? cudaGetErrorString(ce) : "device count is 0");
        return 2;
    }
    const char *devs = getenv("MINIBLAS_CBLAS_DEVICES"); /* the layer's device: the first listed */
    if (!devs || !devs[0]) devs = getenv("MINIBLAS_CBLAS_DEVICE");
    int dev = devs && strcmp(devs, "all") ? atoi(devs) : 0;
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    snprintf(prop.name, sizeof prop.name, "no GPU (--dry-run-cpu)");
    if (O.dry) {
        cudaGetLastError();
    } else if (dev < 0 || dev >= count || cudaSetDevice(dev) != cudaSuccess) {
        fprintf(stderr, "miniblas-cblas-bench: cannot use CUDA device %d\n", dev);
        return 2;
    } else if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        fprintf(stderr, "miniblas-cblas-bench: cannot query CUDA device %d\n", dev);
        return 2;
    }
    if (getenv("NVIDIA_TF32_OVERRIDE") && atoi(getenv("NVIDIA_TF32_OVERRIDE")) == 1) {
        fprintf(stderr, "NVIDIA_TF32_OVERRIDE=1 would put cuBLAS SGEMM on TF32: unset it\n");
        return 2;
    }

    /* the CPU BLAS, then the layer (told to use the same CPU BLAS) */
    const char *envcpu = getenv("MINIBLAS_CPU_BLAS_LIB");
    int ok = -1;
    if (O.cpu_lib) ok = load_lib(&OB, O.cpu_lib, 0);
    else if (envcpu && envcpu[0]) ok = load_lib(&OB, envcpu, 0);
    else {
        ok = load_lib(&OB, "libopenblas.so.0", 0);
        if (ok && MCB_CPU_BLAS[0]) ok = load_lib(&OB, MCB_CPU_BLAS, 0);
    }
    if (ok) {
        fprintf(stderr, "miniblas-cblas-bench: cannot load the CPU BLAS (--cpu-lib)\n");
        return 2;
    }
    if (O.cpu_lib || !envcpu || !envcpu[0]) setenv("MINIBLAS_CPU_BLAS_LIB", OB.path, 1);
    if (load_lib(&MBC, O.lib, 1)) {
        fprintf(stderr, "miniblas-cblas-bench: cannot load libminiblas_cblas (--lib)\n");
        return 2;
    }
    int gpu_ok = MBC.gpu_available();
    const char *layer_cpu = MBC.cpu_blas ? MBC.cpu_blas() : NULL;

    if (!O.dry) {
        if (cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS ||
            miniblas_create(&g_mb) != MINIBLAS_STATUS_SUCCESS || cudaMalloc(&g_dres, 64) != cudaSuccess) {
            fprintf(stderr, "miniblas-cblas-bench: cannot create cuBLAS / miniblas handles\n");
            return 2;
        }
        cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST);
    }

    /* what runs */
    char *(*ob_config)(void) = (char *(*)(void))dlsym(OB.h, "openblas_get_config");
    int (*ob_threads)(void) = (int (*)(void))dlsym(OB.h, "openblas_get_num_threads");
    printf("miniblas-cblas-bench: %s (device %d, %d SMs), %d host cores\n", prop.name, dev,
           prop.multiProcessorCount, ncpu());
    printf("  layer: %s (GPU %s; CPU BLAS %s)\n", MBC.path, gpu_ok ? "usable" : "NOT usable",
           layer_cpu ? layer_cpu : "none");
    printf("  CPU BLAS alone: %s%s%s, %d threads\n", OB.path, ob_config ? ": " : "",
           ob_config ? ob_config() : "", ob_threads ? ob_threads() : -1);
    if (layer_cpu && strcmp(layer_cpu, OB.path))
        printf("  WARNING: the layer loaded a different CPU BLAS (%s)\n", layer_cpu);
    if (!gpu_ok) printf("  WARNING: the layer has no usable GPU: mbc_gpu runs on the CPU\n");
    extern char **environ;
    for (char **e = environ; *e; ++e)
        if (!strncmp(*e, "MINIBLAS_", 9)) printf("  env %s\n", *e);
    printf("  timing: host clock per call, median of up to %d trials of >= %g ms (OpenBLAS and the "
           "layer: %d on calls <= %g us); budget %g s per implementation and row; OpenBLAS "
           "skipped beyond %g s per call; alpha %g, beta %g\n",
           O.trials, O.min_time * 1e3, O.trials_short > O.trials ? O.trials_short : O.trials,
           SHORT_CALL * 1e6, O.budget, O.max_seconds, O.alpha, O.beta);

    if (O.csv) {
        g_csv = fopen(O.csv, "w");
        if (!g_csv) {
            fprintf(stderr, "cannot write %s: %s\n", O.csv, strerror(errno));
            return 2;
        }
        fprintf(g_csv, "# miniblas-cblas-bench on %s, %d host cores; layer %s; CPU BLAS %s\n",
                prop.name, ncpu(), MBC.path, OB.path);
    }
    if (O.probe && !O.crossover) {
        if (run_probe()) {
            fprintf(stderr, "the probe failed\n");
            g_fail = 1;
        } else {
            print_probe(stdout, "");
            if (g_csv) print_probe(g_csv, "# ");
        }
    }
    if (g_csv) csv_header();

    double t = now();
    if (O.crossover)
        run_crossover();
    else
        run_table();

    printf("\n%s: %.0f s; %d row(s) with mbc more than 5%% slower than OpenBLAS (SLOW; %d of them "
           "by at most 3 ns a call), %d gemm row(s) >= 4096 beyond 1.25x of both bounds (MISS)%s\n",
           g_fail ? "FAILED" : "done", now() - t, g_slow, g_slow_3ns, g_miss,
           g_fail ? "; some result was WRONG or a call failed" : "");
    if (g_csv) fclose(g_csv);
    if (!O.dry) {
        miniblas_destroy(g_mb);
        cublasDestroy(g_cublas);
        cudaFree(g_dres);
    }
    return g_fail ? 1 : 0;
}
