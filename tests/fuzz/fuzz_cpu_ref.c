/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU fuzzer: findings and divergences, the program's xerbla capture, OpenBLAS (the reference,
 * dlopen'ed). */
#include "fuzz_cpu.h"

/* ------------------------------------------------------------------ bookkeeping */

int g_verbose;
uint64_t g_seed;
int64_t g_iter;
char g_call[400]; /* the call being made, for messages */
long g_findings, g_calls, g_invalid, g_valid, g_check_calls;
long g_per_entry[16], g_div_count;

void finding(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ++g_findings;
    if (g_findings <= 40) {
        fprintf(stderr, "FINDING (seed %" PRIu64 " iteration %" PRId64 "): %s: ", g_seed, g_iter,
                g_call);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

/* Divergences from OpenBLAS that are not failures: counted by kind, the first of each shown. */
div_entry g_div[MAX_DIV];
void divergence(const char *key) {
    ++g_div_count;
    for (int i = 0; i < MAX_DIV; ++i) {
        if (!g_div[i].key[0]) {
            snprintf(g_div[i].key, sizeof g_div[i].key, "%s", key);
            snprintf(g_div[i].example, sizeof g_div[i].example, "%s", g_call);
        }
        if (!strcmp(g_div[i].key, key)) { ++g_div[i].n; return; }
    }
}

/* ------------------------------------------------------------------ xerbla capture */

xe_capture g_xe;
void xe_reset(void) { memset(&g_xe, 0, sizeof g_xe); }

/* Ours (the layer calls the program's cblas_xerbla) and OpenBLAS's (it calls xerbla_). */
void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    (void)form;
    if (g_xe.n++ == 0) {
        g_xe.param = (int)p;
        snprintf(g_xe.name, sizeof g_xe.name, "%s", rout ? rout : "");
        g_xe.fortran = 0;
    }
}
void xerbla_(const char *name, const blasint *info, size_t len) {
    if (g_xe.n++ == 0) {
        g_xe.param = (int)*info;
        snprintf(g_xe.name, sizeof g_xe.name, "%.*s", (int)(len < 39 ? len : 39), name);
        g_xe.fortran = 1;
    }
}

/* ------------------------------------------------------------------ OpenBLAS, the reference */

struct openblas ob;

int load_openblas(void) {
    const char *names[] = {getenv("MINIBLAS_CPU_BLAS_LIB"), "libopenblas.so.0", FUZZ_CPU_BLAS_PATH};
    for (int i = 0; i < 3 && !ob.h; ++i)
        if (names[i] && names[i][0]) ob.h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!ob.h) return 0;
#define GET(f, s) ob.f = (__typeof__(ob.f))dlsym(ob.h, s)
    GET(sgemm, "cblas_sgemm");
    GET(dgemm, "cblas_dgemm");
    GET(sasum, "cblas_sasum");
    GET(dasum, "cblas_dasum");
    GET(sdot, "cblas_sdot");
    GET(ddot, "cblas_ddot");
    GET(somatcopy, "cblas_somatcopy");
    GET(domatcopy, "cblas_domatcopy");
    GET(sgemm_, "sgemm_");
    GET(dgemm_, "dgemm_");
#undef GET
    return ob.sgemm && ob.dgemm && ob.sasum && ob.dasum && ob.sdot && ob.ddot && ob.somatcopy &&
           ob.domatcopy && ob.sgemm_ && ob.dgemm_;
}

