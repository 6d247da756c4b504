/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handle: device, stream, math mode, rung settings, workspace, last error. Version and
 * status strings.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

const char *miniblas_version_string(void) { return MINIBLAS_VERSION_STRING; }

void miniblas_version(int *major, int *minor, int *patch) {
    if (major) *major = MINIBLAS_VERSION_MAJOR;
    if (minor) *minor = MINIBLAS_VERSION_MINOR;
    if (patch) *patch = MINIBLAS_VERSION_PATCH;
}

const char *miniblas_status_string(miniblas_status_t s) {
    switch (s) {
    case MINIBLAS_STATUS_SUCCESS: return "success";
    case MINIBLAS_STATUS_INVALID_VALUE: return "invalid value: an argument is out of its range";
    case MINIBLAS_STATUS_NOT_INITIALIZED: return "not initialized: the handle is NULL";
    case MINIBLAS_STATUS_ALLOC_FAILED: return "allocation failed: out of device or pinned memory";
    case MINIBLAS_STATUS_CUDA_ERROR: return "CUDA error: a runtime call or kernel launch failed";
    case MINIBLAS_STATUS_UNKNOWN_RUNG: return "unknown rung: no such kernel variant for this op";
    case MINIBLAS_STATUS_NOT_SUPPORTED: return "not supported: the rung cannot run here or in this math mode";
    case MINIBLAS_STATUS_NO_DRIVER: return "no CUDA driver: the NVIDIA driver (libcuda) is not installed or not usable";
    case MINIBLAS_STATUS_NO_DEVICE: return "no CUDA device: the driver sees no GPU (or none is visible)";
    case MINIBLAS_STATUS_DRIVER_TOO_OLD: return "CUDA driver too old: the driver is older than the CUDA runtime miniblas uses";
    case MINIBLAS_STATUS_DEVICE_UNAVAILABLE: return "CUDA device unavailable: the GPU is busy (exclusive mode), prohibited or not ready";
    }
    return "unknown status";
}

miniblas_status_t mb_fail(struct miniblas_context *h, miniblas_status_t st, int param,
                          const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    h->err_param = param;
    return st;
}

