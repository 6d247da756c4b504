/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tracing (MINIBLAS_CBLAS_VERBOSE=2 and 3): where the time of one GPU gemm went (of each
 * device's share, when the gemm is split over several; lines name the device). The host side
 * from clock readings around the packing, unpacking and waits (mbc_trace in the state); the GPU
 * side from events recorded on the compute stream at the call's start and around each gemm.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include <time.h>
#include "cblas_gpu.h"

double mbc_now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The GPU side of the trace (MINIBLAS_CBLAS_VERBOSE=2): timing events on s_comp at the
 * call's start and around each gemm, read by mbc_trace_gemm after the call. */
void mbc_trace_begin(mbc_state *s) {
    s->ntev = -1;
    for (int i = 0; i <= NTEV; ++i)
        if (!s->tev[i] && cudaEventCreate(&s->tev[i]) != cudaSuccess) return;
    if (cudaEventRecord(s->tev[NTEV], s->s_comp) == cudaSuccess) s->ntev = 0;
}
void mbc_trace_mark(mbc_state *s) {
    if (s->ntev < 0) return;
    if (s->ntev >= NTEV) s->ntev = -2; /* too many gemms: no GPU trace for this call */
    else if (cudaEventRecord(s->tev[s->ntev], s->s_comp) == cudaSuccess) ++s->ntev;
    else s->ntev = -1;
}

/* One line per call with MINIBLAS_CBLAS_VERBOSE=2: where the host's time went. */
void mbc_trace_gemm(mbc_state *s, const mbc_gemm *g, int failed) {
    const mbc_trace *t = &s->tr;
    double total = mbc_now_ms() - t->t0;
    double other = total - t->pack[0] - t->pack[1] - t->pack[2] - t->unpack - t->wait_in -
                   t->wait_out;
    const char *rung = miniblas_last_rung(s->h, g->dbl ? MINIBLAS_OP_DGEMM : MINIBLAS_OP_SGEMM);
    mbc_notice("%cgemm trace m=%lld n=%lld k=%lld (col-major) device %d rung %s, %lld panels of "
               "%lld, %lld A blocks, %lld k-slabs of %lld: pack A %.2f B %.2f C %.2f, unpack C "
               "%.2f, wait in %.2f out %.2f, other %.2f; first gemm at %.2f, inputs packed at "
               "%.2f, total %.2f ms%s",
               g->dbl ? 'd' : 's', (long long)g->m, (long long)g->n, (long long)g->k, s->device,
               rung && rung[0] ? rung : "-", (long long)t->geo[0], (long long)t->geo[1],
               (long long)t->geo[2], (long long)t->geo[3], (long long)t->geo[4], t->pack[0],
               t->pack[1], t->pack[2], t->unpack,
               t->wait_in, t->wait_out, other, t->first_gemm, t->inputs, total,
               failed ? " (failed)" : "");
    /* GPU side, from the call's start event: when the gemms ran, how long they took, and how
     * long the GPU waited between them (for inputs: each gemm waits for the copies before it). */
    if (s->ntev == -2)
        mbc_notice("%cgemm trace GPU %d: not traced (more than %d gemms)", g->dbl ? 'd' : 's',
                   s->device, NTEV / 2);
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
    mbc_notice("%cgemm trace GPU %d: %d gemms from %.2f to %.2f ms: running %.2f, idle between "
               "them %.2f (first starts %.2f ms after it was queued)",
               g->dbl ? 'd' : 's', s->device, s->ntev / 2, first, last, busy, idle, lead);
    if (mbc_cfg.verbose >= 3)
        for (int i = 0; i + 1 < s->ntev; i += 2) {
            float a = 0, b = 0;
            cudaEventElapsedTime(&a, s->tev[NTEV], s->tev[i]);
            cudaEventElapsedTime(&b, s->tev[NTEV], s->tev[i + 1]);
            mbc_notice("  gemm %d: %.3f .. %.3f ms (%.3f)", i / 2, a, b, b - a);
        }
}
