/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rung registry and the selection rule, without a GPU: the per-op tables
 * (kernels/<family>/rungs.def), names and descriptions, the environment parser, the selection
 * order (handle setting > MINIBLAS_<OP> > auto), the math-mode gate on reduced-precision rungs,
 * the public rung/handle functions on a hand-built context (struct miniblas_context of
 * src/internal.h; none of them touch the GPU), status and version strings, and miniblas_create
 * on a machine with no GPU. What each GPU and build can run, and `auto`'s tables:
 * test_registry_auto_cpu.c.
 *
 * Loops run over the tables, so rungs added later are covered without editing this file.
 */
#define _POSIX_C_SOURCE 200809L
#include "registry_common.h"

static void test_tables(void) {
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        int n = miniblas_rung_count((miniblas_op_t)op);
        int n2 = -1;
        const mb_rung *t = mb_op_rungs((miniblas_op_t)op, &n2);
        CHECKF(n >= 1, "op %d has %d rungs", op, n);
        CHECK(n2 == n && t != NULL);
        CHECK(miniblas_op_name((miniblas_op_t)op) &&
              strcmp(miniblas_op_name((miniblas_op_t)op), op_names[op]) == 0);
        CHECK(mb_op_env_name((miniblas_op_t)op) &&
              strcmp(mb_op_env_name((miniblas_op_t)op), op_envs[op]) == 0);
        CHECKF(miniblas_rung_name((miniblas_op_t)op, 0) &&
                   strcmp(miniblas_rung_name((miniblas_op_t)op, 0), "naive") == 0,
               "rung 0 of %s is %s", op_names[op], miniblas_rung_name((miniblas_op_t)op, 0));
        for (int i = 0; i < n; ++i) {
            const char *name = miniblas_rung_name((miniblas_op_t)op, i);
            const char *desc = miniblas_rung_description((miniblas_op_t)op, i);
            CHECKF(name && name[0], "%s rung %d has no name", op_names[op], i);
            CHECKF(desc && desc[0], "%s rung %d has no description", op_names[op], i);
            if (!name || !desc) continue;
            CHECK(name == t[i].name && desc == t[i].desc);
            CHECKF(t[i].launch != NULL, "%s rung %s has no launcher", op_names[op], name);
            CHECK(miniblas_rung_flags((miniblas_op_t)op, i) == t[i].flags);
            CHECKF((t[i].flags & ~(MB_RUNG_REDUCED_PRECISION | MB_RUNG_NEEDS_SM90A)) == 0,
                   "%s rung %s has unknown flags %#x", op_names[op], name, t[i].flags);
            int lower = 1;
            for (const char *c = name; *c; ++c)
                if (!(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_'))
                    lower = 0;
            CHECKF(lower, "%s rung name '%s' is not short lower-case", op_names[op], name);
            CHECK(strcasecmp(name, "auto") != 0 && strcasecmp(name, "none") != 0);
            for (int j = 0; j < i; ++j)
                CHECKF(strcasecmp(name, t[j].name) != 0, "%s has rung '%s' twice (%d, %d)",
                       op_names[op], name, j, i);
            CHECK(mb_rung_index((miniblas_op_t)op, name) == i);
        }
        CHECK(miniblas_rung_name((miniblas_op_t)op, -1) == NULL);
        CHECK(miniblas_rung_name((miniblas_op_t)op, n) == NULL);
        CHECK(miniblas_rung_name((miniblas_op_t)op, 1 << 30) == NULL);
        CHECK(miniblas_rung_description((miniblas_op_t)op, -1) == NULL);
        CHECK(miniblas_rung_description((miniblas_op_t)op, n) == NULL);
        CHECK(miniblas_rung_flags((miniblas_op_t)op, n) == 0u);
        CHECK(mb_rung_index((miniblas_op_t)op, "no-such-rung") == -1);
        CHECK(mb_rung_index((miniblas_op_t)op, NULL) == -1);
    }
    /* invalid ops */
    const int bad[] = {-1, MINIBLAS_OP_COUNT, MINIBLAS_OP_COUNT + 5, 1000};
    for (int b = 0; b < 4; ++b) {
        miniblas_op_t op = (miniblas_op_t)bad[b];
        int n = 7;
        CHECK(miniblas_rung_count(op) == 0);
        CHECK(mb_op_rungs(op, &n) == NULL && n == 0);
        CHECK(miniblas_rung_name(op, 0) == NULL);
        CHECK(miniblas_rung_description(op, 0) == NULL);
        CHECK(miniblas_rung_flags(op, 0) == 0u);
        CHECK(miniblas_op_name(op) == NULL);
        CHECK(mb_op_env_name(op) == NULL);
        CHECK(mb_rung_index(op, "naive") == -1);
    }
}

static void test_parse_and_list(void) {
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        miniblas_op_t o = (miniblas_op_t)op;
        CHECK(mb_rung_parse_env(o, NULL) == MB_SEL_AUTO);
        CHECK(mb_rung_parse_env(o, "") == MB_SEL_AUTO);
        CHECK(mb_rung_parse_env(o, "auto") == MB_SEL_AUTO);
        CHECK(mb_rung_parse_env(o, "AUTO") == MB_SEL_AUTO);
        CHECK(mb_rung_parse_env(o, "Auto") == MB_SEL_AUTO);
        CHECK(mb_rung_parse_env(o, "junk") == MB_SEL_UNKNOWN);
        CHECK(mb_rung_parse_env(o, "naive2") == MB_SEL_UNKNOWN);
        CHECK(mb_rung_parse_env(o, "autox") == MB_SEL_UNKNOWN);
        CHECK(mb_rung_parse_env(o, "1") == MB_SEL_UNKNOWN);
        char list[1024];
        mb_rung_name_list(o, list, sizeof list);
        CHECKF(strncmp(list, "auto", 4) == 0 && list_has(list, "auto"), "list '%s'", list);
        int n = miniblas_rung_count(o);
        for (int i = 0; i < n; ++i) {
            const char *name = miniblas_rung_name(o, i);
            char up[MB_NAME_MAX];
            upper(up, name, sizeof up);
            CHECKF(mb_rung_parse_env(o, name) == i, "%s: parse '%s'", op_names[op], name);
            CHECKF(mb_rung_parse_env(o, up) == i, "%s: parse '%s'", op_names[op], up);
            CHECKF(list_has(list, name), "%s: '%s' not in '%s'", op_names[op], name, list);
        }
        /* a short buffer is cut, terminated, and nothing past it is written */
        char small[8];
        memset(small, '#', sizeof small);
        mb_rung_name_list(o, small, 3);
        CHECK(small[2] == '\0' && strcmp(small, "au") == 0 && small[3] == '#');
        memset(small, '#', sizeof small);
        mb_rung_name_list(o, small, 0);
        CHECK(small[0] == '#');
        memset(small, '#', sizeof small);
        mb_rung_name_list(o, small, 7);
        CHECK(memchr(small, '\0', 7) != NULL && small[7] == '#');
    }
}
/* Selection on a hand-built context. */
static void test_select(void) {
    struct miniblas_context h;
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        miniblas_op_t o = (miniblas_op_t)op;
        int n = 0;
        const mb_rung *t = mb_op_rungs(o, &n);
        const mb_rung *r;
        mb_shape sh = shape_of(o, 3);

        /* auto: a registered rung, never reduced precision under the default math mode, never
         * a Hopper-only rung on another GPU */
        for (int s = 0; s < NSHAPES; ++s) {
            mb_shape shs = shape_of(o, s);
            fresh(&h);
            r = NULL;
            miniblas_status_t st = mb_select(&h, o, &shs, &r);
            CHECKF(st == MINIBLAS_STATUS_SUCCESS && r && r >= t && r < t + n,
                   "%s auto, shape %d: status %d", op_names[op], s, (int)st);
            if (r && r >= t && r < t + n)
                CHECKF(!(r->flags & MB_RUNG_REDUCED_PRECISION),
                       "%s auto picked reduced-precision '%s' under default math", op_names[op],
                       r->name);
            int idx = mb_auto_pick(o, &shs, 0, 9, 0);
            CHECK(idx >= 0 && idx < n && !(t[idx].flags & MB_RUNG_REDUCED_PRECISION));
            idx = mb_auto_pick(o, &shs, 1, 9, 0);
            CHECK(idx >= 0 && idx < n);
            h.math_mode = MINIBLAS_MATH_ALLOW_REDUCED_PRECISION;
            r = NULL;
            CHECK(mb_select(&h, o, &shs, &r) == MINIBLAS_STATUS_SUCCESS && r >= t && r < t + n);
            h.cc_major = 8;
            h.math_mode = MINIBLAS_MATH_DEFAULT;
            r = NULL;
            st = mb_select(&h, o, &shs, &r);
            CHECK(st == MINIBLAS_STATUS_SUCCESS && r >= t && r < t + n);
            if (st == MINIBLAS_STATUS_SUCCESS && r)
                CHECKF(!(r->flags & MB_RUNG_NEEDS_SM90A),
                       "%s auto picked Hopper-only '%s' on cc 8.0", op_names[op], r->name);
            idx = mb_auto_pick(o, &shs, 1, 10, 0);
            CHECK(idx >= 0 && idx < n && !(t[idx].flags & MB_RUNG_NEEDS_SM90A));
        }

        for (int i = 0; i < n; ++i) {
            int reduced = (t[i].flags & MB_RUNG_REDUCED_PRECISION) != 0;
            int hopper = (t[i].flags & MB_RUNG_NEEDS_SM90A) != 0;
            for (int by_env = 0; by_env < 2; ++by_env) {
                /* explicit choice, by the handle or by the environment */
                fresh(&h);
                if (by_env)
                    h.env_sel[op] = i;
                else
                    h.sel[op] = i;
                r = NULL;
                miniblas_status_t st = mb_select(&h, o, &sh, &r);
                if (reduced) {
                    CHECKF(st == MINIBLAS_STATUS_NOT_SUPPORTED,
                           "%s '%s' (reduced precision) under default math: status %d",
                           op_names[op], t[i].name, (int)st);
                    CHECK(h.err[0] != '\0' && strstr(h.err, t[i].name) != NULL);
                } else if (runs_on(&h, o, i)) {
                    CHECKF(st == MINIBLAS_STATUS_SUCCESS && r == &t[i], "%s '%s' by %s: %d",
                           op_names[op], t[i].name, by_env ? "env" : "handle", (int)st);
                } else {
                    CHECKF(st == MINIBLAS_STATUS_NOT_SUPPORTED && strstr(h.err, t[i].name),
                           "%s '%s' (not runnable with this build here): %d '%s'", op_names[op],
                           t[i].name, (int)st, h.err);
                }
                fresh(&h);
                h.math_mode = MINIBLAS_MATH_ALLOW_REDUCED_PRECISION;
                if (by_env)
                    h.env_sel[op] = i;
                else
                    h.sel[op] = i;
                r = NULL;
                st = mb_select(&h, o, &sh, &r);
                if (runs_on(&h, o, i))
                    CHECKF(st == MINIBLAS_STATUS_SUCCESS && r == &t[i],
                           "%s '%s' with reduced precision allowed: %d", op_names[op], t[i].name,
                           (int)st);
                else
                    CHECK(st == MINIBLAS_STATUS_NOT_SUPPORTED);
                /* a Hopper-only rung refuses other GPUs; on 8.0 the others run */
                h.cc_major = 8;
                r = NULL;
                st = mb_select(&h, o, &sh, &r);
                if (hopper)
                    CHECK(st == MINIBLAS_STATUS_NOT_SUPPORTED && strstr(h.err, "9.0"));
                else if (runs_on(&h, o, i))
                    CHECK(st == MINIBLAS_STATUS_SUCCESS && r == &t[i]);
                else
                    CHECK(st == MINIBLAS_STATUS_NOT_SUPPORTED);
                /* 7.5: the tensor-core rungs refuse, naming what they need */
                h.cc_major = 7;
                h.cc_minor = 5;
                r = NULL;
                st = mb_select(&h, o, &sh, &r);
                if (mb_rung_min_cc(o, i) > 75)
                    CHECKF(st == MINIBLAS_STATUS_NOT_SUPPORTED && strstr(h.err, t[i].name) &&
                               strstr(h.err, "7.5") &&
                               strstr(h.err, by_env ? op_envs[op] : "miniblas_set_rung"),
                           "%s '%s' on 7.5: %d '%s'", op_names[op], t[i].name, (int)st, h.err);
                else if (runs_on(&h, o, i))
                    CHECK(st == MINIBLAS_STATUS_SUCCESS && r == &t[i]);
            }
            /* the handle setting wins over the environment, even a bad one */
            for (int j = -1; j < n; ++j) {
                fresh(&h);
                h.math_mode = MINIBLAS_MATH_ALLOW_REDUCED_PRECISION;
                h.sel[op] = i;
                h.env_sel[op] = j < 0 ? MB_SEL_UNKNOWN : j;
                snprintf(h.env_value[op], sizeof h.env_value[op], "bogus");
                r = NULL;
                miniblas_status_t st = mb_select(&h, o, &sh, &r);
                if (runs_on(&h, o, i))
                    CHECK(st == MINIBLAS_STATUS_SUCCESS && r == &t[i]);
                else /* the handle's choice still wins: it is refused, not replaced */
                    CHECK(st == MINIBLAS_STATUS_NOT_SUPPORTED && r == NULL &&
                          strstr(h.err, "miniblas_set_rung"));
            }
        }

        /* the environment wins over auto: an unknown name fails instead of falling back */
        fresh(&h);
        h.env_sel[op] = MB_SEL_UNKNOWN;
        snprintf(h.env_value[op], sizeof h.env_value[op], "bogus-rung");
        r = NULL;
        miniblas_status_t st = mb_select(&h, o, &sh, &r);
        CHECK(st == MINIBLAS_STATUS_UNKNOWN_RUNG && r == NULL);
        CHECKF(strstr(h.err, op_envs[op]) && strstr(h.err, "bogus-rung") && strstr(h.err, "auto"),
               "message '%s'", h.err);
        for (int i = 0; i < n; ++i)
            CHECKF(strstr(h.err, t[i].name) != NULL, "'%s' not listed in '%s'", t[i].name, h.err);
        CHECK(h.err_param == 0);
        /* ... and only for its own op */
        miniblas_op_t other = (miniblas_op_t)((op + 2) % MINIBLAS_OP_COUNT);
        mb_shape sho = shape_of(other, 3);
        r = NULL;
        CHECK(mb_select(&h, other, &sho, &r) == MINIBLAS_STATUS_SUCCESS && r != NULL);
    }
}

