/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device workers of the multi-device gemm and reductions (cblas_gpu.h: mbc_mgpu_run).
 * One persistent thread per extra device of the list, started on first use, so that each
 * keeps its per-thread GPU state (streams, pinned chunks, device buffers) on its own device
 * between calls; the calling thread drives the first device itself. A job is published under
 * one lock with a generation number; each worker runs its share and counts down; the caller
 * waits for the count to reach zero. One job at a time: a second caller finds the job lock
 * taken and runs its call on one device.
 *
 * And the feed (mbc_feed): pieces of the first device's copy of A handed to the other devices
 * of the call, device to device, so that the host packs pageable A once for all of them.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "cblas_gpu.h"

static pthread_mutex_t g_call = PTHREAD_MUTEX_INITIALIZER; /* one job at a time */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER; /* the fields below */
static pthread_cond_t g_go = PTHREAD_COND_INITIALIZER, g_done = PTHREAD_COND_INITIALIZER;
static unsigned g_gen;       /* bumped when a job is published */
static int g_nworkers;       /* workers 1..g_nworkers exist */
static int g_n, g_pending;   /* the job's shares; workers still running */
static void (*g_fn)(void *, int);
static void *g_ctx;

typedef struct worker_arg {
    int index;
    unsigned seen;
} worker_arg;

static worker_arg g_args[MBC_MAX_DEVICES];

static void *worker(void *p) {
    worker_arg *a = p;
    unsigned seen = a->seen;
    pthread_mutex_lock(&g_lock);
    for (;;) {
        while (g_gen == seen) pthread_cond_wait(&g_go, &g_lock);
        seen = g_gen;
        if (a->index >= g_n) continue;
        void (*fn)(void *, int) = g_fn;
        void *ctx = g_ctx;
        pthread_mutex_unlock(&g_lock);
        fn(ctx, a->index);
        pthread_mutex_lock(&g_lock);
        if (--g_pending == 0) pthread_cond_broadcast(&g_done);
    }
    return NULL;
}

int mbc_mgpu_run(int n, void (*fn)(void *ctx, int i), void *ctx) {
    if (n < 1 || n > MBC_MAX_DEVICES) return -1;
    if (pthread_mutex_trylock(&g_call)) return -1;
    pthread_mutex_lock(&g_lock);
    while (g_nworkers < n - 1) { /* g_lock held: a new worker starts waiting on this gen */
        int i = g_nworkers + 1;
        g_args[i].index = i;
        g_args[i].seen = g_gen;
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&th, &at, worker, &g_args[i]);
        pthread_attr_destroy(&at);
        if (e) {
            pthread_mutex_unlock(&g_lock);
            pthread_mutex_unlock(&g_call);
            return -1;
        }
        ++g_nworkers;
    }
    g_fn = fn;
    g_ctx = ctx;
    g_n = n;
    g_pending = n - 1;
    ++g_gen;
    pthread_cond_broadcast(&g_go);
    pthread_mutex_unlock(&g_lock);

    fn(ctx, 0);

    pthread_mutex_lock(&g_lock);
    while (g_pending > 0) pthread_cond_wait(&g_done, &g_lock);
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_unlock(&g_call);
    return 0;
}

void mbc_mgpu_atfork_child(void) {
    pthread_mutex_init(&g_call, NULL);
    pthread_mutex_init(&g_lock, NULL);
    pthread_cond_init(&g_go, NULL);
    pthread_cond_init(&g_done, NULL);
    g_nworkers = 0;
    g_pending = 0;
}

/* ------------------------------------------------------------------ the feed (cblas_gpu.h) */

void mbc_feed_init(mbc_feed *f, int dev) {
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->cv, NULL);
    f->dev = dev;
}

