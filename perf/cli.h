/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command-line conventions shared by miniblas-bench and miniblas-cblas-bench (pure C, no
 * CUDA, unit-tested on the CPU by tests/test_bench_cli_cpu.c):
 *   - strict numbers: the whole value must parse ("12x", "abc", "" and out-of-range values are
 *     errors); counts may be written 2^k;
 *   - sizes: N, RxC or MxNxK items in comma-separated lists;
 *   - errors name the tool, the option and the bad value, on stderr;
 *   - --version prints the tool and the project version;
 *   - the options both tools share (names, values, defaults) are parsed here, so they are
 *     spelled and checked the same way in both;
 *   - output files are opened before the first measurement.
 */
#ifndef MINIBLAS_PERF_CLI_H
#define MINIBLAS_PERF_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef MINIBLAS_VERSION_STRING
#define MINIBLAS_VERSION_STRING "unknown"
#endif

/* The program name used in messages ("miniblas-bench"); set once by main. */
extern const char *cli_tool;

/* "<tool>: <message>\n" on stderr. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* "<tool> (miniblas <version>)\n" on f. */
void cli_print_version(FILE *f);

/* After getopt_long returned c (':' for a missing value, else an unknown option): says which
 * on stderr and returns -1. */
int cli_getopt_failed(int c, char **argv);
/* -1 (said on stderr) when operands follow the options: the tools take none. */
int cli_no_operands(int argc, char **argv);

/* A non-negative integer, optionally a^b (2^26); the whole string must parse and the value
 * must lie in [lo, hi]. 0 on success, -1 otherwise (*out untouched). */
int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
/* A finite decimal number (strtod syntax) in [lo, hi]; whole string. 0 or -1. */
int cli_parse_double(const char *s, double lo, double hi, double *out);

#define CLI_MAX_ITEMS 64

/* One --sizes item: 1, 2 or 3 dimensions, each >= 1 and <= hi of the list parser. */
typedef struct cli_size {
    int ndims;
    int64_t v[3];
} cli_size;

int cli_parse_size(const char *s, int64_t hi, cli_size *out);
/* A comma-separated list of sizes; at most CLI_MAX_ITEMS. Returns the count (>= 1) or -1;
 * on error *bad gets the offending item (a static buffer), or NULL when the list is too long
 * or empty. */
int cli_parse_size_list(const char *s, int64_t hi, cli_size *out, const char **bad);

/* Splits a comma-separated list into names (into a private copy); returns the count or -1
 * when there are more than max or an item is empty. */
int cli_split(const char *s, char *buf, size_t bufsize, char **items, int max);

/* The options both tools share. The measured options (trials and the stopping rule) have
 * tool-specific defaults set by the caller before parsing. */
typedef struct cli_common {
    const char *csv, *json, *md, *baseline;
    double tolerance_pct; /* --tolerance: added to the measured noise by the comparison */
    int trials;           /* --trials: the minimum number of trials of a measurement */
    int max_trials;       /* --max-trials: stop there even if the noise target is not met */
    double max_noise_pct; /* --max-noise: the target relative spread (robust, in percent) */
    double max_time_s;    /* --max-time: stop after this much trial time per measurement */
    double min_time_ms;   /* --min-time-ms: a trial repeats calls until it lasts this long */
    int quick;            /* --quick */
    int progress;         /* 1 (default), 0 with --no-progress */
    int help, version;
    unsigned given;       /* bit (id - CLI_OPT_CSV) for each shared option given */
} cli_common;
#define CLI_GIVEN(c, id) (((c)->given >> ((id) - CLI_OPT_CSV)) & 1u)

void cli_common_defaults(cli_common *c);

