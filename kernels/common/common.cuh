/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared helpers for the kernel launchers: the launcher-generating macros (one template
 * serves float and double) and small index helpers. CUDA C; templates only for the precision.
 */
#ifndef MINIBLAS_KERNELS_COMMON_CUH
#define MINIBLAS_KERNELS_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include "../launch.h"

static inline int64_t mb_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Grid dimension capped to what the hardware allows; kernels loop (grid-stride) past it. */
static inline unsigned mb_grid_dim(int64_t blocks, int64_t cap) {
    return (unsigned)(blocks < 1 ? 1 : (blocks > cap ? cap : blocks));
}
#define MB_GRID_X_MAX 2147483647LL
#define MB_GRID_YZ_MAX 65535LL

/* SM count and compute-capability major of the current device, cached per device (both are
 * constant): launchers size their grids to the machine without a runtime query per call. */
#define MB_MAX_DEVICES 64
static inline cudaError_t mb_device_info(int *sms, int *cc_major) {
    static int cache_sms[MB_MAX_DEVICES], cache_major[MB_MAX_DEVICES];
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    const int cached = dev >= 0 && dev < MB_MAX_DEVICES;
    int v = cached ? __atomic_load_n(&cache_sms[dev], __ATOMIC_RELAXED) : 0;
    int m = cached ? __atomic_load_n(&cache_major[dev], __ATOMIC_RELAXED) : 0;
    if (v <= 0 || m <= 0) {
        e = cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev);
        if (e != cudaSuccess) return e;
        e = cudaDeviceGetAttribute(&m, cudaDevAttrComputeCapabilityMajor, dev);
        if (e != cudaSuccess) return e;
        if (cached) {
            __atomic_store_n(&cache_sms[dev], v, __ATOMIC_RELAXED);
            __atomic_store_n(&cache_major[dev], m, __ATOMIC_RELAXED);
        }
    }
    if (sms) *sms = v;
    if (cc_major) *cc_major = m;
    return cudaSuccess;
}

/* cudaFuncSetAttribute(func, MaxDynamicSharedMemorySize, bytes) once per kernel and device
 * (it is a driver call, host time on every launch otherwise, which small problems feel).
 * `done`: the kernel's own mask of the devices already set (a device past 63: every call). */
static inline cudaError_t mb_smem_limit_once(const void *func, int bytes, unsigned long long *done) {
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    const unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0ull;
    if (bit && (__atomic_load_n(done, __ATOMIC_RELAXED) & bit)) return cudaSuccess;
    e = cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (e == cudaSuccess && bit) __atomic_fetch_or(done, bit, __ATOMIC_RELAXED);
    return e;
}

/* With cap: the dynamic shared memory that keeps a grid of `blocks` blocks of `smem` bytes
 * to at most ceil(blocks / SMs) of them on any SM, for a grid of one wave (per_sm: the blocks
 * an SM holds at least). A grid launched on an idle GPU is spread so anyway; one scheduled
 * while the grid before it drains (programmatic dependent launch) is not: its blocks take the
 * slots as they free, an SM that frees early is handed more of them than the others, and it
 * ends last. *bytes: smem, or the raised amount where that caps the blocks per SM (never
 * without cap); *optin: the most a block may ask (the kernel's MaxDynamicSharedMemorySize
 * must allow *bytes). */
static inline cudaError_t mb_one_wave_smem(size_t smem, int64_t blocks, int per_sm, int cap,
                                           size_t *bytes, int *optin) {
    static int cache[MB_MAX_DEVICES][3]; /* per SM, reserved per block, opt-in per block */
    int dev = 0, sms = 0;
    *bytes = smem;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e == cudaSuccess) e = cudaGetDevice(&dev);
    if (e != cudaSuccess) return e;
    const int cached = dev >= 0 && dev < MB_MAX_DEVICES;
    int v[3] = {0, 0, 0};
    for (int i = 0; cached && i < 3; ++i) v[i] = __atomic_load_n(&cache[dev][i], __ATOMIC_RELAXED);
    if (v[0] <= 0 || v[2] <= 0) {
        const cudaDeviceAttr a[3] = {cudaDevAttrMaxSharedMemoryPerMultiprocessor,
                                     cudaDevAttrReservedSharedMemoryPerBlock,
                                     cudaDevAttrMaxSharedMemoryPerBlockOptin};
        for (int i = 0; i < 3; ++i) {
            e = cudaDeviceGetAttribute(&v[i], a[i], dev);
            if (e != cudaSuccess) return e;
            if (cached) __atomic_store_n(&cache[dev][i], v[i], __ATOMIC_RELAXED);
        }
    }
    *optin = v[2];
    const int64_t want = mb_cdiv(blocks, sms); /* blocks per SM when spread */
    if (!cap || sms <= 0 || want >= per_sm) return cudaSuccess;
    /* want + 1 blocks of this size exceed the SM's shared memory; want of them fit */
    const int64_t b = v[0] / (want + 1) - v[1] + 128;
    if (b > (int64_t)smem && b <= v[2]) *bytes = (size_t)b;
    return cudaSuccess;
}

