/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The layer's configuration: the one place that reads the environment. Two tables:
 *
 *   g_settings  the user-facing variables (CPU BLAS, GPU on/off, devices, the crossovers,
 *               verbose, pointer check), MINIBLAS_CBLAS_TUNING, and one for tests only;
 *   g_tuning    the keys of MINIBLAS_CBLAS_TUNING="key=value,...": the GPU gemm schedule and
 *               the staging, for experts (docs/cblas-internals.md explains each).
 *
 * Read once at initialisation (mbc_init). A value that is not a number, out of range, or an
 * unknown tuning key is one line on stderr, whatever the verbosity, and the default stays.
 * Settings the layer no longer reads are named too, with what replaces them.
 *
 * The crossovers' defaults: measured with `miniblas-cblas-bench --crossover` (docs/cblas.md):
 * the forced GPU path on pageable host pointers against OpenBLAS alone, the smallest size
 * where the GPU won on the H100 and H200 machines, with a margin. gemm: the GPU wins from
 * n = 160 (sgemm, square); 256^3 keeps a margin, and min(m, n, k) >= 256 keeps thin products
 * on the CPU. asum and dot count bytes (n for the float routine, 2n for the double one):
 * OpenBLAS streams host memory at 10-25 GB/s, so staging through pinned buffers wins once the
 * vectors are large: asum from 64 MB, dot from 32 MB per vector. omatcopy from 512 x 512.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_internal.h"

mbc_config mbc_cfg;

const char *mbc_getenv(const char *name) { return getenv(name); }

void mbc_notice(const char *fmt, ...) {
    if (mbc_cfg.verbose < 1) return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "miniblas_cblas: %s\n", line);
}

/* ------------------------------------------------------------------ value parsers */

/* A whole decimal integer in [lo, hi]. */
static int parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out) {
    char *end;
    if (!((v[0] >= '0' && v[0] <= '9') || v[0] == '-' || v[0] == '+')) return -1;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (*end || errno || x < lo || x > hi) return -1;
    *out = (int64_t)x;
    return 0;
}

static int parse_bool(const char *v, int64_t *out) {
    static const char *const off[] = {"0", "off", "no", "false"}, *const on[] = {"1", "on", "yes", "true"};
    for (int i = 0; i < 4; ++i) {
        if (!strcmp(v, off[i])) return *out = 0, 0;
        if (!strcmp(v, on[i])) return *out = 1, 0;
    }
    return -1;
}

/* "all", or a comma list of device indices. */
static int parse_devices(const char *v, mbc_config *cfg) {
    if (!strcmp(v, "all")) {
        cfg->all_devices = 1, cfg->ndevices = 0, cfg->device = 0;
        return 0;
    }
    int n = 0, list[MBC_MAX_DEVICES];
    for (const char *p = v;;) {
        char item[24];
        size_t len = strcspn(p, ",");
        int64_t d;
        if (len == 0 || len >= sizeof item || n == MBC_MAX_DEVICES) return -1;
        memcpy(item, p, len);
        item[len] = '\0';
        if (parse_int(item, 0, 4095, &d)) return -1;
        list[n++] = (int)d;
        if (!p[len]) break;
        p += len + 1;
    }
    cfg->all_devices = 0, cfg->ndevices = n, cfg->device = list[0];
    memcpy(cfg->devices, list, sizeof(int) * (size_t)n);
    return 0;
}

/* ------------------------------------------------------------------ the tables */

typedef enum {
    V_STRING,  /* copied as given */
    V_BOOL,    /* 0/1, off/on, no/yes, false/true */
    V_INT,     /* an integer in [lo, hi] */
    V_INT_AT,  /* an integer in [lo, hi], optionally @P: a device of the list (test_fail_dev) */
    V_SIZE,    /* a crossover: an integer >= 0, or never/off (MBC_NEVER) */
    V_AUTO,    /* an integer in [lo, hi], auto (auto_value) or off (0) */
    V_DEVICES, /* all, or a comma list of indices */
    V_TUNING   /* key=value,... (g_tuning) */
} value_type;

typedef struct setting {
    const char *name;  /* the variable, or the tuning key */
    value_type type;
    size_t offset;     /* of the field in mbc_config (int or int64_t, by `wide`) */
    int wide;
    int64_t lo, hi, auto_value;
    const char *values; /* what is accepted, for the message */
} setting;

#define F32(f) offsetof(mbc_config, f), 0
#define F64(f) offsetof(mbc_config, f), 1
#define XO(x) offsetof(mbc_config, xover) + (x) * sizeof(int64_t), 1

