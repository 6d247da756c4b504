/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-cblas-bench's command line: getopt_long, with the options shared with
 * miniblas-bench (trials and the stopping rule, --csv/--json/--md/--baseline, --help,
 * --version) from cli.c.
 */
#include "mcb.h"

#include <getopt.h>

void usage(FILE *f) {
    cli_common d;
    cli_common_defaults(&d);
    d.trials = 5;
    d.max_trials = 5;
    d.max_time_s = 8;
    fprintf(f,
        "usage: miniblas-cblas-bench [options]\n"
        "The cblas drop-in layer (libminiblas_cblas) on host pointers against OpenBLAS alone, the\n"
        "plain cuBLAS offload and the kernels, in one process (docs/benchmarking.md).\n"
        "\n"
        "What to run:\n"
        "  --ops LIST         sgemm,dgemm,sasum,dasum,sdot,ddot,somatcopy,domatcopy or groups\n"
        "                     gemm, asum, dot, omatcopy, all (default all)\n"
        "  --sizes LIST       square gemm (and omatcopy) sizes (default 16,32,...,8192; omatcopy\n"
        "                     8,16,...,8192); 2^k accepted\n"
        "  --gemm-sizes LIST, --omat-sizes LIST\n"
        "                     the sizes of gemm or omatcopy only\n"
        "  --vec-sizes LIST   asum/dot lengths (default 2^4,2^5,...,2^28)\n"
        "  --layouts LIST     gemm layouts: row,col (default both)\n"
        "  --impls LIST       implementations to time: openblas,mbc,mbc_gpu,plain,cublasxt\n"
        "                     (default all but cublasxt; without openblas and plain, gemm results\n"
        "                     are not verified). cublasxt: gemm only, cublasXtSgemm/Dgemm on the\n"
        "                     host operands over the GPUs of the row (--devices), one row per\n"
        "                     --xt-blocks value (rung cublasxt_<block>; the fastest is marked)\n"
        "  --xt-blocks LIST   cublasXt block dimensions, e.g. 1024,2048,4096,8192 (default 4096)\n"
        "  --devices LIST     time the layer on each of these GPU sets, each in a child process\n"
        "                     of its own with MINIBLAS_CBLAS_DEVICES set (the layer reads it once\n"
        "                     per process): entries separated by commas, an entry N = the first N\n"
        "                     GPUs (0..N-1), an entry dI+J+... = GPUs I, J, ... (e.g. 1,2 or\n"
        "                     d1,d0+1); each row records its set (devices); default: one process,\n"
        "                     MINIBLAS_CBLAS_DEVICES as found\n"
        "  --memory LIST      host operands: pageable (malloc), pinned (cudaMallocHost) or both\n"
        "                     (default pageable); each row records it (memory)\n"
        "  --trials-short N   OpenBLAS's and the layer's trials where a call takes <= 20 us\n"
        "                     (default 21; never fewer than --trials)\n"
        "  --max-seconds S    skip OpenBLAS where one call is predicted (from the previous size)\n"
        "                     to take longer (default 30)\n"
        "  --budget S         = --max-time: seconds of trials per implementation and row; fewer\n"
        "                     trials where calls are slow, at least 1 (default 8)\n"
        "  --settle-ms X      pause between trials of calls taking >= 1 ms (default 10)\n"
        "  --settle-cpu-ms X  the pause instead, before every trial of a row that runs the CPU\n"
        "                     BLAS, whose threads spin for a while after each call (default 200)\n"
        "  --alpha A --beta B gemm scalars (default 1, 0); omatcopy uses alpha\n"
        "  --crossover        measure the crossovers and print the suggested MINIBLAS_CBLAS_MIN_*\n"
        "                     values (square gemm 64..2048, thin gemm at --thin, asum/dot over\n"
        "                     --vec-sizes, omatcopy 256..8192; --sizes overrides the square ones)\n"
        "  --thin N           the large dimensions of the thin crossover sweeps (default 4096)\n"
        "  --no-kernels       skip the kernel-only timings\n"
        "  --no-probe         skip the bandwidth probe (then no gemm bounds)\n"
        "  --probe-mb N       probe buffer size (default 1024)\n"
        "  --csv-wide FILE    the table as CSV, one line per op and size (probe figures as #)\n"
        "  --lib PATH         libminiblas_cblas to load (default: $MINIBLAS_CBLAS_LIB, else\n"
        "                     libminiblas_cblas.so.0 next to this program, in ../lib or in the\n"
        "                     build tree's ../src/cblas, else through the dynamic loader's path)\n"
        "  --cpu-lib PATH     the CPU BLAS (default $MINIBLAS_CPU_BLAS_LIB, else libopenblas.so.0,\n"
        "                     else %s); the layer is told to use the same one\n"
        "  --seed N           random inputs\n"
        "  --dry-run-cpu      check the harness without a GPU: OpenBLAS against the layer's\n"
        "                     CPU path only (no plain offload, cublasxt, pinned memory, kernels,\n"
        "                     probe; mbc_gpu falls back to the CPU); --devices still runs one\n"
        "                     child per entry; the times mean nothing about the GPU\n"
        "\n", MCB_CPU_BLAS[0] ? MCB_CPU_BLAS : "(none found at configure time)");
    cli_common_usage(f, &d);
    fprintf(f, "\n"
        "Rows of --csv/--json/--md: one per implementation (openblas, mbc, mbc_gpu, plain,\n"
        "cublasxt_<block>, kern_mb, kern_cublas; gemm also bound_pinned, bound_host) and host\n"
        "memory, with the GPU set (devices); openblas, plain, cublasxt_*, kern_cublas and the\n"
        "bounds are reference rows. By default\n"
        "--max-trials equals the trial count (a fixed count); a larger value adds trials to a\n"
        "noisy implementation, within --budget.\n"
        "Exit status: 0 ok, 1 a WRONG result or a failed call, 2 usage / no CUDA device /\n"
        "cannot load a library, 3 a row SLOW against --baseline.\n");
}

