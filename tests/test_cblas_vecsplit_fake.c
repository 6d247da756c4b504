/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * asum and dot on pinned host vectors by pieces, over several devices (src/cblas/gpu_ops.c:
 * gpu_pieces), with the GPU side replaced by a fake one on the CPU: the layer's own gpu_ops.c,
 * mgpu_plan.c, config.c and cpu_blas.c compiled in; the call frame, the device buffers, the
 * streams, cudaMemcpyAsync, the device workers and the native reductions are the fakes below.
 * The fake reduction adds in an order that depends on n only (8 interleaved float or double
 * accumulators), as the real kernels' order depends on n, the alignment and the GPU model.
 * Checks, for sasum, dasum, sdot and ddot at lengths around the piece boundaries:
 *   - every element copied once, from the caller's vector itself (no staging), into device
 *     memory aligned like the start of a buffer, and reduced in exactly one piece;
 *   - the result bitwise the same on 1, 2, 3 and 5 devices and with the device workers busy,
 *     and right against the CPU BLAS (OpenBLAS) within (n / 2^16 + 64) eps sum|terms|;
 *   - the devices used: every device listed (or one per piece) with any share allowed
 *     (split_vec=1), and at the default least share one just below it and two just above;
 *   - a device failing (the fields of MINIBLAS_CBLAS_TEST_FAIL_REDUCE): its pieces done by the
 *     CPU BLAS, the result still right; on one device the call fails (the entry point then
 *     runs it on the CPU BLAS);
 *   - NaN and Inf in one piece carried to the result.
 * Exits 77 when no CPU BLAS can be loaded.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_gpu.h"
#include "mgpu_plan.h"

#include "cpu_check.h"

/* ------------------------------------------------------------------ the fake GPU side */

#define NDEV 8
static mbc_state g_state[NDEV]; /* one share per device at a time: no thread-local states */
static int g_busy;              /* mbc_mgpu_run refuses, as when another call holds the workers */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
/* what the fakes saw in one call (under g_lock) */
static int g_shares[NDEV];    /* frames entered per device */
static const char *g_vec[2];  /* the caller's vectors, and their bytes */
static size_t g_bytes;
static size_t g_copied[2];    /* bytes copied host -> device from each */
static int g_bad_copy;        /* a copy from elsewhere, or past the end */
static int64_t g_reduced;     /* elements reduced */
static int g_misaligned;      /* a piece reduced from memory not 256-byte aligned */

static void reset_seen(const void *x, const void *y, size_t bytes) {
    memset(g_shares, 0, sizeof g_shares);
    g_vec[0] = x, g_vec[1] = y, g_bytes = bytes;
    g_copied[0] = g_copied[1] = 0;
    g_bad_copy = g_misaligned = 0;
    g_reduced = 0;
}

