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
#include <dlfcn.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cblas.h> /* OpenBLAS's: the signatures the layer exports */
#include "check.h"
#include "miniblas_cblas.h"

/* The layer's Fortran entry points (gfortran convention), as src/cblas/entry.c defines them. */
void sgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const float *, const float *, const blasint *, const float *, const blasint *,
            const float *, float *, const blasint *, size_t, size_t);
void dgemm_(const char *, const char *, const blasint *, const blasint *, const blasint *,
            const double *, const double *, const blasint *, const double *, const blasint *,
            const double *, double *, const blasint *, size_t, size_t);
float sasum_(const blasint *, const float *, const blasint *);
double dasum_(const blasint *, const double *, const blasint *);
float sdot_(const blasint *, const float *, const blasint *, const float *, const blasint *);
double ddot_(const blasint *, const double *, const blasint *, const double *, const blasint *);

#ifndef FUZZ_CPU_BLAS_PATH
#define FUZZ_CPU_BLAS_PATH ""
#endif

/* ------------------------------------------------------------------ random numbers */

typedef struct { uint64_t s; } rng_t;
static uint64_t next(rng_t *r) { /* splitmix64 */
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int64_t rnd(rng_t *r, int64_t n) { return n > 0 ? (int64_t)(next(r) % (uint64_t)n) : 0; }
static int chance(rng_t *r, int percent) { return rnd(r, 100) < percent; }
static double unif(rng_t *r) { return (double)(next(r) >> 11) * 0x1.0p-53 * 2.0 - 1.0; }

/* ------------------------------------------------------------------ bookkeeping */

static int g_verbose;
static uint64_t g_seed;
static int64_t g_iter;
static char g_call[400]; /* the call being made, for messages */
static long g_findings, g_calls, g_invalid, g_valid, g_check_calls;
static long g_per_entry[16], g_div_count;

static void finding(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ++g_findings;
    if (g_findings <= 40) {
        fprintf(stderr, "FINDING (seed %" PRIu64 " iteration %" PRId64 "): %s: ", g_seed, g_iter,
                g_call);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

/* Divergences from OpenBLAS that are not failures: counted by kind, the first of each shown. */
#define MAX_DIV 64
static struct { char key[160]; long n; char example[400]; } g_div[MAX_DIV];
static void divergence(const char *key) {
    ++g_div_count;
    for (int i = 0; i < MAX_DIV; ++i) {
        if (!g_div[i].key[0]) {
            snprintf(g_div[i].key, sizeof g_div[i].key, "%s", key);
            snprintf(g_div[i].example, sizeof g_div[i].example, "%s", g_call);
        }
        if (!strcmp(g_div[i].key, key)) { ++g_div[i].n; return; }
    }
}

/* ------------------------------------------------------------------ xerbla capture */

static struct { int n; int param; char name[40]; int fortran; } g_xe;
static void xe_reset(void) { memset(&g_xe, 0, sizeof g_xe); }

/* Ours (the layer calls the program's cblas_xerbla) and OpenBLAS's (it calls xerbla_). */
void cblas_xerbla(blasint p, char *rout, char *form, ...) {
    (void)form;
    if (g_xe.n++ == 0) {
        g_xe.param = (int)p;
        snprintf(g_xe.name, sizeof g_xe.name, "%s", rout ? rout : "");
        g_xe.fortran = 0;
    }
}
void xerbla_(const char *name, const blasint *info, size_t len) {
    if (g_xe.n++ == 0) {
        g_xe.param = (int)*info;
        snprintf(g_xe.name, sizeof g_xe.name, "%.*s", (int)(len < 39 ? len : 39), name);
        g_xe.fortran = 1;
    }
}

/* ------------------------------------------------------------------ OpenBLAS, the reference */

static struct {
    void *h;
    __typeof__(&cblas_sgemm) sgemm;
    __typeof__(&cblas_dgemm) dgemm;
    __typeof__(&cblas_sasum) sasum;
    __typeof__(&cblas_dasum) dasum;
    __typeof__(&cblas_sdot) sdot;
    __typeof__(&cblas_ddot) ddot;
    __typeof__(&cblas_somatcopy) somatcopy;
    __typeof__(&cblas_domatcopy) domatcopy;
    void (*sgemm_)(const char *, const char *, const blasint *, const blasint *, const blasint *,
                   const float *, const float *, const blasint *, const float *, const blasint *,
                   const float *, float *, const blasint *, size_t, size_t);
    void (*dgemm_)(const char *, const char *, const blasint *, const blasint *, const blasint *,
                   const double *, const double *, const blasint *, const double *,
                   const blasint *, const double *, double *, const blasint *, size_t, size_t);
} ob;

static int load_openblas(void) {
    const char *names[] = {getenv("MINIBLAS_CPU_BLAS_LIB"), "libopenblas.so.0", FUZZ_CPU_BLAS_PATH};
    for (int i = 0; i < 3 && !ob.h; ++i)
        if (names[i] && names[i][0]) ob.h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!ob.h) return 0;
#define GET(f, s) ob.f = (__typeof__(ob.f))dlsym(ob.h, s)
    GET(sgemm, "cblas_sgemm");
    GET(dgemm, "cblas_dgemm");
    GET(sasum, "cblas_sasum");
    GET(dasum, "cblas_dasum");
    GET(sdot, "cblas_sdot");
    GET(ddot, "cblas_ddot");
    GET(somatcopy, "cblas_somatcopy");
    GET(domatcopy, "cblas_domatcopy");
    GET(sgemm_, "sgemm_");
    GET(dgemm_, "dgemm_");
#undef GET
    return ob.sgemm && ob.dgemm && ob.sasum && ob.dasum && ob.sdot && ob.ddot && ob.somatcopy &&
           ob.domatcopy && ob.sgemm_ && ob.dgemm_;
}

/* ------------------------------------------------------------------ guarded buffers */

static size_t g_page;
typedef struct {
    char *map;
    size_t maplen;
    void *data;  /* the operand's first byte */
    size_t bytes;
    void *saved; /* a copy of data, to prove nothing changed */
    int heap;    /* plain malloc with poisoned margins instead of guard pages */
} gbuf;

#define HEAP_MARGIN 64 /* bytes of poison before and after a heap operand */
static const unsigned char MARGIN_BYTE = 0xA5;

/* A buffer of bytes (may be 0). Placement: against the trailing guard page (end = 1), or the
 * leading one (end = 0), or in malloc'd memory with poisoned margins (heap = 1: the layer's
 * quick paths look for the brk heap). */
static void gb_alloc(gbuf *g, size_t bytes, int end, int heap) {
    memset(g, 0, sizeof *g);
    g->bytes = bytes;
    if (heap) {
        g->heap = 1;
        g->map = malloc(bytes + 2 * HEAP_MARGIN);
        if (!g->map) { perror("malloc"); exit(2); }
        memset(g->map, MARGIN_BYTE, bytes + 2 * HEAP_MARGIN);
        g->data = g->map + HEAP_MARGIN;
        return;
    }
    size_t span = (bytes + g_page - 1) / g_page * g_page;
    if (span == 0) span = g_page;
    g->maplen = span + 2 * g_page;
    g->map = mmap(NULL, g->maplen, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) { perror("mmap"); exit(2); }
    if (mprotect(g->map + g_page, span, PROT_READ | PROT_WRITE)) { perror("mprotect"); exit(2); }
    g->data = (end || bytes == 0) ? g->map + g_page + span - bytes : g->map + g_page;
}
static void gb_readonly(gbuf *g) {
    if (!g->heap && g->bytes)
        mprotect(g->map + g_page, g->maplen - 2 * g_page, PROT_READ);
}
static void gb_save(gbuf *g) {
    g->saved = malloc(g->bytes ? g->bytes : 1);
    if (!g->saved) { perror("malloc"); exit(2); }
    memcpy(g->saved, g->data, g->bytes);
}
static int gb_margins_ok(const gbuf *g) {
    if (!g->heap) return 1;
    for (size_t i = 0; i < HEAP_MARGIN; ++i)
        if ((unsigned char)g->map[i] != MARGIN_BYTE ||
            (unsigned char)g->map[HEAP_MARGIN + g->bytes + i] != MARGIN_BYTE)
            return 0;
    return 1;
}
static int gb_unchanged(const gbuf *g) { return !memcmp(g->saved, g->data, g->bytes) && gb_margins_ok(g); }
static void gb_free(gbuf *g) {
    if (g->heap) free(g->map);
    else if (g->map) munmap(g->map, g->maplen);
    free(g->saved);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ values */

/* The poison of outputs: a quiet NaN with a payload no computation produces. */
static const uint32_t POISON_F = 0x7fc0dead;
static const uint64_t POISON_D = 0x7ff8deadbeefdeadull;

static double special_value(rng_t *r) {
    switch (rnd(r, 9)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0;
    case 4: return 1e-40;  /* subnormal float */
    case 5: return 1e-310; /* subnormal double */
    case 6: return 3e38;
    case 7: return 1e300;
    default: return 0.0;
    }
}
static double scalar(rng_t *r) {
    switch (rnd(r, 12)) {
    case 0: case 1: return 0.0;
    case 2: case 3: return 1.0;
    case 4: return -1.0;
    case 5: return 0.5;
    case 6: return chance(r, 50) ? NAN : INFINITY;
    case 7: return -0.0;
    default: return unif(r) * 4.0;
    }
}
/* Fill n elements (with a stride: elements between are padding, poisoned) */
static void fill(rng_t *r, void *p, int dbl, size_t n, int specials) {
    for (size_t i = 0; i < n; ++i) {
        double v = specials && chance(r, 3) ? special_value(r) : unif(r);
        if (dbl) ((double *)p)[i] = v;
        else ((float *)p)[i] = (float)v;
    }
}
static void poison(void *p, int dbl, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (dbl) memcpy((double *)p + i, &POISON_D, 8);
        else memcpy((float *)p + i, &POISON_F, 4);
    }
}
static double get(const void *p, int dbl, int64_t i) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static int same_bits(const void *a, const void *b, int dbl, int64_t i) {
    return dbl ? !memcmp((const double *)a + i, (const double *)b + i, 8)
               : !memcmp((const float *)a + i, (const float *)b + i, 4);
}

/* ------------------------------------------------------------------ argument generators */

static int64_t gen_dim(rng_t *r) {
    int64_t v = rnd(r, 100);
    if (v < 60) return rnd(r, 9);
    if (v < 85) return rnd(r, 40);
    if (v < 91) return 40 + rnd(r, 100);
    if (v < 96) return -1 - rnd(r, 3);
    switch (rnd(r, 5)) {
    case 0: return INT_MIN;
    case 1: return INT_MAX;
    case 2: return (int64_t)1 << (20 + rnd(r, 11));
    case 3: return -(int64_t)rnd(r, 1000) - 1;
    default: return rnd(r, 3);
    }
}
static int64_t gen_ld(rng_t *r, int64_t need) {
    int64_t n1 = need > 1 ? need : 1;
    int64_t v = rnd(r, 100);
    if (v < 60) return n1 + rnd(r, 4);
    if (v < 70) return n1 + rnd(r, 60);
    if (v < 80) return n1 - 1 - rnd(r, 2); /* often invalid */
    if (v < 85) return 0;
    if (v < 90) return -rnd(r, 5);
    if (v < 95) return INT_MAX - rnd(r, 3);
    return (int64_t)1 << (16 + rnd(r, 14));
}
/* The same, within a blasint (the cblas and Fortran entry points) */
static int64_t gen_ld32(rng_t *r, int64_t need) {
    int64_t v = gen_ld(r, need);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : v;
}
static int gen_trans(rng_t *r) {
    static const int valid[] = {CblasNoTrans, CblasTrans, CblasConjTrans, 114};
    static const int invalid[] = {0, 110, 115, 101, 102, -1, 1000};
    return chance(r, 90) ? valid[rnd(r, 4)] : invalid[rnd(r, 7)];
}
static int gen_layout(rng_t *r) {
    static const int invalid[] = {0, 100, 103, 111, -1};
    return chance(r, 94) ? (chance(r, 50) ? CblasRowMajor : CblasColMajor) : invalid[rnd(r, 5)];
}
static int64_t gen_inc(rng_t *r) {
    int64_t v = rnd(r, 100);
    if (v < 50) return 1;
    if (v < 85) return (chance(r, 50) ? 1 : -1) * (1 + rnd(r, 4));
    if (v < 93) return 0;
    switch (rnd(r, 3)) {
    case 0: return INT_MAX;
    case 1: return INT_MIN;
    default: return (chance(r, 50) ? 1 : -1) * ((int64_t)1 << (10 + rnd(r, 20)));
    }
}
static char gen_ftrans(rng_t *r) {
    /* 'R' (conjugate, no transpose) is 'N' for real data, as in OpenBLAS (reference BLAS
     * refuses it) */
    static const char valid[] = "NnTtCcRr", invalid[] = "XxYy0 /";
    return chance(r, 90) ? valid[rnd(r, 8)] : invalid[rnd(r, 7)];
}

/* ------------------------------------------------------------------ the model (check.h) */

/* Element extent of a stored matrix: ld * (cols - 1) + rows; 0 when rows or cols is 0. In
 * __int128: any blasint or int64_t arguments fit. */
typedef __int128 i128;
static i128 mat_extent(int64_t rows, int64_t cols, int64_t ld) {
    if (rows <= 0 || cols <= 0) return 0;
    return (i128)ld * (cols - 1) + rows;
}
static i128 vec_extent(int64_t n, int64_t inc) {
    if (n <= 0) return 0;
    i128 a = inc < 0 ? -(i128)inc : (i128)inc;
    return (i128)(n - 1) * a + 1;
}
static int overflows(i128 elems, size_t elem) {
    return elems > INT64_MAX || elems * (i128)elem > INT64_MAX;
}
static int trans_code(int t) {
    return t == 111 || t == 114 ? 0 : t == 112 || t == 113 ? 1 : -1;
}

typedef struct {
    int layout, ta, tb; /* raw values */
    int64_t m, n, k, lda, ldb, ldc;
    int alpha0;
    int a_null, b_null, c_null;
    size_t elem;
    /* derived: stored shapes (lead dimension bounded by ld, other) */
    int64_t a_lead, a_other, b_lead, b_other, c_lead, c_other;
} gemm_args;

/* The stored shapes for a valid layout and transposes. */
static void gemm_shapes(gemm_args *g) {
    int col = g->layout == CblasColMajor, ta = trans_code(g->ta), tb = trans_code(g->tb);
    int64_t ar = ta ? g->k : g->m, ac = ta ? g->m : g->k; /* op(A) is m x k: A is ar x ac */
    int64_t br = tb ? g->n : g->k, bc = tb ? g->k : g->n;
    if (col) {
        g->a_lead = ar, g->a_other = ac, g->b_lead = br, g->b_other = bc;
        g->c_lead = g->m, g->c_other = g->n;
    } else {
        g->a_lead = ac, g->a_other = ar, g->b_lead = bc, g->b_other = br;
        g->c_lead = g->n, g->c_other = g->m;
    }
}

/* The parameter number check.h documents (caller's numbering), 0 when valid. */
static int model_gemm(gemm_args *g) {
    if (g->layout != CblasRowMajor && g->layout != CblasColMajor) return 1;
    if (trans_code(g->ta) < 0) return 2;
    if (trans_code(g->tb) < 0) return 3;
    int col = g->layout == CblasColMajor;
    if (col) {
        if (g->m < 0) return 4;
        if (g->n < 0) return 5;
    } else {
        if (g->n < 0) return 5;
        if (g->m < 0) return 4;
    }
    if (g->k < 0) return 6;
    gemm_shapes(g);
    int64_t a1 = g->a_lead > 1 ? g->a_lead : 1, b1 = g->b_lead > 1 ? g->b_lead : 1,
            c1 = g->c_lead > 1 ? g->c_lead : 1;
    if (col) {
        if (g->lda < a1) return 9;
        if (g->ldb < b1) return 11;
    } else {
        if (g->ldb < b1) return 11;
        if (g->lda < a1) return 9;
    }
    if (g->ldc < c1) return 14;
    int ab = g->m > 0 && g->n > 0 && g->k > 0 && !g->alpha0, c = g->m > 0 && g->n > 0;
    if (ab && g->a_null) return 8;
    if (ab && g->b_null) return 10;
    if (c && g->c_null) return 13;
    if (ab && overflows(mat_extent(g->a_lead, g->a_other, g->lda), g->elem)) return 9;
    if (ab && overflows(mat_extent(g->b_lead, g->b_other, g->ldb), g->elem)) return 11;
    if (c && overflows(mat_extent(g->c_lead, g->c_other, g->ldc), g->elem)) return 14;
    return 0;
}
/* What cblas_xerbla receives: reference CBLAS's row-major gemm renumbering (the swapped
 * column-major call's positions: M 5, N 4, lda 11, ldb 9). */
static int rowmajor_swap(int p) {
    switch (p) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return p;
    }
}

typedef struct {
    int layout, trans;
    int64_t rows, cols, lda, ldb;
    int a_null, b_null;
    size_t elem;
    int64_t a_lead, a_other, b_lead, b_other;
} omat_args;

static int model_omatcopy(omat_args *o) {
    if (o->layout != CblasRowMajor && o->layout != CblasColMajor) return 1;
    if (trans_code(o->trans) < 0) return 2;
    if (o->rows < 0) return 3;
    if (o->cols < 0) return 4;
    int col = o->layout == CblasColMajor, t = trans_code(o->trans);
    o->a_lead = col ? o->rows : o->cols, o->a_other = col ? o->cols : o->rows;
    int b_rows = col ? !t : t;
    o->b_lead = b_rows ? o->rows : o->cols, o->b_other = b_rows ? o->cols : o->rows;
    if (o->lda < (o->a_lead > 1 ? o->a_lead : 1)) return 7;
    if (o->ldb < (o->b_lead > 1 ? o->b_lead : 1)) return 9;
    if (o->rows > 0 && o->cols > 0) {
        if (o->a_null) return 6;
        if (o->b_null) return 8;
        if (overflows(mat_extent(o->a_lead, o->a_other, o->lda), o->elem)) return 7;
        if (overflows(mat_extent(o->b_lead, o->b_other, o->ldb), o->elem)) return 9;
    }
    return 0;
}

static int model_asum(int64_t n, int x_null, int64_t incx, int res_null, size_t elem) {
    if (n > 0 && incx > 0) {
        if (x_null) return 2;
        if (incx == INT64_MIN || overflows(vec_extent(n, incx), elem)) return 3;
    }
    return res_null ? 4 : 0;
}
static int model_dot(int64_t n, int x_null, int64_t incx, int y_null, int64_t incy, int res_null,
                     size_t elem) {
    if (n > 0) {
        if (x_null) return 2;
        if ((n > 1 && incx == INT64_MIN) || overflows(vec_extent(n, incx), elem)) return 3;
        if (y_null) return 4;
        if ((n > 1 && incy == INT64_MIN) || overflows(vec_extent(n, incy), elem)) return 5;
    }
    return res_null ? 6 : 0;
}

/* ------------------------------------------------------------------ the check functions */

static int64_t gen_any64(rng_t *r) {
    switch (rnd(r, 10)) {
    case 0: return INT64_MIN;
    case 1: return INT64_MAX;
    case 2: return (int64_t)(next(r));
    case 3: return ((int64_t)1 << (rnd(r, 62))) + rnd(r, 3) - 1;
    case 4: return -rnd(r, 4);
    case 5: return MB_SURELY_LIM - 1 + rnd(r, 3);
    default: return rnd(r, 50);
    }
}

static void check_message(int p, const mb_check_error *e) {
    char tail[32];
    snprintf(tail, sizeof tail, "(parameter %d)", p);
    size_t ml = strlen(e->message), tl = strlen(tail);
    if (e->param != p) finding("err->param %d, returned %d", e->param, p);
    if (p && (ml < tl || strcmp(e->message + ml - tl, tail)))
        finding("message \"%s\" does not end with \"%s\"", e->message, tail);
    if (!p && e->message[0]) finding("valid call with a message \"%s\"", e->message);
}

static void fuzz_checks(rng_t *r) {
    static const size_t elems[] = {4, 8, 16};
    const void *P = &g_seed; /* any non-NULL pointer: the check never dereferences */
    mb_check_error e;
    /* gemm */
    gemm_args g = {0};
    int small = chance(r, 50);
    g.layout = gen_layout(r), g.ta = gen_trans(r), g.tb = gen_trans(r);
    g.m = small ? gen_dim(r) : gen_any64(r), g.n = small ? gen_dim(r) : gen_any64(r);
    g.k = small ? gen_dim(r) : gen_any64(r);
    g.lda = small ? gen_ld(r, g.m) : gen_any64(r), g.ldb = small ? gen_ld(r, g.k) : gen_any64(r);
    g.ldc = small ? gen_ld(r, g.m) : gen_any64(r);
    g.alpha0 = chance(r, 15), g.a_null = chance(r, 5), g.b_null = chance(r, 5), g.c_null = chance(r, 5);
    g.elem = elems[rnd(r, 3)];
    snprintf(g_call, sizeof g_call,
             "mb_check_gemm(%d, %d, %d, %" PRId64 ", %" PRId64 ", %" PRId64 ", alpha0=%d, A%s, %" PRId64
             ", B%s, %" PRId64 ", C%s, %" PRId64 ", elem %zu)",
             g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha0, g.a_null ? "=NULL" : "", g.lda,
             g.b_null ? "=NULL" : "", g.ldb, g.c_null ? "=NULL" : "", g.ldc, g.elem);
    int want = model_gemm(&g);
    int got = mb_check_gemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha0, g.a_null ? NULL : P,
                            g.lda, g.b_null ? NULL : P, g.ldb, 0, g.c_null ? NULL : P, g.ldc,
                            g.elem, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    if (mb_check_gemm(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.alpha0, g.a_null ? NULL : P, g.lda,
                      g.b_null ? NULL : P, g.ldb, 1, g.c_null ? NULL : P, g.ldc, g.elem, NULL) != got)
        finding("the answer depends on beta == 0 or on err == NULL");
    if (g.elem <= 16 &&
        mb_gemm_surely_valid(g.layout, g.ta, g.tb, g.m, g.n, g.k, g.a_null ? NULL : P, g.lda,
                             g.b_null ? NULL : P, g.ldb, g.c_null ? NULL : P, g.ldc) &&
        want != 0)
        finding("mb_gemm_surely_valid accepts a call the rules refuse (parameter %d)", want);
    /* omatcopy */
    omat_args o = {0};
    o.layout = gen_layout(r), o.trans = gen_trans(r);
    o.rows = small ? gen_dim(r) : gen_any64(r), o.cols = small ? gen_dim(r) : gen_any64(r);
    o.lda = small ? gen_ld(r, o.rows) : gen_any64(r), o.ldb = small ? gen_ld(r, o.cols) : gen_any64(r);
    o.a_null = chance(r, 5), o.b_null = chance(r, 5), o.elem = elems[rnd(r, 3)];
    snprintf(g_call, sizeof g_call,
             "mb_check_omatcopy(%d, %d, %" PRId64 ", %" PRId64 ", A%s, %" PRId64 ", B%s, %" PRId64
             ", elem %zu)",
             o.layout, o.trans, o.rows, o.cols, o.a_null ? "=NULL" : "", o.lda,
             o.b_null ? "=NULL" : "", o.ldb, o.elem);
    want = model_omatcopy(&o);
    got = mb_check_omatcopy(o.layout, o.trans, o.rows, o.cols, o.a_null ? NULL : P, o.lda,
                            o.b_null ? NULL : P, o.ldb, o.elem, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    if (o.elem <= 16 &&
        mb_omatcopy_surely_valid(o.layout, o.trans, o.rows, o.cols, o.a_null ? NULL : P, o.lda,
                                 o.b_null ? NULL : P, o.ldb) &&
        want != 0)
        finding("mb_omatcopy_surely_valid accepts a call the rules refuse (parameter %d)", want);
    /* asum, dot */
    int64_t n = small ? gen_dim(r) : gen_any64(r), ix = small ? gen_inc(r) : gen_any64(r),
            iy = small ? gen_inc(r) : gen_any64(r);
    int xn = chance(r, 5), yn = chance(r, 5), rn = chance(r, 5);
    size_t el = elems[rnd(r, 3)];
    snprintf(g_call, sizeof g_call, "mb_check_asum(%" PRId64 ", x%s, %" PRId64 ", result%s, elem %zu)",
             n, xn ? "=NULL" : "", ix, rn ? "=NULL" : "", el);
    want = model_asum(n, xn, ix, rn, el);
    got = mb_check_asum(n, xn ? NULL : P, ix, rn ? NULL : P, el, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    snprintf(g_call, sizeof g_call,
             "mb_check_dot(%" PRId64 ", x%s, %" PRId64 ", y%s, %" PRId64 ", result%s, elem %zu)", n,
             xn ? "=NULL" : "", ix, yn ? "=NULL" : "", iy, rn ? "=NULL" : "", el);
    want = model_dot(n, xn, ix, yn, iy, rn, el);
    got = mb_check_dot(n, xn ? NULL : P, ix, yn ? NULL : P, iy, rn ? NULL : P, el, &e);
    ++g_check_calls;
    if (got != want) finding("returned %d, the rules give %d", got, want);
    check_message(got, &e);
    int tc = (int)rnd(r, 120);
    if (mb_trans_code(tc) != trans_code(tc)) finding("mb_trans_code(%d) = %d", tc, mb_trans_code(tc));
}

/* ------------------------------------------------------------------ common call checks */

/* The xerbla expectation after a call: want == 0: none; else exactly one, with that number
 * and that routine name. Returns 1 when it matched. */
static int expect_xerbla(int want, const char *name, int fortran) {
    if (want == 0) {
        if (g_xe.n) finding("xerbla (%s, %d) on a valid call", g_xe.name, g_xe.param);
        return g_xe.n == 0;
    }
    if (g_xe.n != 1) {
        finding("%d xerbla calls where one with parameter %d was due", g_xe.n, want);
        return 0;
    }
    if (g_xe.fortran != fortran || strcmp(g_xe.name, name)) {
        finding("xerbla named \"%s\" (%s) where \"%s\" (%s) was due", g_xe.name,
                g_xe.fortran ? "xerbla_" : "cblas_xerbla", name, fortran ? "xerbla_" : "cblas_xerbla");
        return 0;
    }
    return g_xe.param == want;
}

static int64_t cap_elems = (int64_t)1 << 21; /* the largest operand a valid call may have */

/* Element count of a buffer for an operand of extent ext (valid calls: exactly ext; invalid
 * ones: whatever, small: nothing may be touched). */
static size_t buf_elems(rng_t *r, i128 ext, int valid) {
    if (valid) return (size_t)ext;
    if (ext <= 0) return 0;
    if (ext > 4096) return (size_t)rnd(r, 4096);
    return chance(r, 50) ? (size_t)ext : (size_t)rnd(r, (int64_t)ext + 1);
}

/* ------------------------------------------------------------------ gemm */

static void fuzz_gemm(rng_t *r, int dbl, int fortran) {
    gemm_args g = {0};
    double alpha = scalar(r), beta = scalar(r);
    char fta = 'N', ftb = 'N';
    if (fortran) {
        fta = gen_ftrans(r), ftb = gen_ftrans(r);
        g.layout = CblasColMajor;
        g.ta = strchr("Nn", fta) ? 111 : strchr("Tt", fta) ? 112 : strchr("Cc", fta) ? 113
             : strchr("Rr", fta) ? 114 : 0;
        g.tb = strchr("Nn", ftb) ? 111 : strchr("Tt", ftb) ? 112 : strchr("Cc", ftb) ? 113
             : strchr("Rr", ftb) ? 114 : 0;
    } else {
        g.layout = gen_layout(r), g.ta = gen_trans(r), g.tb = gen_trans(r);
    }
    g.m = gen_dim(r), g.n = gen_dim(r), g.k = gen_dim(r);
    {
        int ta = trans_code(g.ta), tb = trans_code(g.tb), col = g.layout != CblasRowMajor;
        int64_t ar = ta > 0 ? g.k : g.m, ac = ta > 0 ? g.m : g.k, br = tb > 0 ? g.n : g.k,
                bc = tb > 0 ? g.k : g.n;
        g.lda = gen_ld32(r, col ? ar : ac), g.ldb = gen_ld32(r, col ? br : bc);
        g.ldc = gen_ld32(r, col ? g.m : g.n);
    }
    g.alpha0 = alpha == 0;
    g.a_null = chance(r, 3), g.b_null = chance(r, 3), g.c_null = chance(r, 3);
    g.elem = dbl ? 8 : 4;
    int want = model_gemm(&g); /* caller's numbering */
    int valid = want == 0;
    i128 ea = 0, eb = 0, ec = 0;
    if (valid || want > 6) { /* layout, transposes and sizes valid: the shapes are known */
        ea = mat_extent(g.a_lead, g.a_other, g.lda), eb = mat_extent(g.b_lead, g.b_other, g.ldb);
        ec = mat_extent(g.c_lead, g.c_other, g.ldc);
    } else {
        ea = eb = ec = rnd(r, 64);
    }
    if (valid && (ea > cap_elems || eb > cap_elems || ec > cap_elems)) return; /* too large */
    if (fortran && (g.m > INT_MAX || g.n > INT_MAX)) return;
    ++g_calls;
    const char *name = fortran ? (dbl ? "DGEMM " : "SGEMM ") : (dbl ? "cblas_dgemm" : "cblas_sgemm");
    char tas[16], tbs[16];
    if (fortran) snprintf(tas, sizeof tas, "'%c'", fta), snprintf(tbs, sizeof tbs, "'%c'", ftb);
    else snprintf(tas, sizeof tas, "%d", g.ta), snprintf(tbs, sizeof tbs, "%d", g.tb);
    snprintf(g_call, sizeof g_call,
             "%s(%s%s, %s, %" PRId64 ", %" PRId64 ", %" PRId64 ", alpha=%g, A%s, lda=%" PRId64
             ", B%s, ldb=%" PRId64 ", beta=%g, C%s, ldc=%" PRId64 ")",
             fortran ? (dbl ? "dgemm_" : "sgemm_") : name, fortran ? "" : (g.layout == 101 ? "Row, " : g.layout == 102 ? "Col, " : "layout?, "),
             tas, tbs, g.m, g.n, g.k, alpha,
             g.a_null ? "=NULL" : "", g.lda, g.b_null ? "=NULL" : "", g.ldb, beta,
             g.c_null ? "=NULL" : "", g.ldc);
    if (g_verbose) fprintf(stderr, "[%" PRId64 "] %s\n", g_iter, g_call);
    int heap = chance(r, 15);
    gbuf A, B, C;
    size_t e = g.elem;
    gb_alloc(&A, buf_elems(r, ea, valid) * e, chance(r, 50), heap);
    gb_alloc(&B, buf_elems(r, eb, valid) * e, chance(r, 50), heap);
    gb_alloc(&C, buf_elems(r, ec, valid) * e, chance(r, 50), heap);
    int specials = chance(r, 15);
    fill(r, A.data, dbl, A.bytes / e, specials);
    fill(r, B.data, dbl, B.bytes / e, specials);
    poison(C.data, dbl, C.bytes / e);
    if (valid) /* the used part of C: values (beta == 0: NaN, which must not survive) */
        for (int64_t j = 0; j < g.c_other; ++j)
            for (int64_t i = 0; i < g.c_lead; ++i) {
                double v = beta == 0 ? NAN : (specials && chance(r, 3) ? special_value(r) : unif(r));
                if (dbl) ((double *)C.data)[i + j * g.ldc] = v;
                else ((float *)C.data)[i + j * g.ldc] = (float)v;
            }
    gb_save(&A), gb_save(&B), gb_save(&C);
    gb_readonly(&A), gb_readonly(&B);
    const void *pa = g.a_null ? NULL : A.data, *pb = g.b_null ? NULL : B.data;
    void *pc = g.c_null ? NULL : C.data;

    /* ours */
    xe_reset();
    if (fortran) {
        blasint M = (blasint)g.m, N = (blasint)g.n, K = (blasint)g.k, LDA = (blasint)g.lda,
                LDB = (blasint)g.ldb, LDC = (blasint)g.ldc;
        if (dbl) dgemm_(&fta, &ftb, &M, &N, &K, &alpha, pa, &LDA, pb, &LDB, &beta, pc, &LDC, 1, 1);
        else {
            float fa = (float)alpha, fb = (float)beta;
            sgemm_(&fta, &ftb, &M, &N, &K, &fa, pa, &LDA, pb, &LDB, &fb, pc, &LDC, 1, 1);
        }
    } else if (dbl) {
        cblas_dgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, alpha, pa,
                    (blasint)g.lda, pb, (blasint)g.ldb, beta, pc, (blasint)g.ldc);
    } else {
        cblas_sgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, (float)alpha,
                    pa, (blasint)g.lda, pb, (blasint)g.ldb, (float)beta, pc, (blasint)g.ldc);
    }
    int got_param = g_xe.param;
    int due = fortran ? (valid ? 0 : want - 1)
                      : (g.layout == CblasRowMajor ? rowmajor_swap(want) : want);
    if (!valid) {
        ++g_invalid;
        /* an extent that overflows int64_t (reference BLAS has no such check): either
         * numbering of the row-major call is accepted */
        int overflow_err = 0;
        if (want == 9 || want == 11 || want == 14) {
            int64_t need = want == 9 ? g.a_lead : want == 11 ? g.b_lead : g.c_lead;
            int64_t ld = want == 9 ? g.lda : want == 11 ? g.ldb : g.ldc;
            overflow_err = ld >= (need > 1 ? need : 1);
        }
        int rowmajor_swapped = !fortran && g.layout == CblasRowMajor && rowmajor_swap(want) != want &&
                               !overflow_err;
        if (overflow_err && !fortran && g.layout == CblasRowMajor && g_xe.n == 1 && got_param == want)
            due = want;
        if (!expect_xerbla(due, name, fortran) && g_xe.n == 1)
            finding("xerbla parameter %d, expected %d%s", got_param, due,
                    rowmajor_swapped && got_param == want ? " (the caller's number, not reference CBLAS's row-major one)" : "");
        if (!gb_unchanged(&A) || !gb_unchanged(&B) || !gb_unchanged(&C))
            finding("a buffer changed on an invalid call");
        /* OpenBLAS checks layout, transposes, sizes and leading dimensions (not NULL, nor
         * extents): the same call on plain copies as large as the extents, when small */
        int ob_checks = want >= 1 && want <= 6;
        if (want == 9 || want == 11 || want == 14) { /* an ld error, not an extent overflow */
            int64_t need = want == 9 ? g.a_lead : want == 11 ? g.b_lead : g.c_lead;
            int64_t ld = want == 9 ? g.lda : want == 11 ? g.ldb : g.ldc;
            ob_checks = ld < (need > 1 ? need : 1);
        }
        if (ob_checks && ea <= 4096 && eb <= 4096 && ec <= 4096) {
            size_t la = (size_t)(ea > 0 ? ea : 1) * e, lb = (size_t)(eb > 0 ? eb : 1) * e,
                   lc = (size_t)(ec > 0 ? ec : 1) * e;
            void *ca = calloc(1, la > A.bytes ? la : A.bytes + 1), *cb = calloc(1, lb > B.bytes ? lb : B.bytes + 1),
                 *cc = calloc(1, lc > C.bytes ? lc : C.bytes + 1);
            memcpy(ca, A.data, A.bytes), memcpy(cb, B.data, B.bytes), memcpy(cc, C.data, C.bytes);
            xe_reset();
            if (fortran) {
                blasint M = (blasint)g.m, N = (blasint)g.n, K = (blasint)g.k,
                        LDA = (blasint)g.lda, LDB = (blasint)g.ldb, LDC = (blasint)g.ldc;
                if (dbl) ob.dgemm_(&fta, &ftb, &M, &N, &K, &alpha, ca, &LDA, cb, &LDB, &beta, cc, &LDC, 1, 1);
                else {
                    float fa = (float)alpha, fb = (float)beta;
                    ob.sgemm_(&fta, &ftb, &M, &N, &K, &fa, ca, &LDA, cb, &LDB, &fb, cc, &LDC, 1, 1);
                }
            } else if (dbl) {
                ob.dgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, alpha, ca,
                         (blasint)g.lda, cb, (blasint)g.ldb, beta, cc, (blasint)g.ldc);
            } else {
                ob.sgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, (float)alpha,
                         ca, (blasint)g.lda, cb, (blasint)g.ldb, (float)beta, cc, (blasint)g.ldc);
            }
            /* OpenBLAS's xerbla_ gets the Fortran number; cblas numbers are one more */
            int obp = g_xe.n ? g_xe.param + (fortran ? 0 : 1) : 0;
            if (!g_xe.n || obp != due) {
                char key[160];
                snprintf(key, sizeof key, "%s%s: OpenBLAS reports %d%s where the rules give %d",
                         name, fortran ? "" : (g.layout == 101 ? " row-major" : g.layout == 102 ? " col-major" : " bad layout"),
                         obp, g_xe.n ? "" : " (no xerbla)", due);
                divergence(key);
            }
            free(ca), free(cb), free(cc);
        }
        goto out;
    }
    ++g_valid;
    expect_xerbla(0, name, fortran);
    if (!gb_margins_ok(&A) || !gb_margins_ok(&B) || !gb_margins_ok(&C))
        finding("a heap operand's margin changed");
    /* padding of C (rows beyond c_lead in each column, and everything when m or n is 0) */
    {
        int empty = g.m == 0 || g.n == 0;
        for (int64_t j = 0; j < g.c_other || (empty && j == 0); ++j)
            for (int64_t i = empty ? 0 : g.c_lead; i < g.ldc; ++i) {
                int64_t at = i + j * g.ldc;
                if ((size_t)at >= C.bytes / e) break;
                if (!same_bits(C.data, C.saved, dbl, at)) {
                    finding("C[%" PRId64 "] (padding or empty C) changed", at);
                    goto out;
                }
            }
    }
    if (g.m == 0 || g.n == 0) goto out;
    /* the expected C */
    int64_t cn = (int64_t)(C.bytes / e);
    void *ref = malloc(C.bytes);
    memcpy(ref, C.saved, C.bytes);
    int simple = g.k == 0 || alpha == 0;
    if (simple) {
        for (int64_t j = 0; j < g.c_other; ++j)
            for (int64_t i = 0; i < g.c_lead; ++i) {
                int64_t at = i + j * g.ldc;
                if (dbl) ((double *)ref)[at] = beta == 0 ? 0.0 : beta * ((double *)ref)[at];
                else ((float *)ref)[at] = beta == 0 ? 0.0f : (float)beta * ((float *)ref)[at];
            }
    } else {
        xe_reset();
        if (fortran) {
            blasint M = (blasint)g.m, N = (blasint)g.n, K = (blasint)g.k, LDA = (blasint)g.lda,
                    LDB = (blasint)g.ldb, LDC = (blasint)g.ldc;
            if (dbl) ob.dgemm_(&fta, &ftb, &M, &N, &K, &alpha, A.saved, &LDA, B.saved, &LDB, &beta, ref, &LDC, 1, 1);
            else {
                float fa = (float)alpha, fb = (float)beta;
                ob.sgemm_(&fta, &ftb, &M, &N, &K, &fa, A.saved, &LDA, B.saved, &LDB, &fb, ref, &LDC, 1, 1);
            }
        } else if (dbl) {
            ob.dgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, alpha, A.saved,
                     (blasint)g.lda, B.saved, (blasint)g.ldb, beta, ref, (blasint)g.ldc);
        } else {
            ob.sgemm(g.layout, g.ta, g.tb, (blasint)g.m, (blasint)g.n, (blasint)g.k, (float)alpha,
                     A.saved, (blasint)g.lda, B.saved, (blasint)g.ldb, (float)beta, ref, (blasint)g.ldc);
        }
        if (g_xe.n) finding("OpenBLAS called xerbla on a call the rules accept");
    }
    /* compare: op(A)(i,l) and op(B)(l,j) for the bound */
    {
        int col = g.layout != CblasRowMajor, ta = trans_code(g.ta), tb = trans_code(g.tb);
        double eps = dbl ? DBL_EPSILON : FLT_EPSILON, tiny = dbl ? DBL_MIN : FLT_MIN;
        int reported = 0;
        for (int64_t i = 0; i < g.m && !reported; ++i)
            for (int64_t j = 0; j < g.n && !reported; ++j) {
                int64_t at = col ? i + j * g.ldc : j + i * g.ldc;
                if (at >= cn) continue;
                double got = get(C.data, dbl, at), want_v = get(ref, dbl, at);
                double bound = 0;
                if (!simple) {
                    for (int64_t l = 0; l < g.k; ++l) {
                        int64_t ia = col ? (ta ? l + i * g.lda : i + l * g.lda) : (ta ? i + l * g.lda : l + i * g.lda);
                        int64_t ib = col ? (tb ? j + l * g.ldb : l + j * g.ldb) : (tb ? l + j * g.ldb : j + l * g.ldb);
                        bound += fabs(get(A.saved, dbl, ia) * get(B.saved, dbl, ib));
                    }
                    bound = bound * fabs(alpha) + fabs(beta * get(C.saved, dbl, at));
                    bound = (double)(g.k + 4) * eps * bound + (double)(g.k + 4) * tiny;
                }
                int ok;
                if (isnan(want_v)) ok = isnan(got);
                else if (isinf(want_v)) ok = got == want_v;
                else if (simple) ok = same_bits(C.data, ref, dbl, at) || (got == 0 && want_v == 0);
                else if (isnan(bound) || isinf(bound)) ok = got == want_v;
                else ok = fabs(got - want_v) <= bound;
                if (!ok) {
                    finding("C(%" PRId64 ",%" PRId64 ") = %.9g, OpenBLAS %.9g (bound %.3g)", i, j, got, want_v, bound);
                    reported = 1;
                }
            }
    }
    free(ref);
