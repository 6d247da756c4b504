/*
 * The rung registry and the selection rule: handle setting, else environment variable
 * MINIBLAS_<OP>, else auto. Pure C; the tables live in kernels/<family>/rungs.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"
#include "arch.h"

#ifndef MB_CUDA_ARCHITECTURES
#define MB_CUDA_ARCHITECTURES "unknown"
#endif
#ifndef MB_HAVE_SM90A
#define MB_HAVE_SM90A 0
#endif

static const char *const op_names[MINIBLAS_OP_COUNT] = {
    "sgemm", "dgemm", "somatcopy", "domatcopy", "sasum", "dasum", "sdot", "ddot"};
static const char *const op_env[MINIBLAS_OP_COUNT] = {
    "MINIBLAS_SGEMM", "MINIBLAS_DGEMM", "MINIBLAS_SOMATCOPY", "MINIBLAS_DOMATCOPY",
    "MINIBLAS_SASUM", "MINIBLAS_DASUM", "MINIBLAS_SDOT", "MINIBLAS_DDOT"};

static int op_valid(miniblas_op_t op) { return (int)op >= 0 && op < MINIBLAS_OP_COUNT; }

const mb_rung *mb_op_rungs(miniblas_op_t op, int *count) {
    const mb_rung *t = NULL;
    int n = 0;
    switch (op) {
    case MINIBLAS_OP_SGEMM: t = mb_sgemm_rungs; n = mb_sgemm_rung_count; break;
    case MINIBLAS_OP_DGEMM: t = mb_dgemm_rungs; n = mb_dgemm_rung_count; break;
    case MINIBLAS_OP_SOMATCOPY: t = mb_somatcopy_rungs; n = mb_somatcopy_rung_count; break;
    case MINIBLAS_OP_DOMATCOPY: t = mb_domatcopy_rungs; n = mb_domatcopy_rung_count; break;
    case MINIBLAS_OP_SASUM: t = mb_sasum_rungs; n = mb_sasum_rung_count; break;
    case MINIBLAS_OP_DASUM: t = mb_dasum_rungs; n = mb_dasum_rung_count; break;
    case MINIBLAS_OP_SDOT: t = mb_sdot_rungs; n = mb_sdot_rung_count; break;
    case MINIBLAS_OP_DDOT: t = mb_ddot_rungs; n = mb_ddot_rung_count; break;
    default: break;
    }
    if (count) *count = n;
    return t;
}

const char *miniblas_op_name(miniblas_op_t op) { return op_valid(op) ? op_names[op] : NULL; }
const char *mb_op_env_name(miniblas_op_t op) { return op_valid(op) ? op_env[op] : NULL; }

int miniblas_rung_count(miniblas_op_t op) {
    int n = 0;
    mb_op_rungs(op, &n);
    return n;
}

const char *miniblas_rung_name(miniblas_op_t op, int index) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    return (index >= 0 && index < n) ? t[index].name : NULL;
}

const char *miniblas_rung_description(miniblas_op_t op, int index) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    return (index >= 0 && index < n) ? t[index].desc : NULL;
}

unsigned miniblas_rung_flags(miniblas_op_t op, int index) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    return (index >= 0 && index < n) ? t[index].flags : 0u;
}

int mb_rung_index(miniblas_op_t op, const char *name) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    if (!name) return -1;
    for (int i = 0; i < n; ++i)
        if (strcasecmp(t[i].name, name) == 0) return i;
    return -1;
}

void mb_rung_name_list(miniblas_op_t op, char *buf, size_t size) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    size_t used = 0;
    if (size == 0) return;
    buf[0] = '\0';
    used += (size_t)snprintf(buf, size, "auto");
    for (int i = 0; i < n && used < size; ++i)
        used += (size_t)snprintf(buf + used, size - used, ", %s", t[i].name);
}

int mb_rung_parse_env(miniblas_op_t op, const char *value) {
    if (!value || !*value || strcasecmp(value, "auto") == 0) return MB_SEL_AUTO;
    int i = mb_rung_index(op, value);
    return i >= 0 ? i : MB_SEL_UNKNOWN;
}

void mb_read_environment(struct miniblas_context *h) {
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        const char *v = getenv(op_env[op]);
        h->env_sel[op] = mb_rung_parse_env((miniblas_op_t)op, v);
        snprintf(h->env_value[op], sizeof h->env_value[op], "%s", v ? v : "");
    }
    const char *m = getenv("MINIBLAS_MATH_MODE");
    h->math_mode = (m && (strcasecmp(m, "tf32") == 0 || strcasecmp(m, "reduced") == 0 ||
                          strcasecmp(m, "fast") == 0))
                       ? MINIBLAS_MATH_ALLOW_REDUCED_PRECISION
                       : MINIBLAS_MATH_DEFAULT;
}

miniblas_status_t mb_select(struct miniblas_context *h, miniblas_op_t op, const mb_shape *shape,
                            const mb_rung **rung) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    int allow_reduced = h->math_mode == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION;
    int idx = h->sel[op];
    const char *from = "miniblas_set_rung";
    if (idx == MB_SEL_AUTO) {
        idx = h->env_sel[op];
        from = op_env[op];
    }
    if (idx == MB_SEL_UNKNOWN) {
        char names[512];
        mb_rung_name_list(op, names, sizeof names);
        return mb_fail(h, MINIBLAS_STATUS_UNKNOWN_RUNG, 0,
                       "%s=%s names no %s rung; valid names: %s", op_env[op], h->env_value[op],
                       op_names[op], names);
    }
    mb_target tg = mb_target_of(h->device, h->cc_major * 10 + h->cc_minor);
    char why[384];
    if (idx == MB_SEL_AUTO) {
        idx = mb_auto_pick_target(op, shape, allow_reduced, &tg);
        from = NULL;
        if (idx < 0 && n > 0) { /* no rung runs here: say why the first (plainest) one does not */
            mb_rung_runs(op, 0, &tg, why, sizeof why);
            return mb_fail(h, MINIBLAS_STATUS_NOT_SUPPORTED, 0, "no %s rung runs on this GPU: %s",
                           op_names[op], why);
        }
    }
    if (idx < 0 || idx >= n) /* the auto table named a rung that is not registered */
        return mb_fail(h, MINIBLAS_STATUS_UNKNOWN_RUNG, 0, "no %s rung for this shape",
                       op_names[op]);
    if (from && (t[idx].flags & MB_RUNG_REDUCED_PRECISION) && !allow_reduced)
        return mb_fail(h, MINIBLAS_STATUS_NOT_SUPPORTED, 0,
                       "%s rung '%s' (chosen by %s) trades precision for speed; allow it with "
                       "miniblas_set_math_mode(MINIBLAS_MATH_ALLOW_REDUCED_PRECISION) or "
                       "MINIBLAS_MATH_MODE=tf32",
                       op_names[op], t[idx].name, from);
    if (!mb_rung_runs(op, idx, &tg, why, sizeof why))
        return mb_fail(h, MINIBLAS_STATUS_NOT_SUPPORTED, 0, "%s rung '%s'%s%s%s: %s", op_names[op],
                       t[idx].name, from ? " (chosen by " : "", from ? from : "", from ? ")" : "",
                       why);
    *rung = &t[idx];
    return MINIBLAS_STATUS_SUCCESS;
}

