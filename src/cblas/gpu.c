/*
 * The GPU side of the cblas layer: per-thread state, pinned staging, grow-only device
 * buffers, and the pipelined gemm on host pointers.
 *
 * Per-thread state (created on a thread's first GPU call, no global lock around GPU work): a
 * miniblas handle, three streams (copies in, compute, copies out), pinned staging chunks
 * (NIN for copies in, NOUT for copies out) and device buffers kept between calls. A thread
 * that exits gives its state back to a small pool for the next new thread; the driver frees
 * everything at process exit.
 *
 * Host pointers are pageable in general, and pageable cudaMemcpy runs at ~7 GB/s against
 * 55 GB/s pinned, so operands are packed by host threads (OpenMP) into pinned chunks and
 * DMA'd from there; a chunk is reused once the event recorded after its copy has completed.
 * Operands already in pinned memory (cudaMallocHost/cudaHostRegister) are DMA'd directly.
 * Device and managed operands are used in place; the compute stream first waits for the work
 * the caller queued on the legacy default stream (and so on every blocking stream), since our
 * streams are non-blocking (comp_after_caller).
 *
 * Gemm (column-major after normalisation) runs in column panels of C: for panel j the host
 * packs the B panel (and the C panel when beta != 0) while the GPU computes panel j-1 and
 * copies panel j-2 back; A goes once, in row blocks that the first panel's gemm consumes
 * as they arrive. C comes back through the out chunks in column-major order, and the host
 * writes a piece into the caller's C only after its copy completed, so after a failure the
 * caller's C is final up to a known point (mbc_progress) and untouched beyond it.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime_api.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "miniblas.h"
#include "cblas_internal.h"
#include "cblas_ptr.h"

#define NIN 3
#define NOUT 2
#define MB (1024 * 1024)

typedef struct mbc_pending {
    int busy;
    char *dst;          /* caller's memory */
    int64_t ldh;        /* its leading dimension, elements */
    int64_t r0, c0;     /* the piece's place in the whole output (column-major) */
    int64_t nr, nc;
} mbc_pending;

typedef struct mbc_state {
    struct mbc_state *next; /* free list */
    int device;
    miniblas_handle_t h;
    cudaStream_t s_in, s_comp, s_out;
    cudaEvent_t ev_in, ev_comp;
    cudaEvent_t ev_caller; /* the caller's default-stream work, waited for by s_comp */
    size_t chunk_bytes;
    void *in_chunk[NIN];
    cudaEvent_t in_ev[NIN];
    int in_next;
    void *out_chunk[NOUT];
    cudaEvent_t out_ev[NOUT];
    mbc_pending out[NOUT];
    int out_next;
    void *dbuf[3];
    size_t dbuf_bytes[3];
    /* per call */
    unsigned dbuf_used; /* slots handed out in this call (never freed by an OOM retry) */
    size_t elem;
    int64_t out_rows; /* rows of the output being copied back (progress) */
    mbc_progress prog;
} mbc_state;

static pthread_key_t g_key;
static pthread_once_t g_key_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static mbc_state *g_pool;

static void state_release(void *p) { /* thread exit: back to the pool, no CUDA calls here */
    mbc_state *s = p;
    pthread_mutex_lock(&g_pool_lock);
    s->next = g_pool;
    g_pool = s;
    pthread_mutex_unlock(&g_pool_lock);
}

static void key_init(void) { pthread_key_create(&g_key, state_release); }

static void state_destroy(mbc_state *s) {
    for (int i = 0; i < NIN; ++i) {
        if (s->in_chunk[i]) cudaFreeHost(s->in_chunk[i]);
        if (s->in_ev[i]) cudaEventDestroy(s->in_ev[i]);
    }
    for (int i = 0; i < NOUT; ++i) {
        if (s->out_chunk[i]) cudaFreeHost(s->out_chunk[i]);
        if (s->out_ev[i]) cudaEventDestroy(s->out_ev[i]);
    }
    for (int i = 0; i < 3; ++i)
        if (s->dbuf[i]) cudaFree(s->dbuf[i]);
    if (s->ev_in) cudaEventDestroy(s->ev_in);
    if (s->ev_comp) cudaEventDestroy(s->ev_comp);
    if (s->ev_caller) cudaEventDestroy(s->ev_caller);
    if (s->s_in) cudaStreamDestroy(s->s_in);
    if (s->s_comp) cudaStreamDestroy(s->s_comp);
    if (s->s_out) cudaStreamDestroy(s->s_out);
    if (s->h) miniblas_destroy(s->h);
    free(s);
    cudaGetLastError();
}

