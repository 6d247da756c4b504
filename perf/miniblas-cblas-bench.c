/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-cblas-bench: the cblas drop-in layer (libminiblas_cblas) on HOST pointers against
 * OpenBLAS alone, side by side in one process, with the bounds the layer is judged by.
 *
 *   miniblas-cblas-bench [--ops LIST] [--sizes LIST] [--vec-sizes LIST] [--trials N] ...
 *   miniblas-cblas-bench --crossover      (suggest the crossover table of src/cblas/entry.c)
 *   miniblas-cblas-bench --devices 1,2 --memory pageable,pinned --impls mbc,cublasxt,openblas
 *                                         (the layer on 1 and 2 GPUs, cuBLASXt beside)
 *   miniblas-cblas-bench --help | --version
 *
 * This file: main, loading the libraries, the sweeps and the crossover search; mcb.h lists the
 * other files (command line, probe, one row, output). docs/benchmarking.md is the user's guide.
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
 *   plain     a plain offload: cudaMemcpy of the inputs (C too when beta != 0), cuBLAS,
 *             cudaMemcpy of the output back (device buffers allocated beforehand)
 *   cublasxt_<block>  (--impls cublasxt; gemm) cublasXtSgemm/Dgemm on the host operands over
 *             the GPUs of the row (cublasXtDeviceSelect), block dimension from --xt-blocks
 *   Host operands (A, B, C): malloc, or cudaMallocHost with --memory pinned (a row each).
 *   --devices: the program runs itself once per GPU set, MINIBLAS_CBLAS_DEVICES set in the
 *             child (the layer reads it once per process); the children's rows are merged
 *             (each with its devices) and summarised side by side. With N > 1 GPUs the gemm
 *             bounds use kern_mb / N and the probe's rates of all N GPUs copying at once.
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
 *   asum/dot bounds: bound_pin = max(kern_mb / N, the vectors / pinned H2D) on N GPUs (the
 *             probe's rate of all N copying at once), bound_host the same with the best way
 *             of getting pageable memory across; shown in the table, not paired, no MISS.
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
 * Result files (--csv, --json, --md) hold one row per implementation with its median, min,
 * max, noise and trial count; --baseline compares them with perf/compare.py.
 *
 * Exit status: 0 all correct; 1 a result was WRONG or a call failed; 2 bad usage, no CUDA
 * device, or a library could not be loaded; 3 a row SLOW against --baseline.
 */
#include "mcb.h"
#include "sysinfo.h"

#include <sys/stat.h>
#include <sys/wait.h>

#ifndef MINIBLAS_GIT_COMMIT
#define MINIBLAS_GIT_COMMIT "unknown"
#endif

opts O;
const opdef OPS[] = {
    {"sgemm", K_GEMM, 0}, {"dgemm", K_GEMM, 1}, {"sasum", K_ASUM, 0},     {"dasum", K_ASUM, 1},
    {"sdot", K_DOT, 0},   {"ddot", K_DOT, 1},   {"somatcopy", K_OMAT, 0}, {"domatcopy", K_OMAT, 1},
};
_Static_assert(sizeof OPS / sizeof OPS[0] == NOPS, "NOPS");
const char *IMPL_NAME[NIMPL] = {"openblas", "mbc", "mbc_gpu", "plain"}; /* + cublasxt_<block> */
blasfns OB, MBC;
cublasHandle_t g_cublas;
cublasXtHandle_t g_xt;
miniblas_handle_t g_mb;
void *g_dres; /* device result slot of the kernel-only reductions */
int g_fail;   /* a WRONG result or a failed call: exit 1 */
static cli_progress g_prog;

/* ------------------------------------------------------------------ libraries */

void *lsym(blasfns *b, const char *name) {
    void *p = dlsym(b->h, name);
    if (!p) return NULL;
    Dl_info self, it; /* must resolve into this very library, not a dependency */
    void *any = dlsym(b->h, "cblas_sgemm");
    if (any && dladdr(any, &self) && dladdr(p, &it) && self.dli_fbase != it.dli_fbase) {
        fprintf(stderr, "note: %s of %s resolves into %s\n", name, b->path, it.dli_fname);
    }
    return p;
}

int load_lib(blasfns *b, const char *path, int is_mbc) {
    memset(b, 0, sizeof *b);
    if (!path || !path[0]) return -1;
    b->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!b->h) {
        cli_error("cannot load %s: %s", path, dlerror());
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

const char *path_name(int p) {
    switch (p) {
    case MINIBLAS_CBLAS_PATH_CPU: return "cpu";
    case MINIBLAS_CBLAS_PATH_GPU: return "gpu";
    case MINIBLAS_CBLAS_PATH_GPU_INPLACE: return "gpuD";
    case MINIBLAS_CBLAS_PATH_GPU_FALLBACK: return "FALL";
    default: return "-";
    }
}

/* The default --lib: $MINIBLAS_CBLAS_LIB, else libminiblas_cblas.so.0 next to this program,
 * in ../lib (an installed tree) or ../src/cblas (the build tree), else the bare name for the
 * dynamic loader (LD_LIBRARY_PATH, the system's library path). */
static const char *default_cblas_lib(void) {
    static char path[4096];
    const char *env = getenv("MINIBLAS_CBLAS_LIB");
    if (env && *env) return env;
    const char *rel[] = {"", "../lib/", "../src/cblas/"};
    char exe[4000];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            slash[1] = '\0';
            for (int i = 0; i < 3; ++i) {
                struct stat st;
                snprintf(path, sizeof path, "%s%slibminiblas_cblas.so.0", exe, rel[i]);
                if (stat(path, &st) == 0) return path;
            }
        }
    }
    return "libminiblas_cblas.so.0";
}