/* MINIBLAS_PDL (programmatic dependent launch in the gemm chains) and MINIBLAS_SPLITK_CLUSTER
 * (split-K summed in thread-block clusters): only on 9.0 and newer (the device and the code it
 * runs), unless the variable is 0. */
static void test_sm90_switches(void) {
    CHECK(mb_sm90_switch(NULL, 90, 90) == 1);
    CHECK(mb_sm90_switch("", 90, 90) == 1);
    CHECK(mb_sm90_switch("1", 90, 90) == 1);
    CHECK(mb_sm90_switch("0", 90, 90) == 0);
    CHECK(mb_sm90_switch(NULL, 100, 100) == 1);
    CHECK(mb_sm90_switch(NULL, 89, 89) == 0);
    CHECK(mb_sm90_switch(NULL, 80, 80) == 0);
    CHECK(mb_sm90_switch(NULL, 90, 80) == 0); /* a 9.0 GPU running code built for 8.0 */
    CHECK(mb_sm90_switch(NULL, 90, 0) == 0);  /* no code for it */
    CHECK(mb_sm90_switch(NULL, 90, -1) == 0); /* the runtime could not say */
    /* a handle without a GPU (the probe fails): off */
    struct miniblas_context h;
    clear_env();
    fresh(&h);
    h.pdl = h.splitk_cluster = 1;
    mb_read_environment(&h);
    CHECK(h.pdl == 0 || mb_code_cc(h.device) >= 90);
    CHECK(h.splitk_cluster == h.pdl);
    fresh(&h);
    h.cc_major = 8;
    h.pdl = h.splitk_cluster = 1;
    mb_read_environment(&h);
    CHECK(h.pdl == 0 && h.splitk_cluster == 0);
    /* each variable turns off its own feature only */
    setenv("MINIBLAS_SPLITK_CLUSTER", "0", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.splitk_cluster == 0);
    const int pdl_on = h.pdl;
    unsetenv("MINIBLAS_SPLITK_CLUSTER");
    setenv("MINIBLAS_PDL", "0", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.pdl == 0 && h.splitk_cluster == pdl_on);
    clear_env();
}

