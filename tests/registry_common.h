/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the registry tests (test_registry_cpu.c, test_registry_auto_cpu.c): the op names,
 * a hand-built context, shapes, small helpers. */
#ifndef MINIBLAS_TESTS_REGISTRY_COMMON_H
#define MINIBLAS_TESTS_REGISTRY_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>
#include "internal.h"
#include "arch.h"
#include "cpu_check.h"

static const char *const op_names[MINIBLAS_OP_COUNT] = {
    "sgemm", "dgemm", "somatcopy", "domatcopy", "sasum", "dasum", "sdot", "ddot"};
static const char *const op_envs[MINIBLAS_OP_COUNT] = {
    "MINIBLAS_SGEMM", "MINIBLAS_DGEMM", "MINIBLAS_SOMATCOPY", "MINIBLAS_DOMATCOPY",
    "MINIBLAS_SASUM", "MINIBLAS_DASUM", "MINIBLAS_SDOT", "MINIBLAS_DDOT"};

/* A context as miniblas_create would leave it, without the GPU parts. */
static inline void fresh(struct miniblas_context *h) {
    memset(h, 0, sizeof *h);
    h->cc_major = 9;
    h->cc_minor = 0;
    h->math_mode = MINIBLAS_MATH_DEFAULT;
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        h->sel[op] = MB_SEL_AUTO;
        h->env_sel[op] = MB_SEL_AUTO;
        h->last_rung[op] = "";
    }
}

/* Shapes that auto might treat differently: tiny, odd, large, skinny. */
static inline mb_shape shape_of(miniblas_op_t op, int which) {
    static const int64_t sz[] = {1, 7, 33, 257, 1000, 4096, 16384, (int64_t)1 << 28};
    int64_t s = sz[which % 8];
    mb_shape sh = {0, 0, 0, 0, 1, 1};
    switch (op) {
    case MINIBLAS_OP_SGEMM:
    case MINIBLAS_OP_DGEMM:
        sh.m = s > 65536 ? 65536 : s;
        sh.n = which >= 8 ? 1 : sh.m;
        sh.k = which >= 8 ? 3 * sh.m + 1 : sh.m;
        break;
    case MINIBLAS_OP_SOMATCOPY:
    case MINIBLAS_OP_DOMATCOPY:
        sh.m = s > 65536 ? 65536 : s;
        sh.n = which >= 8 ? 2 : sh.m;
        sh.trans = which & 1;
        break;
    default:
        sh.n = s;
        sh.incx = which >= 8 ? -2 : 1;
        sh.incy = which >= 8 ? 0 : 1;
        break;
    }
    return sh;
}
#define NSHAPES 16

static inline int list_has(const char *list, const char *name) {
    /* the list is "auto, a, b, ..." */
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ", "); tok; tok = strtok(NULL, ", "))
        if (strcmp(tok, name) == 0) return 1;
    return 0;
}

static inline void upper(char *dst, const char *src, size_t size) {
    size_t i = 0;
    for (; src[i] && i + 1 < size; ++i) dst[i] = (char)toupper((unsigned char)src[i]);
    dst[i] = '\0';
}

/* Whether rung i of op runs on the hand-built context's GPU with this build (on a machine with
 * a GPU, the code the library holds for device 0 counts). */
static inline int runs_on(const struct miniblas_context *h, miniblas_op_t op, int i) {
    mb_target tg = mb_target_of(h->device, h->cc_major * 10 + h->cc_minor);
    return mb_rung_runs(op, i, &tg, NULL, 0);
}

static inline void clear_env(void) {
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) unsetenv(op_envs[op]);
    unsetenv("MINIBLAS_MATH_MODE");
    unsetenv("MINIBLAS_PDL");
    unsetenv("MINIBLAS_SPLITK_CLUSTER");
}

#endif
