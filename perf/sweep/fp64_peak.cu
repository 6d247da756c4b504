/* SPDX-License-Identifier: BSD-3-Clause */
/* Sustained arithmetic peaks of the GPU as it runs (power cap and clocks as found), one-off:
 *   DFMA  FP64 SIMT: register-only fma chains (16 independent per thread)
 *   FFMA  FP32 SIMT: the same in float
 *   DMMA  FP64 tensor cores: mma.sync m16n8k16 .f64 on register fragments (8 independent
 *         16x8 accumulators per warp, operands never reloaded: an upper bound for a GEMM)
 *   OUTER the SIMT dgemm inner loop without its loads: an 8x8 thread tile of
 *         accumulators updated by c[i][j] = fma(a[i], b[j], c[i][j]) with a and b in
 *         registers, one block of 256 threads per SM as in the tuned rung (an upper bound for
 *         the SIMT dgemm rungs: a GEMM adds shared and global loads, and their power).
 *         H200 (two measurements): 28.3-28.6 TFLOP/s at 1980 MHz and 637-650 W, against
 *         33.1 TFLOP/s at 515-525 W for DFMA; the tuned SIMT dgemm: 21 TFLOP/s at the 700 W cap
 * Each kernel is calibrated to run ~0.7 s, then run REPS times; TFLOP/s of each run, and the
 * SM clock / power read by nvidia-smi while the last run is in flight.
 * Build: nvcc -O3 -arch=sm_90 -o fp64_peak fp64_peak.cu      Run: ./fp64_peak [seconds]
 */
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <unistd.h>
#include <cuda_runtime.h>

#include "probe_check.h"

static const int CH = 16; /* independent chains per thread */

