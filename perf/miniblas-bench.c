/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-bench: times every rung of every op against cuBLAS, in the same process,
 * interleaved, after checking each rung's result against cuBLAS's.
 *
 *   miniblas-bench [--ops LIST] [--rungs LIST|all] [--sizes LIST] [--trans LIST] ...
 *   miniblas-bench --list        (rung tables; needs no GPU)
 *   miniblas-bench --help | --version
 *
 * This file: main (device set-up, the loop over ops and shapes), the rows, the outputs. The
 * command line is in mb_options.c, one problem's buffers, launches, check and timing in
 * mb_ops.c (mb.h lists what they share); docs/benchmarking.md is the user's guide.
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
 *   - then trials, each round running cuBLAS and every rung once (interleaved, each round in
 *     a fresh random order); a
 *     trial is CUDA events around as many back-to-back launches as fill --min-time-ms; a
 *     participant stops after --trials once its noise (1.4826 MAD / median) is at most
 *     --max-noise, or at --max-trials, or after --max-time of trials; the median time per
 *     launch is reported with the min, max, noise and trial count.
 * cuBLAS runs with CUBLAS_DEFAULT_MATH, which for FP32 never uses TF32 unless the environment
 * variable NVIDIA_TF32_OVERRIDE=1 is set (the benchmark refuses to run if it is). A rung that
 * trades precision for speed (MINIBLAS_RUNG_REDUCED_PRECISION) runs with its handle's math
 * mode allowing it, its row says "reduced precision", and it is compared with an extra row
 * "cublas_tf32" (CUBLAS_TF32_TENSOR_OP_MATH).
 *
 * Exit status: 0 all good; 1 a rung was WRONG or a call failed; 2 bad usage or no CUDA device;
 * 3 a row SLOW against --baseline by perf/compare.py (1 wins over 3).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "mb.h"
#include "sysinfo.h"

#ifndef MINIBLAS_GIT_COMMIT
#define MINIBLAS_GIT_COMMIT "unknown"
#endif

/* ------------------------------------------------------------------------------------ */
/* ops */

