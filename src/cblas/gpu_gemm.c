/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU gemm of the cblas layer: one call on device operands in place, or the pipelined
 * schedule of a gemm with operands on the host (described at mbc_gpu_gemm). The rung of the
 * whole problem is pinned for every gemm of the call (pin_rung).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cblas_gpu.h"
#include "mgpu_plan.h"
#include "copypool.h"

#define MAXPAN MBC_MAXPAN /* gemm panels of one call (the width grows to stay below) */

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
    mbc_gemm d; /* the same problem on the device: operands staged (leading dimension = rows)
                   or in place */
    int a_staged, b_staged, c_in, c_back; /* copied in: A, B, C (beta != 0); C copied back */
    int direct;                           /* C pinned and beta == 0: DMA'd straight into it */
    int64_t nb, npan;                     /* panels of C: widest, count */
    int64_t pc[MAXPAN + 1];               /* panel p: columns [pc[p], pc[p + 1]) */
    int64_t opan;                         /* the panel of column ocol */
    int64_t mb, nblk;                     /* row blocks of A (phase 2): height, count */
    int64_t head;                         /* panels a split keeps on its first device */
    int head_rows;                        /* the head panels by (row block x panel) gemms */
    int64_t ks, nslab;                    /* k-slabs of phase 1: depth, count (0: no phase 1) */
    int64_t ready;                        /* panels whose gemms are all queued */
    int64_t ocol, orow;                   /* the next piece of C to queue for the copy back */
} gemm_job;

/* op(A)[r, q] and op(B)[q, c] on the device. */
static char *devA(const gemm_job *j, int64_t r, int64_t q) {
    return j->g->ta ? at(j->d.A, j->d.lda, q, r, j->e) : at(j->d.A, j->d.lda, r, q, j->e);
}
static char *devB(const gemm_job *j, int64_t q, int64_t c) {
    return j->g->tb ? at(j->d.B, j->d.ldb, c, q, j->e) : at(j->d.B, j->d.ldb, q, c, j->e);
}

/* Rows [i0, i0+ni) x columns [j0, j0+nj) of op(X) to the same place in X's device copy
 * (trans: X is stored transposed). which: the trace's operand (0 A, 1 B, 2 C). */
static cudaError_t stage(mbc_state *s, int which, const void *d, int64_t ldd, const void *h,
                         int64_t ldh, int trans, int64_t i0, int64_t ni, int64_t j0, int64_t nj,
                         int kind) {
    size_t e = s->elem;
    s->tr_which = which;
    if (trans)
        return mbc_h2d_2d(s, at(d, ldd, j0, i0, e), ldd, at(h, ldh, j0, i0, e), ldh, nj, ni, kind);
    return mbc_h2d_2d(s, at(d, ldd, i0, j0, e), ldd, at(h, ldh, i0, j0, e), ldh, ni, nj, kind);
}

/* Where a share of a split gemm gets A's pieces (NULL: from the host, as on one GPU):
 * nfeed 1 (pageable A): the first device packs and stages each piece and publishes it in
 * feeds[0]; the others copy it from there. nfeed = the devices (pinned A, tuning key
 * a_parts): each piece is cut into nfeed parts along A's columns as stored; device i DMAs part
 * i from the host and publishes it in feeds[i], and copies the other parts from the devices
 * that staged them. *Why:* with pinned operands each device would otherwise DMA all of A over
 * its own link, m k elements for its m w k multiply-adds; in parts it DMAs m k / nfeed, the
 * rest comes over the links between the GPUs. */
typedef struct a_src {
    mbc_feed *feeds;
    int nfeed, me;
} a_src;

/* Part i of src->nfeed of the piece rows [r0, r0+nr) x k-range [q0, q0+nk) of op(A) (a slice
 * of the stored columns: the k range, or op(A)'s rows where A is stored transposed): from the
 * host (this device's part, published; or a part whose device never publishes it or whose
 * memory this device cannot read), else from the device that staged it. */
static cudaError_t stage_a_part(mbc_state *s, const gemm_job *j, const a_src *src, int i,
                                int piece, int64_t r0, int64_t nr, int64_t q0, int64_t nk) {
    const mbc_gemm *g = j->g;
    int64_t c0 = g->ta ? r0 : q0, nc = g->ta ? nr : nk, n = src->nfeed;
    int64_t lo = c0 + nc * i / n, hi = c0 + nc * (i + 1) / n;
    if (lo >= hi) return cudaSuccess; /* an empty part: nobody publishes or waits for it */
    if (g->ta)
        r0 = lo, nr = hi - lo;
    else
        q0 = lo, nk = hi - lo;
    mbc_feed *f = &src->feeds[i];
    if (i != src->me && mbc_peer_ready(f->dev, s->device) && mbc_feed_wait(f, piece) &&
        ++s->tr.peer) /* A stored transposed: (q, r) */
        return mbc_feed_copy(f, piece, s->s_peer, s->device, (char *)j->d.A, j->d.lda,
                             g->ta ? q0 : r0, g->ta ? nk : nr, g->ta ? r0 : q0, g->ta ? nr : nk,
                             j->e);
    cudaError_t err = stage(s, 0, j->d.A, j->d.lda, g->A, g->lda, g->ta, r0, nr, q0, nk, g->a_kind);
    if (err == cudaSuccess && i == src->me) err = mbc_feed_publish(f, piece, j->d.A, s->s_in);
    return err;
}