miniblas_status_t miniblas_set_rung(miniblas_handle_t h, miniblas_op_t op, const char *name) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    mb_clear_error(h);
    if (!op_valid(op)) return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, 2, "invalid op %d", (int)op);
    if (!name || strcasecmp(name, "auto") == 0) {
        h->sel[op] = MB_SEL_AUTO;
        return MINIBLAS_STATUS_SUCCESS;
    }
    int i = mb_rung_index(op, name);
    if (i < 0) {
        char names[512];
        mb_rung_name_list(op, names, sizeof names);
        return mb_fail(h, MINIBLAS_STATUS_UNKNOWN_RUNG, 3, "'%s' names no %s rung; valid names: %s",
                       name, op_names[op], names);
    }
    h->sel[op] = i;
    return MINIBLAS_STATUS_SUCCESS;
}

const char *miniblas_get_rung(miniblas_handle_t h, miniblas_op_t op) {
    if (!h || !op_valid(op)) return NULL;
    int idx = h->sel[op] != MB_SEL_AUTO ? h->sel[op] : h->env_sel[op];
    if (idx == MB_SEL_UNKNOWN) return h->env_value[op];
    return idx == MB_SEL_AUTO ? "auto" : miniblas_rung_name(op, idx);
}

const char *miniblas_last_rung(miniblas_handle_t h, miniblas_op_t op) {
    if (!h || !op_valid(op)) return NULL;
    return h->last_rung[op];
}

/* ---- what a GPU can run ----
 * The rungs that need more than what every GPU the library builds for has (compute capability
 * 7.5: warp shuffles, 64 KB of shared memory per block). Every other rung runs on any GPU the
 * build has code for; the cp.async rungs (pipelined, warptiled, tuned) copy synchronously
 * before 8.0 (kernels/gemm/gemm_common.cuh). A rung with MB_RUNG_NEEDS_SM90A (flag in its
 * rungs.def line) needs a 9.0 GPU and the sm_90a code, whatever this table says. */
typedef struct mb_rung_need {
    miniblas_op_t op;
    const char *rung;
    int min_cc;
    const char *what; /* the instruction the older GPUs lack */
} mb_rung_need;

static const mb_rung_need needs[] = {
    {MINIBLAS_OP_DGEMM, "dmma", 80, "FP64 tensor-core mma.sync"},
    {MINIBLAS_OP_SGEMM, "tf32", 80, "TF32 tensor-core mma.sync"},
    {MINIBLAS_OP_SGEMM, "tf32x3", 80, "TF32 tensor-core mma.sync"},
    {MINIBLAS_OP_SGEMM, "wgmma_tf32x3", 90, "Hopper warpgroup MMA (wgmma)"},
};

