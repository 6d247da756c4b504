/*
 * CPU test of the benchmark's reporting (perf/bench_report.c): JSON written and read back
 * unchanged (special characters in the device name included), baseline comparison flags
 * exactly the row that got slower beyond the tolerance, CSV quoting. Linked with
 * perf/bench_report.c by tests/bench.cmake.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../perf/bench_report.h"
#include "cpu_check.h"



static const char *kDevice = "NVIDIA \"H200\" \\ tab\there\nnewline \x01 caf\xc3\xa9, {x}";

static void make_run(bench_run *run) {
    bench_run_init(run);
    snprintf(run->meta.device, sizeof run->meta.device, "%s", kDevice);
    snprintf(run->meta.driver, sizeof run->meta.driver, "580.65.06");
    snprintf(run->meta.cuda_driver, sizeof run->meta.cuda_driver, "13.0");
    snprintf(run->meta.cuda_runtime, sizeof run->meta.cuda_runtime, "13.0");
    snprintf(run->meta.cublas, sizeof run->meta.cublas, "13.0.0");
    snprintf(run->meta.git_commit, sizeof run->meta.git_commit, "abc1234");
    snprintf(run->meta.timestamp, sizeof run->meta.timestamp, "2025-01-01T00:00:00Z");
    snprintf(run->meta.command, sizeof run->meta.command, "miniblas-bench --op sgemm,sasum");
    run->meta.copy_gbs = 4274.5;
    run->meta.read_gbs = 4463.25;
    run->meta.fp32_peak_gflops = 66908.16;
    /* fp64 peak stays NaN: must come back as NaN (written as null) */

    bench_result r;
    bench_result_init(&r);
    snprintf(r.op, sizeof r.op, "sgemm");
    snprintf(r.shape, sizeof r.shape, "4096x4096x4096");
    snprintf(r.trans, sizeof r.trans, "NN");
    snprintf(r.rung, sizeof r.rung, "tiled");
    snprintf(r.unit, sizeof r.unit, "GFLOP/s");
    snprintf(r.note, sizeof r.note, "note with, comma and \"quotes\"");
    r.m = r.n = r.k = 4096;
    r.time_us = 2800.5;
    r.rate = 2.0 * 4096.0 * 4096.0 * 4096.0 / (r.time_us * 1e3);
    r.ratio_cublas = 0.91;
    r.fraction_ceiling = 0.74;
    bench_run_add(run, &r);

    bench_result_init(&r);
    snprintf(r.op, sizeof r.op, "sasum");
    snprintf(r.shape, sizeof r.shape, "268435456");
    snprintf(r.trans, sizeof r.trans, "-");
    snprintf(r.rung, sizeof r.rung, "naive");
    snprintf(r.unit, sizeof r.unit, "GB/s");
    r.inc = 1;
    r.m = 268435456;
    r.time_us = 30000.0;
    r.rate = 268435456.0 * 4 / (r.time_us * 1e3);
    r.ratio_cublas = 0.08;
    r.fraction_ceiling = 0.008;
    bench_run_add(run, &r);
}

static int same_num(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return fabs(a - b) <= 1e-8 * fabs(b);
}

static void test_roundtrip(const char *path, bench_run *orig) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(bench_write_json(f, orig) == 0);
    fclose(f);

    bench_run back;
    char err[256];
    int rc = bench_read_json_file(path, &back, err, sizeof err);
    if (rc != 0) fprintf(stderr, "read: %s\n", err);
    CHECK(rc == 0);
    if (rc != 0) return;
    CHECK(strcmp(back.meta.device, kDevice) == 0);
    CHECK(strcmp(back.meta.driver, "580.65.06") == 0);
    CHECK(strcmp(back.meta.git_commit, "abc1234") == 0);
    CHECK(strcmp(back.meta.command, orig->meta.command) == 0);
    CHECK(same_num(back.meta.copy_gbs, 4274.5));
    CHECK(same_num(back.meta.read_gbs, 4463.25));
    CHECK(isnan(back.meta.fp64_peak_gflops));
    CHECK(back.count == orig->count);
    for (size_t i = 0; i < back.count && i < orig->count; ++i) {
        const bench_result *a = &back.results[i], *b = &orig->results[i];
        CHECK(strcmp(a->op, b->op) == 0);
        CHECK(strcmp(a->shape, b->shape) == 0);
        CHECK(strcmp(a->trans, b->trans) == 0);
        CHECK(strcmp(a->rung, b->rung) == 0);
        CHECK(strcmp(a->unit, b->unit) == 0);
        CHECK(strcmp(a->note, b->note) == 0);
        CHECK(a->inc == b->inc && a->m == b->m && a->n == b->n && a->k == b->k);
        CHECK(same_num(a->time_us, b->time_us));
        CHECK(same_num(a->rate, b->rate));
        CHECK(same_num(a->ratio_cublas, b->ratio_cublas));
        CHECK(same_num(a->fraction_ceiling, b->fraction_ceiling));
        CHECK(a->status == b->status);
    }
    bench_run_free(&back);
}