/* ------------------------------------------------------------------ small helpers */

double now(void) { return cli_now(); }

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double median(double *v, int n) {
    if (n <= 0) return -1;
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ------------------------------------------------------------------ sweeps */

static int run_one(const opdef *op, int row, int64_t m, int64_t n, int64_t k, unsigned mask,
                   int kernels, pred_t *pred, rowres *out, int pinned) {
    prob p;
    char sh[64];
    snprintf(sh, sizeof sh, "%lldx%lldx%lld", (long long)m, (long long)n, (long long)k);
    cli_progress_step(&g_prog, "%s%s %s %s%s%s", op->name, op->kind == K_GEMM ? (row ? " row" : " col") : "",
                      op->kind == K_GEMM ? sh : (snprintf(sh, sizeof sh, "n=%lld", (long long)n), sh),
                      mem_name(pinned), O.devices[0] ? " devices " : "", O.devices);
    /* device buffers: the plain offload's, and the kernel-only timings' */
    if (prob_init(&p, op, row, m, n, k, (mask & (1u << I_PLAIN)) != 0 || (kernels && !O.dry),
                  pinned)) {
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
    if (!O.dry) all |= O.impls & ~((1u << I_XT0) - 1); /* cublasXt's blocks */
    if (O.dry && O.want_xt) printf("note: cublasxt is skipped in a dry run (it needs a GPU)\n");
    int nmem = 0, mem[2];
    for (int i = 0; i < O.nmem; ++i)
        if (O.dry && O.mem[i]) printf("note: pinned memory is skipped in a dry run (cudaMallocHost "
                                      "needs a GPU)\n");
        else mem[nmem++] = O.mem[i];
    for (int o = 0; o < NOPS; ++o) {
        if (!(O.ops & (1u << o))) continue;
        const opdef *op = &OPS[o];
        print_header();
        int nl = op->kind == K_GEMM ? O.nlayouts : 1;
        for (int li = 0; li < nl; ++li) {
            pred_t pred = {0, 0};
            const int64_t *sz = op->kind == K_GEMM ? O.sizes : op->kind == K_OMAT ? O.omsizes : O.vsizes;
            int ns = op->kind == K_GEMM ? O.nsizes : op->kind == K_OMAT ? O.nomsizes : O.nvsizes;
            for (int s = 0; s < ns; ++s)
                for (int mi = 0; mi < nmem; ++mi) {
                    rowres r;
                    if (run_one(op, O.layouts[li] == CblasRowMajor, sz[s], sz[s], sz[s], all,
                                O.kernels, mi == 0 ? &pred : NULL, &r, mem[mi]) == 0)
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
        if (run_one(op, row, m, n, k, mask, 0, &pred, &r, 0) == 0) {
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

/* ------------------------------------------------------------------ main */

static int table_rows(void) {
    int n = 0;
    for (int o = 0; o < NOPS; ++o) {
        if (!(O.ops & (1u << o))) continue;
        int k = OPS[o].kind;
        n += k == K_GEMM ? O.nlayouts * O.nsizes : k == K_OMAT ? O.nomsizes : O.nvsizes;
    }
    int nmem = 0;
    for (int i = 0; i < O.nmem; ++i) nmem += !(O.dry && O.mem[i]);
    return n * nmem;
}

static void fill_meta(int argc, char **argv, const struct cudaDeviceProp *prop, int dev,
                      char *pci, size_t pcisize) {
    bench_meta *m = &g_run.meta;
    sysinfo_fill_meta(m, "miniblas-cblas-bench", MINIBLAS_GIT_COMMIT, argc, argv);
    snprintf(m->device, sizeof m->device, "%s", prop->name);
    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess && v)
        snprintf(m->cuda_driver, sizeof m->cuda_driver, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess && v)
        snprintf(m->cuda_runtime, sizeof m->cuda_runtime, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    if (g_cublas && cublasGetVersion(g_cublas, &v) == CUBLAS_STATUS_SUCCESS)
        snprintf(m->cublas, sizeof m->cublas, "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
    char *(*cfg)(void) = (char *(*)(void))dlsym(OB.h, "openblas_get_config");
    if (cfg) snprintf(m->openblas, sizeof m->openblas, "%s", cfg());
    pci[0] = '\0';
    if (!O.dry && cudaDeviceGetPCIBusId(pci, (int)pcisize, dev) != cudaSuccess) pci[0] = '\0';
    cudaGetLastError();
    if (!O.dry) sysinfo_gpu_state(pci, &m->gpu_start);
    char *s = m->settings;
    size_t n = sizeof m->settings;
    bench_settings_num(s, n, "trials", O.trials);
    bench_settings_num(s, n, "trials_short", O.trials_short);
    bench_settings_num(s, n, "max_trials", O.max_trials);
    bench_settings_num(s, n, "max_noise_pct", O.max_noise * 100);
    bench_settings_num(s, n, "budget_s", O.budget);
    bench_settings_num(s, n, "min_time_ms", O.min_time * 1e3);
    bench_settings_num(s, n, "max_seconds", O.max_seconds);
    bench_settings_num(s, n, "settle_ms", O.settle * 1e3);
    bench_settings_num(s, n, "settle_cpu_ms", O.settle_cpu * 1e3);
    bench_settings_num(s, n, "alpha", O.alpha);
    bench_settings_num(s, n, "beta", O.beta);
    bench_settings_num(s, n, "dry_run_cpu", O.dry);
    bench_settings_num(s, n, "host_cores", ncpu());
    bench_settings_str(s, n, "lib", MBC.path);
    bench_settings_str(s, n, "cpu_lib", OB.path);
    bench_settings_str(s, n, "pci_bus_id", pci);
    bench_settings_str(s, n, "memory", O.nmem == 2 ? "pageable,pinned" : mem_name(O.mem[0]));
    char xb[128] = "";
    for (int i = 0, l = 0; i < O.nxt && O.want_xt; ++i)
        l += snprintf(xb + l, sizeof xb - (size_t)l, "%s%lld", i ? "," : "", (long long)O.xt_blocks[i]);
    if (O.want_xt) bench_settings_str(s, n, "xt_blocks", xb);
}

/* ------------------------------------------------------------------ several GPU sets */

/* The GPUs the layer uses in this process, when --devices did not say: MINIBLAS_CBLAS_DEVICES
 * (a comma list; "all" or unset: every GPU). O.devices stays "" (the rows' devices: null). */
static void env_devices(int count) {
    const char *e = getenv("MINIBLAS_CBLAS_DEVICES");
    O.ndev = 0;
    if (e && e[0] && strcmp(e, "all")) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", e);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t && O.ndev < MAXDEV; t = strtok_r(NULL, ",", &save))
            O.devlist[O.ndev++] = atoi(t);
    } else {
        for (int i = 0; i < count && i < MAXDEV; ++i) O.devlist[O.ndev++] = i;
    }
}

#define ROWS_MAGIC "miniblas-cblas-bench rows 1\n"

/* A child's rows for its parent: the magic line, the meta, the count, the rows (the same
 * program on the same machine reads them back, so the structs go as they are). */
static int write_rows(const char *path) {
    FILE *f = fopen(path, "wb");
    uint64_t n = g_run.count;
    int bad = !f || fwrite(ROWS_MAGIC, 1, strlen(ROWS_MAGIC), f) != strlen(ROWS_MAGIC) ||
              fwrite(&g_run.meta, sizeof g_run.meta, 1, f) != 1 || fwrite(&n, sizeof n, 1, f) != 1 ||
              (n && fwrite(g_run.results, sizeof *g_run.results, n, f) != n);
    if (f && fclose(f)) bad = 1;
    if (bad) cli_error("cannot write the rows to %s: %s", path, strerror(errno));
    return bad ? -1 : 0;
}

static int read_rows(const char *path, int first) {
    FILE *f = fopen(path, "rb");
    char magic[64] = "";
    bench_meta m;
    uint64_t n = 0;
    size_t ml = strlen(ROWS_MAGIC);
    if (!f || fread(magic, 1, ml, f) != ml || memcmp(magic, ROWS_MAGIC, ml) ||
        fread(&m, sizeof m, 1, f) != 1 || fread(&n, sizeof n, 1, f) != 1) {
        if (f) fclose(f);
        return -1;
    }
    if (first) {
        char cmd[sizeof m.command];
        memcpy(cmd, g_run.meta.command, sizeof cmd);
        g_run.meta = m; /* the device, versions and settings of the first child */
        memcpy(g_run.meta.command, cmd, sizeof cmd);
    }
    g_run.meta.gpu_end = m.gpu_end; /* the GPU after the last child */
    for (uint64_t i = 0; i < n; ++i) {
        bench_result r;
        if (fread(&r, sizeof r, 1, f) != 1 || bench_run_add(&g_run, &r)) {
            fclose(f);
            return -1;
        }
    }
    fclose(f);
    return 0;
}

/* After the children: the layer's gemm, asum and dot rows side by side over the device sets,
 * gemm with cublasXt on the same GPUs and memory (block 4096 and the fastest block measured). */
static const bench_result *find_row(const bench_result *like, const char *rung, const char *devices) {
    for (size_t i = 0; i < g_run.count; ++i) {
        const bench_result *q = &g_run.results[i];
        if (!strcmp(q->op, like->op) && !strcmp(q->shape, like->shape) &&
            !strcmp(q->trans, like->trans) && !strcmp(q->memory, like->memory) &&
            !strcmp(q->devices, devices) && (!rung || !strcmp(q->rung, rung)) &&
            q->status == BENCH_OK)
            return q;
    }
    return NULL;
}

static void print_summary(void) {
    int any = 0;
    for (size_t i = 0; i < g_run.count; ++i) {
        const bench_result *r = &g_run.results[i];
        int vec = strstr(r->op, "asum") || strstr(r->op, "dot");
        if (strcmp(r->rung, "mbc") || (strcmp(r->unit, "GFLOP/s") && !vec) || r->status != BENCH_OK)
            continue;
        if (!any++)
            printf("\nthe layer (mbc) over the device sets, against cublasXt on the same GPUs and "
                   "memory (ms per call; speedup: over the first set's mbc; xt/mbc > 1: mbc faster)\n"
                   "%-6s %-3s %-8s %-17s %-8s %10s %7s %10s %7s %10s %6s %7s\n", "op", "lay", "memory",
                   "shape", "devices", "mbc", "speedup", "xt_4096", "xt/mbc", "xt_best", "block",
                   "xt/mbc");
        const bench_result *first = NULL;
        for (size_t j = 0; j < g_run.count && !first; ++j) /* the first set's mbc row */
            if (!strcmp(g_run.results[j].rung, "mbc") &&
                find_row(r, "mbc", g_run.results[j].devices) == &g_run.results[j])
                first = &g_run.results[j];
        const bench_result *x4 = find_row(r, "cublasxt_4096", r->devices), *xb = NULL;
        for (size_t j = 0; j < g_run.count; ++j) {
            const bench_result *q = &g_run.results[j];
            if (!strncmp(q->rung, "cublasxt_", 9) && find_row(r, q->rung, r->devices) == q &&
                (!xb || q->time_us < xb->time_us))
                xb = q;
        }
        char c[4][24] = {"-", "-", "-", "-"};
        if (first) snprintf(c[0], sizeof c[0], "%.2f", first->time_us / r->time_us);
        if (x4) snprintf(c[1], sizeof c[1], "%.3f", x4->time_us * 1e-3);
        if (xb) snprintf(c[2], sizeof c[2], "%.3f", xb->time_us * 1e-3);
        if (xb) snprintf(c[3], sizeof c[3], "%s", xb->rung + 9);
        printf("%-6s %-3s %-8s %-17s %-8s %10.3f %7s %10s %7s %10s %6s %7s\n", r->op, r->trans,
               r->memory, r->shape, r->devices, r->time_us * 1e-3, c[0], c[1],
               x4 ? (snprintf(c[1], sizeof c[1], "%.2f", x4->time_us / r->time_us), c[1]) : "-",
               c[2], c[3], xb ? (snprintf(c[2], sizeof c[2], "%.2f", xb->time_us / r->time_us), c[2]) : "-");
    }
}

/* --devices: one child process per entry (the same command with --devices-child ENTRY and
 * --rows-out FILE; its table goes to this stdout), then their rows merged. Returns the worst
 * child status seen, 0 1 or 2; g_fail set by a child's WRONG row. */
static int run_children(int argc, char **argv) {
    char exe[4096];
    ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (el <= 0) {
        cli_error("cannot find this program (/proc/self/exe) to run --devices");
        return 2;
    }
    exe[el] = '\0';
    int worst = 0;
    for (int d = 0; d < O.ndevsets; ++d) {
        char tmp[] = "/tmp/miniblas-cblas-bench-rows-XXXXXX", a1[96], a2[96];
        int fd = mkstemp(tmp);
        if (fd < 0) {
            cli_error("cannot create a temporary file: %s", strerror(errno));
            return 2;
        }
        close(fd);
        snprintf(a1, sizeof a1, "--devices-child=%s", O.devsets[d]);
        snprintf(a2, sizeof a2, "--rows-out=%s", tmp);
        char **av = calloc((size_t)argc + 3, sizeof *av);
        if (!av) return 2;
        for (int i = 0; i < argc; ++i) av[i] = argv[i];
        av[argc] = a1, av[argc + 1] = a2, av[argc + 2] = NULL;
        printf("\n==== devices %s (a child process: MINIBLAS_CBLAS_DEVICES) ====\n", O.devsets[d]);
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid == 0) {
            execv(exe, av);
            _exit(127);
        }
        free(av);
        int st = 0, rc = 2;
        if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st)) rc = WEXITSTATUS(st);
        if (rc == 1) g_fail = 1;
        if ((rc == 0 || rc == 1) && read_rows(tmp, d == 0)) {
            cli_error("cannot read the rows of devices %s", O.devsets[d]);
            rc = 2;
        } else if (rc != 0 && rc != 1) {
            cli_error("the run on devices %s failed (%s %d)", O.devsets[d],
                      pid > 0 && WIFSIGNALED(st) ? "signal" : "exit status",
                      pid > 0 && WIFSIGNALED(st) ? WTERMSIG(st) : rc);
            rc = 2;
        }
        if (rc > worst) worst = rc;
        unlink(tmp);
    }
    return worst;
}

/* The result files and the comparison with --baseline; frees the rows; the exit status. */
static int finish(cli_outputs *outs, int rc) {
    if ((outs->csv && bench_write_csv(outs->csv, &g_run)) ||
        (outs->json && bench_write_json(outs->json, &g_run)) ||
        (outs->md && bench_write_md(outs->md, &g_run)) || cli_close_outputs(&O.com, outs))
        rc = 1;
    if (O.com.baseline) {
        const char *cur = O.com.json;
        char tmp[] = "/tmp/miniblas-cblas-bench-XXXXXX";
        if (!cur) {
            int fd = mkstemp(tmp);
            FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
            if (f && bench_write_json(f, &g_run) == 0 && fclose(f) == 0) cur = tmp;
        }
        printf("\n");
        int crc = cur ? cli_run_compare(O.com.baseline, cur, O.com.tolerance_pct) : -1;
        if (cur == tmp) unlink(tmp);
        if (crc < 0 || crc == 2) {
            cli_error("the comparison with %s could not be made", O.com.baseline);
            if (rc == 0) rc = 2;
        } else if (crc == 3 && rc == 0) {
            rc = 3;
        }
    }
    bench_run_free(&g_run);
    return rc;
}

/* The --devices value as given (the last one), for the settings. */
static const char *optarg_devices(int argc, char **argv) {
    const char *v = "";
    for (int i = 1; i < argc; ++i) {
        if (!strncmp(argv[i], "--devices=", 10)) v = argv[i] + 10;
        else if (!strcmp(argv[i], "--devices") && i + 1 < argc) v = argv[++i];
    }
    return v;
}

int main(int argc, char **argv) {
    cli_tool = "miniblas-cblas-bench";
    if (parse_args(argc, argv)) return 2;
    if (O.com.help) {
        usage(stdout);
        return 0;
    }
    if (O.com.version) {
        cli_print_version(stdout);
        return 0;
    }
    if (!O.lib) O.lib = default_cblas_lib();
    const int child = O.child_devset != NULL, parent = O.ndevsets > 0 && !child;
    if (parent && O.csv_wide) {
        cli_error("--csv-wide is not available with --devices (use --csv or --json)");
        return 2;
    }
    if (O.com.baseline && !child) {
        FILE *bf = fopen(O.com.baseline, "r");
        if (!bf) {
            cli_error("cannot read --baseline %s: %s", O.com.baseline, strerror(errno));
            return 2;
        }
        fclose(bf);
        if (!cli_compare_script()) {
            cli_error("--baseline needs python3 and perf/compare.py (MINIBLAS_COMPARE: its path)");
            return 2;
        }
    }
    /* the output files now, before anything is measured: a bad path costs nothing */
    cli_outputs outs;
    memset(&outs, 0, sizeof outs);
    if (!child && cli_open_outputs(&O.com, &outs) != 0) return 2; /* a child: --rows-out only */
    if (parent) { /* each device set in a child process, then the rows merged */
        bench_run_init(&g_run);
        sysinfo_fill_meta(&g_run.meta, "miniblas-cblas-bench", MINIBLAS_GIT_COMMIT, argc, argv);
        int worst = run_children(argc, argv);
        print_summary();
        char *s = g_run.meta.settings; /* the first child's, with the whole list */
        bench_settings_str(s, sizeof g_run.meta.settings, "devices_list", optarg_devices(argc, argv));
        printf("\n%s: %d device set(s), %zu result rows%s\n",
               g_fail ? "FAILED" : worst ? "INCOMPLETE" : "done", O.ndevsets, g_run.count,
               g_fail ? "; some result was WRONG or a call failed" : "");
        return finish(&outs, g_fail ? 1 : worst ? 2 : 0);
    }
    if (O.csv_wide && !child) {
        g_csv_wide = fopen(O.csv_wide, "w");
        if (!g_csv_wide) {
            cli_error("cannot write %s: %s", O.csv_wide, strerror(errno));
            return 2;
        }
    }
    bench_run_init(&g_run);
    mbc_ptr_init();
    int count = 0;
    cudaError_t ce = cudaGetDeviceCount(&count);
    if (O.dry) {
        O.probe = O.kernels = 0;
    } else if (ce != cudaSuccess || count == 0) {
        cli_error("no CUDA device (%s); --dry-run-cpu runs without one",
                ce != cudaSuccess ? cudaGetErrorString(ce) : "device count is 0");
        return 2;
    }
    if (child) { /* this process's GPU set, for the layer (read when it starts) */
        for (int i = 0; i < O.ndev; ++i)
            if (!O.dry && O.devlist[i] >= count) {
                cli_error("--devices %s: no GPU %d (%d found)", O.child_devset, O.devlist[i], count);
                return 2;
            }
        setenv("MINIBLAS_CBLAS_DEVICES", O.devices, 1);
    } else {
        env_devices(O.dry ? 1 : count);
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
        cli_error("cannot use CUDA device %d", dev);
        return 2;
    } else if (cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        cli_error("cannot query CUDA device %d", dev);
        return 2;
    }
    if (getenv("NVIDIA_TF32_OVERRIDE") && atoi(getenv("NVIDIA_TF32_OVERRIDE")) == 1) {
        cli_error("NVIDIA_TF32_OVERRIDE=1 would put cuBLAS SGEMM on TF32: unset it");
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
        cli_error("cannot load the CPU BLAS (--cpu-lib)");
        return 2;
    }
    if (O.cpu_lib || !envcpu || !envcpu[0]) setenv("MINIBLAS_CPU_BLAS_LIB", OB.path, 1);
    if (load_lib(&MBC, O.lib, 1)) {
        cli_error("cannot load libminiblas_cblas from %s (--lib, $MINIBLAS_CBLAS_LIB)", O.lib);
        return 2;
    }
    int gpu_ok = MBC.gpu_available();
    const char *layer_cpu = MBC.cpu_blas ? MBC.cpu_blas() : NULL;

    if (!O.dry) {
        if (cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS ||
            miniblas_create(&g_mb) != MINIBLAS_STATUS_SUCCESS || cudaMalloc(&g_dres, 64) != cudaSuccess) {
            cli_error("cannot create cuBLAS / miniblas handles");
            return 2;
        }
        cublasSetPointerMode(g_cublas, CUBLAS_POINTER_MODE_HOST);
        if (O.want_xt && (cublasXtCreate(&g_xt) != CUBLAS_STATUS_SUCCESS ||
                          cublasXtDeviceSelect(g_xt, O.ndev, O.devlist) != CUBLAS_STATUS_SUCCESS)) {
            cli_error("cannot create a cublasXt handle on GPUs %s", O.devices[0] ? O.devices : "(all)");
            return 2;
        }
    }

    /* what runs */
    char *(*ob_config)(void) = (char *(*)(void))dlsym(OB.h, "openblas_get_config");
    int (*ob_threads)(void) = (int (*)(void))dlsym(OB.h, "openblas_get_num_threads");
    printf("miniblas-cblas-bench: %s (device %d, %d SMs), %d host cores\n", prop.name, dev,
           prop.multiProcessorCount, ncpu());
    if (O.devices[0] || O.want_xt)
        printf("  GPUs of the layer%s: %s (%d)\n", O.want_xt ? " and cublasXt" : "",
               O.devices[0] ? O.devices : "all", O.ndev);
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

    char pci[32];
    fill_meta(argc, argv, &prop, dev, pci, sizeof pci);
    if (g_csv_wide)
        fprintf(g_csv_wide, "# miniblas-cblas-bench on %s, %d host cores; layer %s; CPU BLAS %s\n",
                prop.name, ncpu(), MBC.path, OB.path);
    if (O.probe && !O.crossover) {
        if (run_probe()) {
            cli_error("the probe failed");
            g_fail = 1;
        } else {
            print_probe(stdout, "");
            if (g_csv_wide) print_probe(g_csv_wide, "# ");
        }
    }
    if (g_csv_wide) csv_wide_header();
    cli_progress_start(&g_prog, O.crossover ? 0 : table_rows(), O.com.progress);

    double t = now();
    if (O.crossover)
        run_crossover();
    else
        run_table();

    printf("\n%s: %.0f s; %d row(s) with mbc more than 5%% slower than OpenBLAS (SLOW; %d of them "
           "by at most 3 ns a call), %d gemm row(s) >= 4096 beyond 1.25x of both bounds (MISS)%s\n",
           g_fail ? "FAILED" : "done", now() - t, g_slow, g_slow_3ns, g_miss,
           g_fail ? "; some result was WRONG or a call failed" : "");
    if (g_csv_wide && fclose(g_csv_wide) != 0) cli_error("error writing %s", O.csv_wide);
    if (!O.dry) sysinfo_gpu_state(pci, &g_run.meta.gpu_end);
    int rc = g_fail ? 1 : 0;
    if (child) {
        if (write_rows(O.rows_out)) rc = 2;
    } else {
        rc = finish(&outs, rc);
    }
    bench_run_free(&g_run);
    if (!O.dry) {
        miniblas_destroy(g_mb);
        cublasDestroy(g_cublas);
        if (g_xt) cublasXtDestroy(g_xt);
        cudaFree(g_dres);
    }
    return rc;
}