/* getopt_long ids of the shared options (above any short-option character). */
enum {
    CLI_OPT_CSV = 1000,
    CLI_OPT_JSON,
    CLI_OPT_MD,
    CLI_OPT_BASELINE,
    CLI_OPT_TOLERANCE,
    CLI_OPT_TRIALS,
    CLI_OPT_MAX_TRIALS,
    CLI_OPT_MAX_NOISE,
    CLI_OPT_MAX_TIME,
    CLI_OPT_MIN_TIME_MS,
    CLI_OPT_QUICK,
    CLI_OPT_NO_PROGRESS,
    CLI_OPT_HELP,
    CLI_OPT_VERSION,
    CLI_OPT_TOOL_BASE = 1100 /* a tool's own options start here */
};

/* The shared entries of a getopt_long table (put them first, end the table with {0}). */
#define CLI_COMMON_OPTIONS                                                                       \
    {"csv", required_argument, 0, CLI_OPT_CSV}, {"json", required_argument, 0, CLI_OPT_JSON},    \
        {"md", required_argument, 0, CLI_OPT_MD},                                                \
        {"baseline", required_argument, 0, CLI_OPT_BASELINE},                                    \
        {"tolerance", required_argument, 0, CLI_OPT_TOLERANCE},                                  \
        {"trials", required_argument, 0, CLI_OPT_TRIALS},                                        \
        {"max-trials", required_argument, 0, CLI_OPT_MAX_TRIALS},                                \
        {"max-noise", required_argument, 0, CLI_OPT_MAX_NOISE},                                  \
        {"max-time", required_argument, 0, CLI_OPT_MAX_TIME},                                    \
        {"min-time-ms", required_argument, 0, CLI_OPT_MIN_TIME_MS},                              \
        {"quick", no_argument, 0, CLI_OPT_QUICK},                                                \
        {"no-progress", no_argument, 0, CLI_OPT_NO_PROGRESS},                                    \
        {"help", no_argument, 0, CLI_OPT_HELP}, {"version", no_argument, 0, CLI_OPT_VERSION}

/* The usage lines of the shared options (for --help). */
void cli_common_usage(FILE *f, const cli_common *defaults);

/* Handles one shared option: 0 handled, -1 bad value (message printed), 1 not a shared id. */
int cli_common_option(int id, const char *arg, cli_common *c);
/* Checks the combination after parsing (max_trials >= trials, ...): 0 or -1 (printed). */
int cli_common_finish(cli_common *c);

/* The message for an unknown option or a missing value, from getopt's '?' / ':' return. */
void cli_bad_option(char **argv, int optind_after);

/* Output files, opened before anything is measured so a bad path costs nothing. */
typedef struct cli_outputs {
    FILE *csv, *json, *md;
} cli_outputs;
/* Opens each named file for writing; on failure prints "<tool>: cannot write F: reason",
 * closes what it opened and returns -1. */
int cli_open_outputs(const cli_common *c, cli_outputs *out);
/* Closes them; returns -1 (message printed) if a write failed (disk full ...). */
int cli_close_outputs(const cli_common *c, cli_outputs *out);

/* Runs the comparison tool (perf/compare.py, found by cli_compare_script) on two result files:
 * python3 compare.py BASELINE CURRENT --tolerance PCT. Returns its exit status (0 same or
 * faster, 3 a row SLOW, 2 unusable files), or -1 when it could not be run. */
int cli_run_compare(const char *baseline, const char *current, double tolerance_pct);
/* The compare script: $MINIBLAS_COMPARE, else compare.py next to the executable, else the
 * source tree's perf/compare.py (MINIBLAS_PERF_SOURCE_DIR); NULL if none exists or python3
 * is not on the PATH. */
const char *cli_compare_script(void);

/* A progress line on stderr: "[i/N] what (elapsed, ~left)". The estimate of the time left is
 * the mean time per finished item times the items left. */
typedef struct cli_progress {
    int enabled, done, total;
    double t0;
} cli_progress;
void cli_progress_start(cli_progress *p, int total, int enabled);
void cli_progress_step(cli_progress *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Formats seconds as "42 s", "3.5 min" or "1.2 h". */
void cli_fmt_duration(char *buf, size_t size, double s);
double cli_now(void); /* monotonic seconds */

#ifdef __cplusplus
}
#endif
#endif
