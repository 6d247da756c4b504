/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-cblas-bench's output: the table on stdout (one line per op and size, every
 * implementation side by side, with the bounds), the wide CSV (--csv-wide: the same line as
 * CSV), and the rows of the result files (--csv, --json, --md: one row per implementation,
 * in the format both benchmarks share, bench_report.h).
 */
#include "mcb.h"

FILE *g_csv_wide;
bench_run g_run;

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

void print_header(void) {
    if (O.devices[0]) printf("\nGPUs %s (MINIBLAS_CBLAS_DEVICES)", O.devices);
    printf("\n%-9s %-3s %-4s %-15s %10s %3s %10s %-4s %6s %10s %10s %9s %9s %9s %9s %5s %5s  %s\n",
           "op", "lay", "mem", "shape", "openblas", "tr", "mbc", "path", "ratio", "mbc_gpu", "plain",
           "kern_mb", "kern_cb", "bnd_pin", "bnd_host", "r_pin", "r_hst", "check / notes");
    printf("%-9s %-3s %-4s %-15s %10s %3s %10s %-4s %6s %10s %10s %9s %9s %9s %9s %5s %5s\n", "",
           "", "", "", "ms", "", "ms", "", "paired", "ms", "ms", "ms", "ms", "ms", "ms", "", "");
}

int g_slow, g_slow_3ns, g_miss;

static void add_rows(const rowres *r);

void print_row(const rowres *r) {
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
    printf("%-9s %-3s %-4s %-15s %10s %3d %10s %-4s %6s %10s %10s %9s %9s %9s %9s %5s %5s  %s\n",
           r->op->name, r->op->kind == K_GEMM ? (r->row ? "row" : "col") : "-",
           r->pinned ? "pin" : "page", sh, t[I_OB],
           r->ntr[I_OB], t[I_MBC], path_name(r->path[I_MBC]), ratio, t[I_GPU], t[I_PLAIN], km, kc,
           bp, bh, rp, rh, check);
    if (r->best_xt >= 0 || (r->op->kind == K_GEMM && O.want_xt && !O.dry)) {
        char xl[400] = "";
        size_t l = 0;
        for (int i = I_XT0; i < I_XT0 + O.nxt && l < sizeof xl; ++i) {
            char tm[24];
            fmt_ms(tm, sizeof tm, r->t[i]);
            l += (size_t)snprintf(xl + l, sizeof xl - l, "  b%lld %s%s",
                                  (long long)O.xt_blocks[i - I_XT0], tm,
                                  i == r->best_xt && O.nxt > 1 ? " (best)" : "");
        }
        double best = r->best_xt >= 0 ? r->t[r->best_xt] : -1;
        char sp[64] = "";
        if (best > 0 && r->t[I_MBC] > 0)
            snprintf(sp, sizeof sp, "; best cublasXt / mbc %.2f", best / r->t[I_MBC]);
        printf("%-29s cublasXt ms by block:%s%s\n", "", xl, sp);
    }
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
    if (g_csv_wide) {
        fprintf(g_csv_wide, "%s,%s,%lld,%lld,%lld", r->op->name,
                r->op->kind == K_GEMM ? (r->row ? "row" : "col") : "", (long long)r->m,
                (long long)r->n, (long long)r->k);
        for (int i = 0; i < I_XT0; ++i) {
            if (r->t[i] >= 0)
                fprintf(g_csv_wide, ",%.6g,%d", r->t[i] * 1e3, r->ntr[i]);
            else
                fprintf(g_csv_wide, ",,");
        }
        fprintf(g_csv_wide, ",%s,%s", path_name(r->path[I_MBC]), path_name(r->path[I_GPU]));
        double v[9] = {rmed, r->r_ob_pair, r->kmb * 1e3, r->kcb * 1e3, r->bound_pin * 1e3,
                       r->bound_host * 1e3, rpin, rhst, r->r_pair};
        for (int i = 0; i < 9; ++i)
            if (v[i] >= 0) fprintf(g_csv_wide, ",%.6g", v[i]);
            else fprintf(g_csv_wide, ",");
        double we = 0;
        for (int i = 0; i < NIMPL; ++i)
            if (r->err[i] > we) we = r->err[i];
        fprintf(g_csv_wide, ",%s,%.3g,\"%s\"\n", wrong ? "WRONG" : "ok", we, r->note);
        fflush(g_csv_wide);
    }
    add_rows(r);
}

void csv_wide_header(void) {
    fprintf(g_csv_wide, "op,layout,m,n,k,openblas_ms,openblas_trials,mbc_ms,mbc_trials,mbc_gpu_ms,"
                   "mbc_gpu_trials,plain_ms,plain_trials,mbc_path,mbc_gpu_path,mbc_over_openblas,"
                   "mbc_over_openblas_paired,"
                   "kern_mb_ms,kern_cublas_ms,bound_pinned_ms,bound_host_ms,mbc_over_bound_pinned,"
                   "mbc_over_bound_host,mbc_over_bound_paired,check,max_err_over_bound,note\n");
}


/* One result row per implementation that ran: OpenBLAS and the plain cuBLAS offload are
 * references (reported, never a regression of miniblas), as is cuBLAS's kernel. */
