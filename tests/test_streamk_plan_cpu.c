/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The stream-K schedule of dgemm rung 13 streamk_dmma (kernels/gemm/streamk.h), without a GPU:
 * the plan and segment functions the kernel runs, replayed worker by worker for many problem
 * and grid sizes. Checked:
 *   - every k-tile of every tile is computed exactly once; data-parallel tiles are whole and
 *     come in whole waves; the stream-K ranges differ by at most one k-tile, none below
 *     MB_SK_MIN_ITERS;
 *   - a segment that does not start at k-tile 0 is its worker's first stream-K segment, its
 *     worker is not 0, its partial slot lies inside the workspace and no other segment uses it;
 *   - the owner of a shared tile (the segment from k-tile 0) is its worker's last segment, and
 *     the walk of mb_sk_contrib finds exactly the tile's other segments, in increasing k, each
 *     starting where the one before ends (so the fixed-order sum covers the tile's k once);
 *   - the workspace the plan needs fits the workspace given;
 *   - the fallbacks: whole waves, too little workspace, too few k-tiles per worker;
 *   - the whole schedule, emulated on small tiles for the four transposes with padded leading
 *     dimensions: each segment reads its operands from the offsets of mb_sk_operand_offsets
 *     with the kernel loaders' indexing (every read inside its matrix), contributors write
 *     their partial slots and flags, owners (workers run from the highest index down, so a
 *     flag an owner needs must already be set) add the partials in the kernel's order; with
 *     small integer inputs every sum is exact, so C must equal the reference bit for bit.
 * The deadlock argument of 13_streamk_dmma.cu rests on the two structural facts above (an
 * owner waits only at the end of its range, on workers of higher index, for their first
 * segment, which they write before anything that could wait).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gemm/streamk.h"

static long g_fail, g_pass, g_emulated;
#define CHECK(c, ...)                                                                          \
    do {                                                                                       \
        if (c) {                                                                               \
            ++g_pass;                                                                          \
        } else {                                                                               \
            if (g_fail++ < 20) {                                                               \
                printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c);                            \
                printf(__VA_ARGS__);                                                           \
                printf("\n");                                                                  \
            }                                                                                  \
        }                                                                                      \
    } while (0)

#define TILE_BYTES ((size_t)128 * 64 * 8)
#define WORK_16M ((size_t)16 << 20)

typedef struct seg {
    int64_t w, t, kb, ke;
    int first, last; /* first / last segment of the worker's stream-K range */
    int sk;          /* from the stream-K range (not data-parallel) */
} seg;