const opinfo OPS[MINIBLAS_OP_COUNT] = {
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
/* rows */

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
        setf(r->rung, sizeof r->rung, "%s", pt->name);
        r->m = p->m;
        r->n = oi->kind == K_GEMM || oi->kind == K_OMAT ? p->n : 0;
        r->k = oi->kind == K_GEMM ? p->k : 0;
        snprintf(r->unit, sizeof r->unit, "%s", oi->kind == K_GEMM ? "GFLOP/s" : "GB/s");
        r->status = pt->status;
        snprintf(r->note, sizeof r->note, "%s", pt->note);
        r->reference = pt->is_cublas;
        if (pt->status == BENCH_OK && pt->ntimes > 0) {
            bench_stats st;
            stats_compute(pt->times, pt->ntimes, c->o->com.max_noise_pct / 100.0, &st);
            double ms = st.median;
            r->time_us = ms * 1e3;
            r->min_us = st.min * 1e3;
            r->max_us = st.max * 1e3;
            r->noise = st.noise;
            r->trials = st.trials;
            r->noise_ok = st.noise_ok;
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

/* ------------------------------------------------------------------------------------ */
/* header and outputs */

static void fill_meta(ctx *c, int argc, char **argv, const struct cudaDeviceProp *prop, int dev) {
    bench_meta *m = &c->run.meta;
    const options *o = c->o;
    sysinfo_fill_meta(m, "miniblas-bench", MINIBLAS_GIT_COMMIT, argc, argv);
    snprintf(m->device, sizeof m->device, "%s", prop->name);
    int v = 0;
    cudaDriverGetVersion(&v);
    snprintf(m->cuda_driver, sizeof m->cuda_driver, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    cudaRuntimeGetVersion(&v);
    snprintf(m->cuda_runtime, sizeof m->cuda_runtime, "%d.%d", v / 1000, (v % 1000) / 10);
    v = 0;
    if (cublasGetVersion(c->cb, &v) == CUBLAS_STATUS_SUCCESS)
        snprintf(m->cublas, sizeof m->cublas, "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
    sysinfo_openblas(NULL, m->openblas, sizeof m->openblas);
    if (cudaDeviceGetPCIBusId(c->pci, sizeof c->pci, dev) != cudaSuccess) {
        cudaGetLastError();
        c->pci[0] = '\0';
    }
    sysinfo_gpu_state(c->pci, &m->gpu_start);
    char *s = m->settings;
    size_t n = sizeof m->settings;
    bench_settings_num(s, n, "trials", o->com.trials);
    bench_settings_num(s, n, "max_trials", o->com.max_trials);
    bench_settings_num(s, n, "max_noise_pct", o->com.max_noise_pct);
    bench_settings_num(s, n, "max_time_s", o->com.max_time_s);
    bench_settings_num(s, n, "min_time_ms", o->com.min_time_ms);
    bench_settings_num(s, n, "warmup", o->warmup);
    bench_settings_num(s, n, "inc", (double)o->inc);
    bench_settings_num(s, n, "warm_l2", o->warm_l2);
    bench_settings_num(s, n, "slow_limit_s", o->slow_limit_s);
    bench_settings_num(s, n, "sms", c->sms);
    bench_settings_num(s, n, "l2_bytes", (double)c->l2);
    bench_settings_str(s, n, "pci_bus_id", c->pci);
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) { /* rung overrides change what auto means */
        char var[32];
        snprintf(var, sizeof var, "MINIBLAS_%s", OPS[k].name);
        for (char *q = var; *q; ++q) *q = (char)toupper((unsigned char)*q);
        const char *e = getenv(var);
        if (e && *e) bench_settings_str(s, n, var, e);
    }
}

static int g_outputs_written;

void write_outputs(ctx *c) {
    if (g_outputs_written) return;
    g_outputs_written = 1;
    const cli_common *cm = &c->o->com;
    sysinfo_gpu_state(c->pci, &c->run.meta.gpu_end);
    if (c->out.csv && bench_write_csv(c->out.csv, &c->run) != 0) c->bad = 1;
    if (c->out.json && bench_write_json(c->out.json, &c->run) != 0) c->bad = 1;
    if (c->out.md && bench_write_md(c->out.md, &c->run) != 0) c->bad = 1;
    if (cli_close_outputs(cm, &c->out) != 0) c->bad = 1;
}

/* --baseline: the current rows go to --json, or to a temporary file, for perf/compare.py. */
static int compare_with_baseline(ctx *c) {
    const cli_common *cm = &c->o->com;
    char tmp[] = "/tmp/miniblas-bench-XXXXXX";
    const char *cur = cm->json;
    if (!cur) {
        int fd = mkstemp(tmp);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (!f || bench_write_json(f, &c->run) != 0 || fclose(f) != 0) {
            cli_error("cannot write a temporary result file for the comparison");
            return -1;
        }
        cur = tmp;
    }
    printf("\n");
    int rc = cli_run_compare(cm->baseline, cur, cm->tolerance_pct);
    if (cur == tmp) unlink(tmp);
    return rc;
}

/* ------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    cli_tool = "miniblas-bench";
    static options o;
    if (parse_options(argc, argv, &o) != 0) return 2;
    if (o.com.help) {
        usage(stdout);
        return 0;
    }
    if (o.com.version) {
        cli_print_version(stdout);
        return 0;
    }
    if (o.list) {
        print_list();
        return 0;
    }
    if (o.com.baseline) {
        FILE *f = fopen(o.com.baseline, "r");
        if (!f) {
            cli_error("cannot read --baseline %s: %s", o.com.baseline, strerror(errno));
            return 2;
        }
        fclose(f);
        if (!cli_compare_script()) {
            cli_error("--baseline needs python3 and perf/compare.py (MINIBLAS_COMPARE: its path)");
            return 2;
        }
    }
    const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
    if (tf32 && *tf32 && strcmp(tf32, "0") != 0) {
        cli_error("NVIDIA_TF32_OVERRIDE=%s would make cuBLAS's FP32 gemm use TF32; unset it", tf32);
        return 2;
    }
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        char var[32];
        snprintf(var, sizeof var, "MINIBLAS_%s", OPS[k].name);
        for (char *q = var; *q; ++q) *q = (char)toupper((unsigned char)*q);
        const char *v = getenv(var);
        if (v && *v)
            cli_error("warning: %s=%s is set: the 'auto' rows of %s run that rung instead of "
                      "the library's choice", var, v, OPS[k].name);
    }
    static ctx c; /* large (history); static storage */
    c.o = &o;
    bench_run_init(&c.run);
    /* the output files now, before anything is measured: a bad path costs nothing */
    if (cli_open_outputs(&o.com, &c.out) != 0) return 2;
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        cli_error("no CUDA device (%s); only --help, --version and --list work without one",
                  e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 2;
    }
    struct cudaDeviceProp prop;
    int dev = 0;
    if (!cuda_ok(&c, cudaGetDevice(&dev), "cudaGetDevice") ||
        !cuda_ok(&c, cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties")) {
        cli_error("%s", c.err);
        return 2;
    }
    c.sms = prop.multiProcessorCount;
    c.cc_major = prop.major;
    c.cc_minor = prop.minor;
    c.l2 = (size_t)prop.l2CacheSize;
    c.warm_l2 = o.warm_l2;
    miniblas_status_t ms = miniblas_create(&c.mb);
    if (ms != MINIBLAS_STATUS_SUCCESS) {
        cli_error("miniblas_create: %s", miniblas_status_string(ms));
        return 1;
    }
    cublasStatus_t cs = cublasCreate(&c.cb);
    if (cs != CUBLAS_STATUS_SUCCESS) {
        cli_error("cublasCreate: %s", cublas_status_str(cs));
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
    fill_meta(&c, argc, argv, &prop, dev);
    const bench_meta *mt = &c.run.meta;
    printf("miniblas-bench %s: %s (cc %d.%d, %d SMs, %.0f MB L2), driver %s, CUDA %s runtime, "
           "cuBLAS %s, commit %s\n", mt->version, mt->device, c.cc_major, c.cc_minor, c.sms,
           (double)c.l2 / 1e6, mt->driver[0] ? mt->driver : "?", mt->cuda_runtime, mt->cublas,
           mt->git_commit);
    if (mt->gpu_start.valid)
        printf("clocks: SM %.0f / %.0f MHz, memory %.0f MHz, power %.0f W of %.0f W%s\n",
               mt->gpu_start.sm_mhz, mt->gpu_start.max_sm_mhz, mt->gpu_start.mem_mhz,
               mt->gpu_start.power_w, mt->gpu_start.power_limit_w,
               mt->gpu_start.sw_power_cap == 1 ? ", SW power cap ACTIVE" : "");
    printf("trials %d..%d (median; until noise <= %g%% or %g s of trials), warm-up %d, min %.1f "
           "ms per trial, inc %" PRId64 "%s%s\n", o.com.trials, o.com.max_trials,
           o.com.max_noise_pct, o.com.max_time_s, o.warmup, o.com.min_time_ms, o.inc,
           o.skip_slow ? ", --skip-slow" : "",
           o.warm_l2 ? ", --warm-l2 (no rotation: same buffers every call)" : "");
    spin_up(&c);
    measure_ceilings(&c);

    /* count the problems for the progress lines */
    static int64_t shapes[MAX_LIST][3];
    static part parts[MAX_PARTS];
    int nproblems = 0;
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        if (!o.op_sel[k] || build_parts(&o, &OPS[k], parts) == 0) continue;
        int ns = shapes_for(&o, OPS[k].kind, shapes);
        int nt = OPS[k].kind == K_GEMM ? o.ngemm_trans : OPS[k].kind == K_OMAT ? o.nomat_trans : 1;
        nproblems += ns * nt;
    }
    cli_progress_start(&c.prog, nproblems, o.com.progress);
    printf("\n");
    bench_table_header(stdout);
    fflush(stdout);

    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        if (!o.op_sel[k]) continue;
        const opinfo *oi = &OPS[k];
        int np = build_parts(&o, oi, parts);
        if (np == 0) {
            cli_error("%s: none of the named rungs exists; skipped", oi->name);
            continue;
        }
        int ns = shapes_for(&o, oi->kind, shapes);
        if (ns == 0)
            cli_error("%s: no --sizes item fits (%s); skipped", oi->name,
                      oi->kind == K_GEMM ? "N or MxNxK" : oi->kind == K_OMAT ? "N or RxC" : "n");
        int nt = oi->kind == K_GEMM ? o.ngemm_trans : oi->kind == K_OMAT ? o.nomat_trans : 1;
        int vec = oi->kind == K_ASUM || oi->kind == K_DOT;
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
                char who[256] = "";
                for (int i = 0; i < np; ++i) {
                    size_t l = strlen(who);
                    setf(who + l, sizeof who - l, "%s%s", i ? "," : "", parts[i].name);
                }
                int setup = problem_setup(&c, &p);
                cli_progress_step(&c.prog, "%s %s%s%s %s", oi->name, p.shape, vec ? "" : " ",
                                  vec ? "" : p.trans, who);
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
                    emit_rows(&c, &p, parts, np);
                    continue;
                }
                for (int i = 1; i < np; ++i) { /* parts[0] is cuBLAS: the reference ran */
                    if (parts[i].tf32)
                        check_cublas_tf32(&c, &p, &parts[i]);
                    else
                        check_part(&c, &p, &parts[i], k);
                }
                time_parts(&c, &p, parts, np);
                emit_rows(&c, &p, parts, np);
                for (int i = 0; i < np; ++i) free(parts[i].times);
                problem_free(&p);
            }
    }

    write_outputs(&c);
    int rc = c.bad ? 1 : 0;
    if (o.com.baseline) {
        int crc = compare_with_baseline(&c);
        if (crc < 0 || crc == 2) {
            cli_error("the comparison with %s could not be made", o.com.baseline);
            if (rc == 0) rc = 2;
        } else if (crc == 3 && rc == 0) {
            rc = 3;
        }
    }
    if (c.bad) printf("\nsome rows are WRONG or ERROR (exit status 1)\n");
    bench_run_free(&c.run);
    miniblas_destroy(c.mb);
    cublasDestroy(c.cb);
    cudaEventDestroy(c.ev0);
    cudaEventDestroy(c.ev1);
    cudaFree(c.scratch);
    for (int r = 0; r < o.nrungs; ++r) free(o.rungs[r]);
    return rc;
}
