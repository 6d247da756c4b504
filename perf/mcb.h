/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-cblas-bench's internal interface, shared by its files:
 *   miniblas-cblas-bench.c  main, loading the libraries, the sweeps and the crossover search
 *   mcb_args.c              the command line (shared conventions from cli.c)
 *   mcb_host.c              parallel host helpers, the bandwidth probe, transfer-time bounds
 *   mcb_row.c               one problem: inputs, each implementation's call, verification,
 *                           the live staged way, kernel-only timing, one row's trials
 *   mcb_output.c            the table, the wide CSV, the rows of the result files
 */
#ifndef MINIBLAS_PERF_MCB_H
#define MINIBLAS_PERF_MCB_H

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

#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cblas.h> /* OpenBLAS's (the layer's PUBLIC include): function types, blasint, enums */
#include "miniblas.h"
#include "miniblas_cblas.h"
#include "stream_copy.h" /* the layer's staging copy, measured by the probe */
#include "copypool.h"    /* the layer's copy pool (its own instance): the live staged way */
#include "cblas_ptr.h"   /* the layer's address test (its own copy): where small vectors lie */

#ifndef MCB_CPU_BLAS
#define MCB_CPU_BLAS ""
#endif

#include "bench_report.h"
#include "cli.h"
#include "stats.h"

/* ------------------------------------------------------------------ options */

#define MAXSZ 64
#define MAXTR 64
#define MAXDS 8     /* --devices entries */
#define MAXXB 8     /* --xt-blocks entries */
#define MAXDEV 64   /* GPUs of one device set */
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
    cli_common com;                /* the shared options (cli.h); trials, min_time and budget
                                      above are taken from it */
    int max_trials;                /* --max-trials: trials beyond the count while noisy */
    double max_noise;              /* --max-noise as a fraction */
    const char *csv_wide, *lib, *cpu_lib;
    uint64_t seed;
    /* several GPUs (--devices): each entry is measured in a child process of its own, which
       sets MINIBLAS_CBLAS_DEVICES before loading the layer; the parent merges their rows */
    char devsets[MAXDS][64];       /* the entries as given: "2" (a count) or "d0+1" (a set) */
    int ndevsets;
    const char *child_devset;      /* internal --devices-child ENTRY: this process measures it */
    const char *rows_out;          /* internal --rows-out FILE: the child's rows for the parent */
    char devices[64];              /* the set measured here, "0,1" (MINIBLAS_CBLAS_DEVICES);
                                      "" when --devices was not given */
    int devlist[MAXDEV], ndev;     /* the same as numbers (cublasXt, the bounds); ndev 0: unknown */
    int mem[2], nmem;              /* --memory: 0 pageable (malloc), 1 pinned (cudaMallocHost) */
    int64_t xt_blocks[MAXXB];      /* --xt-blocks: cublasXt's block dimensions */
    int nxt;
    int want_xt;                   /* --impls named cublasxt */
} opts;

extern opts O;

/* ------------------------------------------------------------------ ops */

enum { K_GEMM, K_ASUM, K_DOT, K_OMAT };
typedef struct opdef {
    const char *name;
    int kind, dbl;
} opdef;
extern const opdef OPS[];
#define NOPS 8


/* I_XT0 + b: cublasXt with block dimension O.xt_blocks[b] (rung "cublasxt_<block>") */
enum { I_OB, I_MBC, I_GPU, I_PLAIN, I_XT0, NIMPL = I_XT0 + MAXXB };
extern const char *IMPL_NAME[NIMPL];
#define IS_XT(i) ((i) >= I_XT0 && (i) < NIMPL)

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

extern blasfns OB, MBC;
extern cublasHandle_t g_cublas;
extern cublasXtHandle_t g_xt; /* on O.devlist; NULL in a dry run or without cublasxt */
extern miniblas_handle_t g_mb;
extern void *g_dres; /* device result slot of the kernel-only reductions */
extern int g_fail;  /* a WRONG result or a failed call: exit 1 */

void *lsym(blasfns *b, const char *name);
int load_lib(blasfns *b, const char *path, int is_mbc);
const char *path_name(int p);

/* ---- small helpers */
double now(void);
double median(double *v, int n); /* sorts v; -1 for n == 0 */

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


/* ---- host helpers and the probe (mcb_host.c) */
int ncpu(void);
void fill_uniform(void *p, size_t n, int dbl, uint64_t seed);
void par_copy(void *dst, const void *src, size_t bytes, int nt, int kind);

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
    /* several GPUs (O.ndev > 1): every GPU of the set copying its own buffer at once, the
       bytes of all over the time of the slowest (B/s); agg_n 0: not measured */
    int agg_n;
    double agg_h2d_pin, agg_d2h_pin, agg_h2d_page, agg_d2h_page;
} probe_t;
extern probe_t P;
int run_probe(void);
void print_probe(FILE *f, const char *pre);

/* Time of moving in_b bytes to the GPU and out_b back, by each way (reg_b: the bytes that
 * would be registered in place: A, B, C once); best is the fastest way from pageable memory. */
typedef struct xfer_t {
    double pinned, pageable, staged, registered, best;
    double staged_probe; /* staged at the probe's rates (staged: live when measured) */
    const char *best_name;
} xfer_t;
void xfer_best(xfer_t *x);
xfer_t xfer_times(double in_b, double out_b, double reg_b);

/* ---- one problem (mcb_row.c) */

typedef struct prob {
    const opdef *op;
    int row;            /* gemm: row-major */
    int64_t m, n, k;    /* gemm m n k; asum/dot n; omatcopy n x n */
    double alpha, beta;
    size_t e;
    int pinned;         /* A, B, C from cudaMallocHost */
    void *A, *B, *C, *C0, *Cref;
    int64_t lda, ldb, ldc;
    size_t na, nb, nc; /* elements */
    void *dA, *dB, *dC;
    double res[NIMPL];
    double *rs, *cm;    /* gemm: row sums of |A|, column maxima of |B| */
    long double exact;  /* reductions */
    double absum;
} prob;

int prob_init(prob *p, const opdef *op, int row, int64_t m, int64_t n, int64_t k, int device,
              int pinned);
void prob_free(prob *p);

typedef struct rowres {
    const opdef *op;
    int row, pinned;
    int64_t m, n, k;
    int best_xt;     /* the fastest cublasXt block's implementation; -1 none */
    double t[NIMPL]; /* median s per call; < 0 not run */
    int ntr[NIMPL];
    long reps[NIMPL];
    double err[NIMPL]; /* error over bound; < 0 not checked */
    int path[NIMPL];
    int failed[NIMPL];
    double kmb, kcb;
    bench_stats st[NIMPL], st_kmb, st_kcb; /* the trials of each, with their noise */
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

const char *mem_name(int pinned);
void run_row(prob *p, unsigned mask, int kernels, pred_t *pred, rowres *r);
double work_of(const prob *p);

/* ---- output (mcb_output.c) */
extern FILE *g_csv_wide;
extern bench_run g_run;
extern int g_slow, g_slow_3ns, g_miss;
void print_header(void);
void print_row(const rowres *r);  /* the table line, the wide CSV line, the result rows */
void csv_wide_header(void);

/* ---- command line (mcb_args.c) */
void usage(FILE *f);
int parse_args(int argc, char **argv);
int parse_size(const char *s, int64_t *v);
int devset_resolve(const char *entry); /* a --devices entry into O.devices, O.devlist */

#endif
