/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * asum, dot and omatcopy on the GPU: operands in place (device, managed) or staged through the
 * pinned chunks (staging.c), one native miniblas call, the result or output copied back.
 * Reductions whose host vectors are all pinned, at unit increments, go by fixed pieces,
 * spread over several GPUs when the vectors are long enough (gpu_pieces).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_gpu.h"
#include "mgpu_plan.h"

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

/*
 * Pinned vectors by pieces (mgpu_plan.h: mbc_vec_plan). The vector is cut into pieces whose
 * length depends on n only; each piece is DMA'd from the caller's pinned memory straight into
 * a device buffer (no staging), reduced by one native call (the _device form: the piece
 * results stay on the GPU until the end of the share), and the piece results come back and
 * are added on the host in piece order (mbc_vec_combine). With several devices listed and a
 * share of at least split_vec elements per device (mgpu_plan.h), each device takes a
 * contiguous run of pieces on a thread of its own (mbc_mgpu_run); otherwise, or while the
 * device threads serve another thread's call, the first device takes them all.
 *
 * Why the result does not depend on the number of devices: a piece is reduced by the same
 * native call on the same length, from a device buffer at an offset that is a multiple of the
 * piece length (the same alignment), with the same rung; the reduction kernels add in an order
 * that depends only on the length, the alignment and the GPU's SM count (one model: the probe
 * leaves other models out), and the piece results are combined the same way whichever device
 * made them. Accuracy: each piece is a shorter reduction than the whole, and the sum of the
 * piece results is made in double (the float routines round it once), so the error bound is
 * that of one call on the whole vector or better.
 *
 * A share that fails (out of memory, an error) has its pieces reduced by the CPU BLAS once
 * every device is done; the answer is right, though no longer bitwise the GPU's.
 */
typedef struct vec_share {
    int rc;
    char msg[300];
} vec_share;

typedef struct vec_call {
    int dbl;
    const char *x, *y; /* y == NULL: asum */
    const mbc_vec_plan *vp;
    const int64_t *first;                          /* share i: pieces [first[i], first[i + 1]) */
    unsigned char raw[MBC_VEC_MAX_PIECES * sizeof(double)]; /* piece results as they come back */
    vec_share sh[MBC_SPLIT_MAX];
} vec_call;

static const char *vec_name(int dbl, int dot) {
    return dot ? (dbl ? "ddot" : "sdot") : (dbl ? "dasum" : "sasum");
}

/* Share i of call c on `device`, on the calling thread. */
static void vec_share_on(vec_call *c, int i, int device) {
    vec_share *r = &c->sh[i];
    const mbc_vec_plan *vp = c->vp;
    int64_t p0 = c->first[i], p1 = c->first[i + 1];
    size_t e = c->dbl ? sizeof(double) : sizeof(float);
    int64_t i0 = p0 * vp->piece, end = p1 * vp->piece < vp->n ? p1 * vp->piece : vp->n;
    mbc_frame f;
    r->rc = -1;
    if (mbc_frame_enter_dev(&f, device, e, r->msg, sizeof r->msg)) return;
    mbc_state *s = f.s;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    miniblas_op_t op = c->y ? (c->dbl ? MINIBLAS_OP_DDOT : MINIBLAS_OP_SDOT)
                            : (c->dbl ? MINIBLAS_OP_DASUM : MINIBLAS_OP_SASUM);
    const char *what = "cudaMalloc (device buffers)";
    char *dx = NULL, *dy = NULL, *dr = NULL;
    cudaError_t err = mbc_dbuf(s, 0, (size_t)(end - i0) * e, &dx);
    if (err == cudaSuccess && c->y) err = mbc_dbuf(s, 1, (size_t)(end - i0) * e, &dy);
    if (err == cudaSuccess) err = mbc_dbuf(s, 2, (size_t)(p1 - p0) * e, &dr);
    for (int64_t p = p0; p < p1 && err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS; ++p) {
        int64_t a, len;
        mbc_vec_piece(vp, p, &a, &len);
        size_t off = (size_t)(a - i0) * e, bytes = (size_t)len * e;
        what = "copy to the GPU";
        err = cudaMemcpyAsync(dx + off, c->x + (size_t)a * e, bytes, cudaMemcpyHostToDevice,
                              s->s_in);
        if (err == cudaSuccess && c->y)
            err = cudaMemcpyAsync(dy + off, c->y + (size_t)a * e, bytes, cudaMemcpyHostToDevice,
                                  s->s_in);
        if (err == cudaSuccess) err = mbc_comp_after_in(s); /* this piece is across */
        if (err != cudaSuccess) break;
        what = vec_name(c->dbl, c->y != NULL);
        if (s->fail_reduce >= 0 && s->npiece++ >= s->fail_reduce) {
            /* MINIBLAS_CBLAS_TEST_FAIL_REDUCE (tests): a real failure of the handle */
            st = miniblas_set_rung(s->h, op, "(MINIBLAS_CBLAS_TEST_FAIL_REDUCE)");
            if (st == MINIBLAS_STATUS_SUCCESS) st = MINIBLAS_STATUS_INVALID_VALUE;
            break;
        }
        char *res = dr + (size_t)(p - p0) * e;
        if (c->dbl)
            st = c->y ? miniblas_ddot_device(s->h, len, (const double *)(dx + off), 1,
                                             (const double *)(dy + off), 1, (double *)res)
                      : miniblas_dasum_device(s->h, len, (const double *)(dx + off), 1,
                                              (double *)res);
        else
            st = c->y ? miniblas_sdot_device(s->h, len, (const float *)(dx + off), 1,
                                             (const float *)(dy + off), 1, (float *)res)
                      : miniblas_sasum_device(s->h, len, (const float *)(dx + off), 1,
                                              (float *)res);
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) {
        what = "copy from the GPU";
        err = cudaMemcpyAsync(c->raw + (size_t)p0 * e, dr, (size_t)(p1 - p0) * e,
                              cudaMemcpyDeviceToHost, s->s_comp);
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) what = "sync", err = mbc_sync_all(s);
    r->rc = mbc_frame_leave(&f, err, st, what);
}

