/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas: a small dense linear-algebra library for NVIDIA GPUs.
 *
 * Native API. Every matrix and vector argument is a DEVICE pointer (or managed memory).
 * Arguments follow CBLAS order and meaning (layout, transposes, sizes, alpha, A, lda, ...),
 * with 64-bit sizes so there is no hidden 2^31 cap. The cblas drop-in layer
 * (libminiblas_cblas) takes host pointers; see README.md.
 *
 * All calls return a miniblas_status_t. On MINIBLAS_STATUS_INVALID_VALUE nothing was written
 * and miniblas_last_error_param() names the offending parameter, numbered as reference CBLAS
 * numbers it for the corresponding cblas_* routine (layout is 1). The library never prints and
 * never aborts.
 *
 * Work is queued on the handle's stream. Calls return as soon as the work is queued, except the
 * reductions that return their result to host memory (miniblas_sasum, ...), which wait for it.
 * The *_device reduction variants write the result to device memory and do not synchronise.
 *
 * A handle is not thread-safe: use one handle per host thread (handles share no state).
 */
#ifndef MINIBLAS_H
#define MINIBLAS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MINIBLAS_VERSION_MAJOR, _MINOR, _PATCH and MINIBLAS_VERSION_STRING (the version of the
 * header; miniblas_version() gives the library's), generated from the project's version. */
#include "miniblas_version.h"

typedef enum miniblas_status {
    MINIBLAS_STATUS_SUCCESS = 0,
    MINIBLAS_STATUS_INVALID_VALUE = 1,   /* a bad argument; miniblas_last_error_param() names it */
    MINIBLAS_STATUS_NOT_INITIALIZED = 2, /* NULL handle */
    MINIBLAS_STATUS_ALLOC_FAILED = 3,    /* device or pinned allocation failed */
    MINIBLAS_STATUS_CUDA_ERROR = 4,      /* a CUDA runtime call or a kernel launch failed */
    MINIBLAS_STATUS_UNKNOWN_RUNG = 5,    /* rung name not in the op's table (API or environment) */
    MINIBLAS_STATUS_NOT_SUPPORTED = 6,   /* the rung cannot run here: a reduced-precision rung while
                                            the math mode forbids it, or one this GPU (or this
                                            build's code for it) lacks instructions for;
                                            miniblas_last_error says which */
    /* Only from miniblas_create (miniblas_last_create_error() gives the detail): */
    MINIBLAS_STATUS_NO_DRIVER = 7,         /* no NVIDIA driver (libcuda missing, or a stub) */
    MINIBLAS_STATUS_NO_DEVICE = 8,         /* a driver, but no visible GPU */
    MINIBLAS_STATUS_DRIVER_TOO_OLD = 9,    /* the driver is older than the CUDA runtime */
    MINIBLAS_STATUS_DEVICE_UNAVAILABLE = 10 /* GPU busy (exclusive mode), prohibited, not ready */
} miniblas_status_t;

/* Same values as CBLAS_ORDER / CBLAS_TRANSPOSE, so cblas enums convert by value. */
typedef enum miniblas_layout { MiniblasRowMajor = 101, MiniblasColMajor = 102 } miniblas_layout_t;
typedef enum miniblas_transpose {
    MiniblasNoTrans = 111,
    MiniblasTrans = 112,
    MiniblasConjTrans = 113,   /* same as MiniblasTrans for real data */
    MiniblasConjNoTrans = 114  /* same as MiniblasNoTrans for real data (OpenBLAS extension) */
} miniblas_transpose_t;

/* The operations, each with its own table of rungs (kernel variants). */
typedef enum miniblas_op {
    MINIBLAS_OP_SGEMM = 0,
    MINIBLAS_OP_DGEMM,
    MINIBLAS_OP_SOMATCOPY,
    MINIBLAS_OP_DOMATCOPY,
    MINIBLAS_OP_SASUM,
    MINIBLAS_OP_DASUM,
    MINIBLAS_OP_SDOT,
    MINIBLAS_OP_DDOT,
    MINIBLAS_OP_COUNT
} miniblas_op_t;

/* Math mode: whether rungs that trade precision for speed (e.g. TF32 tensor cores) may run.
 * Default: MINIBLAS_MATH_DEFAULT (full precision only). Environment: MINIBLAS_MATH_MODE=tf32
 * allows reduced precision for handles created afterwards; miniblas_set_math_mode wins. */
typedef enum miniblas_math_mode {
    MINIBLAS_MATH_DEFAULT = 0,
    MINIBLAS_MATH_ALLOW_REDUCED_PRECISION = 1
} miniblas_math_mode_t;

typedef struct miniblas_context *miniblas_handle_t;

/* ---- version, status ---- */
const char *miniblas_version_string(void);             /* e.g. "0.1.0" */
void miniblas_version(int *major, int *minor, int *patch);
const char *miniblas_status_string(miniblas_status_t status);

