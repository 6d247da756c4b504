/*
 * miniblas-bench: times every rung of every op against cuBLAS, in the same process,
 * interleaved, after checking each rung's result against cuBLAS's.
 *
 *   miniblas-bench [--op LIST] [--rung LIST|all] [--sizes LIST] [--trans LIST] ...
 *   miniblas-bench --list        (rung tables; needs no GPU)
 *   miniblas-bench --help
 *
 * Method (see --help for the options):
 *   - ceilings measured once per run: device-to-device copy (cudaMemcpyAsync of 1 GiB, bytes
 *     read + written) and a streaming read (float4 grid-stride kernel, perf/bench_kernels.cu);
 *     gemm peaks from the SM count and clock (cc 8.0 / 9.x only, else not reported);
 *   - per (op, shape, trans): inputs filled with random values in [-1, 1); for omatcopy and the
 *     reductions the inputs (and outputs) rotate among enough copies to span twice the L2, so
 *     every launch reads from DRAM (--warm-l2: one set, as a caller repeating a call would);
 *   - each rung (and `auto`) runs once on poisoned output and is compared with cuBLAS
 *     (gemm: max|diff| <= 2 k eps * sqrt(k) max|A| max|B|, i.e. k eps times the typical size
 *     of an element of C for random inputs, eps of the precision; reduced-precision rungs add
 *     8 sqrt(k) 2^-10 for the rounding of the inputs to TF32. Genuine rounding differences
 *     stay far below this (about 0.3 k eps for FP32 with random inputs, and a truncating
 *     tensor-core accumulator adds about k^1.5 eps / 50); a dropped product or k-tile does
 *     not. omatcopy: exact; reductions: |diff| <= 2 eps max(64, 4 sqrt n) sum|terms|,
 *     which catches gross errors only at large n in FP32; the tests do the fine checks):
 *     a wrong rung is reported WRONG with no speed and the exit status is 1;
 *   - then T trials, each trial looping over cuBLAS and every rung in turn (interleaved); a
 *     trial is CUDA events around as many back-to-back launches as fill --min-time-ms; the
 *     median time per launch is reported.
 * cuBLAS runs with CUBLAS_DEFAULT_MATH, which for FP32 never uses TF32 unless the environment
 * variable NVIDIA_TF32_OVERRIDE=1 is set (the benchmark refuses to run if it is). A rung that
 * trades precision for speed (MINIBLAS_RUNG_REDUCED_PRECISION) runs with its handle's math
 * mode allowing it, its row says "reduced precision", and it is compared with an extra row
 * "cublas_tf32" (CUBLAS_TF32_TENSOR_OP_MATH).
 *
 * Exit status: 0 all good; 1 a rung was WRONG or a call failed; 2 bad usage or no CUDA device;
 * 3 a regression beyond --tolerance against --baseline (1 wins over 3).
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "bench_report.h"
#include "miniblas.h"

#ifndef MINIBLAS_GIT_COMMIT
#define MINIBLAS_GIT_COMMIT "unknown"
#endif

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
static void setf(char *dst, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------------------ */
/* ops */

typedef enum { K_GEMM, K_OMAT, K_ASUM, K_DOT } kind_t;

typedef struct opinfo {
    const char *name;
    miniblas_op_t op;
    kind_t kind;
    int dbl;
    const char *cublas; /* what it is compared with */
} opinfo;

static const opinfo OPS[MINIBLAS_OP_COUNT] = {
    {"sgemm", MINIBLAS_OP_SGEMM, K_GEMM, 0, "cublasSgemm (CUBLAS_DEFAULT_MATH: FP32, no TF32)"},
    {"dgemm", MINIBLAS_OP_DGEMM, K_GEMM, 1, "cublasDgemm"},
    {"somatcopy", MINIBLAS_OP_SOMATCOPY, K_OMAT, 0, "cublasSgeam (C = alpha op(A) + 0 C)"},
    {"domatcopy", MINIBLAS_OP_DOMATCOPY, K_OMAT, 1, "cublasDgeam (C = alpha op(A) + 0 C)"},
    {"sasum", MINIBLAS_OP_SASUM, K_ASUM, 0, "cublasSasum (device pointer mode)"},
    {"dasum", MINIBLAS_OP_DASUM, K_ASUM, 1, "cublasDasum (device pointer mode)"},
    {"sdot", MINIBLAS_OP_SDOT, K_DOT, 0, "cublasSdot (device pointer mode)"},
    {"ddot", MINIBLAS_OP_DDOT, K_DOT, 1, "cublasDdot (device pointer mode)"},
};

/* ------------------------------------------------------------------------------------ */
/* options */

#define MAX_LIST 64
#define MAX_PARTS 64

typedef struct size_item {
    int ndims;
    int64_t v[3];
} size_item;

typedef struct options {
    int op_sel[MINIBLAS_OP_COUNT];
    int rung_all;
    char *rungs[MAX_LIST];
    int nrungs;
    size_item sizes[MAX_LIST];
    int nsizes; /* 0: defaults */
    int gemm_trans[4][2];
    int ngemm_trans;
    int omat_trans[2];
    int nomat_trans;
    int64_t inc;
    int trials, warmup;
    double min_time_ms;
    const char *csv, *json, *baseline;
    double tolerance;
    int list, quick, help;
    int skip_slow;
    int warm_l2; /* --warm-l2: no rotation of bandwidth ops' buffers */
    double slow_limit_s;
    int trials_set, warmup_set, min_time_set;
} options;

static void usage(FILE *f) {
    fprintf(f,
"usage: miniblas-bench [options]\n"
"Times miniblas's rungs against cuBLAS (same process, interleaved, results checked first).\n"
"\n"
"  --op LIST          sgemm,dgemm,somatcopy,domatcopy,sasum,dasum,sdot,ddot or all (default all)\n"
"  --rung LIST|all    rung names (see --list) and/or auto; default all registered rungs + auto.\n"
"                     cuBLAS is always timed. A reduced-precision rung runs with the math mode\n"
"                     allowing it; its row says so and it is also compared with cublas_tf32\n"
"  --sizes LIST       gemm: N or MxNxK; omatcopy: N or RxC; reductions: n. Numbers may be\n"
"                     written 2^26. An item applies to the ops whose form it fits (a plain N\n"
"                     fits all). Defaults: gemm 1024,2048,4096,8192,4096x4096x256,\n"
"                     8192x128x8192,128x8192x8192,4097x4095x4099; omatcopy 1024,2048,4096,\n"
"                     8192,16384,8192x2048; reductions 2^10,2^16,2^20,2^24,2^26,2^28\n"
"  --trans LIST       gemm: NN,NT,TN,TT (default NN); omatcopy: N,T (default T)\n"
"  --inc N            increment of the reductions (>= 1, default 1)\n"
"  --trials T         timed trials, median reported (default 7)\n"
"  --warmup W         warm-up launches per rung before timing (default 3)\n"
"  --min-time-ms MS   each trial repeats launches until it lasts MS ms (default 20): for\n"
"                     small problems this gives the back-to-back time per call\n"
"  --skip-slow[=S]    skip a rung at a shape where its launch would take more than S seconds\n"
"                     (default 2), estimated from its time at a smaller shape or measured at\n"
"                     its first launch; without the flag the limit is 60 s (never hangs)\n"
"  --csv FILE         one row per measurement\n"
"  --json FILE        device, driver, CUDA and cuBLAS versions, git commit, ceilings, rows\n"
"  --baseline FILE    compare with an earlier --json; regression: time up by more than\n"
"  --tolerance PCT    PCT percent (default 5) or a rung wrong now; exit status 3\n"
"  --quick            small sizes, 3 trials, 1 warm-up, 5 ms trials: a smoke run\n"
"  --warm-l2          omatcopy and reductions reuse one set of buffers, so back-to-back calls\n"
"                     find their inputs in L2 when they fit (default: rotate over 2x L2, DRAM)\n"
"  --list             print every op's rungs with their descriptions (no GPU needed)\n"
"  --help             this text\n"
"\n"
"Output: a table on stdout (time per call in us, GFLOP/s or GB/s, %% of cuBLAS, %% of the\n"
"ceiling: copy bandwidth for omatcopy, streaming read for reductions, FP32/FP64 peak for\n"
"gemm); progress on stderr. Bytes counted: each input read once, each output written once.\n"
"cuBLAS runs with CUBLAS_DEFAULT_MATH: FP32 gemm without TF32 (NVIDIA_TF32_OVERRIDE=1 is\n"
"refused). Each rung's result is checked against cuBLAS's before it is timed.\n"
"Exit status: 0 ok, 1 a rung was WRONG or a call failed, 2 usage or no CUDA device,\n"
"3 regression against the baseline.\n");
}

