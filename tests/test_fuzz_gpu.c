/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GPU fuzzer: random calls of every op against references computed here in plain C loops.
 *
 * Built twice from this file:
 *   test_fuzz_gpu        the native API (miniblas_*, device-accessible pointers), 8 host
 *                        threads each with its own handle (half of them on their own stream),
 *                        a random rung (full precision) or auto per call;
 *   test_fuzz_cblas_gpu  (-DMB_FUZZ_CBLAS, tests/fuzz_gpu.cmake) the drop-in cblas_* of
 *                        libminiblas_cblas from 8 threads, GPU path forced, linked against
 *                        libminiblas_cblas only (OpenBLAS's cblas_* would clash).
 * Both exit 77 without a GPU. `test_fuzz_gpu --selftest` (a CPU test) runs the same case
 * generator and checks against a plain C stand-in for the library on host memory, so the
 * oracle itself is tested on any machine.
 *
 * Each call draws: the op (s/d gemm, omatcopy, asum, dot; native: host- or device-result
 * reductions), shapes (0, 1, small, odd, around tile edges 16/32/64/128/256), layouts,
 * transposes (111..114), padded leading dimensions, increments (negative, zero, large), alpha
 * and beta in {0, 1, -1, 0.5, 2, random, NaN, +-Inf}, IEEE specials in the inputs (NaN, +-Inf,
 * +-0, subnormals), pointers offset by 0, 1 or 2 elements, and the memory kind of every operand:
 * heap, mmap, pinned (cudaMallocHost), registered (cudaHostRegister), device, managed (native:
 * heap and mmap only where the GPU can access pageable memory). About one call in eight is
 * invalid (one bad argument: layout, transpose, size, leading dimension, NULL pointer,
 * int64_t extent overflow).
 *
 * Checks: every element of the output against the reference with a bound from the problem
 * (gemm: 2 (k + 2) eps sum|a||b| |alpha| + 2 eps (|alpha S| + |beta c|) + subnormal quanta;
 * reductions: 2 (n + 2) eps sum|terms|; omatcopy: exact), the Inf/NaN class of every element
 * (every class the bound allows; with alpha = +-Inf also NaN, as BLAS implementations that
 * distribute alpha over the terms give), outputs poisoned with a NaN sentinel fully written,
 * padding and guard elements around every output bit-for-bit untouched, beta = 0 never reads
 * C, alpha = 0 never reads A or B; invalid calls: the right status and parameter number
 * (cblas: through the program's cblas_xerbla, reference CBLAS's numbering, which for row-major
 * gemm is that of the swapped column-major call) and nothing written.
 *
 * sgemm: on Hopper `auto` picks 3xTF32, which does not yet handle every FP32 input, so by
 * default sgemm inputs get only the specials it handles (NaN, +-0); MINIBLAS_FUZZ_SGEMM_SPECIALS=1
 * gives sgemm the full set (+-Inf, subnormals) too.
 *
 * Environment: MINIBLAS_FUZZ_SECONDS (default 40; quick mode 15), MINIBLAS_FUZZ_SEED (replay
 * the same case streams), MINIBLAS_FUZZ_THREADS (default 8), MINIBLAS_FUZZ_CALLS (a cap on
 * calls, all threads), MINIBLAS_FUZZ_CASE=0x... (replay one case, one thread, printed with
 * every failure), MINIBLAS_TEST_QUICK=1 (smaller shapes, for compute-sanitizer).
 * Prints the seed and the counts: calls, invalid calls, threads, per op and per memory kind.
 */
#define _GNU_SOURCE
#include "fuzz_gpu.h"

/* ------------------------------------------------------------------ settings, counters */

const char *const op_names[2][OP_KINDS] = {{"sgemm", "somatcopy", "sasum", "sdot"},
                                                   {"dgemm", "domatcopy", "dasum", "ddot"}};
const char *const kind_names[K_COUNT] = {"heap", "mmap", "pinned", "registered", "device",
                                                "managed"};

uint64_t g_seed;
double g_seconds;
int g_threads = 8, g_quick, g_selftest, g_sgemm_specials, g_pageable_ok;
long g_max_calls = -1;
int g_kind_ok[K_COUNT];
double g_t0;

long g_calls, g_invalid, g_failures, g_printed, g_fatal;
long g_op_calls[2][OP_KINDS], g_kind_uses[K_COUNT];
pthread_mutex_t g_print_lock = PTHREAD_MUTEX_INITIALIZER;

/* ------------------------------------------------------------------ one case */

#ifndef MB_FUZZ_CBLAS
/* A random rung (full precision, runnable here) or auto for the op on this handle. */
static void pick_rung(worker *w, rng *r, miniblas_op_t op) {
    const char *name = "auto";
    if (chance(r, 30)) {
        int cnt = miniblas_rung_count(op), i = rint_(r, cnt > 0 ? cnt : 1);
        unsigned fl = miniblas_rung_flags(op, i);
        if (cnt > 0 && !(fl & MINIBLAS_RUNG_REDUCED_PRECISION) &&
            miniblas_rung_supported(w->h, op, miniblas_rung_name(op, i)) == MINIBLAS_STATUS_SUCCESS)
            name = miniblas_rung_name(op, i);
    }
    w->rung = name;
    if (miniblas_set_rung(w->h, op, name) != MINIBLAS_STATUS_SUCCESS) {
        fcase fc;
        memset(&fc, 0, sizeof fc);
        fc.w = w;
        snprintf(fc.what, sizeof fc.what, "miniblas_set_rung(%s, %s)", miniblas_op_name(op), name);
        report(&fc, "%s", miniblas_last_error(w->h));
    }
}
#endif

static void run_case(worker *w, uint64_t seed) {
    rng r = {seed};
    fcase fc;
    memset(&fc, 0, sizeof fc);
    fc.w = w, fc.seed = seed;
    fc.dbl = rint_(&r, 2);
    fc.op = rint_(&r, OP_KINDS);
    add(&g_op_calls[fc.dbl][fc.op], 1);
    switch (fc.op) {
    case OP_GEMM: case_gemm(&fc, &r); break;
    case OP_OMATCOPY: case_omatcopy(&fc, &r); break;
    case OP_ASUM: case_reduce(&fc, &r, 0); break;
    default: case_reduce(&fc, &r, 1); break;
    }
    add(&g_calls, 1);
}

#ifndef MB_FUZZ_CBLAS
/* Native: the op's draw of run_case (same seed), then a rung for that op, then the case. */
static void run_case_native(worker *w, uint64_t seed) {
    if (!g_selftest) {
        rng r = {seed};
        int dbl = rint_(&r, 2), op = rint_(&r, OP_KINDS);
        static const miniblas_op_t ops[2][OP_KINDS] = {
            {MINIBLAS_OP_SGEMM, MINIBLAS_OP_SOMATCOPY, MINIBLAS_OP_SASUM, MINIBLAS_OP_SDOT},
            {MINIBLAS_OP_DGEMM, MINIBLAS_OP_DOMATCOPY, MINIBLAS_OP_DASUM, MINIBLAS_OP_DDOT}};
        rng rr = {seed ^ 0x52554E47ull};
        pick_rung(w, &rr, ops[dbl][op]);
    }
    run_case(w, seed);
}
#endif

/* ------------------------------------------------------------------ threads */

static int time_left(void) {
    if (get(&g_fatal)) return 0;
    if (g_max_calls >= 0 && get(&g_calls) >= g_max_calls) return 0;
    return now_s() - g_t0 < g_seconds;
}

static void *worker_main(void *arg) {
    worker *w = arg;
#ifndef MB_FUZZ_CBLAS
    if (!g_selftest) {
        miniblas_status_t st = miniblas_create(&w->h);
        if (st != MINIBLAS_STATUS_SUCCESS) {
            fcase fc = {w, 0, 0, 0, "miniblas_create", 0};
            report(&fc, "%s: %s", miniblas_status_string(st), miniblas_last_create_error());
            add(&g_fatal, 1);
            return NULL;
        }
        if (w->id % 2 == 1) { /* half the threads on their own stream */
            if (cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking) != cudaSuccess ||
                miniblas_set_stream(w->h, w->stream) != MINIBLAS_STATUS_SUCCESS) {
                fcase fc = {w, 0, 0, 0, "stream", 0};
                report(&fc, "creating / setting a stream failed");
                add(&g_fatal, 1);
                return NULL;
            }
        }
    }
#endif
    while (time_left()) {
        uint64_t seed = rnext(&w->r);
#ifdef MB_FUZZ_CBLAS
        run_case(w, seed);
#else
        run_case_native(w, seed);
#endif
        ++w->calls;
    }
#ifndef MB_FUZZ_CBLAS
    if (w->h) miniblas_destroy(w->h);
    if (w->stream) cudaStreamDestroy(w->stream);
#endif
    return NULL;
}