/* Rows [r0, r0+nr) x k-range [q0, q0+nk) of op(A) to the same place in A's device copy: piece
 * `piece` of the call. With one feed, give: this device stages it from the host and publishes
 * it to the others; take: this device copies it from the first device's copy once that has
 * published it, and stages it from the host only where it never will be. In parts: this
 * device's part first, then the others' (every device goes through the pieces in the same
 * order and publishes its part of a piece before it waits for the others' parts of it: no
 * device waits for one that waits for it). */
static cudaError_t stage_a(mbc_state *s, const gemm_job *j, const a_src *src, int give, int take,
                           int piece, int64_t r0, int64_t nr, int64_t q0, int64_t nk) {
    if (!j->a_staged) return cudaSuccess;
    if (!src || (src->nfeed == 1 && !give && !take))
        return stage(s, 0, j->d.A, j->d.lda, j->g->A, j->g->lda, j->g->ta, r0, nr, q0, nk,
                     j->g->a_kind);
    cudaError_t err = cudaSuccess;
    for (int t = 0; t < src->nfeed && err == cudaSuccess; ++t)
        err = stage_a_part(s, j, src, (src->me + t) % src->nfeed, piece, r0, nr, q0, nk);
    return err;
}

/* C[r0 : r0+m, c0 : c0+n] = alpha op(A)[r0.., q0 : q0+k] op(B)[q0 : q0+k, c0..] + beta C on
 * s_comp, after everything queued so far on s_in. */
static cudaError_t queue_gemm(mbc_state *s, const gemm_job *j, int64_t r0, int64_t m, int64_t c0,
                              int64_t n, int64_t q0, int64_t k, double beta,
                              miniblas_status_t *st) {
    const mbc_gemm *g = j->g;
    cudaError_t err = mbc_comp_after_in(s);
    if (err != cudaSuccess) return err;
    if (s->tr.first_gemm == 0) s->tr.first_gemm = mbc_now_ms() - s->tr.t0;
    miniblas_transpose_t ta = g->ta ? MiniblasTrans : MiniblasNoTrans;
    miniblas_transpose_t tb = g->tb ? MiniblasTrans : MiniblasNoTrans;
    const char *A = devA(j, r0, q0), *B = devB(j, q0, c0);
    char *C = at(j->d.C, j->d.ldc, r0, c0, j->e);
    if (s->fail_gemm >= 0 && s->ngemm++ >= s->fail_gemm) {
        /* MINIBLAS_CBLAS_TEST_FAIL_GEMM (tests): a real failure of the handle, its cause in
         * miniblas_last_error, after the gemms queued so far (which run and may write C) */
        *st = miniblas_set_rung(s->h, g->dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM,
                                "(MINIBLAS_CBLAS_TEST_FAIL_GEMM)");
        return cudaSuccess;
    }
    mbc_trace_mark(s);
    if (g->dbl)
        *st = miniblas_dgemm(s->h, MiniblasColMajor, ta, tb, m, n, k, g->alpha,
                             (const double *)A, j->d.lda, (const double *)B, j->d.ldb, beta,
                             (double *)C, j->d.ldc);
    else
        *st = miniblas_sgemm(s->h, MiniblasColMajor, ta, tb, m, n, k, (float)g->alpha,
                             (const float *)A, j->d.lda, (const float *)B, j->d.ldb, (float)beta,
                             (float *)C, j->d.ldc);
    mbc_trace_mark(s);
    return cudaSuccess;
}

static int row_out(const gemm_job *j, int64_t p);

/* Queue the copy back of C for the panels whose gemms are all queued, in column-major pieces
 * (whole columns of at most a chunk, or one column in chunk-sized parts), each after its
 * panel's event. A piece needs a free out chunk; a chunk is freed by writing its piece into
 * the caller's C (mbc_finish_out), which waits for the copy. block == 0: stop at the first busy
 * chunk whose copy has not completed (the host has inputs to pack first; a completed one is
 * unpacked at once); block: wait and unpack as needed. Panels that row_out sends back block by
 * block are skipped. */