static void test_compare(bench_run *base) {
    bench_run cur;
    bench_run_init(&cur);
    cur.meta = base->meta;
    for (size_t i = 0; i < base->count; ++i) bench_run_add(&cur, &base->results[i]);
    cur.results[1].time_us *= 1.10; /* the sasum row: 10% slower */
    cur.results[1].rate /= 1.10;

    size_t matched = 0;
    FILE *devnull = fopen("/dev/null", "w");
    CHECK(bench_compare(base, &cur, 5.0, devnull, &matched) == 1);
    CHECK(matched == 2);
    CHECK(bench_compare(base, &cur, 20.0, devnull, &matched) == 0);
    CHECK(bench_compare(base, base, 0.0, devnull, NULL) == 0);
    /* faster is never a regression */
    CHECK(bench_compare(&cur, base, 5.0, devnull, NULL) == 0);
    /* a row that was right and is wrong now is a regression at any tolerance */
    cur.results[0].status = BENCH_WRONG;
    cur.results[0].time_us = NAN;
    CHECK(bench_compare(base, &cur, 1000.0, devnull, NULL) == 1);
    /* cuBLAS rows are reported but never counted */
    snprintf(cur.results[1].rung, sizeof cur.results[1].rung, "cublas");
    bench_run b2;
    bench_run_init(&b2);
    for (size_t i = 0; i < base->count; ++i) bench_run_add(&b2, &base->results[i]);
    snprintf(b2.results[1].rung, sizeof b2.results[1].rung, "cublas");
    cur.results[0].status = BENCH_OK;
    cur.results[0].time_us = base->results[0].time_us;
    CHECK(bench_compare(&b2, &cur, 5.0, devnull, &matched) == 0 && matched == 2);
    /* rows are matched on inc too */
    cur.results[1].inc = 2;
    CHECK(bench_compare(&b2, &cur, 5.0, devnull, &matched) == 0 && matched == 1);
    if (devnull) fclose(devnull);
    bench_run_free(&b2);
    bench_run_free(&cur);
}

static void test_parser_errors(void) {
    bench_run run;
    char err[256];
    CHECK(bench_read_json("", &run, err, sizeof err) != 0);
    CHECK(bench_read_json("{\"results\": [", &run, err, sizeof err) != 0);
    CHECK(bench_read_json("{\"results\": []} x", &run, err, sizeof err) != 0);
    CHECK(bench_read_json("{\"device\": \"a\"}", &run, err, sizeof err) != 0);
    CHECK(bench_read_json("{\"device\": \"bad \\q\", \"results\": []}", &run, err, sizeof err) != 0);
    int rc = bench_read_json("{\"device\": \"\\u00e9\\ud83d\\ude00\", \"results\": []}", &run, err,
                             sizeof err);
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK(strcmp(run.meta.device, "\xc3\xa9\xf0\x9f\x98\x80") == 0);
        CHECK(run.count == 0);
        bench_run_free(&run);
    }
    /* a row without status: `correct: false` reads as WRONG */
    rc = bench_read_json("{\"results\": [{\"op\": \"sdot\", \"rung\": \"naive\", \"correct\": "
                         "false, \"time_us\": null}]}",
                         &run, err, sizeof err);
    CHECK(rc == 0 && run.count == 1);
    if (rc == 0) {
        CHECK(run.results[0].status == BENCH_WRONG && isnan(run.results[0].time_us));
        bench_run_free(&run);
    }
}

static void test_csv(const char *path, bench_run *run) {
    FILE *f = fopen(path, "w+");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(bench_write_csv(f, run) == 0);
    rewind(f);
    char line[1024];
    int lines = 0, quoted = 0;
    while (fgets(line, sizeof line, f)) {
        lines++;
        if (strstr(line, "\"note with, comma and \"\"quotes\"\"\"")) quoted++;
    }
    fclose(f);
    CHECK(lines == 3);
    CHECK(quoted == 1);
}

static void test_escape(void) {
    char out[64];
    CHECK(strcmp(bench_json_escape("a\"b\\c\n\x1f", out, sizeof out), "a\\\"b\\\\c\\n\\u001f") == 0);
    /* truncation never cuts an escape in half */
    CHECK(strcmp(bench_json_escape("abc\"", out, 5), "abc") == 0);
}

int main(void) {
    char json_path[] = "/tmp/test_bench_report_XXXXXX";
    int fd = mkstemp(json_path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    close(fd);
    bench_run run;
    make_run(&run);
    test_roundtrip(json_path, &run);
    test_compare(&run);
    test_parser_errors();
    test_csv(json_path, &run);
    test_escape();
    bench_run_free(&run);
    remove(json_path);
    return cpu_check_report("bench_report");
}