int mbc_frame_enter_dev(mbc_frame *f, int device, size_t elem, char *msg, size_t msg_size) {
    f->msg = msg, f->msg_size = msg_size, f->device = device, f->prev_device = -1;
    if (device < 0 || device >= NDEV) {
        snprintf(msg, msg_size, "no device %d", device);
        return -1;
    }
    mbc_state *s = f->s = &g_state[device];
    s->device = device;
    s->elem = elem;
    s->npiece = 0;
    s->fail_reduce = mbc_cfg.test_fail_reduce_dev < 0 ||
                             (mbc_cfg.test_fail_reduce_dev < mbc_cfg.nuse &&
                              mbc_cfg.use[mbc_cfg.test_fail_reduce_dev] == device)
                         ? mbc_cfg.test_fail_reduce
                         : -1;
    pthread_mutex_lock(&g_lock);
    ++g_shares[device];
    pthread_mutex_unlock(&g_lock);
    return 0;
}
int mbc_frame_enter(mbc_frame *f, size_t elem, char *msg, size_t msg_size) {
    return mbc_frame_enter_dev(f, mbc_cfg.device, elem, msg, msg_size);
}
int mbc_frame_leave_detail(mbc_frame *f, cudaError_t err, miniblas_status_t st,
                           const char *what, const char *detail) {
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) return 0;
    snprintf(f->msg, f->msg_size, "%s: failed (%s)", what, detail ? detail : "fake");
    return -1;
}
int mbc_frame_leave(mbc_frame *f, cudaError_t err, miniblas_status_t st, const char *what) {
    return mbc_frame_leave_detail(f, err, st, what, NULL);
}
cudaError_t mbc_dbuf(mbc_state *s, int i, size_t bytes, char **p) {
    if (s->dbuf_bytes[i] < bytes) {
        free(s->dbuf[i]);
        s->dbuf[i] = NULL;
        s->dbuf_bytes[i] = 0;
        if (posix_memalign(&s->dbuf[i], 256, bytes)) return cudaErrorMemoryAllocation;
        s->dbuf_bytes[i] = bytes;
    }
    memset(s->dbuf[i], 0xff, bytes); /* poison: NaN in either precision */
    *p = s->dbuf[i];
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream) {
    (void)stream;
    if (kind == cudaMemcpyHostToDevice) {
        const char *p = src;
        pthread_mutex_lock(&g_lock);
        int v = -1;
        for (int i = 0; i < 2; ++i)
            if (g_vec[i] && p >= g_vec[i] && p + count <= g_vec[i] + g_bytes) v = i;
        if (v < 0) g_bad_copy = 1;
        else g_copied[v] += count;
        pthread_mutex_unlock(&g_lock);
    }
    memcpy(dst, src, count);
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e) { (void)e; return "fake CUDA error"; }
const char *cudaGetErrorName(cudaError_t e) { (void)e; return "cudaErrorFake"; }
cudaError_t mbc_comp_after_in(mbc_state *s) { (void)s; return cudaSuccess; }
cudaError_t mbc_comp_after_caller(mbc_state *s) { (void)s; return cudaSuccess; }
cudaError_t mbc_out_after_comp(mbc_state *s) { (void)s; return cudaSuccess; }
cudaError_t mbc_sync_all(mbc_state *s) { (void)s; return cudaSuccess; }
cudaError_t mbc_drain_out(mbc_state *s) { (void)s; return cudaSuccess; }
cudaError_t mbc_ensure_chunks(mbc_state *s, size_t bytes) { (void)s, (void)bytes; return cudaSuccess; }
size_t mbc_chunk_size(size_t bytes) { return bytes; }
/* the staged path (pageable vectors, other increments): not exercised here */
cudaError_t mbc_h2d_vec(mbc_state *s, char *dd, const char *x0, int64_t inc, int64_t n, int kind) {
    (void)s, (void)dd, (void)x0, (void)inc, (void)n, (void)kind;
    return cudaErrorNotSupported;
}
/* omatcopy's copies (column by column; the source of a copy in must lie in the caller's A) */
cudaError_t mbc_h2d_2d(mbc_state *s, char *dd, int64_t ldd, const char *hs, int64_t lds,
                       int64_t rows, int64_t cols, int kind) {
    (void)kind;
    size_t e = s->elem;
    for (int64_t j = 0; j < cols; ++j)
        cudaMemcpyAsync(dd + (size_t)(j * ldd) * e, hs + (size_t)(j * lds) * e, (size_t)rows * e,
                        cudaMemcpyHostToDevice, NULL);
    return cudaSuccess;
}
cudaError_t mbc_d2h_2d(mbc_state *s, char *hd, int64_t ldh, const char *ds, int64_t ldd,
                       int64_t rows, int64_t cols, int direct, int64_t col_base) {
    (void)direct, (void)col_base;
    size_t e = s->elem;
    for (int64_t j = 0; j < cols; ++j)
        memcpy(hd + (size_t)(j * ldh) * e, ds + (size_t)(j * ldd) * e, (size_t)rows * e);
    return cudaSuccess;
}

/* Share 0 on the calling thread, share i on a thread of its own. */
typedef struct share_arg {
    void (*fn)(void *, int);
    void *ctx;
    int i;
} share_arg;
static void *share_thread(void *p) {
    share_arg *a = p;
    a->fn(a->ctx, a->i);
    return NULL;
}
int mbc_mgpu_run(int n, void (*fn)(void *ctx, int i), void *ctx) {
    if (g_busy || n > NDEV) return -1;
    pthread_t th[NDEV];
    share_arg a[NDEV];
    for (int i = 1; i < n; ++i) {
        a[i] = (share_arg){fn, ctx, i};
        if (pthread_create(&th[i], NULL, share_thread, &a[i])) abort();
    }
    fn(ctx, 0);
    for (int i = 1; i < n; ++i) pthread_join(th[i], NULL);
    return 0;
}