/* Replays the plan; returns the number of failed checks it added. */
static long check_plan(const mb_sk_plan *pl, size_t work_bytes, const char *what) {
    const long f0 = g_fail;
    const int64_t T = pl->tiles, I = pl->iters, W = pl->workers;
    CHECK(pl->dp_tiles % W == 0 && pl->dp_tiles >= 0 && pl->dp_tiles < T, "%s", what);
    CHECK(pl->sk_workers >= 1 && pl->sk_workers <= W, "%s", what);
    CHECK(mb_sk_work_bytes(pl, TILE_BYTES) <= work_bytes, "%s: needs %zu of %zu bytes", what,
          mb_sk_work_bytes(pl, TILE_BYTES), work_bytes);
    unsigned char *cover = calloc((size_t)(T * I), 1);
    int64_t nseg = 0, cap = 4 * (T + W) + 16;
    seg *segs = malloc((size_t)cap * sizeof *segs);
    unsigned char *slot_used = calloc((size_t)W, 1);
    int64_t min_sk = -1, max_sk = -1;
    for (int64_t w = 0; w < W; ++w) {
        int64_t dp = w, it = w < pl->sk_workers ? mb_sk_start(pl, w) : 0;
        const int64_t it_end = w < pl->sk_workers ? mb_sk_start(pl, w + 1) : 0;
        if (w < pl->sk_workers) {
            const int64_t n = it_end - it;
            if (min_sk < 0 || n < min_sk) min_sk = n;
            if (n > max_sk) max_sk = n;
        }
        int64_t t, kb, ke, first_sk = -1, last_sk = -1;
        while (mb_sk_next(pl, &dp, &it, it_end, &t, &kb, &ke)) {
            CHECK(t >= 0 && t < T && kb >= 0 && kb < ke && ke <= I, "%s: w %lld", what, (long long)w);
            if (!(t >= 0 && t < T && kb >= 0 && kb < ke && ke <= I)) break;
            for (int64_t k = kb; k < ke; ++k) cover[t * I + k]++;
            const int sk = t >= pl->dp_tiles;
            CHECK(sk || (kb == 0 && ke == I), "%s: data-parallel tile %lld not whole", what, (long long)t);
            if (nseg == cap) {
                cap *= 2;
                segs = realloc(segs, (size_t)cap * sizeof *segs);
            }
            segs[nseg] = (seg){w, t, kb, ke, 0, 0, sk};
            if (sk) {
                if (first_sk < 0) first_sk = nseg;
                last_sk = nseg;
            }
            ++nseg;
        }
        if (first_sk >= 0) segs[first_sk].first = 1, segs[last_sk].last = 1;
    }
    for (int64_t i = 0; i < T * I; ++i)
        if (cover[i] != 1) {
            CHECK(cover[i] == 1, "%s: tile %lld k-tile %lld computed %d times", what,
                  (long long)(i / I), (long long)(i % I), cover[i]);
            break;
        }
    CHECK(max_sk - min_sk <= 1 && min_sk >= MB_SK_MIN_ITERS, "%s: ranges %lld..%lld", what,
          (long long)min_sk, (long long)max_sk);
    for (int64_t i = 0; i < nseg; ++i) {
        const seg *s = &segs[i];
        if (s->kb > 0) { /* a contributor */
            CHECK(s->sk && s->first && s->w >= 1 && s->w < pl->sk_workers, "%s: contributor w %lld",
                  what, (long long)s->w);
            CHECK(s->kb + s->t * I == mb_sk_start(pl, s->w), "%s", what);
            CHECK(mb_sk_contrib(pl, s->w, s->t), "%s", what);
            if (s->w >= 1 && s->w < W) {
                CHECK(!slot_used[s->w], "%s: slot %lld twice", what, (long long)s->w - 1);
                slot_used[s->w] = 1;
            }
        } else if (s->ke < I) { /* the owner of a shared tile: walk its contributors */
            CHECK(s->sk && s->last, "%s: owner w %lld of tile %lld not at the end of its range",
                  what, (long long)s->w, (long long)s->t);
            int64_t k = s->ke;
            for (int64_t v = s->w + 1;
                 v < pl->sk_workers && mb_sk_start(pl, v) < (s->t + 1) * I; ++v) {
                if (!mb_sk_contrib(pl, v, s->t)) continue;
                /* v's segment in tile t: from its start to its end or the tile's end */
                const int64_t vs = mb_sk_start(pl, v) - s->t * I;
                int64_t ve = mb_sk_start(pl, v + 1) - s->t * I;
                if (ve > I) ve = I;
                CHECK(vs == k, "%s: tile %lld: a partial starts at %lld, expected %lld", what,
                      (long long)s->t, (long long)vs, (long long)k);
                k = ve;
            }
            CHECK(k == I, "%s: tile %lld: the owner's sum ends at k-tile %lld of %lld", what,
                  (long long)s->t, (long long)k, (long long)I);
        }
    }
    free(cover), free(segs), free(slot_used);
    return g_fail - f0;
}

static void sweep(void) {
    /* grids of 2..20 workers and the H100 / H200 one (132 SMs x 2), every tile count up to
     * three waves and beyond, shallow and deep k */
    static const int64_t Ws[] = {2, 3, 5, 8, 13, 20, 264};
    static const int64_t Is[] = {1, 4, 5, 7, 16, 33, 80, 128};
    char what[128];
    for (size_t a = 0; a < sizeof Ws / sizeof Ws[0]; ++a)
        for (size_t b = 0; b < sizeof Is / sizeof Is[0]; ++b) {
            const int64_t W = Ws[a], I = Is[b];
            const int64_t tmax = W > 20 ? 4 * W + 7 : 5 * W + 3;
            for (int64_t T = 1; T <= tmax; T += W > 20 ? 7 : 1) {
                for (int ws = 0; ws < 3; ++ws) {
                    /* ample, 16 MiB, and a workspace for about 60% of the workers */
                    const size_t wb = ws == 0 ? MB_SK_FLAG_BYTES(W) + (size_t)W * TILE_BYTES
                                      : ws == 1 ? WORK_16M
                                                : MB_SK_FLAG_BYTES(W) + (size_t)(W * 6 / 10) * TILE_BYTES;
                    mb_sk_plan pl;
                    snprintf(what, sizeof what, "tiles %lld iters %lld workers %lld work %zu",
                             (long long)T, (long long)I, (long long)W, wb);
                    const int ok = mb_sk_make_plan(T, I, W, wb, TILE_BYTES, &pl);
                    if (T % W == 0) CHECK(!ok, "%s: whole waves must fall back", what);
                    if (!ok) continue;
                    if (check_plan(&pl, wb, what)) return;
                }
            }
        }
}

