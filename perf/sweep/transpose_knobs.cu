/* SPDX-License-Identifier: BSD-3-Clause */
// Transpose knob experiment: the vectorized rung (kernels/transpose/05_vectorized.cu) compiled
// with -D knobs (VEC_BAND, VEC_LATE_TRIGGER, VEC_STREAM_STORES, VEC_PREFETCH, VEC_BLOCKS_PER_SM,
// VEC_F_BIG_TR/TC), timed in a loop of back-to-back launches (median of 7), result spot-checked.
// Built and run by transpose_knobs.sh; prints one line per size and the copy ceiling.
#include "../../kernels/transpose/05_vectorized.cu"
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); exit(1);} } while (0)
__global__ void fill(float *p, size_t n) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; for (; i < n; i += (size_t)gridDim.x * blockDim.x) p[i] = (float)((i * 2654435761u) % 1000) * 0.001f - 0.5f; }
template <typename T> static double run(int64_t rows, int64_t cols, const char *name) {
    size_t n = (size_t)rows * cols;
    T *A, *B; CK(cudaMalloc(&A, n * sizeof(T))); CK(cudaMalloc(&B, n * sizeof(T)));
    fill<<<1024, 256>>>((float *)A, n * sizeof(T) / 4); CK(cudaDeviceSynchronize());
    mb_omatcopy_args a = {1, rows, cols, 1.0, A, rows, B, cols};
    cudaStream_t s; CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    auto launch = [&]() { cudaError_t e = sizeof(T) == 4 ? mb_somatcopy_vectorized(&a, s) : mb_domatcopy_vectorized(&a, s); CK(e); };
    for (int i = 0; i < 5; ++i) launch();
    CK(cudaStreamSynchronize(s));
    // check a few elements exactly
    std::vector<T> ha(n), hb(n);
    CK(cudaMemcpy(ha.data(), A, n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), B, n * sizeof(T), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t t = 0; t < n; t += 9973) { int64_t i = t % rows, j = t / rows; if (hb[j + i * cols] != ha[i + j * rows]) ++bad; }
    std::vector<float> ts;
    int reps = 0; float ms = 0;
    CK(cudaEventRecord(e0, s)); launch(); CK(cudaEventRecord(e1, s)); CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1));
    reps = std::max(1, (int)(10.0f / ms));
    for (int tr = 0; tr < 7; ++tr) {
        CK(cudaEventRecord(e0, s)); for (int r = 0; r < reps; ++r) launch(); CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms / reps);
    }
    std::sort(ts.begin(), ts.end());
    double gbs = 2.0 * n * sizeof(T) / (ts[3] * 1e-3) / 1e9;
    printf("%-10s %s %5lldx%-5lld %8.2f us %7.0f GB/s%s\n", name, sizeof(T) == 4 ? "f" : "d", (long long)rows, (long long)cols, ts[3] * 1e3, gbs, bad ? "  BAD" : "");
    fflush(stdout);
    CK(cudaFree(A)); CK(cudaFree(B)); CK(cudaStreamDestroy(s));
    return gbs;
}
int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "?";
    if (argc > 2) { // copy ceiling
        size_t bytes = 1ull << 30; void *a, *b; CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes));
        cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); std::vector<float> ts;
        for (int i = 0; i < 7; ++i) { float ms; CK(cudaEventRecord(e0)); CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); CK(cudaEventElapsedTime(&ms, e0, e1)); ts.push_back(ms); }
        std::sort(ts.begin(), ts.end()); printf("copy ceiling %.0f GB/s\n", 2.0 * bytes / (ts[3] * 1e-3) / 1e9);
        return 0;
    }
    run<float>(4096, 4096, name); run<float>(8192, 2048, name); run<float>(2048, 8192, name); run<float>(8192, 8192, name);
    run<double>(4096, 4096, name);
    return 0;
}