/* The fake kernels: 8 interleaved accumulators in T, then a fixed tree. */
#define FAKE_REDUCE(T, name)                                                                     \
    static miniblas_status_t name(int64_t n, const T *x, const T *y, T *r) {                     \
        T a[8] = {0};                                                                            \
        for (int64_t i = 0; i < n; ++i) a[i % 8] += y ? x[i] * y[i] : (T)fabs((double)x[i]);     \
        *r = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));                   \
        pthread_mutex_lock(&g_lock);                                                             \
        g_reduced += n;                                                                          \
        if ((uintptr_t)x % 256 || (y && (uintptr_t)y % 256)) g_misaligned = 1;                   \
        pthread_mutex_unlock(&g_lock);                                                           \
        return MINIBLAS_STATUS_SUCCESS;                                                          \
    }
FAKE_REDUCE(float, fake_s)
FAKE_REDUCE(double, fake_d)

miniblas_status_t miniblas_sasum_device(miniblas_handle_t h, int64_t n, const float *x,
                                        int64_t incx, float *r) {
    (void)h, (void)incx;
    return fake_s(n, x, NULL, r);
}
miniblas_status_t miniblas_dasum_device(miniblas_handle_t h, int64_t n, const double *x,
                                        int64_t incx, double *r) {
    (void)h, (void)incx;
    return fake_d(n, x, NULL, r);
}
miniblas_status_t miniblas_sdot_device(miniblas_handle_t h, int64_t n, const float *x,
                                       int64_t incx, const float *y, int64_t incy, float *r) {
    (void)h, (void)incx, (void)incy;
    return fake_s(n, x, y, r);
}
miniblas_status_t miniblas_ddot_device(miniblas_handle_t h, int64_t n, const double *x,
                                       int64_t incx, const double *y, int64_t incy, double *r) {
    (void)h, (void)incx, (void)incy;
    return fake_d(n, x, y, r);
}
/* the other native calls of gpu_ops.c: the staged paths, not reached here */
miniblas_status_t miniblas_sasum(miniblas_handle_t h, int64_t n, const float *x, int64_t incx,
                                 float *r) {
    (void)h, (void)n, (void)x, (void)incx, (void)r;
    return MINIBLAS_STATUS_NOT_SUPPORTED;
}
miniblas_status_t miniblas_dasum(miniblas_handle_t h, int64_t n, const double *x, int64_t incx,
                                 double *r) {
    (void)h, (void)n, (void)x, (void)incx, (void)r;
    return MINIBLAS_STATUS_NOT_SUPPORTED;
}
miniblas_status_t miniblas_sdot(miniblas_handle_t h, int64_t n, const float *x, int64_t incx,
                                const float *y, int64_t incy, float *r) {
    (void)h, (void)n, (void)x, (void)incx, (void)y, (void)incy, (void)r;
    return MINIBLAS_STATUS_NOT_SUPPORTED;
}
miniblas_status_t miniblas_ddot(miniblas_handle_t h, int64_t n, const double *x, int64_t incx,
                                const double *y, int64_t incy, double *r) {
    (void)h, (void)n, (void)x, (void)incx, (void)y, (void)incy, (void)r;
    return MINIBLAS_STATUS_NOT_SUPPORTED;
}
/* The fake omatcopy (column-major): B = alpha op(A), element by element. */
#define FAKE_OMATCOPY(T, name)                                                                   \
    miniblas_status_t name(miniblas_handle_t h, miniblas_layout_t l, miniblas_transpose_t t,    \
                           int64_t rows, int64_t cols, T alpha, const T *A, int64_t lda, T *B,  \
                           int64_t ldb) {                                                       \
        (void)h, (void)l;                                                                        \
        for (int64_t j = 0; j < cols; ++j)                                                       \
            for (int64_t i = 0; i < rows; ++i)                                                   \
                B[t == MiniblasTrans ? j + i * ldb : i + j * ldb] = alpha * A[i + j * lda];      \
        return MINIBLAS_STATUS_SUCCESS;                                                          \
    }
FAKE_OMATCOPY(float, miniblas_somatcopy)
FAKE_OMATCOPY(double, miniblas_domatcopy)
/* the failure hook asks for a rung that does not exist: refused, as the real handle does */
miniblas_status_t miniblas_set_rung(miniblas_handle_t h, miniblas_op_t op, const char *name) {
    (void)h, (void)op, (void)name;
    return MINIBLAS_STATUS_UNKNOWN_RUNG;
}
const char *miniblas_last_error(miniblas_handle_t h) { (void)h; return "fake"; }
const char *miniblas_status_string(miniblas_status_t s) { (void)s; return "fake status"; }

