/*
 * miniblas-bench reporting: the pure-C parts of the benchmark (no CUDA), so a CPU test can
 * exercise them: the result table, CSV and JSON writers, a reader for our own JSON, and the
 * comparison with a baseline run.
 */
#ifndef MINIBLAS_BENCH_REPORT_H
#define MINIBLAS_BENCH_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What became of one (op, shape, rung) measurement. */
typedef enum bench_status {
    BENCH_OK = 0,          /* checked against cuBLAS, then timed */
    BENCH_WRONG = 1,       /* result disagreed with cuBLAS: no speed is reported */
    BENCH_SKIPPED = 2,     /* --skip-slow: estimated or first launch too slow (see note) */
    BENCH_UNSUPPORTED = 3, /* the library said MINIBLAS_STATUS_NOT_SUPPORTED (e.g. needs sm_90a) */
    BENCH_ERROR = 4        /* a library, CUDA or cuBLAS call failed (see note) */
} bench_status;

const char *bench_status_name(bench_status s);            /* "ok", "wrong", ... */
int bench_status_parse(const char *name, bench_status *s); /* 0 on success */

typedef struct bench_result {
    char op[16];      /* "sgemm", ... */
    char shape[64];   /* canonical: gemm "MxNxK", omatcopy "RxC", reductions "n" */
    char trans[4];    /* gemm "NN".."TT", omatcopy "N"/"T", reductions "-" */
    int64_t inc;      /* reductions: the increment; 0 for the other ops */
    char rung[48];    /* rung name, "auto", "cublas" or "cublas_tf32" */
    int64_t m, n, k;  /* gemm m,n,k; omatcopy rows,cols,0; reductions n,0,0 */
    double time_us;   /* median per call; NaN when not timed */
    double rate;      /* GFLOP/s (gemm) or GB/s (others); NaN when not timed */
    char unit[12];    /* "GFLOP/s" or "GB/s" */
    double ratio_cublas;     /* our rate / cuBLAS's rate (1 for the cuBLAS row); NaN if none */
    double fraction_ceiling; /* rate / relevant ceiling; NaN if none */
    bench_status status;
    char note[160];   /* "tf32", "auto picked tiled", "skipped: estimated 9.1 s", error text */
} bench_result;

/* Run-wide facts: where and when the numbers were taken, and the measured ceilings. */
typedef struct bench_meta {
    char device[256];
    char driver[64];        /* kernel driver version (e.g. 580.65.06) or "unknown" */
    char cuda_driver[32];   /* CUDA driver API version, e.g. "13.0" */
    char cuda_runtime[32];  /* e.g. "13.0" */
    char cublas[32];        /* e.g. "13.0.0" */
    char git_commit[64];
    char timestamp[32];     /* ISO 8601 UTC */
    char command[512];      /* the command line */
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

/* ---- table (stdout) ---- */
void bench_table_header(FILE *f);
void bench_table_row(FILE *f, const bench_result *r);

/* ---- CSV: a header line, then one line per result (RFC 4180 quoting) ---- */
int bench_write_csv(FILE *f, const bench_run *run);

/* ---- JSON ---- */
int bench_write_json(FILE *f, const bench_run *run); /* 0 on success */
/* Parses a document written by bench_write_json (keys in any order, unknown keys ignored).
 * Returns 0 and fills *run (initialised here), or -1 with a message in err. */
int bench_read_json(const char *text, bench_run *run, char *err, size_t errsize);
int bench_read_json_file(const char *path, bench_run *run, char *err, size_t errsize);

/* ---- baseline comparison ----
 * Rows are matched by (op, shape, trans, inc, rung). A row regresses when both runs timed it
 * and the current time exceeds the baseline's by more than tolerance_pct percent, or when it
 * was OK in the baseline and is WRONG or ERROR now. cuBLAS rows are reported (they show the
 * machine changed) but never count as regressions of miniblas.
 * Writes one line per regression (and per notable cuBLAS change) to `report` (may be NULL).
 * Returns the number of regressions; *matched (may be NULL) gets the number of matched rows. */
int bench_compare(const bench_run *baseline, const bench_run *current, double tolerance_pct,
                  FILE *report, size_t *matched);

/* Escapes a string for a JSON string literal (without the quotes) into out; returns out. */
char *bench_json_escape(const char *s, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
