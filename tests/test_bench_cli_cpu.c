/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU test of the benchmarks' shared command-line code and statistics (perf/cli.c,
 * perf/stats.c, perf/sysinfo.c's nvidia-smi line parser): strict numbers (good and bad
 * values), size lists, the shared options and their errors, output files opened up front,
 * the noise measure and the stopping rule. Linked with perf_common by tests/bench.cmake.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../perf/cli.h"
#include "../perf/stats.h"
#include "../perf/sysinfo.h"
#include "cpu_check.h"

static void test_numbers(void) {
    int64_t v = -1;
    CHECK(cli_parse_i64("0", 0, 10, &v) == 0 && v == 0);
    CHECK(cli_parse_i64("4096", 1, INT64_MAX, &v) == 0 && v == 4096);
    CHECK(cli_parse_i64("2^26", 1, INT64_MAX, &v) == 0 && v == (int64_t)1 << 26);
    CHECK(cli_parse_i64("3^4", 1, INT64_MAX, &v) == 0 && v == 81);
    CHECK(cli_parse_i64("2^62", 1, INT64_MAX, &v) == 0 && v == (int64_t)1 << 62);
    v = 7;
    const char *bad[] = {"", "12x", "x12", "-1", "+3", " 5", "5 ", "1.5", "2^", "^3", "2^64",
                         "2^63", "99999999999999999999", "abc", "0x10", "1e3", "2^2^2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        CHECKF(cli_parse_i64(bad[i], 0, INT64_MAX, &v) == -1 && v == 7, "'%s' accepted", bad[i]);
    CHECK(cli_parse_i64("11", 1, 10, &v) == -1 && v == 7); /* out of range */
    CHECK(cli_parse_i64("0", 1, 10, &v) == -1);
    CHECK(cli_parse_i64(NULL, 1, 10, &v) == -1);

    double d = -1;
    CHECK(cli_parse_double("2.5", 0, 10, &d) == 0 && d == 2.5);
    CHECK(cli_parse_double("1e-3", 0, 10, &d) == 0 && d == 1e-3);
    CHECK(cli_parse_double("-1", -2, 10, &d) == 0 && d == -1);
    d = 9;
    const char *badd[] = {"", "abc", "1.5x", "nan", "inf", "-inf", " 1", "1e999", "--1"};
    for (size_t i = 0; i < sizeof badd / sizeof badd[0]; ++i)
        CHECKF(cli_parse_double(badd[i], -1e300, 1e300, &d) == -1 && d == 9, "'%s' accepted",
               badd[i]);
    CHECK(cli_parse_double("11", 0, 10, &d) == -1 && d == 9);
}

static void test_sizes(void) {
    cli_size s;
    CHECK(cli_parse_size("4096", INT64_MAX, &s) == 0 && s.ndims == 1 && s.v[0] == 4096);
    CHECK(cli_parse_size("8192x128", INT64_MAX, &s) == 0 && s.ndims == 2 && s.v[1] == 128);
    CHECK(cli_parse_size("4097X4095x2^12", INT64_MAX, &s) == 0 && s.ndims == 3 &&
          s.v[0] == 4097 && s.v[1] == 4095 && s.v[2] == 4096);
    const char *bad[] = {"12x", "x12", "1x2x3x4", "0", "4x0", "axb", "", "1xx2", "2^31x1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        CHECKF(cli_parse_size(bad[i], 2147483647, &s) == -1, "'%s' accepted", bad[i]);

    cli_size list[CLI_MAX_ITEMS];
    const char *badi;
    CHECK(cli_parse_size_list("1024,2^20,8192x128x8192", 2147483647, list, &badi) == 3);
    CHECK(list[1].v[0] == 1 << 20 && list[2].ndims == 3);
    CHECK(cli_parse_size_list("1024,12x,4", 2147483647, list, &badi) == -1 && badi &&
          strcmp(badi, "12x") == 0);
    CHECK(cli_parse_size_list("1024,,4", 2147483647, list, &badi) == -1);
    CHECK(cli_parse_size_list("", 2147483647, list, &badi) == -1);
    char longlist[1024] = "1";
    for (int i = 0; i < CLI_MAX_ITEMS; ++i) strcat(longlist, ",1");
    CHECK(cli_parse_size_list(longlist, 2147483647, list, &badi) == -1 && badi == NULL);

    char buf[64], *items[4];
    CHECK(cli_split("a,b,c", buf, sizeof buf, items, 4) == 3 && strcmp(items[2], "c") == 0);
    CHECK(cli_split("a,,c", buf, sizeof buf, items, 4) == -1);
    CHECK(cli_split("a,b,c,d,e", buf, sizeof buf, items, 4) == -1);
}

/* Runs getopt_long over argv with only the shared options, as the tools do. */
static int parse_common(int argc, char **argv, cli_common *c) {
    static const struct option opts[] = {CLI_COMMON_OPTIONS, {0, 0, 0, 0}};
    cli_common_defaults(c);
    optind = 1;
    opterr = 0;
    int id;
    while ((id = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        int rc = cli_common_option(id, optarg, c);
        if (rc != 0) return -1;
    }
    return cli_common_finish(c);
}

static void test_common_options(void) {
    cli_common c;
    char *ok[] = {"x", "--trials", "5", "--max-trials=9", "--max-noise", "0.5", "--max-time",
                  "2", "--min-time-ms", "10", "--json", "a.json", "--csv", "a.csv", "--md",
                  "a.md", "--baseline", "b.json", "--tolerance", "3", "--quick", "--no-progress",
                  NULL};
    CHECK(parse_common(22, ok, &c) == 0);
    CHECK(c.trials == 5 && c.max_trials == 9 && c.max_noise_pct == 0.5 && c.max_time_s == 2);
    CHECK(c.min_time_ms == 10 && c.tolerance_pct == 3 && c.quick && !c.progress);
    CHECK(strcmp(c.json, "a.json") == 0 && strcmp(c.baseline, "b.json") == 0);
    CHECK(CLI_GIVEN(&c, CLI_OPT_TRIALS) && !CLI_GIVEN(&c, CLI_OPT_HELP));
    char *lift[] = {"x", "--trials", "12", NULL}; /* max-trials follows a larger minimum */
    CHECK(parse_common(3, lift, &c) == 0 && c.max_trials == 30);
    char *lift2[] = {"x", "--trials", "40", NULL};
    CHECK(parse_common(3, lift2, &c) == 0 && c.max_trials == 40);

    const char *badvals[][2] = {{"--trials", "0"},      {"--trials", "abc"},
                                {"--trials", "3x"},     {"--max-trials", "-1"},
                                {"--tolerance", "abc"}, {"--tolerance", "-5"},
                                {"--max-noise", "1%"},  {"--max-time", "nan"},
                                {"--min-time-ms", ""}};
    printf("(the error messages below are expected)\n");
    for (size_t i = 0; i < sizeof badvals / sizeof badvals[0]; ++i) {
        char *argv[] = {"x", (char *)badvals[i][0], (char *)badvals[i][1], NULL};
        CHECKF(parse_common(3, argv, &c) == -1, "%s %s accepted", badvals[i][0], badvals[i][1]);
    }
    char *same[] = {"x", "--json", "r.json", "--baseline", "r.json", NULL};
    CHECK(parse_common(5, same, &c) == -1);
    char *twice[] = {"x", "--json", "r.out", "--csv", "r.out", NULL};
    CHECK(parse_common(5, twice, &c) == -1);
}

static void test_outputs(void) {
    cli_common c;
    cli_common_defaults(&c);
    cli_outputs o;
    char dir[] = "/tmp/bench_cli_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char good[128], bad[160];
    snprintf(good, sizeof good, "%s/r.json", dir);
    snprintf(bad, sizeof bad, "%s/no/such/dir/r.csv", dir);
    c.json = good;
    c.csv = bad;
    CHECK(cli_open_outputs(&c, &o) == -1); /* fails before anything is measured */
    CHECK(o.json == NULL && o.csv == NULL);
    c.csv = NULL;
    CHECK(cli_open_outputs(&c, &o) == 0 && o.json != NULL);
    fputs("{}\n", o.json);
    CHECK(cli_close_outputs(&c, &o) == 0);
    CHECK(access(good, R_OK) == 0);
    unlink(good);
    rmdir(dir);
}

static void test_stats(void) {
    double v[] = {10, 10.1, 9.9, 10.05, 9.95, 30}; /* one outlier */
    bench_stats s;
    stats_compute(v, 6, 0.02, &s);
    CHECK(s.trials == 6 && s.min == 9.9 && s.max == 30);
    CHECK(fabs(s.median - 10.025) < 1e-12);
    /* MAD of |v - 10.025| = {.025,.075,.125,.025,.075,19.975} -> median .075 */
    CHECKF(fabs(s.noise - 1.4826 * 0.075 / 10.025) < 1e-12, "noise %g", s.noise);
    CHECK(s.noise_ok); /* the outlier does not count */
    CHECK(v[5] == 30 && v[0] == 10); /* input untouched */
    stats_compute(v, 1, 0.02, &s);
    CHECK(s.trials == 1 && s.median == 10 && isnan(s.noise) && !s.noise_ok);
    stats_compute(v, 0, 0.02, &s);
    CHECK(s.trials == 0 && isnan(s.median));

    stop_rule r = {3, 10, 0.01, 1.0};
    double quiet[10] = {1, 1.001, 0.999, 1, 1, 1, 1, 1, 1, 1};
    double loud[10] = {1, 1.2, 0.8, 1.1, 0.9, 1.3, 0.7, 1.15, 0.85, 1.0};
    CHECK(!stop_done(&r, quiet, 2, 0.0));  /* fewer than the minimum */
    CHECK(stop_done(&r, quiet, 3, 0.0));   /* minimum reached, quiet */
    CHECK(!stop_done(&r, loud, 3, 0.0));   /* noisy: go on */
    CHECK(!stop_done(&r, loud, 9, 0.5));
    CHECK(stop_done(&r, loud, 10, 0.5));   /* the trial limit */
    CHECK(stop_done(&r, loud, 5, 1.0));    /* the time limit */
    CHECK(!stop_done(&r, loud, 2, 5.0));   /* the minimum wins over the time limit */
}

static void test_gpu_line(void) {
    bench_gpu_state g;
    CHECK(sysinfo_parse_gpu_line("1980, 2619, 1980, 2619, 312.45, 700.00, 41, "
                                 "0x0000000000000004, Active\n", &g) == 0);
    CHECK(g.valid && g.sm_mhz == 1980 && g.max_mem_mhz == 2619 && g.power_limit_w == 700);
    CHECK(g.sw_power_cap == 1 && strcmp(g.reasons, "0x0000000000000004") == 0);
    CHECK(sysinfo_parse_gpu_line("1755, 2619, 1980, 2619, [N/A], 700.00, 41, 0x0, Not Active",
                                 &g) == 0);
    CHECK(isnan(g.power_w) && g.sw_power_cap == 0);
    CHECK(sysinfo_parse_gpu_line("No devices were found", &g) == -1);
}

int main(void) {
    cli_tool = "test_bench_cli_cpu";
    test_numbers();
    test_sizes();
    test_common_options();
    test_outputs();
    test_stats();
    test_gpu_line();
    return cpu_check_report("test_bench_cli_cpu");
}