/* The user-facing settings, in the order they are read (MINIBLAS_CBLAS_MIN_GEMM sets both
 * gemm crossovers before the per-type ones may override them; MINIBLAS_CBLAS_DEVICE is the
 * alias of MINIBLAS_CBLAS_DEVICES, which wins when both are set). */
static const setting g_settings[] = {
    {"MINIBLAS_CPU_BLAS_LIB", V_STRING, offsetof(mbc_config, cpu_blas_lib), 0, 0, 0, 0, "a library name or path"},
    {"MINIBLAS_CBLAS_GPU", V_BOOL, F32(gpu_enabled), 0, 1, 0, "0 or 1"},
    {"MINIBLAS_CBLAS_DEVICE", V_DEVICES, 0, 0, 0, 0, 0, "all, or device indices separated by commas"},
    {"MINIBLAS_CBLAS_DEVICES", V_DEVICES, 0, 0, 0, 0, 0, "all, or device indices separated by commas"},
    {"MINIBLAS_CBLAS_MIN_GEMM", V_SIZE, 0, 0, 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_MIN_SGEMM", V_SIZE, XO(MBC_X_SGEMM), 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_MIN_DGEMM", V_SIZE, XO(MBC_X_DGEMM), 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_MIN_GEMM_DIM", V_SIZE, XO(MBC_X_GEMM_DIM), 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_MIN_ASUM", V_SIZE, XO(MBC_X_ASUM), 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_MIN_DOT", V_SIZE, XO(MBC_X_DOT), 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_MIN_OMATCOPY", V_SIZE, XO(MBC_X_OMATCOPY), 0, 0, 0, "an integer >= 0, or never"},
    {"MINIBLAS_CBLAS_VERBOSE", V_INT, F32(verbose), 0, 3, 0, "0, 1, 2 or 3"},
    {"MINIBLAS_CBLAS_PTR_CHECK", V_BOOL, F32(ptr_check), 0, 1, 0, "0 or 1"},
    {"MINIBLAS_CBLAS_TUNING", V_TUNING, 0, 0, 0, 0, 0, "key=value,..."},
    /* tests only: a staged gemm fails after this many GPU gemms (tests/test_cblas_faults_gpu.c) */
    /* N@P: only on the P-th device of the list (tests/test_cblas_multigpu.c) */
    {"MINIBLAS_CBLAS_TEST_FAIL_GEMM", V_INT_AT, F64(test_fail_gemm), 0, INT64_MAX, 0, "an integer >= 0, or N@P"},
    /* tests only: a reduction on pinned vectors fails after this many pieces on a device */
    {"MINIBLAS_CBLAS_TEST_FAIL_REDUCE", V_INT_AT, F64(test_fail_reduce), 0, INT64_MAX, 0, "an integer >= 0, or N@P"},
};

/* The keys of MINIBLAS_CBLAS_TUNING. */
static const setting g_tuning[] = {
    {"panel", V_AUTO, F64(panel), 1, (int64_t)1 << 31, 0, "auto or a width in columns"},
    {"kslab", V_AUTO, F64(kslab), 1, (int64_t)1 << 31, -1, "auto, off or a depth"},
    {"nslab", V_INT, F64(nslab), 1, 64, 0, "1 to 64"},
    {"chunk_mb", V_INT, F64(chunk_max), 1, 4096, 0, "1 to 4096"},
    {"copy_threads", V_INT, F32(copy_threads), 1, 1024, 0, "1 to 1024"},
    {"pin_row_kb", V_AUTO, F64(pin_row_kb), 1, 1 << 20, -1, "auto, off or a length in KB"},
    {"row_gemm_k", V_AUTO, F64(row_gemm_k), 1, (int64_t)1 << 40, -1, "auto, off or a size in K elements"},
    {"head_rows", V_AUTO, F64(head_rows), 1, 1, -1, "auto, off or 1"},
    {"row_out", V_AUTO, F64(row_out), 1, 1, -1, "auto, off or 1"},
    {"split_cols", V_AUTO, F64(split_cols), 1, (int64_t)1 << 31, -1, "auto or a width in columns"},
    {"split_vec", V_AUTO, F64(split_vec), 1, INT64_MAX, -1, "auto or a length in elements"},
    {"a_parts", V_AUTO, F64(a_parts), 1, 1, -1, "auto or off"},
};