/* The calling thread's state (the current device is already mbc_cfg.device). */
static mbc_state *get_state(char *msg, size_t msg_size) {
    pthread_once(&g_key_once, key_init);
    mbc_state *s = pthread_getspecific(g_key);
    if (s) return s;
    pthread_mutex_lock(&g_pool_lock);
    s = g_pool;
    if (s) g_pool = s->next;
    pthread_mutex_unlock(&g_pool_lock);
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s) {
            snprintf(msg, msg_size, "out of host memory for the per-thread state");
            return NULL;
        }
        s->device = mbc_cfg.device;
        cudaError_t e = cudaSuccess;
        miniblas_status_t st = miniblas_create(&s->h);
        if (st != MINIBLAS_STATUS_SUCCESS) {
            snprintf(msg, msg_size, "miniblas_create: %s", miniblas_status_string(st));
            s->h = NULL;
            state_destroy(s);
            return NULL;
        }
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_in, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_comp, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->s_out, cudaStreamNonBlocking);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_in, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_comp, cudaEventDisableTiming);
        if (e == cudaSuccess) e = cudaEventCreateWithFlags(&s->ev_caller, cudaEventDisableTiming);
        for (int i = 0; i < NIN && e == cudaSuccess; ++i)
            e = cudaEventCreateWithFlags(&s->in_ev[i], cudaEventDisableTiming);
        for (int i = 0; i < NOUT && e == cudaSuccess; ++i)
            e = cudaEventCreateWithFlags(&s->out_ev[i], cudaEventDisableTiming);
        if (e != cudaSuccess) {
            snprintf(msg, msg_size, "creating streams/events: %s", cudaGetErrorString(e));
            state_destroy(s);
            return NULL;
        }
        miniblas_set_stream(s->h, s->s_comp);
    }
    pthread_setspecific(g_key, s);
    return s;
}

/* ------------------------------------------------------------------ probing, pointers */

int mbc_gpu_probe(int device, char *msg, size_t msg_size) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(msg, msg_size, "no usable GPU (%s)",
                 e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        cudaGetLastError();
        return 0;
    }
    if (device < 0 || device >= count) {
        snprintf(msg, msg_size, "MINIBLAS_CBLAS_DEVICE=%d but there are %d devices", device,
                 count);
        return 0;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        snprintf(msg, msg_size, "cannot query device %d", device);
        return 0;
    }
    snprintf(msg, msg_size, "GPU %d: %s", device, prop.name);
    return 1;
}

int mbc_ptr_kind(const void *p) {
    if (!p || !mbc_cfg.gpu || !mbc_cfg.ptr_check || mbc_gpu_broken) return MBC_HOST;
    if (mbc_plain_host(p)) return MBC_HOST; /* heap, stack, static data: no CUDA query */
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError(); /* older runtimes: unregistered host memory is an error */
        return MBC_HOST;
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
    case cudaMemoryTypeManaged: return MBC_DEVICE;
    case cudaMemoryTypeHost: return MBC_PINNED;
    default: return MBC_HOST;
    }
}

/* ------------------------------------------------------------------ host copies */

static int copy_threads(size_t bytes) {
#ifdef _OPENMP
    if (bytes < 4 * (size_t)MB || mbc_cfg.copy_threads <= 1) return 1;
    size_t t = bytes / (2 * (size_t)MB);
    return t < (size_t)mbc_cfg.copy_threads ? (int)t : mbc_cfg.copy_threads;
#else
    (void)bytes;
    return 1;
#endif
}

/* Parallel memcpy of one contiguous range. */
static void pmemcpy(char *dst, const char *src, size_t bytes) {
    int nt = copy_threads(bytes);
    if (nt <= 1) {
        memcpy(dst, src, bytes);
        return;
    }
    size_t per = (bytes / (size_t)nt + 63) & ~(size_t)63;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
    for (int t = 0; t < nt; ++t) {
        size_t b = (size_t)t * per;
        if (b < bytes) memcpy(dst + b, src + b, per < bytes - b ? per : bytes - b);
    }
}

/* rows x cols block, leading dimensions in elements. */
static void copy2d(char *dst, int64_t ldd, const char *src, int64_t lds, int64_t rows,
                   int64_t cols, size_t e) {
    size_t rb = (size_t)rows * e;
    if (cols == 1 || (ldd == rows && lds == rows)) {
        pmemcpy(dst, src, rb * (size_t)cols);
        return;
    }
    int nt = copy_threads(rb * (size_t)cols);
    if (nt > 1 && cols >= 2 * nt) {
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static)
#endif
        for (int64_t c = 0; c < cols; ++c)
            memcpy(dst + (size_t)c * (size_t)ldd * e, src + (size_t)c * (size_t)lds * e, rb);
        return;
    }
    for (int64_t c = 0; c < cols; ++c)
        pmemcpy(dst + (size_t)c * (size_t)ldd * e, src + (size_t)c * (size_t)lds * e, rb);
}

