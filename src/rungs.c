/*
 * The rung registry and the selection rule: handle setting, else environment variable
 * MINIBLAS_<OP>, else auto. Pure C; the tables live in kernels/<family>/rungs.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "internal.h"

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

/* Former rung names (kernels/reduce/rungs.def: RUNG_ALIAS), accepted by selection. */
#define RUNG_ALIAS(former, current) {#former, #current},
static const struct {
    const char *former, *current;
} reduce_aliases[] = {
#include "../kernels/reduce/rungs.def"
};
#undef RUNG_ALIAS

static const char *rung_alias(miniblas_op_t op, const char *name) {
    if (op != MINIBLAS_OP_SASUM && op != MINIBLAS_OP_DASUM && op != MINIBLAS_OP_SDOT &&
        op != MINIBLAS_OP_DDOT)
        return NULL;
    for (size_t i = 0; i < sizeof reduce_aliases / sizeof reduce_aliases[0]; ++i)
        if (strcasecmp(reduce_aliases[i].former, name) == 0) return reduce_aliases[i].current;
    return NULL;
}

int mb_rung_index(miniblas_op_t op, const char *name) {
    int n = 0;
    const mb_rung *t = mb_op_rungs(op, &n);
    if (!name) return -1;
    for (int i = 0; i < n; ++i)
        if (strcasecmp(t[i].name, name) == 0) return i;
    const char *current = rung_alias(op, name);
    return current ? mb_rung_index(op, current) : -1;
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
    if (idx == MB_SEL_AUTO) {
        idx = mb_auto_pick(op, shape, allow_reduced, h->cc_major, h->cc_minor);
        from = NULL;
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
    if ((t[idx].flags & MB_RUNG_NEEDS_SM90A) && !(h->cc_major == 9 && h->cc_minor == 0))
        return mb_fail(h, MINIBLAS_STATUS_NOT_SUPPORTED, 0,
                       "%s rung '%s' needs a compute capability 9.0 GPU (this one is %d.%d)",
                       op_names[op], t[idx].name, h->cc_major, h->cc_minor);
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
