/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The statistics of one measurement and the rule that decides when it has enough trials
 * (pure C; used by both benchmarks, tested on the CPU by tests/test_bench_cli_cpu.c).
 *
 * Noise is the robust relative spread of the trials: 1.4826 * MAD / median (MAD: median of
 * the absolute deviations from the median; the factor makes it estimate the standard
 * deviation for normal data), so one outlier trial (a clock change, another process) does not
 * inflate it. Stopping rule (in the spirit of nvbench): trials continue until at least
 * min_trials are done and the noise is at most the target, or max_trials are done, or the
 * trials have taken max_time_s in all.
 */
#ifndef MINIBLAS_PERF_STATS_H
#define MINIBLAS_PERF_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bench_stats {
    double median, min, max; /* of the samples (same unit as the samples) */
    double noise;            /* 1.4826 MAD / median (a fraction; NaN with < 2 samples) */
    int trials;
    int noise_ok;            /* noise <= the target when the trials stopped */
} bench_stats;

typedef struct stop_rule {
    int min_trials, max_trials;
    double max_noise;  /* fraction */
    double max_time_s; /* total trial time */
} stop_rule;

/* Median of v[0..n) (v is sorted in place); NaN for n == 0. */
double stats_median(double *v, int n);
/* Statistics of v[0..n) (v is not changed); noise_ok against max_noise. */
void stats_compute(const double *v, int n, double max_noise, bench_stats *out);
/* 1 when a measurement with samples v[0..n), which took spent_s of trial time, is done. */
int stop_done(const stop_rule *r, const double *v, int n, double spent_s);

#ifdef __cplusplus
}
#endif
#endif