static int parse_count(const char *s, int64_t *out) {
    char *end;
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    long long a = strtoll(s, &end, 10);
    if (errno) return -1;
    if (*end == '^') { /* a^b, e.g. 2^26 */
        const char *q = end + 1;
        if (!isdigit((unsigned char)*q)) return -1;
        long long b = strtoll(q, &end, 10);
        if (b > 62) return -1;
        long long p = 1;
        for (long long i = 0; i < b; ++i) {
            if (a != 0 && p > INT64_MAX / a) return -1;
            p *= a;
        }
        a = p;
    }
    if (*end) return -1;
    *out = (int64_t)a;
    return 0;
}

static int parse_size_item(const char *s, size_item *it) {
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    it->ndims = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, "xX", &save); tok; tok = strtok_r(NULL, "xX", &save)) {
        if (it->ndims == 3) return -1;
        if (parse_count(tok, &it->v[it->ndims]) != 0 || it->v[it->ndims] < 1) return -1;
        it->ndims++;
    }
    return it->ndims ? 0 : -1;
}

static int op_by_name(const char *s) {
    for (int i = 0; i < MINIBLAS_OP_COUNT; ++i)
        if (strcasecmp(s, OPS[i].name) == 0) return i;
    return -1;
}

/* Rung index of `name` in op's table, -1 if none. */
static int rung_index(miniblas_op_t op, const char *name) {
    int n = miniblas_rung_count(op);
    for (int i = 0; i < n; ++i)
        if (strcasecmp(miniblas_rung_name(op, i), name) == 0) return i;
    return -1;
}

static int need_arg(int i, int argc, char **argv) {
    if (i + 1 >= argc) {
        fprintf(stderr, "miniblas-bench: %s needs a value (see --help)\n", argv[i]);
        return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->inc = 1;
    o->trials = 7;
    o->warmup = 3;
    o->min_time_ms = 20.0;
    o->tolerance = 5.0;
    o->slow_limit_s = 60.0;
    o->rung_all = 1;
    for (int i = 0; i < MINIBLAS_OP_COUNT; ++i) o->op_sel[i] = 1;
    int ops_given = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        char list[4096];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = 1;
        } else if (strcmp(a, "--list") == 0) {
            o->list = 1;
        } else if (strcmp(a, "--quick") == 0) {
            o->quick = 1;
        } else if (strcmp(a, "--warm-l2") == 0) {
            o->warm_l2 = 1;
        } else if (strcmp(a, "--skip-slow") == 0) {
            o->skip_slow = 1;
            o->slow_limit_s = 2.0;
        } else if (strncmp(a, "--skip-slow=", 12) == 0) {
            char *end;
            o->skip_slow = 1;
            o->slow_limit_s = strtod(a + 12, &end);
            if (*end || !(o->slow_limit_s > 0)) {
                fprintf(stderr, "miniblas-bench: bad --skip-slow value '%s'\n", a + 12);
                return -1;
            }
        } else if (strcmp(a, "--op") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            snprintf(list, sizeof list, "%s", argv[++i]);
            memset(o->op_sel, 0, sizeof o->op_sel);
            ops_given = 1;
            char *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (strcasecmp(t, "all") == 0) {
                    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) o->op_sel[k] = 1;
                    continue;
                }
                int k = op_by_name(t);
                if (k < 0) {
                    fprintf(stderr, "miniblas-bench: unknown op '%s' (sgemm, dgemm, somatcopy, "
                                    "domatcopy, sasum, dasum, sdot, ddot, all)\n", t);
                    return -1;
                }
                o->op_sel[k] = 1;
            }
        } else if (strcmp(a, "--rung") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            snprintf(list, sizeof list, "%s", argv[++i]);
            o->rung_all = 0;
            o->nrungs = 0;
            char *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (strcasecmp(t, "all") == 0) {
                    o->rung_all = 1;
                    continue;
                }
                if (o->nrungs == MAX_LIST) {
                    fprintf(stderr, "miniblas-bench: too many rungs\n");
                    return -1;
                }
                o->rungs[o->nrungs++] = strdup(t);
            }
        } else if (strcmp(a, "--sizes") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            snprintf(list, sizeof list, "%s", argv[++i]);
            o->nsizes = 0;
            char *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o->nsizes == MAX_LIST || parse_size_item(t, &o->sizes[o->nsizes]) != 0) {
                    fprintf(stderr, "miniblas-bench: bad size '%s' (N, RxC, MxNxK; 2^k allowed; "
                                    "at most %d items)\n", t, MAX_LIST);
                    return -1;
                }
                for (int d = 0; d < o->sizes[o->nsizes].ndims; ++d)
                    if (o->sizes[o->nsizes].v[d] > INT_MAX) {
                        fprintf(stderr, "miniblas-bench: size '%s' exceeds cuBLAS's int range\n", t);
                        return -1;
                    }
                o->nsizes++;
            }
        } else if (strcmp(a, "--trans") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            snprintf(list, sizeof list, "%s", argv[++i]);
            o->ngemm_trans = o->nomat_trans = 0;
            char *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                size_t len = strlen(t);
                int ok = 1;
                for (size_t c = 0; c < len; ++c) {
                    t[c] = (char)toupper((unsigned char)t[c]);
                    if (t[c] != 'N' && t[c] != 'T') ok = 0;
                }
                if (ok && len == 2 && o->ngemm_trans < 4) {
                    o->gemm_trans[o->ngemm_trans][0] = t[0] == 'T';
                    o->gemm_trans[o->ngemm_trans][1] = t[1] == 'T';
                    o->ngemm_trans++;
                } else if (ok && len == 1 && o->nomat_trans < 2) {
                    o->omat_trans[o->nomat_trans++] = t[0] == 'T';
                } else {
                    fprintf(stderr, "miniblas-bench: bad --trans item '%s' (NN, NT, TN, TT for "
                                    "gemm; N, T for omatcopy; each at most once)\n", t);
                    return -1;
                }
            }
        } else if (strcmp(a, "--inc") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            if (parse_count(argv[++i], &o->inc) != 0 || o->inc < 1 || o->inc > 1 << 20) {
                fprintf(stderr, "miniblas-bench: --inc must be an integer >= 1\n");
                return -1;
            }
        } else if (strcmp(a, "--trials") == 0 || strcmp(a, "--warmup") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            int64_t v;
            if (parse_count(argv[i + 1], &v) != 0 || v > 1000 ||
                (strcmp(a, "--trials") == 0 && v < 1)) {
                fprintf(stderr, "miniblas-bench: bad %s value '%s' (trials 1..1000, warm-up "
                                "0..1000)\n", a, argv[i + 1]);
                return -1;
            }
            if (strcmp(a, "--trials") == 0) {
                o->trials = (int)v;
                o->trials_set = 1;
            } else {
                o->warmup = (int)v;
                o->warmup_set = 1;
            }
            i++;
        } else if (strcmp(a, "--min-time-ms") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            char *end;
            o->min_time_ms = strtod(argv[++i], &end);
            if (*end || !(o->min_time_ms >= 0) || o->min_time_ms > 60000) {
                fprintf(stderr, "miniblas-bench: bad --min-time-ms '%s'\n", argv[i]);
                return -1;
            }
            o->min_time_set = 1;
        } else if (strcmp(a, "--tolerance") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            char *end;
            o->tolerance = strtod(argv[++i], &end);
            if (*end || !(o->tolerance >= 0)) {
                fprintf(stderr, "miniblas-bench: bad --tolerance '%s'\n", argv[i]);
                return -1;
            }
        } else if (strcmp(a, "--csv") == 0 || strcmp(a, "--json") == 0 ||
                   strcmp(a, "--baseline") == 0) {
            if (need_arg(i, argc, argv)) return -1;
            const char *v = argv[++i];
            if (a[2] == 'c') o->csv = v;
            else if (a[2] == 'j') o->json = v;
            else o->baseline = v;
        } else {
            fprintf(stderr, "miniblas-bench: unknown option '%s' (see --help)\n", a);
            return -1;
        }
    }
    (void)ops_given;
    if (o->quick) {
        if (!o->trials_set) o->trials = 3;
        if (!o->warmup_set) o->warmup = 1;
        if (!o->min_time_set) o->min_time_ms = 5.0;
    }
    if (o->ngemm_trans == 0) {
        o->gemm_trans[0][0] = o->gemm_trans[0][1] = 0;
        o->ngemm_trans = 1;
    }
    if (o->nomat_trans == 0) {
        o->omat_trans[0] = 1;
        o->nomat_trans = 1;
    }
    /* every named rung must exist for at least one selected op */
    for (int r = 0; r < o->nrungs; ++r) {
        const char *name = o->rungs[r];
        if (strcasecmp(name, "auto") == 0 || strcasecmp(name, "cublas") == 0) continue;
        int found = 0;
        for (int k = 0; k < MINIBLAS_OP_COUNT; ++k)
            if (o->op_sel[k] && rung_index(OPS[k].op, name) >= 0) found = 1;
        if (!found) {
            fprintf(stderr, "miniblas-bench: no selected op has a rung named '%s' (see --list)\n",
                    name);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* --list */

static void print_list(void) {
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        miniblas_op_t op = OPS[k].op;
        printf("%s  (compared with %s)\n", OPS[k].name, OPS[k].cublas);
        int n = miniblas_rung_count(op);
        for (int i = 0; i < n; ++i) {
            unsigned fl = miniblas_rung_flags(op, i);
            char flags[64] = "";
            if (fl & MINIBLAS_RUNG_REDUCED_PRECISION) strcat(flags, " [reduced precision]");
            if (fl & MINIBLAS_RUNG_NEEDS_SM90A) strcat(flags, " [needs sm_90a]");
            const char *d = miniblas_rung_description(op, i);
            printf("  %2d  %-16s %s%s\n", i + 1, miniblas_rung_name(op, i), d ? d : "", flags);
        }
        printf("   -  %-16s %s\n\n", "auto", "the library's choice for the shape (src/auto.c)");
    }
}

/* ------------------------------------------------------------------------------------ */
/* context */

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
    history hist[1024];
    int nhist;
    int bad;   /* a WRONG row or a failed call: exit status 1 */
    int item, nitems;
    char err[512];
} ctx;