static void vec_share_run(void *ctx, int i) { /* mbc_mgpu_run: share i on device use[i] */
    vec_share_on(ctx, i, mbc_cfg.use[i]);
}

static int gpu_pieces(int dbl, int64_t n, const void *x, const void *y, double *result,
                      char *msg, size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    int64_t min_share = mbc_cfg.split_vec > 0 ? mbc_cfg.split_vec
                                              : dbl ? MBC_VEC_SPLIT_MIN / 2 : MBC_VEC_SPLIT_MIN;
    mbc_vec_plan vp;
    mbc_vec_plan_make(n, mbc_cfg.nuse, min_share, &vp);
    vec_call *c = malloc(sizeof *c); /* ~27 KB: not on the caller's stack */
    if (!c) {
        snprintf(msg, msg_size, "out of host memory");
        return -1;
    }
    c->dbl = dbl, c->x = x, c->y = y, c->vp = &vp, c->first = vp.first;
    int rc = 0, failed = 0;
    int64_t one[2] = {0, vp.npieces};
    if (vp.ndev > 1 && mbc_mgpu_run(vp.ndev, vec_share_run, c) == 0) {
        for (int i = 0; i < vp.ndev && rc == 0; ++i) {
            if (c->sh[i].rc == 0) continue;
            ++failed;
            int64_t a = vp.first[i] * vp.piece, b = vp.first[i + 1] * vp.piece;
            mbc_notice("%s: device %d failed on elements %lld..%lld (%s); reducing them on the "
                       "CPU BLAS",
                       vec_name(dbl, y != NULL), mbc_cfg.use[i], (long long)a,
                       (long long)(b < n ? b : n) - 1, c->sh[i].msg);
            for (int64_t p = vp.first[i]; p < vp.first[i + 1] && rc == 0; ++p) {
                int64_t start, len;
                double r = 0;
                mbc_vec_piece(&vp, p, &start, &len);
                if (mbc_cpu_reduce(dbl, len, (const char *)x + (size_t)start * e,
                                   y ? (const char *)y + (size_t)start * e : NULL, &r)) {
                    snprintf(msg, msg_size, "device %d: %s (no CPU BLAS to finish its share)",
                             mbc_cfg.use[i], c->sh[i].msg);
                    rc = -1;
                }
                if (dbl) memcpy(c->raw + (size_t)p * e, &r, e);
                else {
                    float f = (float)r;
                    memcpy(c->raw + (size_t)p * e, &f, e);
                }
            }
        }
        if (mbc_cfg.verbose >= 2)
            mbc_notice("%s n=%lld over %d devices, %d failed", vec_name(dbl, y != NULL),
                       (long long)n, vp.ndev, failed);
    } else { /* one device: the same pieces */
        c->first = one;
        vec_share_on(c, 0, mbc_cfg.device);
        if (c->sh[0].rc) {
            snprintf(msg, msg_size, "%s", c->sh[0].msg);
            rc = -1;
        }
    }
    if (rc == 0) {
        double r[MBC_VEC_MAX_PIECES];
        for (int64_t p = 0; p < vp.npieces; ++p) {
            if (dbl) {
                memcpy(&r[p], c->raw + (size_t)p * e, e);
            } else {
                float f;
                memcpy(&f, c->raw + (size_t)p * e, e);
                r[p] = f;
            }
        }
        *result = mbc_vec_combine(r, vp.npieces);
    }
    free(c);
    return rc;
}

