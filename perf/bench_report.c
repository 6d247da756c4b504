/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The benchmarks' reporting (pure C, no CUDA): table, CSV, JSON and Markdown writers. Reading
 * and comparing result files is perf/compare.py's job.
 */
#include "bench_report.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {"ok", "wrong", "skipped", "unsupported", "error"};

const char *bench_status_name(bench_status s) {
    return ((int)s >= 0 && (int)s < 5) ? status_names[s] : "error";
}

int bench_status_parse(const char *name, bench_status *s) {
    for (int i = 0; i < 5; ++i)
        if (name && strcmp(name, status_names[i]) == 0) {
            *s = (bench_status)i;
            return 0;
        }
    return -1;
}

void bench_gpu_state_init(bench_gpu_state *g) {
    memset(g, 0, sizeof *g);
    g->sm_mhz = g->mem_mhz = g->max_sm_mhz = g->max_mem_mhz = NAN;
    g->power_w = g->power_limit_w = g->temperature_c = NAN;
    g->sw_power_cap = -1;
}

void bench_run_init(bench_run *run) {
    memset(run, 0, sizeof *run);
    bench_gpu_state_init(&run->meta.gpu_start);
    bench_gpu_state_init(&run->meta.gpu_end);
    run->meta.copy_gbs = run->meta.read_gbs = NAN;
    run->meta.fp32_peak_gflops = run->meta.fp64_peak_gflops = NAN;
}

void bench_run_free(bench_run *run) {
    free(run->results);
    run->results = NULL;
    run->count = run->cap = 0;
}

int bench_run_add(bench_run *run, const bench_result *r) {
    if (run->count == run->cap) {
        size_t cap = run->cap ? 2 * run->cap : 64;
        bench_result *p = realloc(run->results, cap * sizeof *p);
        if (!p) return -1;
        run->results = p;
        run->cap = cap;
    }
    run->results[run->count++] = *r;
    return 0;
}

void bench_result_init(bench_result *r) {
    memset(r, 0, sizeof *r);
    r->time_us = r->rate = r->ratio_cublas = r->fraction_ceiling = NAN;
    r->min_us = r->max_us = r->noise = NAN;
    r->status = BENCH_OK;
}

/* ------------------------------------------------------------------------------------ */
/* table */

void bench_table_header(FILE *f) {
    fprintf(f, "%-10s %-20s %-5s %-4s %-18s %12s %6s %3s %11s %-8s %8s %9s  %s\n", "op", "shape",
            "trans", "inc", "rung", "time_us", "noise", "tr", "rate", "unit", "%ref", "%ceiling",
            "note");
}

static void fmt_num(char *buf, size_t size, double v, const char *fmt) {
    if (isnan(v))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, fmt, v);
}

void bench_table_row(FILE *f, const bench_result *r) {
    char t[32], rate[32], ratio[32], frac[32], inc[24], noise[32];
    fmt_num(t, sizeof t, r->time_us, "%.2f");
    fmt_num(noise, sizeof noise, r->noise * 100.0, "%.1f%%");
    if (!isnan(r->noise) && !r->noise_ok) strcat(noise, "!");
    fmt_num(rate, sizeof rate, r->rate, "%.1f");
    fmt_num(ratio, sizeof ratio, r->ratio_cublas * 100.0, "%.1f");
    fmt_num(frac, sizeof frac, r->fraction_ceiling * 100.0, "%.1f");
    if (r->inc)
        snprintf(inc, sizeof inc, "%" PRId64, r->inc);
    else
        snprintf(inc, sizeof inc, "-");
    const char *what = "";
    if (r->status == BENCH_WRONG) what = "WRONG ";
    else if (r->status == BENCH_SKIPPED) what = "SKIPPED ";
    else if (r->status == BENCH_UNSUPPORTED) what = "UNSUPPORTED ";
    else if (r->status == BENCH_ERROR) what = "ERROR ";
    fprintf(f, "%-10s %-20s %-5s %-4s %-18s %12s %6s %3d %11s %-8s %8s %9s  %s%s\n", r->op,
            r->shape, r->trans, inc, r->rung, t, noise, r->trials, rate, r->unit, ratio, frac, what,
            r->note);
}

