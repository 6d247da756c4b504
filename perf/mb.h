/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-bench's internal interface, shared by its files:
 *   miniblas-bench.c  main: device set-up, the loop over ops and shapes, rows, outputs
 *   mb_options.c      the command line, --list, the default shapes, the participants
 *   mb_ops.c          one problem: buffers, launches, the check against cuBLAS, the timing
 *                     (warm-up, interleaved trials, the stopping rule), ceilings
 */
#ifndef MINIBLAS_PERF_MB_H
#define MINIBLAS_PERF_MB_H

#include <stdint.h>
#include <stdio.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_report.h"
#include "cli.h"
#include "miniblas.h"
#include "stats.h"

/* perf/bench_kernels.cu */
cudaError_t bench_fill_uniform(void *p, size_t n, int is_double, uint64_t seed, cudaStream_t s);
cudaError_t bench_read_stream(const void *p, size_t bytes, float *block_out, int blocks,
                              cudaStream_t s);
cudaError_t bench_max_absdiff(const void *a, int64_t lda, const void *b, int64_t ldb,
                              int64_t rows, int64_t cols, int is_double, unsigned long long *out,
                              cudaStream_t s);
cudaError_t bench_ref_reduce(const void *x, int64_t incx, const void *y, int64_t incy, int64_t n,
                             int is_double, double *out, cudaStream_t s);

/* snprintf through a va_list: truncation is intended (notes are one line). */
void setf(char *dst, size_t size, const char *fmt, ...);

/* ---- ops */

typedef enum { K_GEMM, K_OMAT, K_ASUM, K_DOT } kind_t;

typedef struct opinfo {
    const char *name;
    miniblas_op_t op;
    kind_t kind;
    int dbl;
    const char *cublas; /* what it is compared with */
} opinfo;

extern const opinfo OPS[MINIBLAS_OP_COUNT];

/* ---- options */

#define MAX_LIST CLI_MAX_ITEMS
#define MAX_PARTS 64

typedef struct options {
    cli_common com;             /* the shared options: trials, stopping rule, outputs */
    int op_sel[MINIBLAS_OP_COUNT];
    int rung_all;
    char *rungs[MAX_LIST];
    int nrungs;
    cli_size sizes[MAX_LIST];   /* --sizes: each item goes to the ops whose form it fits */
    int nsizes;                 /* 0: defaults */
    cli_size kind_sizes[3][MAX_LIST]; /* --gemm-sizes, --omat-sizes, --vec-sizes */
    int nkind_sizes[3];
    int gemm_trans[4][2];
    int ngemm_trans;
    int omat_trans[2];
    int nomat_trans;
    int64_t inc;
    int warmup;
    int list;
    int skip_slow;
    int warm_l2; /* --warm-l2: no rotation of bandwidth ops' buffers */
    double slow_limit_s;
} options;

/* Parses the command line; 0 ok, -1 bad usage (message printed). */
int parse_options(int argc, char **argv, options *o);
void usage(FILE *f);
void print_list(void);
/* The shapes of one op kind: returns the count written to out (m, n, k each). */
int shapes_for(const options *o, kind_t kind, int64_t out[][3]);

/* ---- context */

typedef struct history {
    int op;
    char rung[48];
    double work, ms;
    char shape[64];
} history;

typedef struct ctx {
    const options *o;
    miniblas_handle_t mb;
    cublasHandle_t cb;
    cudaEvent_t ev0, ev1;
    int sms, cc_major, cc_minor;
    size_t l2;
    int warm_l2; /* --warm-l2 */
    void *scratch; /* device: [0] maxdiff bits, [8..24) ref sums, [32] ours, [40] cuBLAS result */
    bench_run run;
    cli_outputs out;
    history hist[1024];
    int nhist;
    int bad;   /* a WRONG row or a failed call: exit status 1 */
    cli_progress prog;
    char pci[32]; /* the device's PCI bus id, for nvidia-smi */
    char err[512];
} ctx;

#define SCR_MAXDIFF(c) ((unsigned long long *)(c)->scratch)
#define SCR_REF(c) ((double *)((char *)(c)->scratch + 8))
#define SCR_OURS(c) ((void *)((char *)(c)->scratch + 32))
#define SCR_CUB(c) ((void *)((char *)(c)->scratch + 40))

int cuda_ok(ctx *c, cudaError_t e, const char *what);
const char *cublas_status_str(cublasStatus_t s);
/* Fatal: the CUDA context may be unusable. Writes what we have and exits 1. */
void fatal(ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;
/* Writes the rows so far to the output files (once). */
void write_outputs(ctx *c);

/* ---- one problem: an op at one shape and transpose */

typedef struct problem {
    const opinfo *oi;
    int64_t m, n, k;   /* gemm: m n k; omatcopy: rows cols; reductions: n */
    int ta, tb;        /* gemm transposes; omatcopy: ta */
    int64_t inc;
    size_t es;         /* element size */
    int64_t lda, ldb, ldc;
    size_t a_elems, b_elems, c_elems; /* per slot */
    size_t off_b, off_c;              /* byte offsets in a slot */
    size_t slot_bytes;
    int slots;
    char *arena;
    void *ref;         /* gemm / omatcopy: cuBLAS's output for the check */
    double work;       /* flops (gemm) or bytes */
    unsigned long long counter; /* launches so far, for the rotation */
    char shape[64], trans[4];
} problem;

/* ---- participants: cuBLAS, cuBLAS TF32, rungs, auto */

typedef struct part {
    char name[48];
    int is_cublas, tf32;
    int reduced;          /* a reduced-precision miniblas rung */
    bench_status status;
    char note[160];
    double first_ms;      /* the check launch */
    int reps;
    double *times;        /* per trial, ms per launch */
    int ntimes;
    double spent_ms;      /* trial time so far */
    int done;             /* the stopping rule is met */
} part;

/* The participants of an op: cuBLAS, cuBLAS TF32 if a reduced-precision rung runs, rungs. */
int build_parts(const options *o, const opinfo *oi, part *parts);

int problem_setup(ctx *c, problem *p);
void problem_free(problem *p);
/* The reference: cuBLAS's result, and the first-launch time of cuBLAS. */
int run_reference(ctx *c, problem *p, part *cub);
/* Poison our output, run once (timed), check against cuBLAS. */
void check_part(ctx *c, problem *p, part *pt, int opk);
/* The first (check) launch of cuBLAS TF32: warms it and gives first_ms. */
void check_cublas_tf32(ctx *c, problem *p, part *pt);
/* Warm-up, calibration and the interleaved trials under the stopping rule. */
void time_parts(ctx *c, problem *p, part *parts, int nparts);
void add_history(ctx *c, int opk, const char *rung, double work, double ms, const char *shape);
void check_device_alive(ctx *c, const char *after);

/* ---- ceilings */
void spin_up(ctx *c);
void measure_ceilings(ctx *c);

#endif