/* The H100 / H200 cases the rung is for (132 SMs, 2 blocks each, 16 MiB): square n^3 with
 * 128x64 tiles, k-tiles of 16. */
static void h100_cases(void) {
    const int64_t W = 264;
    for (int64_t n = 640; n <= 4096; n += 128) {
        const int64_t T = (n / 128) * (n / 64), I = n / 16;
        mb_sk_plan pl;
        const int ok = mb_sk_make_plan(T, I, W, WORK_16M, TILE_BYTES, &pl);
        char what[64];
        snprintf(what, sizeof what, "n = %lld (%lld tiles)", (long long)n, (long long)T);
        if (T % W == 0) {
            CHECK(!ok, "%s", what);
            continue;
        }
        CHECK(ok, "%s: expected a stream-K plan", what);
        if (!ok) continue;
        CHECK(pl.sk_workers == 256, "%s: %lld stream-K workers (16 MiB holds 255 partials)", what,
              (long long)pl.sk_workers);
        check_plan(&pl, WORK_16M, what);
    }
    /* 1280^3: 200 tiles, one partial wave: all stream-K; 1920^3: 450 tiles, 2 waves: all
     * stream-K; 2560^3: 800 tiles = 3 waves + 8: 2 waves data-parallel, 272 tiles stream-K */
    mb_sk_plan pl;
    CHECK(mb_sk_make_plan(200, 80, W, WORK_16M, TILE_BYTES, &pl) && pl.dp_tiles == 0, "1280");
    CHECK(mb_sk_make_plan(450, 120, W, WORK_16M, TILE_BYTES, &pl) && pl.dp_tiles == 0, "1920");
    CHECK(mb_sk_make_plan(800, 160, W, WORK_16M, TILE_BYTES, &pl) && pl.dp_tiles == 528, "2560");
    /* fallbacks: 512^3 (32 tiles x 32 k-tiles: 4 per worker), tiny (32 tiles x 4 k-tiles),
     * little workspace, no workspace, one worker */
    CHECK(!mb_sk_make_plan(32, 32, W, WORK_16M, TILE_BYTES, &pl), "512");
    CHECK(!mb_sk_make_plan(32, 4, W, WORK_16M, TILE_BYTES, &pl), "tiny");
    CHECK(!mb_sk_make_plan(200, 80, W, (size_t)4 << 20, TILE_BYTES, &pl), "4 MiB");
    CHECK(!mb_sk_make_plan(200, 80, W, 0, TILE_BYTES, &pl), "no workspace");
    CHECK(!mb_sk_make_plan(3, 80, 1, WORK_16M, TILE_BYTES, &pl), "one worker");
}

/* ---------------------------------------------------------------------------------------
 * The schedule emulated on small tiles (BM x BN, BK deep). op(A) is m x k, op(B) k x n,
 * column-major with leading dimensions lda / ldb; the kernel's instantiation for transposes
 * (ta, tb) has A K-contiguous when ta and B K-contiguous when !tb, and its loaders read
 * op(A)(i, p) of a segment's q.A at q.A[p + i lda] (K-contiguous) or q.A[i + p lda], op(B)(p, j)
 * at q.B[p + j ldb] (K-contiguous) or q.B[j + p ldb], p counted from the segment's first
 * k-tile. Tiles are walked column by column here (the kernel's tc_tile_coords groups rows
 * for L2; the schedule does not depend on the mapping as long as every segment uses one).
 * ------------------------------------------------------------------------------------- */
#define EM_BM 4
#define EM_BN 3
#define EM_BK 2
#define EM_TE (EM_BM * EM_BN)