/* ------------------------------------------------------------------------------------ */
/* CSV */

static void csv_field(FILE *f, const char *s) {
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v) {
    if (!isnan(v)) fprintf(f, "%.9g", v);
}

int bench_write_csv(FILE *f, const bench_run *run) {
    fprintf(f, "op,shape,trans,inc,rung,reference,m,n,k,time_us,min_us,max_us,noise,trials,"
               "noise_ok,rate,unit,ratio_cublas,fraction_ceiling,status,note,devices,memory\n");
    for (size_t i = 0; i < run->count; ++i) {
        const bench_result *r = &run->results[i];
        csv_field(f, r->op);
        fputc(',', f);
        csv_field(f, r->shape);
        fputc(',', f);
        csv_field(f, r->trans);
        fprintf(f, ",%" PRId64 ",", r->inc);
        csv_field(f, r->rung);
        fprintf(f, ",%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->reference, r->m, r->n, r->k);
        csv_num(f, r->time_us);
        fputc(',', f);
        csv_num(f, r->min_us);
        fputc(',', f);
        csv_num(f, r->max_us);
        fputc(',', f);
        csv_num(f, r->noise);
        fprintf(f, ",%d,%d,", r->trials, r->noise_ok);
        csv_num(f, r->rate);
        fputc(',', f);
        csv_field(f, r->unit);
        fputc(',', f);
        csv_num(f, r->ratio_cublas);
        fputc(',', f);
        csv_num(f, r->fraction_ceiling);
        fputc(',', f);
        csv_field(f, bench_status_name(r->status));
        fputc(',', f);
        csv_field(f, r->note);
        fputc(',', f);
        csv_field(f, r->devices);
        fputc(',', f);
        csv_field(f, r->memory);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------ */
/* JSON out */

char *bench_json_escape(const char *s, char *out, size_t size) {
    size_t o = 0;
    if (size == 0) return out;
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        const char *piece;
        switch (c) {
        case '"': piece = "\\\""; break;
        case '\\': piece = "\\\\"; break;
        case '\n': piece = "\\n"; break;
        case '\r': piece = "\\r"; break;
        case '\t': piece = "\\t"; break;
        case '\b': piece = "\\b"; break;
        case '\f': piece = "\\f"; break;
        default:
            if (c < 0x20) {
                snprintf(tmp, sizeof tmp, "\\u%04x", c);
            } else {
                tmp[0] = (char)c; /* UTF-8 bytes pass through */
                tmp[1] = '\0';
            }
            piece = tmp;
        }
        size_t len = strlen(piece);
        if (o + len >= size) break; /* truncate at a whole escape */
        memcpy(out + o, piece, len);
        o += len;
    }
    out[o] = '\0';
    return out;
}

static void json_str(FILE *f, const char *s) {
    char buf[2048];
    fprintf(f, "\"%s\"", bench_json_escape(s, buf, sizeof buf));
}

static void json_num(FILE *f, double v) {
    if (isnan(v) || isinf(v))
        fputs("null", f);
    else
        fprintf(f, "%.9g", v);
}

static void json_strn(FILE *f, const char *s) { /* "" -> null */
    if (!s[0])
        fputs("null", f);
    else
        json_str(f, s);
}

static void json_gpu(FILE *f, const bench_gpu_state *g) {
    if (!g->valid) {
        fputs("null", f);
        return;
    }
    fputs("{\"sm_mhz\": ", f);
    json_num(f, g->sm_mhz);
    fputs(", \"mem_mhz\": ", f);
    json_num(f, g->mem_mhz);
    fputs(", \"max_sm_mhz\": ", f);
    json_num(f, g->max_sm_mhz);
    fputs(", \"max_mem_mhz\": ", f);
    json_num(f, g->max_mem_mhz);
    fputs(", \"power_w\": ", f);
    json_num(f, g->power_w);
    fputs(", \"power_limit_w\": ", f);
    json_num(f, g->power_limit_w);
    fputs(", \"temperature_c\": ", f);
    json_num(f, g->temperature_c);
    fputs(", \"sw_power_cap\": ", f);
    fputs(g->sw_power_cap < 0 ? "null" : g->sw_power_cap ? "true" : "false", f);
    fputs(", \"clock_event_reasons\": ", f);
    json_strn(f, g->reasons);
    fputc('}', f);
}

int bench_write_json(FILE *f, const bench_run *run) {
    const bench_meta *m = &run->meta;
    fprintf(f, "{\n  \"schema_version\": %d,\n  \"tool\": ", BENCH_SCHEMA_VERSION);
    json_str(f, m->tool);
    fputs(",\n  \"version\": ", f);
    json_strn(f, m->version);
    fputs(",\n  \"device\": ", f);
    json_strn(f, m->device);
    fputs(",\n  \"driver\": ", f);
    json_strn(f, m->driver);
    fputs(",\n  \"cuda_driver\": ", f);
    json_strn(f, m->cuda_driver);
    fputs(",\n  \"cuda_runtime\": ", f);
    json_strn(f, m->cuda_runtime);
    fputs(",\n  \"cublas\": ", f);
    json_strn(f, m->cublas);
    fputs(",\n  \"openblas\": ", f);
    json_strn(f, m->openblas);
    fputs(",\n  \"git_commit\": ", f);
    json_strn(f, m->git_commit);
    fputs(",\n  \"timestamp\": ", f);
    json_strn(f, m->timestamp);
    fputs(",\n  \"command\": ", f);
    json_str(f, m->command);
    fputs(",\n  \"settings\": ", f);
    fputs(m->settings[0] ? m->settings : "{}", f);
    fputs(",\n  \"gpu_start\": ", f);
    json_gpu(f, &m->gpu_start);
    fputs(",\n  \"gpu_end\": ", f);
    json_gpu(f, &m->gpu_end);
    fputs(",\n  \"ceilings\": {\"copy_gbs\": ", f);
    json_num(f, m->copy_gbs);
    fputs(", \"read_gbs\": ", f);
    json_num(f, m->read_gbs);
    fputs(", \"fp32_peak_gflops\": ", f);
    json_num(f, m->fp32_peak_gflops);
    fputs(", \"fp64_peak_gflops\": ", f);
    json_num(f, m->fp64_peak_gflops);
    fputs("},\n  \"results\": [", f);
    for (size_t i = 0; i < run->count; ++i) {
        const bench_result *r = &run->results[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"op\": ", f);
        json_str(f, r->op);
        fputs(", \"shape\": ", f);
        json_str(f, r->shape);
        fputs(", \"trans\": ", f);
        json_str(f, r->trans);
        fprintf(f, ", \"inc\": %" PRId64 ", \"rung\": ", r->inc);
        json_str(f, r->rung);
        fprintf(f, ", \"reference\": %s", r->reference ? "true" : "false");
        fprintf(f, ", \"m\": %" PRId64 ", \"n\": %" PRId64 ", \"k\": %" PRId64, r->m, r->n, r->k);
        fputs(", \"time_us\": ", f);
        json_num(f, r->time_us);
        fputs(", \"min_us\": ", f);
        json_num(f, r->min_us);
        fputs(", \"max_us\": ", f);
        json_num(f, r->max_us);
        fputs(", \"noise\": ", f);
        json_num(f, r->noise);
        fprintf(f, ", \"trials\": %d, \"noise_ok\": %s", r->trials, r->noise_ok ? "true" : "false");
        fputs(", \"rate\": ", f);
        json_num(f, r->rate);
        fputs(", \"unit\": ", f);
        json_str(f, r->unit);
        fputs(", \"ratio_cublas\": ", f);
        json_num(f, r->ratio_cublas);
        fputs(", \"fraction_ceiling\": ", f);
        json_num(f, r->fraction_ceiling);
        fputs(", \"correct\": ", f);
        fputs(r->status == BENCH_OK ? "true"
              : (r->status == BENCH_WRONG || r->status == BENCH_ERROR) ? "false"
                                                                        : "null",
              f);
        fputs(", \"status\": ", f);
        json_str(f, bench_status_name(r->status));
        fputs(", \"note\": ", f);
        json_str(f, r->note);
        fputs(", \"devices\": ", f);
        if (r->devices[0])
            json_str(f, r->devices);
        else
            fputs("null", f);
        fputs(", \"memory\": ", f);
        if (r->memory[0])
            json_str(f, r->memory);
        else
            fputs("null", f);
        fputc('}', f);
    }
    fputs(run->count ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------ */
/* Markdown */

static void md_text(FILE *f, const char *s) { /* a table cell: no '|' or newline */
    for (; *s; ++s) fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){*s, 0}, f);
}

int bench_write_md(FILE *f, const bench_run *run) {
    const bench_meta *m = &run->meta;
    fprintf(f, "**%s** on ", m->tool);
    md_text(f, m->device[0] ? m->device : "unknown device");
    fprintf(f, " (driver %s, CUDA %s, cuBLAS %s), commit `%s`, %s\n\n", m->driver[0] ? m->driver : "?",
            m->cuda_runtime[0] ? m->cuda_runtime : "?", m->cublas[0] ? m->cublas : "?",
            m->git_commit[0] ? m->git_commit : "?", m->timestamp);
    fputs("| op | shape | trans | rung | time (us) | noise | trials | rate | % ref | status |\n"
          "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n", f);
    for (size_t i = 0; i < run->count; ++i) {
        const bench_result *r = &run->results[i];
        char t[32], nz[32], rate[48], ratio[32];
        fmt_num(t, sizeof t, r->time_us, "%.2f");
        fmt_num(nz, sizeof nz, r->noise * 100.0, "%.1f%%");
        if (!isnan(r->noise) && !r->noise_ok) strcat(nz, " (!)");
        if (isnan(r->rate))
            snprintf(rate, sizeof rate, "-");
        else
            snprintf(rate, sizeof rate, "%.1f %s", r->rate, r->unit);
        fmt_num(ratio, sizeof ratio, r->ratio_cublas * 100.0, "%.1f");
        fputs("| ", f);
        md_text(f, r->op);
        fputs(" | ", f);
        md_text(f, r->shape);
        fputs(" | ", f);
        md_text(f, r->trans);
        fputs(" | ", f);
        md_text(f, r->rung);
        if (r->devices[0]) {
            fputs(" [devices ", f);
            md_text(f, r->devices);
            fputs("]", f);
        }
        if (r->memory[0] && strcmp(r->memory, "pageable") != 0) {
            fputs(" [", f);
            md_text(f, r->memory);
            fputs("]", f);
        }
        fprintf(f, " | %s | %s | %d | %s | %s | %s", t, nz, r->trials, rate, ratio,
                bench_status_name(r->status));
        if (r->note[0]) {
            fputs(": ", f);
            md_text(f, r->note);
        }
        fputs(" |\n", f);
    }
    fputs("\nnoise: 1.4826 MAD / median of the trials; (!) the noise target was not met.\n", f);
    return ferror(f) ? -1 : 0;
}

/* ------------------------------------------------------------------------------------ */
/* settings object */

static void settings_add(char *s, size_t size, const char *key, const char *json_value) {
    char k[128];
    size_t len = strlen(s);
    if (len == 0) {
        snprintf(s, size, "{}");
        len = 2;
    }
    if (len < 2 || s[len - 1] != '}') return;
    s[len - 1] = '\0';
    len--;
    snprintf(s + len, size - len, "%s\"%s\": %s}", len > 1 ? ", " : "",
             bench_json_escape(key, k, sizeof k), json_value);
    if (strlen(s) + 1 >= size) { /* truncated: drop the member, keep the object valid */
        s[len] = '\0';
        strcat(s, "}");
    }
}

void bench_settings_num(char *s, size_t size, const char *key, double v) {
    char buf[64];
    if (isnan(v) || isinf(v))
        snprintf(buf, sizeof buf, "null");
    else
        snprintf(buf, sizeof buf, "%.9g", v);
    settings_add(s, size, key, buf);
}

void bench_settings_str(char *s, size_t size, const char *key, const char *v) {
    char buf[512], esc[500];
    snprintf(buf, sizeof buf, "\"%s\"", bench_json_escape(v ? v : "", esc, sizeof esc));
    settings_add(s, size, key, buf);
}