static void add_rows(const rowres *r) {
    char sh[48];
    shape_str(sh, sizeof sh, r);
    const int kind = r->op->kind;
    /* the work per call: flops (gemm) or bytes moved (each input read, each output written) */
    double e = r->op->dbl ? 8.0 : 4.0;
    double work = kind == K_GEMM ? 2.0 * (double)r->m * (double)r->n * (double)r->k
                  : kind == K_OMAT ? 2.0 * (double)r->n * (double)r->n * e
                  : kind == K_DOT  ? 2.0 * (double)r->n * e
                                   : (double)r->n * e;

    double ob_rate = r->t[I_OB] > 0 ? work / r->t[I_OB] / 1e9 : NAN;
    for (int i = 0; i < NIMPL + 2; ++i) {
        const bench_stats *st = i < NIMPL ? &r->st[i] : i == NIMPL ? &r->st_kmb : &r->st_kcb;
        double t = i < NIMPL ? r->t[i] : i == NIMPL ? r->kmb : r->kcb;
        int failed = i < NIMPL && (r->failed[i] || r->err[i] > 1);
        if (!(t > 0) && !failed) continue;
        bench_result b;
        bench_result_init(&b);
        snprintf(b.op, sizeof b.op, "%s", r->op->name);
        snprintf(b.shape, sizeof b.shape, "%s", sh);
        snprintf(b.trans, sizeof b.trans, "%s", kind == K_GEMM ? (r->row ? "row" : "col") : "-");
        b.inc = kind == K_ASUM || kind == K_DOT ? 1 : 0;
        snprintf(b.rung, sizeof b.rung, "%s",
                 i < NIMPL ? IMPL_NAME[i] : i == NIMPL ? "kern_mb" : "kern_cublas");
        b.reference = i == I_OB || i == I_PLAIN || IS_XT(i) || i == NIMPL + 1;
        snprintf(b.devices, sizeof b.devices, "%s", O.devices);
        snprintf(b.memory, sizeof b.memory, "%s", mem_name(r->pinned));
        b.m = kind == K_GEMM ? r->m : r->n;
        b.n = kind == K_GEMM || kind == K_OMAT ? r->n : 0;
        b.k = kind == K_GEMM ? r->k : 0;
        snprintf(b.unit, sizeof b.unit, "%s", kind == K_GEMM ? "GFLOP/s" : "GB/s");
        if (failed) {
            b.status = r->failed[i] ? BENCH_ERROR : BENCH_WRONG;
            snprintf(b.note, sizeof b.note, "%s (error / bound %.3g)",
                     r->failed[i] ? "call failed" : "WRONG", r->err[i]);
        } else {
            b.time_us = t * 1e6;
            b.min_us = st->trials ? st->min * 1e6 : NAN;
            b.max_us = st->trials ? st->max * 1e6 : NAN;
            b.noise = st->noise;
            b.trials = st->trials;
            b.noise_ok = st->noise_ok;
            b.rate = work / t / 1e9;
            b.ratio_cublas = b.rate / ob_rate; /* against OpenBLAS alone */
            if (i == I_MBC || i == I_GPU)
                snprintf(b.note, sizeof b.note, "path %s", path_name(r->path[i]));
            if (IS_XT(i))
                snprintf(b.note, sizeof b.note, "cublasXt block %lld on GPUs %s%s",
                         (long long)O.xt_blocks[i - I_XT0], O.devices[0] ? O.devices : "(all)",
                         i == r->best_xt && O.nxt > 1 ? "; best block" : "");
        }
        if (bench_run_add(&g_run, &b) != 0) {
            cli_error("out of host memory");
            g_fail = 1;
        }
    }
    /* gemm: the two bounds of the layer's time as rows of their own (reference rows: a
     * figure to compare the layer with, not timed) */
    for (int i = 0; kind == K_GEMM && i < 2; ++i) {
        double t = i ? r->bound_host : r->bound_pin;
        if (!(t > 0)) continue;
        bench_result b;
        bench_result_init(&b);
        snprintf(b.op, sizeof b.op, "%s", r->op->name);
        snprintf(b.shape, sizeof b.shape, "%s", sh);
        snprintf(b.trans, sizeof b.trans, "%s", r->row ? "row" : "col");
        snprintf(b.rung, sizeof b.rung, "%s", i ? "bound_host" : "bound_pinned");
        b.reference = 1;
        snprintf(b.devices, sizeof b.devices, "%s", O.devices);
        snprintf(b.memory, sizeof b.memory, "%s", mem_name(r->pinned));
        b.m = r->m, b.n = r->n, b.k = r->k;
        snprintf(b.unit, sizeof b.unit, "GFLOP/s");
        b.time_us = t * 1e6;
        b.rate = work / t / 1e9;
        snprintf(b.note, sizeof b.note, "%s",
                 i ? "max(kernel, the best measured way of moving the operands from this memory)"
                   : "max(kernel, the operands at the pinned DMA rates)");
        if (bench_run_add(&g_run, &b) != 0) {
            cli_error("out of host memory");
            g_fail = 1;
        }
    }
}