/* ------------------------------------------------------------------ the checks */

#define P MBC_VEC_PIECE

static const char *no_env(const char *name) { (void)name; return NULL; }

static double drand(uint64_t *st) { /* [-1, 1); xorshift64* */
    *st ^= *st >> 12, *st ^= *st << 25, *st ^= *st >> 27;
    return (double)((*st * 0x2545F4914F6CDD1Dull) >> 11) / (double)(1ull << 52) - 1.0;
}

/* One call through the layer's GPU entry on `ndev` devices; rc, result in *r. */
static int call(int dbl, int dot, int64_t n, const void *x, const void *y, int ndev, double *r,
                char *msg, size_t msg_size) {
    mbc_cfg.nuse = ndev;
    size_t e = dbl ? sizeof(double) : sizeof(float);
    reset_seen(x, dot ? y : NULL, (size_t)n * e);
    *r = -12345;
    msg[0] = '\0';
    return dot ? mbc_gpu_dot(dbl, n, x, 1, MBC_PINNED, y, 1, MBC_PINNED, r, msg, msg_size)
               : mbc_gpu_asum(dbl, n, x, 1, MBC_PINNED, r, msg, msg_size);
}

static double cpu_ref(int dbl, int dot, int64_t n, const void *x, const void *y) {
    double r = 0;
    mbc_cpu_reduce(dbl, n, x, dot ? y : NULL, &r);
    return r;
}

/* The exact sum (long double) and sum |terms|. */
static void exact(int dbl, int dot, int64_t n, const void *x, const void *y, long double *s,
                  long double *a) {
    *s = *a = 0;
    for (int64_t i = 0; i < n; ++i) {
        long double t = dbl ? ((const double *)x)[i] : ((const float *)x)[i];
        if (dot) t *= dbl ? ((const double *)y)[i] : ((const float *)y)[i];
        else t = fabsl(t);
        *s += t, *a += fabsl(t);
    }
}

static const char *rname(int dbl, int dot) {
    return dot ? (dbl ? "ddot" : "sdot") : (dbl ? "dasum" : "sasum");
}

/* The result on one device, checked; then bitwise the same on 2, 3, 5 devices and busy. */
static void check_lengths(int dbl, int dot, int64_t n, const void *x, const void *y) {
    char msg[400];
    size_t e = dbl ? sizeof(double) : sizeof(float);
    double r1, r;
    int rc = call(dbl, dot, n, x, y, 1, &r1, msg, sizeof msg);
    CHECKF(rc == 0, "%s n %lld on 1 device: rc %d (%s)", rname(dbl, dot), (long long)n, rc, msg);
    CHECKF(!g_bad_copy && g_copied[0] == (size_t)n * e && g_copied[1] == (dot ? (size_t)n * e : 0),
          "%s n %lld: copies from elsewhere %d, bytes %zu %zu", rname(dbl, dot), (long long)n,
          g_bad_copy, g_copied[0], g_copied[1]);
    CHECKF(g_reduced == n && !g_misaligned, "%s n %lld: %lld reduced, misaligned %d",
          rname(dbl, dot), (long long)n, (long long)g_reduced, g_misaligned);
    long double s, a;
    exact(dbl, dot, n, x, y, &s, &a);
    double eps = dbl ? 0x1p-52 : 0x1p-23, tol = ((double)n / 65536.0 + 64.0) * eps * (double)a;
    double ob = cpu_ref(dbl, dot, n, x, y);
    CHECKF(fabs(r1 - (double)s) <= tol, "%s n %lld: %.17g, exact %.17Lg (CPU BLAS %.17g), tol %.3g",
          rname(dbl, dot), (long long)n, r1, s, ob, tol);
    int64_t np = (n + P - 1) / P;
    static const int devs[] = {2, 3, 5};
    for (int k = 0; k < 3; ++k) {
        rc = call(dbl, dot, n, x, y, devs[k], &r, msg, sizeof msg);
        int want = (int)(np < devs[k] ? np : devs[k]), used = 0;
        for (int d = 0; d < NDEV; ++d) used += g_shares[d] > 0;
        CHECKF(rc == 0 && memcmp(&r, &r1, sizeof r) == 0,
              "%s n %lld on %d devices: rc %d, %.17g != %.17g on one", rname(dbl, dot),
              (long long)n, devs[k], rc, r, r1);
        CHECKF(used == want, "%s n %lld on %d devices: %d used, want %d", rname(dbl, dot),
              (long long)n, devs[k], used, want);
        CHECKF(!g_bad_copy && g_copied[0] == (size_t)n * e && g_reduced == n && !g_misaligned,
              "%s n %lld on %d devices: bad copy %d, bytes %zu, reduced %lld, misaligned %d",
              rname(dbl, dot), (long long)n, devs[k], g_bad_copy, g_copied[0],
              (long long)g_reduced, g_misaligned);
    }
    g_busy = 1;
    rc = call(dbl, dot, n, x, y, 3, &r, msg, sizeof msg);
    g_busy = 0;
    CHECKF(rc == 0 && memcmp(&r, &r1, sizeof r) == 0 && g_shares[0] == 1 && g_shares[1] == 0,
          "%s n %lld, workers busy: rc %d, %.17g != %.17g, shares %d %d", rname(dbl, dot),
          (long long)n, rc, r, r1, g_shares[0], g_shares[1]);
}

