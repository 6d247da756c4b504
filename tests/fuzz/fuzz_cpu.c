/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * CPU fuzzer of every entry point of the argument check (src/check.h) and of libminiblas_cblas
 * (cblas_{s,d}{gemm,asum,dot,omatcopy}, {s,d}{gemm,asum,dot}_), valid and invalid arguments,
 * against an independent model of the documented rules and against OpenBLAS (dlopen'ed).
 * Built by tests/fuzz.cmake with the layer's sources compiled in, under ASan and UBSan.
 *
 * Each call: operands in mmap'ed buffers between PROT_NONE pages (placed against the page
 * after or the page before, so any read or write outside the extent faults), inputs made
 * read-only, outputs poisoned with a NaN payload, leading-dimension padding checked untouched.
 *   - invalid arguments: exactly one cblas_xerbla (cblas entry points) / xerbla_ (Fortran)
 *     with the parameter number of the model, the routine's name, and every buffer bitwise
 *     unchanged. OpenBLAS, given the same call, is compared where it checks that argument;
 *     where it reports otherwise the difference is listed (not a failure: the model follows
 *     reference CBLAS, see check.h).
 *   - valid arguments: no xerbla, results against OpenBLAS (gemm within (k+4) eps sum|a||b|
 *     plus |beta c|; the NaN/Inf class equal), C = beta C exactly when alpha == 0 or k == 0,
 *     empty problems write nothing.
 *   - the check functions themselves with any int64_t values: their answer, the message's
 *     "(parameter N)" tail, and the fast forms (mb_*_surely_valid) never accepting a call the
 *     full check refuses.
 * Iteration i draws its arguments from (seed, i) alone, so a finding is replayed with
 * --seed S --from I --iters 1 (add --verbose to print each call).
 *   fuzz_cpu [--seed S] [--iters N [--max-seconds T]] [--seconds T] [--from I] [--verbose]
 * Environment: MINIBLAS_FUZZ_SEED, MINIBLAS_FUZZ_ITERS, MINIBLAS_FUZZ_SECONDS (arguments win).
 * Exit 0 when no finding, 1 otherwise.
 */
#define _GNU_SOURCE
#include "fuzz_cpu.h"

/* ------------------------------------------------------------------ driver */

static const char *entry_names[] = {
    "check functions", "cblas_sgemm", "cblas_dgemm", "sgemm_", "dgemm_", "cblas_sasum",
    "cblas_dasum", "cblas_sdot", "cblas_ddot", "sasum_", "dasum_", "sdot_", "ddot_",
    "cblas_somatcopy", "cblas_domatcopy"};
#define N_ENTRIES 15

static void one(uint64_t seed, int64_t i) {
    rng_t r = {seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(i + 1))};
    next(&r);
    int which = (int)rnd(&r, N_ENTRIES);
    g_iter = i;
    ++g_per_entry[which];
    switch (which) {
    case 0: fuzz_checks(&r); break;
    case 1: fuzz_gemm(&r, 0, 0); break;
    case 2: fuzz_gemm(&r, 1, 0); break;
    case 3: fuzz_gemm(&r, 0, 1); break;
    case 4: fuzz_gemm(&r, 1, 1); break;
    case 5: fuzz_reduce(&r, 0, 0, 0); break;
    case 6: fuzz_reduce(&r, 1, 0, 0); break;
    case 7: fuzz_reduce(&r, 0, 1, 0); break;
    case 8: fuzz_reduce(&r, 1, 1, 0); break;
    case 9: fuzz_reduce(&r, 0, 0, 1); break;
    case 10: fuzz_reduce(&r, 1, 0, 1); break;
    case 11: fuzz_reduce(&r, 0, 1, 1); break;
    case 12: fuzz_reduce(&r, 1, 1, 1); break;
    case 13: fuzz_omatcopy(&r, 0); break;
    default: fuzz_omatcopy(&r, 1); break;
    }
}

/* The harness itself: a read just past an operand placed against its trailing guard page, and
 * one just before an operand against its leading page, must fault (in a child process); and a
 * bad layout must reach the fuzzer's cblas_xerbla. A harness that cannot see these is useless. */