/* Variables of the schedule that are now keys of MINIBLAS_CBLAS_TUNING or gone. */
static const struct {
    const char *name, *instead;
} g_retired[] = {
    {"MINIBLAS_CBLAS_PANEL", "MINIBLAS_CBLAS_TUNING=panel=N"},
    {"MINIBLAS_CBLAS_KSLAB", "MINIBLAS_CBLAS_TUNING=kslab=N"},
    {"MINIBLAS_CBLAS_NSLAB", "MINIBLAS_CBLAS_TUNING=nslab=N"},
    {"MINIBLAS_CBLAS_CHUNK_MB", "MINIBLAS_CBLAS_TUNING=chunk_mb=N"},
    {"MINIBLAS_CBLAS_COPY_THREADS", "MINIBLAS_CBLAS_TUNING=copy_threads=N"},
    {"MINIBLAS_CBLAS_TAPER", "nothing: the last gemm panels always taper"},
    {"MINIBLAS_CBLAS_ABLOCKS", "nothing: A always goes across in 4 row blocks"},
    {"MINIBLAS_CBLAS_EAGER_OUT", "nothing: finished pieces of C are always unpacked early"},
    {"MINIBLAS_CBLAS_STREAM_STORES", "nothing: the staging copies use memcpy"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void store(mbc_config *cfg, const setting *s, int64_t v) {
    char *f = (char *)cfg + s->offset;
    if (s->wide) {
        int64_t x = v;
        memcpy(f, &x, sizeof x);
    } else {
        int x = (int)v;
        memcpy(f, &x, sizeof x);
    }
}

static int bad(FILE *err, const char *name, const char *value, const char *values) {
    if (err)
        fprintf(err, "miniblas_cblas: ignoring %s=%s (expected %s); using the default\n", name,
                value, values);
    return 1;
}

static int read_tuning(mbc_config *cfg, const char *v, FILE *err) {
    int lines = 0;
    for (const char *p = v; *p;) {
        size_t len = strcspn(p, ",");
        char item[128];
        if (len >= sizeof item) len = sizeof item - 1;
        memcpy(item, p, len);
        item[len] = '\0';
        p += strcspn(p, ",");
        if (*p) ++p;
        if (!item[0]) continue;
        char *eq = strchr(item, '=');
        const setting *s = NULL;
        if (eq) {
            *eq = '\0';
            for (size_t i = 0; i < COUNT(g_tuning); ++i)
                if (!strcmp(item, g_tuning[i].name)) s = &g_tuning[i];
        }
        if (!s) {
            if (err) {
                fprintf(err, "miniblas_cblas: MINIBLAS_CBLAS_TUNING: ignoring '%s%s%s' (keys:",
                        item, eq ? "=" : "", eq ? eq + 1 : "");
                for (size_t i = 0; i < COUNT(g_tuning); ++i)
                    fprintf(err, "%s %s", i ? "," : "", g_tuning[i].name);
                fprintf(err, "; e.g. panel=2048,chunk_mb=16)\n");
            }
            ++lines;
            continue;
        }
        const char *val = eq + 1;
        int64_t x = 0;
        int rc = 0;
        if (s->type == V_AUTO && !strcmp(val, "auto"))
            x = s->auto_value;
        else if (s->type == V_AUTO && !strcmp(val, "0")) /* panel: automatic; kslab: off */
            x = 0;
        else if (s->type == V_AUTO && s->auto_value < 0 && !strcmp(val, "off"))
            x = 0;
        else
            rc = parse_int(val, s->lo, s->hi, &x);
        if (rc) {
            char name[160];
            snprintf(name, sizeof name, "MINIBLAS_CBLAS_TUNING key %s", s->name);
            lines += bad(err, name, val, s->values);
            continue;
        }
        if (s->offset == offsetof(mbc_config, chunk_max)) /* chunk_mb: stored in bytes */
            cfg->chunk_max = (size_t)x << 20;
        else
            store(cfg, s, x);
    }
    return lines;
}

/* 16 copy threads per GPU of the call (one GPU's staging rate needs 8-16; on two H100s a
 * pageable 16384 gemm split over both took 13-15% less time with 32 than with 16, while one
 * GPU's dgemm took 6% more with 32: perf/results/h100x2/copythreads/), at most 32 (the most
 * measured) and at most every core: the copy pool does not wait for descheduled threads. */
int mbc_copy_threads_auto(long ncpu, int ngpu) {
    long t = 16L * (ngpu > 1 ? ngpu : 1);
    if (t > 32) t = 32;
    if (t > ncpu) t = ncpu;
    return t > 0 ? (int)t : 1;
}

int mbc_config_read(mbc_config *cfg, const char *(*get)(const char *name), long ncpu, FILE *err) {
    static const int64_t xover[MBC_X_COUNT] = {
        [MBC_X_SGEMM] = (int64_t)256 * 256 * 256,
        [MBC_X_DGEMM] = (int64_t)256 * 256 * 256,
        [MBC_X_GEMM_DIM] = 256,
        [MBC_X_ASUM] = (int64_t)1 << 24,
        [MBC_X_DOT] = (int64_t)1 << 23,
        [MBC_X_OMATCOPY] = (int64_t)512 * 512,
    };
    memset(cfg, 0, sizeof *cfg);
    cfg->gpu_enabled = 1;
    cfg->ptr_check = 1;
    memcpy(cfg->xover, xover, sizeof xover);
    cfg->panel = 0;   /* automatic: n/8, at least 2M elements of C */
    cfg->kslab = -1;  /* automatic */
    cfg->nslab = 4;
    cfg->split_cols = -1; /* automatic: mgpu_plan.h */
    cfg->split_vec = -1;  /* automatic: mgpu_plan.h */
    /* 16 MB: a block of an operand is DMA'd piece by piece while the rest is packed */
    cfg->chunk_max = (size_t)16 << 20;
    cfg->copy_threads = 0; /* automatic: mbc_copy_threads_auto, once the GPUs are known */
    cfg->pin_row_kb = -1; /* automatic: mbc_pin_pack */
    cfg->row_gemm_k = -1; /* automatic: MBC_ROW_GEMM_K */
    cfg->a_parts = -1;    /* automatic: pinned A in parts over a split's devices */
    cfg->head_rows = -1;  /* automatic: on (the head panels by row block x panel gemms) */
    cfg->row_out = -1;    /* automatic: on (pinned C with beta 0 back by row blocks) */
    cfg->test_fail_gemm = -1;
    cfg->test_fail_dev = -1;
    cfg->test_fail_reduce = -1;
    cfg->test_fail_reduce_dev = -1;

    int lines = 0;
    for (size_t i = 0; i < COUNT(g_settings); ++i) {
        const setting *s = &g_settings[i];
        const char *v = get(s->name);
        if (!v || !v[0]) continue;
        if (s->type == V_DEVICES && !strcmp(s->name, "MINIBLAS_CBLAS_DEVICE")) {
            const char *list = get("MINIBLAS_CBLAS_DEVICES");
            if (list && list[0]) continue; /* the alias gives way */
        }
        int64_t x = 0;
        int rc = 0;
        switch (s->type) {
        case V_STRING:
            snprintf(cfg->cpu_blas_lib, sizeof cfg->cpu_blas_lib, "%s", v);
            if (strlen(v) >= sizeof cfg->cpu_blas_lib) rc = -1, cfg->cpu_blas_lib[0] = '\0';
            break;
        case V_BOOL: rc = parse_bool(v, &x); break;
        case V_INT: rc = parse_int(v, s->lo, s->hi, &x); break;
        case V_INT_AT: {
            char n[32];
            size_t len = strcspn(v, "@");
            int64_t p = -1;
            rc = len >= sizeof n ? -1 : 0;
            if (!rc) memcpy(n, v, len), n[len] = '\0';
            if (!rc && v[len]) rc = parse_int(v + len + 1, 0, MBC_MAX_DEVICES - 1, &p);
            if (!rc) rc = parse_int(n, s->lo, s->hi, &x);
            if (!rc && s->offset == offsetof(mbc_config, test_fail_reduce))
                cfg->test_fail_reduce_dev = (int)p;
            else if (!rc)
                cfg->test_fail_dev = (int)p;
            break;
        }
        case V_SIZE:
            if (!strcmp(v, "never") || !strcmp(v, "off")) x = MBC_NEVER;
            else rc = parse_int(v, 0, INT64_MAX, &x);
            break;
        case V_DEVICES: rc = parse_devices(v, cfg); break;
        case V_TUNING: lines += read_tuning(cfg, v, err); break;
        case V_AUTO: break;
        }
        if (rc) {
            lines += bad(err, s->name, v, s->type == V_STRING ? "a name shorter than 512 bytes" : s->values);
            continue;
        }
        if (!strcmp(s->name, "MINIBLAS_CBLAS_MIN_GEMM")) /* both gemm crossovers */
            cfg->xover[MBC_X_SGEMM] = cfg->xover[MBC_X_DGEMM] = x;
        else if (s->type == V_BOOL || s->type == V_INT || s->type == V_INT_AT || s->type == V_SIZE)
            store(cfg, s, x);
    }
    for (size_t i = 0; i < COUNT(g_retired); ++i) {
        const char *v = get(g_retired[i].name);
        if (!v) continue;
        if (err)
            fprintf(err, "miniblas_cblas: ignoring %s=%s: no longer read (instead: %s)\n",
                    g_retired[i].name, v, g_retired[i].instead);
        ++lines;
    }
    cfg->ncpu = ncpu;
    cfg->copy_threads_auto = cfg->copy_threads == 0;
    if (cfg->copy_threads_auto) cfg->copy_threads = mbc_copy_threads_auto(ncpu, 1);
    return lines;
}
