/* SPDX-License-Identifier: BSD-3-Clause */
/* Where does the dmma rung's big tile lose to cuBLAS DGEMM? One-off probe (not part of the
 * build). The library's big configuration (12_dmma.cu: tc_cfg<double, 128, 128, 32, 64, 32, 3,
 * 1, 16, TC_PIPE_STEP1, LEAN>, NN) is re-instantiated here from tc_common.cuh's pieces with a
 * MODE that leaves one part out (results wrong on purpose except in modes 0 and 4):
 *   0 FULL      a copy of tc_gemm_kernel's STEP1 loop (should time like the library)
 *   1 NOLOAD    the first STAGES k-tiles are copied in the prologue, then no global loads:
 *               the mma run on whatever the stages hold (real data, so the power is similar)
 *   2 SAMETILE  every block loads the tiles of block (0, 0): the global reads all hit a
 *               small, L2-resident A and B panel (L2 -> SM bandwidth, no DRAM)
 *   3 LOADONLY  the loads and barriers of FULL, no mma (the loader's own time)
 *   4 CLUSTER2  thread-block clusters of 2 along n: the pair shares the A tile, each CTA copies
 *               half of its BK rows with cp.async.bulk ... multicast::cluster into both CTAs'
 *               shared memory (mbarrier completion); B as before (cp.async). Requires m, n
 *               multiples of 128, n / 128 even, k a multiple of 32, 16-byte aligned lda.
 *   5 NOLOADSYNC NOLOAD without the per-k-tile __syncthreads (fragment loads + mma only)
 * Also: cuBLAS DGEMM and the library's launcher (mb_dgemm_dmma) on the same matrices, and (argument
 * t: once each; r: 3 interleaved rounds, for the power cap) cuBLAS's own tile shape built from
 * tc_gemm_kernel (g_tiles). Arguments: none = modes 0-5; c = cuBLAS only (for ncu).
 * Measured (H200, 700 W cap, median of 7, TFLOP/s, n = 4096 / 8192; 2026-11-22):
 *   cuBLAS 60.1 / 55.0 (power-capped at 8192: 1.4-1.97 GHz); lib 51.6 / 50.7; FULL 51.4 / 50.3;
 *   NOLOAD 58.9 / 59.2; NOLOAD no barriers 62.4 / 59.3; SAMETILE 50.6 / 48.0 (L2-resident loads
 *   are no faster: not an L2/DRAM bandwidth limit); LOADONLY 0.98 ms = 37% of FULL's time;
 *   CLUSTER2 46.6 / 46.2 (slower: the per-k-tile cluster barrier, and L2 traffic was not the
 *   limit). cuBLAS's shape 128x64x16, 4 warps of 64x32, 2 blocks/SM, m16n8k8: 55.7 at 4096 in
 *   the t run (lib 50.7, cuBLAS 61.5); r run on another machine: 51.6-52.8 / 46.7-49.8 vs lib
 *   47.3-50.5 / 42.5-49.1 vs cuBLAS 57.8-59.3 / 53.1-55.5.
 * Build (sm_90a for the multicast copies):
 *   nvcc -O3 -DNDEBUG -std=c++17 -arch=sm_90a --expt-relaxed-constexpr -I../../include
 *        -I../../kernels -I../../src dmma_probe.cu ../../kernels/gemm/12_dmma.cu -lcublas
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cublas_v2.h>
#include "gemm/tc_common.cuh"
#include "probe_check.h"

extern "C" cudaError_t mb_dgemm_dmma(const void *a, cudaStream_t s);

typedef tc_cfg<double, 128, 128, 32, 64, 32, 3, 1, 16, TC_PIPE_STEP1, true> Cfg;
enum { FULL = 0, NOLOAD = 1, SAMETILE = 2, LOADONLY = 3, CLUSTER2 = 4, NOLOADSYNC = 5 };

template <int MODE>
__global__ void __launch_bounds__(Cfg::NTHREADS, 1) probe_kernel(mb_gemm_args p) {
    constexpr bool AKC = false, BKC = true;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC), S = Cfg::STAGES;
    constexpr int NS = Cfg::BK / Cfg::DK;
    const int64_t ntm = p.m / Cfg::BM, ntn = p.n / Cfg::BN;
    extern __shared__ __align__(16) unsigned char tc_smem[];
    double *sA = (double *)tc_smem, *sB = sA + S * AE;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int64_t KT = p.k / Cfg::BK;
    int64_t tm, tn;
    tc_tile_coords(blockIdx.x, ntm, ntn, &tm, &tn);
    const int64_t m0 = tm * Cfg::BM, n0 = tn * Cfg::BN;
    const int64_t lm0 = MODE == SAMETILE ? 0 : m0, ln0 = MODE == SAMETILE ? 0 : n0;
    double acc[Cfg::MI][Cfg::NI][4];
#pragma unroll
    for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[mi][ni][v] = 0.0;
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        tc_load_stage<Cfg, AKC, BKC>(sA + s * AE, sB + s * BE, p, lm0, ln0, s, true, true, tid);
        tc_cp_async_commit();
    }
    if (MODE == NOLOAD || MODE == NOLOADSYNC) { /* fill the last stage too, then never load again */
        tc_load_stage<Cfg, AKC, BKC>(sA + (S - 1) * AE, sB + (S - 1) * BE, p, m0, n0, S - 1,
                                     true, true, tid);
        tc_cp_async_commit();
        tc_cp_async_wait<0>();
    }
    int cs = 0, ls = S - 1;
    for (int64_t kt = 0; kt < KT; ++kt) {
        if (MODE != NOLOADSYNC) {
            tc_cp_async_wait<S - 2>();
            __syncthreads();
        }
        const int64_t nk = kt + S - 1;
        if (MODE != LOADONLY)
            tc_warp_mma<Cfg, TC_OP_DMMA, AKC, BKC, 0, 1>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                         lane);
        if (MODE != NOLOAD && MODE != NOLOADSYNC && nk < KT)
            tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, lm0, ln0, nk, true, true,
                                         tid);
        tc_cp_async_commit();
        if (MODE != LOADONLY)
            tc_warp_mma<Cfg, TC_OP_DMMA, AKC, BKC, 1, NS>(acc, sA + cs * AE, sB + cs * BE, wm0,
                                                          wn0, lane);
        cs = cs + 1 == S ? 0 : cs + 1;
        ls = ls + 1 == S ? 0 : ls + 1;
    }
    tc_cp_async_wait<0>();
    double *C = (double *)p.C;
