/* SPDX-License-Identifier: BSD-3-Clause */
/* Tile-configuration sweep of the GEMM kernels (not part of the library build).
 * Every family file (sweep_*.cu) instantiates its configurations for the NN case only
 * (column-major, transa = transb = 0) and exports one table of them. */
#ifndef SWEEP_H
#define SWEEP_H
#include <stddef.h>
#include <cuda_runtime.h>
#include "launch.h"

typedef cudaError_t (*sw_launch_fn)(const mb_gemm_args *, cudaStream_t);
/* Sets the kernel's dynamic shared-memory limit, then reads its attributes (registers, local
 * memory = spills) and how many blocks fit on an SM. */
typedef cudaError_t (*sw_info_fn)(cudaFuncAttributes *attr, int *blocks_per_sm);

typedef struct {
    const char *name; /* BMxBNxBK/wWMxWN[/tTMxTN]/sSTAGES/bMINB[/kKS] */
    const char *note; /* what it changes vs the configuration in use */
    sw_launch_fn launch;
    sw_info_fn info;
    size_t smem;      /* dynamic shared memory, bytes */
    int threads;
} sw_cfg;

/* Each family file is compiled twice (-DSW_PART=0 / 1, half of its table each, in parallel):
 * it defines sw_<family>_p<part>[] and sw_<family>_n_p<part>. */
#define SW_CAT2(a, b) a##_p##b
#define SW_CAT(a, b) SW_CAT2(a, b)
#define SW_PART_NAME(x) SW_CAT(x, SW_PART)
#define SW_FAMILY(id) \
    extern const sw_cfg sw_##id##_p0[]; \
    extern const int sw_##id##_n_p0; \
    extern const sw_cfg sw_##id##_p1[]; \
    extern const int sw_##id##_n_p1;
SW_FAMILY(dmma)
SW_FAMILY(dmid)
SW_FAMILY(dswz)
SW_FAMILY(tf32x3)
SW_FAMILY(simt_s)
SW_FAMILY(simt_d)
#undef SW_FAMILY

/* The library's own launchers (what dispatch calls today, all configs/shape rules included). */
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s);
cudaError_t mb_sgemm_tf32x3(const void *a, cudaStream_t s);
cudaError_t mb_sgemm_tuned(const void *a, cudaStream_t s);
cudaError_t mb_dgemm_tuned(const void *a, cudaStream_t s);
#ifdef __cplusplus
}
#endif
#endif