#define SCR_MAXDIFF(c) ((unsigned long long *)(c)->scratch)
#define SCR_REF(c) ((double *)((char *)(c)->scratch + 8))
#define SCR_OURS(c) ((void *)((char *)(c)->scratch + 32))
#define SCR_CUB(c) ((void *)((char *)(c)->scratch + 40))

static int cuda_ok(ctx *c, cudaError_t e, const char *what) {
    if (e == cudaSuccess) return 1;
    snprintf(c->err, sizeof c->err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return 0;
}

static const char *cublas_status_str(cublasStatus_t s) {
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(other)";
    }
}

/* Fatal: the CUDA context may be unusable. Write what we have and stop. */
static void write_outputs(ctx *c);
static void fatal(ctx *c, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "miniblas-bench: fatal: %s\n", msg);
    fflush(stdout);
    write_outputs(c);
    exit(1);
}

/* ------------------------------------------------------------------------------------ */
/* one problem: an op at one shape and transpose */

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

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static void problem_free(problem *p) {
    if (p->arena) cudaFree(p->arena);
    if (p->ref) cudaFree(p->ref);
    p->arena = NULL;
    p->ref = NULL;
}

/* Sets sizes and allocates/fills; returns 0, or -1 with c->err (allocation failures are not
 * fatal: the caller reports the problem as ERROR and goes on). */
static int problem_setup(ctx *c, problem *p) {
    const opinfo *oi = p->oi;
    p->es = oi->dbl ? sizeof(double) : sizeof(float);
    size_t es = p->es;
    switch (oi->kind) {
    case K_GEMM:
        p->lda = p->ta ? p->k : p->m;
        p->ldb = p->tb ? p->n : p->k;
        p->ldc = p->m;
        p->a_elems = (size_t)p->m * (size_t)p->k;
        p->b_elems = (size_t)p->k * (size_t)p->n;
        p->c_elems = (size_t)p->m * (size_t)p->n;
        p->off_b = align_up(p->a_elems * es, 256);
        p->off_c = p->off_b + align_up(p->b_elems * es, 256);
        p->slot_bytes = p->off_c + align_up(p->c_elems * es, 256);
        p->work = 2.0 * (double)p->m * (double)p->n * (double)p->k;
        snprintf(p->shape, sizeof p->shape, "%" PRId64 "x%" PRId64 "x%" PRId64, p->m, p->n, p->k);
        snprintf(p->trans, sizeof p->trans, "%c%c", p->ta ? 'T' : 'N', p->tb ? 'T' : 'N');
        break;
    case K_OMAT:
        p->lda = p->m;                 /* A: rows x cols */
        p->ldb = p->ta ? p->n : p->m; /* B: cols x rows (T) or rows x cols */
        p->a_elems = p->b_elems = (size_t)p->m * (size_t)p->n;
        p->off_b = align_up(p->a_elems * es, 256);
        p->slot_bytes = p->off_b + align_up(p->b_elems * es, 256);
        p->work = 2.0 * (double)p->a_elems * (double)es;
        snprintf(p->shape, sizeof p->shape, "%" PRId64 "x%" PRId64, p->m, p->n);
        snprintf(p->trans, sizeof p->trans, "%c", p->ta ? 'T' : 'N');
        break;
    case K_ASUM:
    case K_DOT:
        p->a_elems = (size_t)(1 + (p->m - 1) * p->inc);
        p->b_elems = oi->kind == K_DOT ? p->a_elems : 0;
        p->off_b = align_up(p->a_elems * es, 256);
        p->slot_bytes = p->off_b + align_up(p->b_elems * es, 256);
        p->work = (double)p->m * (double)es * (oi->kind == K_DOT ? 2.0 : 1.0);
        snprintf(p->shape, sizeof p->shape, "%" PRId64, p->m);
        snprintf(p->trans, sizeof p->trans, "-");
        break;
    }
    /* rotation: bandwidth ops spread over >= 2x L2 so each launch reads DRAM (--warm-l2: one
     * set of buffers, so calls back to back find them in L2 when they fit) */
    p->slots = 1;
    if (oi->kind != K_GEMM && !c->warm_l2 && p->slot_bytes < 2 * c->l2) {
        size_t s = (2 * c->l2 + p->slot_bytes - 1) / p->slot_bytes;
        p->slots = (int)(s > 65536 ? 65536 : s);
    }
    size_t arena_bytes = p->slot_bytes * (size_t)p->slots;
    cudaError_t e = cudaMalloc((void **)&p->arena, arena_bytes);
    if (e == cudaSuccess && oi->kind != K_ASUM && oi->kind != K_DOT) {
        size_t out_elems = oi->kind == K_GEMM ? p->c_elems : p->b_elems;
        e = cudaMalloc(&p->ref, out_elems * es);
    }
    if (e != cudaSuccess) {
        cudaGetLastError(); /* allocation failures are not sticky */
        size_t ref_bytes = oi->kind == K_GEMM ? p->c_elems * es
                           : oi->kind == K_OMAT ? p->b_elems * es
                                                : 0;
        snprintf(c->err, sizeof c->err, "cannot allocate %.2f GiB of device memory (%s)",
                 (double)(arena_bytes + ref_bytes) / 1073741824.0, cudaGetErrorName(e));
        problem_free(p);
        return -1;
    }
    if (!cuda_ok(c, bench_fill_uniform(p->arena, arena_bytes / es, oi->dbl,
                                       (uint64_t)(p->m * 131 + p->n * 7 + p->k) ^ 0x5eed, 0),
                 "fill") ||
        !cuda_ok(c, cudaDeviceSynchronize(), "fill (sync)"))
        fatal(c, "%s", c->err);
    return 0;
}

static void *slot_ptr(const problem *p, int slot, size_t off) {
    return p->arena + (size_t)slot * p->slot_bytes + off;
}

/* The output buffer of a slot (gemm C, omatcopy B; reductions: NULL, see scratch). */
static void *slot_out(const problem *p, int slot) {
    if (p->oi->kind == K_GEMM) return slot_ptr(p, slot, p->off_c);
    if (p->oi->kind == K_OMAT) return slot_ptr(p, slot, p->off_b);
    return NULL;
}

/* ------------------------------------------------------------------------------------ */
/* participants: cuBLAS, cuBLAS TF32, rungs, auto */

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
} part;

