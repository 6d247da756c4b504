/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The staging copies' thread pool (copypool.h).
 *
 * Why not OpenMP: each `omp parallel` region ends in a barrier that waits for every thread of
 * the team. When the cores are oversubscribed (the CPU BLAS's workers keep spinning for a while
 * after each of its calls), one team thread the kernel has descheduled holds up the whole copy
 * for a scheduler time slice: with 16 threads on the 16-core H200 machine right after an
 * OpenBLAS call, sgemm 2048 on host pointers took 77-98 ms instead of 3.5. Here a
 * job is a list of items claimed one at a time; the caller takes items too and waits only for
 * the items to be done, never for a worker to show up: a worker that wakes late finds the job
 * gone and goes back to sleep.
 *
 * Protocol. One job at a time (the caller holds pool_lock for the whole job; a second host
 * thread that finds the pool busy runs its items itself). A job is published by writing
 * fn/ctx/n and then ticket = (generation << 32) | 0 (release); an item is claimed by a CAS of
 * ticket from (g, i) to (g, i + 1) with i < n, so a claim succeeds only for the current job,
 * and fn/ctx stay valid until `done` reaches n, which cannot happen before every claimed item
 * has finished. A job runs on its caller and workers 0 .. nthreads - 2 only (job_workers):
 * workers started for an earlier, wider job sit it out, asleep, so a copy never runs on more
 * threads than asked for (on two H200s one GPU's dgemm 8192 ran 22% slower on 32 threads
 * than on 16: perf/results/h200x2/copythreads32-8192.txt).
 * Idle workers spin on the generation for a short while (back-to-back copies find them
 * awake), then sleep on a condition variable.
 */
#define _GNU_SOURCE
#include "copypool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#define POOL_MAX 63             /* workers (the caller is one more) */
#define SPIN_NS 100000          /* idle workers poll this long before sleeping */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;  /* one job at a time */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static int nworkers;                      /* started so far (under pool_lock) */
static _Atomic uint64_t ticket;           /* generation << 32 | next item */
static _Atomic uint32_t generation;       /* bumped when a job is published */
static _Atomic int64_t n_items, done_items;
static _Atomic int job_workers;           /* workers 0 .. job_workers - 1 take part */
static void (*_Atomic job_fn)(void *, int64_t);
static void *_Atomic job_ctx;
_Thread_local int mbc_pool_wait;

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Claims and runs items of job generation g until none is left. */
static void run_items(uint32_t g) {
    for (;;) {
        uint64_t t = atomic_load_explicit(&ticket, memory_order_acquire);
        if ((uint32_t)(t >> 32) != g) return;
        if ((int64_t)(uint32_t)t >= atomic_load_explicit(&n_items, memory_order_relaxed)) return;
        if (!atomic_compare_exchange_weak_explicit(&ticket, &t, t + 1, memory_order_acq_rel,
                                                   memory_order_relaxed))
            continue;
        void (*fn)(void *, int64_t) = atomic_load_explicit(&job_fn, memory_order_relaxed);
        fn(atomic_load_explicit(&job_ctx, memory_order_relaxed), (int64_t)(uint32_t)t);
        atomic_fetch_add_explicit(&done_items, 1, memory_order_release);
    }
}

static void *worker(void *arg) {
    int index = (int)(intptr_t)arg;
    uint32_t seen = atomic_load_explicit(&generation, memory_order_acquire);
    int spin = 1; /* the last job was ours: the next may come soon */
    for (;;) {
        uint32_t g = atomic_load_explicit(&generation, memory_order_acquire);
        if (g == seen) {
            uint64_t t0 = now_ns();
            while (spin && (g = atomic_load_explicit(&generation, memory_order_acquire)) == seen &&
                   now_ns() - t0 < SPIN_NS)
                for (int i = 0; i < 64; ++i) cpu_relax();
            if (g == seen) {
                pthread_mutex_lock(&wake_lock);
                while ((g = atomic_load_explicit(&generation, memory_order_acquire)) == seen)
                    pthread_cond_wait(&wake_cond, &wake_lock);
                pthread_mutex_unlock(&wake_lock);
            }
        }
        seen = g;
        /* job_workers was stored before generation g was published; a newer job's value
         * only makes run_items(g) find its job gone */
        spin = index < atomic_load_explicit(&job_workers, memory_order_relaxed);
        if (spin) run_items(g);
    }
    return NULL;
}

void mbc_pool_atfork_child(void) {
    pthread_mutex_init(&pool_lock, NULL);
    pthread_mutex_init(&wake_lock, NULL);
    pthread_cond_init(&wake_cond, NULL);
    nworkers = 0;
}

void mbc_pool_run(int64_t n, void (*fn)(void *, int64_t), void *ctx, int nthreads) {
    if (n <= 0) return;
    if (nthreads > POOL_MAX + 1) nthreads = POOL_MAX + 1;
    int wait = mbc_pool_wait && nthreads > 1 && n > 1 && n <= (int64_t)UINT32_MAX;
    if (wait) pthread_mutex_lock(&pool_lock); /* a share of a split gemm (see copypool.h) */
    if (!wait && (nthreads <= 1 || n == 1 || n > (int64_t)UINT32_MAX ||
                  pthread_mutex_trylock(&pool_lock))) {
        for (int64_t i = 0; i < n; ++i) fn(ctx, i); /* alone, or the pool is busy */
        return;
    }
    while (nworkers < nthreads - 1) { /* lazily, up to the largest count asked for */
        pthread_t th;
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int e = pthread_create(&th, &at, worker, (void *)(intptr_t)nworkers);
        pthread_attr_destroy(&at);
        if (e) break; /* fewer workers: the caller does more items */
        ++nworkers;
    }
    uint32_t g = atomic_load_explicit(&generation, memory_order_relaxed) + 1;
    atomic_store_explicit(&job_fn, fn, memory_order_relaxed);
    atomic_store_explicit(&job_ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&n_items, n, memory_order_relaxed);
    atomic_store_explicit(&done_items, 0, memory_order_relaxed);
    atomic_store_explicit(&job_workers, nthreads - 1, memory_order_relaxed);
    atomic_store_explicit(&ticket, (uint64_t)g << 32, memory_order_release);
    pthread_mutex_lock(&wake_lock);
    atomic_store_explicit(&generation, g, memory_order_release);
    pthread_cond_broadcast(&wake_cond);
    pthread_mutex_unlock(&wake_lock);

    run_items(g);
    for (unsigned spins = 0; atomic_load_explicit(&done_items, memory_order_acquire) < n; ++spins) {
        if (spins < 4096)
            cpu_relax();
        else
            sched_yield(); /* a worker holding the last item was descheduled */
    }
    pthread_mutex_unlock(&pool_lock);
}
