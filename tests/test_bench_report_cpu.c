/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU test of the benchmarks' writers (perf/bench_report.c): CSV quoting and columns,
 * Markdown escaping, the settings builder, and the JSON result file. With an argument it
 * writes the JSON result file there, for tests/bench_schema_check.py (the ctest
 * bench_json_schema), which loads it with Python's json module and validates every field.
 * Linked with perf_common by tests/bench.cmake.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../perf/bench_report.h"
#include "cpu_check.h"

/* Every character class the escaper must handle, in the device name. */
static const char *kDevice = "NVIDIA \"H200\" \\ tab\there\nnewline \x01 caf\xc3\xa9, {x}";

static void make_run(bench_run *run) {
    bench_run_init(run);
    bench_meta *m = &run->meta;
    snprintf(m->tool, sizeof m->tool, "miniblas-bench");
    snprintf(m->version, sizeof m->version, "0.1.0");
    snprintf(m->device, sizeof m->device, "%s", kDevice);
    snprintf(m->driver, sizeof m->driver, "580.65.06");
    snprintf(m->cuda_driver, sizeof m->cuda_driver, "13.0");
    snprintf(m->cuda_runtime, sizeof m->cuda_runtime, "13.0");
    snprintf(m->cublas, sizeof m->cublas, "13.0.0");
    /* openblas stays "": must be written as null */
    snprintf(m->git_commit, sizeof m->git_commit, "abc1234");
    snprintf(m->timestamp, sizeof m->timestamp, "2025-01-01T00:00:00Z");
    snprintf(m->command, sizeof m->command, "miniblas-bench --ops sgemm,sasum");
    bench_settings_num(m->settings, sizeof m->settings, "trials", 7);
    bench_settings_num(m->settings, sizeof m->settings, "max_noise_pct", 1.0);
    bench_settings_str(m->settings, sizeof m->settings, "MINIBLAS_SGEMM", "na\"ive");
    m->gpu_start.valid = 1;
    m->gpu_start.sm_mhz = 1980;
    m->gpu_start.max_sm_mhz = 1980;
    m->gpu_start.power_limit_w = 700;
    m->gpu_start.sw_power_cap = 0;
    snprintf(m->gpu_start.reasons, sizeof m->gpu_start.reasons, "0x0000000000000000");
    /* gpu_end stays invalid: written as null */
    m->copy_gbs = 4274.5;
    m->read_gbs = 4463.25;
    m->fp32_peak_gflops = 66908.16;
    /* fp64 peak stays NaN: written as null */

    bench_result r;
    bench_result_init(&r);
    snprintf(r.op, sizeof r.op, "sgemm");
    snprintf(r.shape, sizeof r.shape, "4096x4096x4096");
    snprintf(r.trans, sizeof r.trans, "NN");
    snprintf(r.rung, sizeof r.rung, "cublas");
    snprintf(r.unit, sizeof r.unit, "GFLOP/s");
    r.reference = 1;
    r.m = r.n = r.k = 4096;
    r.time_us = 2700.0;
    r.min_us = 2690.0;
    r.max_us = 2750.0;
    r.noise = 0.004;
    r.trials = 7;
    r.noise_ok = 1;
    r.rate = 2.0 * 4096.0 * 4096.0 * 4096.0 / (r.time_us * 1e3);
    r.ratio_cublas = 1.0;
    r.fraction_ceiling = 0.76;
    bench_run_add(run, &r);

    snprintf(r.rung, sizeof r.rung, "tiled");
    snprintf(r.note, sizeof r.note, "note with, comma | pipe and \"quotes\"");
    r.reference = 0;
    r.time_us = 2800.5;
    r.max_us = 2900.0;
    r.noise = 0.03;
    r.trials = 30;
    r.noise_ok = 0;
    r.rate = 2.0 * 4096.0 * 4096.0 * 4096.0 / (r.time_us * 1e3);
    r.ratio_cublas = 0.96;
    bench_run_add(run, &r);

    bench_result_init(&r);
    snprintf(r.op, sizeof r.op, "sasum");
    snprintf(r.shape, sizeof r.shape, "268435456");
    snprintf(r.trans, sizeof r.trans, "-");
    snprintf(r.rung, sizeof r.rung, "naive");
    snprintf(r.unit, sizeof r.unit, "GB/s");
    snprintf(r.note, sizeof r.note, "ours 1, cuBLAS 2");
    r.inc = 1;
    r.m = 268435456;
    r.status = BENCH_WRONG; /* not timed: every time is null */
    bench_run_add(run, &r);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_csv(const char *path, bench_run *run) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(bench_write_csv(f, run) == 0);
    fclose(f);
    char *t = slurp(path);
    CHECK(t != NULL);
    if (!t) return;
    const char *head = "op,shape,trans,inc,rung,reference,m,n,k,time_us,min_us,max_us,noise,"
                       "trials,noise_ok,rate,unit,ratio_cublas,fraction_ceiling,status,note,devices,memory\n";
    CHECK(strncmp(t, head, strlen(head)) == 0);
    CHECK(strstr(t, "\"note with, comma | pipe and \"\"quotes\"\"\"") != NULL);
    CHECK(strstr(t, "sgemm,4096x4096x4096,NN,0,cublas,1,4096,4096,4096,2700,2690,2750,0.004,7,1,") != NULL);
    CHECK(strstr(t, "sasum,268435456,-,1,naive,0,268435456,0,0,,,,,0,0,,GB/s,,,wrong,") != NULL);
}