#pragma unroll
    for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const int64_t r = m0 + wm0 + mi * 16 + tc_frag_c_row(lane, v);
                const int64_t c = n0 + wn0 + ni * 8 + tc_frag_c_col(lane, v);
                C[r + c * p.ldc] = p.alpha * acc[mi][ni][v];
            }
}

/* ---- CLUSTER2 ---- */
__device__ __forceinline__ unsigned cl_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cl_arrive() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cl_wait() {
    asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_init(uint64_t *b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(tc_smem_addr(b)), "r"(count)
                 : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t *b, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(tc_smem_addr(b)),
                 "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t *b, unsigned parity) {
    asm volatile(
        "{\n"
        ".reg .pred P1;\n"
        "LAB_WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
        "@P1 bra.uni DONE;\n"
        "bra.uni LAB_WAIT;\n"
        "DONE:\n"
        "}\n" ::"r"(tc_smem_addr(b)),
        "r"(parity)
        : "memory");
}
/* bytes (multiple of 16) from global src to the same shared offset dst in the CTAs of mask,
 * completing on the mbarrier at offset bar in each of them. */
__device__ __forceinline__ void bulk_mc(void *dst, const void *src, unsigned bytes, uint64_t *bar,
                                        unsigned short mask) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
        "[%0], [%1], %2, [%3], %4;\n" ::"r"(tc_smem_addr(dst)),
        "l"(src), "r"(bytes), "r"(tc_smem_addr(bar)), "h"(mask)
        : "memory");
}