static int self_test(void) {
    for (int end = 0; end < 2; ++end) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 0; }
        if (pid == 0) {
            signal(SIGSEGV, SIG_DFL);
            gbuf b;
            gb_alloc(&b, 16, end, 0);
            volatile const char *p = end ? (const char *)b.data + 16 : (const char *)b.data - 1;
            (void)*p;
            _exit(0); /* no fault: the guard is missing */
        }
        int st = 0;
        waitpid(pid, &st, 0);
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
            fprintf(stderr, "fuzz_cpu: self-test: a read %s an operand did not fault\n", end ? "past" : "before");
            return 0;
        }
    }
    float a = 0;
    xe_reset();
    cblas_sgemm(0, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &a, 1, 0.0f, &a, 1);
    if (g_xe.n != 1 || g_xe.param != 1 || strcmp(g_xe.name, "cblas_sgemm")) {
        fprintf(stderr, "fuzz_cpu: self-test: a bad layout did not reach cblas_xerbla(1, \"cblas_sgemm\")\n");
        return 0;
    }
    return 1;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    const char *s;
    int64_t iters = (s = getenv("MINIBLAS_FUZZ_ITERS")) ? strtoll(s, NULL, 10) : 20000;
    double seconds = (s = getenv("MINIBLAS_FUZZ_SECONDS")) ? atof(s) : 0;
    int64_t from = 0;
    double max_seconds = 0; /* with --iters: stop early past this (a slow machine), saying so */
    int have_seed = 0;
    if ((s = getenv("MINIBLAS_FUZZ_SEED")) && s[0]) g_seed = strtoull(s, NULL, 0), have_seed = 1;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) g_seed = strtoull(argv[++i], NULL, 0), have_seed = 1;
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc) max_seconds = atof(argv[++i]);
        else if (!strcmp(argv[i], "--from") && i + 1 < argc) from = strtoll(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--verbose")) g_verbose = 1;
        else {
            fprintf(stderr, "usage: %s [--seed S] [--iters N] [--max-seconds T] [--seconds T] [--from I] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    if (!have_seed) g_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    printf("fuzz_cpu: seed %" PRIu64 " (replay: --seed %" PRIu64 " --from I --iters 1 --verbose)\n", g_seed, g_seed);
    if (!load_openblas()) {
        fprintf(stderr, "fuzz_cpu: OpenBLAS (the reference) could not be loaded\n");
        return 1;
    }
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_CPU);
    const char *cpu = miniblas_cblas_cpu_blas();
    printf("fuzz_cpu: layer's CPU BLAS %s, GPU %s; %s\n", cpu ? cpu : "none",
           miniblas_cblas_gpu_available() ? "available (forced off: CPU path)" : "none",
           seconds > 0 ? "time-bounded" : "iteration-bounded");
    if (!cpu) {
        fprintf(stderr, "fuzz_cpu: the layer loaded no CPU BLAS\n");
        return 1;
    }
    if (!self_test()) return 1;
    printf("fuzz_cpu: self-test passed (guard pages fault, xerbla captured); sanitizers: %s\n",
           getenv("MINIBLAS_FUZZ_SANITIZERS") ? getenv("MINIBLAS_FUZZ_SANITIZERS") : "see the build");
    double t0 = now();
    int64_t i = from, done_iters = 0;
    int cut = 0;
    for (; seconds > 0 ? (now() - t0 < seconds) : (i < from + iters); ++i, ++done_iters) {
        if (max_seconds > 0 && (done_iters & 255) == 0 && now() - t0 > max_seconds) {
            cut = 1;
            break;
        }
        one(g_seed, i);
    }
    double dt = now() - t0;
    if (cut)
        printf("fuzz_cpu: stopped after %.0f s (--max-seconds) before the %" PRId64 " iterations asked\n",
               max_seconds, iters);

    printf("fuzz_cpu: %" PRId64 " iterations (%" PRId64 "..%" PRId64 ") in %.1f s: %ld library calls "
           "(%ld valid, %ld invalid), %ld check-function calls\n",
           done_iters, from, i - 1, dt, g_calls, g_valid, g_invalid, g_check_calls);
    printf("fuzz_cpu: iterations per entry point:");
    for (int k = 0; k < N_ENTRIES; ++k) printf(" %s %ld%s", entry_names[k], g_per_entry[k], k + 1 < N_ENTRIES ? "," : "\n");
    if (g_div_count) {
        printf("fuzz_cpu: %ld calls where OpenBLAS differs from the rules the layer follows (not failures):\n", g_div_count);
        for (int k = 0; k < MAX_DIV && g_div[k].key[0]; ++k)
            printf("    %6ld x %s\n           e.g. %s\n", g_div[k].n, g_div[k].key, g_div[k].example);
    }
    int rc = g_findings ? 1 : 0;
    if (g_findings)
        printf("fuzz_cpu: %ld FINDINGS (first ones above on stderr; seed %" PRIu64 ")\n", g_findings, g_seed);
    else
        printf("fuzz_cpu: no finding\n");
    return rc;
}

