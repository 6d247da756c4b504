/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What libminiblas_cblas sees on this machine, for tests/conformance/run.sh: whether it found
 * a usable GPU and which CPU BLAS it loaded. Prints "gpu=<0|1> cpu_blas=<name or none>".
 */
#include <stdio.h>
#include "miniblas_cblas.h"

int main(void) {
    const char *cpu = miniblas_cblas_cpu_blas();
    printf("gpu=%d cpu_blas=%s\n", miniblas_cblas_gpu_available(), cpu ? cpu : "none");
    return 0;
}