static void prepare(ctx *c, const problem *p, const part *pt) {
    if (pt->is_cublas) {
        cublasStatus_t s = cublasSetMathMode(c->cb, pt->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                              : CUBLAS_DEFAULT_MATH);
        if (s == CUBLAS_STATUS_SUCCESS)
            s = cublasSetPointerMode(c->cb, (p->oi->kind == K_ASUM || p->oi->kind == K_DOT)
                                                ? CUBLAS_POINTER_MODE_DEVICE
                                                : CUBLAS_POINTER_MODE_HOST);
        if (s != CUBLAS_STATUS_SUCCESS) fatal(c, "cuBLAS mode setting: %s", cublas_status_str(s));
    } else {
        miniblas_status_t s = miniblas_set_rung(c->mb, p->oi->op, pt->name);
        if (s == MINIBLAS_STATUS_SUCCESS)
            s = miniblas_set_math_mode(c->mb, pt->reduced ? MINIBLAS_MATH_ALLOW_REDUCED_PRECISION
                                                          : MINIBLAS_MATH_DEFAULT);
        if (s != MINIBLAS_STATUS_SUCCESS)
            fatal(c, "miniblas_set_rung(%s, %s): %s: %s", p->oi->name, pt->name,
                  miniblas_status_string(s), miniblas_last_error(c->mb));
    }
}

/* One launch. out: where the result goes (NULL: the slot's output / the scratch slot).
 * Returns 0, or -1 with c->err set and *mst the miniblas status (for NOT_SUPPORTED). */
static int launch(ctx *c, problem *p, const part *pt, int slot, void *out,
                  miniblas_status_t *mst) {
    const opinfo *oi = p->oi;
    const void *A = slot_ptr(p, slot, 0);
    const void *B = slot_ptr(p, slot, p->off_b);
    void *C = out ? out : slot_out(p, slot);
    if (mst) *mst = MINIBLAS_STATUS_SUCCESS;
    if (pt->is_cublas) {
        cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
        cublasOperation_t ta = p->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasOperation_t tb = p->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
        switch (oi->kind) {
        case K_GEMM:
            if (oi->dbl) {
                const double al = 1.0, be = 0.0;
                s = cublasDgemm(c->cb, ta, tb, (int)p->m, (int)p->n, (int)p->k, &al, A,
                                (int)p->lda, B, (int)p->ldb, &be, C, (int)p->ldc);
            } else {
                const float al = 1.0f, be = 0.0f;
                s = cublasSgemm(c->cb, ta, tb, (int)p->m, (int)p->n, (int)p->k, &al, A,
                                (int)p->lda, B, (int)p->ldb, &be, C, (int)p->ldc);
            }
            break;
        case K_OMAT: {
            /* C (op(A)'s shape) = 1 * op(A) + 0 * C: B aliases C (cuBLAS's in-place form). */
            int mm = (int)(p->ta ? p->n : p->m), nn = (int)(p->ta ? p->m : p->n);
            if (oi->dbl) {
                const double al = 1.0, be = 0.0;
                s = cublasDgeam(c->cb, ta, CUBLAS_OP_N, mm, nn, &al, A, (int)p->lda, &be, C,
                                (int)p->ldb, C, (int)p->ldb);
            } else {
                const float al = 1.0f, be = 0.0f;
                s = cublasSgeam(c->cb, ta, CUBLAS_OP_N, mm, nn, &al, A, (int)p->lda, &be, C,
                                (int)p->ldb, C, (int)p->ldb);
            }
            break;
        }
        case K_ASUM:
            C = out ? out : SCR_CUB(c);
            s = oi->dbl ? cublasDasum(c->cb, (int)p->m, A, (int)p->inc, C)
                        : cublasSasum(c->cb, (int)p->m, A, (int)p->inc, C);
            break;
        case K_DOT:
            C = out ? out : SCR_CUB(c);
            s = oi->dbl ? cublasDdot(c->cb, (int)p->m, A, (int)p->inc, B, (int)p->inc, C)
                        : cublasSdot(c->cb, (int)p->m, A, (int)p->inc, B, (int)p->inc, C);
            break;
        }
        if (s != CUBLAS_STATUS_SUCCESS) {
            snprintf(c->err, sizeof c->err, "cuBLAS %s: %s", oi->name, cublas_status_str(s));
            return -1;
        }
        return 0;
    }
    miniblas_status_t s = MINIBLAS_STATUS_SUCCESS;
    miniblas_transpose_t ta = p->ta ? MiniblasTrans : MiniblasNoTrans;
    miniblas_transpose_t tb = p->tb ? MiniblasTrans : MiniblasNoTrans;
    switch (oi->kind) {
    case K_GEMM:
        s = oi->dbl ? miniblas_dgemm(c->mb, MiniblasColMajor, ta, tb, p->m, p->n, p->k, 1.0, A,
                                     p->lda, B, p->ldb, 0.0, C, p->ldc)
                    : miniblas_sgemm(c->mb, MiniblasColMajor, ta, tb, p->m, p->n, p->k, 1.0f, A,
                                     p->lda, B, p->ldb, 0.0f, C, p->ldc);
        break;
    case K_OMAT:
        s = oi->dbl ? miniblas_domatcopy(c->mb, MiniblasColMajor, ta, p->m, p->n, 1.0, A, p->lda,
                                         C, p->ldb)
                    : miniblas_somatcopy(c->mb, MiniblasColMajor, ta, p->m, p->n, 1.0f, A, p->lda,
                                         C, p->ldb);
        break;
    case K_ASUM:
        C = out ? out : SCR_OURS(c);
        s = oi->dbl ? miniblas_dasum_device(c->mb, p->m, A, p->inc, C)
                    : miniblas_sasum_device(c->mb, p->m, A, p->inc, C);
        break;
    case K_DOT:
        C = out ? out : SCR_OURS(c);
        s = oi->dbl ? miniblas_ddot_device(c->mb, p->m, A, p->inc, B, p->inc, C)
                    : miniblas_sdot_device(c->mb, p->m, A, p->inc, B, p->inc, C);
        break;
    }
    if (mst) *mst = s;
    if (s != MINIBLAS_STATUS_SUCCESS) {
        snprintf(c->err, sizeof c->err, "%s: %s", miniblas_status_string(s),
                 miniblas_last_error(c->mb));
        return -1;
    }
    return 0;
}

static double elapsed_ms(ctx *c) {
    float ms = 0.0f;
    if (!cuda_ok(c, cudaEventSynchronize(c->ev1), "cudaEventSynchronize") ||
        !cuda_ok(c, cudaEventElapsedTime(&ms, c->ev0, c->ev1), "cudaEventElapsedTime"))
        fatal(c, "%s", c->err);
    return (double)ms;
}

static void record(ctx *c, cudaEvent_t ev) {
    if (!cuda_ok(c, cudaEventRecord(ev, 0), "cudaEventRecord")) fatal(c, "%s", c->err);
}

/* After a failed launch: is the device still usable? */
static void check_device_alive(ctx *c, const char *after) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) fatal(c, "the device failed after %s: %s", after, cudaGetErrorString(e));
    cudaGetLastError();
}

/* The reference: cuBLAS's result, and the first-launch time of cuBLAS. */
static int run_reference(ctx *c, problem *p, part *cub) {
    prepare(c, p, cub);
    void *out = p->ref;
    if (p->oi->kind == K_OMAT) /* cuBLAS's geam may read C (beta = 0): make it finite */
        if (!cuda_ok(c, cudaMemset(p->ref, 0, p->b_elems * p->es), "cudaMemset")) return -1;
    if (p->oi->kind == K_ASUM || p->oi->kind == K_DOT) {
        out = SCR_CUB(c);
        if (!cuda_ok(c, cudaMemset(c->scratch, 0, 64), "cudaMemset") ||
            !cuda_ok(c, bench_ref_reduce(slot_ptr(p, 0, 0), p->inc,
                                         p->oi->kind == K_DOT ? slot_ptr(p, 0, p->off_b) : NULL,
                                         p->inc, p->m, p->oi->dbl, SCR_REF(c), 0),
                     "reference sum"))
            return -1;
    }
    record(c, c->ev0);
    if (launch(c, p, cub, 0, out, NULL) != 0) return -1;
    record(c, c->ev1);
    cub->first_ms = elapsed_ms(c);
    return 0;
}

static double eps_of(const problem *p) { return p->oi->dbl ? DBL_EPSILON : FLT_EPSILON; }

/* Bound on max|ours - cuBLAS| for gemm with inputs in [-1, 1) (max|A| max|B| <= 1, alpha 1):
 * see the comment at the top of this file. */