static void test_environment(void) {
    struct miniblas_context h;
    clear_env();
    fresh(&h);
    h.env_sel[0] = 12345;
    mb_read_environment(&h);
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        CHECK(h.env_sel[op] == MB_SEL_AUTO);
        CHECK(h.env_value[op][0] == '\0');
    }
    CHECK(h.math_mode == MINIBLAS_MATH_DEFAULT);

    /* MINIBLAS_SGEMM */
    setenv("MINIBLAS_SGEMM", "naive", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.env_sel[MINIBLAS_OP_SGEMM] == 0);
    CHECK(strcmp(h.env_value[MINIBLAS_OP_SGEMM], "naive") == 0);
    CHECK(h.env_sel[MINIBLAS_OP_DGEMM] == MB_SEL_AUTO); /* only its own op */
    CHECK(strcmp(miniblas_get_rung((miniblas_handle_t)&h, MINIBLAS_OP_SGEMM), "naive") == 0);
    setenv("MINIBLAS_SGEMM", "NAIVE", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.env_sel[MINIBLAS_OP_SGEMM] == 0);
    setenv("MINIBLAS_SGEMM", "auto", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.env_sel[MINIBLAS_OP_SGEMM] == MB_SEL_AUTO);
    CHECK(strcmp(miniblas_get_rung((miniblas_handle_t)&h, MINIBLAS_OP_SGEMM), "auto") == 0);
    setenv("MINIBLAS_SGEMM", "", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.env_sel[MINIBLAS_OP_SGEMM] == MB_SEL_AUTO);
    setenv("MINIBLAS_SGEMM", "warp-magic", 1);
    fresh(&h);
    mb_read_environment(&h);
    CHECK(h.env_sel[MINIBLAS_OP_SGEMM] == MB_SEL_UNKNOWN);
    CHECK(strcmp(h.env_value[MINIBLAS_OP_SGEMM], "warp-magic") == 0);
    CHECK(strcmp(miniblas_get_rung((miniblas_handle_t)&h, MINIBLAS_OP_SGEMM), "warp-magic") == 0);
    {
        mb_shape sh = shape_of(MINIBLAS_OP_SGEMM, 2);
        const mb_rung *r = NULL;
        CHECK(mb_select(&h, MINIBLAS_OP_SGEMM, &sh, &r) == MINIBLAS_STATUS_UNKNOWN_RUNG);
        CHECKF(strstr(h.err, "MINIBLAS_SGEMM=warp-magic") && strstr(h.err, "naive") &&
                   strstr(h.err, "auto"),
               "message '%s'", h.err);
        /* the handle setting overrides the bad environment */
        CHECK(miniblas_set_rung((miniblas_handle_t)&h, MINIBLAS_OP_SGEMM, "naive") ==
              MINIBLAS_STATUS_SUCCESS);
        r = NULL;
        CHECK(mb_select(&h, MINIBLAS_OP_SGEMM, &sh, &r) == MINIBLAS_STATUS_SUCCESS &&
              r == &mb_sgemm_rungs[0]);
    }
    /* a long value is kept cut, not overflowed */
    {
        char longv[300];
        memset(longv, 'z', sizeof longv - 1);
        longv[sizeof longv - 1] = '\0';
        setenv("MINIBLAS_SGEMM", longv, 1);
        fresh(&h);
        mb_read_environment(&h);
        CHECK(h.env_sel[MINIBLAS_OP_SGEMM] == MB_SEL_UNKNOWN);
        CHECK(strlen(h.env_value[MINIBLAS_OP_SGEMM]) == MB_NAME_MAX - 1);
    }
    unsetenv("MINIBLAS_SGEMM");

    /* every op's variable, with its last rung's name */
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        int n = miniblas_rung_count((miniblas_op_t)op);
        setenv(op_envs[op], miniblas_rung_name((miniblas_op_t)op, n - 1), 1);
    }
    fresh(&h);
    mb_read_environment(&h);
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        int n = miniblas_rung_count((miniblas_op_t)op);
        CHECKF(h.env_sel[op] == n - 1, "%s: env_sel %d", op_envs[op], h.env_sel[op]);
    }
    clear_env();

    /* MINIBLAS_MATH_MODE */
    const char *allow[] = {"tf32", "TF32", "reduced", "fast"};
    for (int i = 0; i < 4; ++i) {
        setenv("MINIBLAS_MATH_MODE", allow[i], 1);
        fresh(&h);
        mb_read_environment(&h);
        CHECKF(h.math_mode == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION, "MINIBLAS_MATH_MODE=%s",
               allow[i]);
    }
    const char *deny[] = {"", "default", "fp32", "1"};
    for (int i = 0; i < 4; ++i) {
        setenv("MINIBLAS_MATH_MODE", deny[i], 1);
        fresh(&h);
        h.math_mode = MINIBLAS_MATH_ALLOW_REDUCED_PRECISION;
        mb_read_environment(&h);
        CHECKF(h.math_mode == MINIBLAS_MATH_DEFAULT, "MINIBLAS_MATH_MODE=%s", deny[i]);
    }
    clear_env();
}