/* Programmatic dependent launch (sm_90): wait for the previous grid in the stream to finish
 * and flush its memory; allow the next grid to be scheduled. No-ops without a PDL launch. */
__device__ __forceinline__ void mb_grid_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void mb_grid_launch_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
/* The slab sums of split-K (splitk.cuh, x3guard.cuh) walk C column by column: a thread per
 * row, the threads of a block on consecutive rows (coalesced), blockIdx.y over the columns
 * (both grid-stride past the grid's limits), so no element needs a division to find its
 * row and column. The grid and block for m x n (host). */
static inline void mb_colwise_grid(int64_t m, int64_t n, dim3 *grid, dim3 *block) {
    const int64_t t = m < 256 ? (m + 31) / 32 * 32 : 256;
    *block = dim3((unsigned)t);
    *grid = dim3(mb_grid_dim(mb_cdiv(m, t), MB_GRID_X_MAX), mb_grid_dim(n, MB_GRID_YZ_MAX));
}
/* a / b for 0 <= a, 0 < b, in 32 bits where a fits (a 64-bit division is a long subroutine). */
__host__ __device__ __forceinline__ int64_t mb_div_small(int64_t a, int b) {
    return a <= 2147483647 ? (int64_t)((int)a / b) : a / b;
}

/* Host: the launch configuration of cudaLaunchKernelEx for grid x block threads with smem bytes
 * of dynamic shared memory on stream s; pdl: programmatic stream serialization (the kernel may
 * start before the previous kernel in the stream has finished and must call mb_grid_wait in
 * every block before it touches what that kernel writes or reads). attr: one attribute's
 * storage, alive until the launch. */
static inline cudaLaunchConfig_t mb_launch_cfg(cudaLaunchAttribute *attr, dim3 grid, dim3 block,
                                               size_t smem, cudaStream_t s, int pdl) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    attr[0] = cudaLaunchAttribute{};
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    return cfg;
}

template <typename T> __device__ __forceinline__ T mb_abs(T v);
template <> __device__ __forceinline__ float mb_abs<float>(float v) { return fabsf(v); }
template <> __device__ __forceinline__ double mb_abs<double>(double v) { return fabs(v); }

/*
 * Each rung file defines a template `template <typename T> cudaError_t launch(const ARGS *,
 * cudaStream_t)` (under any name) and generates its two C entry points with one of these.
 * The names follow mb_<s|d><op>_<rung>, as listed in kernels/<family>/rungs.c.
 */
#define MB_GEMM_LAUNCHERS(rung, fn)                                                           \
    extern "C" cudaError_t mb_sgemm_##rung(const void *a, cudaStream_t s) {                   \
        return fn<float>((const mb_gemm_args *)a, s);                                         \
    }                                                                                         \
    extern "C" cudaError_t mb_dgemm_##rung(const void *a, cudaStream_t s) {                   \
        return fn<double>((const mb_gemm_args *)a, s);                                        \
    }

#define MB_OMATCOPY_LAUNCHERS(rung, fn)                                                       \
    extern "C" cudaError_t mb_somatcopy_##rung(const void *a, cudaStream_t s) {               \
        return fn<float>((const mb_omatcopy_args *)a, s);                                     \
    }                                                                                         \
    extern "C" cudaError_t mb_domatcopy_##rung(const void *a, cudaStream_t s) {               \
        return fn<double>((const mb_omatcopy_args *)a, s);                                    \
    }

/* Reductions: fn<T, IS_DOT>(const mb_reduce_args *, cudaStream_t). */
#define MB_REDUCE_LAUNCHERS(rung, fn)                                                         \
    extern "C" cudaError_t mb_sasum_##rung(const void *a, cudaStream_t s) {                   \
        return fn<float, false>((const mb_reduce_args *)a, s);                                \
    }                                                                                         \
    extern "C" cudaError_t mb_dasum_##rung(const void *a, cudaStream_t s) {                   \
        return fn<double, false>((const mb_reduce_args *)a, s);                               \
    }                                                                                         \
    extern "C" cudaError_t mb_sdot_##rung(const void *a, cudaStream_t s) {                    \
        return fn<float, true>((const mb_reduce_args *)a, s);                                 \
    }                                                                                         \
    extern "C" cudaError_t mb_ddot_##rung(const void *a, cudaStream_t s) {                    \
        return fn<double, true>((const mb_reduce_args *)a, s);                                \
    }

/* Element i of a reduction operand: the term |x_i| (asum) or x_i * y_i (dot). */
template <typename T, bool IS_DOT>
__device__ __forceinline__ T mb_reduce_term(const T *x, const T *y, int64_t i, int64_t incx,
                                            int64_t incy) {
    if (IS_DOT) return x[i * incx] * y[i * incy];
    return mb_abs<T>(x[i * incx]);
}

#endif