int parse_size(const char *s, int64_t *v) { return cli_parse_i64(s, 1, (int64_t)1 << 40, v); }

static int parse_list(const char *opt, const char *arg, int64_t *out, int *n) {
    cli_size it[CLI_MAX_ITEMS];
    const char *bad;
    int k = cli_parse_size_list(arg, (int64_t)1 << 40, it, &bad);
    for (int i = 0; i < k; ++i)
        if (it[i].ndims != 1) {
            bad = arg;
            k = -1;
        }
    if (k < 0) {
        cli_error("bad --%s '%s' (comma-separated sizes N, 2^k allowed, at most %d)", opt,
                  bad ? bad : arg, MAXSZ);
        return -1;
    }
    for (int i = 0; i < k; ++i) out[i] = it[i].v[0];
    *n = k;
    return 0;
}

static int parse_ops(const char *arg, unsigned *ops) {
    char buf[512], *items[32];
    int n = cli_split(arg, buf, sizeof buf, items, 32);
    *ops = 0;
    for (int t = 0; t < n; ++t) {
        int hit = 0;
        for (int o = 0; o < NOPS; ++o) {
            const char *nm = OPS[o].name;
            if (!strcmp(items[t], "all") || !strcmp(items[t], nm) || !strcmp(items[t], nm + 1))
                *ops |= 1u << o, hit = 1;
        }
        if (!hit) {
            cli_error("unknown op '%s' in --ops (sgemm, dgemm, sasum, dasum, sdot, ddot, "
                      "somatcopy, domatcopy, gemm, asum, dot, omatcopy, all)", items[t]);
            return -1;
        }
    }
    if (n < 0) cli_error("bad --ops '%s'", arg);
    return n > 0 ? 0 : -1;
}

static int parse_impls(const char *arg, unsigned *impls) {
    char buf[256], *items[8];
    int n = cli_split(arg, buf, sizeof buf, items, 8);
    *impls = 0;
    O.want_xt = 0;
    for (int t = 0; t < n; ++t) {
        if (!strcmp(items[t], "cublasxt")) {
            O.want_xt = 1;
            continue;
        }
        int i = 0;
        while (i < I_XT0 && strcmp(items[t], IMPL_NAME[i]) != 0) ++i;
        if (i == I_XT0) {
            cli_error("unknown implementation '%s' in --impls (openblas, mbc, mbc_gpu, plain, "
                      "cublasxt)", items[t]);
            return -1;
        }
        *impls |= 1u << i;
    }
    if (n < 0) cli_error("bad --impls '%s'", arg);
    return *impls || O.want_xt ? 0 : -1;
}

