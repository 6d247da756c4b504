/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The result rows of both benchmarks and their writers (pure C, no CUDA, tested on the CPU):
 * the table on stdout, CSV, JSON (the result file: see docs/benchmarking.md for the schema)
 * and Markdown. Result files are compared by perf/compare.py and plotted by perf/plot.py.
 */
#ifndef MINIBLAS_BENCH_REPORT_H
#define MINIBLAS_BENCH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the JSON layout; bumped when a field changes meaning or goes away. */
#define BENCH_SCHEMA_VERSION 2

/* What became of one (op, shape, rung) measurement. */
typedef enum bench_status {
    BENCH_OK = 0,          /* checked against the reference, then timed */
    BENCH_WRONG = 1,       /* result disagreed with the reference: no speed is reported */
    BENCH_SKIPPED = 2,     /* not timed on purpose (too slow, see note) */
    BENCH_UNSUPPORTED = 3, /* the library said MINIBLAS_STATUS_NOT_SUPPORTED (e.g. needs sm_90a) */
    BENCH_ERROR = 4        /* a library, CUDA or cuBLAS call failed (see note) */
} bench_status;

const char *bench_status_name(bench_status s);            /* "ok", "wrong", ... */
int bench_status_parse(const char *name, bench_status *s); /* 0 on success */

typedef struct bench_result {
    char op[16];      /* "sgemm", ... */
    char shape[64];   /* canonical: gemm "MxNxK", omatcopy "RxC", reductions "n" */
    char trans[8];    /* gemm "NN".."TT", omatcopy "N"/"T", reductions "-"; cblas: "row"/"col" */
    int64_t inc;      /* reductions: the increment; 0 for the other ops */
    char rung[48];    /* rung name, "auto", "cublas", ...; cblas: the implementation */
    int reference;    /* 1: a reference row (cuBLAS, OpenBLAS): reported, never a regression */
    int64_t m, n, k;  /* gemm m,n,k; omatcopy rows,cols,0; reductions n,0,0 */
    double time_us;   /* median per call; NaN when not timed */
    double min_us, max_us; /* the fastest and slowest trial (per call) */
    double noise;     /* relative spread of the trials: 1.4826 MAD / median; NaN if < 2 */
    int trials;
    int noise_ok;     /* the noise target was met */
    double rate;      /* GFLOP/s (gemm) or GB/s (others) at the median; NaN when not timed */
    char unit[12];    /* "GFLOP/s" or "GB/s" */
    double ratio_cublas;     /* our rate / the reference's rate (1 for the reference); NaN if none */
    double fraction_ceiling; /* rate / relevant ceiling; NaN if none */
    bench_status status;
    char note[160];   /* "TF32 tensor cores", "path gpu", error text */
    char devices[64]; /* cblas bench: the GPUs of the row (MINIBLAS_CBLAS_DEVICES, "0,1"); ""
                         none given (JSON null) */
    char memory[12];  /* cblas bench: "pageable" or "pinned" host operands; "" device pointers
                         (JSON null) */
} bench_result;

/* Clocks and power of the GPU at one moment (nvidia-smi; every figure NaN / -1 if unknown). */
typedef struct bench_gpu_state {
    int valid;
    double sm_mhz, mem_mhz, max_sm_mhz, max_mem_mhz;
    double power_w, power_limit_w, temperature_c;
    int sw_power_cap;     /* the "SW power cap" clock-event reason: 1 active, 0 not, -1 unknown */
    char reasons[32];     /* the active reasons bit mask as nvidia-smi prints it, "" unknown */
} bench_gpu_state;

/* Run-wide facts: where and when the numbers were taken, and the measured ceilings. */
typedef struct bench_meta {
    char tool[32];          /* "miniblas-bench" or "miniblas-cblas-bench" */
    char version[32];       /* the project version */
    char device[256];
    char driver[64];        /* kernel driver version (e.g. 580.65.06), "" unknown */
    char cuda_driver[32];   /* CUDA driver API version, e.g. "13.0" */
    char cuda_runtime[32];  /* the toolkit's runtime, e.g. "13.0" */
    char cublas[32];        /* e.g. "13.0.0" */
    char openblas[128];     /* openblas_get_config(), "" unknown */
    char git_commit[64];
    char timestamp[32];     /* ISO 8601 UTC */
    char command[512];      /* the command line */
    char settings[1024];    /* a JSON object of the run's settings (written verbatim), "" none */
    bench_gpu_state gpu_start, gpu_end;
    double copy_gbs;        /* device-to-device copy, bytes read + written per second / 1e9 */
    double read_gbs;        /* streaming read (float4 grid-stride kernel) */
    double fp32_peak_gflops;/* formula from SM count and clock; NaN when unknown */
    double fp64_peak_gflops;
} bench_meta;

typedef struct bench_run {
    bench_meta meta;
    bench_result *results;
    size_t count, cap;
} bench_run;

void bench_run_init(bench_run *run);
void bench_run_free(bench_run *run);
/* Appends a copy; returns 0, or -1 when out of memory. */
int bench_run_add(bench_run *run, const bench_result *r);
/* A result with every number NaN, status OK and empty strings. */
void bench_result_init(bench_result *r);
void bench_gpu_state_init(bench_gpu_state *g);

/* ---- table (stdout) ---- */
void bench_table_header(FILE *f);
void bench_table_row(FILE *f, const bench_result *r);

/* ---- CSV: a header line, then one line per result (RFC 4180 quoting) ---- */
int bench_write_csv(FILE *f, const bench_run *run);

/* ---- JSON: the result file (schema in docs/benchmarking.md) ---- */
int bench_write_json(FILE *f, const bench_run *run); /* 0 on success */

/* ---- Markdown: a header line and a table, for a pull-request comment ---- */
int bench_write_md(FILE *f, const bench_run *run);

/* Escapes a string for a JSON string literal (without the quotes) into out; returns out. */
char *bench_json_escape(const char *s, char *out, size_t size);

/* Appends "key": value members to a settings object under construction (s holds "{...}" or
 * ""), so tools can build bench_meta.settings without writing JSON by hand. */
void bench_settings_num(char *s, size_t size, const char *key, double v);
void bench_settings_str(char *s, size_t size, const char *key, const char *v);

#ifdef __cplusplus
}
#endif
#endif
