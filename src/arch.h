/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What this build of libminiblas can run on a GPU: the compute capability of the device and
 * the architecture of the code the library runs there. Used by the rung registry (rungs.c) and
 * `auto` (auto.c).
 */
#ifndef MINIBLAS_ARCH_H
#define MINIBLAS_ARCH_H

#include "miniblas.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compute capabilities are written major * 10 + minor: 75, 80, 86, 90, 100, 120. */
typedef struct mb_target {
    int cc;        /* the device's compute capability */
    int code_cc;   /* the architecture the library's kernels were compiled for, as they run on
                      this device (SASS for it, or PTX the driver compiled): 0 when the library
                      has no code this device can run */
    int has_sm90a; /* the library contains the sm_90a kernels (Hopper-only instructions) */
    int sms;       /* the device's SM count (mb_device_sms); 0: unknown, and `auto` takes no
                      rule that depends on it */
} mb_target;

/* The architecture of the code the library runs on `device` (cudaFuncGetAttributes on a kernel
 * compiled like every kernel of the library): > 0 as above, 0 when the library has no code for
 * the device, -1 when the CUDA runtime could not say (no device, no driver). Cached per device;
 * leaves no CUDA error behind (cudaGetLastError is clean afterwards). */
int mb_code_cc(int device);

/* The SM count of `device` into *sms (cudaDevAttrMultiProcessorCount). Cached per device (a
 * failure too); MINIBLAS_STATUS_CUDA_ERROR with *sms = 0 when the CUDA runtime cannot say (no
 * device, no driver), MINIBLAS_STATUS_INVALID_VALUE for a NULL sms. Leaves no CUDA error
 * behind. */
miniblas_status_t mb_device_sms(int device, int *sms);

/* The target of a device of compute capability cc: code_cc from mb_code_cc(device) (where the
 * runtime cannot say, cc itself), has_sm90a from the build, sms from mb_device_sms(device)
 * (0 where the runtime cannot say). */
mb_target mb_target_of(int device, int cc);

/* 1 when the build contains sm_90a code (its CUDA architectures include 9.0). */
int mb_build_has_sm90a(void);

/* The minimum compute capability of a rung (0: any GPU the build has code for), from the
 * registry's table in rungs.c. */
int mb_rung_min_cc(miniblas_op_t op, int index);

/* Whether rung `index` of `op` runs on target t; when not, a sentence saying why into why
 * (may be NULL). */
int mb_rung_runs(miniblas_op_t op, int index, const mb_target *t, char *why, size_t why_size);

/* `auto` for an explicit target: the first row of the family's table (auto.c) whose bounds hold
 * and whose rung runs on t (and is allowed by the math mode). -1 when no rung runs. */
int mb_auto_pick_target(miniblas_op_t op, const struct mb_shape *shape, int allow_reduced,
                        const mb_target *t);

/* The name of the architecture family whose `auto` table serves compute capability cc:
 * "7.5", "8.0", "8.6/8.9", "9.0", "10.x", "12.x". */
const char *mb_auto_family(int cc);

#ifdef __cplusplus
}
#endif
#endif