miniblas_status_t mb_cuda_fail(struct miniblas_context *h, cudaError_t e, const char *what) {
    miniblas_status_t st = (e == cudaErrorMemoryAllocation) ? MINIBLAS_STATUS_ALLOC_FAILED
                                                             : MINIBLAS_STATUS_CUDA_ERROR;
    return mb_fail(h, st, 0, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

void mb_clear_error(struct miniblas_context *h) {
    h->err[0] = '\0';
    h->err_param = 0;
}

static void release(struct miniblas_context *h) {
    if (h->pool) cudaMemPoolDestroy(h->pool);
    if (h->work) cudaFree(h->work);
    if (h->gemm_work) cudaFree(h->gemm_work);
    if (h->result_dev) cudaFree(h->result_dev);
    if (h->result_host) cudaFreeHost(h->result_host);
    free(h);
}

/* The handle's memory pool (kernels/launch.h: scratch copies of gemm operands, taken and
 * freed in stream order), where the device has memory pools; without one the launchers run
 * such calls without copies. Up to 1 GiB stays reserved between calls, so that repeated
 * calls do not map memory again. */
static void create_pool(struct miniblas_context *h) {
    int supported = 0;
    if (!h->gemm_copies) return;
    if (cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, h->device) !=
            cudaSuccess || !supported) {
        cudaGetLastError();
        return;
    }
    struct cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = h->device;
    uint64_t keep = (uint64_t)1 << 30;
    if (cudaMemPoolCreate(&h->pool, &props) != cudaSuccess) {
        h->pool = NULL;
    } else if (cudaMemPoolSetAttribute(h->pool, cudaMemPoolAttrReleaseThreshold, &keep) !=
               cudaSuccess) {
        cudaMemPoolDestroy(h->pool);
        h->pool = NULL;
    }
    cudaGetLastError(); /* a handle without a pool is still a handle */
}

/* The calling thread's detail of its last miniblas_create ("" after a success). */
static _Thread_local char g_create_err[320];

const char *miniblas_last_create_error(void) { return g_create_err; }

/* "12.4" from a CUDA version number (1000 * major + 10 * minor). */
static void cuda_version_text(int v, char *buf, size_t size) {
    snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

miniblas_status_t mb_create_status(cudaError_t e, int driver_version, int runtime_version,
                                   const char *what, char *msg, size_t msg_size) {
    char dv[16], rv[16], cause[160];
    cuda_version_text(driver_version, dv, sizeof dv);
    cuda_version_text(runtime_version, rv, sizeof rv);
    miniblas_status_t st;
    switch (e) {
    case cudaErrorMemoryAllocation:
        st = MINIBLAS_STATUS_ALLOC_FAILED;
        snprintf(cause, sizeof cause, "out of device or pinned memory for the handle's workspaces");
        break;
    case cudaErrorStubLibrary:
        st = MINIBLAS_STATUS_NO_DRIVER;
        snprintf(cause, sizeof cause, "no CUDA driver: only the stub libcuda is present");
        break;
    case cudaErrorInsufficientDriver:
    case cudaErrorCallRequiresNewerDriver:
    case cudaErrorCompatNotSupportedOnDevice:
        if (driver_version <= 0) { /* the runtime reports a missing driver as too old */
            st = MINIBLAS_STATUS_NO_DRIVER;
            snprintf(cause, sizeof cause,
                     "no CUDA driver: libcuda is not installed or cannot be loaded (runtime %s)",
                     rv);
        } else {
            st = MINIBLAS_STATUS_DRIVER_TOO_OLD;
            snprintf(cause, sizeof cause,
                     "the CUDA driver supports CUDA %s, older than the runtime's %s: update the "
                     "NVIDIA driver", dv, rv);
        }
        break;
    case cudaErrorNoDevice:
    case cudaErrorInvalidDevice:
        st = MINIBLAS_STATUS_NO_DEVICE;
        snprintf(cause, sizeof cause,
                 "no CUDA device: the driver (CUDA %s) sees no usable GPU (check "
                 "CUDA_VISIBLE_DEVICES)", dv);
        break;
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemNotReady:
        st = MINIBLAS_STATUS_DEVICE_UNAVAILABLE;
        snprintf(cause, sizeof cause,
                 "the CUDA device is unavailable: busy in exclusive-process mode, prohibited, or "
                 "not ready");
        break;
    default:
        st = MINIBLAS_STATUS_CUDA_ERROR;
        snprintf(cause, sizeof cause, "CUDA error");
        break;
    }
    if (msg && msg_size)
        snprintf(msg, msg_size, "%s (%s: %s, %s)", cause, what, cudaGetErrorName(e),
                 cudaGetErrorString(e));
    return st;
}

miniblas_status_t miniblas_create(miniblas_handle_t *out) {
    g_create_err[0] = '\0';
    if (!out) {
        snprintf(g_create_err, sizeof g_create_err, "the handle pointer is NULL (parameter 1)");
        return MINIBLAS_STATUS_INVALID_VALUE;
    }
    *out = NULL;
    struct miniblas_context *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(g_create_err, sizeof g_create_err, "out of host memory for the handle");
        return MINIBLAS_STATUS_ALLOC_FAILED;
    }
    const char *what = "cudaGetDevice";
    cudaError_t e = cudaGetDevice(&h->device);
#define STEP(call, name) \
    if (e == cudaSuccess) { \
        what = name; \
        e = (call); \
    }
    STEP(cudaDeviceGetAttribute(&h->cc_major, cudaDevAttrComputeCapabilityMajor, h->device),
         "cudaDeviceGetAttribute")
    STEP(cudaDeviceGetAttribute(&h->cc_minor, cudaDevAttrComputeCapabilityMinor, h->device),
         "cudaDeviceGetAttribute")
    STEP(cudaMalloc(&h->work, MB_WORK_BYTES), "cudaMalloc")
    STEP(cudaMemset(h->work, 0, MB_WORK_BYTES), "cudaMemset")
    STEP(cudaMalloc(&h->gemm_work, MB_GEMM_WORK_BYTES), "cudaMalloc")
    STEP(cudaMalloc(&h->result_dev, 16), "cudaMalloc")
    STEP(cudaMallocHost(&h->result_host, 16), "cudaMallocHost")
    STEP(cudaDeviceSynchronize(), "cudaDeviceSynchronize")
#undef STEP
    if (e != cudaSuccess) {
        cudaGetLastError(); /* do not leave a sticky-free error for the caller's next call */
        release(h);
        int dv = 0, rv = 0;
        if (cudaDriverGetVersion(&dv) != cudaSuccess) dv = 0; /* 0: no driver installed */
        if (cudaRuntimeGetVersion(&rv) != cudaSuccess) rv = 0;
        cudaGetLastError();
        return mb_create_status(e, dv, rv, what, g_create_err, sizeof g_create_err);
    }
    h->stream = 0;
    for (int op = 0; op < MINIBLAS_OP_COUNT; ++op) {
        h->sel[op] = MB_SEL_AUTO;
        h->last_rung[op] = "";
    }
    mb_read_environment(h);
    create_pool(h);
    *out = h;
    return MINIBLAS_STATUS_SUCCESS;
}

miniblas_status_t miniblas_destroy(miniblas_handle_t h) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    int prev = -1, dev = h->device;
    cudaGetDevice(&prev);
    if (prev != dev) cudaSetDevice(dev);
    cudaStreamSynchronize(h->stream); /* work may still use the workspace */
    release(h);
    if (prev >= 0 && prev != dev) cudaSetDevice(prev);
    return MINIBLAS_STATUS_SUCCESS;
}