static double gemm_bound(const problem *p, int reduced) {
    double k = (double)p->k;
    double b = 2.0 * k * sqrt(k) * eps_of(p);
    if (reduced) b += 8.0 * sqrt(k) * ldexp(1.0, -10); /* TF32 inputs: 10 mantissa bits */
    return b;
}

/* Compares our output (slot 0 / scratch) with the reference; sets pt->status/note. */
static void check_result(ctx *c, problem *p, part *pt) {
    const opinfo *oi = p->oi;
    if (oi->kind == K_GEMM || oi->kind == K_OMAT) {
        int64_t rows = oi->kind == K_GEMM ? p->m : (p->ta ? p->n : p->m);
        int64_t cols = oi->kind == K_GEMM ? p->n : (p->ta ? p->m : p->n);
        int64_t ld = oi->kind == K_GEMM ? p->ldc : p->ldb;
        unsigned long long bits = 0;
        if (!cuda_ok(c, cudaMemset(SCR_MAXDIFF(c), 0, 8), "cudaMemset") ||
            !cuda_ok(c, bench_max_absdiff(slot_out(p, 0), ld, p->ref, ld, rows, cols, oi->dbl,
                                          SCR_MAXDIFF(c), 0),
                     "max |diff|") ||
            !cuda_ok(c, cudaMemcpy(&bits, SCR_MAXDIFF(c), 8, cudaMemcpyDeviceToHost),
                     "cudaMemcpy"))
            fatal(c, "%s", c->err);
        double diff;
        memcpy(&diff, &bits, sizeof diff);
        /* inputs are uniform in [-1, 1): max|A| max|B| <= 1; alpha = 1 */
        double bound = oi->kind == K_GEMM ? gemm_bound(p, pt->reduced) : 0.0;
        if (!(diff <= bound)) {
            pt->status = BENCH_WRONG;
            if (oi->kind == K_GEMM)
                snprintf(pt->note, sizeof pt->note,
                         "max|ours-cuBLAS| = %.3g > %.3g (2 k^1.5 eps max|A| max|B|%s)", diff,
                         bound, pt->reduced ? " + TF32 term" : "");
            else
                snprintf(pt->note, sizeof pt->note, "max|ours-cuBLAS| = %.3g, must be exact",
                         diff);
        }
        return;
    }
    double ours, cub, ref[2];
    if (oi->dbl) {
        if (!cuda_ok(c, cudaMemcpy(&ours, SCR_OURS(c), 8, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
            !cuda_ok(c, cudaMemcpy(&cub, SCR_CUB(c), 8, cudaMemcpyDeviceToHost), "cudaMemcpy"))
            fatal(c, "%s", c->err);
    } else {
        float fo, fc;
        if (!cuda_ok(c, cudaMemcpy(&fo, SCR_OURS(c), 4, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
            !cuda_ok(c, cudaMemcpy(&fc, SCR_CUB(c), 4, cudaMemcpyDeviceToHost), "cudaMemcpy"))
            fatal(c, "%s", c->err);
        ours = fo;
        cub = fc;
    }
    if (!cuda_ok(c, cudaMemcpy(ref, SCR_REF(c), 16, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        fatal(c, "%s", c->err);
    double n = (double)p->m;
    double rtol = eps_of(p) * fmax(64.0, 4.0 * sqrt(n));
    double bound = 2.0 * rtol * ref[1];
    double diff = fabs(ours - cub);
    if (!(diff <= bound)) {
        pt->status = BENCH_WRONG;
        snprintf(pt->note, sizeof pt->note,
                 "ours %.9g, cuBLAS %.9g, exact %.9g: |diff| %.3g > %.3g", ours, cub, ref[0],
                 diff, bound);
    }
}

static const history *find_history(ctx *c, int opk, const char *rung) {
    for (int i = c->nhist - 1; i >= 0; --i)
        if (c->hist[i].op == opk && strcmp(c->hist[i].rung, rung) == 0) return &c->hist[i];
    return NULL;
}

static void add_history(ctx *c, int opk, const char *rung, double work, double ms,
                        const char *shape) {
    if (c->nhist == (int)(sizeof c->hist / sizeof c->hist[0])) {
        memmove(c->hist, c->hist + 1, sizeof c->hist - sizeof c->hist[0]);
        c->nhist--;
    }
    history *h = &c->hist[c->nhist++];
    h->op = opk;
    setf(h->rung, sizeof h->rung, "%s", rung);
    snprintf(h->shape, sizeof h->shape, "%s", shape);
    h->work = work;
    h->ms = ms;
}

/* Poison our output, run once (timed), check. */
static void check_part(ctx *c, problem *p, part *pt, int opk) {
    const history *h = find_history(c, opk, pt->name);
    if (h && h->work > 0) {
        double est_s = h->ms * p->work / h->work / 1e3;
        if (est_s > c->o->slow_limit_s) {
            pt->status = BENCH_SKIPPED;
            snprintf(pt->note, sizeof pt->note, "estimated %.3g s per call from %s (limit %.3g s)",
                     est_s, h->shape, c->o->slow_limit_s);
            return;
        }
    }
    void *out = slot_out(p, 0);
    if (out) {
        size_t bytes = (p->oi->kind == K_GEMM ? p->c_elems : p->b_elems) * p->es;
        if (!cuda_ok(c, cudaMemset(out, 0xFF, bytes), "cudaMemset")) fatal(c, "%s", c->err);
    } else if (!cuda_ok(c, cudaMemset(SCR_OURS(c), 0xFF, 8), "cudaMemset")) {
        fatal(c, "%s", c->err);
    }
    prepare(c, p, pt);
    miniblas_status_t mst;
    record(c, c->ev0);
    if (launch(c, p, pt, 0, NULL, &mst) != 0) {
        pt->status = mst == MINIBLAS_STATUS_NOT_SUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
        setf(pt->note, sizeof pt->note, "%s", c->err);
        check_device_alive(c, pt->name);
        return;
    }
    record(c, c->ev1);
    pt->first_ms = elapsed_ms(c);
    if (strcmp(pt->name, "auto") == 0) {
        const char *r = miniblas_last_rung(c->mb, p->oi->op);
        snprintf(pt->note, sizeof pt->note, "auto picked %s", r ? r : "?");
    } else if (pt->reduced) {
        snprintf(pt->note, sizeof pt->note, "reduced precision");
    }
    check_result(c, p, pt);
    if (pt->status == BENCH_OK && pt->first_ms > c->o->slow_limit_s * 1e3) {
        pt->status = BENCH_SKIPPED;
        snprintf(pt->note, sizeof pt->note, "first call took %.3g s (limit %.3g s)",
                 pt->first_ms / 1e3, c->o->slow_limit_s);
    }
}

/* A batch of `reps` launches of one participant; returns ms per launch, or -1 on failure. */
static double timed_batch(ctx *c, problem *p, part *pt, int reps) {
    prepare(c, p, pt);
    record(c, c->ev0);
    for (int r = 0; r < reps; ++r) {
        int slot = (int)(p->counter++ % (unsigned long long)p->slots);
        if (launch(c, p, pt, slot, NULL, NULL) != 0) {
            pt->status = BENCH_ERROR;
            setf(pt->note, sizeof pt->note, "during timing: %s", c->err);
            check_device_alive(c, pt->name);
            return -1.0;
        }
    }
    record(c, c->ev1);
    return elapsed_ms(c) / reps;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int is_timed(const part *pt) { return pt->status == BENCH_OK; }

static void time_parts(ctx *c, problem *p, part *parts, int nparts) {
    const options *o = c->o;
    /* warm-up and calibration, one participant at a time */
    for (int i = 0; i < nparts; ++i) {
        part *pt = &parts[i];
        if (!is_timed(pt)) continue;
        int w = pt->first_ms > 50.0 && o->warmup > 1 ? 1 : o->warmup;
        if (w > 0 && timed_batch(c, p, pt, w) < 0) continue;
        /* a slow launch needs no calibration: one per trial */
        double t1 = pt->first_ms > 2.0 * o->min_time_ms ? pt->first_ms : timed_batch(c, p, pt, 1);
        if (t1 < 0) continue;
        double reps = o->min_time_ms > 0 ? ceil(o->min_time_ms / fmax(t1, 1e-4)) : 1.0;
        pt->reps = (int)fmin(fmax(reps, 1.0), 1e6);
        pt->times = calloc((size_t)o->trials, sizeof(double));
        if (!pt->times) fatal(c, "out of host memory");
    }
    /* trials: every participant in turn, trial after trial */
    for (int t = 0; t < o->trials; ++t)
        for (int i = 0; i < nparts; ++i) {
            part *pt = &parts[i];
            if (!is_timed(pt) || !pt->times) continue;
            double ms = timed_batch(c, p, pt, pt->reps);
            if (ms >= 0) pt->times[pt->ntimes++] = ms;
        }
}

static void emit_rows(ctx *c, problem *p, part *parts, int nparts) {
    const opinfo *oi = p->oi;
    double rate_cub = NAN, rate_tf32 = NAN;
    double ceiling = NAN;
    switch (oi->kind) {
    case K_GEMM: ceiling = oi->dbl ? c->run.meta.fp64_peak_gflops : c->run.meta.fp32_peak_gflops; break;
    case K_OMAT: ceiling = c->run.meta.copy_gbs; break;
    default: ceiling = c->run.meta.read_gbs; break;
    }
    bench_result rows[MAX_PARTS];
    for (int i = 0; i < nparts; ++i) {
        part *pt = &parts[i];
        bench_result *r = &rows[i];
        bench_result_init(r);
        snprintf(r->op, sizeof r->op, "%s", oi->name);
        snprintf(r->shape, sizeof r->shape, "%s", p->shape);
        snprintf(r->trans, sizeof r->trans, "%s", p->trans);
        r->inc = (oi->kind == K_ASUM || oi->kind == K_DOT) ? p->inc : 0;
        snprintf(r->rung, sizeof r->rung, "%s", pt->name);
        r->m = p->m;
        r->n = oi->kind == K_GEMM || oi->kind == K_OMAT ? p->n : 0;
        r->k = oi->kind == K_GEMM ? p->k : 0;
        snprintf(r->unit, sizeof r->unit, "%s", oi->kind == K_GEMM ? "GFLOP/s" : "GB/s");
        r->status = pt->status;
        snprintf(r->note, sizeof r->note, "%s", pt->note);
        if (pt->status == BENCH_OK && pt->ntimes > 0) {
            double ms = median(pt->times, pt->ntimes);
            r->time_us = ms * 1e3;
            r->rate = p->work / (ms * 1e-3) / 1e9;
            r->fraction_ceiling = r->rate / ceiling;
            if (pt->is_cublas && !pt->tf32) rate_cub = r->rate;
            if (pt->is_cublas && pt->tf32) rate_tf32 = r->rate;
        } else if (pt->status == BENCH_OK) {
            r->status = BENCH_ERROR; /* checked but never timed */
            if (!r->note[0]) snprintf(r->note, sizeof r->note, "not timed");
        }
    }
    for (int i = 0; i < nparts; ++i) {
        bench_result *r = &rows[i];
        double base = (parts[i].reduced && !isnan(rate_tf32)) ? rate_tf32 : rate_cub;
        if (!isnan(r->rate)) r->ratio_cublas = (parts[i].is_cublas && !parts[i].tf32) ? 1.0
                                             : r->rate / (parts[i].tf32 ? rate_cub : base);
        /* reduced precision is measured against cublas_tf32, not against the FP32 peak */
        if (parts[i].reduced || parts[i].tf32) r->fraction_ceiling = NAN;
        if (r->status == BENCH_WRONG || r->status == BENCH_ERROR) c->bad = 1;
        bench_table_row(stdout, r);
        if (bench_run_add(&c->run, r) != 0) fatal(c, "out of host memory");
        if (!parts[i].is_cublas && parts[i].status == BENCH_OK && !isnan(r->time_us))
            add_history(c, (int)(oi - OPS), parts[i].name, p->work, r->time_us / 1e3, p->shape);
    }
    fflush(stdout);
}

/* The participants of an op: cuBLAS, cuBLAS TF32 if a reduced-precision rung runs, rungs. */
static int build_parts(const options *o, const opinfo *oi, part *parts) {
    int n = 0, nours = 0, any_reduced = 0, want_cublas_only = 0;
    memset(parts, 0, sizeof(part) * MAX_PARTS);
    snprintf(parts[n].name, sizeof parts[n].name, "cublas");
    parts[n++].is_cublas = 1;
    int count = miniblas_rung_count(oi->op);
    if (o->rung_all) {
        for (int i = 0; i < count && n < MAX_PARTS - 2; ++i) {
            snprintf(parts[n].name, sizeof parts[n].name, "%s", miniblas_rung_name(oi->op, i));
            parts[n].reduced = !!(miniblas_rung_flags(oi->op, i) & MINIBLAS_RUNG_REDUCED_PRECISION);
            any_reduced |= parts[n].reduced;
            n++;
            nours++;
        }
    }
    for (int r = 0; r < o->nrungs && n < MAX_PARTS - 2; ++r) {
        const char *name = o->rungs[r];
        if (strcasecmp(name, "cublas") == 0) {
            want_cublas_only = 1;
            continue;
        }
        if (strcasecmp(name, "auto") == 0) continue;
        int idx = rung_index(oi->op, name);
        if (idx < 0 || o->rung_all) continue;
        int dup = 0;
        for (int j = 0; j < n; ++j) dup |= strcmp(parts[j].name, miniblas_rung_name(oi->op, idx)) == 0;
        if (dup) continue;
        snprintf(parts[n].name, sizeof parts[n].name, "%s", miniblas_rung_name(oi->op, idx));
        parts[n].reduced = !!(miniblas_rung_flags(oi->op, idx) & MINIBLAS_RUNG_REDUCED_PRECISION);
        any_reduced |= parts[n].reduced;
        n++;
        nours++;
    }
    int want_auto = o->rung_all;
    for (int r = 0; r < o->nrungs; ++r) want_auto |= strcasecmp(o->rungs[r], "auto") == 0;
    if (want_auto) {
        snprintf(parts[n].name, sizeof parts[n].name, "auto");
        n++;
        nours++;
    }
    if (any_reduced && oi->op == MINIBLAS_OP_SGEMM) {
        /* insert cublas_tf32 right after cublas */
        memmove(&parts[2], &parts[1], sizeof(part) * (size_t)(n - 1));
        memset(&parts[1], 0, sizeof(part));
        snprintf(parts[1].name, sizeof parts[1].name, "cublas_tf32");
        parts[1].is_cublas = parts[1].tf32 = 1;
        n++;
    }
    if (nours == 0 && !want_cublas_only) return 0;
    return n;
}

/* ------------------------------------------------------------------------------------ */
/* sizes */

static const char *const DEF_GEMM[] = {"1024", "2048", "4096", "8192", "4096x4096x256",
                                       "8192x128x8192", "128x8192x8192", "4097x4095x4099"};
static const char *const DEF_OMAT[] = {"1024", "2048", "4096", "8192", "16384", "8192x2048"};
static const char *const DEF_RED[] = {"2^10", "2^16", "2^20", "2^24", "2^26", "2^28"};
static const char *const QUICK_GEMM[] = {"256", "1000x1001x999", "2048"};
static const char *const QUICK_OMAT[] = {"1024", "1000x3001", "4096"};
static const char *const QUICK_RED[] = {"2^16", "1000003", "2^24"};

/* The shapes of one op kind: returns the count written to out (m, n, k each). */
static int shapes_for(const options *o, kind_t kind, int64_t out[][3]) {
    size_item items[MAX_LIST];
    int n = 0;
    if (o->nsizes) {
        memcpy(items, o->sizes, sizeof(size_item) * (size_t)o->nsizes);
        n = o->nsizes;
    } else {
        const char *const *d;
        int nd;
        if (kind == K_GEMM) {
            d = o->quick ? QUICK_GEMM : DEF_GEMM;
            nd = o->quick ? 3 : 8;
        } else if (kind == K_OMAT) {
            d = o->quick ? QUICK_OMAT : DEF_OMAT;
            nd = o->quick ? 3 : 6;
        } else {
            d = o->quick ? QUICK_RED : DEF_RED;
            nd = o->quick ? 3 : 6;
        }
        for (int i = 0; i < nd; ++i) parse_size_item(d[i], &items[n++]);
    }
    int cnt = 0;
    for (int i = 0; i < n; ++i) {
        const size_item *it = &items[i];
        if (kind == K_GEMM && (it->ndims == 1 || it->ndims == 3)) {
            out[cnt][0] = it->v[0];
            out[cnt][1] = it->ndims == 3 ? it->v[1] : it->v[0];
            out[cnt][2] = it->ndims == 3 ? it->v[2] : it->v[0];
            cnt++;
        } else if (kind == K_OMAT && (it->ndims == 1 || it->ndims == 2)) {
            out[cnt][0] = it->v[0];
            out[cnt][1] = it->ndims == 2 ? it->v[1] : it->v[0];
            out[cnt][2] = 0;
            cnt++;
        } else if ((kind == K_ASUM || kind == K_DOT) && it->ndims == 1) {
            out[cnt][0] = it->v[0];
            out[cnt][1] = out[cnt][2] = 0;
            cnt++;
        }
    }
    return cnt;
}

/* ------------------------------------------------------------------------------------ */
/* ceilings and metadata */

/* Bring the GPU to its working clocks before anything is timed: an idle H200 sits at a few
 * hundred MHz, and the first shape measured would otherwise read low. ~0.5 s of cuBLAS SGEMM. */
static void spin_up(ctx *c) {
    const int n = 2048;
    float *buf = NULL;
    if (cudaMalloc((void **)&buf, (size_t)3 * n * n * sizeof(float)) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    cudaMemset(buf, 0, (size_t)3 * n * n * sizeof(float));
    const float one = 1.0f, zero = 0.0f;
    cublasPointerMode_t pm;
    cublasGetPointerMode(c->cb, &pm);
    cublasSetPointerMode(c->cb, CUBLAS_POINTER_MODE_HOST);
    for (int i = 0; i < 1500; ++i) /* ~0.35 ms each at full clock */
        cublasSgemm(c->cb, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, buf, n, buf + (size_t)n * n, n,
                    &zero, buf + (size_t)2 * n * n, n);
    cudaDeviceSynchronize();
    cublasSetPointerMode(c->cb, pm);
    cudaFree(buf);
    cudaGetLastError();
}

static void measure_ceilings(ctx *c) {
    bench_meta *m = &c->run.meta;
    size_t bytes = (size_t)1 << 30;
    void *src = NULL, *dst = NULL;
    float *blk = NULL;
    while (bytes >= ((size_t)1 << 26)) {
        if (cudaMalloc(&src, bytes) == cudaSuccess && cudaMalloc(&dst, bytes) == cudaSuccess) break;
        cudaGetLastError();
        if (src) cudaFree(src);
        src = dst = NULL;
        bytes /= 2;
    }
    if (!src) fatal(c, "cannot allocate buffers for the bandwidth ceilings");
    int blocks = c->sms * 8;
    if (!cuda_ok(c, cudaMalloc((void **)&blk, sizeof(float) * (size_t)blocks), "cudaMalloc") ||
        !cuda_ok(c, bench_fill_uniform(src, bytes / 4, 0, 42, 0), "fill") ||
        !cuda_ok(c, cudaDeviceSynchronize(), "fill"))
        fatal(c, "%s", c->err);
    int trials = c->o->trials < 5 ? 5 : c->o->trials;
    double t[1000];
    const int reps = 5;
    for (int pass = 0; pass < 2; ++pass) {
        for (int w = 0; w < 2; ++w) { /* warm-up */
            cudaError_t e = pass == 0 ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)
                                      : bench_read_stream(src, bytes, blk, blocks, 0);
            if (!cuda_ok(c, e, "ceiling warm-up")) fatal(c, "%s", c->err);
        }
        for (int i = 0; i < trials; ++i) {
            record(c, c->ev0);
            for (int r = 0; r < reps; ++r) {
                cudaError_t e = pass == 0
                                    ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)
                                    : bench_read_stream(src, bytes, blk, blocks, 0);
                if (!cuda_ok(c, e, pass == 0 ? "copy ceiling" : "read ceiling"))
                    fatal(c, "%s", c->err);
            }
            record(c, c->ev1);
            t[i] = elapsed_ms(c) / reps;
        }
        double ms = median(t, trials);
        if (pass == 0)
            m->copy_gbs = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
        else
            m->read_gbs = (double)bytes / (ms * 1e-3) / 1e9;
    }
    cudaFree(src);
    cudaFree(dst);
    cudaFree(blk);
    /* arithmetic peaks (FMA = 2 flops): cc 9.x has 128 FP32 lanes and 64 FP64 lanes per SM
     * (FP64 tensor cores reach the FP32 rate); cc 8.0 has 64 and 32. Others: unknown. The dgemm
     * ceiling is the FP64 SIMT peak, the one the SIMT rungs aim at (tensor-core rungs exceed it). */
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaGetLastError();
    double per_sm = c->cc_major == 9 ? 256.0 : (c->cc_major == 8 && c->cc_minor == 0) ? 128.0 : 0.0;
    if (per_sm > 0 && clock_khz > 0) {
        m->fp32_peak_gflops = per_sm * c->sms * clock_khz * 1e3 / 1e9;
        m->fp64_peak_gflops = m->fp32_peak_gflops / 2;
    }
    printf("ceilings: copy %.0f GB/s (%.0f MiB device-to-device, read + write), streaming read "
           "%.0f GB/s", m->copy_gbs, (double)bytes / 1048576.0, m->read_gbs);
    if (!isnan(m->fp32_peak_gflops))
        printf(", FP32 peak %.0f GFLOP/s (%d SMs x %.0f flop/clk x %.2f GHz), FP64 SIMT peak "
               "%.0f GFLOP/s", m->fp32_peak_gflops, c->sms, per_sm, clock_khz / 1e6,
               m->fp64_peak_gflops);
    printf("\n");
}

static void driver_version(char *out, size_t size) {
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
            int digits = 0, dots = 0, other = 0;
            for (const char *q = t; *q; ++q) {
                if (isdigit((unsigned char)*q)) digits++;
                else if (*q == '.') dots++;
                else other++;
            }
            if (!other && dots >= 1 && digits >= 3) {
                snprintf(out, size, "%s", t);
                break;
            }
        }
    }
    fclose(f);
}

static void fill_meta(ctx *c, int argc, char **argv, const struct cudaDeviceProp *prop) {
    bench_meta *m = &c->run.meta;
    snprintf(m->device, sizeof m->device, "%s", prop->name);
    driver_version(m->driver, sizeof m->driver);
    int v = 0;
    cudaDriverGetVersion(&v);
    snprintf(m->cuda_driver, sizeof m->cuda_driver, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    cudaRuntimeGetVersion(&v);
    snprintf(m->cuda_runtime, sizeof m->cuda_runtime, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    if (cublasGetVersion(c->cb, &v) == CUBLAS_STATUS_SUCCESS)
        snprintf(m->cublas, sizeof m->cublas, "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
    snprintf(m->git_commit, sizeof m->git_commit, "%s", MINIBLAS_GIT_COMMIT);
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(m->timestamp, sizeof m->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    size_t used = 0;
    m->command[0] = '\0';
    for (int i = 0; i < argc && used + 2 < sizeof m->command; ++i)
        used += (size_t)snprintf(m->command + used, sizeof m->command - used, "%s%s", i ? " " : "",
                                 argv[i]);
    if (used >= sizeof m->command) used = sizeof m->command - 1;
}

static int g_outputs_written;

static void write_outputs(ctx *c) {
    if (g_outputs_written) return;
    g_outputs_written = 1;
    const options *o = c->o;
    if (o->csv) {
        FILE *f = fopen(o->csv, "w");
        if (!f || bench_write_csv(f, &c->run) != 0) {
            fprintf(stderr, "miniblas-bench: cannot write %s\n", o->csv);
            c->bad = 1;
        }
        if (f) fclose(f);
    }
    if (o->json) {
        FILE *f = fopen(o->json, "w");
        if (!f || bench_write_json(f, &c->run) != 0) {
            fprintf(stderr, "miniblas-bench: cannot write %s\n", o->json);
            c->bad = 1;
        }
        if (f) fclose(f);
    }
}

/* ------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    options o;
    if (parse_options(argc, argv, &o) != 0) return 2;
    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (o.list) {
        print_list();
        return 0;
    }
    bench_run baseline;
    bench_run_init(&baseline);
    if (o.baseline) {
        char err[512];
        if (bench_read_json_file(o.baseline, &baseline, err, sizeof err) != 0) {
            fprintf(stderr, "miniblas-bench: baseline %s: %s\n", o.baseline, err);
            return 2;
        }
    }
    const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
    if (tf32 && *tf32 && strcmp(tf32, "0") != 0) {
        fprintf(stderr, "miniblas-bench: NVIDIA_TF32_OVERRIDE=%s would make cuBLAS's FP32 gemm "
                        "use TF32; unset it\n", tf32);
        return 2;
    }
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        char var[32];
        snprintf(var, sizeof var, "MINIBLAS_%s", OPS[k].name);
        for (char *q = var; *q; ++q) *q = (char)toupper((unsigned char)*q);
        const char *v = getenv(var);
        if (v && *v)
            fprintf(stderr, "miniblas-bench: warning: %s=%s is set: the 'auto' rows of %s run "
                            "that rung instead of the library's choice\n", var, v, OPS[k].name);
    }
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        fprintf(stderr, "miniblas-bench: no CUDA device (%s); only --help and --list work "
                        "without one\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 2;
    }

    static ctx c; /* large (history); static storage */
    c.o = &o;
    bench_run_init(&c.run);
    struct cudaDeviceProp prop;
    int dev = 0;
    if (!cuda_ok(&c, cudaGetDevice(&dev), "cudaGetDevice") ||
        !cuda_ok(&c, cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties")) {
        fprintf(stderr, "miniblas-bench: %s\n", c.err);
        return 2;
    }
    c.sms = prop.multiProcessorCount;
    c.cc_major = prop.major;
    c.cc_minor = prop.minor;
    c.l2 = (size_t)prop.l2CacheSize;
    c.warm_l2 = o.warm_l2;
    miniblas_status_t ms = miniblas_create(&c.mb);
    if (ms != MINIBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "miniblas-bench: miniblas_create: %s\n", miniblas_status_string(ms));
        return 1;
    }
    cublasStatus_t cs = cublasCreate(&c.cb);
    if (cs != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "miniblas-bench: cublasCreate: %s\n", cublas_status_str(cs));
        return 1;
    }
    cs = cublasSetStream(c.cb, 0);
    if (cs != CUBLAS_STATUS_SUCCESS) fatal(&c, "cublasSetStream: %s", cublas_status_str(cs));
    ms = miniblas_set_stream(c.mb, 0);
    if (ms != MINIBLAS_STATUS_SUCCESS) fatal(&c, "miniblas_set_stream: %s", miniblas_status_string(ms));
    if (!cuda_ok(&c, cudaEventCreate(&c.ev0), "cudaEventCreate") ||
        !cuda_ok(&c, cudaEventCreate(&c.ev1), "cudaEventCreate") ||
        !cuda_ok(&c, cudaMalloc(&c.scratch, 256), "cudaMalloc"))
        fatal(&c, "%s", c.err);
    fill_meta(&c, argc, argv, &prop);
    printf("miniblas-bench: %s (cc %d.%d, %d SMs, %.0f MB L2), driver %s, CUDA %s runtime, "
           "cuBLAS %s, commit %s\n",
           c.run.meta.device, c.cc_major, c.cc_minor, c.sms, (double)c.l2 / 1e6,
           c.run.meta.driver, c.run.meta.cuda_runtime, c.run.meta.cublas, c.run.meta.git_commit);
    printf("trials %d (median), warm-up %d, min %.1f ms per trial, inc %" PRId64 "%s%s\n", o.trials,
           o.warmup, o.min_time_ms, o.inc, o.skip_slow ? ", --skip-slow" : "",
           o.warm_l2 ? ", --warm-l2 (no rotation: same buffers every call)" : "");
    spin_up(&c);
    measure_ceilings(&c);

    /* count the work for the progress lines */
    static int64_t shapes[MAX_LIST][3];
    static part parts[MAX_PARTS];
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        if (!o.op_sel[k]) continue;
        int np = build_parts(&o, &OPS[k], parts);
        int ns = shapes_for(&o, OPS[k].kind, shapes);
        int nt = OPS[k].kind == K_GEMM ? o.ngemm_trans : OPS[k].kind == K_OMAT ? o.nomat_trans : 1;
        c.nitems += np * ns * nt;
    }
    printf("\n");
    bench_table_header(stdout);
    fflush(stdout);

    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        if (!o.op_sel[k]) continue;
        const opinfo *oi = &OPS[k];
        int np = build_parts(&o, oi, parts);
        if (np == 0) {
            fprintf(stderr, "miniblas-bench: %s: none of the named rungs exists; skipped\n",
                    oi->name);
            continue;
        }
        int ns = shapes_for(&o, oi->kind, shapes);
        if (ns == 0)
            fprintf(stderr, "miniblas-bench: %s: no --sizes item fits (%s); skipped\n", oi->name,
                    oi->kind == K_GEMM ? "N or MxNxK" : oi->kind == K_OMAT ? "N or RxC" : "n");
        int nt = oi->kind == K_GEMM ? o.ngemm_trans : oi->kind == K_OMAT ? o.nomat_trans : 1;
        for (int s = 0; s < ns; ++s)
            for (int t = 0; t < nt; ++t) {
                problem p;
                memset(&p, 0, sizeof p);
                p.oi = oi;
                p.m = shapes[s][0];
                p.n = shapes[s][1];
                p.k = shapes[s][2];
                p.inc = o.inc;
                if (oi->kind == K_GEMM) {
                    p.ta = o.gemm_trans[t][0];
                    p.tb = o.gemm_trans[t][1];
                } else if (oi->kind == K_OMAT) {
                    p.ta = o.omat_trans[t];
                }
                build_parts(&o, oi, parts);
                int setup = problem_setup(&c, &p);
                if (setup == 0 && run_reference(&c, &p, &parts[0]) != 0) {
                    cudaGetLastError();
                    check_device_alive(&c, "cuBLAS");
                    setup = -1;
                    problem_free(&p);
                }
                if (setup != 0) {
                    for (int i = 0; i < np; ++i) {
                        parts[i].status = BENCH_ERROR;
                        setf(parts[i].note, sizeof parts[i].note, "%s", c.err);
                    }
                    c.item += np;
                    emit_rows(&c, &p, parts, np);
                    continue;
                }
                for (int i = 0; i < np; ++i) {
                    c.item++;
                    fprintf(stderr, "[%d/%d] %s %s %s%s%s: check\n", c.item, c.nitems, oi->name,
                            p.shape, oi->kind == K_ASUM || oi->kind == K_DOT ? "" : p.trans,
                            oi->kind == K_ASUM || oi->kind == K_DOT ? "" : " ", parts[i].name);
                    if (i == 0) continue; /* cuBLAS: the reference ran already */
                    if (parts[i].tf32) {
                        /* a check launch for cuBLAS TF32 too (warms it, gives first_ms) */
                        prepare(&c, &p, &parts[i]);
                        record(&c, c.ev0);
                        if (launch(&c, &p, &parts[i], 0, NULL, NULL) != 0) {
                            parts[i].status = BENCH_ERROR;
                            setf(parts[i].note, sizeof parts[i].note, "%s", c.err);
                            check_device_alive(&c, "cuBLAS TF32");
                            continue;
                        }
                        record(&c, c.ev1);
                        parts[i].first_ms = elapsed_ms(&c);
                        snprintf(parts[i].note, sizeof parts[i].note, "TF32 tensor cores");
                        continue;
                    }
                    check_part(&c, &p, &parts[i], k);
                }
                fprintf(stderr, "      %s %s: timing %d trials\n", oi->name, p.shape, o.trials);
                time_parts(&c, &p, parts, np);
                emit_rows(&c, &p, parts, np);
                for (int i = 0; i < np; ++i) free(parts[i].times);
                problem_free(&p);
            }
    }

    write_outputs(&c);
    int rc = c.bad ? 1 : 0;
    if (o.baseline) {
        size_t matched = 0;
        printf("\nbaseline %s (commit %s, %s, %s):\n", o.baseline, baseline.meta.git_commit,
               baseline.meta.device, baseline.meta.timestamp);
        if (strcmp(baseline.meta.device, c.run.meta.device) != 0)
            printf("note: the baseline ran on another device\n");
        int reg = bench_compare(&baseline, &c.run, o.tolerance, stdout, &matched);
        printf("%zu rows matched, %d regression%s beyond %.1f%%\n", matched, reg,
               reg == 1 ? "" : "s", o.tolerance);
        if (reg > 0 && rc == 0) rc = 3;
    }
    if (c.bad) printf("\nsome rows are WRONG or ERROR (exit status 1)\n");
    bench_run_free(&baseline);
    bench_run_free(&c.run);
    miniblas_destroy(c.mb);
    cublasDestroy(c.cb);
    cudaEventDestroy(c.ev0);
    cudaEventDestroy(c.ev1);
    cudaFree(c.scratch);
    for (int r = 0; r < o.nrungs; ++r) free(o.rungs[r]);
    return rc;
}