static void test_md(const char *path, bench_run *run) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(bench_write_md(f, run) == 0);
    fclose(f);
    char *t = slurp(path);
    CHECK(t != NULL);
    if (!t) return;
    CHECK(strstr(t, "| op | shape | trans | rung | time (us) | noise |") != NULL);
    CHECK(strstr(t, "comma \\| pipe") != NULL); /* a '|' in a cell is escaped */
    CHECK(strstr(t, "| 3.0% (!) | 30 |") != NULL); /* the noise target missed is marked */
    int lines = 0;
    for (char *p = t; *p; ++p) lines += *p == '\n';
    CHECK(lines == 1 + 1 + 2 + 3 + 2); /* header, blank, table head, rows, blank + legend */
}

static void test_settings(void) {
    char s[64] = "";
    bench_settings_num(s, sizeof s, "a", 1.5);
    CHECK(strcmp(s, "{\"a\": 1.5}") == 0);
    bench_settings_str(s, sizeof s, "b", "x\"y");
    CHECK(strcmp(s, "{\"a\": 1.5, \"b\": \"x\\\"y\"}") == 0);
    bench_settings_num(s, sizeof s, "c", NAN);
    CHECK(strcmp(s, "{\"a\": 1.5, \"b\": \"x\\\"y\", \"c\": null}") == 0);
    /* a member that does not fit is dropped; the object stays valid */
    bench_settings_str(s, sizeof s, "long", "0123456789012345678901234567890123456789");
    CHECK(strcmp(s, "{\"a\": 1.5, \"b\": \"x\\\"y\", \"c\": null}") == 0);
}

int main(int argc, char **argv) {
    bench_run run;
    make_run(&run);
    char dir[] = "/tmp/bench_report_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char csv[128], md[128], json[128];
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(md, sizeof md, "%s/r.md", dir);
    snprintf(json, sizeof json, "%s/r.json", dir);
    test_csv(csv, &run);
    test_md(md, &run);
    test_settings();
    const char *jpath = argc > 1 ? argv[1] : json;
    FILE *f = fopen(jpath, "w");
    CHECK(f != NULL);
    if (f) {
        CHECK(bench_write_json(f, &run) == 0);
        fclose(f);
        char *t = slurp(jpath);
        CHECK(t && strstr(t, "\"schema_version\": 2") != NULL);
        CHECK(t && strstr(t, "\"openblas\": null") != NULL);
        CHECK(t && strstr(t, "\"gpu_end\": null") != NULL);
    }
    unlink(csv);
    unlink(md);
    unlink(json);
    rmdir(dir);
    bench_run_free(&run);
    return cpu_check_report("test_bench_report_cpu");
}