/* --devices: "N" (the first N GPUs) or "dI+J+..." (those GPUs), comma-separated. */
static int parse_devset(const char *e, int *list, int *n) {
    int64_t v;
    *n = 0;
    if (e[0] != 'd') {
        if (cli_parse_i64(e, 1, MAXDEV, &v)) return -1;
        for (int i = 0; i < (int)v; ++i) list[(*n)++] = i;
        return 0;
    }
    char buf[64];
    if (snprintf(buf, sizeof buf, "%s", e + 1) >= (int)sizeof buf) return -1;
    char *save = NULL;
    const char *last = buf + strlen(buf);
    if (!buf[0] || buf[0] == '+' || last[-1] == '+' || strstr(buf, "++")) return -1;
    for (char *t = strtok_r(buf, "+", &save); t; t = strtok_r(NULL, "+", &save)) {
        if (*n >= MAXDEV || cli_parse_i64(t, 0, MAXDEV - 1, &v)) return -1;
        for (int i = 0; i < *n; ++i)
            if (list[i] == (int)v) return -1; /* a GPU twice */
        list[(*n)++] = (int)v;
    }
    return *n > 0 ? 0 : -1;
}

static int parse_devices(const char *arg) {
    char buf[512], *items[MAXDS + 1];
    int n = cli_split(arg, buf, sizeof buf, items, MAXDS + 1), list[MAXDEV], nl;
    if (n <= 0 || n > MAXDS) {
        cli_error("bad --devices '%s' (at most %d entries: N, the first N GPUs, or dI+J+..., "
                  "those GPUs; e.g. 1,2 or d1,d0+1)", arg, MAXDS);
        return -1;
    }
    for (int t = 0; t < n; ++t) {
        if (parse_devset(items[t], list, &nl)) {
            cli_error("bad entry '%s' in --devices (N, the first N GPUs, 1..%d; or dI+J+..., "
                      "distinct GPU numbers 0..%d; e.g. 1,2 or d1,d0+1)", items[t], MAXDEV,
                      MAXDEV - 1);
            return -1;
        }
        snprintf(O.devsets[t], sizeof O.devsets[t], "%s", items[t]);
    }
    O.ndevsets = n;
    return 0;
}

/* The device set as MINIBLAS_CBLAS_DEVICES writes it ("0,1") into O.devices and O.devlist. */
int devset_resolve(const char *entry) {
    if (parse_devset(entry, O.devlist, &O.ndev)) {
        O.ndev = 0;
        return -1;
    }
    size_t l = 0;
    O.devices[0] = '\0';
    for (int i = 0; i < O.ndev; ++i)
        l += (size_t)snprintf(O.devices + l, sizeof O.devices - l, "%s%d", i ? "," : "",
                              O.devlist[i]);
    return 0;
}

static void set_pow2(int64_t *v, int *n, int lo, int hi, int step) {
    *n = 0;
    for (int e = lo; e <= hi && *n < MAXSZ; e += step) v[(*n)++] = (int64_t)1 << e;
}

enum {
    OPT_OPS = CLI_OPT_TOOL_BASE, OPT_SIZES, OPT_GEMM_SIZES, OPT_OMAT_SIZES, OPT_VEC_SIZES,
    OPT_LAYOUTS, OPT_IMPLS, OPT_TRIALS_SHORT, OPT_MAX_SECONDS, OPT_SETTLE, OPT_SETTLE_CPU,
    OPT_ALPHA, OPT_BETA, OPT_CROSSOVER, OPT_THIN, OPT_NO_KERNELS, OPT_NO_PROBE, OPT_PROBE_MB,
    OPT_CSV_WIDE, OPT_LIB, OPT_CPU_LIB, OPT_SEED, OPT_DRY, OPT_DEVICES, OPT_MEMORY, OPT_XT_BLOCKS,
    OPT_DEVICES_CHILD, OPT_ROWS_OUT
};

