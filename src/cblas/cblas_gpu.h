/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU side of libminiblas_cblas, shared by its files: the per-thread state and the call
 * frame (gpu_state.c), staging (staging.c), tracing (trace.c); used by the gemm schedule
 * (gpu_gemm.c) and the other ops (gpu_ops.c). The core only through include/miniblas.h.
 *
 * Per-thread state (created on a thread's first GPU call, no global lock around GPU work): a
 * miniblas handle, three streams (copies in, compute, copies out), pinned staging chunks
 * (NIN for copies in, NOUT for copies out) and device buffers kept between calls. A thread
 * that exits gives its state back to a small pool for the next new thread; the driver frees
 * everything at process exit.
 */
#ifndef MINIBLAS_CBLAS_GPU_H
#define MINIBLAS_CBLAS_GPU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "miniblas.h"
#include "cblas_internal.h"

#define NIN 3 /* in chunks */
/* Out chunks: 3 allocated; sgemm uses 3, dgemm 2 (measured: sgemm 4096 4.0 ms with 3 against
 * 4.7-4.9 with 2; dgemm 8192 35.0-35.6 ms with 2 against 38.0-40.5 with 3: there the host, not
 * the copy back, is the limit, and a third chunk lets it unpack early at the expense of
 * packing). */
#define NOUT 3
#define NPEV 32 /* events marking gemm panels complete (a ring; see panel_done) */
#define NTEV 512 /* MINIBLAS_CBLAS_VERBOSE=2: timing events, one before and one after each gemm */
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
    int64_t peer;                  /* pieces of A copied from another device (mbc_feed) */
} mbc_trace;

typedef struct mbc_state {
    struct mbc_state *next; /* free list */
    int device;
    miniblas_handle_t h;
    cudaStream_t s_in, s_comp, s_out;
    cudaStream_t s_peer; /* copies of A's pieces from other devices (mbc_feed_copy) */
    cudaEvent_t ev_in, ev_comp, ev_peer;
    cudaEvent_t ev_caller; /* the caller's default-stream work, waited for by s_comp */
    size_t chunk_bytes;
    int split; /* the call in flight is a share of a gemm split over GPUs (mbc_pin_pack) */
    void *in_chunk[NIN];
    cudaEvent_t in_ev[NIN];
    int in_next;
    void *out_chunk[NOUT];
    cudaEvent_t out_ev[NOUT];
    mbc_pending out[NOUT];
    int out_next, nout; /* nout: chunks in use this call (2 or NOUT) */
    cudaEvent_t pan_ev[NPEV];
    cudaEvent_t blk_ev; /* a row block of C computed (row_out: its copy waits, at once) */
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
    int64_t ngemm;             /* gemms queued in this call (MINIBLAS_CBLAS_TEST_FAIL_GEMM) */
    int64_t fail_gemm;         /* this call fails at that gemm on this device; -1: never */
    int64_t npiece;            /* reduction pieces queued in this call (..._TEST_FAIL_REDUCE) */
    int64_t fail_reduce;       /* this call fails at that piece on this device; -1: never */
} mbc_state;

/* ------------------------------------------------------------------ state, frame (gpu_state.c) */

/* One GPU call: the calling thread's state on the layer's device (or, for a share of a
 * multi-device gemm or reduction, on the share's device), the caller's device restored at the
 * end. */
typedef struct mbc_frame {
    mbc_state *s;
    int device;
    int prev_device;
    char *msg;
    size_t msg_size;
} mbc_frame;

/* Enter: set the device, get the thread's state, reset the per-call fields (elem: element
 * size). 0, or -1 with msg written. */
int mbc_frame_enter(mbc_frame *f, size_t elem, char *msg, size_t msg_size);
int mbc_frame_enter_dev(mbc_frame *f, int device, size_t elem, char *msg, size_t msg_size);
/* Leave: on failure (err or st), wait for whatever is queued (ignoring errors), decide whether
 * the error is sticky (then the GPU is off for the rest of the process), and describe it in
 * the frame's msg ("what: cause", detail: the handle's error text if not NULL). 0 or -1. */
int mbc_frame_leave_detail(mbc_frame *f, cudaError_t err, miniblas_status_t st,
                           const char *what, const char *detail);
int mbc_frame_leave(mbc_frame *f, cudaError_t err, miniblas_status_t st, const char *what);
cudaError_t mbc_sync_all(mbc_state *s);           /* the three streams */
cudaError_t mbc_comp_after_caller(mbc_state *s);  /* s_comp after the caller's default stream */
cudaError_t mbc_comp_after_in(mbc_state *s);      /* s_comp after what s_in (and s_peer) queued */
cudaError_t mbc_out_after_comp(mbc_state *s);     /* s_out after what s_comp has queued */

/* ------------------------------------------------------------------ staging (staging.c) */

