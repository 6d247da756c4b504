/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Error reporting of the layer. A bad argument or a call that cannot run goes through
 * cblas_xerbla (a weak default here; the program's wins) with the caller's parameter number,
 * or for a Fortran call through xerbla_ (the program's or the CPU BLAS's); the layer never
 * exits and never prints otherwise (the verbose notices aside).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT, vasprintf */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_internal.h"

int mbc_gemm_param_rowmajor(int param) {
    switch (param) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return param;
    }
}

/* While the layer reports an error on this thread: 1, or 2 for a row-major gemm (whose
 * number was swapped; our default cblas_xerbla prints the caller's number, as reference
 * CBLAS's does with its RowMajorStrg). */
static __thread int t_reporting;

typedef void (*mbc_xerbla_fn)(blasint, char *, char *, ...); /* OpenBLAS's cblas.h type */

/* The default cblas_xerbla, weak: a program (or a CBLAS linked before us) that defines its
 * own wins, and the layer calls whichever the dynamic linker's global scope finds first.
 *  - Called by the layer (a bad argument, a call that cannot run): prints like reference
 *    CBLAS ("Parameter N to routine R was incorrect", then the sentence) and returns: the
 *    library never exits, and a bad argument never stops the BLAS it replaces either.
 *  - Called by the program itself: what the program would get without the layer, i.e. the
 *    CPU BLAS's cblas_xerbla (OpenBLAS's, like reference CBLAS's, prints the same two parts
 *    and exits with status 255); with no CPU BLAS's to call, reference CBLAS's behaviour. */
__attribute__((weak)) void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    va_list ap;
    va_start(ap, form);
    if (t_reporting) {
        if (t_reporting == 2) p = (blasint)mbc_gemm_param_rowmajor((int)p);
        if (p != 0) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", (int)p, rout);
        if (form) vfprintf(stderr, form, ap);
        va_end(ap);
        return;
    }
    char *text = NULL;
    if (!form || vasprintf(&text, form, ap) < 0) text = NULL;
    va_end(ap);
    mbc_init();
    mbc_xerbla_fn theirs = mbc_cpu.handle ? (mbc_xerbla_fn)mbc_cpu_sym("cblas_xerbla") : NULL;
    if (theirs && theirs != (mbc_xerbla_fn)&cblas_xerbla) {
        char pct[] = "%s";
        theirs(p, rout, pct, text ? text : "");
        free(text);
        return; /* a CPU BLAS whose cblas_xerbla returns */
    }
    if (p != 0) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", (int)p, rout);
    if (text) fputs(text, stderr);
    free(text);
    exit(-1);
}

static void report(int param, const char *routine, const char *message, int how) {
    mbc_init(); /* the CPU BLAS known (a bad argument is found before the first init) */
    mbc_xerbla_fn f = (mbc_xerbla_fn)dlsym(RTLD_DEFAULT, "cblas_xerbla");
    /* the CPU BLAS's own (we were loaded with RTLD_LOCAL after it): it may exit, where the
     * CPU BLAS itself reports a bad argument and returns; ours instead */
    Dl_info in_f, in_cpu;
    if (f && mbc_cpu.handle && mbc_cpu.cblas_sgemm && dladdr((void *)f, &in_f) &&
        dladdr((void *)mbc_cpu.cblas_sgemm, &in_cpu) && in_f.dli_fbase == in_cpu.dli_fbase)
        f = NULL;
    if (!f) f = (mbc_xerbla_fn)&cblas_xerbla; /* we were loaded with RTLD_LOCAL */
    char form[] = "%s\n", rout[48];
    snprintf(rout, sizeof rout, "%s", routine);
    int saved = t_reporting;
    t_reporting = how;
    f((blasint)param, rout, form, message);
    t_reporting = saved;
}

void mbc_report_cblas(int param, const char *routine, const char *message) {
    report(param, routine, message, 1);
}

void mbc_report_cblas_gemm(int param, int row_major, const char *routine, const char *message) {
    if (row_major) report(mbc_gemm_param_rowmajor(param), routine, message, 2);
    else report(param, routine, message, 1);
}

/* A weak reference: at link time it makes the linker export a program's own xerbla_ (so we
 * can find it); at run time it is the program's, else the first global one, else NULL. */
extern void xerbla_(const char *, const blasint *, size_t) __attribute__((weak));

void mbc_report_fortran(int info, const char *routine6) {
    blasint i = (blasint)info;
    void (*f)(const char *, const blasint *, size_t) = xerbla_;
    if (!f) f = mbc_cpu.xerbla_;
    if (f) {
        f(routine6, &i, strlen(routine6));
        return;
    }
    fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", routine6,
            info);
}

void mbc_report_cannot(const char *routine, const char *why, const char *output) {
    char m[400];
    snprintf(m, sizeof m, "miniblas_cblas: %s cannot run: %s; %s", routine, why, output);
    mbc_report_cblas(0, routine, m);
}

void mbc_report_unreachable(int param, const char *routine, const char *operand) {
    char m[400];
    snprintf(m, sizeof m,
             "miniblas_cblas: %s: %s is not host memory (device memory?) and the GPU cannot be "
             "used (%s); nothing was written",
             routine, operand,
             mbc_flag(&mbc_forked)     ? "a child of fork()"
             : mbc_flag(&mbc_exiting)  ? "the process is exiting"
             : mbc_flag(&mbc_gpu_broken) ? "a CUDA error made it unusable"
             : mbc_cfg.gpu             ? "CUDA could not classify the pointer"
                                       : "the GPU is disabled or not found");
    mbc_report_cblas(param, routine, m);
}
