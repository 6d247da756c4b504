/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device workers of the multi-device gemm (cblas_gpu.h: mbc_mgpu_run). One persistent
 * thread per extra device of the list, started on first use, so that each keeps its per-thread
 * GPU state (streams, pinned chunks, device buffers) on its own device between calls; the
 * calling thread drives the first device itself. A job is published under one lock with a
 * generation number; each worker runs its share and counts down; the caller waits for the
 * count to reach zero. One job at a time: a second caller finds the job lock taken and runs
 * its call on one device.
 */
#include <pthread.h>
#include <stdint.h>
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
