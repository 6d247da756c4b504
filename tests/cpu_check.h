/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The assertion counters of the plain-C tests (the CPU tests and the cblas GPU tests):
 * CHECK(cond) and CHECKF(cond, fmt, ...) count a pass or print the failing line (and the
 * message) and count a failure; cpu_check_report(name) prints "<name>: N passed, M failed"
 * and returns the exit status.
 */
#ifndef MINIBLAS_TESTS_CPU_CHECK_H
#define MINIBLAS_TESTS_CPU_CHECK_H

#include <stdio.h>

static int g_pass, g_fail;

#define CHECKF(cond, ...)                                                                     \
    do {                                                                                      \
        if (cond)                                                                             \
            ++g_pass;                                                                         \
        else {                                                                                \
            ++g_fail;                                                                         \
            printf("%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond);                         \
            printf(__VA_ARGS__);                                                              \
            printf("\n");                                                                     \
        }                                                                                     \
    } while (0)
#define CHECK(cond) CHECKF(cond, "%s", "")

static inline int cpu_check_report(const char *name) {
    printf("%s: %d passed, %d failed\n", name, g_pass, g_fail);
    return g_fail ? 1 : 0;
}

#endif
