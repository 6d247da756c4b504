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

int mbc_cpu_gemm_colmajor(int dbl, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                          double beta, void *C, int64_t ldc) {
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

/* The default cblas_xerbla, weak: a program (or a CBLAS linked before us) that defines its
 * own wins, and we call whichever the dynamic linker's global scope finds first. It prints
 * like reference CBLAS but returns instead of exiting (miniblas never aborts). */
__attribute__((weak)) void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    va_list ap;
    va_start(ap, form);
    if (p != 0) fprintf(stderr, "Parameter %d to routine %s was incorrect\n", (int)p, rout);
    if (form) vfprintf(stderr, form, ap);
    va_end(ap);
}

typedef void (*mbc_xerbla_fn)(blasint, char *, char *, ...); /* OpenBLAS's cblas.h type */

void mbc_report_cblas(int param, const char *routine, const char *message) {
    mbc_xerbla_fn f = (mbc_xerbla_fn)dlsym(RTLD_DEFAULT, "cblas_xerbla");
    if (!f) f = (mbc_xerbla_fn)&cblas_xerbla; /* we were loaded with RTLD_LOCAL */
    char form[] = "%s\n", rout[48];
    snprintf(rout, sizeof rout, "%s", routine);
    f((blasint)param, rout, form, message);
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