/* ---- handle ---- */
/* Binds the handle to the current CUDA device and to the default stream (0); allocates the
 * handle's workspaces (reduction partials, 16 MiB for gemm's split-K partial sums, pinned
 * result slot) once, here; calls use them in the handle's stream order (miniblas_set_stream
 * makes the new stream wait for the work queued on the old one). Also creates the handle's
 * stream-ordered memory pool: large gemms whose operands the fastest kernels cannot read as
 * they are (odd leading dimensions, misaligned pointers) take aligned copies of them from it
 * for the call; up to 1 GiB of it stays reserved between calls, all of it is freed by
 * miniblas_destroy (without pools on the device, or with MINIBLAS_GEMM_COPIES=0, such calls
 * run slower kernels instead and take no memory beyond the workspaces).
 * On compute capability 9.0 and newer, the kernels after the first of a gemm call (split-K
 * sums, the 3xTF32 range guard's fixup, the gemm after its zeroing kernel) start with
 * programmatic dependent launch, overlapping the launch of each with the end of the one
 * before; MINIBLAS_PDL=0 turns that off (results are the same either way).
 * On 9.0 the FP32-accurate sgemm split in k sums its slices in a thread-block cluster where
 * every cluster fits at once; MINIBLAS_SPLITK_CLUSTER=0 sums them through the workspace and a
 * second kernel instead (same results).
 * Reads the environment (MINIBLAS_<OP>=rung, MINIBLAS_MATH_MODE, MINIBLAS_GEMM_COPIES,
 * MINIBLAS_PDL, MINIBLAS_SPLITK_CLUSTER) once, here. */
miniblas_status_t miniblas_create(miniblas_handle_t *handle);
/* Why the calling thread's last miniblas_create failed, with no handle to ask: a sentence that
 * names the cause, the CUDA call and the CUDA error name (e.g. "no CUDA device: ...
 * (cudaGetDevice: cudaErrorNoDevice, no CUDA-capable device is detected)"); "" after a
 * success. Thread-local; valid until the thread's next miniblas_create. A failed create
 * returns MINIBLAS_STATUS_NO_DRIVER, _NO_DEVICE, _DRIVER_TOO_OLD, _DEVICE_UNAVAILABLE,
 * _ALLOC_FAILED, or _CUDA_ERROR for any other CUDA failure (the message names it). */
const char *miniblas_last_create_error(void);
miniblas_status_t miniblas_destroy(miniblas_handle_t handle);
miniblas_status_t miniblas_set_stream(miniblas_handle_t handle, cudaStream_t stream);
miniblas_status_t miniblas_get_stream(miniblas_handle_t handle, cudaStream_t *stream);
int miniblas_get_device(miniblas_handle_t handle);
miniblas_status_t miniblas_set_math_mode(miniblas_handle_t handle, miniblas_math_mode_t mode);
miniblas_math_mode_t miniblas_get_math_mode(miniblas_handle_t handle);

/* Detail of the last failed call on this handle: a sentence, and the parameter number
 * (0 when the failure was not about a parameter). The message stays valid until the next call. */
const char *miniblas_last_error(miniblas_handle_t handle);
int miniblas_last_error_param(miniblas_handle_t handle);

/* ---- rungs ---- */
int miniblas_rung_count(miniblas_op_t op);                       /* 0 for an invalid op */
const char *miniblas_rung_name(miniblas_op_t op, int index);       /* NULL when out of range */
const char *miniblas_rung_description(miniblas_op_t op, int index);
const char *miniblas_op_name(miniblas_op_t op);                     /* "sgemm", ... */
/* Rung flags: what a rung needs to run. */
#define MINIBLAS_RUNG_REDUCED_PRECISION 1u /* runs only if the math mode allows reduced precision */
#define MINIBLAS_RUNG_NEEDS_SM90A 2u       /* needs a compute capability 9.0 (Hopper) GPU */
unsigned miniblas_rung_flags(miniblas_op_t op, int index);
/* The oldest GPU a rung runs on, as compute capability major * 10 + minor (80: 8.0 and newer);
 * 0 when it runs on every GPU this build has code for; -1 for an invalid op or index. A rung
 * with MINIBLAS_RUNG_NEEDS_SM90A gives 90 and runs on 9.0 only. */
int miniblas_rung_min_compute_capability(miniblas_op_t op, int index);
/* Whether a rung (a name, or "auto") can run on the handle's GPU with this build of the
 * library: MINIBLAS_STATUS_SUCCESS, or MINIBLAS_STATUS_NOT_SUPPORTED with the reason in
 * miniblas_last_error (the GPU lacks an instruction the rung needs, or the library holds no
 * code for this GPU that has it), or MINIBLAS_STATUS_UNKNOWN_RUNG. The math mode is not
 * considered (see MINIBLAS_RUNG_REDUCED_PRECISION). A call that selects a rung that cannot run
 * returns MINIBLAS_STATUS_NOT_SUPPORTED with the same reason. */
miniblas_status_t miniblas_rung_supported(miniblas_handle_t handle, miniblas_op_t op,
                                          const char *name);
/* The CUDA architectures the library was built for (CMAKE_CUDA_ARCHITECTURES), e.g.
 * "75-real;80-real;86-real;89-real;90-real;100-real;120". */