static const struct option LONG_OPTS[] = {
    CLI_COMMON_OPTIONS,
    {"ops", required_argument, 0, OPT_OPS},
    {"op", required_argument, 0, OPT_OPS},
    {"sizes", required_argument, 0, OPT_SIZES},
    {"gemm-sizes", required_argument, 0, OPT_GEMM_SIZES},
    {"omat-sizes", required_argument, 0, OPT_OMAT_SIZES},
    {"vec-sizes", required_argument, 0, OPT_VEC_SIZES},
    {"layouts", required_argument, 0, OPT_LAYOUTS},
    {"impls", required_argument, 0, OPT_IMPLS},
    {"trials-short", required_argument, 0, OPT_TRIALS_SHORT},
    {"max-seconds", required_argument, 0, OPT_MAX_SECONDS},
    {"budget", required_argument, 0, CLI_OPT_MAX_TIME},
    {"settle-ms", required_argument, 0, OPT_SETTLE},
    {"settle-cpu-ms", required_argument, 0, OPT_SETTLE_CPU},
    {"alpha", required_argument, 0, OPT_ALPHA},
    {"beta", required_argument, 0, OPT_BETA},
    {"crossover", no_argument, 0, OPT_CROSSOVER},
    {"thin", required_argument, 0, OPT_THIN},
    {"no-kernels", no_argument, 0, OPT_NO_KERNELS},
    {"no-probe", no_argument, 0, OPT_NO_PROBE},
    {"probe-mb", required_argument, 0, OPT_PROBE_MB},
    {"csv-wide", required_argument, 0, OPT_CSV_WIDE},
    {"lib", required_argument, 0, OPT_LIB},
    {"cpu-lib", required_argument, 0, OPT_CPU_LIB},
    {"seed", required_argument, 0, OPT_SEED},
    {"dry-run-cpu", no_argument, 0, OPT_DRY},
    {"devices", required_argument, 0, OPT_DEVICES},
    {"memory", required_argument, 0, OPT_MEMORY},
    {"xt-blocks", required_argument, 0, OPT_XT_BLOCKS},
    {"devices-child", required_argument, 0, OPT_DEVICES_CHILD}, /* internal (--devices) */
    {"rows-out", required_argument, 0, OPT_ROWS_OUT},           /* internal (--devices) */
    {0, 0, 0, 0}};

static int bad(const char *opt, const char *arg, const char *want) {
    cli_error("bad value '%s' for --%s (%s)", arg, opt, want);
    return -1;
}

