/*
 * The CPU BLAS, loaded at run time (like NVBLAS's NVBLAS_CPU_BLAS_LIB): dlopen of a library
 * name, then dlsym on THAT handle, so that a preloaded libminiblas_cblas never calls itself
 * (dlsym on a handle finds the library's own definition first, whatever is interposed).
 * Also the error reporting: cblas_xerbla (a weak default here; the program's wins) and the
 * Fortran xerbla_ (the program's or the CPU BLAS's).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_internal.h"
#include "miniblas_cblas.h"

mbc_cpu_blas mbc_cpu;

#ifndef MBC_BUILD_CPU_BLAS
#define MBC_BUILD_CPU_BLAS "" /* the OpenBLAS found at configure time (full path), if any */
#endif

/* A CPU BLAS symbol that lives in this very library (e.g. MINIBLAS_CPU_BLAS_LIB naming
 * libminiblas_cblas) would be a call into ourselves: refuse it. */
static void *sym(const char *name) {
    void *p = dlsym(mbc_cpu.handle, name);
    Dl_info mine, theirs;
    if (p && dladdr((void *)&mbc_cpu_load, &mine) && dladdr(p, &theirs) &&
        mine.dli_fbase == theirs.dli_fbase) {
        mbc_notice("CPU BLAS %s resolves %s to libminiblas_cblas itself; not used",
                   mbc_cpu.name, name);
        return NULL;
    }
    return p;
}

static int try_open(const char *name) {
    if (!name || !name[0]) return 0;
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        mbc_notice("cannot load CPU BLAS %s: %s", name, dlerror());
        return 0;
    }
    mbc_cpu.handle = h;
    snprintf(mbc_cpu.name, sizeof mbc_cpu.name, "%s", name);
    return 1;
}

void mbc_cpu_load(void) {
    const char *env = getenv("MINIBLAS_CPU_BLAS_LIB");
    if (env && env[0]) {
        try_open(env); /* the user named one: that one or none */
    } else if (!try_open("libopenblas.so.0")) {
        try_open(MBC_BUILD_CPU_BLAS);
    }
    if (!mbc_cpu.handle) return;
#define GET(f) mbc_cpu.f = (__typeof__(mbc_cpu.f))sym(#f)
    GET(cblas_sgemm);
    GET(cblas_dgemm);
    GET(cblas_sasum);
    GET(cblas_dasum);
    GET(cblas_sdot);
    GET(cblas_ddot);
    GET(cblas_somatcopy);
    GET(cblas_domatcopy);
    GET(sgemm_);
    GET(dgemm_);
    GET(sasum_);
    GET(dasum_);
    GET(sdot_);
    GET(ddot_);
#undef GET
    mbc_cpu.xerbla_ = (__typeof__(mbc_cpu.xerbla_))dlsym(mbc_cpu.handle, "xerbla_");
}

const char *miniblas_cblas_cpu_blas(void) {
    mbc_init();
    return mbc_cpu.handle ? mbc_cpu.name : NULL;
}

void mbc_cpu_scale_c(int dbl, int64_t m, int64_t n, double beta, void *C, int64_t ldc) {
    for (int64_t j = 0; j < n; ++j)
        for (int64_t i = 0; i < m; ++i) {
            size_t at = (size_t)i + (size_t)j * (size_t)ldc;
            if (dbl)
                ((double *)C)[at] = beta == 0 ? 0.0 : beta * ((double *)C)[at];
            else
                ((float *)C)[at] = beta == 0 ? 0.0f : (float)beta * ((float *)C)[at];
        }
}

int mbc_cpu_gemm_colmajor(int dbl, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                          double beta, void *C, int64_t ldc) {
    if (k == 0 || alpha == 0) { /* A and B not referenced (may be NULL): the CPU BLAS might */
        mbc_cpu_scale_c(dbl, m, n, beta, C, ldc);
        return 0;
    }
    blasint M = (blasint)m, N = (blasint)n, K = (blasint)k, LDA = (blasint)lda,
            LDB = (blasint)ldb, LDC = (blasint)ldc;
    const char *TA = ta ? "T" : "N", *TB = tb ? "T" : "N";
    enum CBLAS_TRANSPOSE cta = ta ? CblasTrans : CblasNoTrans, ctb = tb ? CblasTrans : CblasNoTrans;
    if (!dbl) {
        float fa = (float)alpha, fb = (float)beta;
        if (mbc_cpu.sgemm_) {
            mbc_cpu.sgemm_(TA, TB, &M, &N, &K, &fa, A, &LDA, B, &LDB, &fb, C, &LDC, 1, 1);
            return 0;
        }
        if (mbc_cpu.cblas_sgemm) {
            mbc_cpu.cblas_sgemm(CblasColMajor, cta, ctb, M, N, K, fa, A, LDA, B, LDB, fb, C, LDC);
            return 0;
        }
    } else {
        if (mbc_cpu.dgemm_) {
            mbc_cpu.dgemm_(TA, TB, &M, &N, &K, &alpha, A, &LDA, B, &LDB, &beta, C, &LDC, 1, 1);
            return 0;
        }
        if (mbc_cpu.cblas_dgemm) {
            mbc_cpu.cblas_dgemm(CblasColMajor, cta, ctb, M, N, K, alpha, A, LDA, B, LDB, beta, C,
                                LDC);
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------------------------ error reporting */

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
    mbc_xerbla_fn theirs = mbc_cpu.handle ? (mbc_xerbla_fn)sym("cblas_xerbla") : NULL;
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