/* ------------------------------------------------------------------ omatcopy */

/* B = alpha op(A) on pinned A and B through mbc_gpu_omatcopy on `ndev` devices listed: rc, the
 * devices that ran a share, every element of B exactly alpha times its A element, the
 * padding of B untouched. */
static int om_call(int dbl, int trans, int64_t rows, int64_t cols, int ndev, int *used,
                   char *msg, size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    int64_t lda = rows + 3, brows = trans ? cols : rows, bcols = trans ? rows : cols;
    int64_t ldb = brows + 2;
    char *A = malloc((size_t)(lda * cols) * e), *B = malloc((size_t)(ldb * bcols) * e);
    if (!A || !B) abort();
    uint64_t rs = (uint64_t)(rows * 131 + cols) | 1;
    for (int64_t i = 0; i < lda * cols; ++i) {
        double v = drand(&rs);
        if (dbl) ((double *)A)[i] = v;
        else ((float *)A)[i] = (float)v;
    }
    memset(B, 0x5a, (size_t)(ldb * bcols) * e); /* poison, and the padding's sentinel */
    const double alpha = -1.25;
    mbc_cfg.nuse = ndev;
    reset_seen(A, NULL, (size_t)(lda * cols) * e);
    msg[0] = '\0';
    int rc = mbc_gpu_omatcopy(dbl, trans, rows, cols, alpha, A, lda, MBC_PINNED, B, ldb,
                              MBC_PINNED, msg, msg_size);
    *used = 0;
    for (int d = 0; d < NDEV; ++d) *used += g_shares[d] > 0;
    int64_t wrong = 0, pad = 0;
    for (int64_t j = 0; rc == 0 && j < bcols; ++j)
        for (int64_t i = 0; i < ldb; ++i) {
            size_t at = (size_t)(i + j * ldb);
            if (i >= brows) { /* padding: still the sentinel */
                unsigned char z[8];
                memset(z, 0x5a, sizeof z);
                pad += memcmp(B + at * e, z, e) != 0;
                continue;
            }
            size_t src = (size_t)(trans ? j + i * lda : i + j * lda);
            if (dbl) wrong += ((double *)B)[at] != alpha * ((double *)A)[src];
            else wrong += ((float *)B)[at] != (float)alpha * ((float *)A)[src];
        }
    CHECKF(rc != 0 || (wrong == 0 && pad == 0 && !g_bad_copy),
          "%comatcopy %c %lldx%lld on %d devices: %lld wrong, %lld padding written, copies from "
          "elsewhere %d", dbl ? 'd' : 's', trans ? 'T' : 'N', (long long)rows, (long long)cols,
          ndev, (long long)wrong, (long long)pad, g_bad_copy);
    free(A), free(B);
    return rc;
}