static int gpu_reduce(int dbl, int64_t n, const void *x, int64_t incx, int x_kind,
                      const void *y, int64_t incy, int y_kind, double *result, char *msg,
                      size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    if (x_kind == MBC_PINNED && incx == 1 && (!y || (y_kind == MBC_PINNED && incy == 1)))
        return gpu_pieces(dbl, n, x, y, result, msg, msg_size);
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

/* Columns of A (rows x cols, col-major; B = alpha op(A)) on `device`, in one frame: A across
 * (DMA from pinned memory, or through the staging buffers), the native omatcopy, B back. */
static int om_part(int dbl, int trans, int64_t rows, int64_t cols, double alpha, const void *A,
                   int64_t lda, int a_kind, void *B, int64_t ldb, int b_kind, int device,
                   char *msg, size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    if (mbc_frame_enter_dev(&f, device, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    cudaError_t err = cudaSuccess;
    const char *what = "cudaHostAlloc (pinned staging)";
    s->split = 0;
    int64_t b_lead = trans ? cols : rows, b_other = trans ? rows : cols;
    int b_direct = b_kind == MBC_PINNED;
    int a_packs = a_kind == MBC_PINNED && mbc_pin_pack(rows, cols, lda, e, mbc_cfg.pin_row_kb, 0);
    int staged = a_kind == MBC_HOST || a_packs || (b_kind != MBC_DEVICE && !b_direct);
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
        if (s->fail_reduce >= 0 && s->npiece++ >= s->fail_reduce) {
            /* MINIBLAS_CBLAS_TEST_FAIL_REDUCE (tests): a real failure of the handle */
            st = miniblas_set_rung(s->h, dbl ? MINIBLAS_OP_DOMATCOPY : MINIBLAS_OP_SOMATCOPY,
                                   "(MINIBLAS_CBLAS_TEST_FAIL_REDUCE)");
            if (st == MINIBLAS_STATUS_SUCCESS) st = MINIBLAS_STATUS_INVALID_VALUE;
        } else
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

/*
 * omatcopy on pinned A and B over several devices: like asum and dot on pinned vectors, the
 * call is bound by the copies (A in, B out), and each device copies pinned memory by DMA over
 * its own link. With several devices listed and at least split_vec elements of A per device
 * (the reductions' bound, mgpu_plan.h), device i takes the columns [first[i], first[i + 1]) of
 * A, an even cut, on a thread of its own (mbc_mgpu_run), and writes the matching columns (rows
 * where transposed) of B. Each element is alpha times its A element, whichever device makes
 * it: B is the same on any number of devices. A share that fails fails the call: B is only
 * written, so the caller redoes all of it on the CPU (as after a failure on one device).
 */
typedef struct om_call {
    int dbl, trans, a_kind, b_kind;
    int64_t rows, lda, ldb;
    double alpha;
    const char *A;
    char *B;
    int64_t first[MBC_SPLIT_MAX + 1];
    vec_share sh[MBC_SPLIT_MAX];
} om_call;

static void om_share_run(void *ctx, int i) { /* mbc_mgpu_run: share i on device use[i] */
    om_call *c = ctx;
    size_t e = c->dbl ? sizeof(double) : sizeof(float);
    int64_t c0 = c->first[i], nc = c->first[i + 1] - c0;
    c->sh[i].rc = om_part(c->dbl, c->trans, c->rows, nc, c->alpha, c->A + (size_t)c0 * (size_t)c->lda * e,
                          c->lda, c->a_kind, c->B + (size_t)(c->trans ? c0 : c0 * c->ldb) * e,
                          c->ldb, c->b_kind, mbc_cfg.use[i], c->sh[i].msg, sizeof c->sh[i].msg);
}

int mbc_gpu_omatcopy(int dbl, int trans, int64_t rows, int64_t cols, double alpha,
                     const void *A, int64_t lda, int a_kind, void *B, int64_t ldb, int b_kind,
                     char *msg, size_t msg_size) {
    int64_t min_share = mbc_cfg.split_vec > 0 ? mbc_cfg.split_vec
                                              : dbl ? MBC_VEC_SPLIT_MIN / 2 : MBC_VEC_SPLIT_MIN;
    int64_t nd = a_kind == MBC_PINNED && b_kind == MBC_PINNED ? mbc_cfg.nuse : 1;
    if (nd > 1 && rows * cols / min_share < nd) nd = rows * cols / min_share;
    if (nd > cols) nd = cols;
    om_call *c = nd > 1 ? malloc(sizeof *c) : NULL; /* ~20 KB: not on the caller's stack */
    if (c) {
        c->dbl = dbl, c->trans = trans, c->a_kind = a_kind, c->b_kind = b_kind;
        c->rows = rows, c->lda = lda, c->ldb = ldb, c->alpha = alpha;
        c->A = A, c->B = B;
        for (int64_t i = 0; i <= nd; ++i) c->first[i] = cols * i / nd;
        if (mbc_mgpu_run((int)nd, om_share_run, c) == 0) {
            int rc = 0, failed = 0;
            for (int i = 0; i < nd; ++i)
                if (c->sh[i].rc) {
                    if (!failed++)
                        snprintf(msg, msg_size, "device %d: %s", mbc_cfg.use[i], c->sh[i].msg);
                    rc = -1;
                }
            if (mbc_cfg.verbose >= 2)
                mbc_notice("%s rows=%lld cols=%lld over %d devices, %d failed",
                           dbl ? "domatcopy" : "somatcopy", (long long)rows, (long long)cols,
                           (int)nd, failed);
            free(c);
            return rc;
        }
        free(c); /* the device threads serve another thread's call: one device */
    }
    return om_part(dbl, trans, rows, cols, alpha, A, lda, a_kind, B, ldb, b_kind, mbc_cfg.device,
                   msg, msg_size);
}