/* dst[i] = x0[i * inc] for i < n (inc any sign, or 0). */
static void gather(char *dst, const char *x0, int64_t inc, int64_t n, size_t e) {
    if (inc == 1) {
        pmemcpy(dst, x0, (size_t)n * e);
        return;
    }
    int nt = copy_threads((size_t)n * e * 4); /* strided reads cost more */
    (void)nt;
    if (e == sizeof(float)) {
        float *d = (float *)dst;
        const float *x = (const float *)x0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
        for (int64_t i = 0; i < n; ++i) d[i] = x[i * inc];
    } else {
        double *d = (double *)dst;
        const double *x = (const double *)x0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
#endif
        for (int64_t i = 0; i < n; ++i) d[i] = x[i * inc];
    }
}

/* ------------------------------------------------------------------ staging */

static cudaError_t ensure_chunks(mbc_state *s, size_t bytes) {
    if (bytes <= s->chunk_bytes) return cudaSuccess;
    bytes = (bytes + MB - 1) / MB * MB;
    for (int i = 0; i < NIN; ++i) {
        if (s->in_chunk[i]) cudaFreeHost(s->in_chunk[i]);
        s->in_chunk[i] = NULL;
    }
    for (int i = 0; i < NOUT; ++i) {
        if (s->out_chunk[i]) cudaFreeHost(s->out_chunk[i]);
        s->out_chunk[i] = NULL;
    }
    s->chunk_bytes = 0;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < NIN && e == cudaSuccess; ++i)
        e = cudaHostAlloc(&s->in_chunk[i], bytes, cudaHostAllocDefault);
    for (int i = 0; i < NOUT && e == cudaSuccess; ++i)
        e = cudaHostAlloc(&s->out_chunk[i], bytes, cudaHostAllocDefault);
    if (e != cudaSuccess) {
        for (int i = 0; i < NIN; ++i)
            if (s->in_chunk[i]) cudaFreeHost(s->in_chunk[i]), s->in_chunk[i] = NULL;
        for (int i = 0; i < NOUT; ++i)
            if (s->out_chunk[i]) cudaFreeHost(s->out_chunk[i]), s->out_chunk[i] = NULL;
        cudaGetLastError();
        return e;
    }
    s->chunk_bytes = bytes;
    return cudaSuccess;
}

/* Free the cached device buffers that this call has not handed out (a slot already handed
 * out holds an operand of this call: freeing it would leave a dangling pointer). */
static void free_unused_dbufs(mbc_state *s) {
    for (int i = 0; i < 3; ++i) {
        if (s->dbuf_used & (1u << i)) continue;
        if (s->dbuf[i]) cudaFree(s->dbuf[i]);
        s->dbuf[i] = NULL;
        s->dbuf_bytes[i] = 0;
    }
}

/* Device buffer slot i of at least `bytes` (grow-only; one retry after freeing the cache).
 * A slot is handed out at most once per call. */
static cudaError_t dbuf(mbc_state *s, int i, size_t bytes, char **p) {
    if (bytes == 0) bytes = 1;
    if (s->dbuf_bytes[i] < bytes) {
        if (s->dbuf[i]) cudaFree(s->dbuf[i]);
        s->dbuf[i] = NULL;
        s->dbuf_bytes[i] = 0;
        size_t want = (bytes + 2 * MB - 1) / (2 * MB) * (2 * MB);
        cudaError_t e = cudaMalloc(&s->dbuf[i], want);
        if (e == cudaErrorMemoryAllocation) {
            cudaGetLastError();
            free_unused_dbufs(s);
            e = cudaMalloc(&s->dbuf[i], want);
        }
        if (e != cudaSuccess) {
            cudaGetLastError();
            s->dbuf[i] = NULL;
            return e;
        }
        s->dbuf_bytes[i] = want;
    }
    s->dbuf_used |= 1u << i;
    *p = s->dbuf[i];
    return cudaSuccess;
}

/* Host rows x cols (ld lds) -> device (ld ldd), queued on s_in. Pageable sources are packed
 * into the in chunks by the host first (this call returns when the last piece is queued). */
