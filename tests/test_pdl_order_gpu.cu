/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream order with programmatic dependent launch (kernels/launch.h): the first kernel of a
 * gemm call may itself be a dependent launch (the 3xTF32 range guard's zeroing kernel; dgemm's
 * gemm kernel where its grid is one capped wave), resident before the kernel before it ends.
 * Here that kernel is the caller's own: it lets dependent launches be scheduled at once
 * (griddepcontrol.launch_dependents), waits 200 us, and only then writes A. The gemm call
 * after it on the same stream reads A; its C must be bitwise the C of the same call made after
 * a device synchronisation (three times per shape). A first kernel that read A, or let a
 * kernel that reads A be scheduled, before its griddepcontrol.wait would read zeros.
 * Shapes (132 SMs): sgemm auto 1024^3 and 512^3 (zeroing kernel, then a TMA gemm that reads A
 * before its own wait), dgemm auto 640^3 and 512^3 (capped dependent waves), 2048^3 (plain).
 * Before compute capability 9.0 there is no dependent launch, and this checks plain order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "gpu_test_util.h"
}

#define OPN "pdl-order"

/* Lets dependents be scheduled, waits delay_ns, then copies n16 16-byte words src -> dst. */
__global__ void late_copy(const uint4 *src, uint4 *dst, size_t n16, unsigned long long delay_ns) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (t - t0 < delay_ns);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

static miniblas_status_t gemm(miniblas_handle_t h, int dbl, int64_t n, const void *A,
                              const void *B, void *C) {
    if (dbl)
        return miniblas_dgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, n, n, n,
                              1.0, (const double *)A, n, (const double *)B, n, 0.0,
                              (double *)C, n);
    return miniblas_sgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, n, n, n, 1.0f,
                          (const float *)A, n, (const float *)B, n, 0.0f, (float *)C, n);
}

static void run(miniblas_handle_t h, cudaStream_t cs, int dbl, int64_t n) {
    const size_t es = mbt_elem(dbl), nn = (size_t)(n * n), bytes = nn * es;
    char kase[64];
    snprintf(kase, sizeof kase, "%s auto %lld^3", dbl ? "dgemm" : "sgemm", (long long)n);
    mbt_context("%s", kase);
    void *hA = mbt_host_alloc(bytes), *hB = mbt_host_alloc(bytes);
    void *r0 = mbt_host_alloc(bytes), *r1 = mbt_host_alloc(bytes);
    mbt_fill_uniform(hA, nn, dbl);
    mbt_fill_uniform(hB, nn, dbl);
    void *src = mbt_dev_alloc(bytes), *dA = mbt_dev_alloc(bytes), *dB = mbt_dev_alloc(bytes);
    void *dC = mbt_dev_alloc(bytes);
    mbt_h2d(src, hA, bytes);
    mbt_h2d(dA, hA, bytes);
    mbt_h2d(dB, hB, bytes);
    mbt_device_sync();
    miniblas_status_t st = gemm(h, dbl, n, dA, dB, dC);
    mbt_device_sync();
    if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "call: %s",
                    miniblas_last_error(h)))
        goto out;
    mbt_d2h(r0, dC, bytes);
    for (int rep = 0; rep < 3; ++rep) {
        MBT_CUDA(cudaMemset(dA, 0, bytes));
        MBT_CUDA(cudaMemset(dC, 0xff, bytes)); /* NaN: a C not written shows */
        mbt_device_sync();
        late_copy<<<4, 256, 0, cs>>>((const uint4 *)src, (uint4 *)dA, bytes / 16, 200000ull);
        MBT_CUDA(cudaGetLastError());
        st = gemm(h, dbl, n, dA, dB, dC);
        mbt_device_sync();
        if (!mbt_expect(NULL, st == MINIBLAS_STATUS_SUCCESS, OPN, kase, "call %d: %s", rep,
                        miniblas_last_error(h)))
            goto out;
        mbt_d2h(r1, dC, bytes);
        size_t d = 0;
        for (size_t i = 0; i < nn; ++i) d += !mbt_same_bits(r0, r1, i, dbl);
        mbt_expect(NULL, d == 0, OPN, kase,
                   "call %d after a kernel writing A late: %zu of %zu elements differ", rep, d,
                   nn);
    }
out:
    mbt_dev_free(src), mbt_dev_free(dA), mbt_dev_free(dB), mbt_dev_free(dC);
    free(hA), free(hB), free(r0), free(r1);
}

int main(void) {
    mbt_init("test_pdl_order_gpu");
    miniblas_handle_t h = NULL;
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) {
        printf("miniblas_create: %s\n", miniblas_last_create_error());
        return 1;
    }
    cudaStream_t cs = NULL;
    MBT_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    if (mbt_expect(NULL, miniblas_set_stream(h, cs) == MINIBLAS_STATUS_SUCCESS, OPN, "stream",
                   "miniblas_set_stream failed")) {
        run(h, cs, 0, 1024);
        run(h, cs, 0, 512);
        run(h, cs, 1, 640);
        run(h, cs, 1, 512);
        run(h, cs, 1, 2048);
        miniblas_set_stream(h, 0);
    }
    MBT_CUDA(cudaStreamSynchronize(cs));
    cudaStreamDestroy(cs);
    miniblas_destroy(h);
    return mbt_finish();
}
