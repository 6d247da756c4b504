/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU BLAS, loaded at run time (like NVBLAS's NVBLAS_CPU_BLAS_LIB): dlopen of a library
 * name, then dlsym on THAT handle, so that a preloaded libminiblas_cblas never calls itself
 * (dlsym on a handle finds the library's own definition first, whatever is interposed).
 * Also the column-major gemm and the C = beta C of the CPU completion of a gemm.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include "cblas_internal.h"
#include "miniblas_cblas.h"

mbc_cpu_blas mbc_cpu;

#ifndef MBC_BUILD_CPU_BLAS
#define MBC_BUILD_CPU_BLAS "" /* the OpenBLAS found at configure time (full path), if any */
#endif

/* A CPU BLAS symbol that lives in this very library (e.g. MINIBLAS_CPU_BLAS_LIB naming
 * libminiblas_cblas) would be a call into ourselves: refuse it. */
void *mbc_cpu_sym(const char *name) {
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
    if (mbc_cfg.cpu_blas_lib[0]) {
        try_open(mbc_cfg.cpu_blas_lib); /* the user named one: that one or none */
    } else if (!try_open("libopenblas.so.0")) {
        try_open(MBC_BUILD_CPU_BLAS);
    }
    if (!mbc_cpu.handle) return;
#define GET(f) mbc_cpu.f = (__typeof__(mbc_cpu.f))mbc_cpu_sym(#f)
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

int mbc_cpu_reduce(int dbl, int64_t n, const void *x, const void *y, double *result) {
    blasint N = (blasint)n, one = 1;
    if (y) {
        if (dbl && mbc_cpu.cblas_ddot) *result = mbc_cpu.cblas_ddot(N, x, 1, y, 1);
        else if (dbl && mbc_cpu.ddot_) *result = mbc_cpu.ddot_(&N, x, &one, y, &one);
        else if (!dbl && mbc_cpu.cblas_sdot) *result = mbc_cpu.cblas_sdot(N, x, 1, y, 1);
        else if (!dbl && mbc_cpu.sdot_) *result = mbc_cpu.sdot_(&N, x, &one, y, &one);
        else return -1;
    } else {
        if (dbl && mbc_cpu.cblas_dasum) *result = mbc_cpu.cblas_dasum(N, x, 1);
        else if (dbl && mbc_cpu.dasum_) *result = mbc_cpu.dasum_(&N, x, &one);
        else if (!dbl && mbc_cpu.cblas_sasum) *result = mbc_cpu.cblas_sasum(N, x, 1);
        else if (!dbl && mbc_cpu.sasum_) *result = mbc_cpu.sasum_(&N, x, &one);
        else return -1;
    }
    return 0;
}