static cudaError_t h2d_2d(mbc_state *s, char *dd, int64_t ldd, const char *hs, int64_t lds,
                          int64_t rows, int64_t cols, int kind) {
    size_t e = s->elem;
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    if (kind == MBC_PINNED)
        return cudaMemcpy2DAsync(dd, (size_t)ldd * e, hs, (size_t)lds * e, (size_t)rows * e,
                                 (size_t)cols, cudaMemcpyHostToDevice, s->s_in);
    int64_t cap = (int64_t)(s->chunk_bytes / e);
    int64_t rb = rows < cap ? rows : cap;
    for (int64_t r0 = 0; r0 < rows; r0 += rb) {
        int64_t nr = rows - r0 < rb ? rows - r0 : rb;
        int64_t cb = cap / nr > 0 ? cap / nr : 1;
        for (int64_t c0 = 0; c0 < cols; c0 += cb) {
            int64_t nc = cols - c0 < cb ? cols - c0 : cb;
            int slot = s->in_next;
            s->in_next = (slot + 1) % NIN;
            cudaError_t err = cudaEventSynchronize(s->in_ev[slot]);
            if (err != cudaSuccess) return err;
            char *chunk = s->in_chunk[slot];
            copy2d(chunk, nr, hs + ((size_t)r0 + (size_t)c0 * (size_t)lds) * e, lds, nr, nc, e);
            err = cudaMemcpy2DAsync(dd + ((size_t)r0 + (size_t)c0 * (size_t)ldd) * e,
                                    (size_t)ldd * e, chunk, (size_t)nr * e, (size_t)nr * e,
                                    (size_t)nc, cudaMemcpyHostToDevice, s->s_in);
            if (err == cudaSuccess) err = cudaEventRecord(s->in_ev[slot], s->s_in);
            if (err != cudaSuccess) return err;
        }
    }
    return cudaSuccess;
}

