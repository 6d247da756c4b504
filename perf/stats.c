/* SPDX-License-Identifier: BSD-3-Clause */
/* The statistics of a measurement and the stopping rule (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double stats_median(double *v, int n) {
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void stats_compute(const double *v, int n, double max_noise, bench_stats *out) {
    out->trials = n > 0 ? n : 0;
    out->median = out->min = out->max = out->noise = NAN;
    out->noise_ok = 0;
    if (n <= 0) return;
    double *w = malloc(sizeof(double) * (size_t)n);
    if (!w) return;
    memcpy(w, v, sizeof(double) * (size_t)n);
    double med = stats_median(w, n);
    out->median = med;
    out->min = w[0];
    out->max = w[n - 1];
    if (n >= 2 && med > 0) {
        for (int i = 0; i < n; ++i) w[i] = fabs(v[i] - med);
        out->noise = 1.4826 * stats_median(w, n) / med;
        out->noise_ok = out->noise <= max_noise;
    }
    free(w);
}

int stop_done(const stop_rule *r, const double *v, int n, double spent_s) {
    if (n >= r->max_trials) return 1;
    if (n < r->min_trials) return 0;
    if (spent_s >= r->max_time_s) return 1;
    bench_stats s;
    stats_compute(v, n, r->max_noise, &s);
    return s.noise_ok;
}
