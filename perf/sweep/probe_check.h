/* SPDX-License-Identifier: BSD-3-Clause */
/* The one-off probes' check of a CUDA runtime call: on an error, its text and place on stderr,
 * then exit. Included from the probe's own folder, so each still builds with one nvcc line. */
#ifndef MINIBLAS_PROBE_CHECK_H
#define MINIBLAS_PROBE_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                              \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#endif
