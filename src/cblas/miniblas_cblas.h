/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Extras of libminiblas_cblas beyond the standard cblas.h / Fortran BLAS symbols it provides.
 * A program written against cblas.h needs none of this; tests and the benchmark use it to
 * pin the path a call takes and to see which path the last call took. Pure C.
 */
#ifndef MINIBLAS_CBLAS_H
#define MINIBLAS_CBLAS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Paths. */
#define MINIBLAS_CBLAS_PATH_AUTO (-1)  /* force_path: decide by size (the default) */
#define MINIBLAS_CBLAS_PATH_NONE (-1)  /* last_path: nothing ran (bad argument, empty problem) */
#define MINIBLAS_CBLAS_PATH_CPU 0      /* the CPU BLAS ran the whole call */
#define MINIBLAS_CBLAS_PATH_GPU 1      /* the GPU ran it; host operands were staged */
#define MINIBLAS_CBLAS_PATH_GPU_INPLACE 2 /* the GPU ran it on device/managed operands only */
#define MINIBLAS_CBLAS_PATH_GPU_FALLBACK 3 /* the GPU failed; the CPU BLAS completed the call */

/* Force every later call of every thread onto a path: MINIBLAS_CBLAS_PATH_CPU, _GPU, or _AUTO.
 * Forcing the GPU when none is usable still runs on the CPU (quietly). Calls on device or
 * managed pointers always run on the GPU. Returns the previous setting. */
int miniblas_cblas_force_path(int path);

/* The path the calling thread's last cblas_* / Fortran call took (MINIBLAS_CBLAS_PATH_*). */
int miniblas_cblas_last_path(void);

/* 1 when the layer found a usable GPU (and MINIBLAS_CBLAS_GPU is not 0), else 0. */
int miniblas_cblas_gpu_available(void);

/* The CPU BLAS the layer loaded (the dlopen name that worked), or NULL when none loaded. */
const char *miniblas_cblas_cpu_blas(void);

#ifdef __cplusplus
}
#endif
#endif
