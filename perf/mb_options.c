/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-bench's command line (getopt_long; the options shared with miniblas-cblas-bench
 * come from cli.c), --list, the default shapes and the participants of each op.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mb.h"

void usage(FILE *f) {
    cli_common d;
    cli_common_defaults(&d);
    fprintf(f,
"usage: miniblas-bench [options]\n"
"Times miniblas's rungs against cuBLAS (same process, interleaved, results checked first).\n"
"\n"
"What to run:\n"
"  --ops LIST         sgemm,dgemm,somatcopy,domatcopy,sasum,dasum,sdot,ddot or all (default all)\n"
"  --rungs LIST|all   rung names (see --list) and/or auto; default all registered rungs + auto.\n"
"                     cuBLAS is always timed. A reduced-precision rung runs with the math mode\n"
"                     allowing it; its row says so and it is also compared with cublas_tf32\n"
"  --sizes LIST       gemm: N or MxNxK; omatcopy: N or RxC; reductions: n. Numbers may be\n"
"                     written 2^26. An item applies to the ops whose form it fits (a plain N\n"
"                     fits all). Defaults: gemm 1024,2048,4096,8192,4096x4096x256,\n"
"                     8192x128x8192,128x8192x8192,4097x4095x4099; omatcopy 1024,2048,4096,\n"
"                     8192,16384,8192x2048; reductions 2^10,2^16,2^20,2^24,2^26,2^28\n"
"  --gemm-sizes LIST, --omat-sizes LIST, --vec-sizes LIST\n"
"                     the sizes of one kind of op only (override --sizes for it)\n"
"  --trans LIST       gemm: NN,NT,TN,TT (default NN); omatcopy: N,T (default T)\n"
"  --inc N            increment of the reductions (>= 1, default 1)\n"
"  --warmup W         warm-up launches per rung before timing (default 3)\n"
"  --skip-slow[=S]    skip a rung at a shape where its launch would take more than S seconds\n"
"                     (default 2), estimated from its time at a smaller shape or measured at\n"
"                     its first launch; without the flag the limit is 60 s (never hangs)\n"
"  --warm-l2          omatcopy and reductions reuse one set of buffers, so back-to-back calls\n"
"                     find their inputs in L2 when they fit (default: rotate over 2x L2, DRAM)\n"
"  --list             print every op's rungs with their descriptions (no GPU needed)\n"
"\n");
    cli_common_usage(f, &d);
    fprintf(f,
"\n"
"Old spellings accepted: --op (= --ops), --rung (= --rungs).\n"
"Output: a table on stdout (median time per call in us, its noise, trials, GFLOP/s or GB/s,\n"
"%% of cuBLAS, %% of the ceiling: copy bandwidth for omatcopy, streaming read for reductions,\n"
"FP32/FP64 peak for gemm); progress on stderr. Bytes counted: each input read once, each\n"
"output written once. cuBLAS runs with CUBLAS_DEFAULT_MATH: FP32 gemm without TF32\n"
"(NVIDIA_TF32_OVERRIDE=1 is refused). Each rung's result is checked against cuBLAS's first.\n"
"Exit status: 0 ok, 1 a rung was WRONG or a call failed, 2 usage or no CUDA device,\n"
"3 a row SLOW against --baseline.\n");
}

static int op_by_name(const char *s) {
    for (int i = 0; i < MINIBLAS_OP_COUNT; ++i)
        if (strcasecmp(s, OPS[i].name) == 0) return i;
    return -1;
}

/* Rung index of `name` in op's table, -1 if none. */
static int rung_index(miniblas_op_t op, const char *name) {
    int n = miniblas_rung_count(op);
    for (int i = 0; i < n; ++i)
        if (strcasecmp(miniblas_rung_name(op, i), name) == 0) return i;
    return -1;
}

enum {
    OPT_OPS = CLI_OPT_TOOL_BASE,
    OPT_RUNGS,
    OPT_SIZES,
    OPT_GEMM_SIZES,
    OPT_OMAT_SIZES,
    OPT_VEC_SIZES,
    OPT_TRANS,
    OPT_INC,
    OPT_WARMUP,
    OPT_SKIP_SLOW,
    OPT_WARM_L2,
    OPT_LIST
};

