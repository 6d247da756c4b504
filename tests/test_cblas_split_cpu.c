/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The multi-GPU split plan of libminiblas_cblas (src/cblas/mgpu_plan.c, compiled in directly)
 * on many made-up panel lists: every panel, hence every column of C, goes to exactly one
 * device; the shares are contiguous runs in device order; device 0 keeps the head panels and
 * at least one panel; each share reaches the least width asked; no more devices than asked or
 * than panels allow; the same arguments give the same plan; one device, too few panels or a
 * small volume give no split.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu_plan.h"

#include "cpu_check.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n) { /* xorshift64*, in [0, n) */
    g_rng ^= g_rng >> 12, g_rng ^= g_rng << 25, g_rng ^= g_rng >> 27;
    return (g_rng * 0x2545f4914f6cdd1dull) % n;
}

/* Checks one plan; returns 1 when it split. */
static int check_plan(int64_t npan, const int64_t *pc, int64_t head, int ndev, int64_t m,
                      int64_t k, int64_t min_cols, double min_vol) {
    mbc_split sp, sp2;
    memset(&sp, 0x5a, sizeof sp);
    memset(&sp2, 0xa5, sizeof sp2);
    mbc_split_plan(npan, pc, head, ndev, m, k, min_cols, min_vol, &sp);
    mbc_split_plan(npan, pc, head, ndev, m, k, min_cols, min_vol, &sp2);
    const char *ctx = "npan %lld head %lld ndev %d n %lld";
#define ARGS (long long)npan, (long long)head, ndev, (long long)pc[npan]
    CHECKF(sp.ndev == sp2.ndev, ctx, ARGS);
    for (int d = 0; d <= sp.ndev && d <= MBC_SPLIT_MAX; ++d)
        CHECKF(sp.first[d] == sp2.first[d], "not deterministic: first[%d]; npan %lld", d, (long long)npan);
    CHECKF(sp.ndev >= 1 && sp.ndev <= (ndev < 1 ? 1 : ndev) && sp.ndev <= MBC_SPLIT_MAX, "ndev %d; " "npan %lld", sp.ndev, (long long)npan);
    if (sp.ndev < 1 || sp.ndev > MBC_SPLIT_MAX) return 0;
    CHECKF(sp.first[0] == 0 && sp.first[sp.ndev] == npan, ctx, ARGS);
    int64_t n = pc[npan];
    char *owner = calloc((size_t)n + 1, 1);
    int *own = calloc((size_t)n + 1, sizeof(int));
    for (int d = 0; d < sp.ndev; ++d) {
        CHECKF(sp.first[d] < sp.first[d + 1], "device %d has no panel; " "npan %lld", d, (long long)npan);
        if (sp.ndev > 1) {
            int64_t w = pc[sp.first[d + 1]] - pc[sp.first[d]];
            CHECKF(min_cols <= 0 || w >= min_cols, "share %d is %lld columns < %lld", d,
                  (long long)w, (long long)min_cols);
        }
        for (int64_t p = sp.first[d]; p < sp.first[d + 1] && p < npan; ++p)
            for (int64_t c = pc[p]; c < pc[p + 1]; ++c) ++owner[c], own[c] = d;
    }
    for (int64_t c = 0; c < n; ++c) CHECKF(owner[c] == 1, "column %lld assigned %d times", (long long)c, owner[c]);
    for (int64_t c = 1; c < n; ++c) CHECKF(own[c] >= own[c - 1], "shares not in column order at %lld", (long long)c);
    if (sp.ndev > 1) {
        CHECKF(sp.first[1] >= head && sp.first[1] >= 1, "device 0 does not keep the head: first[1] %lld head %lld",
              (long long)sp.first[1], (long long)head);
        CHECKF(min_vol <= 0 || (double)m * (double)n * (double)k >= min_vol, "split below the volume");
    }
    free(owner);
    free(own);
    return sp.ndev > 1;
#undef ARGS
}