static long env_long(const char *name, long dflt) {
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 0) : dflt;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
#ifndef MB_FUZZ_CBLAS
    g_selftest = argc > 1 && strcmp(argv[1], "--selftest") == 0;
#else
    (void)argc, (void)argv;
#endif
    const char *q = getenv("MINIBLAS_TEST_QUICK");
    g_quick = q && *q && strcmp(q, "0") != 0;
    const char *sgs = getenv("MINIBLAS_FUZZ_SGEMM_SPECIALS");
    g_sgemm_specials = sgs && *sgs && strcmp(sgs, "0") != 0;
    g_seconds = (double)env_long("MINIBLAS_FUZZ_SECONDS", g_selftest ? 5 : g_quick ? 15 : 40);
    g_threads = (int)env_long("MINIBLAS_FUZZ_THREADS", g_selftest ? 2 : 8);
    if (g_threads < 1) g_threads = 1;
    if (g_threads > 64) g_threads = 64;
    g_max_calls = env_long("MINIBLAS_FUZZ_CALLS", g_selftest ? 3000 : -1);
    const char *s = getenv("MINIBLAS_FUZZ_SEED");
    g_seed = s && *s ? strtoull(s, NULL, 0)
                     : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^ (uint64_t)clock();
    const char *one = getenv("MINIBLAS_FUZZ_CASE");

    if (g_selftest) {
        g_kind_ok[K_HEAP] = g_kind_ok[K_MMAP] = 1;
        /* the stand-in reduces in the same precision, in order: same bounds as the GPU */
        g_sgemm_specials = 1;
    } else {
        int ndev = 0;
        if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
            printf("no CUDA device: skipped\n");
            return 77;
        }
        int dev = 0, pageable = 0;
        struct cudaDeviceProp prop;
        if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
            printf("cannot query the device\n");
            return 1;
        }
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev);
        g_pageable_ok = pageable;
        for (int k = 0; k < K_COUNT; ++k) g_kind_ok[k] = 1;
