/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cblas layer's address-only host check (src/cblas/ptr.c): memory that cannot be a CUDA
 * allocation (brk heap, this thread's stack, the program's data/bss) is recognised; anything
 * else (an anonymous mmap, as CUDA's own allocations are, another thread's stack, NULL) is
 * "unknown" and gets the CUDA query. A false "plain host" would send a device pointer to the
 * CPU BLAS; a false "unknown" only costs the query.
 * Also the copy pool (src/cblas/copypool.c): every item of every job run exactly once, jobs
 * back to back and from two host threads at once, and a job on no more threads than it asks
 * for after a wider one started more workers. And the staging copy with streaming stores
 * (src/cblas/stream_copy.h): every byte copied,
 * none written before or after the range, at every alignment of source and destination and
 * sizes around its thresholds (4096, the 16-byte head, the 64-byte body, the tail).
 * The live-stack rule from other stacks: code running on a ucontext fiber stack or on an
 * alternate signal stack below the thread's stack must not see the mappings in between (here
 * an inaccessible reservation, as CUDA's device ranges are) as "plain host". And
 * mbc_host_readable: host memory yes; inaccessible, unmapped, or an extent whose last byte is
 * inaccessible no, without a fault.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cblas/cblas_ptr.h"
#include "cblas/stream_copy.h"
#include "cblas/copypool.h"
#include "cpu_check.h"

static float g_static_data[64] = {1.0f}; /* .data */
static double g_static_bss[1024];       /* .bss */

static void *other_thread(void *arg) {
    volatile float local[16];
    local[0] = 1.0f;
    /* our stack, seen from here: yes; the main thread's stack (arg): unknown */
    int *res = (int *)malloc(2 * sizeof(int));
    if (res) {
        res[0] = mbc_plain_host((const void *)&local[3]);
        res[1] = mbc_plain_host(arg);
    }
    return res;
}

enum { POOL_N = 5000 };
typedef struct pool_ctx {
    _Atomic int hits[POOL_N];
    int salt;
} pool_ctx;

static void pool_item(void *ctx, int64_t i) {
    pool_ctx *c = (pool_ctx *)ctx;
    atomic_fetch_add(&c->hits[i], c->salt);
}

static void *pool_caller(void *arg) {
    pool_ctx *c = (pool_ctx *)arg;
    for (int rep = 0; rep < 50; ++rep) mbc_pool_run(POOL_N, pool_item, c, 8);
    return NULL;
}

static void test_pool(void) {
    static pool_ctx a, b;
    a.salt = 1, b.salt = 1000;
    for (int rep = 0; rep < 200; ++rep) /* back to back: workers awake, asleep, late */
        mbc_pool_run(rep % 7 == 0 ? 1 : POOL_N - rep, pool_item, &a, 1 + rep % 16);
    long want = 0, bad = 0;
    for (int i = 0; i < POOL_N; ++i) {
        long w = 0;
        for (int rep = 0; rep < 200; ++rep) w += i < (rep % 7 == 0 ? 1 : POOL_N - rep);
        want += w;
        bad += atomic_load(&a.hits[i]) != w;
    }
    CHECKF(bad == 0, "%ld items run a wrong number of times (of %ld runs)", bad, want);
    for (int i = 0; i < POOL_N; ++i) atomic_store(&a.hits[i], 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, pool_caller, &b) == 0);
    pool_caller(&a);
    pthread_join(t, NULL);
    bad = 0;
    for (int i = 0; i < POOL_N; ++i)
        bad += atomic_load(&a.hits[i]) != 50 || atomic_load(&b.hits[i]) != 50 * 1000;
    CHECKF(bad == 0, "two callers at once: %ld items wrong", bad);
}

/* Which threads ran a job's items: slow items (~20 us), so every awake worker gets some. */
enum { WIDTH_N = 400, WIDTH_MAXT = 64 };
static pthread_t width_seen[WIDTH_MAXT];
static _Atomic int width_count;
static pthread_mutex_t width_lock = PTHREAD_MUTEX_INITIALIZER;

static void width_item(void *ctx, int64_t i) {
    (void)ctx, (void)i;
    pthread_t me = pthread_self();
    pthread_mutex_lock(&width_lock);
    int known = 0, n = atomic_load(&width_count);
    for (int t = 0; t < n; ++t) known |= pthread_equal(width_seen[t], me);
    if (!known && n < WIDTH_MAXT) width_seen[n] = me, atomic_store(&width_count, n + 1);
    pthread_mutex_unlock(&width_lock);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do clock_gettime(CLOCK_MONOTONIC, &t1);
    while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 20000);
}

static int width_of(int nthreads) {
    atomic_store(&width_count, 0);
    mbc_pool_run(WIDTH_N, width_item, NULL, nthreads);
    return atomic_load(&width_count);
}

