/* SPDX-License-Identifier: BSD-3-Clause */
/* Which kernels does cuBLAS launch for a gemm shape? One-off probe (not part of the build), to
 * read under Nsight Compute: the kernel names carry cuBLAS's tile, stage and split choices, and
 * ncu adds the grid, block, registers and shared memory. Each shape is called twice (the first
 * call's heuristics and workspace set-up are not what a benchmark times), alpha 1, beta 0,
 * column-major, inputs uniform in [-1, 1), as miniblas-bench calls cuBLAS.
 * Arguments: shapes as [s|d]MxNxK[NN|NT|TN|TT], e.g. d640x640x640NN s1024x1024x1024TT.
 * Build and run:
 *   nvcc -O2 -o cublas_kernels cublas_kernels.cu -lcublas
 *   ncu --clock-control none --csv --metrics launch__grid_size,launch__block_size,\
 *       launch__registers_per_thread,launch__shared_mem_per_block_dynamic,\
 *       launch__cluster_dim_x,launch__cluster_dim_y,gpu__time_duration.sum \
 *       ./cublas_kernels d640x640x640NN ...
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CK(x)                                                                                   \
    do {                                                                                       \
        if ((x) != 0) {                                                                        \
            fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);                     \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

int main(int argc, char **argv) {
    cublasHandle_t h;
    CK(cublasCreate(&h));
    for (int i = 1; i < argc; ++i) {
        char type, ta = 'N', tb = 'N';
        int m, n, k;
        if (sscanf(argv[i], "%c%dx%dx%d%c%c", &type, &m, &n, &k, &ta, &tb) < 4 ||
            (type != 's' && type != 'd')) {
            fprintf(stderr, "bad shape %s\n", argv[i]);
            return 2;
        }
        const size_t es = type == 'd' ? 8 : 4;
        const int lda = ta == 'N' ? m : k, ldb = tb == 'N' ? k : n;
        const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
        std::vector<double> hd(na > nb ? na : nb);
        void *A, *B, *C;
        CK(cudaMalloc(&A, na * es));
        CK(cudaMalloc(&B, nb * es));
        CK(cudaMalloc(&C, nc * es));
        for (int pass = 0; pass < 2; ++pass) {
            void *dst = pass ? B : A;
            const size_t cnt = pass ? nb : na;
            std::vector<float> hf(cnt);
            for (size_t j = 0; j < cnt; ++j) {
                hd[j] = 2.0 * rand() / RAND_MAX - 1.0;
                hf[j] = (float)hd[j];
            }
            CK(cudaMemcpy(dst, type == 'd' ? (void *)hd.data() : (void *)hf.data(), cnt * es,
                          cudaMemcpyHostToDevice));
        }
        const cublasOperation_t oa = ta == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
        const cublasOperation_t ob = tb == 'N' ? CUBLAS_OP_N : CUBLAS_OP_T;
        for (int rep = 0; rep < 2; ++rep) {
            if (type == 'd') {
                const double al = 1.0, be = 0.0;
                CK(cublasDgemm(h, oa, ob, m, n, k, &al, (const double *)A, lda,
                               (const double *)B, ldb, &be, (double *)C, m));
            } else {
                const float al = 1.0f, be = 0.0f;
                CK(cublasSgemm(h, oa, ob, m, n, k, &al, (const float *)A, lda, (const float *)B,
                               ldb, &be, (float *)C, m));
            }
            CK(cudaDeviceSynchronize());
        }
        printf("%s done\n", argv[i]);
        CK(cudaFree(A));
        CK(cudaFree(B));
        CK(cudaFree(C));
    }
    CK(cublasDestroy(h));
    return 0;
}
