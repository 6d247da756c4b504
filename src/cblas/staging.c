/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Staging: host operands reach the GPU through pinned chunks. Host pointers are pageable in
 * general, and pageable cudaMemcpy runs at ~7 GB/s against 55 GB/s pinned, so operands are
 * packed by host threads (the copy pool, copypool.c) into pinned chunks and DMA'd from there;
 * a chunk is reused once the event recorded after its copy has completed. Operands already in
 * pinned memory (cudaMallocHost/cudaHostRegister) are DMA'd directly. Outputs come back the
 * same way: out chunks, then the host writes a piece into the caller's memory only after its
 * copy completed, so after a failure the caller's output is final up to a known point
 * (mbc_progress) and untouched beyond it. Device buffers are grow-only and kept between calls.
 */
#include <stdio.h>
#include <string.h>
#include "cblas_gpu.h"
#include "copypool.h"
#include "mgpu_plan.h"

/* ------------------------------------------------------------------ host copies */

_Thread_local int mbc_call_devices;

/* Threads for one host copy: one under 1 MB, else all of them (the staging rate needs 8-16
 * threads; the items are 256 KB, so the threads of a small copy that find none left go back
 * to wait). All of them: the copy_threads setting, else its default for the GPUs of this call
 * (a split gemm's devices, mbc_call_devices; otherwise one). */
static int copy_threads(size_t bytes) {
    int most = mbc_cfg.copy_threads_auto ? mbc_copy_threads_auto(mbc_cfg.ncpu, mbc_call_devices)
                                         : mbc_cfg.copy_threads;
    return bytes < (size_t)MB ? 1 : most;
}

/* Staging copies, on the copy pool (copypool.c: no barrier waiting for a descheduled thread),
 * with memcpy (streaming stores were measured: no reliable gain). Items are ~PIECE bytes:
 * parts of a column taller than that, else whole columns. */
#define PIECE ((size_t)256 * 1024)

typedef struct copy_job {
    char *dst;
    const char *src;
    size_t ldd_b, lds_b; /* bytes from one column to the next */
    size_t rb;           /* bytes per column */
    int64_t cols;
    int64_t per;         /* split: items per column; else columns per item */
    int split;
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
        memcpy(d, s, len);
    }
}

/* rows x cols block, leading dimensions in elements. */
static void copy2d(char *dst, int64_t ldd, const char *src, int64_t lds, int64_t rows,
                   int64_t cols, size_t e) {
    copy_job j = {dst, src, (size_t)ldd * e, (size_t)lds * e, (size_t)rows * e, cols, 1, 0};
    if (j.rb == 0 || cols <= 0) return;
    if (cols == 1 || (ldd == rows && lds == rows)) j.rb *= (size_t)cols, j.cols = 1;
    j.split = j.rb >= PIECE;
    j.per = j.split ? (int64_t)((j.rb + PIECE - 1) / PIECE) : (int64_t)(PIECE / j.rb);
    int64_t n = j.split ? j.cols * j.per : (j.cols + j.per - 1) / j.per;
    mbc_pool_run(n, copy_item, &j, copy_threads(j.rb * (size_t)j.cols));
}

/* dst[i] = x0[i * inc] for i < n (inc any sign, or 0): items of GATHER elements. */
#define GATHER ((int64_t)64 * 1024)

typedef struct gather_job {
    char *dst;
    const char *x0;
    int64_t inc, n;
    size_t e;
} gather_job;

static void gather_item(void *ctx, int64_t it) {
    const gather_job *j = (const gather_job *)ctx;
    int64_t i0 = it * GATHER, i1 = i0 + GATHER < j->n ? i0 + GATHER : j->n, inc = j->inc;
    if (j->e == sizeof(float)) {
        float *d = (float *)j->dst;
        const float *x = (const float *)j->x0;
        for (int64_t i = i0; i < i1; ++i) d[i] = x[i * inc];
    } else {
        double *d = (double *)j->dst;
        const double *x = (const double *)j->x0;
        for (int64_t i = i0; i < i1; ++i) d[i] = x[i * inc];
    }
}