#ifndef MB_FUZZ_CBLAS
        /* native: every pointer must be device-accessible */
        if (!g_pageable_ok) g_kind_ok[K_HEAP] = g_kind_ok[K_MMAP] = 0;
#else
        unsetenv("MINIBLAS_SGEMM"); /* the environment must not pick rungs for the layer */
        miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU);
        if (!miniblas_cblas_gpu_available()) {
            printf("libminiblas_cblas found no usable GPU (MINIBLAS_CBLAS_GPU=0?): skipped\n");
            return 77;
        }
#endif
        printf("%s: device %d %s (cc %d.%d), pageable memory access %s\n", FUZZ_NAME, dev,
               prop.name, prop.major, prop.minor, g_pageable_ok ? "yes" : "no");
    }
#ifndef MB_FUZZ_CBLAS
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) { /* auto must mean auto */
        char var[64];
        snprintf(var, sizeof var, "MINIBLAS_%s", miniblas_op_name((miniblas_op_t)op));
        for (char *c = var; *c; ++c)
            if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
        unsetenv(var);
    }
    unsetenv("MINIBLAS_MATH_MODE");
#endif
    g_t0 = now_s();
    if (one && *one) { /* one case, one thread */
        worker w;
        memset(&w, 0, sizeof w);
        uint64_t cs = strtoull(one, NULL, 0);
        printf("%s: replaying case 0x%016" PRIx64 "%s\n", FUZZ_NAME, cs,
               g_selftest ? " (self-test)" : "");
#ifndef MB_FUZZ_CBLAS
        if (!g_selftest) {
            if (miniblas_create(&w.h) != MINIBLAS_STATUS_SUCCESS) {
                printf("miniblas_create: %s\n", miniblas_last_create_error());
                return 1;
            }
        }
        run_case_native(&w, cs);
        if (w.h) miniblas_destroy(w.h);
#else
        run_case(&w, cs);
#endif
        printf("%s: %ld failures\n", FUZZ_NAME, get(&g_failures));
        return get(&g_failures) ? 1 : 0;
    }
    printf("%s: seed %" PRIu64 " (replay: MINIBLAS_FUZZ_SEED=%" PRIu64 "), %d threads, %.0f s%s%s%s\n",
           FUZZ_NAME, g_seed, g_seed, g_threads, g_seconds, g_quick ? ", quick" : "",
           g_selftest ? ", SELF-TEST of the oracle (plain C stand-in, host memory)" : "",
           g_sgemm_specials ? ", sgemm with every special" : ", sgemm specials limited to NaN and +-0");
    worker *ws = calloc((size_t)g_threads, sizeof *ws);
    pthread_t *th = calloc((size_t)g_threads, sizeof *th);
    if (!ws || !th) return 1;
    rng master = {g_seed};
    for (int i = 0; i < g_threads; ++i) {
        ws[i].id = i;
        ws[i].r.s = rnext(&master);
        if (pthread_create(&th[i], NULL, worker_main, &ws[i]) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    }
    for (int i = 0; i < g_threads; ++i) pthread_join(th[i], NULL);
    const double secs = now_s() - g_t0;
    printf("%s: %ld calls (%ld invalid) from %d threads in %.1f s; per thread:", FUZZ_NAME,
           get(&g_calls), get(&g_invalid), g_threads, secs);
    for (int i = 0; i < g_threads; ++i) printf(" %ld", ws[i].calls);
    printf("\n  per op:");
    for (int d = 0; d < 2; ++d)
        for (int o = 0; o < OP_KINDS; ++o) printf(" %s %ld", op_names[d][o], get(&g_op_calls[d][o]));
    printf("\n  operand buffers per memory kind:");
    for (int k = 0; k < K_COUNT; ++k)
        printf(" %s %ld%s", kind_names[k], get(&g_kind_uses[k]), g_kind_ok[k] ? "" : " (n/a here)");
    printf("\n");
    if (get(&g_printed) > 60) printf("(%ld failure messages not printed)\n", get(&g_printed) - 60);
    printf("%s: seed %" PRIu64 ", %ld calls, %ld invalid, %d threads: %ld failures%s\n", FUZZ_NAME,
           g_seed, get(&g_calls), get(&g_invalid), g_threads, get(&g_failures),
           get(&g_fatal) ? " (stopped early on a fatal error)" : "");
    free(ws);
    free(th);
    return get(&g_failures) ? 1 : 0;
}
