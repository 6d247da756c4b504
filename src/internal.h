/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to libminiblas: the handle, rung selection and the dispatch helpers.
 * Layers: api.c (public entry points) -> check.c (arguments) -> rungs.c/auto.c (which rung)
 * -> kernels/<family>/ (launchers).
 */
#ifndef MINIBLAS_INTERNAL_H
#define MINIBLAS_INTERNAL_H

#include <stdarg.h>
#include "miniblas.h"
#include "../kernels/launch.h"

#define MB_SEL_AUTO (-1)    /* no explicit choice */
#define MB_SEL_UNKNOWN (-2) /* the environment named a rung that does not exist */
#define MB_NAME_MAX 64

struct miniblas_context {
    int device;
    int cc_major, cc_minor;          /* compute capability of the device */
    cudaStream_t stream;             /* not owned: default 0 (legacy default stream) */
    miniblas_math_mode_t math_mode;
    int sel[MINIBLAS_OP_COUNT];      /* API setting: index, or MB_SEL_AUTO */
    int env_sel[MINIBLAS_OP_COUNT];  /* environment at creation: index, AUTO or UNKNOWN */
    char env_value[MINIBLAS_OP_COUNT][MB_NAME_MAX];
    const char *last_rung[MINIBLAS_OP_COUNT];
    char err[512];
    int err_param;
    void *work;                      /* device workspace, MB_WORK_BYTES, zero-filled */
    void *gemm_work;                 /* device workspace of gemm, MB_GEMM_WORK_BYTES */
    int gemm_copies;                 /* 0: MINIBLAS_GEMM_COPIES=0, no pool (no scratch copies) */
    int pdl;                         /* gemm launchers may use programmatic dependent launch:
                                        compute capability >= 9.0 (device and code), and
                                        MINIBLAS_PDL is not 0 (mb_gemm_args.pdl) */
    int splitk_cluster;              /* split-K may be summed in thread-block clusters:
                                        as pdl, with MINIBLAS_SPLITK_CLUSTER
                                        (mb_gemm_args.splitk_cluster) */
    cudaMemPool_t pool;              /* stream-ordered scratch of the gemm launchers, or NULL */
    void *result_dev;                /* device slot for host-result reductions */
    void *result_host;               /* pinned host slot for the same */
};

/* The shape a rung is chosen for. */
typedef struct mb_shape {
    int64_t m, n, k;     /* gemm: m, n, k; omatcopy: rows, cols (k unused); reductions: n */
    int trans;           /* omatcopy: 0/1; gemm: transa | transb << 1 (column-major, normalised) */
    int64_t incx, incy;  /* reductions */
} mb_shape;

/* Rung tables (rungs.c). */
const mb_rung *mb_op_rungs(miniblas_op_t op, int *count);
int mb_rung_index(miniblas_op_t op, const char *name);       /* -1 when unknown */
/* Comma-separated list of the valid names ("auto, naive, ..."), into buf. */
void mb_rung_name_list(miniblas_op_t op, char *buf, size_t size);
/* Parse one environment value: index, MB_SEL_AUTO (unset/empty/"auto") or MB_SEL_UNKNOWN. */
int mb_rung_parse_env(miniblas_op_t op, const char *value);
/* Read MINIBLAS_<OP>, MINIBLAS_MATH_MODE, MINIBLAS_GEMM_COPIES, MINIBLAS_PDL and
 * MINIBLAS_SPLITK_CLUSTER into a fresh
 * handle (its device and compute capability already set). */
void mb_read_environment(struct miniblas_context *h);
/* Whether a gemm feature that needs 9.0 code is on: programmatic dependent launch
 * (MINIBLAS_PDL), split-K summed in thread-block clusters (MINIBLAS_SPLITK_CLUSTER,
 * kernels/gemm/tma_ring.cuh). On unless the variable's value (NULL: unset) is "0", where the
 * device's compute capability cc and the code's code_cc (mb_code_cc; major * 10 + minor) are
 * both 9.0 or newer. */
int mb_sm90_switch(const char *env, int cc, int code_cc);
/* The environment variable of an op: "MINIBLAS_SGEMM", ... */
const char *mb_op_env_name(miniblas_op_t op);

/* Auto (auto.c): the rung for a shape; reduced-precision rungs only when allowed. Without a
 * device, so the SM count is unknown and no rule that needs it holds (mb_auto_pick_target). */
int mb_auto_pick(miniblas_op_t op, const mb_shape *shape, int allow_reduced, int cc_major,
                 int cc_minor);

/* Which rung runs this call: handle setting, else environment, else auto. On failure the
 * handle's error is set and a status returned. */
miniblas_status_t mb_select(struct miniblas_context *h, miniblas_op_t op, const mb_shape *shape,
                            const mb_rung **rung);

/* Error reporting on the handle. */
miniblas_status_t mb_fail(struct miniblas_context *h, miniblas_status_t st, int param,
                          const char *fmt, ...);
miniblas_status_t mb_cuda_fail(struct miniblas_context *h, cudaError_t e, const char *what);
void mb_clear_error(struct miniblas_context *h);

/* The status of a failed miniblas_create from the CUDA error of the call `what` and the
 * versions of the driver (0: none installed) and the runtime, as cudaDriverGetVersion /
 * cudaRuntimeGetVersion give them; a sentence naming the cause and the CUDA error into msg. */
miniblas_status_t mb_create_status(cudaError_t e, int driver_version, int runtime_version,
                                   const char *what, char *msg, size_t msg_size);

#endif
