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
 * 55 GB/s pinned, so operands are packed by host threads (copypool.c) into pinned chunks and
 * DMA'd from there; a chunk is reused once the event recorded after its copy has completed.
 * Those copies (and the unpacking of C) may use streaming stores (stream_copy.h,
 * MINIBLAS_CBLAS_STREAM_STORES): no read-for-ownership of a destination the CPU will not read.
 * Operands already in pinned memory (cudaMallocHost/cudaHostRegister) are DMA'd directly.
 * Device and managed operands are used in place; the compute stream first waits for the work
 * the caller queued on the legacy default stream (and so on every blocking stream), since our
 * streams are non-blocking (comp_after_caller).
 *
 * Gemm (column-major after normalisation): the schedule is described at mbc_gpu_gemm. The
 * host packs every input first and unpacks C afterwards (except pieces already back while it
 * packs); C comes back through the out chunks
 * in column-major order, and the host writes a piece into the caller's C only after its copy
 * completed, so after a failure the caller's C is final up to a known point (mbc_progress)
 * and untouched beyond it.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime_api.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "miniblas.h"
#include "cblas_internal.h"
#include "cblas_ptr.h"
#include "stream_copy.h"
#include "copypool.h"

#define NIN 3
/* Out chunks: 3 allocated; sgemm uses 3, dgemm 2 (session 5 run 6, one process each, two
 * rounds: sgemm 4096 4.0 ms with 3 against 4.7-4.9 with 2; dgemm 8192 35.0-35.6 ms with 2
 * against 38.0-40.5 with 3: there the host, not the copy back, is the limit, and a third
 * chunk lets it unpack early at the expense of packing). */
#define NOUT 3
#define NPEV 32 /* events marking gemm panels complete (a ring; see panel_done) */
#define MAXPAN 64 /* gemm panels of one call (the width grows to stay below) */
#define NTEV 128 /* MINIBLAS_CBLAS_VERBOSE=2: timing events, one before and one after each gemm */
#define MB (1024 * 1024)

typedef struct mbc_pending {
    int busy;
    char *dst;          /* caller's memory */
    int64_t ldh;        /* its leading dimension, elements */
    int64_t r0, c0;     /* the piece's place in the whole output (column-major) */
    int64_t nr, nc;
} mbc_pending;

/* Where the host's time went in one call, ms (MINIBLAS_CBLAS_VERBOSE=2). */
typedef struct mbc_trace {
    double t0;                     /* start of the call */
    double pack[3];                /* host copies into the in chunks: A, B, C */
    double unpack;                 /* out chunks -> the caller's memory */
    double wait_in, wait_out;      /* waiting for a chunk's copy to complete */
    double first_gemm, inputs;     /* when the first gemm was queued / the last input packed */
    int64_t geo[5];                /* gemm: panels, their width, A row blocks, k-slabs, depth */
} mbc_trace;

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
    int out_next, nout; /* nout: chunks in use this call (2 or NOUT) */
    cudaEvent_t pan_ev[NPEV];
    void *dbuf[3];
    size_t dbuf_bytes[3];
    /* per call */
    unsigned dbuf_used; /* slots handed out in this call (never freed by an OOM retry) */
    size_t elem;
    int64_t out_rows; /* rows of the output being copied back (progress) */
    mbc_progress prog;
    int tr_which; /* the operand h2d_2d is packing (index into tr.pack) */
    mbc_trace tr;
    cudaEvent_t tev[NTEV + 1]; /* verbose 2: [0, ntev) around the gemms, [NTEV] the call's start */
    int ntev;                  /* -1: no GPU trace in this call */
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
    for (int i = 0; i < NPEV; ++i)
        if (s->pan_ev[i]) cudaEventDestroy(s->pan_ev[i]);
    for (int i = 0; i <= NTEV; ++i)
        if (s->tev[i]) cudaEventDestroy(s->tev[i]);
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
        for (int i = 0; i < NPEV && e == cudaSuccess; ++i)
            e = cudaEventCreateWithFlags(&s->pan_ev[i], cudaEventDisableTiming);
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

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Threads for one host copy: all of them from a few MB on (the staging rate needs 8-16
 * threads; gemm's pieces at n = 4096 are 4-6 MB), at least 512 KB each. */
static int copy_threads(size_t bytes) {
    if (bytes < (size_t)MB || mbc_cfg.copy_threads <= 1) return 1;
    size_t t = bytes / (512 * (size_t)1024);
    return t < (size_t)mbc_cfg.copy_threads ? (int)t : mbc_cfg.copy_threads;
}

/* Staging copies, on the copy pool (copypool.c: no barrier waiting for a descheduled thread).
 * dir: MBC_COPY_IN (caller's operand -> pinned chunk) or MBC_COPY_OUT (pinned chunk -> caller's
 * C); MINIBLAS_CBLAS_STREAM_STORES selects the directions that use streaming stores
 * (stream_copy.h), which are weakly ordered: each item ends with a fence, so the data is
 * visible before the DMA is queued. Items are ~PIECE bytes: parts of a column taller than
 * that, else whole columns. */
enum { MBC_COPY_IN = 1, MBC_COPY_OUT = 2 };
#define PIECE ((size_t)256 * 1024)

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t ldd_b, lds_b; /* bytes from one column to the next */
    size_t rb;           /* bytes per column */
    int64_t cols;
    int64_t per;         /* split: items per column; else columns per item */
    int split, st;
} copy_job;