__global__ void __launch_bounds__(Cfg::NTHREADS, 1) cluster_kernel(mb_gemm_args p) {
    constexpr bool AKC = false, BKC = true;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC), S = Cfg::STAGES;
    constexpr int NS = Cfg::BK / Cfg::DK;
    constexpr unsigned A_BYTES = Cfg::BK * Cfg::BM * sizeof(double); /* 32 rows of 1 KB */
    const int64_t ntm = p.m / Cfg::BM, ntn = p.n / Cfg::BN;
    extern __shared__ __align__(16) unsigned char tc_smem[];
    double *sA = (double *)tc_smem, *sB = sA + S * AE;
    uint64_t *full = (uint64_t *)(sB + S * BE);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp % Cfg::WARPS_M) * Cfg::WM, wn0 = (warp / Cfg::WARPS_M) * Cfg::WN;
    const int64_t KT = p.k / Cfg::BK;
    const unsigned rank = cl_rank();
    int64_t tm, tnp;
    tc_tile_coords(blockIdx.x >> 1, ntm, ntn / 2, &tm, &tnp);
    const int64_t m0 = tm * Cfg::BM, n0 = (2 * tnp + rank) * Cfg::BN;
    const double *A = (const double *)p.A;
    /* A copies of k-tile kt into stage st: this CTA's half of the BK rows, both CTAs. */
    auto load_a = [&](int st, int64_t kt) {
        if (tid == 0) mbar_expect_tx(&full[st], A_BYTES);
        if (warp == 0 && lane < Cfg::BK / 2) {
            const int kk = (int)rank * (Cfg::BK / 2) + lane;
            bulk_mc(sA + st * AE + kk * Cfg::LD_AM, A + (kt * Cfg::BK + kk) * p.lda + m0,
                    Cfg::BM * sizeof(double), &full[st], (unsigned short)3);
        }
    };
    auto load_b = [&](int st, int64_t kt) {
        tc_load_tile<double, Cfg::BN, Cfg::BK, Cfg::LD_K, Cfg::NTHREADS, Cfg::LEAN>(
            sB + st * BE, (const double *)p.B, p.ldb, n0, kt * Cfg::BK, p.n, p.k, true, tid);
    };
    if (tid < S) mbar_init(&full[tid], 1);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    cl_arrive();
    cl_wait(); /* the partner's barriers exist before any copy names them */

    double acc[Cfg::MI][Cfg::NI][4];
#pragma unroll
    for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v) acc[mi][ni][v] = 0.0;
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        load_a(s, s);
        load_b(s, s);
        tc_cp_async_commit();
    }
    int cs = 0, ls = S - 1;
    for (int64_t kt = 0; kt < KT; ++kt) {
        tc_cp_async_wait<S - 2>();
        __syncthreads(); /* B of kt visible; this CTA is done reading stage ls (k-tile kt-1) */
        cl_arrive();     /* ... which the partner waits for before multicasting into it */
        mbar_wait(&full[cs], (unsigned)((kt / S) & 1));
        const int64_t nk = kt + S - 1;
        tc_warp_mma<Cfg, TC_OP_DMMA, AKC, BKC, 0, 1>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                     lane);
        cl_wait();
        if (nk < KT) {
            load_a(ls, nk);
            load_b(ls, nk);
        }
        tc_cp_async_commit();
        tc_warp_mma<Cfg, TC_OP_DMMA, AKC, BKC, 1, NS>(acc, sA + cs * AE, sB + cs * BE, wm0, wn0,
                                                      lane);
        cs = cs + 1 == S ? 0 : cs + 1;
        ls = ls + 1 == S ? 0 : ls + 1;
    }
    double *C = (double *)p.C;
