/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which architecture the library's code runs as on a device. This file is compiled for the
 * same CUDA architectures as every kernel (CMAKE_CUDA_ARCHITECTURES), so its probe kernel has
 * code for a device exactly when the kernels do, and cudaFuncGetAttributes reports the virtual
 * architecture that code was compiled from (ptxVersion): the __CUDA_ARCH__ the kernels saw.
 */
#include <cuda_runtime_api.h>
#include "arch.h"

__global__ void mb_arch_probe(void) {}

#define MB_MAX_DEVICES 64
static int code_cc_cache[MB_MAX_DEVICES]; /* 0: not yet probed; else value + 2 */

static int probe(int device) {
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    if (cur != device && cudaSetDevice(device) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    cudaFuncAttributes fa;
    cudaError_t e = cudaFuncGetAttributes(&fa, mb_arch_probe);
    cudaGetLastError(); /* a missing image must not look like the next launch's failure */
    if (cur != device) cudaSetDevice(cur);
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorInvalidKernelImage || e == cudaErrorUnsupportedPtxVersion)
        return 0;
    if (e != cudaSuccess) return -1;
    return fa.ptxVersion > 0 ? fa.ptxVersion : fa.binaryVersion;
}

extern "C" int mb_code_cc(int device) {
    if (device < 0 || device >= MB_MAX_DEVICES) return probe(device);
    int v = __atomic_load_n(&code_cc_cache[device], __ATOMIC_ACQUIRE);
    if (v == 0) {
        v = probe(device) + 2;
        __atomic_store_n(&code_cc_cache[device], v, __ATOMIC_RELEASE);
    }
    return v - 2;
}
