/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reduction rung tables (sasum, dasum, sdot, ddot), generated from rungs.def so each rung
 * is listed once. The tests and the benchmark walk these tables; `auto` picks through
 * src/auto.c.
 */
#include "../launch.h"

#define REDUCE_RUNG(name, desc, flags)                                                        \
    extern cudaError_t mb_sasum_##name(const void *, cudaStream_t);                           \
    extern cudaError_t mb_dasum_##name(const void *, cudaStream_t);                           \
    extern cudaError_t mb_sdot_##name(const void *, cudaStream_t);                            \
    extern cudaError_t mb_ddot_##name(const void *, cudaStream_t);
#include "rungs.def"
#undef REDUCE_RUNG

#define REDUCE_RUNG(name, desc, flags) {#name, desc, mb_sasum_##name, flags},
const mb_rung mb_sasum_rungs[] = {
#include "rungs.def"
};
#undef REDUCE_RUNG
#define REDUCE_RUNG(name, desc, flags) {#name, desc, mb_dasum_##name, flags},
const mb_rung mb_dasum_rungs[] = {
#include "rungs.def"
};
#undef REDUCE_RUNG
#define REDUCE_RUNG(name, desc, flags) {#name, desc, mb_sdot_##name, flags},
const mb_rung mb_sdot_rungs[] = {
#include "rungs.def"
};
#undef REDUCE_RUNG
#define REDUCE_RUNG(name, desc, flags) {#name, desc, mb_ddot_##name, flags},
const mb_rung mb_ddot_rungs[] = {
#include "rungs.def"
};

const int mb_sasum_rung_count = sizeof mb_sasum_rungs / sizeof mb_sasum_rungs[0];
const int mb_dasum_rung_count = sizeof mb_dasum_rungs / sizeof mb_dasum_rungs[0];
const int mb_sdot_rung_count = sizeof mb_sdot_rungs / sizeof mb_sdot_rungs[0];
const int mb_ddot_rung_count = sizeof mb_ddot_rungs / sizeof mb_ddot_rungs[0];
