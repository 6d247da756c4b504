/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which architecture the library's code runs as on a device. This file is compiled for the
 * same CUDA architectures as every kernel (CMAKE_CUDA_ARCHITECTURES), so its probe kernel has
 * code for a device exactly when the kernels do, and cudaFuncGetAttributes reports the virtual
 * architecture that code was compiled from (ptxVersion): the __CUDA_ARCH__ the kernels saw.
 * Also the device's SM count, which `auto` sizes its waves of tiles with.
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

static int sms_cache[MB_MAX_DEVICES]; /* 0: not yet queried; -1: the query failed; else sms */

static int query_sms(int device) {
    int v = 0;
    cudaError_t e = cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not the next launch's failure */
        return -1;
    }
    return v > 0 ? v : -1;
}

extern "C" miniblas_status_t mb_device_sms(int device, int *sms) {
    if (!sms) return MINIBLAS_STATUS_INVALID_VALUE;
    int v;
    if (device < 0 || device >= MB_MAX_DEVICES) {
        v = query_sms(device);
    } else {
        v = __atomic_load_n(&sms_cache[device], __ATOMIC_ACQUIRE);
        if (v == 0) {
            v = query_sms(device);
            __atomic_store_n(&sms_cache[device], v, __ATOMIC_RELEASE);
        }
    }
    *sms = v > 0 ? v : 0;
    return v > 0 ? MINIBLAS_STATUS_SUCCESS : MINIBLAS_STATUS_CUDA_ERROR;
}
