/* SPDX-License-Identifier: BSD-3-Clause */
/* CPU fuzzer: operands between guard pages (or in the heap with poisoned margins), input
 * values, IEEE specials, the random argument generators. */
#include "fuzz_cpu.h"

/* ------------------------------------------------------------------ guarded buffers */

size_t g_page;

#define HEAP_MARGIN 64 /* bytes of poison before and after a heap operand */
static const unsigned char MARGIN_BYTE = 0xA5;

/* A buffer of bytes (may be 0). Placement: against the trailing guard page (end = 1), or the
 * leading one (end = 0), or in malloc'd memory with poisoned margins (heap = 1: the layer's
 * quick paths look for the brk heap). */
void gb_alloc(gbuf *g, size_t bytes, int end, int heap) {
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
void gb_readonly(gbuf *g) {
    if (!g->heap && g->bytes)
        mprotect(g->map + g_page, g->maplen - 2 * g_page, PROT_READ);
}
void gb_save(gbuf *g) {
    g->saved = malloc(g->bytes ? g->bytes : 1);
    if (!g->saved) { perror("malloc"); exit(2); }
    memcpy(g->saved, g->data, g->bytes);
}
int gb_margins_ok(const gbuf *g) {
    if (!g->heap) return 1;
    for (size_t i = 0; i < HEAP_MARGIN; ++i)
        if ((unsigned char)g->map[i] != MARGIN_BYTE ||
            (unsigned char)g->map[HEAP_MARGIN + g->bytes + i] != MARGIN_BYTE)
            return 0;
    return 1;
}
int gb_unchanged(const gbuf *g) { return !memcmp(g->saved, g->data, g->bytes) && gb_margins_ok(g); }
void gb_free(gbuf *g) {
    if (g->heap) free(g->map);
    else if (g->map) munmap(g->map, g->maplen);
    free(g->saved);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ values */

/* The poison of outputs: a quiet NaN with a payload no computation produces. */
static const uint32_t POISON_F = 0x7fc0dead;
static const uint64_t POISON_D = 0x7ff8deadbeefdeadull;

double special_value(rng_t *r) {
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
double scalar(rng_t *r) {
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
void fill(rng_t *r, void *p, int dbl, size_t n, int specials) {
    for (size_t i = 0; i < n; ++i) {
        double v = specials && chance(r, 3) ? special_value(r) : unif(r);
        if (dbl) ((double *)p)[i] = v;
        else ((float *)p)[i] = (float)v;
    }
}
void poison(void *p, int dbl, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (dbl) memcpy((double *)p + i, &POISON_D, 8);
        else memcpy((float *)p + i, &POISON_F, 4);
    }
}
double get(const void *p, int dbl, int64_t i) {
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
int same_bits(const void *a, const void *b, int dbl, int64_t i) {
    return dbl ? !memcmp((const double *)a + i, (const double *)b + i, 8)
               : !memcmp((const float *)a + i, (const float *)b + i, 4);
}

/* ------------------------------------------------------------------ argument generators */

int64_t gen_dim(rng_t *r) {
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
int64_t gen_ld(rng_t *r, int64_t need) {
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
int64_t gen_ld32(rng_t *r, int64_t need) {
    int64_t v = gen_ld(r, need);
    return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : v;
}
int gen_trans(rng_t *r) {
    static const int valid[] = {CblasNoTrans, CblasTrans, CblasConjTrans, 114};
    static const int invalid[] = {0, 110, 115, 101, 102, -1, 1000};
    return chance(r, 90) ? valid[rnd(r, 4)] : invalid[rnd(r, 7)];
}
int gen_layout(rng_t *r) {
    static const int invalid[] = {0, 100, 103, 111, -1};
    return chance(r, 94) ? (chance(r, 50) ? CblasRowMajor : CblasColMajor) : invalid[rnd(r, 5)];
}
int64_t gen_inc(rng_t *r) {
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
char gen_ftrans(rng_t *r) {
    /* 'R' (conjugate, no transpose) is 'N' for real data, as in OpenBLAS (reference BLAS
     * refuses it) */
    static const char valid[] = "NnTtCcRr", invalid[] = "XxYy0 /";
    return chance(r, 90) ? valid[rnd(r, 8)] : invalid[rnd(r, 7)];
}