static const struct option LONG_OPTS[] = {
    CLI_COMMON_OPTIONS,
    {"ops", required_argument, 0, OPT_OPS},
    {"op", required_argument, 0, OPT_OPS},
    {"rungs", required_argument, 0, OPT_RUNGS},
    {"rung", required_argument, 0, OPT_RUNGS},
    {"sizes", required_argument, 0, OPT_SIZES},
    {"gemm-sizes", required_argument, 0, OPT_GEMM_SIZES},
    {"omat-sizes", required_argument, 0, OPT_OMAT_SIZES},
    {"vec-sizes", required_argument, 0, OPT_VEC_SIZES},
    {"trans", required_argument, 0, OPT_TRANS},
    {"inc", required_argument, 0, OPT_INC},
    {"warmup", required_argument, 0, OPT_WARMUP},
    {"skip-slow", optional_argument, 0, OPT_SKIP_SLOW},
    {"warm-l2", no_argument, 0, OPT_WARM_L2},
    {"list", no_argument, 0, OPT_LIST},
    {0, 0, 0, 0}};

static int parse_sizes(const char *opt, const char *arg, cli_size *out, int *n) {
    const char *bad;
    int k = cli_parse_size_list(arg, INT_MAX, out, &bad);
    if (k < 0) {
        if (bad)
            cli_error("bad size '%s' in --%s (N, RxC or MxNxK, each 1..%d; 2^k allowed)", bad, opt,
                      INT_MAX);
        else
            cli_error("bad --%s '%s' (a comma-separated list of at most %d sizes)", opt, arg,
                      MAX_LIST);
        return -1;
    }
    *n = k;
    return 0;
}