/* Work already queued on the old stream may still use the workspaces: the new stream waits
 * for it (an event, no host synchronisation). */
miniblas_status_t miniblas_set_stream(miniblas_handle_t h, cudaStream_t stream) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    mb_clear_error(h);
    if (stream == h->stream) return MINIBLAS_STATUS_SUCCESS;
    int prev = -1;
    cudaGetDevice(&prev);
    cudaEvent_t ev = NULL;
    cudaError_t e = prev == h->device ? cudaSuccess : cudaSetDevice(h->device);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e == cudaSuccess) e = cudaEventRecord(ev, h->stream);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(stream, ev, 0);
    if (ev) cudaEventDestroy(ev); /* released once the wait is satisfied */
    if (prev >= 0 && prev != h->device) cudaSetDevice(prev);
    if (e != cudaSuccess) return mb_cuda_fail(h, e, "miniblas_set_stream (ordering after the old stream)");
    h->stream = stream;
    return MINIBLAS_STATUS_SUCCESS;
}

miniblas_status_t miniblas_get_stream(miniblas_handle_t h, cudaStream_t *stream) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    if (!stream) return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, 2, "stream pointer is NULL");
    *stream = h->stream;
    return MINIBLAS_STATUS_SUCCESS;
}

int miniblas_get_device(miniblas_handle_t h) { return h ? h->device : -1; }

miniblas_status_t miniblas_set_math_mode(miniblas_handle_t h, miniblas_math_mode_t mode) {
    if (!h) return MINIBLAS_STATUS_NOT_INITIALIZED;
    if (mode != MINIBLAS_MATH_DEFAULT && mode != MINIBLAS_MATH_ALLOW_REDUCED_PRECISION)
        return mb_fail(h, MINIBLAS_STATUS_INVALID_VALUE, 2, "invalid math mode %d", (int)mode);
    h->math_mode = mode;
    return MINIBLAS_STATUS_SUCCESS;
}

miniblas_math_mode_t miniblas_get_math_mode(miniblas_handle_t h) {
    return h ? h->math_mode : MINIBLAS_MATH_DEFAULT;
}

const char *miniblas_last_error(miniblas_handle_t h) {
    return h ? h->err : "NULL handle";
}

int miniblas_last_error_param(miniblas_handle_t h) { return h ? h->err_param : 0; }