/* The public rung and handle functions that touch no GPU, on a hand-built context. */
static void test_handle_functions(void) {
    /* NULL handle */
    CHECK(miniblas_set_rung(NULL, MINIBLAS_OP_SGEMM, "naive") == MINIBLAS_STATUS_NOT_INITIALIZED);
    CHECK(miniblas_get_rung(NULL, MINIBLAS_OP_SGEMM) == NULL);
    CHECK(miniblas_last_rung(NULL, MINIBLAS_OP_SGEMM) == NULL);
    CHECK(miniblas_last_error(NULL) != NULL && miniblas_last_error(NULL)[0] != '\0');
    CHECK(miniblas_last_error_param(NULL) == 0);
    CHECK(miniblas_set_math_mode(NULL, MINIBLAS_MATH_DEFAULT) == MINIBLAS_STATUS_NOT_INITIALIZED);
    CHECK(miniblas_get_math_mode(NULL) == MINIBLAS_MATH_DEFAULT);
    CHECK(miniblas_set_stream(NULL, 0) == MINIBLAS_STATUS_NOT_INITIALIZED);
    CHECK(miniblas_get_device(NULL) == -1);
    CHECK(miniblas_destroy(NULL) == MINIBLAS_STATUS_NOT_INITIALIZED);
    {
        float f = 0;
        CHECK(miniblas_sgemm(NULL, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 1, 1, 1,
                             1.f, &f, 1, &f, 1, 0.f, &f, 1) == MINIBLAS_STATUS_NOT_INITIALIZED);
        CHECK(miniblas_somatcopy(NULL, MiniblasColMajor, MiniblasNoTrans, 1, 1, 1.f, &f, 1, &f,
                                 1) == MINIBLAS_STATUS_NOT_INITIALIZED);
        CHECK(miniblas_sasum(NULL, 1, &f, 1, &f) == MINIBLAS_STATUS_NOT_INITIALIZED);
        CHECK(miniblas_sdot(NULL, 1, &f, 1, &f, 1, &f) == MINIBLAS_STATUS_NOT_INITIALIZED);
    }

    struct miniblas_context ctx;
    fresh(&ctx);
    miniblas_handle_t h = (miniblas_handle_t)&ctx;
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        miniblas_op_t o = (miniblas_op_t)op;
        int n = miniblas_rung_count(o);
        CHECK(strcmp(miniblas_get_rung(h, o), "auto") == 0);
        CHECK(miniblas_last_rung(h, o) != NULL && miniblas_last_rung(h, o)[0] == '\0');
        for (int i = 0; i < n; ++i) {
            const char *name = miniblas_rung_name(o, i);
            char up[MB_NAME_MAX];
            upper(up, name, sizeof up);
            CHECK(miniblas_set_rung(h, o, name) == MINIBLAS_STATUS_SUCCESS);
            CHECK(ctx.sel[op] == i);
            CHECK(strcmp(miniblas_get_rung(h, o), name) == 0);
            CHECK(miniblas_set_rung(h, o, "auto") == MINIBLAS_STATUS_SUCCESS);
            CHECK(ctx.sel[op] == MB_SEL_AUTO);
            CHECK(miniblas_set_rung(h, o, up) == MINIBLAS_STATUS_SUCCESS && ctx.sel[op] == i);
            CHECK(miniblas_set_rung(h, o, NULL) == MINIBLAS_STATUS_SUCCESS &&
                  ctx.sel[op] == MB_SEL_AUTO);
        }
        /* an unknown name: status, parameter 3, the message lists the valid names; the
         * setting is unchanged */
        CHECK(miniblas_set_rung(h, o, "naive") == MINIBLAS_STATUS_SUCCESS);
        CHECK(miniblas_set_rung(h, o, "hyperdrive") == MINIBLAS_STATUS_UNKNOWN_RUNG);
        CHECK(miniblas_last_error_param(h) == 3);
        const char *msg = miniblas_last_error(h);
        CHECKF(msg && strstr(msg, "hyperdrive") && strstr(msg, "auto"), "message '%s'", msg);
        for (int i = 0; i < n; ++i)
            CHECK(msg && strstr(msg, miniblas_rung_name(o, i)) != NULL);
        CHECK(ctx.sel[op] == 0);
        /* the next successful call clears the error */
        CHECK(miniblas_set_rung(h, o, "auto") == MINIBLAS_STATUS_SUCCESS);
        CHECK(miniblas_last_error(h)[0] == '\0' && miniblas_last_error_param(h) == 0);
        /* last_rung reports what the context holds */
        ctx.last_rung[op] = "naive";
        CHECK(strcmp(miniblas_last_rung(h, o), "naive") == 0);
        ctx.last_rung[op] = "";
    }
    CHECK(miniblas_set_rung(h, (miniblas_op_t)MINIBLAS_OP_COUNT, "naive") ==
          MINIBLAS_STATUS_INVALID_VALUE);
    CHECK(miniblas_last_error_param(h) == 2);
    CHECK(miniblas_set_rung(h, (miniblas_op_t)-1, "naive") == MINIBLAS_STATUS_INVALID_VALUE);
    CHECK(miniblas_get_rung(h, (miniblas_op_t)MINIBLAS_OP_COUNT) == NULL);
    CHECK(miniblas_last_rung(h, (miniblas_op_t)-1) == NULL);

    /* math mode */
    CHECK(miniblas_get_math_mode(h) == MINIBLAS_MATH_DEFAULT);
    CHECK(miniblas_set_math_mode(h, MINIBLAS_MATH_ALLOW_REDUCED_PRECISION) ==
          MINIBLAS_STATUS_SUCCESS);
    CHECK(miniblas_get_math_mode(h) == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION);
    CHECK(miniblas_set_math_mode(h, (miniblas_math_mode_t)7) == MINIBLAS_STATUS_INVALID_VALUE);
    CHECK(miniblas_get_math_mode(h) == MINIBLAS_MATH_ALLOW_REDUCED_PRECISION);
    CHECK(miniblas_set_math_mode(h, MINIBLAS_MATH_DEFAULT) == MINIBLAS_STATUS_SUCCESS);

    /* the public entry points reject bad arguments through the one check before touching the
     * GPU, with the check's parameter number and message */
    {
        float f[4] = {0};
        fresh(&ctx);
        CHECK(miniblas_sgemm(h, (miniblas_layout_t)0, MiniblasNoTrans, MiniblasNoTrans, 1, 1, 1,
                             1.f, f, 1, f, 1, 0.f, f, 1) == MINIBLAS_STATUS_INVALID_VALUE);
        CHECK(miniblas_last_error_param(h) == 1 && miniblas_last_error(h)[0] != '\0');
        CHECK(miniblas_dgemm(h, MiniblasRowMajor, MiniblasNoTrans, MiniblasNoTrans, -1, -1, 1,
                             1.0, (double *)f, 1, (double *)f, 1, 0.0, (double *)f, 1) ==
              MINIBLAS_STATUS_INVALID_VALUE);
        CHECK(miniblas_last_error_param(h) == 5);
        CHECK(miniblas_sgemm(h, MiniblasColMajor, MiniblasTrans, MiniblasNoTrans, 2, 2, 7, 1.f,
                             f, 3, f, 7, 0.f, f, 2) == MINIBLAS_STATUS_INVALID_VALUE);
        CHECK(miniblas_last_error_param(h) == 9 &&
              strcmp(miniblas_last_error(h),
                     "lda = 3 is less than max(1, K) = 7 (parameter 9)") == 0);
        CHECK(miniblas_somatcopy(h, MiniblasColMajor, MiniblasNoTrans, 2, 2, 1.f, f, 2, NULL,
                                 2) == MINIBLAS_STATUS_INVALID_VALUE);
        CHECK(miniblas_last_error_param(h) == 8);
        CHECK(miniblas_sasum(h, 4, f, 1, NULL) == MINIBLAS_STATUS_INVALID_VALUE);
        CHECK(miniblas_last_error_param(h) == 4);
        CHECK(miniblas_ddot(h, 4, NULL, 1, (double *)f, 1, (double *)f) ==
              MINIBLAS_STATUS_INVALID_VALUE);
        CHECK(miniblas_last_error_param(h) == 2);
        /* M == 0: nothing to compute, no GPU needed */
        CHECK(miniblas_sgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, 0, 3, 3, 1.f,
                             NULL, 1, NULL, 3, 0.f, NULL, 1) == MINIBLAS_STATUS_SUCCESS);
        CHECK(strcmp(miniblas_last_rung(h, MINIBLAS_OP_SGEMM), "none") == 0);
        CHECK(miniblas_last_error(h)[0] == '\0' && miniblas_last_error_param(h) == 0);
        CHECK(miniblas_domatcopy(h, MiniblasRowMajor, MiniblasTrans, 4, 0, 1.0, NULL, 1, NULL,
                                 4) == MINIBLAS_STATUS_SUCCESS);
        CHECK(strcmp(miniblas_last_rung(h, MINIBLAS_OP_DOMATCOPY), "none") == 0);
    }
}