int main(void) {
    int64_t pc[65];
    /* panels like the one-GPU schedule's: nb wide, the last ones halving */
    int splits = 0, total = 0;
    for (int it = 0; it < 20000; ++it) {
        int64_t npan = 1 + (int64_t)rnd(64);
        pc[0] = 0;
        int64_t nb = 1 + (int64_t)rnd(it % 3 == 0 ? 40 : 4096);
        for (int64_t p = 0; p < npan; ++p) {
            int64_t w = p + 3 >= npan && rnd(2) ? 1 + nb / (1 + (int64_t)rnd(4)) : nb;
            if (it % 5 == 0) w = 1 + (int64_t)rnd(3000); /* any widths */
            pc[p + 1] = pc[p] + w;
        }
        int64_t head = (int64_t)rnd(5) - 1; /* -1 (none) .. 3 */
        if (head > npan) head = npan;
        int ndev = 1 + (int)rnd(it % 7 == 0 ? 80 : 9);
        int64_t m = 1 + (int64_t)rnd(20000), k = 1 + (int64_t)rnd(20000);
        int64_t min_cols = it % 4 == 0 ? 0 : it % 4 == 1 ? MBC_SPLIT_MIN_COLS : (int64_t)rnd(5000);
        double vol = it % 3 == 0 ? 0 : MBC_SPLIT_MIN_VOLUME;
        splits += check_plan(npan, pc, head, ndev, m, k, min_cols, vol);
        ++total;
    }
    CHECKF(splits > total / 10, "only %d of %d plans split: the checks saw too few splits", splits, total);

    /* Fixed cases. 8 panels of 2048 (n = 16384), head 3, 2 devices, 2048 columns at least:
     * an even split at the middle edge. */
    for (int p = 0; p <= 8; ++p) pc[p] = 2048 * p;
    mbc_split sp;
    mbc_split_plan(8, pc, 3, 2, 16384, 16384, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 2 && sp.first[1] == 4, "16384 over 2: ndev %d first[1] %lld", sp.ndev, (long long)sp.first[1]);
    mbc_split_plan(8, pc, 3, 4, 16384, 16384, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 4 && sp.first[1] == 3 && sp.first[2] == 4 && sp.first[3] == 6,
          "16384 over 4: ndev %d first %lld %lld %lld", sp.ndev, (long long)sp.first[1],
          (long long)sp.first[2], (long long)sp.first[3]);
    /* the head wider than an even share: device 0 keeps it, the others share the rest */
    mbc_split_plan(8, pc, 6, 4, 16384, 16384, 0, 0, &sp);
    CHECKF(sp.ndev == 3 && sp.first[1] == 6 && sp.first[2] == 7, "head 6: ndev %d first[1] %lld",
          sp.ndev, (long long)sp.first[1]);
    /* one device, one panel, a small volume, shares too narrow: no split */
    mbc_split_plan(8, pc, 3, 1, 16384, 16384, 0, 0, &sp);
    CHECKF(sp.ndev == 1 && sp.first[1] == 8, "one device");
    mbc_split_plan(1, pc, 0, 4, 16384, 16384, 0, 0, &sp);
    CHECKF(sp.ndev == 1 && sp.first[1] == 1, "one panel");
    mbc_split_plan(8, pc, 3, 2, 16, 16, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 1, "small volume");
    for (int p = 0; p <= 8; ++p) pc[p] = 256 * p; /* n = 2048: shares of 2048 only for 1 device */
    mbc_split_plan(8, pc, 3, 2, 4096, 4096, MBC_SPLIT_MIN_COLS, MBC_SPLIT_MIN_VOLUME, &sp);
    CHECKF(sp.ndev == 1, "n = 2048: shares below %d columns", MBC_SPLIT_MIN_COLS);

    if (g_fail) {
        fprintf(stderr, "%d failures\n", g_fail);
        return 1;
    }
    printf("split plans: %d checked (%d split), fixed cases ok\n", total, splits);
    return 0;
}