static cudaError_t queue_out(mbc_state *s, gemm_job *j, int block) {
    const mbc_gemm *g = j->g;
    size_t e = j->e;
    int64_t m = g->m, end = j->pc[j->ready];
    cudaError_t err = cudaSuccess;
    if (!j->c_back) return cudaSuccess; /* C on the device: nothing comes back */
    while (j->ocol < end) {
        while (j->pc[j->opan + 1] <= j->ocol) ++j->opan;
        int64_t p = j->opan, pend = min64(end, j->pc[p + 1]);
        if (row_out(j, p)) { /* gone back block by block (rows_gemm) */
            j->ocol = j->pc[p + 1], j->orow = 0;
            continue;
        }
        /* direct: the rest of the panel in one copy (a copy per column costs microseconds of
         * the copy engine each, and the host blocks once the queue is full) */
        int64_t cap = j->direct ? m * (pend - j->ocol) : (int64_t)(s->chunk_bytes / e);
        int64_t nr = m <= cap ? m : min64(cap, m - j->orow);
        int64_t nc = m <= cap ? min64(cap / m, pend - j->ocol) : 1;
        char *hd = at(g->C, g->ldc, j->orow, j->ocol, e);
        const char *dd = at(j->d.C, j->d.ldc, j->orow, j->ocol, e);
        if (j->direct) { /* pinned C, beta == 0: no chunk (a failure recomputes all of C) */
            err = cudaStreamWaitEvent(s->s_out, s->pan_ev[p % NPEV], 0);
            if (err == cudaSuccess)
                err = cudaMemcpy2DAsync(hd, (size_t)g->ldc * e, dd, (size_t)j->d.ldc * e,
                                        (size_t)nr * e, (size_t)nc, cudaMemcpyDeviceToHost,
                                        s->s_out);
            if (err != cudaSuccess) return err;
        } else {
            int slot = s->out_next;
            if (s->out[slot].busy) { /* unpack it first: now if it must or its copy is done */
                if (!block && cudaEventQuery(s->out_ev[slot]) != cudaSuccess)
                    return cudaSuccess;
                if ((err = mbc_finish_out(s, slot)) != cudaSuccess) return err;
            }
            err = cudaStreamWaitEvent(s->s_out, s->pan_ev[p % NPEV], 0);
            if (err == cudaSuccess)
                err = cudaMemcpy2DAsync(s->out_chunk[slot], (size_t)nr * e, dd,
                                        (size_t)j->d.ldc * e, (size_t)nr * e, (size_t)nc,
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
                                               g->tb ? MiniblasTrans : MiniblasNoTrans, g->m,
                                               g->n, g->k);
    return name && miniblas_set_rung(s->h, op, name) == MINIBLAS_STATUS_SUCCESS;
}

/* After the gemms of a call on state s (pinned: pin_rung set the rung): the cause of a failed
 * gemm into detail, read before the rung is reset (a successful call clears the handle's
 * error); the progress into prog, where C from column col0 on is unknown when C is pinned and
 * beta == 0 (DMA'd straight into it: all of it is recomputed then). */
static void gemm_done(mbc_state *s, const mbc_gemm *g, int pinned, cudaError_t err,
                      miniblas_status_t st, char *detail, size_t detail_size, int64_t col0,
                      mbc_progress *prog) {
    detail[0] = '\0';
    if (err == cudaSuccess && st != MINIBLAS_STATUS_SUCCESS)
        snprintf(detail, detail_size, "%s", miniblas_last_error(s->h));
    if (pinned) miniblas_set_rung(s->h, g->dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM, "auto");
    *prog = s->prog;
    if (g->c_kind == MBC_PINNED && g->beta == 0) prog->done_col = col0, prog->done_row = 0;
}

#define MBC_ROW_GEMM_K 4096 /* 4M elements: about two waves of 128x128 tiles on an H100 */
static int64_t row_k(void) { return mbc_cfg.row_gemm_k < 0 ? MBC_ROW_GEMM_K : mbc_cfg.row_gemm_k; }

/* The geometry of a staged gemm (some operand on the host): its panels, k-slabs and row
 * blocks, a function of the problem and the settings only (not of the device or the state). */
static void plan_geometry(const mbc_gemm *g, size_t e, gemm_job *j) {
    int64_t m = g->m, n = g->n, k = g->k;
    int touched = k > 0 && g->alpha != 0;
    memset(j, 0, sizeof *j);
    j->g = g;
    j->e = e;
    j->a_staged = touched && g->a_kind != MBC_DEVICE;
    j->b_staged = touched && g->b_kind != MBC_DEVICE;
    j->c_back = g->c_kind != MBC_DEVICE;
    j->c_in = j->c_back && g->beta != 0;
    j->direct = g->c_kind == MBC_PINNED && g->beta == 0;

    j->npan = mbc_gemm_panels(m, n, mbc_cfg.panel, j->pc, &j->nb); /* mgpu_plan.h */
    /* Phase 1 (beta == 0 only: C is not read): nslab (4) k-slabs of k/16 over the whole of
     * C, at most half of k; only where the GPU needs longer for a slab than the host to pack
     * it: 2 m n ks flops at ~60 TFLOP/s against (m + n) ks e bytes at ~50 GB/s, i.e.
     * 2 m n / (m + n) >= ~6000 (measured: n = 2048 and 4096 were 10-20% faster without
     * phase 1, 8192 10-15% slower). */
    if (g->beta == 0 && (j->a_staged || j->b_staged)) {
        int64_t ks = mbc_cfg.kslab;
        if (ks < 0) ks = k >= 2048 && 2 * (double)m * n >= 6144.0 * (m + n) ? k / 16 / 64 * 64 : 0;
        if (ks > 0 && ks <= k / 2) j->ks = ks, j->nslab = min64(mbc_cfg.nslab, k / (2 * ks));
    }
    /* A in row blocks, so that gemms start before all of A is across. */
    j->nblk = mbc_row_blocks(m, j->a_staged, &j->mb);
    j->head = mbc_split_head(j->npan, j->pc, j->nblk, j->mb, row_k(), mbc_cfg.head_rows != 0);
    j->head_rows = j->head == 0 && j->nblk > 1;
}

/* Panel p of B over k1..k, and of C when beta != 0 (C is read then), to the device. */
static cudaError_t stage_panel(mbc_state *s, const gemm_job *j, int64_t p, int64_t k1) {
    const mbc_gemm *g = j->g;
    int64_t c0 = j->pc[p], nc = j->pc[p + 1] - c0;
    cudaError_t err = cudaSuccess;
    if (j->b_staged)
        err = stage(s, 1, j->d.B, j->d.ldb, g->B, g->ldb, g->tb, k1, g->k - k1, c0, nc, g->b_kind);
    if (err == cudaSuccess && j->c_in)
        err = stage(s, 2, j->d.C, j->d.ldc, g->C, g->ldc, 0, 0, g->m, c0, nc, g->c_kind);
    return err;
}

/* Phase 2 of a panel after the first ones (in the one-GPU schedule: staged once all of A is
 * across): one gemm over all rows, or one per row block of A where a block's product has at
 * least MBC_ROW_GEMM_K K elements of C (tuning key row_gemm_k). *Why:* a later device of a
 * split gemm, whose panels all come after the first ones, can then start its products over
 * the rest of k once A's first row block is across instead of all of A; one GPU runs the
 * same gemms (the geometry does not depend on the number of devices). */
static int by_rows(const gemm_job *j, int64_t p) {
    return mbc_by_rows(j->nblk, j->mb, j->pc[p + 1] - j->pc[p], row_k());
}

/* Whether panel p's C goes back block by block (tuning key row_out; pinned C, beta == 0):
 * each of its phase-2 gemms (one per row block, after the head: rows_gemm) computes its
 * rows of the panel completely, so their copy to the caller's C can follow each gemm
 * instead of the panel's last. */
static int row_out(const gemm_job *j, int64_t p) {
    return j->direct && mbc_cfg.row_out != 0 && p >= j->head && by_rows(j, p);
}

/* Rows [r0, r0+nr) x columns [c0, c0+nc) of C, just queued on s_comp: to the caller's C. */
static cudaError_t block_out(mbc_state *s, const gemm_job *j, int64_t r0, int64_t nr, int64_t c0,
                             int64_t nc) {
    const mbc_gemm *g = j->g;
    cudaError_t err = cudaEventRecord(s->blk_ev, s->s_comp);
    if (err == cudaSuccess) err = cudaStreamWaitEvent(s->s_out, s->blk_ev, 0);
    if (err == cudaSuccess)
        err = cudaMemcpy2DAsync(at(g->C, g->ldc, r0, c0, j->e), (size_t)g->ldc * j->e,
                                at(j->d.C, j->d.ldc, r0, c0, j->e), (size_t)j->d.ldc * j->e,
                                (size_t)nr * j->e, (size_t)nc, cudaMemcpyDeviceToHost, s->s_out);
    return err;
}

/* Phase 2 of panel p over k1..k: by rows, the gemms of A's row blocks [b0, b1); else the one
 * gemm over all rows. */
static cudaError_t rows_gemm(mbc_state *s, gemm_job *j, int64_t p, int64_t b0, int64_t b1,
                             int64_t k1, double beta, miniblas_status_t *st) {
    const int64_t m = j->g->m, c0 = j->pc[p], nc = j->pc[p + 1] - c0, kr = j->g->k - k1;
    if (!by_rows(j, p)) return queue_gemm(s, j, 0, m, c0, nc, k1, kr, beta, st);
    cudaError_t err = cudaSuccess;
    for (int64_t b = b0; b < b1 && err == cudaSuccess && *st == MINIBLAS_STATUS_SUCCESS; ++b) {
        int64_t r0 = b * j->mb, nr = min64(j->mb, m - r0);
        err = queue_gemm(s, j, r0, nr, c0, nc, k1, kr, beta, st);
        if (err == cudaSuccess && *st == MINIBLAS_STATUS_SUCCESS && row_out(j, p))
            err = block_out(s, j, r0, nr, c0, nc);
    }
    return err;
}

/* The staged gemm of panels [plo, phi) of C (all of them: the one-GPU schedule; a share of a
 * multi-device gemm otherwise, see gemm_split), with the geometry `geo` (plan_geometry).
 * src: where a share of a split gets A's pieces (a_src); NULL: from the host. */
static cudaError_t gemm_staged(mbc_state *s, const mbc_gemm *g, const gemm_job *geo,
                               int64_t plo, int64_t phi, const a_src *src, const char **what,
                               miniblas_status_t *st) {
    size_t e = s->elem;
    int64_t m = g->m, n = g->n, k = g->k;
    gemm_job J = *geo;
    gemm_job *j = &J;
    int64_t nb = j->nb;
    j->ready = plo, j->opan = plo, j->ocol = j->pc[plo];
    int64_t k1 = j->ks * j->nslab, kr = k - k1;
    s->split = plo > 0 || phi < j->npan;
    int64_t tg[5] = {j->npan, j->nb, j->nblk, j->nslab, j->ks};
    memcpy(s->tr.geo, tg, sizeof tg);

    /* Chunk size: one piece per operand block where possible. */
    int64_t elems = 0;
    if (j->b_staged) elems = max64(max64(elems, kr * nb), j->ks * n);
    if (j->a_staged) elems = max64(max64(elems, j->mb * kr), m * j->ks);
    if (j->c_back) elems = max64(elems, m * nb);
    size_t need = mbc_chunk_size((size_t)elems * e);
    /* (a pinned operand's pieces may be packed too: mbc_pin_pack) */
    int any_pageable = (j->a_staged && (g->a_kind == MBC_HOST || mbc_cfg.pin_row_kb != 0)) ||
                       (j->b_staged && (g->b_kind == MBC_HOST || mbc_cfg.pin_row_kb != 0)) ||
                       (j->c_back && !j->direct && (g->c_kind == MBC_HOST || j->c_in));
    cudaError_t err;
    *what = "cudaHostAlloc (pinned staging)";
    if (any_pageable && (err = mbc_ensure_chunks(s, need)) != cudaSuccess) return err;

    *what = "cudaMalloc (device buffers)";
    int64_t a_rows = g->ta ? k : m, a_cols = g->ta ? m : k;
    int64_t b_rows = g->tb ? n : k, b_cols = g->tb ? k : n;
    j->d = *g; /* device operands stay in place */
    char *buf;
    if (j->a_staged) {
        if ((err = mbc_dbuf(s, 0, (size_t)a_rows * (size_t)a_cols * e, &buf)) != cudaSuccess)
            return err;
        j->d.A = buf, j->d.lda = a_rows, j->d.a_kind = MBC_DEVICE;
    }
    if (j->b_staged) {
        if ((err = mbc_dbuf(s, 1, (size_t)b_rows * (size_t)b_cols * e, &buf)) != cudaSuccess)
            return err;
        j->d.B = buf, j->d.ldb = b_rows, j->d.b_kind = MBC_DEVICE;
    }
    if (j->c_back) {
        if ((err = mbc_dbuf(s, 2, (size_t)m * (size_t)n * e, &buf)) != cudaSuccess) return err;
        j->d.C = buf, j->d.ldc = m, j->d.c_kind = MBC_DEVICE;
    }
    s->out_rows = m;

    /* A's pieces: phase 1's slabs 0 .. nslab - 1, then phase 2's row blocks. With one feed
     * (a_src), a share that takes them from the first device stages its own B first (host
     * work while it waits); in parts, every share stages its part of a piece where it would
     * stage the whole piece itself. */
    int one = src && src->nfeed == 1;
    int give = one && plo == 0;
    int take = one && plo > 0 && mbc_peer_ready(src->feeds[0].dev, s->device);

    /* Phase 1: rank-ks updates of the panels [plo, phi) of C, each as soon as its slabs of A
     * and B are across; one gemm per panel, so that a share on another device runs exactly
     * the one-GPU schedule's gemms of its panels. */
    int64_t c_lo = j->pc[plo], c_hi = j->pc[phi];
    for (int64_t sl = 0; sl < j->nslab; ++sl) {
        int64_t q0 = sl * j->ks;
        *what = "copy to the GPU";
        if (!take && (err = stage_a(s, j, src, give, 0, (int)sl, 0, m, q0, j->ks)) != cudaSuccess)
            return err;
        if (j->b_staged && (err = stage(s, 1, j->d.B, j->d.ldb, g->B, g->ldb, g->tb, q0, j->ks,
                                        c_lo, c_hi - c_lo, g->b_kind)) != cudaSuccess)
            return err;
        if (take && (err = stage_a(s, j, src, 0, 1, (int)sl, 0, m, q0, j->ks)) != cudaSuccess)
            return err;
        *what = "gemm";
        for (int64_t p = plo; p < phi; ++p) {
            err = queue_gemm(s, j, 0, m, j->pc[p], j->pc[p + 1] - j->pc[p], q0, j->ks,
                             sl ? 1.0 : g->beta, st);
            if (err != cudaSuccess || *st != MINIBLAS_STATUS_SUCCESS) return err;
        }
    }

    /* Phase 2, over k1..k: A row blocks and B panels (with their C panels) alternately; each
     * arrival queues one gemm for every block of C whose A and B are now both across. */
    double beta2 = k1 > 0 ? 1.0 : g->beta;
    int64_t sa = 0, sb = 0; /* row blocks / panels across */
    if (plo > 0) {
        /* A share after the first (plo >= head: mgpu_plan.h): its panels come after the
         * head, so each has, in the one-GPU schedule, its gemms over A's row blocks or
         * one over all rows (rows_gemm); the same gemms here, each queued once its A and B are
         * across. A and B go across alternately while the next panel is computed by rows,
         * else A first; A taken from the first device comes as that device stages it, so
         * this share's B (and C) panels are staged first then. */
        for (sb = plo; sa < j->nblk || sb < phi;) {
            *what = "copy to the GPU";
            if (sa < j->nblk &&
                (take ? sb == phi : sb == phi || !by_rows(j, sb) || sa <= sb - plo)) {
                if ((err = stage_a(s, j, src, 0, take, (int)(j->nslab + sa), sa * j->mb,
                                   min64(j->mb, m - sa * j->mb), k1, kr)) != cudaSuccess)
                    return err;
                ++sa;
                for (int64_t p = plo; p < sb; ++p) { /* with the last block: panel p done */
                    *what = "gemm";
                    if ((by_rows(j, p) || sa == j->nblk) &&
                        ((err = rows_gemm(s, j, p, sa - 1, sa, k1, beta2, st)) != cudaSuccess ||
                         *st != MINIBLAS_STATUS_SUCCESS))
                        return err;
                    *what = "copy from the GPU";
                    if (sa == j->nblk && (err = panel_done(s, j)) != cudaSuccess) return err;
                }
            } else {
                if ((err = stage_panel(s, j, sb, k1)) != cudaSuccess) return err;
                ++sb;
                *what = "gemm";
                if ((by_rows(j, sb - 1) || sa == j->nblk) &&
                    ((err = rows_gemm(s, j, sb - 1, 0, sa, k1, beta2, st)) != cudaSuccess ||
                     *st != MINIBLAS_STATUS_SUCCESS))
                    return err;
            }
            *what = "copy from the GPU";
            while (sa == j->nblk && j->ready < sb) /* with all of A across, panels < sb are done */
                if ((err = panel_done(s, j)) != cudaSuccess) return err;
        }
    }
    /* The one-GPU schedule; the first share stops after panel phi - 1 (phi >= head: the gemms
     * of its panels are those of the one-GPU schedule). The head panels (those below A's last
     * row block) are computed, as each block or panel arrives, by one gemm over the new block
     * and every panel across, or over every block across and the new panel; with head_rows
     * (all of them by rows: plan_geometry) by one gemm per (block x panel) instead, the gemms
     * a later share makes for them (rows_gemm). */
    while (plo == 0 && (sa < j->nblk || sb < phi)) {
        if (sa < j->nblk && (sa <= sb || sb == phi)) {
            int64_t r0 = sa * j->mb, nr = min64(j->mb, m - r0);
            *what = "copy to the GPU";
            if ((err = stage_a(s, j, src, give, 0, (int)(j->nslab + sa), r0, nr, k1, kr)) !=
                cudaSuccess)
                return err;
            ++sa;
            *what = "gemm"; /* block sa - 1 x panels 0 .. sb - 1: one gemm, or one per panel */
            if (sb > 0 && !j->head_rows)
                err = queue_gemm(s, j, r0, nr, 0, j->pc[sb], k1, kr, beta2, st);
            for (int64_t p = 0; j->head_rows && p < sb && err == cudaSuccess &&
                                *st == MINIBLAS_STATUS_SUCCESS; ++p)
                err = rows_gemm(s, j, p, sa - 1, sa, k1, beta2, st);
            if (err != cudaSuccess || *st != MINIBLAS_STATUS_SUCCESS) return err;
        } else {
            int64_t c0 = j->pc[sb], nc = j->pc[sb + 1] - c0;
            *what = "copy to the GPU";
            if ((err = stage_panel(s, j, sb, k1)) != cudaSuccess) return err;
            ++sb;
            *what = "gemm";
            if (sa == j->nblk || (sa > 0 && j->head_rows)) /* blocks 0 .. sa - 1 x panel */
                err = rows_gemm(s, j, sb - 1, 0, sa, k1, beta2, st);
            else if (sa > 0)
                err = queue_gemm(s, j, 0, min64(m, sa * j->mb), c0, nc, k1, kr, beta2, st);
            if (err != cudaSuccess || *st != MINIBLAS_STATUS_SUCCESS) return err;
        }
        *what = "copy from the GPU";
        while (sa == j->nblk && j->ready < sb) /* with all of A across, panels < sb are done */
            if ((err = panel_done(s, j)) != cudaSuccess) return err;
        if ((err = queue_out(s, j, 0)) != cudaSuccess) return err; /* unpack what is back */
    }
    s->tr.inputs = mbc_now_ms() - s->tr.t0;

    /* Only now unpack C: inputs first keeps the GPU fed; the copies back wait on the GPU. */
    *what = "copy from the GPU";
    if ((err = queue_out(s, j, 1)) != cudaSuccess || (err = mbc_drain_out(s)) != cudaSuccess)
        return err;
    *what = "sync";
    return mbc_sync_all(s);
}

/*
 * Several GPUs. A gemm on host operands (every operand host memory, pageable or pinned) is
 * split when MINIBLAS_CBLAS_DEVICES lists several devices and the call is large enough
 * (mgpu_plan.h): the one-GPU geometry (plan_geometry) is computed once, and its panels of C
 * are dealt in contiguous runs, one per device (mbc_split_plan): the first device keeps the
 * head (the panels whose gemms span several panels or part of the rows; none with the tuning
 * key head_rows where every head panel is by rows: mbc_split_head) and is driven by the
 * calling thread; every other device by a worker thread of its own (mgpu.c), each with its
 * own state: streams, pinned chunks, device buffers.
 *
 * Why C is bitwise the same on 1, 2 or N devices: every device runs exactly the gemms the
 * one-GPU schedule makes for its panels, with the same shapes, the same k ranges in the same
 * order (phase 1's k-slabs, one gemm per panel, then the rest of k), the same leading dimensions
 * and the same offsets in buffers of the same size, with the rung of the whole problem pinned
 * (the same name on identical GPUs). A rung's result for an element depends only on these
 * (its split-K and last-wave choices follow the gemm's shape and the GPU's SM count), so each
 * element of C is computed by the same arithmetic in the same order as on one GPU. The GPUs
 * must be of one model (same SM count). The price: every device needs all of A on it.
 *
 * A share that fails (out of memory, an error) leaves its columns of the caller's C final up
 * to its progress and untouched beyond (pinned C with beta == 0: the whole share is
 * recomputed); the rest of the share is finished on the CPU BLAS once every device is done.
 */
typedef struct split_share {
    int rc;
    int64_t peer; /* pieces (or parts) of A it copied from another device */
    mbc_progress prog;
    char msg[300];
} split_share;

typedef struct split_call {
    const mbc_gemm *g;
    const gemm_job *geo;
    const mbc_split *sp;
    mbc_feed *feeds; /* A's pieces between the devices (a_src) */
    int nfeed;       /* 0: none; 1: pageable A; the devices: in parts */
    split_share sh[MBC_SPLIT_MAX];
} split_call;

static void share_on_device(split_call *c, int i);

/* Share i on device use[i] (run by mbc_mgpu_run on the share's thread); its end, whatever
 * its outcome, tells the others that no more of A will come from it. */
static void run_share(void *ctx, int i) {
    split_call *c = ctx;
    share_on_device(c, i);
    if (i < c->nfeed) mbc_feed_close(&c->feeds[i]);
}

static void share_on_device(split_call *c, int i) {
    const mbc_gemm *g = c->g;
    split_share *r = &c->sh[i];
    int64_t plo = c->sp->first[i], phi = c->sp->first[i + 1];
    size_t e = g->dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    r->prog.done_col = c->geo->pc[plo];
    r->prog.done_row = 0;
    r->rc = -1;
    r->peer = 0;
    if (mbc_frame_enter_dev(&f, mbc_cfg.use[i], e, r->msg, sizeof r->msg)) return;
    mbc_state *s = f.s;
    s->prog.done_col = c->geo->pc[plo];
    s->ntev = -1;
    if (mbc_cfg.verbose >= 2) mbc_trace_begin(s); /* this share's trace, as on one GPU */
    miniblas_status_t st = MINIBLAS_STATUS_SUCCESS;
    const char *what = "gemm";
    int pinned = pin_rung(s, g);
    mbc_pool_wait = 1;
    mbc_call_devices = c->sp->ndev;
    a_src src = {c->feeds, c->nfeed, i};
    cudaError_t err = gemm_staged(s, g, c->geo, plo, phi, c->nfeed ? &src : NULL, &what, &st);
    mbc_pool_wait = 0;
    mbc_call_devices = 0;
    char detail[300];
    gemm_done(s, g, pinned, err, st, detail, sizeof detail, c->geo->pc[plo], &r->prog);
    if (mbc_cfg.verbose >= 2)
        mbc_trace_gemm(s, g, err != cudaSuccess || st != MINIBLAS_STATUS_SUCCESS);
    r->peer = s->tr.peer;
    r->rc = mbc_frame_leave_detail(&f, err, st, what, detail);
}

/* Columns [c0, c1) of C on the CPU BLAS, from row r0 of column c0 on. 0, or -1 without one. */
static int cpu_columns(const mbc_gemm *g, int64_t c0, int64_t r0, int64_t c1) {
    size_t e = g->dbl ? sizeof(double) : sizeof(float);
    const char *A = g->A, *B = g->B;
    char *C = g->C;
    if (c0 >= c1) return 0;
    if (r0 > 0) { /* the rest of column c0 */
        if (mbc_cpu_gemm_colmajor(g->dbl, g->ta, g->tb, g->m - r0, 1, g->k, g->alpha,
                                  A + (size_t)(g->ta ? r0 * g->lda : r0) * e, g->lda,
                                  B + (size_t)(g->tb ? c0 : c0 * g->ldb) * e, g->ldb, g->beta,
                                  C + (size_t)(r0 + c0 * g->ldc) * e, g->ldc))
            return -1;
        ++c0;
    }
    if (c0 < c1 &&
        mbc_cpu_gemm_colmajor(g->dbl, g->ta, g->tb, g->m, c1 - c0, g->k, g->alpha, A, g->lda,
                              B + (size_t)(g->tb ? c0 : c0 * g->ldb) * e, g->ldb, g->beta,
                              C + (size_t)c0 * (size_t)g->ldc * e, g->ldc))
        return -1;
    return 0;
}

/* The gemm split over several devices: 0 done, -1 failed (msg), 1 not run (the device
 * workers are busy with another thread's call: the caller runs it on one device). */
static int gemm_split(const mbc_gemm *g, const gemm_job *geo, const mbc_split *sp,
                      mbc_progress *prog, char *msg, size_t msg_size) {
    split_call c;
    c.g = g, c.geo = geo, c.sp = sp, c.nfeed = 0;
    if (geo->a_staged) /* pageable A: packed once; pinned: in parts, unless a_parts=off */
        c.nfeed = g->a_kind == MBC_HOST ? 1 : mbc_cfg.a_parts != 0 ? sp->ndev : 0;
    if (c.nfeed && !(c.feeds = calloc((size_t)c.nfeed, sizeof *c.feeds)))
        c.nfeed = 0; /* each device stages all of A itself */
    for (int i = 0; i < c.nfeed; ++i) mbc_feed_init(&c.feeds[i], mbc_cfg.use[i]);
    int busy = mbc_mgpu_run(sp->ndev, run_share, &c);
    for (int i = 0; i < c.nfeed; ++i) mbc_feed_destroy(&c.feeds[i]);
    if (c.nfeed) free(c.feeds);
    if (busy) return 1;
    int rc = 0, failed = 0;
    for (int i = 0; i < sp->ndev; ++i) {
        split_share *r = &c.sh[i];
        if (r->rc == 0) continue;
        ++failed;
        mbc_notice("gemm: device %d failed on columns %lld..%lld (%s); finishing them on the CPU BLAS",
                   mbc_cfg.use[i], (long long)geo->pc[sp->first[i]],
                   (long long)geo->pc[sp->first[i + 1]] - 1, r->msg);
        if (cpu_columns(g, r->prog.done_col, r->prog.done_row, geo->pc[sp->first[i + 1]])) {
            if (rc == 0) snprintf(msg, msg_size, "device %d: %s (no CPU BLAS to finish its share)",
                                  mbc_cfg.use[i], r->msg);
            rc = -1;
        }
    }
    /* Without a CPU BLAS C is partly written: say so (entry.c reports it undefined). */
    prog->done_col = rc ? 1 : 0;
    prog->done_row = 0;
    int64_t peer = 0;
    for (int i = 0; i < sp->ndev; ++i) peer += c.sh[i].peer;
    if (mbc_cfg.verbose >= 2)
        mbc_notice("gemm m=%lld n=%lld k=%lld over %d devices, %d failed%s", (long long)g->m,
                   (long long)g->n, (long long)g->k, sp->ndev, failed,
                   !peer ? "" : c.nfeed > 1 ? ", A in parts from every device" : ", A copied between devices");
    return rc;
}

/*
 * Schedule of a gemm with operands on the host (column-major, C m x n = op(A) op(B), k deep).
 * Three streams: copies in, compute, copies out. The host packs inputs into pinned chunks of at
 * most 16 MB (each DMA'd as soon as it is full, while the next is packed) and queues each gemm
 * as soon as its inputs are across:
 *
 *   phase 1 (beta == 0, k >= 2048, 2mn/(m+n) >= 6144): 4 k-slabs of depth ks = k/16: slab s of A
 *     (m x ks) and of B (ks x n), then C (+)= A_s B_s over all of C (a gemm per panel). A slab pair of
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
 *     copy has already completed, the rest after every input is
 *     packed (GPU compute does not wait for unpacking: C lives in a whole device buffer), so it
 *     never waits for the GPU while it could pack. C reaches the caller's memory in column
 *     order only.
 */
int mbc_gpu_gemm(const mbc_gemm *g, mbc_progress *prog, char *msg, size_t msg_size) {
    size_t e = g->dbl ? sizeof(double) : sizeof(float);
    mbc_frame f;
    prog->done_col = prog->done_row = 0;
    if (mbc_cfg.nuse > 1 && g->k > 0 && g->alpha != 0 && g->a_kind != MBC_DEVICE &&
        g->b_kind != MBC_DEVICE && g->c_kind != MBC_DEVICE) { /* several GPUs (gemm_split) */
        gemm_job geo;
        mbc_split sp;
        plan_geometry(g, e, &geo);
        int tuned = mbc_cfg.split_cols > 0;
        int pageable = g->a_kind == MBC_HOST || g->b_kind == MBC_HOST || g->c_kind == MBC_HOST;
        mbc_split_plan(geo.npan, geo.pc, geo.head, mbc_cfg.nuse, g->m, g->k,
                       tuned      ? mbc_cfg.split_cols
                       : pageable ? MBC_SPLIT_MIN_COLS_PAGEABLE
                                  : MBC_SPLIT_MIN_COLS,
                       tuned ? 0 : MBC_SPLIT_MIN_VOLUME, &sp);
        if (sp.ndev > 1) {
            int rc = gemm_split(g, &geo, &sp, prog, msg, msg_size);
            if (rc <= 0) return rc;
        }
    }
    if (mbc_frame_enter(&f, e, msg, msg_size)) return -1;
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
        if ((err = mbc_comp_after_caller(s)) != cudaSuccess) return mbc_frame_leave(&f, err, st, what);
        what = "gemm";
    }
    int pinned = pin_rung(s, g);
    s->ntev = -1;
    if (mbc_cfg.verbose >= 2) mbc_trace_begin(s);
    if (a_dev && b_dev && c_dev) { /* everything in place: one call */
        gemm_job j;
        memset(&j, 0, sizeof j);
        j.g = g, j.e = e;
        j.d = *g;
        err = queue_gemm(s, &j, 0, g->m, 0, g->n, 0, g->k, g->beta, &st);
        if (err == cudaSuccess && st == MINIBLAS_STATUS_SUCCESS)
            what = "sync", err = cudaStreamSynchronize(s->s_comp);
    } else {
        gemm_job geo;
        plan_geometry(g, e, &geo);
        err = gemm_staged(s, g, &geo, 0, geo.npan, NULL, &what, &st);
    }
    char detail[300];
    gemm_done(s, g, pinned, err, st, detail, sizeof detail, 0, prog);
    if (mbc_cfg.verbose >= 2) mbc_trace_gemm(s, g, err != cudaSuccess || st != MINIBLAS_STATUS_SUCCESS);
    return mbc_frame_leave_detail(&f, err, st, what, detail);
}