template <typename T>
__global__ void __launch_bounds__(256) fma_kernel(T *out, long iters, T a, T b) {
    T x[CH];
#pragma unroll
    for (int i = 0; i < CH; ++i) x[i] = (T)(threadIdx.x + i) * (T)1e-3;
    for (long it = 0; it < iters; ++it) {
#pragma unroll
        for (int r = 0; r < 8; ++r)
#pragma unroll
            for (int i = 0; i < CH; ++i) x[i] = fma(x[i], a, b);
    }
    T s = 0;
#pragma unroll
    for (int i = 0; i < CH; ++i) s += x[i];
    if (s == (T)-12345.678) out[0] = s; /* never true; keeps the chains alive */
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
/* flops per thread per iteration: 8 * CH fma * 2 */

static const int NACC = 8; /* independent 16x8 accumulators per warp */
__global__ void __launch_bounds__(256) dmma_kernel(double *out, const double *in, long iters) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const int lane = threadIdx.x & 31;
    double a[8], b[4], c[NACC][4];
#pragma unroll
    for (int v = 0; v < 8; ++v) a[v] = in[(lane * 8 + v) & 255];
#pragma unroll
    for (int v = 0; v < 4; ++v) b[v] = in[(lane * 4 + v + 7) & 255];
#pragma unroll
    for (int j = 0; j < NACC; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) c[j][v] = 0.0;
    for (long it = 0; it < iters; ++it) {
#pragma unroll
        for (int j = 0; j < NACC; ++j)
            asm volatile(
                "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                : "+d"(c[j][0]), "+d"(c[j][1]), "+d"(c[j][2]), "+d"(c[j][3])
                : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                  "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
    }
    double s = 0;
#pragma unroll
    for (int j = 0; j < NACC; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) s += c[j][v];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
#endif
}
/* flops per warp per iteration: NACC * 2 * 16 * 8 * 16 */

/* The SIMT dgemm inner loop without loads (OUTER, see the header): 16 k steps per iteration. */
static const int OKS = 16;
__global__ void __launch_bounds__(256, 1) outer_kernel(double *out, const double *in, long iters) {
    const int tid = threadIdx.x;
    double a[8], b[8], c[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        a[i] = in[(tid + i) & 255] * 1e-3;
        b[i] = in[(3 * tid + i + 1) & 255] * 1e-3;
#pragma unroll
        for (int j = 0; j < 8; ++j) c[i][j] = 0.0;
    }
    for (long it = 0; it < iters; ++it) {
#pragma unroll 4
        for (int kk = 0; kk < OKS; ++kk) {
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) c[i][j] = fma(a[i], b[j], c[i][j]);
        }
    }
    double s = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) s += c[i][j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
/* flops per thread per iteration: OKS * 64 fma * 2 */

static void smi(const char *tag) {
    FILE *f = popen("nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu,"
                    "clocks_throttle_reasons.active --format=csv,noheader 2>&1",
                    "r");
    char buf[256];
    if (f && fgets(buf, sizeof buf, f)) printf("    [%s] nvidia-smi: sm clock, power, temp, throttle = %s", tag, buf);
    if (f) pclose(f);
}

int main(int argc, char **argv) {
    const double target_s = argc > 1 ? atof(argv[1]) : 0.7;
    const int REPS = 4;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int clk_khz = 0;
    cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, 0);
    printf("%s, %d SMs, max SM clock %.0f MHz; datasheet-style peaks at that clock: "
           "FP64 SIMT %.1f, FP32 %.1f, FP64 tensor %.1f TFLOP/s\n",
           prop.name, prop.multiProcessorCount, clk_khz / 1e3,
           prop.multiProcessorCount * 64.0 * 2 * clk_khz * 1e3 / 1e12,
           prop.multiProcessorCount * 128.0 * 2 * clk_khz * 1e3 / 1e12,
           prop.multiProcessorCount * 128.0 * 2 * clk_khz * 1e3 / 1e12);
    const int blocks = prop.multiProcessorCount * 8, threads = 256; /* 64 warps per SM */
    double *out, *in;
    CK(cudaMalloc(&out, (size_t)blocks * threads * sizeof(double)));
    CK(cudaMalloc(&in, 256 * sizeof(double)));
    std::vector<double> h(256);
    for (int i = 0; i < 256; ++i) h[i] = 0.5 + 0.37 * ((i * 7919) % 101) / 101.0;
    CK(cudaMemcpy(in, h.data(), 256 * sizeof(double), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    smi("idle");
    const char *names[] = {"DFMA (FP64 SIMT)", "FFMA (FP32 SIMT)", "DMMA m16n8k16 (FP64 TC)",
                           "OUTER (8x8 DFMA thread tile, operands in registers)"};
    for (int kind = 0; kind < 4; ++kind) {
        const char *name = names[kind];
        auto launch = [&](long iters) {
            if (kind == 0)
                fma_kernel<double><<<blocks, threads>>>(out, iters, 0.9999999, 1e-7);
            else if (kind == 1)
                fma_kernel<float><<<blocks, threads>>>((float *)out, iters, 0.9999f, 1e-4f);
            else if (kind == 2)
                dmma_kernel<<<blocks, threads>>>(out, in, iters);
            else
                outer_kernel<<<prop.multiProcessorCount, 256>>>(out, in, iters);
        };
        auto flops = [&](long iters) {
            if (kind < 2) return (double)blocks * threads * iters * 8.0 * CH * 2.0;
            if (kind >= 3) return (double)prop.multiProcessorCount * 256 * iters * OKS * 64 * 2.0;
            return (double)blocks * (threads / 32) * iters * NACC * 2.0 * 16 * 8 * 16;
        };
        /* calibrate */
        long iters = 1000;
        float ms = 0;
        for (;;) {
            CK(cudaEventRecord(e0));
            launch(iters);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (ms > 50) break;
            iters *= 4;
        }
        iters = (long)(iters * (target_s * 1e3 / ms));
        printf("%s: %ld iterations per run\n", name, iters);
        std::vector<double> tf;
        for (int r = 0; r < REPS; ++r) {
            CK(cudaEventRecord(e0));
            launch(iters);
            CK(cudaEventRecord(e1));
            if (r == REPS - 1) { /* sample the clock mid-run */
                usleep((useconds_t)(target_s * 0.5e6));
                smi("mid-run");
            }
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            CK(cudaEventElapsedTime(&ms, e0, e1));
            tf.push_back(flops(iters) / (ms * 1e-3) / 1e12);
            printf("    run %d: %.3f s, %.2f TFLOP/s\n", r, ms * 1e-3, tf.back());
        }
        std::sort(tf.begin(), tf.end());
        printf("%s: median %.2f TFLOP/s (min %.2f, max %.2f)\n", name,
               0.5 * (tf[REPS / 2 - 1] + tf[REPS / 2]), tf.front(), tf.back());
        smi("after");
    }
    return 0;
}