out:
    gb_free(&A), gb_free(&B), gb_free(&C);
}

/* ------------------------------------------------------------------ asum, dot */

static void fuzz_reduce(rng_t *r, int dbl, int is_dot, int fortran) {
    int64_t n = gen_dim(r), incx = gen_inc(r), incy = is_dot ? gen_inc(r) : 1;
    int xn = chance(r, 4), yn = is_dot && chance(r, 4);
    size_t e = dbl ? 8 : 4;
    int want = is_dot ? model_dot(n, xn, incx, yn, incy, 0, e) : model_asum(n, xn, incx, 0, e);
    int valid = want == 0;
    i128 ex = (is_dot || incx > 0) ? vec_extent(n, incx) : 0, ey = is_dot ? vec_extent(n, incy) : 0;
    if (valid && (ex > cap_elems || ey > cap_elems)) return;
    ++g_calls;
    const char *name = is_dot ? (fortran ? (dbl ? "DDOT  " : "SDOT  ") : (dbl ? "cblas_ddot" : "cblas_sdot"))
                              : (fortran ? (dbl ? "DASUM " : "SASUM ") : (dbl ? "cblas_dasum" : "cblas_sasum"));
    snprintf(g_call, sizeof g_call, "%s%s(n=%" PRId64 ", x%s, incx=%" PRId64 "%s%s%s%" PRId64 ")",
             is_dot ? (dbl ? "ddot" : "sdot") : (dbl ? "dasum" : "sasum"), fortran ? "_" : " (cblas)", n,
             xn ? "=NULL" : "", incx, is_dot ? ", y" : "", yn ? "=NULL" : "", is_dot ? ", incy=" : "",
             is_dot ? incy : (int64_t)0);
    if (g_verbose) fprintf(stderr, "[%" PRId64 "] %s\n", g_iter, g_call);
    int heap = chance(r, 20);
    gbuf X, Y;
    gb_alloc(&X, buf_elems(r, ex, valid) * e, chance(r, 50), heap);
    gb_alloc(&Y, buf_elems(r, ey, valid) * e, chance(r, 50), heap);
    int specials = chance(r, 15);
    fill(r, X.data, dbl, X.bytes / e, specials);
    fill(r, Y.data, dbl, Y.bytes / e, specials);
    gb_save(&X), gb_save(&Y);
    gb_readonly(&X), gb_readonly(&Y);
    const void *px = xn ? NULL : X.data, *py = yn ? NULL : Y.data;
    blasint N = (blasint)n, IX = (blasint)incx, IY = (blasint)incy;
    double got;
    xe_reset();
    if (fortran) {
        if (is_dot) got = dbl ? ddot_(&N, px, &IX, py, &IY) : sdot_(&N, px, &IX, py, &IY);
        else got = dbl ? dasum_(&N, px, &IX) : sasum_(&N, px, &IX);
    } else {
        if (is_dot) got = dbl ? cblas_ddot(N, px, IX, py, IY) : cblas_sdot(N, px, IX, py, IY);
        else got = dbl ? cblas_dasum(N, px, IX) : cblas_sasum(N, px, IX);
    }
    if (!valid) {
        ++g_invalid;
        if (!expect_xerbla(want, name, fortran) && g_xe.n == 1)
            finding("xerbla parameter %d, expected %d", g_xe.param, want);
        if (got != 0) finding("returned %g on an invalid call (0 due)", got);
    } else {
        ++g_valid;
        expect_xerbla(0, name, fortran);
        double ref = 0;
        int zero = n <= 0 || (!is_dot && incx <= 0);
        if (!zero) {
            if (is_dot) ref = dbl ? ob.ddot(N, X.saved, IX, Y.saved, IY) : ob.sdot(N, X.saved, IX, Y.saved, IY);
            else ref = dbl ? ob.dasum(N, X.saved, IX) : ob.sasum(N, X.saved, IX);
        }
        double bound = 0, eps = dbl ? DBL_EPSILON : FLT_EPSILON;
        for (int64_t i = 0; !zero && i < n; ++i) {
            int64_t ax = incx >= 0 ? i * incx : (n - 1 - i) * -incx;
            double xv = get(X.saved, dbl, ax);
            if (is_dot) {
                int64_t ay = incy >= 0 ? i * incy : (n - 1 - i) * -incy;
                bound += fabs(xv * get(Y.saved, dbl, ay));
            } else {
                bound += fabs(xv);
            }
        }
        bound = (double)(n + 4) * eps * bound + (dbl ? DBL_MIN : FLT_MIN) * (double)(n + 4);
        int ok = zero ? got == 0 && !signbit(got)
                      : isnan(ref) ? isnan(got)
                      : isinf(ref) ? got == ref
                      : (isnan(bound) || isinf(bound)) ? got == ref
                      : fabs(got - ref) <= bound;
        if (zero && got == 0) ok = 1;
        if (!ok) finding("returned %.17g, OpenBLAS %.17g (bound %.3g)", got, ref, bound);
    }
    if (!gb_unchanged(&X) || !gb_unchanged(&Y)) finding("an input changed");
    gb_free(&X), gb_free(&Y);
}