static void test_pool_width(void) {
    int wide = width_of(16); /* 15 workers, started by test_pool's widest jobs */
    CHECKF(wide >= 1 && wide <= 16, "a 16-thread job ran on %d threads", wide);
    for (int rep = 0; rep < 5; ++rep) { /* the workers awake (spinning) and asleep */
        int narrow = width_of(4);
        CHECKF(narrow >= 1 && narrow <= 4, "a 4-thread job after a 16-thread one ran on %d threads",
               narrow);
        if (rep == 2) {
            struct timespec nap = {0, 5000000}; /* past the workers' spin: asleep */
            nanosleep(&nap, NULL);
        }
    }
    CHECKF(width_of(1) == 1, "a 1-thread job ran on %d threads", atomic_load(&width_count));
}

static void test_stream_copy(void) {
    enum { MAXN = 20000, GUARD = 64 };
    unsigned char *src = (unsigned char *)malloc(MAXN + 2 * GUARD);
    unsigned char *dst = (unsigned char *)malloc(MAXN + 2 * GUARD);
    CHECK(src && dst);
    if (!src || !dst) return;
    for (int i = 0; i < MAXN + 2 * GUARD; ++i) src[i] = (unsigned char)(i * 131 + 7);
    const size_t sizes[] = {0, 1, 63, 4095, 4096, 4097, 4111, 4112, 4160, 5000, 12345, 16384, 19000};
    int bad = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si)
        for (int so = 0; so < 16; so += 3)
            for (int doff = 0; doff < 16; ++doff) {
                size_t n = sizes[si];
                memset(dst, 0xA5, MAXN + 2 * GUARD);
                mbc_stream_copy(dst + GUARD + doff, src + GUARD + so, n);
                for (size_t i = 0; i < MAXN + 2 * GUARD && bad < 5; ++i) {
                    int inside = i >= (size_t)(GUARD + doff) && i < GUARD + doff + n;
                    unsigned char want = inside ? src[i - doff + so] : 0xA5;
                    if (dst[i] != want) {
                        ++bad;
                        CHECKF(0, "stream copy n=%zu src+%d dst+%d: byte %zu is %d, want %d", n,
                               so, doff, i, dst[i], want);
                    }
                }
            }
    CHECK(bad == 0);
    free(src), free(dst);
}

/* ---- other stacks ---- */

/* One reservation: its lowest STACK_BYTES are made accessible and serve as a fiber or signal
 * stack; far above them, still inaccessible, lies the "device" range. Both lie below the
 * thread's stack (anonymous mappings are placed below it), so the old range [frame, top of the
 * thread's stack) from the fiber covered the device range. */
enum { STACK_BYTES = 1 << 20, RES_BYTES = 64 << 20 };
static char *g_res;          /* the reservation */
static const char *g_dev;    /* a "device" address in it */
static int g_fiber_res[4];
static ucontext_t g_main_uc, g_fiber_uc;

static void on_fiber(void) {
    volatile float local[8];
    local[0] = 1.0f;
    g_fiber_res[0] = mbc_plain_host(g_dev);               /* must be 0 */
    g_fiber_res[1] = mbc_plain_host_known(g_dev);         /* must be 0 */
    g_fiber_res[2] = mbc_on_own_stack(g_dev);             /* must be 0 */
    g_fiber_res[3] = mbc_plain_host((const void *)&local[2]); /* 0 (unknown) is fine; 1 is not wrong either */
}

static volatile sig_atomic_t g_sig_res[3];
static void on_signal(int sig) {
    (void)sig;
    g_sig_res[0] = mbc_plain_host(g_dev);
    g_sig_res[1] = mbc_plain_host_known(g_dev);
    g_sig_res[2] = mbc_on_own_stack(g_dev);
}

static void run_on_fiber(void) {
    g_fiber_res[0] = g_fiber_res[1] = g_fiber_res[2] = -1;
    getcontext(&g_fiber_uc);
    g_fiber_uc.uc_stack.ss_sp = g_res;
    g_fiber_uc.uc_stack.ss_size = STACK_BYTES;
    g_fiber_uc.uc_link = &g_main_uc;
    makecontext(&g_fiber_uc, on_fiber, 0);
    CHECK(swapcontext(&g_main_uc, &g_fiber_uc) == 0);
}

static void *fiber_thread(void *arg) { /* a new thread: its stack range not looked up yet */
    (void)arg;
    run_on_fiber();
    int *r = (int *)malloc(3 * sizeof(int));
    if (r) memcpy(r, g_fiber_res, 3 * sizeof(int));
    return r;
}

