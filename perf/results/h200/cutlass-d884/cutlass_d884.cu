// Probe: CUTLASS 2.x FP64 tensor-op GEMMs (m8n8k4), built by this nvcc, against cuBLAS DGEMM.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cublas_v2.h>
#include "cutlass/gemm/device/gemm.h"
template <int BM, int BN, int WM, int WN, int S>
using G = cutlass::gemm::device::Gemm<
    double, cutlass::layout::ColumnMajor, double, cutlass::layout::ColumnMajor,
    double, cutlass::layout::ColumnMajor, double, cutlass::arch::OpClassTensorOp,
    cutlass::arch::Sm80, cutlass::gemm::GemmShape<BM, BN, 16>,
    cutlass::gemm::GemmShape<WM, WN, 16>, cutlass::gemm::GemmShape<8, 8, 4>,
    cutlass::epilogue::thread::LinearCombination<double, 1, double, double>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>, S>;
__global__ void fill(double *x, size_t n, unsigned s) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ s; h ^= h >> 13; h *= 0x5bd1e995; h ^= h >> 15;
    x[i] = (h & 0xffffff) / 16777216.0 * 2 - 1;
  }
}
template <class Gm>
float run_cutlass(int m, int n, int k, double *A, double *B, double *C, cudaStream_t st) {
  Gm g;
  typename Gm::Arguments args({m, n, k}, {A, m}, {B, k}, {C, m}, {C, m}, {1.0, 0.0});
  if (g(args, nullptr, st) != cutlass::Status::kSuccess) return -1;
  return 0;
}
int main() {
  int sizes[] = {2048, 4096, 8192};
  cublasHandle_t h; cublasCreate(&h);
  cudaStream_t st; cudaStreamCreate(&st); cublasSetStream(h, st);
  size_t N = 8192ull * 8192;
  double *A, *B, *C, *D;
  cudaMalloc(&A, N * 8); cudaMalloc(&B, N * 8); cudaMalloc(&C, N * 8); cudaMalloc(&D, N * 8);
  fill<<<1024, 256>>>(A, N, 1); fill<<<1024, 256>>>(B, N, 2);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int sz : sizes) {
    int m = sz, n = sz, k = sz;
    const char *names[] = {"cublas", "cutlass_128x128_w32x64_s3", "cutlass_128x64_w64x32_s3", "cutlass_64x128_w32x64_s3"};
    std::vector<float> t[4];
    int reps = sz <= 2048 ? 20 : sz <= 4096 ? 5 : 2;
    for (int trial = 0; trial < 7; ++trial)
      for (int v = 0; v < 4; ++v) {
        double one = 1, zero = 0;
        auto launch = [&]() {
          if (v == 0) cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, A, m, B, k, &zero, D, m);
          else if (v == 1) run_cutlass<G<128, 128, 32, 64, 3>>(m, n, k, A, B, C, st);
          else if (v == 2) run_cutlass<G<128, 64, 64, 32, 3>>(m, n, k, A, B, C, st);
          else run_cutlass<G<64, 128, 32, 64, 3>>(m, n, k, A, B, C, st);
        };
        launch();
        cudaEventRecord(e0, st);
        for (int r = 0; r < reps; ++r) launch();
        cudaEventRecord(e1, st); cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1); t[v].push_back(ms / reps);
        if (v > 0) { // compare with cuBLAS's D
          static std::vector<double> hc, hd;
          if (trial == 0) {
            hc.resize((size_t)m * n); hd.resize((size_t)m * n);
            cudaMemcpy(hc.data(), C, hc.size() * 8, cudaMemcpyDeviceToHost);
            cudaMemcpy(hd.data(), D, hd.size() * 8, cudaMemcpyDeviceToHost);
            double md = 0; for (size_t i = 0; i < hc.size(); i += 97) md = std::max(md, std::abs(hc[i] - hd[i]));
            printf("  %d %s max|diff| vs cuBLAS (sampled) %.3g\n", sz, names[v], md);
          }
        }
      }
    for (int v = 0; v < 4; ++v) {
      std::sort(t[v].begin(), t[v].end());
      float med = t[v][t[v].size() / 2], c = 0;
      std::vector<float> tc = t[0]; c = tc[tc.size() / 2];
      printf("%d %-28s median %.3f ms  %.1f TFLOP/s  cuBLAS/this %.3f\n", sz, names[v], med,
             2.0 * m * n * (double)k / med / 1e9, c / med);
    }
  }
  printf("err: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