int parse_options(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    cli_common_defaults(&o->com);
    o->inc = 1;
    o->warmup = 3;
    o->slow_limit_s = 60.0;
    o->rung_all = 1;
    for (int i = 0; i < MINIBLAS_OP_COUNT; ++i) o->op_sel[i] = 1;
    int warmup_set = 0;
    char buf[4096];
    char *items[MAX_LIST];
    int id;
    opterr = 0;
    optind = 1;
    while ((id = getopt_long(argc, argv, ":h", LONG_OPTS, NULL)) != -1) {
        if (id == 'h') id = CLI_OPT_HELP;
        int rc = cli_common_option(id, optarg, &o->com);
        if (rc < 0) return -1;
        if (rc == 0) continue;
        int64_t v;
        int n;
        switch (id) {
        case OPT_OPS:
            n = cli_split(optarg, buf, sizeof buf, items, MAX_LIST);
            if (n < 0) {
                cli_error("bad --ops '%s'", optarg);
                return -1;
            }
            memset(o->op_sel, 0, sizeof o->op_sel);
            for (int t = 0; t < n; ++t) {
                if (strcasecmp(items[t], "all") == 0) {
                    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) o->op_sel[k] = 1;
                    continue;
                }
                int k = op_by_name(items[t]);
                if (k < 0) {
                    cli_error("unknown op '%s' in --ops (sgemm, dgemm, somatcopy, domatcopy, "
                              "sasum, dasum, sdot, ddot, all)", items[t]);
                    return -1;
                }
                o->op_sel[k] = 1;
            }
            break;
        case OPT_RUNGS:
            n = cli_split(optarg, buf, sizeof buf, items, MAX_LIST);
            if (n < 0) {
                cli_error("bad --rungs '%s' (names separated by commas, at most %d)", optarg,
                          MAX_LIST);
                return -1;
            }
            for (int r = 0; r < o->nrungs; ++r) free(o->rungs[r]);
            o->rung_all = 0;
            o->nrungs = 0;
            for (int t = 0; t < n; ++t) {
                if (strcasecmp(items[t], "all") == 0) o->rung_all = 1;
                else o->rungs[o->nrungs++] = strdup(items[t]);
            }
            break;
        case OPT_SIZES:
            if (parse_sizes("sizes", optarg, o->sizes, &o->nsizes)) return -1;
            break;
        case OPT_GEMM_SIZES:
        case OPT_OMAT_SIZES:
        case OPT_VEC_SIZES: {
            int kk = id - OPT_GEMM_SIZES;
            const char *names[3] = {"gemm-sizes", "omat-sizes", "vec-sizes"};
            if (parse_sizes(names[kk], optarg, o->kind_sizes[kk], &o->nkind_sizes[kk])) return -1;
            for (int i = 0; i < o->nkind_sizes[kk]; ++i) {
                int nd = o->kind_sizes[kk][i].ndims;
                if ((kk == 0 && nd == 2) || (kk == 1 && nd == 3) || (kk == 2 && nd != 1)) {
                    cli_error("--%s: item %d has %d dimensions (%s)", names[kk], i + 1, nd,
                              kk == 0 ? "N or MxNxK" : kk == 1 ? "N or RxC" : "n");
                    return -1;
                }
            }
            break;
        }
        case OPT_TRANS:
            n = cli_split(optarg, buf, sizeof buf, items, 6);
            if (n < 0) {
                cli_error("bad --trans '%s'", optarg);
                return -1;
            }
            o->ngemm_trans = o->nomat_trans = 0;
            for (int i = 0; i < n; ++i) {
                char *t = items[i];
                size_t len = strlen(t);
                int ok = 1;
                for (size_t c = 0; c < len; ++c) {
                    t[c] = (char)toupper((unsigned char)t[c]);
                    if (t[c] != 'N' && t[c] != 'T') ok = 0;
                }
                if (ok && len == 2 && o->ngemm_trans < 4) {
                    o->gemm_trans[o->ngemm_trans][0] = t[0] == 'T';
                    o->gemm_trans[o->ngemm_trans][1] = t[1] == 'T';
                    o->ngemm_trans++;
                } else if (ok && len == 1 && o->nomat_trans < 2) {
                    o->omat_trans[o->nomat_trans++] = t[0] == 'T';
                } else {
                    cli_error("bad --trans item '%s' (NN, NT, TN, TT for gemm; N, T for "
                              "omatcopy; each at most once)", t);
                    return -1;
                }
            }
            break;
        case OPT_INC:
            if (cli_parse_i64(optarg, 1, 1 << 20, &o->inc)) {
                cli_error("bad value '%s' for --inc (an integer 1..2^20)", optarg);
                return -1;
            }
            break;
        case OPT_WARMUP:
            if (cli_parse_i64(optarg, 0, 1000, &v)) {
                cli_error("bad value '%s' for --warmup (an integer 0..1000)", optarg);
                return -1;
            }
            o->warmup = (int)v;
            warmup_set = 1;
            break;
        case OPT_SKIP_SLOW:
            o->skip_slow = 1;
            o->slow_limit_s = 2.0;
            if (optarg && (cli_parse_double(optarg, 1e-6, 1e6, &o->slow_limit_s))) {
                cli_error("bad value '%s' for --skip-slow (seconds > 0)", optarg);
                return -1;
            }
            break;
        case OPT_WARM_L2: o->warm_l2 = 1; break;
        case OPT_LIST: o->list = 1; break;
        default: return cli_getopt_failed(id, argv);
        }
    }
    if (cli_no_operands(argc, argv)) return -1;
    cli_common *cm = &o->com;
    if (cm->quick) {
        if (!CLI_GIVEN(cm, CLI_OPT_TRIALS)) cm->trials = 3;
        if (!CLI_GIVEN(cm, CLI_OPT_MAX_TRIALS)) cm->max_trials = 5;
        if (!warmup_set) o->warmup = 1;
        if (!CLI_GIVEN(cm, CLI_OPT_MIN_TIME_MS)) cm->min_time_ms = 5.0;
    }
    if (cli_common_finish(cm) != 0) return -1;
    if (o->ngemm_trans == 0) {
        o->gemm_trans[0][0] = o->gemm_trans[0][1] = 0;
        o->ngemm_trans = 1;
    }
    if (o->nomat_trans == 0) {
        o->omat_trans[0] = 1;
        o->nomat_trans = 1;
    }
    /* every named rung must exist for at least one selected op */
    for (int r = 0; r < o->nrungs; ++r) {
        const char *name = o->rungs[r];
        if (strcasecmp(name, "auto") == 0 || strcasecmp(name, "cublas") == 0) continue;
        int found = 0;
        for (int k = 0; k < MINIBLAS_OP_COUNT; ++k)
            if (o->op_sel[k] && rung_index(OPS[k].op, name) >= 0) found = 1;
        if (!found) {
            cli_error("no selected op has a rung named '%s' (see --list)", name);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------ */
/* --list */

/* With a GPU (device 0, a handle can be created), a rung this GPU or this build of the library
 * cannot run is marked with the library's reason; without one the list is the same less the
 * marks. */
void print_list(void) {
    miniblas_handle_t h = NULL;
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) h = NULL;
    for (int k = 0; k < MINIBLAS_OP_COUNT; ++k) {
        miniblas_op_t op = OPS[k].op;
        printf("%s  (compared with %s)\n", OPS[k].name, OPS[k].cublas);
        int n = miniblas_rung_count(op);
        for (int i = 0; i < n; ++i) {
            unsigned fl = miniblas_rung_flags(op, i);
            const char *name = miniblas_rung_name(op, i);
            char flags[600] = "";
            if (fl & MINIBLAS_RUNG_REDUCED_PRECISION) strcat(flags, " [reduced precision]");
            if (fl & MINIBLAS_RUNG_NEEDS_SM90A) strcat(flags, " [needs sm_90a]");
            if (h && miniblas_rung_supported(h, op, name) == MINIBLAS_STATUS_NOT_SUPPORTED) {
                size_t used = strlen(flags);
                snprintf(flags + used, sizeof flags - used, " [not on this GPU: %s]",
                         miniblas_last_error(h));
            }
            const char *d = miniblas_rung_description(op, i);
            printf("  %2d  %-16s %s%s\n", i + 1, name, d ? d : "", flags);
        }
        printf("   -  %-16s %s\n\n", "auto", "the library's choice for the shape (src/auto.c)");
    }
    if (h) miniblas_destroy(h);
}

/* ------------------------------------------------------------------------------------ */
/* sizes */

static const char *const DEF_GEMM[] = {"1024", "2048", "4096", "8192", "4096x4096x256",
                                       "8192x128x8192", "128x8192x8192", "4097x4095x4099"};
static const char *const DEF_OMAT[] = {"1024", "2048", "4096", "8192", "16384", "8192x2048"};
static const char *const DEF_RED[] = {"2^10", "2^16", "2^20", "2^24", "2^26", "2^28"};
static const char *const QUICK_GEMM[] = {"256", "1000x1001x999", "2048"};
static const char *const QUICK_OMAT[] = {"1024", "1000x3001", "4096"};
static const char *const QUICK_RED[] = {"2^16", "1000003", "2^24"};

int shapes_for(const options *o, kind_t kind, int64_t out[][3]) {
    cli_size items[MAX_LIST];
    int n = 0;
    int kk = kind == K_GEMM ? 0 : kind == K_OMAT ? 1 : 2;
    if (o->nkind_sizes[kk]) {
        memcpy(items, o->kind_sizes[kk], sizeof(cli_size) * (size_t)o->nkind_sizes[kk]);
        n = o->nkind_sizes[kk];
    } else if (o->nsizes) {
        memcpy(items, o->sizes, sizeof(cli_size) * (size_t)o->nsizes);
        n = o->nsizes;
    } else {
        const char *const *d;
        int nd;
        if (kind == K_GEMM) {
            d = o->com.quick ? QUICK_GEMM : DEF_GEMM;
            nd = o->com.quick ? 3 : 8;
        } else if (kind == K_OMAT) {
            d = o->com.quick ? QUICK_OMAT : DEF_OMAT;
            nd = o->com.quick ? 3 : 6;
        } else {
            d = o->com.quick ? QUICK_RED : DEF_RED;
            nd = o->com.quick ? 3 : 6;
        }
        for (int i = 0; i < nd; ++i)
            if (cli_parse_size(d[i], INT_MAX, &items[n]) == 0) n++;
    }
    int cnt = 0;
    for (int i = 0; i < n; ++i) {
        const cli_size *it = &items[i];
        if (kind == K_GEMM && (it->ndims == 1 || it->ndims == 3)) {
            out[cnt][0] = it->v[0];
            out[cnt][1] = it->ndims == 3 ? it->v[1] : it->v[0];
            out[cnt][2] = it->ndims == 3 ? it->v[2] : it->v[0];
            cnt++;
        } else if (kind == K_OMAT && (it->ndims == 1 || it->ndims == 2)) {
            out[cnt][0] = it->v[0];
            out[cnt][1] = it->ndims == 2 ? it->v[1] : it->v[0];
            out[cnt][2] = 0;
            cnt++;
        } else if ((kind == K_ASUM || kind == K_DOT) && it->ndims == 1) {
            out[cnt][0] = it->v[0];
            out[cnt][1] = out[cnt][2] = 0;
            cnt++;
        }
    }
    return cnt;
}

/* The participants of an op: cuBLAS, cuBLAS TF32 if a reduced-precision rung runs, rungs. */
int build_parts(const options *o, const opinfo *oi, part *parts) {
    int n = 0, nours = 0, any_reduced = 0, want_cublas_only = 0;
    memset(parts, 0, sizeof(part) * MAX_PARTS);
    snprintf(parts[n].name, sizeof parts[n].name, "cublas");
    parts[n++].is_cublas = 1;
    int count = miniblas_rung_count(oi->op);
    if (o->rung_all) {
        for (int i = 0; i < count && n < MAX_PARTS - 2; ++i) {
            snprintf(parts[n].name, sizeof parts[n].name, "%s", miniblas_rung_name(oi->op, i));
            parts[n].reduced = !!(miniblas_rung_flags(oi->op, i) & MINIBLAS_RUNG_REDUCED_PRECISION);
            any_reduced |= parts[n].reduced;
            n++;
            nours++;
        }
    }
    for (int r = 0; r < o->nrungs && n < MAX_PARTS - 2; ++r) {
        const char *name = o->rungs[r];
        if (strcasecmp(name, "cublas") == 0) {
            want_cublas_only = 1;
            continue;
        }
        if (strcasecmp(name, "auto") == 0) continue;
        int idx = rung_index(oi->op, name);
        if (idx < 0 || o->rung_all) continue;
        int dup = 0;
        for (int j = 0; j < n; ++j) dup |= strcmp(parts[j].name, miniblas_rung_name(oi->op, idx)) == 0;
        if (dup) continue;
        snprintf(parts[n].name, sizeof parts[n].name, "%s", miniblas_rung_name(oi->op, idx));
        parts[n].reduced = !!(miniblas_rung_flags(oi->op, idx) & MINIBLAS_RUNG_REDUCED_PRECISION);
        any_reduced |= parts[n].reduced;
        n++;
        nours++;
    }
    int want_auto = o->rung_all;
    for (int r = 0; r < o->nrungs; ++r) want_auto |= strcasecmp(o->rungs[r], "auto") == 0;
    if (want_auto) {
        snprintf(parts[n].name, sizeof parts[n].name, "auto");
        n++;
        nours++;
    }
    if (any_reduced && oi->op == MINIBLAS_OP_SGEMM) {
        /* insert cublas_tf32 right after cublas */
        memmove(&parts[2], &parts[1], sizeof(part) * (size_t)(n - 1));
        memset(&parts[1], 0, sizeof(part));
        snprintf(parts[1].name, sizeof parts[1].name, "cublas_tf32");
        parts[1].is_cublas = parts[1].tf32 = 1;
        n++;
    }
    if (nours == 0 && !want_cublas_only) return 0;
    return n;
}