static void test_other_stacks(void) {
    g_res = (char *)mmap(NULL, RES_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
    CHECK(g_res != MAP_FAILED);
    if (g_res == MAP_FAILED) return;
    CHECK(mprotect(g_res, STACK_BYTES, PROT_READ | PROT_WRITE) == 0);
    g_dev = g_res + RES_BYTES / 2;
    char here;
    CHECKF((uintptr_t)g_dev < (uintptr_t)&here, "the reservation %p lies above the stack %p",
           (void *)g_dev, (void *)&here);

    /* the main thread, its stack range known (main has called mbc_plain_host) */
    run_on_fiber();
    CHECKF(g_fiber_res[0] == 0 && g_fiber_res[1] == 0 && g_fiber_res[2] == 0,
           "from a fiber stack, a device-like address classified as host: %d %d %d",
           g_fiber_res[0], g_fiber_res[1], g_fiber_res[2]);
    /* a new thread whose first call is made on a fiber */
    pthread_t t;
    void *ret = NULL;
    CHECK(pthread_create(&t, NULL, fiber_thread, NULL) == 0);
    CHECK(pthread_join(t, &ret) == 0);
    if (ret) {
        const int *r = (const int *)ret;
        CHECKF(r[0] == 0 && r[1] == 0 && r[2] == 0,
               "first call of a thread from a fiber: %d %d %d", r[0], r[1], r[2]);
        free(ret);
    }

    /* an alternate signal stack in the same reservation */
    stack_t ss = {.ss_sp = g_res, .ss_size = STACK_BYTES, .ss_flags = 0}, old;
    CHECK(sigaltstack(&ss, &old) == 0);
    struct sigaction sa, olda;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGUSR1, &sa, &olda) == 0);
    g_sig_res[0] = g_sig_res[1] = g_sig_res[2] = -1;
    raise(SIGUSR1);
    CHECKF(g_sig_res[0] == 0 && g_sig_res[1] == 0 && g_sig_res[2] == 0,
           "from an alternate signal stack, a device-like address classified as host: %d %d %d",
           (int)g_sig_res[0], (int)g_sig_res[1], (int)g_sig_res[2]);
    sigaction(SIGUSR1, &olda, NULL);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, NULL);

    /* still right on the thread's own stack */
    float arr[4];
    arr[0] = 0;
    CHECK(mbc_plain_host(arr) == 1);
    CHECK(mbc_plain_host(arr + 3) == 1);

    /* readability: the accessible head yes, the reservation no, an extent ending in it no */
    CHECK(mbc_host_readable(g_res, 4096) == 1);
    CHECK(mbc_host_readable(g_res + STACK_BYTES - 8, 8) == 1);
    CHECK(mbc_host_readable(g_dev, 4) == 0);
    CHECK(mbc_host_readable(g_res + STACK_BYTES - 8, 16) == 0);
    CHECK(mbc_host_readable(arr, sizeof arr) == 1);
    CHECK(mbc_host_readable(g_static_bss, sizeof g_static_bss) == 1);
    munmap(g_res, RES_BYTES);
    CHECK(mbc_host_readable(g_res, 4) == 0); /* unmapped */
    CHECK(mbc_host_readable(NULL, 4) == 0);
    char *w = (char *)mmap(NULL, 8192, PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (w != MAP_FAILED) { /* write-only is readable on x86 (no such protection); just no fault */
        (void)mbc_host_readable(w, 8192);
        munmap(w, 8192);
    }
}

int main(void) {
    test_pool();
    test_pool_width();
    test_stream_copy();
    mbc_ptr_init();
    float stack_arr[256];
    stack_arr[0] = 0.0f;
    CHECK(mbc_plain_host(stack_arr) == 1);
    CHECK(mbc_plain_host(stack_arr + 255) == 1);
    CHECK(mbc_plain_host(g_static_data) == 1);
    CHECK(mbc_plain_host(g_static_bss + 1023) == 1);
    CHECK(mbc_plain_host(NULL) == 0);

    /* small mallocs come from the brk heap (the default M_MMAP_THRESHOLD is 128 KiB) */
    float *small = (float *)malloc(1000 * sizeof(float));
    CHECK(small != NULL);
    CHECKF(mbc_plain_host(small) == 1, "small malloc at %p", (void *)small);
    CHECK(mbc_plain_host(small + 999) == 1);
    free(small);

    /* an anonymous mapping, like CUDA's: never "plain host" */
    size_t len = 1 << 20;
    char *map = (char *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    if (map != MAP_FAILED) {
        CHECK(mbc_plain_host(map) == 0);
        CHECK(mbc_plain_host(map + len - 1) == 0);
        munmap(map, len);
    }
    /* a reserved, inaccessible range (CUDA reserves its address space this way) */
    char *res = (char *)mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (res != MAP_FAILED) {
        CHECK(mbc_plain_host(res + 4096) == 0);
        munmap(res, len);
    }
    /* a large malloc is mmap'd: unknown (the query decides) */
    char *big = (char *)malloc(64u << 20);
    if (big) {
        CHECK(mbc_plain_host(big + 4096) == 0);
        free(big);
    }

    pthread_t t;
    void *ret = NULL;
    CHECK(pthread_create(&t, NULL, other_thread, stack_arr) == 0);
    CHECK(pthread_join(t, &ret) == 0);
    if (ret) {
        const int *r = (const int *)ret;
        CHECK(r[0] == 1); /* a thread's own stack */
        CHECK(r[1] == 0); /* another thread's stack: unknown */
        free(ret);
    }
    test_other_stacks();
    return cpu_check_report("test_cblas_ptr_cpu");
}