static void copy_item(void *ctx, int64_t i) {
    const copy_job *j = (const copy_job *)ctx;
    int64_t c0 = j->split ? i / j->per : i * j->per;
    int64_t c1 = j->split ? c0 + 1 : (c0 + j->per < j->cols ? c0 + j->per : j->cols);
    size_t off = j->split ? (size_t)(i % j->per) * PIECE : 0;
    size_t len = j->split ? (j->rb - off < PIECE ? j->rb - off : PIECE) : j->rb;
    for (int64_t c = c0; c < c1; ++c) {
        char *d = j->dst + (size_t)c * j->ldd_b + off;
        const char *s = j->src + (size_t)c * j->lds_b + off;
        if (j->st)
            mbc_stream_copy_nofence(d, s, len);
        else
            memcpy(d, s, len);
    }
    if (j->st) mbc_stream_fence();
}

/* rows x cols block, leading dimensions in elements. */
static void copy2d(char *dst, int64_t ldd, const char *src, int64_t lds, int64_t rows,
                   int64_t cols, size_t e, int dir) {
    copy_job j = {dst, src, (size_t)ldd * e, (size_t)lds * e, (size_t)rows * e, cols, 1, 0,
                  (mbc_cfg.stream_stores & dir) != 0};
    if (j.rb == 0 || cols <= 0) return;
    if (cols == 1 || (ldd == rows && lds == rows)) j.rb *= (size_t)cols, j.cols = 1;
    j.split = j.rb >= PIECE;
    j.per = j.split ? (int64_t)((j.rb + PIECE - 1) / PIECE) : (int64_t)(PIECE / j.rb);
    int64_t n = j.split ? j.cols * j.per : (j.cols + j.per - 1) / j.per;
    mbc_pool_run(n, copy_item, &j, copy_threads(j.rb * (size_t)j.cols));
}

/* Parallel copy of one contiguous range. */
static void pmemcpy(char *dst, const char *src, size_t bytes, int dir) {
    copy2d(dst, (int64_t)bytes, src, (int64_t)bytes, (int64_t)bytes, 1, 1, dir);
}