static void check_omatcopy(void) {
    char msg[400];
    int used;
    /* any share (split_vec=1): as many devices as listed, at most one per column */
    mbc_cfg.split_vec = 1;
    static const int64_t shapes[][2] = {{37, 1000}, {1000, 37}, {5, 3}, {1, 7}, {64, 1}};
    static const int ndevs[] = {1, 2, 3, 5};
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int trans = 0; trans < 2; ++trans)
            for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; ++k)
                for (size_t d = 0; d < sizeof ndevs / sizeof ndevs[0]; ++d) {
                    int64_t r = shapes[k][0], c = shapes[k][1];
                    int want = ndevs[d] < c ? ndevs[d] : (int)c;
                    int rc = om_call(dbl, trans, r, c, ndevs[d], &used, msg, sizeof msg);
                    CHECKF(rc == 0 && used == want, "omatcopy %lldx%lld %c on %d devices: rc %d (%s), "
                          "%d devices used, want %d", (long long)r, (long long)c, trans ? 'T' : 'N',
                          ndevs[d], rc, msg, used, want);
                }
    /* the least share: split_vec elements of A per device */
    mbc_cfg.split_vec = 1000;
    static const struct { int64_t rows, cols; int devices; } thr[] = {
        {37, 54, 1}, {37, 55, 2}, {100, 30, 3}, {100, 100, 4},
    };
    for (size_t k = 0; k < sizeof thr / sizeof thr[0]; ++k) {
        int rc = om_call(0, 0, thr[k].rows, thr[k].cols, 4, &used, msg, sizeof msg);
        CHECKF(rc == 0 && used == thr[k].devices, "omatcopy %lldx%lld, least share 1000: rc %d, %d "
              "devices, want %d", (long long)thr[k].rows, (long long)thr[k].cols, rc, used,
              thr[k].devices);
    }
    /* a device failing fails the call (B is only written: the entry point redoes it on the CPU) */
    mbc_cfg.split_vec = 1;
    mbc_cfg.test_fail_reduce = 0, mbc_cfg.test_fail_reduce_dev = 1;
    int rc = om_call(1, 1, 37, 1000, 3, &used, msg, sizeof msg);
    CHECKF(rc == -1 && strstr(msg, "device 1") != NULL, "omatcopy, device 1 failing: rc %d, msg '%s'",
          rc, msg);
    mbc_cfg.test_fail_reduce = -1, mbc_cfg.test_fail_reduce_dev = -1;
    /* pageable B: one device, whatever is listed */
    mbc_cfg.nuse = 3;
    float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {0};
    reset_seen(a, NULL, sizeof a);
    rc = mbc_gpu_omatcopy(0, 0, 2, 3, 2.0, a, 2, MBC_PINNED, b, 2, MBC_HOST, msg, sizeof msg);
    used = 0;
    for (int d = 0; d < NDEV; ++d) used += g_shares[d] > 0;
    CHECKF(used == 1, "omatcopy with pageable B: %d devices used (rc %d)", used, rc);
}