static void gather(char *dst, const char *x0, int64_t inc, int64_t n, size_t e) {
    if (inc == 1) { /* one contiguous range */
        copy2d(dst, n, x0, n, n, 1, e);
        return;
    }
    gather_job j = {dst, x0, inc, n, e};
    mbc_pool_run((n + GATHER - 1) / GATHER, gather_item, &j,
                 copy_threads((size_t)n * e * 4)); /* strided reads cost more */
}

/* ------------------------------------------------------------------ pinned chunks, device buffers */

size_t mbc_chunk_size(size_t bytes) {
    if (bytes > mbc_cfg.chunk_max) bytes = mbc_cfg.chunk_max;
    return bytes < (size_t)MB ? (size_t)MB : bytes;
}

cudaError_t mbc_ensure_chunks(mbc_state *s, size_t bytes) {
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

cudaError_t mbc_dbuf(mbc_state *s, int i, size_t bytes, char **p) {
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

/* Pageable sources, and pinned ones with short columns (mbc_pin_pack) where the in chunks
 * exist, are packed into the in chunks by the host first; this returns when the last piece is
 * queued. Other pinned sources are DMA'd from where they are. */
cudaError_t mbc_h2d_2d(mbc_state *s, char *dd, int64_t ldd, const char *hs, int64_t lds,
                          int64_t rows, int64_t cols, int kind) {
    size_t e = s->elem;
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    if (kind == MBC_PINNED &&
        (s->chunk_bytes == 0 || !mbc_pin_pack(rows, cols, lds, e, mbc_cfg.pin_row_kb, s->split)))
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
            double t = mbc_now_ms();
            cudaError_t err = cudaEventSynchronize(s->in_ev[slot]);
            if (err != cudaSuccess) return err;
            double t2 = mbc_now_ms();
            char *chunk = s->in_chunk[slot];
            copy2d(chunk, nr, hs + ((size_t)r0 + (size_t)c0 * (size_t)lds) * e, lds, nr, nc, e);
            s->tr.wait_in += t2 - t;
            s->tr.pack[s->tr_which] += mbc_now_ms() - t2;
            err = cudaMemcpy2DAsync(dd + ((size_t)r0 + (size_t)c0 * (size_t)ldd) * e,
                                    (size_t)ldd * e, chunk, (size_t)nr * e, (size_t)nr * e,
                                    (size_t)nc, cudaMemcpyHostToDevice, s->s_in);
            if (err == cudaSuccess) err = cudaEventRecord(s->in_ev[slot], s->s_in);
            if (err != cudaSuccess) return err;
        }
    }
    return cudaSuccess;
}

cudaError_t mbc_h2d_vec(mbc_state *s, char *dd, const char *x0, int64_t inc, int64_t n,
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

cudaError_t mbc_finish_out(mbc_state *s, int slot) {
    mbc_pending *p = &s->out[slot];
    if (!p->busy) return cudaSuccess;
    p->busy = 0;
    double t = mbc_now_ms();
    cudaError_t err = cudaEventSynchronize(s->out_ev[slot]);
    if (err != cudaSuccess) return err;
    double t2 = mbc_now_ms();
    copy2d(p->dst, p->ldh, s->out_chunk[slot], p->nr, p->nr, p->nc, s->elem);
    s->tr.wait_out += t2 - t;
    s->tr.unpack += mbc_now_ms() - t2;
    if (p->r0 + p->nr == s->out_rows) { /* whole columns are done */
        s->prog.done_col = p->c0 + p->nc;
        s->prog.done_row = 0;
    } else { /* a part of one column */
        s->prog.done_col = p->c0;
        s->prog.done_row = p->r0 + p->nr;
    }
    return cudaSuccess;
}

cudaError_t mbc_drain_out(mbc_state *s) {
    for (int i = 0; i < s->nout; ++i) {
        cudaError_t err = mbc_finish_out(s, (s->out_next + i) % s->nout);
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

/* Device rows x cols (ld ldd) -> host (ld ldh), queued on s_out after what s_out waits for.
 * Pieces go in column-major order; col_base is the place of column 0 in the whole output.
 * direct: the host memory is pinned and may be written by DMA as it arrives. */
cudaError_t mbc_d2h_2d(mbc_state *s, char *hd, int64_t ldh, const char *ds, int64_t ldd,
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
            cudaError_t err = mbc_finish_out(s, slot);
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
