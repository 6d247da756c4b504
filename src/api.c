/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The native entry points: check the arguments (check.c), return early where BLAS says
 * there is nothing to compute, normalise row-major to column-major, pick the rung
 * (rungs.c / auto.c) and launch it on the handle's device and stream.
 */
#include <string.h>
#include "check.h"
#include "internal.h"

/* Make the handle's device current for the call; restored by leave(). */
static cudaError_t enter(struct miniblas_context *h, int *prev) {
    cudaError_t e = cudaGetDevice(prev);
    if (e == cudaSuccess && *prev != h->device) e = cudaSetDevice(h->device);
    return e;
}
static void leave(struct miniblas_context *h, int prev) {
    if (prev != h->device) cudaSetDevice(prev);
}

/* Launch a rung (or helper) and turn a failure into the handle's error. */
static miniblas_status_t launched(struct miniblas_context *h, cudaError_t e, const char *what,
                                  int prev) {
    leave(h, prev);
    return e == cudaSuccess ? MINIBLAS_STATUS_SUCCESS : mb_cuda_fail(h, e, what);
}

/* Pick the rung for the shape and launch it on the handle's stream (device already current;
 * restored here). */
static miniblas_status_t select_and_launch(struct miniblas_context *h, miniblas_op_t op,
                                           const mb_shape *shape, const void *args, int prev) {
    const mb_rung *r;
    miniblas_status_t st = mb_select(h, op, shape, &r);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        leave(h, prev);
        return st;
    }
    h->last_rung[op] = r->name;
    return launched(h, r->launch(args, h->stream), r->name, prev);
}

/* ------------------------------------------------------------------ gemm */

static miniblas_status_t gemm(struct miniblas_context *h, miniblas_op_t op, size_t elem,
                              miniblas_layout_t layout, miniblas_transpose_t transa,
                              miniblas_transpose_t transb, int64_t m, int64_t n, int64_t k,
                              double alpha, const void *A, int64_t lda, const void *B,
                              int64_t ldb, double beta, void *C, int64_t ldc) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    mb_clear_error(h);
    mb_check_error ce;
    if (mb_check_gemm(layout, transa, transb, m, n, k, alpha == 0, A, lda, B, ldb, beta == 0, C,
                      ldc, elem, &ce))
        return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, ce.param, "%s", ce.message);
    if (m == 0 || n == 0) {
        h->last_rung[op] = "none";
        return MINIBLAS_STATUS_SUCCESS;
    }
    mb_gemm_args a = {mb_trans_code(transa), mb_trans_code(transb), m, n, k, alpha, beta,
                      A, lda, B, ldb, C, ldc, h->gemm_work, MB_GEMM_WORK_BYTES, h->pool, h->pdl,
                      h->splitk_cluster};
    if (layout == MiniblasRowMajor) { /* C^T = op(B)^T op(A)^T, all column-major */
        a.transa = mb_trans_code(transb);
        a.transb = mb_trans_code(transa);
        a.m = n;
        a.n = m;
        a.A = B;
        a.lda = ldb;
        a.B = A;
        a.ldb = lda;
    }
    int prev;
    cudaError_t e = enter(h, &prev);
    if (e != cudaSuccess) return mb_cuda_fail(h, e, "cudaSetDevice");
    if (k == 0 || alpha == 0) {
        h->last_rung[op] = "scale";
        e = op == MINIBLAS_OP_SGEMM ? mb_sgemm_scale(&a, h->stream) : mb_dgemm_scale(&a, h->stream);
        return launched(h, e, "gemm beta-scale launch", prev);
    }
    mb_shape shape = {a.m, a.n, a.k, a.transa | a.transb << 1, 0, 0};
    return select_and_launch(h, op, &shape, &a, prev);
}

miniblas_status_t miniblas_sgemm(miniblas_handle_t h, miniblas_layout_t layout,
                                 miniblas_transpose_t transa, miniblas_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, float alpha, const float *A,
                                 int64_t lda, const float *B, int64_t ldb, float beta, float *C,
                                 int64_t ldc) {
    return gemm(h, MINIBLAS_OP_SGEMM, sizeof(float), layout, transa, transb, m, n, k, alpha, A,
                lda, B, ldb, beta, C, ldc);
}

miniblas_status_t miniblas_dgemm(miniblas_handle_t h, miniblas_layout_t layout,
                                 miniblas_transpose_t transa, miniblas_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, double alpha, const double *A,
                                 int64_t lda, const double *B, int64_t ldb, double beta,
                                 double *C, int64_t ldc) {
    return gemm(h, MINIBLAS_OP_DGEMM, sizeof(double), layout, transa, transb, m, n, k, alpha, A,
                lda, B, ldb, beta, C, ldc);
}

/* ------------------------------------------------------------------ omatcopy */

static miniblas_status_t omatcopy(struct miniblas_context *h, miniblas_op_t op, size_t elem,
                                  miniblas_layout_t layout, miniblas_transpose_t trans,
                                  int64_t rows, int64_t cols, double alpha, const void *A,
                                  int64_t lda, void *B, int64_t ldb) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    mb_clear_error(h);
    mb_check_error ce;
    if (mb_check_omatcopy(layout, trans, rows, cols, A, lda, B, ldb, elem, &ce))
        return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, ce.param, "%s", ce.message);
    if (rows == 0 || cols == 0) {
        h->last_rung[op] = "none";
        return MINIBLAS_STATUS_SUCCESS;
    }
    mb_omatcopy_args a = {mb_trans_code(trans), rows, cols, alpha, A, lda, B, ldb};
    if (layout == MiniblasRowMajor) { /* a row-major rows x cols matrix is a column-major cols x rows one */
        a.rows = cols;
        a.cols = rows;
    }
    int prev;
    cudaError_t e = enter(h, &prev);
    if (e != cudaSuccess) return mb_cuda_fail(h, e, "cudaSetDevice");
    if (alpha == 0) { /* B = 0 without reading A (NaN or Inf in A gives 0, as BLAS) */
        mb_gemm_args z;
        memset(&z, 0, sizeof z);
        z.m = a.trans ? a.cols : a.rows; /* B's column-major shape */
        z.n = a.trans ? a.rows : a.cols;
        z.C = B;
        z.ldc = ldb; /* beta = 0: zeros written, B not read, padding untouched */
        h->last_rung[op] = "scale";
        e = op == MINIBLAS_OP_SOMATCOPY ? mb_sgemm_scale(&z, h->stream)
                                        : mb_dgemm_scale(&z, h->stream);
        return launched(h, e, "omatcopy zero-fill launch", prev);
    }
    mb_shape shape = {a.rows, a.cols, 0, a.trans, 0, 0};
    return select_and_launch(h, op, &shape, &a, prev);
}

