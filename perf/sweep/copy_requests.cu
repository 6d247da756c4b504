/* SPDX-License-Identifier: BSD-3-Clause */
/* How many L2 read requests do rung 12's operand copies make per 128-byte line? One-off probe
 * (not part of the build), to read under Nsight Compute. At 4096x4096x256 rungs 12 and 14 send
 * the L2 twice the read requests of cuBLAS's kernel of the same tile, whose copies are the same
 * instruction (perf/results/h200/ncu-dgemm/k256/). Each kernel here copies what the big tile's
 * blocks copy of A (2048 blocks, each the 16 k-tiles of one 128-row panel of a 4096 x 256
 * operand, 3 stages in shared memory) with a different lane order or instruction:
 *   lean8     rung 12's order for a K-contiguous A (8 lanes a 128-byte row), cp.async.cg with
 *             the L2::128B hint (SASS LDGSTS.E.BYPASS.LTC128B.128)
 *   nohint    the same without the hint
 *   half64    4 lanes per half row, an 8-lane group covering halves of two rows: the counter's
 *             answer where a group is known to touch two lines
 *   ldg       lean8's order with 16-byte loads into registers, then shared stores
 *   mcontig   an M-contiguous A (16 rows of 128 doubles per k-tile, 64 lanes a row)
 *   pad       lean8 into shared rows padded to 20 doubles (rung 12's big tile), so a 128-byte
 *             line lands across two 128-byte spans of shared memory
 *   swz       lean8 into unpadded rows, its 32-byte quarters permuted within the row (tc_swz)
 *   mpad      mcontig into rows padded to 132 doubles
 * Each kernel runs once after a warm-up launch of all of them. Every kernel reads 4.19 million
 * 128-byte lines (16.8 million sectors); the program prints that and nothing else.
 * Build and run:
 *   nvcc -O2 -arch=sm_90 -o copy_requests copy_requests.cu
 *   ncu --clock-control none --launch-skip 8 --csv --metrics lts__t_requests_srcunit_tex_op_read.sum,\
 *       lts__t_sectors_srcunit_tex_op_read.sum,gpu__time_duration.sum ./copy_requests
 */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "probe_check.h"

enum { LEAN8, NOHINT, HALF64, LDG, MCONTIG, PAD, SWZ, MPAD, VARIANTS };
static const char *const names[VARIANTS] = {"lean8", "nohint",  "half64", "ldg",
                                            "mcontig", "pad",    "swz",    "mpad"};

constexpr int M = 4096, K = 256, BM = 128, BK = 16, STAGES = 3, THREADS = 128;
constexpr int KT = K / BK, PANELS = M / BM, BLOCKS = 2048;
constexpr int CHUNKS = BM * BK / 2, PER_THREAD = CHUNKS / THREADS; /* 16-byte chunks */

__device__ __forceinline__ unsigned smem_addr(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

template <int V>
__device__ __forceinline__ void copy16(double *d, const double *s) {
    if (V == LDG) {
        *(double2 *)d = __ldcg((const double2 *)s);
    } else if (V == NOHINT) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(d)), "l"(s)
                     : "memory");
    } else {
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(smem_addr(d)),
                     "l"(s)
                     : "memory");
    }
}

/* Chunk c (0 .. CHUNKS - 1) of k-tile kt of panel p: its source and its place in the stage
 * (row-major, rows of BK doubles; mcontig: rows of BM doubles). */
template <int V>
__device__ __forceinline__ void chunk(int c, int *row, int *col) {
    if (V == MCONTIG || V == MPAD) { /* 16 rows of 64 chunks */
        *row = c / 64;
        *col = (c % 64) * 2;
    } else if (V == HALF64) { /* first the left halves of all rows, then the right ones */
        const int half = c / (CHUNKS / 2), cc = c % (CHUNKS / 2);
        *row = cc / 4;
        *col = (cc % 4 + 4 * half) * 2;
    } else { /* 128 rows of 8 chunks, 8 consecutive chunks a row */
        *row = c / 8;
        *col = (c % 8) * 2;
    }
}

template <int V>
__global__ void __launch_bounds__(THREADS) copy_kernel(const double *a, double *sink) {
    constexpr int LDS = V == PAD ? BK + 4 : V == MPAD ? BM + 4 : V == MCONTIG ? BM : BK;
    constexpr int STAGE = (V == MCONTIG || V == MPAD ? BK : BM) * LDS;
    extern __shared__ __align__(128) double st[]; /* STAGES stages of STAGE doubles */
    const int p = blockIdx.x % PANELS;
    double acc = 0.0;
    for (int kt = 0; kt < KT; ++kt) {
        double *d = st + (kt % STAGES) * STAGE;
#pragma unroll
        for (int it = 0; it < PER_THREAD; ++it) {
            int row, col;
            chunk<V>(threadIdx.x + it * THREADS, &row, &col);
            const double *src = V == MCONTIG || V == MPAD
                                    ? a + (size_t)(kt * BK + row) * M + p * BM + col
                                    : a + (size_t)(p * BM + row) * K + kt * BK + col;
            copy16<V>(d + row * LDS + (V == SWZ ? col ^ ((row & 3) << 2) : col), src);
        }
        if (V != LDG) {
            asm volatile("cp.async.commit_group;\n" ::: "memory");
            asm volatile("cp.async.wait_group 1;\n" ::: "memory");
        }
        __syncthreads();
        acc += st[(kt + STAGES - 1) % STAGES * STAGE + threadIdx.x];
    }
    if (acc == 12345.0) sink[blockIdx.x] = acc; /* keeps the reads of shared memory */
}

int main() {
    double *a, *sink;
    CK(cudaMalloc(&a, (size_t)M * K * sizeof(double)));
    CK(cudaMalloc(&sink, BLOCKS * sizeof(double)));
    CK(cudaMemset(a, 0, (size_t)M * K * sizeof(double)));
    void (*kernels[VARIANTS])(const double *, double *) = {
        copy_kernel<LEAN8>, copy_kernel<NOHINT>, copy_kernel<HALF64>, copy_kernel<LDG>,
        copy_kernel<MCONTIG>, copy_kernel<PAD>, copy_kernel<SWZ>, copy_kernel<MPAD>};
    const int smem = STAGES * BM * (BK + 4) * sizeof(double); /* the largest stage */
    for (int v = 0; v < VARIANTS; ++v)
        CK(cudaFuncSetAttribute(kernels[v], cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    for (int pass = 0; pass < 2; ++pass) /* a warm-up of all, then the launches to read */
        for (int v = 0; v < VARIANTS; ++v) {
            kernels[v]<<<BLOCKS, THREADS, smem>>>(a, sink);
            CK(cudaGetLastError());
        }
    CK(cudaDeviceSynchronize());
    const double lines = (double)BLOCKS * KT * BM * BK * sizeof(double) / 128;
    printf("each kernel: %.0f lines of 128 bytes, %.0f sectors; kernels in launch order:",
           lines, 4 * lines);
    for (int v = 0; v < VARIANTS; ++v) printf(" %s", names[v]);
    printf("\n");
    CK(cudaFree(a));
    CK(cudaFree(sink));
    return 0;
}