/* dst[i] = x0[i * inc] for i < n (inc any sign, or 0). */
static void gather(char *dst, const char *x0, int64_t inc, int64_t n, size_t e) {
    if (inc == 1) {
        pmemcpy(dst, x0, (size_t)n * e, MBC_COPY_IN);
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
            double t = now_ms();
            cudaError_t err = cudaEventSynchronize(s->in_ev[slot]);
            if (err != cudaSuccess) return err;
            double t2 = now_ms();
            char *chunk = s->in_chunk[slot];
            copy2d(chunk, nr, hs + ((size_t)r0 + (size_t)c0 * (size_t)lds) * e, lds, nr, nc, e,
                   MBC_COPY_IN);
            s->tr.wait_in += t2 - t;
            s->tr.pack[s->tr_which] += now_ms() - t2;
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
    double t = now_ms();
    cudaError_t err = cudaEventSynchronize(s->out_ev[slot]);
    if (err != cudaSuccess) return err;
    double t2 = now_ms();
    copy2d(p->dst, p->ldh, s->out_chunk[slot], p->nr, p->nr, p->nc, s->elem, MBC_COPY_OUT);
    s->tr.wait_out += t2 - t;
    s->tr.unpack += now_ms() - t2;
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
    for (int i = 0; i < s->nout; ++i) {
        cudaError_t err = finish_out(s, (s->out_next + i) % s->nout);
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
            s->out_next = (slot + 1) % s->nout;
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
    f->s->nout = elem == sizeof(float) ? NOUT : 2;
    for (int i = 0; i < NOUT; ++i) f->s->out[i].busy = 0;
    f->s->prog.done_col = 0;
    f->s->prog.done_row = 0;
    memset(&f->s->tr, 0, sizeof f->s->tr);
    f->s->tr.t0 = now_ms();
    f->s->tr_which = 0;
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
            mbc_quick_update();
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

static int64_t round_up(int64_t v, int64_t q) { return (v + q - 1) / q * q; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Element (i, j) of a column-major matrix; NULL stays NULL (A and B are not referenced when
 * k == 0 or alpha == 0, and may be NULL then). */
static char *at(const char *p, int64_t ld, int64_t i, int64_t j, size_t e) {
    return p ? (char *)p + ((size_t)i + (size_t)j * (size_t)ld) * e : NULL;
}

/* One call's gemm: geometry, device operands, and the copy back of C. */
typedef struct gemm_job {
    const mbc_gemm *g;
    size_t e;
    char *dA, *dB, *dC; /* device operands: staged copies (leading dimension = rows) or in place */
    int64_t ldA, ldB, ldC;
    int a_staged, b_staged, c_in, c_back; /* copied in: A, B, C (beta != 0); C copied back */
    int direct;                           /* C pinned and beta == 0: DMA'd straight into it */
    int64_t nb, npan;                     /* panels of C: widest, count */
    int64_t pc[MAXPAN + 1];               /* panel p: columns [pc[p], pc[p + 1]) */
    int64_t opan;                         /* the panel of column ocol */
    int64_t mb, nblk;                     /* row blocks of A (phase 2): height, count */
    int64_t ks, nslab;                    /* k-slabs of phase 1: depth, count (0: no phase 1) */
    int64_t ready;                        /* panels whose gemms are all queued */
    int64_t ocol, orow;                   /* the next piece of C to queue for the copy back */
} gemm_job;

/* op(A)[r, q] and op(B)[q, c] on the device. */
static char *devA(const gemm_job *j, int64_t r, int64_t q) {
    return j->g->ta ? at(j->dA, j->ldA, q, r, j->e) : at(j->dA, j->ldA, r, q, j->e);
}
static char *devB(const gemm_job *j, int64_t q, int64_t c) {
    return j->g->tb ? at(j->dB, j->ldB, c, q, j->e) : at(j->dB, j->ldB, q, c, j->e);
}

/* Rows [i0, i0+ni) x columns [j0, j0+nj) of op(X) to the same place in X's device copy
 * (trans: X is stored transposed). which: the trace's operand (0 A, 1 B, 2 C). */
static cudaError_t stage(mbc_state *s, int which, char *d, int64_t ldd, const void *h,
                         int64_t ldh, int trans, int64_t i0, int64_t ni, int64_t j0, int64_t nj,
                         int kind) {
    size_t e = s->elem;
    s->tr_which = which;
    if (trans)
        return h2d_2d(s, at(d, ldd, j0, i0, e), ldd, at(h, ldh, j0, i0, e), ldh, nj, ni, kind);
    return h2d_2d(s, at(d, ldd, i0, j0, e), ldd, at(h, ldh, i0, j0, e), ldh, ni, nj, kind);
}

/* The GPU side of the trace (MINIBLAS_CBLAS_VERBOSE=2): timing events on s_comp at the
 * call's start and around each gemm, read by gemm_trace after the call. */
static void trace_gpu_begin(mbc_state *s) {
    s->ntev = -1;
    for (int i = 0; i <= NTEV; ++i)
        if (!s->tev[i] && cudaEventCreate(&s->tev[i]) != cudaSuccess) return;
    if (cudaEventRecord(s->tev[NTEV], s->s_comp) == cudaSuccess) s->ntev = 0;
}
static void trace_gpu_mark(mbc_state *s) {
    if (s->ntev < 0) return;
    if (s->ntev < NTEV && cudaEventRecord(s->tev[s->ntev], s->s_comp) == cudaSuccess)
        ++s->ntev;
    else
        s->ntev = -1; /* too many gemms (or a failure): no GPU trace for this call */
}

/* C[r0 : r0+m, c0 : c0+n] = alpha op(A)[r0.., q0 : q0+k] op(B)[q0 : q0+k, c0..] + beta C on
 * s_comp, after everything queued so far on s_in. */
static cudaError_t queue_gemm(mbc_state *s, const gemm_job *j, int64_t r0, int64_t m, int64_t c0,
                              int64_t n, int64_t q0, int64_t k, double beta,
                              miniblas_status_t *st) {
    const mbc_gemm *g = j->g;
    cudaError_t err = comp_after_in(s);
    if (err != cudaSuccess) return err;
    if (s->tr.first_gemm == 0) s->tr.first_gemm = now_ms() - s->tr.t0;
    miniblas_transpose_t ta = g->ta ? MiniblasTrans : MiniblasNoTrans;
    miniblas_transpose_t tb = g->tb ? MiniblasTrans : MiniblasNoTrans;
    const char *A = devA(j, r0, q0), *B = devB(j, q0, c0);
    char *C = at(j->dC, j->ldC, r0, c0, j->e);
    trace_gpu_mark(s);
    if (g->dbl)
        *st = miniblas_dgemm(s->h, MiniblasColMajor, ta, tb, m, n, k, g->alpha,
                             (const double *)A, j->ldA, (const double *)B, j->ldB, beta,
                             (double *)C, j->ldC);
    else
        *st = miniblas_sgemm(s->h, MiniblasColMajor, ta, tb, m, n, k, (float)g->alpha,
                             (const float *)A, j->ldA, (const float *)B, j->ldB, (float)beta,
                             (float *)C, j->ldC);
    trace_gpu_mark(s);
    return cudaSuccess;
}

/* Queue the copy back of C for the panels whose gemms are all queued, in column-major pieces
 * (whole columns of at most a chunk, or one column in chunk-sized parts), each after its
 * panel's event. A piece needs a free out chunk; a chunk is freed by writing its piece into
 * the caller's C (finish_out), which waits for the copy. block == 0: stop at the first busy
 * chunk whose copy has not completed (the host has inputs to pack first; a completed one is
 * unpacked at once unless MINIBLAS_CBLAS_EAGER_OUT=0); block: wait and unpack as needed. */
static cudaError_t queue_out(mbc_state *s, gemm_job *j, int block) {
    const mbc_gemm *g = j->g;
    size_t e = j->e;
    int64_t m = g->m, end = j->pc[j->ready];
    int64_t cap = j->direct ? m : (int64_t)(s->chunk_bytes / e);
    cudaError_t err = cudaSuccess;
    if (!j->c_back) return cudaSuccess; /* C on the device: nothing comes back */
    while (j->ocol < end) {
        while (j->pc[j->opan + 1] <= j->ocol) ++j->opan;
        int64_t p = j->opan, pend = min64(end, j->pc[p + 1]);
        int64_t nr = m <= cap ? m : min64(cap, m - j->orow);
        int64_t nc = m <= cap ? min64(cap / m, pend - j->ocol) : 1;
        char *hd = at(g->C, g->ldc, j->orow, j->ocol, e);
        const char *dd = at(j->dC, j->ldC, j->orow, j->ocol, e);
        if (j->direct) { /* pinned C, beta == 0: no chunk (a failure recomputes all of C) */
            err = cudaStreamWaitEvent(s->s_out, s->pan_ev[p % NPEV], 0);
            if (err == cudaSuccess)
                err = cudaMemcpy2DAsync(hd, (size_t)g->ldc * e, dd, (size_t)j->ldC * e,
                                        (size_t)nr * e, (size_t)nc, cudaMemcpyDeviceToHost,
                                        s->s_out);
            if (err != cudaSuccess) return err;
        } else {
            int slot = s->out_next;
            if (s->out[slot].busy) { /* unpack it first: now if it must or its copy is done */
                if (!block && !(mbc_cfg.eager_out && cudaEventQuery(s->out_ev[slot]) == cudaSuccess))
                    return cudaSuccess;
                if ((err = finish_out(s, slot)) != cudaSuccess) return err;
            }
            err = cudaStreamWaitEvent(s->s_out, s->pan_ev[p % NPEV], 0);
            if (err == cudaSuccess)
                err = cudaMemcpy2DAsync(s->out_chunk[slot], (size_t)nr * e, dd,
                                        (size_t)j->ldC * e, (size_t)nr * e, (size_t)nc,
                                        cudaMemcpyDeviceToHost, s->s_out);
            if (err == cudaSuccess) err = cudaEventRecord(s->out_ev[slot], s->s_out);
            if (err != cudaSuccess) return err;
            mbc_pending *q = &s->out[slot];
            q->busy = 1;
            q->dst = hd;
            q->ldh = g->ldc;
            q->r0 = j->orow;
            q->c0 = j->ocol;
            q->nr = nr;
            q->nc = nc;
            s->out_next = (slot + 1) % s->nout;
        }
        j->orow += nr;
        if (j->orow == m) j->orow = 0, j->ocol += nc;
    }
    return cudaSuccess;
}

/* Panel j->ready has all its gemms queued: mark it with an event, queue what copies back fit.
 * With more than NPEV panels an event is recorded again before an older panel's copy waits
 * on it; the copy then waits for a later panel (same stream): later, never too early. */
static cudaError_t panel_done(mbc_state *s, gemm_job *j) {
    cudaError_t err = cudaSuccess;
    if (j->c_back) err = cudaEventRecord(s->pan_ev[j->ready % NPEV], s->s_comp);
    ++j->ready;
    return err == cudaSuccess && j->c_back ? queue_out(s, j, 0) : err;
}

/* The rung of the whole problem's shape, for every gemm of the call (a panel's shape may make
 * `auto` pick another, slower rung), unless the user chose one (MINIBLAS_SGEMM/_DGEMM: read
 * into the handle at creation). Returns 1 when it set the handle's rung (reset afterwards). */
static int pin_rung(mbc_state *s, const mbc_gemm *g) {
    miniblas_op_t op = g->dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM;
    const char *cur = miniblas_get_rung(s->h, op);
    if (!cur || strcmp(cur, "auto") != 0) return 0;
    const char *name = miniblas_gemm_auto_rung(s->h, op, MiniblasColMajor,
                                               g->ta ? MiniblasTrans : MiniblasNoTrans,
                                               g->tb ? MiniblasTrans : MiniblasNoTrans,
                                               g->m, g->n, g->k);
    return name && miniblas_set_rung(s->h, op, name) == MINIBLAS_STATUS_SUCCESS;
}

/* The staged gemm (some operand on the host). */
static cudaError_t gemm_staged(mbc_state *s, const mbc_gemm *g, const char **what,
                               miniblas_status_t *st) {
    size_t e = s->elem;
    int64_t m = g->m, n = g->n, k = g->k;
    int touched = k > 0 && g->alpha != 0;
    gemm_job J;
    memset(&J, 0, sizeof J);
    gemm_job *j = &J;
    j->g = g;
    j->e = e;
    j->a_staged = touched && g->a_kind != MBC_DEVICE;
    j->b_staged = touched && g->b_kind != MBC_DEVICE;
    j->c_back = g->c_kind != MBC_DEVICE;
    j->c_in = j->c_back && g->beta != 0;
    j->direct = g->c_kind == MBC_PINNED && g->beta == 0;

    /* Panels: n/8 wide and at least one wave of 128x128 tiles (2M elements of C: wmin
     * columns), then the last ones halving down to wmin (MINIBLAS_CBLAS_TAPER): the tail
     * after the last gemm is its panel's copy back and unpacking, short when that panel is
     * narrow. At 8192: 7 x 1024, 512, 256, 256. Session 10 run 2 (sgemm 8192, 3 rounds, 16 MB
     * chunks): 18.4-18.7 ms; without the taper 19.1-20.4; 16 panels of 512 and 64 MB chunks
     * (before) 21.0-24.8. MINIBLAS_CBLAS_PANEL sets the width; the taper then halves down to a
     * quarter of it (multiples of 32). */
    int64_t wmin = round_up(((int64_t)1 << 21) / max64(m, 1), 128), unit = 128, nb;
    if (mbc_cfg.panel > 0)
        nb = mbc_cfg.panel, wmin = unit = max64(32, round_up(nb / 4, 32));
    else
        nb = max64(wmin, round_up((n + 7) / 8, 128));
    nb = max64(nb, (n + MAXPAN / 2 - 1) / (MAXPAN / 2)); /* room for the taper in pc[] */
    j->nb = nb = min64(nb, n);
    for (int64_t c = 0; c < n; ++j->npan) {
        int64_t r = n - c, w = nb;
        if (mbc_cfg.taper && r <= 2 * nb) w = min64(nb, max64(wmin, round_up((r + 1) / 2, unit)));
        if (j->npan == MAXPAN - 1) w = r; /* not reached: <= 30 panels of nb, then halving */
        j->pc[j->npan] = c;
        c += min64(w, r);
    }
    j->pc[j->npan] = n;
    /* Phase 1 (beta == 0 only: C is not read): MINIBLAS_CBLAS_NSLAB (4) k-slabs of k/16 over
     * the whole of C, at most half of k; only where the GPU needs longer for a slab than the
     * host to pack it: 2 m n ks flops at ~60 TFLOP/s against (m + n) ks e bytes at ~50 GB/s,
     * i.e. 2 m n / (m + n) >= ~6000 (session 5: n = 2048 and 4096 were 10-20% faster
     * without phase 1, 8192 10-15% slower). */
    if (g->beta == 0 && (j->a_staged || j->b_staged)) {
        int64_t ks = mbc_cfg.kslab;
        if (ks < 0) ks = k >= 2048 && 2 * (double)m * n >= 6144.0 * (m + n) ? k / 16 / 64 * 64 : 0;
        if (ks > 0 && ks <= k / 2) j->ks = ks, j->nslab = min64(mbc_cfg.nslab, k / (2 * ks));
    }
    /* A in MINIBLAS_CBLAS_ABLOCKS (4) row blocks, so that gemms start before all of A is
     * across; 1: one block, so each B panel gets one full-height gemm (docs/cblas.md). */
    j->nblk = 1, j->mb = m;
    if (j->a_staged && m >= 512 && mbc_cfg.ablocks > 1) {
        j->mb = round_up((m + mbc_cfg.ablocks - 1) / mbc_cfg.ablocks, 64);
        j->nblk = (m + j->mb - 1) / j->mb;
    }
    int64_t k1 = j->ks * j->nslab, kr = k - k1;
    int64_t geo[5] = {j->npan, j->nb, j->nblk, j->nslab, j->ks};
    memcpy(s->tr.geo, geo, sizeof geo);

    /* Chunk size: one piece per operand block where possible. */
    int64_t elems = 0;
    if (j->b_staged) elems = max64(max64(elems, kr * nb), j->ks * n);
    if (j->a_staged) elems = max64(max64(elems, j->mb * kr), m * j->ks);
    if (j->c_back) elems = max64(elems, m * nb);
    size_t need = (size_t)elems * e;
    if (need > mbc_cfg.chunk_max) need = mbc_cfg.chunk_max;
    if (need < (size_t)MB) need = MB;
    int any_pageable = (j->a_staged && g->a_kind == MBC_HOST) ||
                       (j->b_staged && g->b_kind == MBC_HOST) ||
                       (j->c_back && !j->direct && (g->c_kind == MBC_HOST || j->c_in));
    cudaError_t err;
    *what = "cudaHostAlloc (pinned staging)";
    if (any_pageable && (err = ensure_chunks(s, need)) != cudaSuccess) return err;

    *what = "cudaMalloc (device buffers)";
    int64_t a_rows = g->ta ? k : m, a_cols = g->ta ? m : k;
    int64_t b_rows = g->tb ? n : k, b_cols = g->tb ? k : n;
    j->dA = (char *)g->A, j->ldA = g->lda;
    j->dB = (char *)g->B, j->ldB = g->ldb;
    j->dC = g->C, j->ldC = g->ldc;
    if (j->a_staged) {
        if ((err = dbuf(s, 0, (size_t)a_rows * (size_t)a_cols * e, &j->dA)) != cudaSuccess)
            return err;
        j->ldA = a_rows;
    }
    if (j->b_staged) {
        if ((err = dbuf(s, 1, (size_t)b_rows * (size_t)b_cols * e, &j->dB)) != cudaSuccess)
            return err;
        j->ldB = b_rows;
    }
    if (j->c_back) {
        if ((err = dbuf(s, 2, (size_t)m * (size_t)n * e, &j->dC)) != cudaSuccess) return err;
        j->ldC = m;
    }
    s->out_rows = m;

    /* Phase 1: rank-ks updates of all of C, each as soon as its slabs of A and B are across. */
    for (int64_t sl = 0; sl < j->nslab; ++sl) {
        int64_t q0 = sl * j->ks;
        *what = "copy to the GPU";
        if (j->a_staged &&
            (err = stage(s, 0, j->dA, j->ldA, g->A, g->lda, g->ta, 0, m, q0, j->ks, g->a_kind)) !=
                cudaSuccess)
            return err;
        if (j->b_staged &&
            (err = stage(s, 1, j->dB, j->ldB, g->B, g->ldb, g->tb, q0, j->ks, 0, n, g->b_kind)) !=
                cudaSuccess)
            return err;
        *what = "gemm";
        err = queue_gemm(s, j, 0, m, 0, n, q0, j->ks, sl ? 1.0 : g->beta, st);
        if (err != cudaSuccess || *st != MINIBLAS_STATUS_SUCCESS) return err;
    }

    /* Phase 2, over k1..k: A row blocks and B panels (with their C panels) alternately; each
     * arrival queues one gemm for every block of C whose A and B are now both across. */
    double beta2 = k1 > 0 ? 1.0 : g->beta;
    int64_t sa = 0, sb = 0; /* row blocks / panels across */
    while (sa < j->nblk || sb < j->npan) {
        if (sa < j->nblk && (sa <= sb || sb == j->npan)) {
            int64_t r0 = sa * j->mb, nr = min64(j->mb, m - r0);
            *what = "copy to the GPU";
            if (j->a_staged &&
                (err = stage(s, 0, j->dA, j->ldA, g->A, g->lda, g->ta, r0, nr, k1, kr,
                             g->a_kind)) != cudaSuccess)
                return err;
            ++sa;
            if (sb > 0) {
                *what = "gemm";
                err = queue_gemm(s, j, r0, nr, 0, j->pc[sb], k1, kr, beta2, st);
                if (err != cudaSuccess || *st != MINIBLAS_STATUS_SUCCESS) return err;
            }
        } else {
            int64_t c0 = j->pc[sb], nc = j->pc[sb + 1] - c0;
            *what = "copy to the GPU";
            if (j->b_staged &&
                (err = stage(s, 1, j->dB, j->ldB, g->B, g->ldb, g->tb, k1, kr, c0, nc,
                             g->b_kind)) != cudaSuccess)
                return err;
            if (j->c_in && (err = stage(s, 2, j->dC, j->ldC, g->C, g->ldc, 0, 0, m, c0, nc,
                                        g->c_kind)) != cudaSuccess)
                return err;
            ++sb;
            if (sa > 0) {
                *what = "gemm";
                err = queue_gemm(s, j, 0, min64(m, sa * j->mb), c0, nc, k1, kr, beta2, st);
                if (err != cudaSuccess || *st != MINIBLAS_STATUS_SUCCESS) return err;
            }
        }
        *what = "copy from the GPU";
        while (sa == j->nblk && j->ready < sb) /* with all of A across, panels < sb are done */
            if ((err = panel_done(s, j)) != cudaSuccess) return err;
        if (mbc_cfg.eager_out && (err = queue_out(s, j, 0)) != cudaSuccess) return err;
    }
    s->tr.inputs = now_ms() - s->tr.t0;

    /* Only now unpack C: inputs first keeps the GPU fed; the copies back wait on the GPU. */
    *what = "copy from the GPU";
    if ((err = queue_out(s, j, 1)) != cudaSuccess || (err = drain_out(s)) != cudaSuccess)
        return err;
    *what = "sync";
    return sync_all(s);
}

/* One line per call with MINIBLAS_CBLAS_VERBOSE=2: where the host's time went. */
static void gemm_trace(mbc_state *s, const mbc_gemm *g, int failed) {
    const mbc_trace *t = &s->tr;
    double total = now_ms() - t->t0;
    double other = total - t->pack[0] - t->pack[1] - t->pack[2] - t->unpack - t->wait_in -
                   t->wait_out;
    const char *rung = miniblas_last_rung(s->h, g->dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM);
    mbc_notice("%cgemm trace m=%lld n=%lld k=%lld (col-major) rung %s, %lld panels of %lld, %lld "
               "A blocks, %lld k-slabs of %lld: pack A %.2f B %.2f C %.2f, unpack C %.2f, wait "
               "in %.2f out %.2f, other %.2f; first gemm at %.2f, inputs packed at %.2f, total "
               "%.2f ms%s",
               g->dbl ? 'd' : 's', (long long)g->m, (long long)g->n, (long long)g->k,
               rung && rung[0] ? rung : "-", (long long)t->geo[0], (long long)t->geo[1],
               (long long)t->geo[2], (long long)t->geo[3], (long long)t->geo[4], t->pack[0],
               t->pack[1], t->pack[2], t->unpack,
               t->wait_in, t->wait_out, other, t->first_gemm, t->inputs, total,
               failed ? " (failed)" : "");
    /* GPU side, from the call's start event: when the gemms ran, how long they took, and how
     * long the GPU waited between them (for inputs: each gemm waits for the copies before it). */
    if (failed || s->ntev < 2) return;
    double busy = 0, idle = 0, first = 0, last = 0, prev = 0, lead = 0;
    for (int i = 0; i + 1 < s->ntev; i += 2) {
        float a = 0, b = 0;
        if (cudaEventElapsedTime(&a, s->tev[NTEV], s->tev[i]) != cudaSuccess ||
            cudaEventElapsedTime(&b, s->tev[NTEV], s->tev[i + 1]) != cudaSuccess) {
            cudaGetLastError();
            return;
        }
        if (i == 0) first = a, lead = a - t->first_gemm;
        else idle += a - prev > 0 ? a - prev : 0;
        busy += b - a;
        prev = last = b;
    }
    mbc_notice("%cgemm trace GPU: %d gemms from %.2f to %.2f ms: running %.2f, idle between "
               "them %.2f (first starts %.2f ms after it was queued)",
               g->dbl ? 'd' : 's', s->ntev / 2, first, last, busy, idle, lead);
    if (mbc_cfg.verbose >= 3)
        for (int i = 0; i + 1 < s->ntev; i += 2) {
            float a = 0, b = 0;
            cudaEventElapsedTime(&a, s->tev[NTEV], s->tev[i]);
            cudaEventElapsedTime(&b, s->tev[NTEV], s->tev[i + 1]);
            mbc_notice("  gemm %d: %.3f .. %.3f ms (%.3f)", i / 2, a, b, b - a);
        }
}

/*
 * Schedule of a gemm with operands on the host (column-major, C m x n = op(A) op(B), k deep).
 * Three streams: copies in, compute, copies out. The host packs inputs into pinned chunks of at
 * most 16 MB (each DMA'd as soon as it is full, while the next is packed) and queues each gemm
 * as soon as its inputs are across:
 *
 *   phase 1 (beta == 0, k >= 2048, 2mn/(m+n) >= 6144): 4 k-slabs of depth ks = k/16: slab s of A
 *     (m x ks) and of B (ks x n), then C (+)= A_s B_s over all of C. A slab pair of
 *     (m + n) ks elements brings m n ks multiply-adds (at 8192: 1.6 ms of kernel for 0.8 ms of
 *     packing), where a row block and a panel of the same bytes bring far fewer, so the GPU
 *     is kept busy from the first slab on instead of ramping up with the 2D blocks below.
 *   phase 2, over the rest of k: A in 4 row blocks and B in column panels (n/8 wide, the
 *     last ones narrower: see gemm_staged; with C's panel when beta != 0), alternately
 *     A0 B0 A1 B1 ... then the remaining panels; each arrival queues
 *     one gemm over the blocks of C it completes (A_i x B_0..B_(j-1), or A_0..A_i x B_j).
 *     Once all of A is across, panels complete in column order; each gets an event.
 *   copies back: a completed panel's copy to the host is queued after its event, through the
 *     out chunks (3 for sgemm, 2 for dgemm). Between inputs the host unpacks only pieces whose
 *     copy has already completed (MINIBLAS_CBLAS_EAGER_OUT), the rest after every input is
 *     packed (GPU compute does not wait for unpacking: C lives in a whole device buffer), so it
 *     never waits for the GPU while it could pack. C reaches the caller's memory in column
 *     order only.
 */
int mbc_gpu_gemm(const mbc_gemm *g, mbc_progress *prog, char *msg, size_t msg_size) {
    size_t e = g->dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    prog->done_col = prog->done_row = 0;
    if (frame_enter(&f, e, msg, msg_size)) return -1;
    mbc_state *s = f.s;
    cudaError_t err = cudaSuccess;
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    const char *what = "gemm";
    int touched = g->k > 0 && g->alpha != 0;
    int a_dev = !touched || g->a_kind == MBC_DEVICE;
    int b_dev = !touched || g->b_kind == MBC_DEVICE;
    int c_dev = g->c_kind == MBC_DEVICE;
    if (g->a_kind == MBC_DEVICE || g->b_kind == MBC_DEVICE || c_dev) {
        what = "waiting for the caller's default stream";
        if ((err = comp_after_caller(s)) != cudaSuccess) return frame_leave(&f, err, st, what);
        what = "gemm";
    }
    int pinned = pin_rung(s, g);
    s->ntev = -1;
    if (mbc_cfg.verbose >= 2) trace_gpu_begin(s);
    if (a_dev && b_dev && c_dev) { /* everything in place: one call */
        gemm_job j;
        memset(&j, 0, sizeof j);
        j.g = g, j.e = e;
        j.dA = (char *)g->A, j.dB = (char *)g->B, j.dC = g->C;
        j.ldA = g->lda, j.ldB = g->ldb, j.ldC = g->ldc;
        err = queue_gemm(s, &j, 0, g->m, 0, g->n, 0, g->k, g->beta, &st);
        if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS)
            what = "sync", err = cudaStreamSynchronize(s->s_comp);
    } else {
        err = gemm_staged(s, g, &what, &st);
    }
    if (pinned) miniblas_set_rung(s->h, g->dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM, "auto");
    if (mbc_cfg.verbose >= 2) gemm_trace(s, g, err != cudaSuccess || st != MINIBLAS_STATUS_SUCCESS);
    *prog = s->prog;
    if (g->c_kind == MBC_PINNED && g->beta == 0)
        prog->done_col = prog->done_row = 0; /* unknown: recompute all (beta == 0) */
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