/* Set by the threads of a split gemm for the call: its devices, which size the default number
 * of copy threads (0 or 1: one GPU). */
extern _Thread_local int mbc_call_devices;

/* Pinned chunks of at least `bytes` each (grow-only), NIN in and NOUT out. */
cudaError_t mbc_ensure_chunks(mbc_state *s, size_t bytes);
/* The chunk size for a call staging `bytes` at most: clamped to [1 MB, chunk_mb]. */
size_t mbc_chunk_size(size_t bytes);
/* Device buffer slot i (0..2) of at least `bytes` (grow-only; one retry after freeing the
 * cache). A slot is handed out at most once per call. */
cudaError_t mbc_dbuf(mbc_state *s, int i, size_t bytes, char **p);
/* Host rows x cols (ld lds) -> device (ld ldd), queued on s_in; pageable sources, and pinned
 * ones that mbc_pin_pack picks where the in chunks exist, packed into the in chunks by the host
 * first (kind: MBC_HOST or MBC_PINNED). */
cudaError_t mbc_h2d_2d(mbc_state *s, char *dd, int64_t ldd, const char *hs, int64_t lds,
                       int64_t rows, int64_t cols, int kind);
/* Host vector, logical element i at x0[i * inc] -> contiguous device vector, on s_in. */
cudaError_t mbc_h2d_vec(mbc_state *s, char *dd, const char *x0, int64_t inc, int64_t n, int kind);
/* Device rows x cols -> host, on s_out through the out chunks (direct: pinned host memory,
 * written by DMA); col_base: the place of column 0 in the whole output (progress). */
cudaError_t mbc_d2h_2d(mbc_state *s, char *hd, int64_t ldh, const char *ds, int64_t ldd,
                       int64_t rows, int64_t cols, int direct, int64_t col_base);
/* Write out chunk `slot`'s piece into the caller's memory once its copy completed; advance
 * the progress. mbc_drain_out: every pending one, oldest first. */
cudaError_t mbc_finish_out(mbc_state *s, int slot);
cudaError_t mbc_drain_out(mbc_state *s);

/* ------------------------------------------------------------------ device workers (mgpu.c) */

/* Run fn(ctx, i) for i in [0, n): i = 0 on the calling thread, i >= 1 on worker thread i (one
 * persistent thread per extra device of the list, started on first use), and return when all
 * are done. One such call at a time in the process: -1 (nothing run) when another thread's is
 * under way or a worker cannot be started; the caller then runs the call on one device. */
int mbc_mgpu_run(int n, void (*fn)(void *ctx, int i), void *ctx);

/* Pieces of one device's buffer handed to the other devices of a multi-device call: the
 * producer (the first device) stages each piece from the host and publishes it with an event
 * after its copy; a consumer waits for the piece and copies it device to device, instead of
 * packing it from the host once more. Pieces are numbered 0 .. MBC_FEED_MAX - 1. */
#define MBC_FEED_MAX 72
typedef struct mbc_feed {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    int dev;                  /* the producer's device */
    int closed;               /* the producer is done: nothing more will be published */
    const char *base;         /* the producer's buffer */
    unsigned char pub[MBC_FEED_MAX];
    cudaEvent_t ev[MBC_FEED_MAX];
} mbc_feed;
void mbc_feed_init(mbc_feed *f, int dev);
void mbc_feed_destroy(mbc_feed *f);
/* On the producer's thread: piece `piece` of `base` is queued on stream st. */
cudaError_t mbc_feed_publish(mbc_feed *f, int piece, const char *base, cudaStream_t st);
void mbc_feed_close(mbc_feed *f);
/* 1 once the piece is published; 0 if it never will be (the producer closed the feed first,
 * or the piece number is out of range): the consumer then stages it itself. */
int mbc_feed_wait(mbc_feed *f, int piece);
/* A published piece, rows [i0, i0+ni) x columns [j0, j0+nj) of a column-major buffer with
 * leading dimension ld (the same in both buffers), into dst on device dev, on stream st. */
cudaError_t mbc_feed_copy(mbc_feed *f, int piece, cudaStream_t st, int dev, char *dst,
                          int64_t ld, int64_t i0, int64_t ni, int64_t j0, int64_t nj,
                          size_t elem);
/* Whether device `to` (the current device) reads device `from`'s memory directly (peer access
 * enabled on first use); 0 where it cannot. */
int mbc_peer_ready(int from, int to);

/* ------------------------------------------------------------------ tracing (trace.c) */

double mbc_now_ms(void);
void mbc_trace_begin(mbc_state *s);  /* verbose 2: the call's start event on s_comp */
void mbc_trace_mark(mbc_state *s);   /* an event before / after each gemm */
void mbc_trace_gemm(mbc_state *s, const mbc_gemm *g, int failed); /* the call's lines */

#endif