const char *miniblas_cuda_architectures(void);
/* Select a rung for one op on this handle: a name from the table, or "auto" (the default).
 * Wins over the environment variable MINIBLAS_<OP> (e.g. MINIBLAS_SGEMM=tiled). An unknown
 * name returns MINIBLAS_STATUS_UNKNOWN_RUNG, and miniblas_last_error lists the valid names. */
miniblas_status_t miniblas_set_rung(miniblas_handle_t handle, miniblas_op_t op, const char *name);
const char *miniblas_get_rung(miniblas_handle_t handle, miniblas_op_t op); /* setting, or "auto" */
/* The rung the last successful call of this op on this handle ran ("" before any call,
 * "none" when the call had nothing to compute, e.g. M = 0; "scale" when no rung was needed:
 * gemm with alpha == 0 or K == 0, omatcopy with alpha == 0). */
const char *miniblas_last_rung(miniblas_handle_t handle, miniblas_op_t op);
/* The rung `auto` would run on this handle for a gemm (op MINIBLAS_OP_SGEMM or _DGEMM) of this
 * shape, arguments as miniblas_sgemm takes them; NULL for a NULL handle, another op or a
 * negative size. */
const char *miniblas_gemm_auto_rung(miniblas_handle_t handle, miniblas_op_t op,
                                    miniblas_layout_t layout, miniblas_transpose_t transa,
                                    miniblas_transpose_t transb, int64_t m, int64_t n, int64_t k);

/* ---- GEMM: C = alpha * op(A) * op(B) + beta * C ----
 * beta == 0: C is not read (NaN in C does not survive). alpha == 0 or K == 0: A and B are not
 * read. M == 0 or N == 0: returns at once. */
miniblas_status_t miniblas_sgemm(miniblas_handle_t handle, miniblas_layout_t layout,
                                 miniblas_transpose_t transa, miniblas_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, float alpha,
                                 const float *A, int64_t lda, const float *B, int64_t ldb,
                                 float beta, float *C, int64_t ldc);
miniblas_status_t miniblas_dgemm(miniblas_handle_t handle, miniblas_layout_t layout,
                                 miniblas_transpose_t transa, miniblas_transpose_t transb,
                                 int64_t m, int64_t n, int64_t k, double alpha,
                                 const double *A, int64_t lda, const double *B, int64_t ldb,
                                 double beta, double *C, int64_t ldc);

/* ---- out-of-place scaled copy / transpose: B = alpha * op(A) (OpenBLAS cblas_?omatcopy) ----
 * A is rows x cols in the given layout; B is rows x cols (NoTrans) or cols x rows (Trans).
 * rows == 0 or cols == 0 returns at once. alpha == 0: B = 0 and A is not read (NaN or Inf in
 * A gives 0). A and B must not overlap. */
miniblas_status_t miniblas_somatcopy(miniblas_handle_t handle, miniblas_layout_t layout,
                                     miniblas_transpose_t trans, int64_t rows, int64_t cols,
                                     float alpha, const float *A, int64_t lda,
                                     float *B, int64_t ldb);
miniblas_status_t miniblas_domatcopy(miniblas_handle_t handle, miniblas_layout_t layout,
                                     miniblas_transpose_t trans, int64_t rows, int64_t cols,
                                     double alpha, const double *A, int64_t lda,
                                     double *B, int64_t ldb);

/* ---- reductions (reference BLAS semantics) ----
 * asum: sum |x_i|; n <= 0 or incx <= 0 gives 0.
 * dot: sum x_i y_i; n <= 0 gives 0; a negative increment walks that vector from its end;
 *      a zero increment repeats element 0.
 * miniblas_Xasum / miniblas_Xdot: *result is HOST memory; the call waits for the stream.
 * miniblas_Xasum_device / miniblas_Xdot_device: *result is DEVICE memory; no host
 * synchronisation (for pipelines and kernel timing). */
miniblas_status_t miniblas_sasum(miniblas_handle_t handle, int64_t n, const float *x, int64_t incx,
                                 float *result);
miniblas_status_t miniblas_dasum(miniblas_handle_t handle, int64_t n, const double *x,
                                 int64_t incx, double *result);
miniblas_status_t miniblas_sdot(miniblas_handle_t handle, int64_t n, const float *x, int64_t incx,
                                const float *y, int64_t incy, float *result);
miniblas_status_t miniblas_ddot(miniblas_handle_t handle, int64_t n, const double *x, int64_t incx,
                                const double *y, int64_t incy, double *result);
miniblas_status_t miniblas_sasum_device(miniblas_handle_t handle, int64_t n, const float *x,
                                        int64_t incx, float *result);
miniblas_status_t miniblas_dasum_device(miniblas_handle_t handle, int64_t n, const double *x,
                                        int64_t incx, double *result);
miniblas_status_t miniblas_sdot_device(miniblas_handle_t handle, int64_t n, const float *x,
                                       int64_t incx, const float *y, int64_t incy, float *result);
miniblas_status_t miniblas_ddot_device(miniblas_handle_t handle, int64_t n, const double *x,
                                       int64_t incx, const double *y, int64_t incy,
                                       double *result);

#ifdef __cplusplus
}
#endif
#endif /* MINIBLAS_H */