typedef struct emu {
    int64_t m, n, k, lda, ldb;
    int ta, tb;
    const double *A, *B; /* A: lda x (ta ? m : k); B: ldb x (tb ? k : n) */
    int64_t na, nb;      /* elements of A and B */
    long oob;            /* reads outside A or B */
} emu;

static double emu_a(emu *e, const double *q, int64_t i, int64_t p) {
    const int64_t x = (q - e->A) + (e->ta ? p + i * e->lda : i + p * e->lda);
    if (x < 0 || x >= e->na) return ++e->oob, 0.0;
    return e->A[x];
}
static double emu_b(emu *e, const double *q, int64_t p, int64_t j) {
    const int64_t x = (q - e->B) + (!e->tb ? p + j * e->ldb : j + p * e->ldb);
    if (x < 0 || x >= e->nb) return ++e->oob, 0.0;
    return e->B[x];
}

/* One segment: tile t, k-tiles [kb, ke), into acc (EM_BM x EM_BN, column-major). */
static void emu_segment(emu *e, int64_t t, int64_t kb, int64_t ke, double *acc) {
    const int64_t ntm = e->m / EM_BM, m0 = (t % ntm) * EM_BM, n0 = (t / ntm) * EM_BN;
    int64_t oa, ob;
    mb_sk_operand_offsets(e->ta, !e->tb, e->lda, e->ldb, kb * EM_BK, &oa, &ob);
    const double *qa = e->A + oa, *qb = e->B + ob;
    for (int j = 0; j < EM_BN; ++j)
        for (int i = 0; i < EM_BM; ++i) {
            double s = 0.0;
            for (int64_t p = 0; p < (ke - kb) * EM_BK; ++p)
                s += emu_a(e, qa, m0 + i, p) * emu_b(e, qb, p, n0 + j);
            acc[i + j * EM_BM] = s;
        }
}

/* Runs the plan on a problem of ntm x ntn tiles, iters k-tiles, W workers; returns the failed
 * checks it added. */