static const mb_rung_need *need_of(miniblas_op_t op, int index) {
    const char *name = miniblas_rung_name(op, index);
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; ++i)
        if (needs[i].op == op && strcmp(needs[i].rung, name) == 0) return &needs[i];
    return NULL;
}

int mb_rung_min_cc(miniblas_op_t op, int index) {
    const mb_rung_need *x = need_of(op, index);
    int min = x ? x->min_cc : 0;
    if ((miniblas_rung_flags(op, index) & MB_RUNG_NEEDS_SM90A) && min < 90) min = 90;
    return min;
}

int mb_build_has_sm90a(void) { return MB_HAVE_SM90A; }

mb_target mb_target_of(int device, int cc) {
    mb_target t;
    t.cc = cc;
    t.code_cc = mb_code_cc(device);
    if (t.code_cc < 0) t.code_cc = cc; /* the runtime cannot say: assume the build fits */
    t.has_sm90a = MB_HAVE_SM90A;
    return t;
}

#define WHY(...) (why && why_size ? (void)snprintf(why, why_size, __VA_ARGS__) : (void)0)

int mb_rung_runs(miniblas_op_t op, int index, const mb_target *t, char *why, size_t why_size) {
    int n = 0;
    const mb_rung *r = mb_op_rungs(op, &n);
    if (why && why_size) why[0] = '\0';
    if (index < 0 || index >= n) {
        WHY("no such rung");
        return 0;
    }
    const mb_rung_need *x = need_of(op, index);
    const char *what = x ? x->what : "its instructions";
    if (t->code_cc == 0) {
        WHY("this libminiblas has no code for compute capability %d.%d (built for CUDA "
            "architectures %s); rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d or a list holding it",
            t->cc / 10, t->cc % 10, MB_CUDA_ARCHITECTURES, t->cc);
        return 0;
    }
    if (r[index].flags & MB_RUNG_NEEDS_SM90A) {
        if (t->cc != 90) {
            WHY("needs a compute capability 9.0 GPU (%s); this one is %d.%d", what, t->cc / 10,
                t->cc % 10);
            return 0;
        }
        if (!t->has_sm90a) {
            WHY("needs sm_90a code (%s), which this build lacks (CUDA architectures %s); "
                "rebuild with 90 in CMAKE_CUDA_ARCHITECTURES", what, MB_CUDA_ARCHITECTURES);
            return 0;
        }
        return 1;
    }
    int min = mb_rung_min_cc(op, index);
    if (t->cc < min) {
        WHY("needs compute capability %d.%d or newer (%s); this GPU is %d.%d", min / 10,
            min % 10, what, t->cc / 10, t->cc % 10);
        return 0;
    }
    if (t->code_cc < min) {
        WHY("needs code for compute capability %d.%d or newer (%s); on this %d.%d GPU the "
            "library runs code built for %d.%d (CUDA architectures %s): add %d to "
            "CMAKE_CUDA_ARCHITECTURES", min / 10, min % 10, what, t->cc / 10, t->cc % 10,
            t->code_cc / 10, t->code_cc % 10, MB_CUDA_ARCHITECTURES, t->cc);
        return 0;
    }
    return 1;
}

int miniblas_rung_min_compute_capability(miniblas_op_t op, int index) {
    int n = 0;
    mb_op_rungs(op, &n);
    return index >= 0 && index < n ? mb_rung_min_cc(op, index) : -1;
}

const char *miniblas_cuda_architectures(void) { return MB_CUDA_ARCHITECTURES; }

miniblas_status_t miniblas_rung_supported(miniblas_handle_t h, miniblas_op_t op, const char *name) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    mb_clear_error(h);
    if (!op_valid(op)) return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, 2, "invalid op %d", (int)op);
    mb_target tg = mb_target_of(h->device, h->cc_major * 10 + h->cc_minor);
    char why[384];
    if (!name || strcasecmp(name, "auto") == 0) {
        int n = miniblas_rung_count(op);
        for (int i = 0; i < n; ++i)
            if (mb_rung_runs(op, i, &tg, NULL, 0)) return MINIBLAS_STATUS_SUCCESS;
        mb_rung_runs(op, 0, &tg, why, sizeof why);
        return mb_fail(h, MINIBLAS_STATUS_NOT_SUPPORTED, 0, "no %s rung runs on this GPU: %s",
                       op_names[op], why);
    }
    int i = mb_rung_index(op, name);
    if (i < 0) {
        char names[512];
        mb_rung_name_list(op, names, sizeof names);
        return mb_fail(h, MINIBLAS_STATUS_UNKNOWN_RUNG, 3, "'%s' names no %s rung; valid names: %s",
                       name, op_names[op], names);
    }
    if (!mb_rung_runs(op, i, &tg, why, sizeof why))
        return mb_fail(h, MINIBLAS_STATUS_NOT_SUPPORTED, 0, "%s rung '%s': %s", op_names[op],
                       miniblas_rung_name(op, i), why);
    return MINIBLAS_STATUS_SUCCESS;
}