/* Host vector, logical element i at x0[i * inc] -> contiguous device vector, on s_in. */
static cudaError_t h2d_vec(mbc_state *s, char *dd, const char *x0, int64_t inc, int64_t n,
                           int kind) {
    size_t e = s->elem;
    if (kind == MBC_PINNED && inc == 1)
        return cudaMemcpyAsync(dd, x0, (size_t)n * e, cudaMemcpyHostToDevice, s->s_in);
    int64_t cap = (int64_t)(s->chunk_bytes / e);
    for (int64_t i0 = 0; i0 < n; i0 += cap) {
        int64_t cnt = n - i0 < cap ? n - i0 : cap;
        int slot = s->in_next;
        s->in_next = (slot + 1) % NIN;
        cudaError_t err = cudaEventSynchronize(s->in_ev[slot]);
        if (err != cudaSuccess) return err;
        gather(s->in_chunk[slot], x0 + (ptrdiff_t)(i0 * inc) * (ptrdiff_t)e, inc, cnt, e);
        err = cudaMemcpyAsync(dd + (size_t)i0 * e, s->in_chunk[slot], (size_t)cnt * e,
                              cudaMemcpyHostToDevice, s->s_in);
        if (err == cudaSuccess) err = cudaEventRecord(s->in_ev[slot], s->s_in);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

/* Write a finished out chunk into the caller's memory; advance the progress. */
static cudaError_t finish_out(mbc_state *s, int slot) {
    mbc_pending *p = &s->out[slot];
    if (!p->busy) return cudaSuccess;
    p->busy = 0;
    cudaError_t err = cudaEventSynchronize(s->out_ev[slot]);
    if (err != cudaSuccess) return err;
    copy2d(p->dst, p->ldh, s->out_chunk[slot], p->nr, p->nr, p->nc, s->elem);
    if (p->r0 + p->nr == s->out_rows) { /* whole columns are done */
        s->prog.done_col = p->c0 + p->nc;
        s->prog.done_row = 0;
    } else { /* a part of one column */
        s->prog.done_col = p->c0;
        s->prog.done_row = p->r0 + p->nr;
    }
    return cudaSuccess;
}

/* Write every pending out chunk, oldest first. */
static cudaError_t drain_out(mbc_state *s) {
    for (int i = 0; i < NOUT; ++i) {
        cudaError_t err = finish_out(s, (s->out_next + i) % NOUT);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

/* Device rows x cols (ld ldd) -> host (ld ldh), queued on s_out after what s_out waits for.
 * Pieces go in column-major order; col_base is the place of column 0 in the whole output.
 * direct: the host memory is pinned and may be written by DMA as it arrives. */
static cudaError_t d2h_2d(mbc_state *s, char *hd, int64_t ldh, const char *ds, int64_t ldd,
                          int64_t rows, int64_t cols, int direct, int64_t col_base) {
    size_t e = s->elem;
    if (direct)
        return cudaMemcpy2DAsync(hd, (size_t)ldh * e, ds, (size_t)ldd * e, (size_t)rows * e,
                                 (size_t)cols, cudaMemcpyDeviceToHost, s->s_out);
    int64_t cap = (int64_t)(s->chunk_bytes / e);
    int64_t rb = rows < cap ? rows : cap;
    int64_t cb = rows <= cap ? cap / rows : 1;
    for (int64_t c0 = 0; c0 < cols; c0 += cb) {
        int64_t nc = cols - c0 < cb ? cols - c0 : cb;
        for (int64_t r0 = 0; r0 < rows; r0 += rb) { /* one pass unless a column > a chunk */
            int64_t nr = rows - r0 < rb ? rows - r0 : rb;
            int slot = s->out_next;
            s->out_next = (slot + 1) % NOUT;
            cudaError_t err = finish_out(s, slot);
            if (err != cudaSuccess) return err;
            err = cudaMemcpy2DAsync(s->out_chunk[slot], (size_t)nr * e,
                                    ds + ((size_t)r0 + (size_t)c0 * (size_t)ldd) * e,
                                    (size_t)ldd * e, (size_t)nr * e, (size_t)nc,
                                    cudaMemcpyDeviceToHost, s->s_out);
            if (err == cudaSuccess) err = cudaEventRecord(s->out_ev[slot], s->s_out);
            if (err != cudaSuccess) return err;
            mbc_pending *p = &s->out[slot];
            p->busy = 1;
            p->dst = hd + ((size_t)r0 + (size_t)c0 * (size_t)ldh) * e;
            p->ldh = ldh;
            p->r0 = r0;
            p->c0 = col_base + c0;
            p->nr = nr;
            p->nc = nc;
        }
    }
    return cudaSuccess;
}

/* ------------------------------------------------------------------ call frame */

typedef struct mbc_frame {
    mbc_state *s;
    int prev_device;
    char *msg;
    size_t msg_size;
} mbc_frame;

static int frame_enter(mbc_frame *f, size_t elem, char *msg, size_t msg_size) {
    f->msg = msg;
    f->msg_size = msg_size;
    f->prev_device = -1;
    f->s = NULL;
    if (cudaGetDevice(&f->prev_device) != cudaSuccess) {
        cudaGetLastError();
        f->prev_device = -1;
    }
    if (f->prev_device != mbc_cfg.device) {
        cudaError_t e = cudaSetDevice(mbc_cfg.device);
        if (e != cudaSuccess) {
            snprintf(msg, msg_size, "cudaSetDevice(%d): %s", mbc_cfg.device,
                     cudaGetErrorString(e));
            cudaGetLastError();
            return -1;
        }
    }
    f->s = get_state(msg, msg_size);
    if (!f->s) {
        if (f->prev_device >= 0 && f->prev_device != mbc_cfg.device)
            cudaSetDevice(f->prev_device);
        return -1;
    }
    f->s->elem = elem;
    f->s->dbuf_used = 0;
    f->s->in_next = 0;
    f->s->out_next = 0;
    for (int i = 0; i < NOUT; ++i) f->s->out[i].busy = 0;
    f->s->prog.done_col = 0;
    f->s->prog.done_row = 0;
    return 0;
}

/* End of a call: on failure, wait for whatever is queued (ignoring errors), decide whether
 * the error is sticky (then the GPU is off for the rest of the process), and describe it. */
static int frame_leave(mbc_frame *f, cudaError_t err, miniblas_status_t st, const char *what) {
    mbc_state *s = f->s;
    int rc = 0;
    if (err != cudaSuccess || st != MINIBLAS_STATUS_SUCCESS) {
        rc = -1;
        if (err != cudaSuccess)
            snprintf(f->msg, f->msg_size, "%s: %s (%s)", what, cudaGetErrorString(err),
                     cudaGetErrorName(err));
        else
            snprintf(f->msg, f->msg_size, "%s: %s (%s)", what, miniblas_status_string(st),
                     miniblas_last_error(s->h));
        cudaStreamSynchronize(s->s_in);
        cudaStreamSynchronize(s->s_comp);
        cudaStreamSynchronize(s->s_out);
        cudaGetLastError();
        if (cudaDeviceSynchronize() != cudaSuccess) { /* the context is gone */
            mbc_gpu_broken = 1;
            cudaGetLastError();
        }
        for (int i = 0; i < NOUT; ++i) s->out[i].busy = 0;
    }
    if (f->prev_device >= 0 && f->prev_device != mbc_cfg.device) cudaSetDevice(f->prev_device);
    return rc;
}

static cudaError_t sync_all(mbc_state *s) {
    cudaError_t e = cudaStreamSynchronize(s->s_in);
    cudaError_t e2 = cudaStreamSynchronize(s->s_comp);
    cudaError_t e3 = cudaStreamSynchronize(s->s_out);
    return e != cudaSuccess ? e : e2 != cudaSuccess ? e2 : e3;
}

/* Device (or managed) operands: s_comp waits for the work the caller queued before this call.
 * Our streams are non-blocking, so without this they do not wait for the legacy default
 * stream at all: a cudaMemcpy from pageable memory returns before its DMA has landed ("the
 * DMA to final destination may not have completed"), and a kernel the caller launched on the
 * default stream may still be running. An event recorded on the legacy default stream
 * completes after everything queued before it on that stream and on every blocking stream
 * (per-thread default streams included). Work on the caller's own non-blocking streams is the
 * caller's to synchronise (docs/cblas.md). */
static cudaError_t comp_after_caller(mbc_state *s) {
    cudaError_t e = cudaEventRecord(s->ev_caller, cudaStreamLegacy);
    return e == cudaSuccess ? cudaStreamWaitEvent(s->s_comp, s->ev_caller, 0) : e;
}

/* s_comp waits for everything queued so far on s_in. */
static cudaError_t comp_after_in(mbc_state *s) {
    cudaError_t e = cudaEventRecord(s->ev_in, s->s_in);
    return e == cudaSuccess ? cudaStreamWaitEvent(s->s_comp, s->ev_in, 0) : e;
}

/* s_out waits for everything queued so far on s_comp. */
static cudaError_t out_after_comp(mbc_state *s) {
    cudaError_t e = cudaEventRecord(s->ev_comp, s->s_comp);
    return e == cudaSuccess ? cudaStreamWaitEvent(s->s_out, s->ev_comp, 0) : e;
}

/* ------------------------------------------------------------------ gemm */

static miniblas_status_t dev_gemm(mbc_state *s, const mbc_gemm *g, int64_t m, int64_t n,
                                  const char *A, int64_t lda, const char *B, int64_t ldb,
                                  char *C, int64_t ldc) {
    miniblas_transpose_t ta = g->ta ? MiniblasTrans : MiniblasNoTrans;
    miniblas_transpose_t tb = g->tb ? MiniblasTrans : MiniblasNoTrans;
    if (g->dbl)
        return miniblas_dgemm(s->h, MiniblasColMajor, ta, tb, m, n, g->k, g->alpha,
                              (const double *)A, lda, (const double *)B, ldb, g->beta,
                              (double *)C, ldc);
    return miniblas_sgemm(s->h, MiniblasColMajor, ta, tb, m, n, g->k, (float)g->alpha,
                          (const float *)A, lda, (const float *)B, ldb, (float)g->beta,
                          (float *)C, ldc);
}

static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }

int mbc_gpu_gemm(const mbc_gemm *g, mbc_progress *prog, char *msg, size_t msg_size) {
    size_t e = g->dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    prog->done_col = prog->done_row = 0;
    if (frame_enter(&f, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    cudaError_t err = cudaSuccess;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    const char *what = "gemm";
    int64_t m = g->m, n = g->n, k = g->k;
    int touched_ab = k > 0 && g->alpha != 0;
    int a_dev = !touched_ab || g->a_kind == MBC_DEVICE;
    int b_dev = !touched_ab || g->b_kind == MBC_DEVICE;
    int c_dev = g->c_kind == MBC_DEVICE;
    if (g->a_kind == MBC_DEVICE || g->b_kind == MBC_DEVICE || c_dev) {
        what = "waiting for the caller's default stream";
        if ((err = comp_after_caller(s)) != cudaSuccess) return frame_leave(&f, err, st, what);
        what = "gemm";
    }

    if (a_dev && b_dev && c_dev) { /* everything in place: one call */
        st = dev_gemm(s, g, m, n, g->A, g->lda, g->B, g->ldb, g->C, g->ldc);
        if (st == MINIBLAS_STATUS_SUCCESS) err = cudaStreamSynchronize(s->s_comp), what = "sync";
        return frame_leave(&f, err, st, what);
    }

    int64_t a_rows = g->ta ? k : m, a_cols = g->ta ? m : k;
    int64_t b_rows = g->tb ? n : k, b_cols = g->tb ? k : n;
    /* Panels: wide enough that each panel's gemm fills the GPU (~4M elements of C, two
     * waves of 128x128 tiles on 132 SMs), at most ~8 of them for the pipeline. */
    int64_t nb = mbc_cfg.panel;
    if (nb <= 0) {
        int64_t fill = ((int64_t)1 << 22) / (m > 0 ? m : 1);
        int64_t eighth = (n + 7) / 8;
        nb = round_up(fill > eighth ? fill : eighth, 128);
    }
    if (nb > n) nb = n;
    if (nb < 1) nb = 1;
    /* A row blocks for the first panel (A copied once, overlapped with panel 0's gemm). */
    int nblk = 1;
    int64_t mb = m;
    if (!a_dev && m >= 512 && k >= 1) {
        nblk = 4;
        mb = round_up((m + nblk - 1) / nblk, 64);
    }
    /* Chunk size: one piece per panel operand where possible. */
    size_t need = 0;
    if (!b_dev) need = (size_t)k * (size_t)nb * e;
    if (!c_dev && (size_t)m * (size_t)nb * e > need) need = (size_t)m * (size_t)nb * e;
    if (!a_dev && (size_t)mb * (size_t)k * e > need) need = (size_t)mb * (size_t)k * e;
    if (need > mbc_cfg.chunk_max) need = mbc_cfg.chunk_max;
    if (need < (size_t)MB) need = MB;
    int any_pageable = (!a_dev && g->a_kind == MBC_HOST) || (!b_dev && g->b_kind == MBC_HOST) ||
                       (!c_dev && (g->c_kind == MBC_HOST || g->beta != 0));
    if (any_pageable && (err = ensure_chunks(s, need)) != cudaSuccess) {
        what = "cudaHostAlloc (pinned staging)";
        return frame_leave(&f, err, st, what);
    }

    char *dA = (char *)g->A, *dB = (char *)g->B, *dC = g->C;
    int64_t ldA = g->lda, ldB = g->ldb, ldC = g->ldc;
    what = "cudaMalloc (device buffers)";
    if (!a_dev && (err = dbuf(s, 0, (size_t)a_rows * (size_t)a_cols * e, &dA)) != cudaSuccess)
        return frame_leave(&f, err, st, what);
    if (!a_dev) ldA = a_rows;
    if (!b_dev && (err = dbuf(s, 1, (size_t)b_rows * (size_t)b_cols * e, &dB)) != cudaSuccess)
        return frame_leave(&f, err, st, what);
    if (!b_dev) ldB = b_rows;
    if (!c_dev && (err = dbuf(s, 2, (size_t)m * (size_t)n * e, &dC)) != cudaSuccess)
        return frame_leave(&f, err, st, what);
    if (!c_dev) ldC = m;

    const char *hA = g->A, *hB = g->B;
    char *hC = g->C;
    /* Pinned C may be written by DMA as it arrives only when beta == 0: then a failure can
     * recompute all of C from A and B. Otherwise C goes through the out chunks. */
    int c_direct = g->c_kind == MBC_PINNED && g->beta == 0;
    s->out_rows = m;
    for (int64_t c0 = 0; c0 < n && err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS;
         c0 += nb) {
        int64_t nc = n - c0 < nb ? n - c0 : nb;
        what = "copy to the GPU";
        if (!b_dev) {
            if (!g->tb)
                err = h2d_2d(s, dB + (size_t)c0 * (size_t)ldB * e, ldB,
                             hB + (size_t)c0 * (size_t)g->ldb * e, g->ldb, k, nc, g->b_kind);
            else
                err = h2d_2d(s, dB + (size_t)c0 * e, ldB, hB + (size_t)c0 * e, g->ldb, nc, k,
                             g->b_kind);
            if (err != cudaSuccess) break;
        }
        if (!c_dev && g->beta != 0) {
            err = h2d_2d(s, dC + (size_t)c0 * (size_t)ldC * e, ldC,
                         hC + (size_t)c0 * (size_t)g->ldc * e, g->ldc, m, nc, g->c_kind);
            if (err != cudaSuccess) break;
        }
        const char *Bp = dB + (size_t)(g->tb ? c0 : c0 * ldB) * e;
        if (c0 == 0 && !a_dev) {
            for (int64_t r0 = 0; r0 < m; r0 += mb) {
                int64_t nr = m - r0 < mb ? m - r0 : mb;
                what = "copy to the GPU";
                if (!g->ta)
                    err = h2d_2d(s, dA + (size_t)r0 * e, ldA, hA + (size_t)r0 * e, g->lda, nr, k,
                                 g->a_kind);
                else
                    err = h2d_2d(s, dA + (size_t)r0 * (size_t)ldA * e, ldA,
                                 hA + (size_t)r0 * (size_t)g->lda * e, g->lda, k, nr, g->a_kind);
                if (err == cudaSuccess) err = comp_after_in(s);
                if (err != cudaSuccess) break;
                what = "gemm";
                st = dev_gemm(s, g, nr, nc, dA + (size_t)(g->ta ? r0 * ldA : r0) * e, ldA, Bp, ldB,
                              dC + ((size_t)r0 + (size_t)c0 * (size_t)ldC) * e, ldC);
                if (st != MINIBLAS_STATUS_SUCCESS) break;
            }
            if (err != cudaSuccess || st != MINIBLAS_STATUS_SUCCESS) break;
        } else {
            if ((err = comp_after_in(s)) != cudaSuccess) break;
            what = "gemm";
            st = dev_gemm(s, g, m, nc, dA, ldA, Bp, ldB, dC + (size_t)c0 * (size_t)ldC * e, ldC);
            if (st != MINIBLAS_STATUS_SUCCESS) break;
        }
        if (!c_dev) {
            what = "copy from the GPU";
            err = out_after_comp(s);
            if (err == cudaSuccess)
                err = d2h_2d(s, hC + (size_t)c0 * (size_t)g->ldc * e, g->ldc,
                             dC + (size_t)c0 * (size_t)ldC * e, ldC, m, nc, c_direct, c0);
        }
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) {
        what = "copy from the GPU";
        err = drain_out(s);
        if (err == cudaSuccess) what = "sync", err = sync_all(s);
    }
    *prog = s->prog;
    if (c_direct) prog->done_col = prog->done_row = 0; /* unknown: recompute all (beta == 0) */
    return frame_leave(&f, err, st, what);
}

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
    cudaError_t err = dbuf(s, slot, (size_t)n * e, &d);
    if (err != cudaSuccess) return err;
    const char *x0 = (const char *)x + (inc < 0 ? (size_t)((n - 1) * -inc) * e : 0);
    err = h2d_vec(s, d, x0, inc, n, kind);
    *dx = d;
    *dinc = 1;
    return err;
}

static int gpu_reduce(int dbl, int64_t n, const void *x, int64_t incx, int x_kind,
                      const void *y, int64_t incy, int y_kind, double *result, char *msg,
                      size_t msg_size) {
    size_t e = dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    if (frame_enter(&f, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    const char *what = "cudaHostAlloc (pinned staging)";
    int staged = x_kind != MBC_DEVICE || (y && y_kind != MBC_DEVICE);
    size_t need = (size_t)n * e;
    if (need > mbc_cfg.chunk_max) need = mbc_cfg.chunk_max;
    if (need < (size_t)MB) need = MB;
    cudaError_t err = staged ? ensure_chunks(s, need) : cudaSuccess;
    if (err == cudaSuccess && (x_kind == MBC_DEVICE || (y && y_kind == MBC_DEVICE)))
        what = "waiting for the caller's default stream", err = comp_after_caller(s);
    const char *dx = NULL, *dy = NULL;
    int64_t ix = incx, iy = incy;
    if (err == cudaSuccess) what = "copy to the GPU", err = vec_operand(s, 0, n, x, incx, x_kind, &dx, &ix);
    if (err == cudaSuccess && y) err = vec_operand(s, 1, n, y, incy, y_kind, &dy, &iy);
    if (err == cudaSuccess) err = comp_after_in(s);
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
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) what = "sync", err = sync_all(s);
    return frame_leave(&f, err, st, what);
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
    if (frame_enter(&f, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    cudaError_t err = cudaSuccess;
    const char *what = "cudaHostAlloc (pinned staging)";
    int64_t b_lead = trans ? cols : rows, b_other = trans ? rows : cols;
    int b_direct = b_kind == MBC_PINNED;
    int staged = a_kind == MBC_HOST || (b_kind != MBC_DEVICE && !b_direct);
    size_t need = (size_t)rows * (size_t)cols * e;
    if (need > mbc_cfg.chunk_max) need = mbc_cfg.chunk_max;
    if (need < (size_t)MB) need = MB;
    if (staged) err = ensure_chunks(s, need);
    if (err == cudaSuccess && (a_kind == MBC_DEVICE || b_kind == MBC_DEVICE))
        what = "waiting for the caller's default stream", err = comp_after_caller(s);
    char *dA = (char *)A, *dB = B;
    int64_t ldA = lda, ldB = ldb;
    if (err == cudaSuccess && a_kind != MBC_DEVICE) {
        what = "cudaMalloc (device buffers)";
        err = dbuf(s, 0, (size_t)rows * (size_t)cols * e, &dA);
        ldA = rows;
        if (err == cudaSuccess)
            what = "copy to the GPU", err = h2d_2d(s, dA, ldA, A, lda, rows, cols, a_kind);
    }
    if (err == cudaSuccess && b_kind != MBC_DEVICE) {
        what = "cudaMalloc (device buffers)";
        err = dbuf(s, 1, (size_t)rows * (size_t)cols * e, &dB);
        ldB = b_lead;
    }
    if (err == cudaSuccess) err = comp_after_in(s);
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
        err = out_after_comp(s);
        if (err == cudaSuccess)
            err = d2h_2d(s, B, ldb, dB, ldB, b_lead, b_other, b_direct, 0);
        if (err == cudaSuccess) err = drain_out(s);
    }
    if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS) what = "sync", err = sync_all(s);
    return frame_leave(&f, err, st, what);
}