static long emu_case(int ta, int tb, int64_t ntm, int64_t ntn, int64_t iters, int64_t W,
                     size_t work_bytes, unsigned seed) {
    const long f0 = g_fail;
    emu e;
    e.m = ntm * EM_BM, e.n = ntn * EM_BN, e.k = iters * EM_BK;
    e.ta = ta, e.tb = tb;
    e.lda = (ta ? e.k : e.m) + 3, e.ldb = (tb ? e.n : e.k) + 2;
    e.na = e.lda * (ta ? e.m : e.k), e.nb = e.ldb * (tb ? e.k : e.n);
    e.oob = 0;
    const size_t tile_bytes = EM_TE * sizeof(double);
    mb_sk_plan pl;
    if (!mb_sk_make_plan(ntm * ntn, iters, W, work_bytes, tile_bytes, &pl)) return 0;
    ++g_emulated;
    double *A = malloc((size_t)e.na * sizeof *A), *B = malloc((size_t)e.nb * sizeof *B);
    for (int64_t x = 0; x < e.na; ++x) A[x] = (double)((seed + 7 * x) % 9) - 4.0;
    for (int64_t x = 0; x < e.nb; ++x) B[x] = (double)((seed + 5 * x) % 7) - 3.0;
    e.A = A, e.B = B;
    double *C = malloc((size_t)(e.m * e.n) * sizeof *C);
    for (int64_t x = 0; x < e.m * e.n; ++x) C[x] = -1e300; /* poison: each element written once */
    /* the workspace as the kernel lays it out: flags, then sk_workers - 1 slots */
    const size_t wb = mb_sk_work_bytes(&pl, tile_bytes);
    unsigned char *work = calloc(wb, 1);
    unsigned *flags = (unsigned *)work;
    double *slots = (double *)(work + MB_SK_FLAG_BYTES(pl.workers));
    char what[160];
    snprintf(what, sizeof what, "emulation ta=%d tb=%d tiles %lldx%lld iters %lld workers %lld",
             ta, tb, (long long)ntm, (long long)ntn, (long long)iters, (long long)W);
    double acc[EM_TE];
    for (int64_t w = W - 1; w >= 0; --w) {
        int64_t dp = w, it = w < pl.sk_workers ? mb_sk_start(&pl, w) : 0;
        const int64_t it_end = w < pl.sk_workers ? mb_sk_start(&pl, w + 1) : 0;
        int64_t t, kb, ke;
        while (mb_sk_next(&pl, &dp, &it, it_end, &t, &kb, &ke)) {
            emu_segment(&e, t, kb, ke, acc);
            if (kb > 0) { /* partial to slot w - 1, flag w */
                CHECK(w >= 1 && (size_t)((w - 1) * EM_TE + EM_TE) * sizeof(double) +
                                        MB_SK_FLAG_BYTES(pl.workers) <= wb,
                      "%s: slot of worker %lld outside the workspace", what, (long long)w);
                if (!(w >= 1 && w < pl.sk_workers)) continue;
                memcpy(slots + (w - 1) * EM_TE, acc, sizeof acc);
                flags[w] = 1u;
                continue;
            }
            if (ke < pl.iters) { /* owner: the partials of w + 1, w + 2, ... in that order */
                const int64_t tile_end = (t + 1) * pl.iters;
                for (int64_t v = w + 1; v < pl.sk_workers && mb_sk_start(&pl, v) < tile_end; ++v) {
                    if (!mb_sk_contrib(&pl, v, t)) continue;
                    CHECK(flags[v] == 1u, "%s: owner %lld would wait on worker %lld forever",
                          what, (long long)w, (long long)v);
                    for (int x = 0; x < EM_TE; ++x) acc[x] += slots[(v - 1) * EM_TE + x];
                }
            }
            const int64_t m0 = (t % ntm) * EM_BM, n0 = (t / ntm) * EM_BN;
            for (int j = 0; j < EM_BN; ++j)
                for (int i = 0; i < EM_BM; ++i) {
                    double *c = &C[(m0 + i) + (n0 + j) * e.m];
                    CHECK(*c == -1e300, "%s: C(%lld, %lld) written twice", what,
                          (long long)(m0 + i), (long long)(n0 + j));
                    *c = acc[i + j * EM_BM];
                }
        }
    }
    CHECK(e.oob == 0, "%s: %ld operand reads outside A or B", what, e.oob);
    /* reference: the whole k range from the matrices' origin */
    long bad = 0;
    int64_t bi = -1, bj = -1;
    for (int64_t j = 0; j < e.n; ++j)
        for (int64_t i = 0; i < e.m; ++i) {
            double s = 0.0;
            for (int64_t p = 0; p < e.k; ++p)
                s += (ta ? A[p + i * e.lda] : A[i + p * e.lda]) *
                     (tb ? B[j + p * e.ldb] : B[p + j * e.ldb]);
            if (C[i + j * e.m] != s && bad++ == 0) bi = i, bj = j;
        }
    CHECK(bad == 0, "%s: %ld of %lld elements of C wrong, first C(%lld, %lld)", what, bad,
          (long long)(e.m * e.n), (long long)bi, (long long)bj);
    free(A), free(B), free(C), free(work);
    return g_fail - f0;
}

static void emulate(void) {
    static const int64_t Ws[] = {2, 3, 5, 8, 13};
    static const int64_t Is[] = {6, 7, 16, 33};
    unsigned seed = 1;
    for (int tr = 0; tr < 4; ++tr)
        for (size_t a = 0; a < sizeof Ws / sizeof Ws[0]; ++a)
            for (size_t b = 0; b < sizeof Is / sizeof Is[0]; ++b)
                for (int64_t ntm = 1; ntm <= 4; ++ntm)
                    for (int64_t ntn = 1; ntn <= 5; ++ntn)
                        for (int ws = 0; ws < 2; ++ws) {
                            const int64_t W = Ws[a];
                            /* ample, and partials for about 60% of the workers */
                            const size_t te = EM_TE * sizeof(double);
                            const size_t wb = MB_SK_FLAG_BYTES(W) +
                                              (size_t)(ws == 0 ? W : (W * 6 + 9) / 10) * te;
                            if (emu_case(tr & 1, tr >> 1, ntm, ntn, Is[b], W, wb, seed++)) return;
                        }
}

int main(void) {
    sweep();
    h100_cases();
    emulate();
    CHECK(g_emulated >= 100, "only %ld schedules emulated", g_emulated);
    printf("test_streamk_plan_cpu: %ld schedules emulated; %ld passed, %ld failed\n", g_emulated,
           g_pass, g_fail);
    return g_fail ? 1 : 0;
}