/* ------------------------------------------------------------------ omatcopy */

static void fuzz_omatcopy(rng_t *r, int dbl) {
    omat_args o = {0};
    double alpha = scalar(r);
    o.layout = gen_layout(r), o.trans = gen_trans(r);
    o.rows = gen_dim(r), o.cols = gen_dim(r);
    {
        int col = o.layout != CblasRowMajor, t = trans_code(o.trans) > 0;
        o.lda = gen_ld32(r, col ? o.rows : o.cols);
        o.ldb = gen_ld32(r, (col ? !t : t) ? o.rows : o.cols);
    }
    o.a_null = chance(r, 3), o.b_null = chance(r, 3), o.elem = dbl ? 8 : 4;
    int want = model_omatcopy(&o), valid = want == 0;
    i128 ea = 0, eb = 0;
    if (valid || want > 4) {
        ea = mat_extent(o.a_lead, o.a_other, o.lda), eb = mat_extent(o.b_lead, o.b_other, o.ldb);
    } else {
        ea = eb = rnd(r, 64);
    }
    if (valid && (ea > cap_elems || eb > cap_elems)) return;
    ++g_calls;
    const char *name = dbl ? "cblas_domatcopy" : "cblas_somatcopy";
    snprintf(g_call, sizeof g_call,
             "%s(%d, %d, rows=%" PRId64 ", cols=%" PRId64 ", alpha=%g, A%s, lda=%" PRId64 ", B%s, ldb=%" PRId64 ")",
             name, o.layout, o.trans, o.rows, o.cols, alpha, o.a_null ? "=NULL" : "", o.lda,
             o.b_null ? "=NULL" : "", o.ldb);
    if (g_verbose) fprintf(stderr, "[%" PRId64 "] %s\n", g_iter, g_call);
    size_t e = o.elem;
    int heap = chance(r, 20);
    gbuf A, B;
    gb_alloc(&A, buf_elems(r, ea, valid) * e, chance(r, 50), heap);
    gb_alloc(&B, buf_elems(r, eb, valid) * e, chance(r, 50), heap);
    fill(r, A.data, dbl, A.bytes / e, chance(r, 15));
    poison(B.data, dbl, B.bytes / e);
    gb_save(&A), gb_save(&B);
    gb_readonly(&A);
    const void *pa = o.a_null ? NULL : A.data;
    void *pb = o.b_null ? NULL : B.data;
    xe_reset();
    if (dbl)
        cblas_domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, pa,
                        (blasint)o.lda, pb, (blasint)o.ldb);
    else
        cblas_somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, pa,
                        (blasint)o.lda, pb, (blasint)o.ldb);
    int ob_checks = want >= 1 && want <= 4; /* OpenBLAS: also ld errors (7, 9) when not overflow */
    if (want == 7 || want == 9) {
        int64_t need = want == 7 ? o.a_lead : o.b_lead, ld = want == 7 ? o.lda : o.ldb;
        ob_checks = ld < (need > 1 ? need : 1);
    }
    if (!valid) {
        ++g_invalid;
        if (!expect_xerbla(want, name, 0) && g_xe.n == 1)
            finding("xerbla parameter %d, expected %d", g_xe.param, want);
        if (!gb_unchanged(&A) || !gb_unchanged(&B)) finding("a buffer changed on an invalid call");
    } else {
        ++g_valid;
        expect_xerbla(0, name, 0);
        if (!gb_margins_ok(&A) || !gb_margins_ok(&B)) finding("a heap operand's margin changed");
    }
    if (valid && o.rows > 0 && o.cols > 0) {
        /* OpenBLAS's result (the CPU path calls it) */
        void *ref = malloc(B.bytes);
        memcpy(ref, B.saved, B.bytes);
        xe_reset();
        if (dbl) ob.domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, A.saved, (blasint)o.lda, ref, (blasint)o.ldb);
        else ob.somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, A.saved, (blasint)o.lda, ref, (blasint)o.ldb);
        /* expected: B = alpha op(A) in the layout (alpha == 0: zeros, A not read); padding
         * untouched; and OpenBLAS's answer, bitwise up to the NaN class */
        int col = o.layout != CblasRowMajor, t = trans_code(o.trans) > 0;
        int64_t bn = (int64_t)(B.bytes / e);
        char *mark = calloc((size_t)bn + 1, 1);
        int reported = 0, ob_noted = 0;
        for (int64_t i = 0; i < o.rows && !reported; ++i)
            for (int64_t j = 0; j < o.cols && !reported; ++j) {
                int64_t ia = col ? i + j * o.lda : j + i * o.lda;
                int64_t ib = col ? (t ? j + i * o.ldb : i + j * o.ldb) : (t ? i + j * o.ldb : j + i * o.ldb);
                double want_v = alpha == 0 ? 0.0
                                           : (dbl ? alpha * get(A.saved, 1, ia)
                                                  : (double)((float)alpha * (float)get(A.saved, 0, ia)));
                double got = get(B.data, dbl, ib), obv = get(ref, dbl, ib);
                mark[ib] = 1;
                int same_as_ob = same_bits(B.data, ref, dbl, ib) || (isnan(got) && isnan(obv)) || (got == 0 && obv == 0);
                int ok = isnan(want_v) ? isnan(got) : got == want_v;
                if (!ok && same_as_ob && alpha == 0) {
                    /* OpenBLAS itself reads A when alpha == 0 here: the CPU path passes that on */
                    if (!ob_noted) {
                        char key[160];
                        snprintf(key, sizeof key, "%s %s trans=%d: alpha == 0 with NaN/Inf in A: OpenBLAS writes NaN (reads A), so does the CPU path; the rule is 0",
                                 name, col ? "col-major" : "row-major", t);
                        divergence(key);
                        ob_noted = 1;
                    }
                } else if (!ok) {
                    finding("B(%" PRId64 ") = %.9g, alpha * A = %.9g (OpenBLAS %.9g)", ib, got, want_v, obv);
                    reported = 1;
                } else if (!same_as_ob && !reported) {
                    char key[160];
                    snprintf(key, sizeof key, "%s: OpenBLAS's result differs from alpha * A (%s)", name,
                             alpha == 0 ? "alpha == 0" : "alpha != 0");
                    divergence(key);
                    reported = 1;
                }
            }
        for (int64_t i = 0; i < bn && !reported; ++i)
            if (!mark[i] && !same_bits(B.data, B.saved, dbl, i)) {
                finding("B[%" PRId64 "] (padding) changed", i);
                reported = 1;
            }
        free(mark);
        free(ref);
    } else if (valid) { /* rows or cols 0: nothing written */
        if (!gb_unchanged(&B)) finding("B changed on an empty call");
        /* OpenBLAS refuses rows or cols <= 0 (xerbla 3 / 4): listed, the check accepts them */
        void *cb = malloc(B.bytes + 1);
        xe_reset();
        if (dbl) ob.domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, A.saved, (blasint)o.lda, cb, (blasint)o.ldb);
        else ob.somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, A.saved, (blasint)o.lda, cb, (blasint)o.ldb);
        if (g_xe.n) {
            char key[160];
            snprintf(key, sizeof key, "%s: empty (rows or cols 0): OpenBLAS reports xerbla %d, the check accepts (no-op)",
                     name, g_xe.param);
            divergence(key);
        }
        free(cb);
    } else if (ob_checks) {
        size_t la = A.bytes ? A.bytes : 1, lb = B.bytes ? B.bytes : 1;
        void *ca = malloc(la), *cb = malloc(lb);
        memcpy(ca, A.saved, A.bytes);
        xe_reset();
        if (dbl) ob.domatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, alpha, ca, (blasint)o.lda, cb, (blasint)o.ldb);
        else ob.somatcopy(o.layout, o.trans, (blasint)o.rows, (blasint)o.cols, (float)alpha, ca, (blasint)o.lda, cb, (blasint)o.ldb);
        if (!g_xe.n || g_xe.param != want) {
            char key[160];
            snprintf(key, sizeof key, "%s: OpenBLAS reports %d%s where the rules give %d", name,
                     g_xe.n ? g_xe.param : 0, g_xe.n ? "" : " (no xerbla)", want);
            divergence(key);
        }
        free(ca), free(cb);
    }
    gb_free(&A), gb_free(&B);
}

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
