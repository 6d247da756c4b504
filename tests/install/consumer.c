/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program using the native API, built against the installed files only (tests/install/run.sh:
 * through pkg-config, shared and static, and through the CMake package). Checks the version
 * macros against the library, then on a GPU multiplies two small matrices and compares with a
 * plain loop; with no GPU, miniblas_create must fail cleanly with a CUDA status.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <miniblas.h>

int main(void) {
    int a, b, c;
    miniblas_version(&a, &b, &c);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", a, b, c);
    if (a != MINIBLAS_VERSION_MAJOR || b != MINIBLAS_VERSION_MINOR || c != MINIBLAS_VERSION_PATCH ||
        strcmp(want, MINIBLAS_VERSION_STRING) != 0 || strcmp(want, miniblas_version_string()) != 0) {
        printf("FAIL: header %s, library %s\n", MINIBLAS_VERSION_STRING, miniblas_version_string());
        return 1;
    }
    printf("miniblas %s, built for CUDA architectures %s\n", miniblas_version_string(),
           miniblas_cuda_architectures());
    miniblas_handle_t h = NULL;
    miniblas_status_t st = miniblas_create(&h);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        int no_gpu = st == MINIBLAS_STATUS_NO_DRIVER || st == MINIBLAS_STATUS_NO_DEVICE ||
                     st == MINIBLAS_STATUS_DRIVER_TOO_OLD || st == MINIBLAS_STATUS_CUDA_ERROR;
        if (!no_gpu || h != NULL) {
            printf("FAIL: miniblas_create without a GPU: %s\n", miniblas_status_string(st));
            return 1;
        }
        printf("no GPU: miniblas_create says '%s' (%s; expected here)\nOK\n",
               miniblas_status_string(st), miniblas_last_create_error());
        return 0;
    }
    enum { M = 37, N = 29, K = 41 };
    static float A[M * K], B[K * N], C[M * N], R[M * N];
    for (int i = 0; i < M * K; ++i) A[i] = (float)((i * 7919) % 101) / 50.0f - 1.0f;
    for (int i = 0; i < K * N; ++i) B[i] = (float)((i * 104729) % 97) / 48.0f - 1.0f;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) {
            double s = 0;
            for (int l = 0; l < K; ++l) s += (double)A[i + l * M] * B[l + j * K];
            R[i + j * M] = (float)s;
        }
    float *dA, *dB, *dC;
    int ok = cudaMalloc((void **)&dA, sizeof A) == cudaSuccess &&
             cudaMalloc((void **)&dB, sizeof B) == cudaSuccess &&
             cudaMalloc((void **)&dC, sizeof C) == cudaSuccess &&
             cudaMemcpy(dA, A, sizeof A, cudaMemcpyHostToDevice) == cudaSuccess &&
             cudaMemcpy(dB, B, sizeof B, cudaMemcpyHostToDevice) == cudaSuccess;
    st = ok ? miniblas_sgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, M, N, K, 1.0f,
                             dA, M, dB, K, 0.0f, dC, M)
            : MINIBLAS_STATUS_CUDA_ERROR;
    ok = ok && st == MINIBLAS_STATUS_SUCCESS &&
         cudaMemcpy(C, dC, sizeof C, cudaMemcpyDeviceToHost) == cudaSuccess;
    double err = 0;
    for (int i = 0; ok && i < M * N; ++i) err = fmax(err, fabs((double)C[i] - R[i]));
    printf("sgemm %dx%dx%d on the GPU (rung %s): max error %.3g\n", M, N, K,
           miniblas_last_rung(h, MINIBLAS_OP_SGEMM), err);
    if (!ok || !(err <= 4.0 * K * 1.2e-7 * 2.0)) {
        printf("FAIL: %s %s\n", miniblas_status_string(st), miniblas_last_error(h));
        return 1;
    }
    miniblas_destroy(h);
    printf("OK\n");
    return 0;
}
