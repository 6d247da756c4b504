/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The omatcopy (transpose) rung tables, generated from rungs.def so each rung is listed once.
 * The tests and the benchmark walk these tables; `auto` picks through src/auto.c.
 */
#include "../launch.h"

#define OMATCOPY_RUNG(name, desc, flags)                                                      \
    extern cudaError_t mb_somatcopy_##name(const void *, cudaStream_t);                       \
    extern cudaError_t mb_domatcopy_##name(const void *, cudaStream_t);
#include "rungs.def"
#undef OMATCOPY_RUNG

#define OMATCOPY_RUNG(name, desc, flags) {#name, desc, mb_somatcopy_##name, flags},
const mb_rung mb_somatcopy_rungs[] = {
#include "rungs.def"
};
#undef OMATCOPY_RUNG
#define OMATCOPY_RUNG(name, desc, flags) {#name, desc, mb_domatcopy_##name, flags},
const mb_rung mb_domatcopy_rungs[] = {
#include "rungs.def"
};

const int mb_somatcopy_rung_count = sizeof mb_somatcopy_rungs / sizeof mb_somatcopy_rungs[0];
const int mb_domatcopy_rung_count = sizeof mb_domatcopy_rungs / sizeof mb_domatcopy_rungs[0];