miniblas_status_t miniblas_somatcopy(miniblas_handle_t h, miniblas_layout_t layout,
                                     miniblas_transpose_t trans, int64_t rows, int64_t cols,
                                     float alpha, const float *A, int64_t lda, float *B,
                                     int64_t ldb) {
    return omatcopy(h, MINIBLAS_OP_SOMATCOPY, sizeof(float), layout, trans, rows, cols, alpha, A,
                    lda, B, ldb);
}

miniblas_status_t miniblas_domatcopy(miniblas_handle_t h, miniblas_layout_t layout,
                                     miniblas_transpose_t trans, int64_t rows, int64_t cols,
                                     double alpha, const double *A, int64_t lda, double *B,
                                     int64_t ldb) {
    return omatcopy(h, MINIBLAS_OP_DOMATCOPY, sizeof(double), layout, trans, rows, cols, alpha,
                    A, lda, B, ldb);
}

/* ------------------------------------------------------------------ asum, dot */

/* One reduction. y == NULL: asum. to_host: *result is host memory and the call waits. */
static miniblas_status_t reduce(struct miniblas_context *h, miniblas_op_t op, size_t elem,
                                int64_t n, const void *x, int64_t incx, const void *y,
                                int64_t incy, void *result, int to_host) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    mb_clear_error(h);
    int is_dot = (op == MINIBLAS_OP_SDOT || op == MINIBLAS_OP_DDOT);
    mb_check_error ce;
    if (is_dot ? mb_check_dot(n, x, incx, y, incy, result, elem, &ce)
               : mb_check_asum(n, x, incx, result, elem, &ce))
        return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, ce.param, "%s", ce.message);
    int prev;
    cudaError_t e = enter(h, &prev);
    if (e != cudaSuccess) return mb_cuda_fail(h, e, "cudaSetDevice");
    void *out = to_host ? h->result_dev : result;
    if (n <= 0 || (!is_dot && incx <= 0)) { /* reference BLAS: the result is 0 */
        h->last_rung[op] = "none";
        if (to_host) {
            memset(result, 0, elem);
            leave(h, prev);
            return MINIBLAS_STATUS_SUCCESS;
        }
        return launched(h, cudaMemsetAsync(result, 0, elem, h->stream), "cudaMemsetAsync", prev);
    }
    /* Logical element 0: a negative increment starts at the far end of the vector. */
    const char *x0 = (const char *)x + (size_t)mb_vector_start(n, incx) * elem;
    const char *y0 = is_dot ? (const char *)y + (size_t)mb_vector_start(n, incy) * elem : NULL;
    if (n == 1) /* one element: the increments are never used; no launcher sees an extreme one */
        incx = incy = 1;
    mb_reduce_args a = {n, x0, incx, y0, incy, out, h->work, MB_WORK_BYTES};
    mb_shape shape = {0, n, 0, 0, incx, incy};
    const mb_rung *r;
    miniblas_status_t st = mb_select(h, op, &shape, &r);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        leave(h, prev);
        return st;
    }
    h->last_rung[op] = r->name;
    e = r->launch(&a, h->stream);
    if (e == cudaSuccess && to_host) {
        e = cudaMemcpyAsync(h->result_host, h->result_dev, elem, cudaMemcpyDeviceToHost, h->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(h->stream);
        if (e == cudaSuccess) memcpy(result, h->result_host, elem);
    }
    return launched(h, e, r->name, prev);
}

#define ASUM(fn, T, OP, HOST)                                                                 \
    miniblas_status_t fn(miniblas_handle_t h, int64_t n, const T *x, int64_t incx, T *result) { \
        return reduce(h, OP, sizeof(T), n, x, incx, NULL, 0, result, HOST);                   \
    }
#define DOT(fn, T, OP, HOST)                                                                  \
    miniblas_status_t fn(miniblas_handle_t h, int64_t n, const T *x, int64_t incx, const T *y, \
                         int64_t incy, T *result) {                                           \
        return reduce(h, OP, sizeof(T), n, x, incx, y, incy, result, HOST);                   \
    }
ASUM(miniblas_sasum, float, MINIBLAS_OP_SASUM, 1)
ASUM(miniblas_dasum, double, MINIBLAS_OP_DASUM, 1)
ASUM(miniblas_sasum_device, float, MINIBLAS_OP_SASUM, 0)
ASUM(miniblas_dasum_device, double, MINIBLAS_OP_DASUM, 0)
DOT(miniblas_sdot, float, MINIBLAS_OP_SDOT, 1)
DOT(miniblas_ddot, double, MINIBLAS_OP_DDOT, 1)
DOT(miniblas_sdot_device, float, MINIBLAS_OP_SDOT, 0)
DOT(miniblas_ddot_device, double, MINIBLAS_OP_DDOT, 0)
