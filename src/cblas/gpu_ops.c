/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * asum, dot and omatcopy on the GPU: operands in place (device, managed) or staged through the
 * pinned chunks (staging.c), one native miniblas call, the result or output copied back.
 */
#include <stdio.h>
#include <string.h>
#include "cblas_gpu.h"

/* ------------------------------------------------------------------ reductions */

/* A device vector for one reduction operand: in place, or staged contiguous (inc 1). */
static cudaError_t vec_operand(mbc_state *s, int slot, int64_t n, const void *x, int64_t inc,
                               int kind, const char **dx, int64_t *dinc) {
    if (kind == MBC_DEVICE) {
        *dx = x;
        *dinc = inc;
        return cudaSuccess;
    }
    size_t e = s->elem;
    char *d;
    cudaError_t err = mbc_dbuf(s, slot, (size_t)n * e, &d);
    if (err != cudaSuccess) return err;
    const char *x0 = (const char *)x + (inc < 0 ? (size_t)((n - 1) * -inc) * e : 0);
    err = mbc_h2d_vec(s, d, x0, inc, n, kind);
    *dx = d;
    *dinc = 1;
    return err;
}

static int gpu_reduce(int dbl, int64_t n, const void *x, int64_t incx, int x_kind,
                      const void *y, int64_t incy, int y_kind, double *result, char *msg,
                      size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    if (mbc_frame_enter(&f, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    const char *what = "cudaHostAlloc (pinned staging)";
    int staged = x_kind != MBC_DEVICE || (y && y_kind != MBC_DEVICE);
    size_t need = mbc_chunk_size((size_t)n * e);
    cudaError_t err = staged ? mbc_ensure_chunks(s, need) : cudaSuccess;
    if (err == cudaSuccess && (x_kind == MBC_DEVICE || (y && y_kind == MBC_DEVICE)))
        what = "waiting for the caller's default stream", err = mbc_comp_after_caller(s);
    const char *dx = NULL, *dy = NULL;
    int64_t ix = incx, iy = incy;
    if (err == cudaSuccess) what = "copy to the GPU", err = vec_operand(s, 0, n, x, incx, x_kind, &dx, &ix);
    if (err == cudaSuccess && y) err = vec_operand(s, 1, n, y, incy, y_kind, &dy, &iy);
    if (err == cudaSuccess) err = mbc_comp_after_in(s);
    if (err == cudaSuccess) {
        what = y ? "dot" : "asum";
        if (dbl) {
            double r = 0;
            st = y ? miniblas_ddot(s->h, n, (const double *)dx, ix, (const double *)dy, iy, &r)
                   : miniblas_dasum(s->h, n, (const double *)dx, ix, &r);
            *result = r;
        } else {
            float r = 0;
            st = y ? miniblas_sdot(s->h, n, (const float *)dx, ix, (const float *)dy, iy, &r)
                   : miniblas_sasum(s->h, n, (const float *)dx, ix, &r);
            *result = r;
        }
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) what = "sync", err = mbc_sync_all(s);
    return mbc_frame_leave(&f, err, st, what);
}

int mbc_gpu_asum(int dbl, int64_t n, const void *x, int64_t incx, int x_kind, double *result,
                 char *msg, size_t msg_size) {
    return gpu_reduce(dbl, n, x, incx, x_kind, NULL, 0, MBC_DEVICE, result, msg, msg_size);
}

int mbc_gpu_dot(int dbl, int64_t n, const void *x, int64_t incx, int x_kind, const void *y,
                int64_t incy, int y_kind, double *result, char *msg, size_t msg_size) {
    return gpu_reduce(dbl, n, x, incx, x_kind, y, incy, y_kind, result, msg, msg_size);
}

/* ------------------------------------------------------------------ omatcopy */

int mbc_gpu_omatcopy(int dbl, int trans, int64_t rows, int64_t cols, double alpha,
                     const void *A, int64_t lda, int a_kind, void *B, int64_t ldb, int b_kind,
                     char *msg, size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    if (mbc_frame_enter(&f, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    cudaError_t err = cudaSuccess;
    const char *what = "cudaHostAlloc (pinned staging)";
    int64_t b_lead = trans ? cols : rows, b_other = trans ? rows : cols;
    int b_direct = b_kind == MBC_PINNED;
    int staged = a_kind == MBC_HOST || (b_kind != MBC_DEVICE && !b_direct);
    size_t need = mbc_chunk_size((size_t)rows * (size_t)cols * e);
    if (staged) err = mbc_ensure_chunks(s, need);
    if (err == cudaSuccess && (a_kind == MBC_DEVICE || b_kind == MBC_DEVICE))
        what = "waiting for the caller's default stream", err = mbc_comp_after_caller(s);
    char *dA = (char *)A, *dB = B;
    int64_t ldA = lda, ldB = ldb;
    if (err == cudaSuccess && a_kind != MBC_DEVICE) {
        what = "cudaMalloc (device buffers)";
        err = mbc_dbuf(s, 0, (size_t)rows * (size_t)cols * e, &dA);
        ldA = rows;
        if (err == cudaSuccess)
            what = "copy to the GPU", err = mbc_h2d_2d(s, dA, ldA, A, lda, rows, cols, a_kind);
    }
    if (err == cudaSuccess && b_kind != MBC_DEVICE) {
        what = "cudaMalloc (device buffers)";
        err = mbc_dbuf(s, 1, (size_t)rows * (size_t)cols * e, &dB);
        ldB = b_lead;
    }
    if (err == cudaSuccess) err = mbc_comp_after_in(s);
    if (err == cudaSuccess) {
        what = "omatcopy";
        miniblas_transpose_t t = trans ? MiniblasTrans : MiniblasNoTrans;
        st = dbl ? miniblas_domatcopy(s->h, MiniblasColMajor, t, rows, cols, alpha,
                                      (const double *)dA, ldA, (double *)dB, ldB)
                 : miniblas_somatcopy(s->h, MiniblasColMajor, t, rows, cols, (float)alpha,
                                      (const float *)dA, ldA, (float *)dB, ldB);
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS && b_kind != MBC_DEVICE) {
        what = "copy from the GPU";
        s->out_rows = b_lead;
        err = mbc_out_after_comp(s);
        if (err == cudaSuccess)
            err = mbc_d2h_2d(s, B, ldb, dB, ldB, b_lead, b_other, b_direct, 0);
        if (err == cudaSuccess) err = mbc_drain_out(s);
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) what = "sync", err = mbc_sync_all(s);
    return mbc_frame_leave(&f, err, st, what);
}