#pragma unroll
    for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const int64_t r = m0 + wm0 + mi * 16 + tc_frag_c_row(lane, v);
                const int64_t c = n0 + wn0 + ni * 8 + tc_frag_c_col(lane, v);
                C[r + c * p.ldc] = p.alpha * acc[mi][ni][v];
            }
    cl_arrive(); /* no CTA leaves while its partner may still write into it */
    cl_wait();
}

/* cuBLAS's DGEMM kernel on the H200 (ncu, n = 4096, NN): sm90_xmma_gemm_f64f64_f64f64_f64_nn_n_
 * tilesize128x64x16_stage3_warpsize2x2x1_tensor16x8x8: 128 threads (4 warps of 64x32), 246
 * registers, 73.7 KB of shared memory, no cluster, grid 32 x 64: 2 blocks per SM (registers).
 * The same shape from the library's kernel template (tc_gemm_kernel, NN): */
template <class C>
static cudaError_t lib_tile(const mb_gemm_args *p) {
    return tc_gemm_launch_t<C, TC_OP_DMMA, false, true>(p, 0, 0);
}
#define T2(BK, ST, DK, PP) tc_cfg<double, 128, 64, BK, 64, 32, ST, 2, DK, PP, true>
static const struct {
    const char *name;
    cudaError_t (*fn)(const mb_gemm_args *);
} g_tiles[] = {
    {"128x64x16 s3 b2 k16 step1", lib_tile<T2(16, 3, 16, TC_PIPE_STEP1)>},
    {"128x64x16 s4 b2 k16 step1", lib_tile<T2(16, 4, 16, TC_PIPE_STEP1)>},
    {"128x64x16 s3 b2 k8 step1", lib_tile<T2(16, 3, 8, TC_PIPE_STEP1)>},
    {"128x64x16 s3 b2 k8 step2", lib_tile<T2(16, 3, 8, TC_PIPE_STEP2)>},
    {"128x64x16 s3 b2 k16 stream", lib_tile<T2(16, 3, 16, TC_PIPE_STREAM)>},
    {"128x64x16 s4 b2 k16 stream", lib_tile<T2(16, 4, 16, TC_PIPE_STREAM)>},
    {"128x64x32 s2 b2 k16 step1", lib_tile<T2(32, 2, 16, TC_PIPE_STEP1)>},
    {"128x64x32 s2 b2 k16 stream", lib_tile<T2(32, 2, 16, TC_PIPE_STREAM)>},
    {"64x128x16 s3 b2 k16 step1", lib_tile<tc_cfg<double, 64, 128, 16, 32, 64, 3, 2, 16, TC_PIPE_STEP1, true>>},
};

static const size_t SMEM = Cfg::smem_bytes(false, true);
static const size_t SMEM_CL = SMEM + 64;

static cudaError_t launch_mode(int mode, const mb_gemm_args *p) {
    const unsigned tiles = (unsigned)((p->m / 128) * (p->n / 128));
    switch (mode) {
    case FULL: probe_kernel<FULL><<<tiles, Cfg::NTHREADS, SMEM>>>(*p); break;
    case NOLOAD: probe_kernel<NOLOAD><<<tiles, Cfg::NTHREADS, SMEM>>>(*p); break;
    case SAMETILE: probe_kernel<SAMETILE><<<tiles, Cfg::NTHREADS, SMEM>>>(*p); break;
    case LOADONLY: probe_kernel<LOADONLY><<<tiles, Cfg::NTHREADS, SMEM>>>(*p); break;
    case NOLOADSYNC: probe_kernel<NOLOADSYNC><<<tiles, Cfg::NTHREADS, SMEM>>>(*p); break;
    case CLUSTER2: {
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3(tiles);
        lc.blockDim = dim3(Cfg::NTHREADS);
        lc.dynamicSmemBytes = SMEM_CL;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = 2;
        at[0].val.clusterDim.y = 1;
        at[0].val.clusterDim.z = 1;
        lc.attrs = at;
        lc.numAttrs = 1;
        return cudaLaunchKernelEx(&lc, cluster_kernel, *p);
    }
    }
    return cudaGetLastError();
}