static void test_status_version(void) {
    const miniblas_status_t all[] = {
        MINIBLAS_STATUS_SUCCESS,      MINIBLAS_STATUS_INVALID_VALUE,
        MINIBLAS_STATUS_NOT_INITIALIZED, MINIBLAS_STATUS_ALLOC_FAILED,
        MINIBLAS_STATUS_CUDA_ERROR,   MINIBLAS_STATUS_UNKNOWN_RUNG,
        MINIBLAS_STATUS_NOT_SUPPORTED};
    const int n = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < n; ++i) {
        const char *s = miniblas_status_string(all[i]);
        CHECKF(s && s[0], "status %d", (int)all[i]);
        for (int j = 0; j < i; ++j)
            CHECKF(s && strcmp(s, miniblas_status_string(all[j])) != 0, "status %d and %d",
                   (int)all[i], (int)all[j]);
    }
    CHECK(miniblas_status_string((miniblas_status_t)99) != NULL);
    CHECK(miniblas_status_string((miniblas_status_t)-1) != NULL);

    int a = -1, b = -1, c = -1;
    miniblas_version(&a, &b, &c);
    CHECK(a == MINIBLAS_VERSION_MAJOR && b == MINIBLAS_VERSION_MINOR &&
          c == MINIBLAS_VERSION_PATCH);
    miniblas_version(NULL, NULL, NULL); /* must not crash */
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", MINIBLAS_VERSION_MAJOR, MINIBLAS_VERSION_MINOR,
             MINIBLAS_VERSION_PATCH);
    CHECKF(miniblas_version_string() && strcmp(miniblas_version_string(), want) == 0,
           "'%s' vs '%s'", miniblas_version_string(), want);
    CHECK(strcmp(MINIBLAS_VERSION_STRING, want) == 0);
}