int main(void) {
    mbc_config_read(&mbc_cfg, no_env, 1, stderr);
    mbc_cpu_load();
    if (!mbc_cpu.cblas_sasum || !mbc_cpu.cblas_ddot) {
        printf("test_cblas_vecsplit_fake: no CPU BLAS: skipped\n");
        return 77;
    }
    mbc_cfg.device = 0;
    for (int i = 0; i < NDEV; ++i) mbc_cfg.use[i] = i;
    const int64_t N = 5 * P + 7;
    float *xf = malloc((size_t)N * sizeof(float)), *yf = malloc((size_t)N * sizeof(float));
    double *xd = malloc((size_t)N * sizeof(double)), *yd = malloc((size_t)N * sizeof(double));
    if (!xf || !yf || !xd || !yd) return 2;
    uint64_t rs = 42;
    for (int64_t i = 0; i < N; ++i) { /* in [-0.25, 1): a lost or doubled piece shows */
        xd[i] = drand(&rs) * 0.625 + 0.375, yd[i] = drand(&rs) * 0.625 + 0.375;
        xf[i] = (float)xd[i], yf[i] = (float)yd[i];
    }

    /* any share: as many devices as pieces allow */
    mbc_cfg.split_vec = 1;
    static const int64_t ns[] = {1, 7, P - 1, P, P + 1, 2 * P, 3 * P - 1, 5 * P + 7};
    for (int dbl = 0; dbl < 2; ++dbl)
        for (int dot = 0; dot < 2; ++dot)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; ++k)
                check_lengths(dbl, dot, ns[k], dbl ? (void *)xd : xf, dbl ? (void *)yd : yf);

    /* the default least share (2^23 elements for sasum/sdot, 2^22 for dasum/ddot) */
    mbc_cfg.split_vec = -1;
    char msg[400];
    double r;
    static const struct { int dbl, dot; int64_t n; int devices; } thr[] = {
        {0, 0, ((int64_t)1 << 24) - 1, 1}, {0, 0, ((int64_t)1 << 24) + 3, 2},
        {1, 0, ((int64_t)1 << 23) - 1, 1}, {1, 0, (int64_t)1 << 23, 2},
        {0, 1, (int64_t)1 << 24, 2},       {1, 1, ((int64_t)1 << 23) - 1, 1},
    };
    for (size_t k = 0; k < sizeof thr / sizeof thr[0]; ++k) {
        int rc = call(thr[k].dbl, thr[k].dot, thr[k].n, thr[k].dbl ? (void *)xd : xf,
                      thr[k].dbl ? (void *)yd : yf, 4, &r, msg, sizeof msg);
        int used = 0;
        for (int d = 0; d < NDEV; ++d) used += g_shares[d] > 0;
        CHECKF(rc == 0 && used == thr[k].devices, "%s n %lld, default least share: rc %d, %d devices, want %d",
              rname(thr[k].dbl, thr[k].dot), (long long)thr[k].n, rc, used, thr[k].devices);
    }

    /* a device failing: its pieces on the CPU BLAS */
    mbc_cfg.split_vec = 1;
    static const struct { int at, dev, dbl, dot; } fails[] = {
        {0, 1, 0, 1}, {1, 0, 1, 0}, {0, 0, 0, 0}, {2, 2, 1, 1}, {0, -1, 0, 1},
    };
    for (size_t k = 0; k < sizeof fails / sizeof fails[0]; ++k) {
        mbc_cfg.test_fail_reduce = fails[k].at, mbc_cfg.test_fail_reduce_dev = fails[k].dev;
        int dbl = fails[k].dbl, dot = fails[k].dot;
        const void *x = dbl ? (void *)xd : xf, *y = dbl ? (void *)yd : yf;
        int rc = call(dbl, dot, N, x, y, 3, &r, msg, sizeof msg);
        long double s, a;
        exact(dbl, dot, N, x, y, &s, &a);
        double eps = dbl ? 0x1p-52 : 0x1p-23, tol = ((double)N / 65536.0 + 64.0) * eps * (double)a;
        CHECKF(rc == 0 && fabs(r - (double)s) <= tol,
              "%s, device %d failing at piece %d: rc %d (%s), %.17g, exact %.17Lg", rname(dbl, dot),
              fails[k].dev, fails[k].at, rc, msg, r, s);
    }
    /* on one device a failure is the call's: the entry point runs it on the CPU BLAS */
    mbc_cfg.test_fail_reduce = 0, mbc_cfg.test_fail_reduce_dev = -1;
    int rc = call(0, 0, P + 1, xf, yf, 1, &r, msg, sizeof msg);
    CHECKF(rc == -1 && strstr(msg, "sasum") != NULL, "one device failing: rc %d, msg '%s'", rc, msg);
    mbc_cfg.test_fail_reduce = -1, mbc_cfg.test_fail_reduce_dev = -1;

    /* NaN and Inf in one piece */
    xf[P + 5] = NAN;
    rc = call(0, 0, 3 * P + 1, xf, yf, 2, &r, msg, sizeof msg);
    CHECKF(rc == 0 && isnan(r), "sasum with NaN in piece 1: %g", r);
    xf[P + 5] = 0.5f;
    xd[2 * P + 1] = INFINITY, yd[2 * P + 1] = 0.5;
    rc = call(1, 1, 3 * P + 1, xd, yd, 2, &r, msg, sizeof msg);
    CHECKF(rc == 0 && isinf(r) && r > 0, "ddot with +Inf in piece 2: %g", r);
    xd[3 * P + 2] = -INFINITY, yd[3 * P + 2] = 0.5;
    rc = call(1, 1, 4 * P + 1, xd, yd, 3, &r, msg, sizeof msg);
    CHECKF(rc == 0 && isnan(r), "ddot with +Inf in piece 2 and -Inf in piece 3: %g", r);
    rc = call(1, 0, 4 * P + 1, xd, yd, 3, &r, msg, sizeof msg);
    CHECKF(rc == 0 && isinf(r) && r > 0, "dasum with +-Inf: %g", r);

    check_omatcopy();

    free(xf), free(yf), free(xd), free(yd);
    for (int d = 0; d < NDEV; ++d)
        for (int i = 0; i < 3; ++i) free(g_state[d].dbuf[i]);
    return cpu_check_report("test_cblas_vecsplit_fake");
}
