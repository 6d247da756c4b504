/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared command-line conventions of the two benchmarks (see cli.h). */
#define _GNU_SOURCE
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef MINIBLAS_PERF_SOURCE_DIR
#define MINIBLAS_PERF_SOURCE_DIR ""
#endif

extern char **environ;

const char *cli_tool = "miniblas-bench";

void cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", cli_tool);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

int cli_getopt_failed(int c, char **argv) {
    if (c == ':')
        cli_error("option '%s' needs a value (see --help)", argv[optind - 1]);
    else
        cli_error("unknown option '%s' (see --help)", argv[optind - 1]);
    return -1;
}

int cli_no_operands(int argc, char **argv) {
    if (optind >= argc) return 0;
    cli_error("unexpected argument '%s' (see --help)", argv[optind]);
    return -1;
}

void cli_print_version(FILE *f) { fprintf(f, "%s (miniblas %s)\n", cli_tool, MINIBLAS_VERSION_STRING); }

static int parse_u64_plain(const char *s, const char **end, uint64_t *out) {
    if (!isdigit((unsigned char)*s)) return -1;
    uint64_t v = 0;
    for (; isdigit((unsigned char)*s); ++s) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *end = s;
    *out = v;
    return 0;
}

int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    if (!s) return -1;
    const char *end;
    uint64_t a;
    if (parse_u64_plain(s, &end, &a) != 0) return -1;
    if (*end == '^') {
        uint64_t b, p = 1;
        if (parse_u64_plain(end + 1, &end, &b) != 0 || b > 63) return -1;
        for (uint64_t i = 0; i < b; ++i) {
            if (a != 0 && p > (uint64_t)INT64_MAX / a) return -1;
            p *= a;
        }
        a = p;
    }
    if (*end || a > (uint64_t)INT64_MAX) return -1;
    if ((int64_t)a < lo || (int64_t)a > hi) return -1;
    *out = (int64_t)a;
    return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out) {
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_parse_size(const char *s, int64_t hi, cli_size *out) {
    char buf[128];
    if (!s || strlen(s) >= sizeof buf) return -1;
    snprintf(buf, sizeof buf, "%s", s);
    cli_size it = {0, {0, 0, 0}};
    char *p = buf;
    for (;;) {
        char *x = p + strcspn(p, "xX");
        int last = *x == '\0';
        *x = '\0';
        if (it.ndims == 3 || cli_parse_i64(p, 1, hi, &it.v[it.ndims]) != 0) return -1;
        it.ndims++;
        if (last) break;
        p = x + 1;
    }
    *out = it;
    return 0;
}

int cli_split(const char *s, char *buf, size_t bufsize, char **items, int max) {
    if (!s || strlen(s) >= bufsize) return -1;
    snprintf(buf, bufsize, "%s", s);
    int n = 0;
    char *p = buf;
    for (;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (!*p || n == max) return -1;
        items[n++] = p;
        if (!c) break;
        p = c + 1;
    }
    return n;
}

int cli_parse_size_list(const char *s, int64_t hi, cli_size *out, const char **bad) {
    static char badbuf[128];
    char buf[4096];
    char *items[CLI_MAX_ITEMS + 1];
    *bad = NULL;
    int n = cli_split(s, buf, sizeof buf, items, CLI_MAX_ITEMS + 1);
    if (n < 0) { /* an empty item, or too many */
        return -1;
    }
    if (n > CLI_MAX_ITEMS) return -1;
    for (int i = 0; i < n; ++i)
        if (cli_parse_size(items[i], hi, &out[i]) != 0) {
            snprintf(badbuf, sizeof badbuf, "%s", items[i]);
            *bad = badbuf;
            return -1;
        }
    return n;
}

void cli_common_defaults(cli_common *c) {
    memset(c, 0, sizeof *c);
    c->tolerance_pct = 5.0;
    c->trials = 7;
    c->max_trials = 30;
    c->max_noise_pct = 1.0;
    c->max_time_s = 1.0;
    c->min_time_ms = 20.0;
    c->progress = 1;
}

void cli_common_usage(FILE *f, const cli_common *d) {
    fprintf(f,
"Measurement (a trial is back-to-back calls lasting --min-time-ms; trials continue until the\n"
"relative spread is at most --max-noise, or --max-trials, or --max-time of trials):\n"
"  --trials N         minimum trials per measurement (default %d)\n"
"  --max-trials N     at most N trials (default %d; = --trials gives a fixed count)\n"
"  --max-noise PCT    target spread: 1.4826 MAD / median in percent (default %g)\n"
"  --max-time S       stop adding trials after S seconds of trials (default %g)\n"
"  --min-time-ms MS   minimum duration of one trial (default %g)\n"
"  --quick            a smoke run: small sizes, few trials\n"
"Output (files are opened before anything is measured):\n"
"  --csv FILE         one line per row\n"
"  --json FILE        the result file: header (schema, tool, device, versions, clocks,\n"
"                     settings) and rows with their noise; read by perf/compare.py, plot.py\n"
"  --md FILE          a Markdown table for a pull-request comment\n"
"  --baseline FILE    compare with an earlier --json by perf/compare.py: SAME/FAST/SLOW per\n"
"                     row against both runs' noise plus --tolerance; exit status 3 on SLOW\n"
"  --tolerance PCT    added to the noise allowance of the comparison (default %g)\n"
"  --no-progress      no progress lines on stderr\n"
"  --help, --version\n",
            d->trials, d->max_trials, d->max_noise_pct, d->max_time_s, d->min_time_ms,
            d->tolerance_pct);
}

static int bad_value(const char *opt, const char *arg, const char *want) {
    cli_error("bad value '%s' for --%s (%s)", arg ? arg : "", opt, want);
    return -1;
}

int cli_common_option(int id, const char *arg, cli_common *c) {
    int64_t v;
    double d;
    if (id >= CLI_OPT_CSV && id <= CLI_OPT_VERSION) c->given |= 1u << (id - CLI_OPT_CSV);
    switch (id) {
    case CLI_OPT_CSV: c->csv = arg; return 0;
    case CLI_OPT_JSON: c->json = arg; return 0;
    case CLI_OPT_MD: c->md = arg; return 0;
    case CLI_OPT_BASELINE: c->baseline = arg; return 0;
    case CLI_OPT_TOLERANCE:
        if (cli_parse_double(arg, 0, 1000, &d)) return bad_value("tolerance", arg, "percent, 0..1000");
        c->tolerance_pct = d;
        return 0;
    case CLI_OPT_TRIALS:
        if (cli_parse_i64(arg, 1, 1000, &v)) return bad_value("trials", arg, "an integer 1..1000");
        c->trials = (int)v;
        return 0;
    case CLI_OPT_MAX_TRIALS:
        if (cli_parse_i64(arg, 1, 1000, &v)) return bad_value("max-trials", arg, "an integer 1..1000");
        c->max_trials = (int)v;
        return 0;
    case CLI_OPT_MAX_NOISE:
        if (cli_parse_double(arg, 0, 100, &d)) return bad_value("max-noise", arg, "percent, 0..100");
        c->max_noise_pct = d;
        return 0;
    case CLI_OPT_MAX_TIME:
        if (cli_parse_double(arg, 0, 3600, &d)) return bad_value("max-time", arg, "seconds, 0..3600");
        c->max_time_s = d;
        return 0;
    case CLI_OPT_MIN_TIME_MS:
        if (cli_parse_double(arg, 0, 60000, &d)) return bad_value("min-time-ms", arg, "ms, 0..60000");
        c->min_time_ms = d;
        return 0;
    case CLI_OPT_QUICK: c->quick = 1; return 0;
    case CLI_OPT_NO_PROGRESS: c->progress = 0; return 0;
    case CLI_OPT_HELP: c->help = 1; return 0;
    case CLI_OPT_VERSION: c->version = 1; return 0;
    default: return 1;
    }
}

int cli_common_finish(cli_common *c) {
    if (c->max_trials < c->trials) c->max_trials = c->trials;
    const char *names[4] = {c->csv, c->json, c->md, c->baseline};
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (names[i] && names[j] && strcmp(names[i], names[j]) == 0) {
                cli_error("'%s' is named for two outputs", names[i]);
                return -1;
            }
    if (c->baseline && c->json && strcmp(c->baseline, c->json) == 0) {
        cli_error("--json '%s' would overwrite the --baseline file", c->json);
        return -1;
    }
    return 0;
}

void cli_bad_option(char **argv, int optind_after) {
    const char *a = argv[optind_after - 1];
    cli_error("bad option or missing value near '%s' (see --help)", a ? a : "");
}

static int open_one(const char *path, FILE **f) {
    *f = NULL;
    if (!path) return 0;
    *f = fopen(path, "w");
    if (!*f) {
        cli_error("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int cli_open_outputs(const cli_common *c, cli_outputs *out) {
    memset(out, 0, sizeof *out);
    if (open_one(c->csv, &out->csv) || open_one(c->json, &out->json) || open_one(c->md, &out->md)) {
        cli_close_outputs(c, out);
        return -1;
    }
    return 0;
}

int cli_close_outputs(const cli_common *c, cli_outputs *out) {
    int rc = 0;
    FILE **fs[3] = {&out->csv, &out->json, &out->md};
    const char *names[3] = {c->csv, c->json, c->md};
    for (int i = 0; i < 3; ++i) {
        if (!*fs[i]) continue;
        if (ferror(*fs[i]) | fclose(*fs[i])) {
            cli_error("error writing %s", names[i]);
            rc = -1;
        }
        *fs[i] = NULL;
    }
    return rc;
}

static int is_file(const char *p) {
    struct stat st;
    return p && *p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int python_found(void) {
    const char *path = getenv("PATH");
    char buf[4096];
    if (!path) return 0;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/python3", (int)n, p);
        if (n && access(buf, X_OK) == 0) return 1;
        p += n;
        if (*p) ++p;
    }
    return 0;
}

const char *cli_compare_script(void) {
    if (!python_found()) return NULL;
    static char path[4096];
    const char *env = getenv("MINIBLAS_COMPARE");
    if (is_file(env)) return env;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n > 0) {
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        if (slash) {
            strcpy(slash + 1, "compare.py");
            if (is_file(path)) return path;
        }
    }
    snprintf(path, sizeof path, "%s/compare.py", MINIBLAS_PERF_SOURCE_DIR);
    if (MINIBLAS_PERF_SOURCE_DIR[0] && is_file(path)) return path;
    return NULL;
}

int cli_run_compare(const char *baseline, const char *current, double tolerance_pct) {
    const char *script = cli_compare_script();
    if (!script) {
        cli_error("cannot find perf/compare.py (set MINIBLAS_COMPARE to its path)");
        return -1;
    }
    char tol[32];
    snprintf(tol, sizeof tol, "%g", tolerance_pct);
    char *argv[] = {"python3", (char *)script, (char *)baseline, (char *)current,
                    "--tolerance", tol, NULL};
    fflush(stdout);
    fflush(stderr);
    pid_t pid;
    int rc = posix_spawnp(&pid, "python3", NULL, NULL, argv, environ);
    if (rc != 0) {
        cli_error("cannot run python3 %s: %s", script, strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (!WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

double cli_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_fmt_duration(char *buf, size_t size, double s) {
    if (!(s >= 0)) snprintf(buf, size, "?");
    else if (s < 90) snprintf(buf, size, "%.0f s", s);
    else if (s < 5400) snprintf(buf, size, "%.1f min", s / 60);
    else snprintf(buf, size, "%.1f h", s / 3600);
}

void cli_progress_start(cli_progress *p, int total, int enabled) {
    p->enabled = enabled;
    p->done = 0;
    p->total = total;
    p->t0 = cli_now();
}

void cli_progress_step(cli_progress *p, const char *fmt, ...) {
    p->done++;
    if (!p->enabled) return;
    double el = cli_now() - p->t0;
    char e[32], l[32] = "";
    cli_fmt_duration(e, sizeof e, el);
    if (p->done > 1 && p->total >= p->done) {
        char t[24];
        cli_fmt_duration(t, sizeof t, el / (p->done - 1) * (p->total - p->done + 1));
        snprintf(l, sizeof l, ", ~%s left", t);
    }
    if (p->total > 0)
        fprintf(stderr, "[%d/%d] ", p->done, p->total);
    else
        fprintf(stderr, "[%d] ", p->done);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (%s%s)\n", e, l);
}
