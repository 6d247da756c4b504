/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GEMM rung tables, generated from rungs.def so each rung is listed once. Every entry must
 * be correct for every valid input (kernels/launch.h says what a launcher may assume). The
 * tests and the benchmark walk these tables, so a new rung is tested and timed by adding its
 * line to rungs.def; `auto` picks among them through src/auto.c.
 */
#include "../launch.h"


/* Declarations of the launchers. */
#define GEMM_RUNG(name, desc, flags) SGEMM_RUNG(name, desc, flags) DGEMM_RUNG(name, desc, flags)
#define SGEMM_RUNG(name, desc, flags) extern cudaError_t mb_sgemm_##name(const void *, cudaStream_t);
#define DGEMM_RUNG(name, desc, flags) extern cudaError_t mb_dgemm_##name(const void *, cudaStream_t);
#include "rungs.def"
#undef SGEMM_RUNG
#undef DGEMM_RUNG

#define SGEMM_RUNG(name, desc, flags) {#name, desc, mb_sgemm_##name, flags},
#define DGEMM_RUNG(name, desc, flags)
const mb_rung mb_sgemm_rungs[] = {
#include "rungs.def"
};
#undef SGEMM_RUNG
#undef DGEMM_RUNG

#define SGEMM_RUNG(name, desc, flags)
#define DGEMM_RUNG(name, desc, flags) {#name, desc, mb_dgemm_##name, flags},
const mb_rung mb_dgemm_rungs[] = {
#include "rungs.def"
};

const int mb_sgemm_rung_count = sizeof mb_sgemm_rungs / sizeof mb_sgemm_rungs[0];
const int mb_dgemm_rung_count = sizeof mb_dgemm_rungs / sizeof mb_dgemm_rungs[0];