static void test_create_without_gpu(void) {
    CHECK(miniblas_create(NULL) == MINIBLAS_STATUS_INVALID_VALUE);
    static struct miniblas_context dummy;
    miniblas_handle_t h = (miniblas_handle_t)&dummy; /* must be overwritten */
    miniblas_status_t st = miniblas_create(&h);
    if (st == MINIBLAS_STATUS_SUCCESS) {
        /* there is a GPU: the handle is real */
        CHECK(h != NULL && h != (miniblas_handle_t)&dummy);
        if (h && h != (miniblas_handle_t)&dummy) {
            CHECK(strcmp(miniblas_get_rung(h, MINIBLAS_OP_SGEMM), "auto") == 0 ||
                  getenv("MINIBLAS_SGEMM") != NULL);
            CHECK(miniblas_destroy(h) == MINIBLAS_STATUS_SUCCESS);
        }
        printf("note: miniblas_create succeeded (a GPU is present); no-GPU case skipped\n");
    } else {
        CHECKF(st == MINIBLAS_STATUS_CUDA_ERROR || st == MINIBLAS_STATUS_ALLOC_FAILED ||
                   st == MINIBLAS_STATUS_NO_DRIVER || st == MINIBLAS_STATUS_NO_DEVICE ||
                   st == MINIBLAS_STATUS_DRIVER_TOO_OLD || st == MINIBLAS_STATUS_DEVICE_UNAVAILABLE,
               "status %d", (int)st);
        CHECK(h == NULL);
    }
}

int main(void) {
    test_tables();
    test_parse_and_list();
    test_select();
    test_environment();
    test_sm90_switches();
    test_handle_functions();
    test_status_version();
    test_create_without_gpu();
    return cpu_check_report("registry");
}