void mbc_feed_destroy(mbc_feed *f) {
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != f->dev) cudaSetDevice(f->dev);
    for (int i = 0; i < MBC_FEED_MAX; ++i)
        if (f->ev[i]) cudaEventDestroy(f->ev[i]);
    if (cur >= 0 && cur != f->dev) cudaSetDevice(cur);
    cudaGetLastError();
    pthread_cond_destroy(&f->cv);
    pthread_mutex_destroy(&f->lock);
}

cudaError_t mbc_feed_publish(mbc_feed *f, int piece, const char *base, cudaStream_t st) {
    if (piece < 0 || piece >= MBC_FEED_MAX) return cudaSuccess; /* consumers stage it */
    cudaError_t e = cudaSuccess;
    if (!f->ev[piece]) e = cudaEventCreateWithFlags(&f->ev[piece], cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventRecord(f->ev[piece], st);
    if (e != cudaSuccess) return e;
    pthread_mutex_lock(&f->lock);
    f->base = base;
    f->pub[piece] = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->lock);
    return cudaSuccess;
}

void mbc_feed_close(mbc_feed *f) {
    pthread_mutex_lock(&f->lock);
    f->closed = 1;
    pthread_cond_broadcast(&f->cv);
    pthread_mutex_unlock(&f->lock);
}

int mbc_feed_wait(mbc_feed *f, int piece) {
    if (piece < 0 || piece >= MBC_FEED_MAX) return 0;
    pthread_mutex_lock(&f->lock);
    while (!f->pub[piece] && !f->closed) pthread_cond_wait(&f->cv, &f->lock);
    int r = f->pub[piece];
    pthread_mutex_unlock(&f->lock);
    return r;
}

cudaError_t mbc_feed_copy(mbc_feed *f, int piece, cudaStream_t st, int dev, char *dst,
                          int64_t ld, int64_t i0, int64_t ni, int64_t j0, int64_t nj,
                          size_t elem) {
    size_t off = ((size_t)i0 + (size_t)j0 * (size_t)ld) * elem;
    cudaError_t e = cudaStreamWaitEvent(st, f->ev[piece], 0); /* the producer's copy */
    if (e != cudaSuccess || ni <= 0 || nj <= 0) return e;
    if (ni == ld) /* whole columns: one block */
        return cudaMemcpyPeerAsync(dst + off, dev, f->base + off, f->dev,
                                   (size_t)ni * (size_t)nj * elem, st);
    struct cudaMemcpy3DPeerParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr.ptr = (void *)(f->base + off);
    p.dstPtr.ptr = dst + off;
    p.srcPtr.pitch = p.dstPtr.pitch = (size_t)ld * elem;
    p.srcPtr.xsize = p.dstPtr.xsize = (size_t)ni * elem;
    p.srcPtr.ysize = p.dstPtr.ysize = (size_t)nj;
    p.srcDevice = f->dev;
    p.dstDevice = dev;
    p.extent.width = (size_t)ni * elem;
    p.extent.height = (size_t)nj;
    p.extent.depth = 1;
    return cudaMemcpy3DPeerAsync(&p, st);
}

int mbc_peer_ready(int from, int to) {
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static signed char ok[MBC_MAX_DEVICES][MBC_MAX_DEVICES]; /* 0 unknown, 1 yes, -1 no */
    if (from < 0 || to < 0 || from >= MBC_MAX_DEVICES || to >= MBC_MAX_DEVICES || from == to)
        return 0;
    pthread_mutex_lock(&lock);
    if (ok[to][from] == 0) {
        int can = 0;
        cudaError_t e = cudaDeviceCanAccessPeer(&can, to, from);
        if (e == cudaSuccess && can) {
            e = cudaDeviceEnablePeerAccess(from, 0); /* for the current device, `to` */
            if (e == cudaErrorPeerAccessAlreadyEnabled) e = cudaSuccess;
        }
        cudaGetLastError();
        ok[to][from] = e == cudaSuccess && can ? 1 : -1;
    }
    int r = ok[to][from] > 0;
    pthread_mutex_unlock(&lock);
    return r;
}
