/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's own launchers, exactly as dispatch calls them (their shape rules included):
 * rows "lib" of the table. Part 0: rungs 12 and 14 (tensor cores); part 1: rung 11 (which
 * pulls in 10_warptiled.cu with MB_GEMM_WARPTILED_NO_LAUNCHERS, so nothing is defined twice). */
#if SW_PART == 0
#include "gemm/12_dmma.cu"
#include "gemm/13_tf32x3.cu"
#else
#include "gemm/11_tuned.cu"
#endif