__global__ void fill(double *x, size_t n, unsigned long long seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        x[i] = (double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
    }
}

int main(int argc, char **argv) {
    const int REPS = 7;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; big dmma tile %dx%dx%d, %d stages, %zu B smem\n", prop.name,
           prop.multiProcessorCount, Cfg::BM, Cfg::BN, Cfg::BK, Cfg::STAGES, SMEM);
    CK(cudaFuncSetAttribute(probe_kernel<FULL>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cudaFuncSetAttribute(probe_kernel<NOLOAD>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cudaFuncSetAttribute(probe_kernel<SAMETILE>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cudaFuncSetAttribute(probe_kernel<LOADONLY>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cudaFuncSetAttribute(probe_kernel<NOLOADSYNC>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM));
    CK(cudaFuncSetAttribute(cluster_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)SMEM_CL));
    {
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, probe_kernel<FULL>));
        printf("probe FULL: %d regs, %zu B local\n", fa.numRegs, fa.localSizeBytes);
        CK(cudaFuncGetAttributes(&fa, cluster_kernel));
        printf("cluster2:   %d regs, %zu B local\n", fa.numRegs, fa.localSizeBytes);
        cudaLaunchConfig_t lc = {};
        lc.gridDim = dim3(1024);
        lc.blockDim = dim3(Cfg::NTHREADS);
        lc.dynamicSmemBytes = SMEM_CL;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim = {2, 1, 1};
        lc.attrs = at;
        lc.numAttrs = 1;
        int ncl = 0;
        cudaError_t e = cudaOccupancyMaxActiveClusters(&ncl, cluster_kernel, &lc);
        printf("max active clusters of 2: %d (%s) -> %d of %d SMs busy\n", ncl,
               cudaGetErrorString(e), 2 * ncl, prop.multiProcessorCount);
    }
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        printf("cublasCreate failed\n");
        return 1;
    }
    const bool only_cublas = argc > 1 && argv[1][0] == 'c';
    const bool tiles_only = argc > 1 && argv[1][0] == 't';
    const bool rounds = argc > 1 && argv[1][0] == 'r'; /* interleaved repeats (power cap) */
    const int sizes[] = {4096, 8192};
    cudaEvent_t ev[2];
    CK(cudaEventCreate(&ev[0]));
    CK(cudaEventCreate(&ev[1]));
    for (int n : sizes) {
        const size_t N = (size_t)n * n;
        double *A, *B, *C, *R;
        CK(cudaMalloc(&A, N * 8));
        CK(cudaMalloc(&B, N * 8));
        CK(cudaMalloc(&C, N * 8));
        CK(cudaMalloc(&R, N * 8));
        fill<<<1024, 256>>>(A, N, 1);
        fill<<<1024, 256>>>(B, N, 2);
        mb_gemm_args a = {};
        a.m = a.n = a.k = n;
        a.alpha = 1.0;
        a.beta = 0.0;
        a.A = A;
        a.B = B;
        a.C = C;
        a.lda = a.ldb = a.ldc = n;
        const double al = 1.0, be = 0.0;
        auto run_cublas = [&]() {
            cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &al, A, n, B, n, &be, R, n);
        };
        run_cublas();
        CK(cudaDeviceSynchronize());
        const double flops = 2.0 * n * (double)n * n;
        auto timeit = [&](const char *name, auto fn, bool check) {
            CK(cudaMemset(C, 0xff, N * 8)); /* NaN */
            fn();
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            double err = -1;
            if (check && n == 4096) {
                std::vector<double> hc(N), hr(N);
                CK(cudaMemcpy(hc.data(), C, N * 8, cudaMemcpyDeviceToHost));
                CK(cudaMemcpy(hr.data(), R, N * 8, cudaMemcpyDeviceToHost));
                double md = 0, mr = 0;
                for (size_t i = 0; i < N; ++i) {
                    double d = fabs(hc[i] - hr[i]);
                    if (!(d <= 1e300)) d = INFINITY;
                    md = std::max(md, d);
                    mr = std::max(mr, fabs(hr[i]));
                }
                err = md / mr;
            }
            std::vector<float> t;
            for (int r = 0; r < REPS; ++r) {
                CK(cudaEventRecord(ev[0]));
                fn();
                CK(cudaEventRecord(ev[1]));
                CK(cudaEventSynchronize(ev[1]));
                float ms;
                CK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
                t.push_back(ms);
            }
            std::sort(t.begin(), t.end());
            const double ms = t[REPS / 2];
            printf("n=%5d %-28s %8.3f ms  %6.2f TFLOP/s (min..max %.2f..%.2f)", n, name, ms,
                   flops / ms / 1e9, flops / t.back() / 1e9, flops / t.front() / 1e9);
            if (check && n == 4096) printf("  max rel err %.2e", err);
            printf("\n");
            fflush(stdout);
        };
        timeit("cublasDgemm", [&]() { run_cublas(); }, false);
        if (rounds) {
            for (int rd = 0; rd < 3; ++rd) {
                printf("-- round %d\n", rd);
                timeit("cublasDgemm", [&]() { run_cublas(); }, false);
                timeit("lib mb_dgemm_dmma", [&]() { CK(mb_dgemm_dmma(&a, 0)); }, false);
                timeit(g_tiles[2].name, [&]() { CK(g_tiles[2].fn(&a)); }, false);
                timeit(g_tiles[3].name, [&]() { CK(g_tiles[3].fn(&a)); }, false);
                timeit(g_tiles[0].name, [&]() { CK(g_tiles[0].fn(&a)); }, false);
                timeit("probe NOLOAD (128x128)", [&]() { CK(launch_mode(NOLOAD, &a)); }, false);
            }
        } else if (tiles_only) {
            timeit("lib mb_dgemm_dmma", [&]() { CK(mb_dgemm_dmma(&a, 0)); }, false);
            for (const auto &t : g_tiles)
                timeit(t.name, [&]() { CK(t.fn(&a)); }, true);
            timeit("cublasDgemm (again)", [&]() { run_cublas(); }, false);
            timeit("lib mb_dgemm_dmma (again)", [&]() { CK(mb_dgemm_dmma(&a, 0)); }, false);
        } else if (!only_cublas) {
            timeit("lib mb_dgemm_dmma", [&]() { CK(mb_dgemm_dmma(&a, 0)); }, true);
            timeit("probe FULL (copy)", [&]() { CK(launch_mode(FULL, &a)); }, true);
            timeit("probe NOLOAD", [&]() { CK(launch_mode(NOLOAD, &a)); }, false);
            timeit("probe NOLOAD, no barriers", [&]() { CK(launch_mode(NOLOADSYNC, &a)); }, false);
            timeit("probe SAMETILE (L2 only)", [&]() { CK(launch_mode(SAMETILE, &a)); }, false);
            timeit("probe LOADONLY (no mma)", [&]() { CK(launch_mode(LOADONLY, &a)); }, false);
            timeit("CLUSTER2 (A multicast)", [&]() { CK(launch_mode(CLUSTER2, &a)); }, true);
            timeit("probe FULL (again)", [&]() { CK(launch_mode(FULL, &a)); }, false);
            timeit("cublasDgemm (again)", [&]() { run_cublas(); }, false);
        }
        CK(cudaFree(A));
        CK(cudaFree(B));
        CK(cudaFree(C));
        CK(cudaFree(R));
    }
    cublasDestroy(h);
    return 0;
}