int parse_args(int argc, char **argv) {
    memset(&O, 0, sizeof O);
    cli_common *cm = &O.com;
    cli_common_defaults(cm);
    cm->trials = 5;
    cm->max_time_s = 8;
    O.ops = (1u << NOPS) - 1;
    O.impls = (1u << I_XT0) - 1; /* cublasxt only when named */
    O.layouts[0] = CblasRowMajor, O.layouts[1] = CblasColMajor, O.nlayouts = 2;
    O.trials_short = 21, O.max_seconds = 30, O.settle = 0.010, O.settle_cpu = 0.200;
    O.alpha = 1, O.beta = 0;
    O.probe = 1, O.kernels = 1, O.thin = 4096, O.probe_bytes = (int64_t)1 << 30, O.seed = 12345;
    O.mem[0] = 0, O.nmem = 1;
    O.xt_blocks[0] = 4096, O.nxt = 1;
    int ts = 0, tg = 0, to = 0, tv = 0, tsh = 0, tm = 0;
    int64_t v;
    double d;
    int id;
    opterr = 0;
    optind = 1;
    while ((id = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        if (id == 'h') id = CLI_OPT_HELP;
        int rc = cli_common_option(id, optarg, cm);
        if (rc < 0) return -1;
        if (rc == 0) continue;
        const char *a = optarg;
        switch (id) {
        case OPT_OPS:
            if (parse_ops(a, &O.ops)) return -1;
            break;
        case OPT_SIZES:
            if (parse_list("sizes", a, O.sizes, &O.nsizes)) return -1;
            ts = 1;
            break;
        case OPT_GEMM_SIZES:
            if (parse_list("gemm-sizes", a, O.sizes, &O.nsizes)) return -1;
            tg = 1;
            break;
        case OPT_OMAT_SIZES:
            if (parse_list("omat-sizes", a, O.omsizes, &O.nomsizes)) return -1;
            to = 1;
            break;
        case OPT_VEC_SIZES:
            if (parse_list("vec-sizes", a, O.vsizes, &O.nvsizes)) return -1;
            tv = 1;
            break;
        case OPT_LAYOUTS: {
            char buf[64], *items[2];
            int n = cli_split(a, buf, sizeof buf, items, 2);
            O.nlayouts = 0;
            for (int i = 0; i < n; ++i) {
                if (!strcmp(items[i], "row")) O.layouts[O.nlayouts++] = CblasRowMajor;
                else if (!strcmp(items[i], "col")) O.layouts[O.nlayouts++] = CblasColMajor;
                else n = -1;
            }
            if (n <= 0) return bad("layouts", a, "row, col or row,col");
            break;
        }
        case OPT_IMPLS:
            if (parse_impls(a, &O.impls)) return -1;
            break;
        case OPT_TRIALS_SHORT:
            if (cli_parse_i64(a, 1, MAXTR, &v)) return bad("trials-short", a, "an integer 1..64");
            O.trials_short = (int)v, tsh = 1;
            break;
        case OPT_MAX_SECONDS:
            if (cli_parse_double(a, 1e-6, 1e6, &O.max_seconds)) return bad("max-seconds", a, "seconds > 0");
            tm = 1;
            break;
        case OPT_SETTLE:
            if (cli_parse_double(a, 0, 1e5, &d)) return bad("settle-ms", a, "ms >= 0");
            O.settle = d * 1e-3;
            break;
        case OPT_SETTLE_CPU:
            if (cli_parse_double(a, 0, 1e5, &d)) return bad("settle-cpu-ms", a, "ms >= 0");
            O.settle_cpu = d * 1e-3;
            break;
        case OPT_ALPHA:
            if (cli_parse_double(a, -1e300, 1e300, &O.alpha)) return bad("alpha", a, "a number");
            break;
        case OPT_BETA:
            if (cli_parse_double(a, -1e300, 1e300, &O.beta)) return bad("beta", a, "a number");
            break;
        case OPT_CROSSOVER: O.crossover = 1; break;
        case OPT_THIN:
            if (parse_size(a, &O.thin)) return bad("thin", a, "a size >= 1");
            break;
        case OPT_NO_KERNELS: O.kernels = 0; break;
        case OPT_NO_PROBE: O.probe = 0; break;
        case OPT_PROBE_MB:
            if (cli_parse_i64(a, 1, 1 << 20, &v)) return bad("probe-mb", a, "MiB, 1..2^20");
            O.probe_bytes = v << 20;
            break;
        case OPT_CSV_WIDE: O.csv_wide = a; break;
        case OPT_LIB: O.lib = a; break;
        case OPT_CPU_LIB: O.cpu_lib = a; break;
        case OPT_SEED:
            if (cli_parse_i64(a, 0, INT64_MAX, &v)) return bad("seed", a, "an integer >= 0");
            O.seed = (uint64_t)v;
            break;
        case OPT_DRY: O.dry = 1; break;
        case OPT_DEVICES:
            if (parse_devices(a)) return -1;
            break;
        case OPT_MEMORY: {
            char buf[64], *items[3];
            int n = cli_split(a, buf, sizeof buf, items, 3);
            O.nmem = 0;
            for (int i = 0; i < n && n <= 2; ++i) {
                int pin = !strcmp(items[i], "pinned") ? 1 : !strcmp(items[i], "pageable") ? 0 : -1;
                if (pin < 0 || (O.nmem == 1 && O.mem[0] == pin)) {
                    n = -1;
                    break;
                }
                O.mem[O.nmem++] = pin;
            }
            if (n <= 0 || n > 2) return bad("memory", a, "pageable, pinned or pageable,pinned");
            break;
        }
        case OPT_XT_BLOCKS: {
            int64_t bl[MAXSZ];
            int n = 0;
            cli_size it[CLI_MAX_ITEMS];
            const char *bd;
            n = cli_parse_size_list(a, 1 << 20, it, &bd);
            for (int i = 0; i < n; ++i)
                if (it[i].ndims != 1) n = -1;
            if (n <= 0 || n > MAXXB)
                return bad("xt-blocks", a, "at most 8 block dimensions, e.g. 1024,2048,4096,8192");
            for (int i = 0; i < n; ++i) {
                bl[i] = it[i].v[0];
                for (int j = 0; j < i; ++j)
                    if (bl[j] == bl[i]) return bad("xt-blocks", a, "distinct block dimensions");
            }
            memcpy(O.xt_blocks, bl, (size_t)n * sizeof bl[0]);
            O.nxt = n;
            break;
        }
        case OPT_DEVICES_CHILD: O.child_devset = a; break;
        case OPT_ROWS_OUT: O.rows_out = a; break;
        default: return cli_getopt_failed(id, argv);
        }
    }
    if (cli_no_operands(argc, argv)) return -1;
    if (O.child_devset && (!O.rows_out || devset_resolve(O.child_devset)))
        return bad("devices-child", O.child_devset, "internal: an entry of --devices, with --rows-out");
    if (O.ndevsets && O.crossover)
        return bad("devices", "(with --crossover)", "the crossover search runs on one GPU set");
    /* the cublasXt implementations: one per block dimension */
    static char xtname[MAXXB][24];
    for (int b = 0; b < MAXXB; ++b) {
        snprintf(xtname[b], sizeof xtname[b], "cublasxt_%lld",
                 (long long)(b < O.nxt ? O.xt_blocks[b] : 0));
        IMPL_NAME[I_XT0 + b] = xtname[b];
        if (O.want_xt && b < O.nxt) O.impls |= 1u << (I_XT0 + b);
    }
    if (cm->trials > MAXTR) return bad("trials", "(given)", "at most 64 here");
    if (cm->quick) {
        if (!CLI_GIVEN(cm, CLI_OPT_TRIALS)) cm->trials = 3;
        if (!tsh) O.trials_short = 3;
        if (!tm) O.max_seconds = 10;
        if (!CLI_GIVEN(cm, CLI_OPT_MAX_TIME)) cm->max_time_s = 3;
    }
    /* a fixed trial count unless --max-trials asks for more on noisy rows */
    if (!CLI_GIVEN(cm, CLI_OPT_MAX_TRIALS)) cm->max_trials = cm->trials;
    if (cli_common_finish(cm) != 0) return -1;
    O.trials = cm->trials;
    O.max_trials = cm->max_trials > MAXTR ? MAXTR : cm->max_trials;
    O.max_noise = cm->max_noise_pct / 100.0;
    O.min_time = cm->min_time_ms * 1e-3;
    if (!(O.min_time > 0)) O.min_time = 1e-6;
    O.budget = cm->max_time_s > 0 ? cm->max_time_s : 1e-6;
    if (!ts && !tg) {
        if (cm->quick) {
            static const int64_t q[] = {16, 64, 256, 1024, 4096};
            O.nsizes = 5;
            memcpy(O.sizes, q, sizeof q);
        } else {
            set_pow2(O.sizes, &O.nsizes, 4, 13, 1);
        }
    }
    O.sizes_given = ts || tg;
    if (!to) {
        if (ts) {
            memcpy(O.omsizes, O.sizes, sizeof O.sizes);
            O.nomsizes = O.nsizes;
        } else if (cm->quick) {
            set_pow2(O.omsizes, &O.nomsizes, 8, 12, 2);
        } else {
            set_pow2(O.omsizes, &O.nomsizes, 3, 13, 1);
        }
    }
    if (!tv) {
        if (cm->quick) set_pow2(O.vsizes, &O.nvsizes, 10, 26, 4);
        else set_pow2(O.vsizes, &O.nvsizes, 4, 28, 1);
    }
    return 0;
}
