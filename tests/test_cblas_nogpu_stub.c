/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The GPU side of libminiblas_cblas replaced for tests/test_cblas_layer_cpu.c, which compiles
 * the layer's host sources in directly: a CUDA device "exists" (so pointers may be device
 * memory) but is never usable and CUDA never classifies a pointer, which is the state of a
 * process after a sticky CUDA error, at exit, in a fork() child or with the GPU disabled.
 * Every GPU routine fails; none is reached unless the routing is wrong.
 */
#include <stdio.h>
#include "cblas_internal.h"

int mbc_gpu_probe(char *msg, size_t msg_size) {
    mbc_cfg.cuda_memory = 1;
    snprintf(msg, msg_size, "test stub: a device CUDA cannot use");
    return 0;
}

int mbc_ptr_kind(const void *p, size_t bytes) { return mbc_ptr_kind_nocuda(p, bytes); }

void mbc_gpu_atfork_child(void) {}
void mbc_mgpu_atfork_child(void) {}

int mbc_gpu_gemm(const mbc_gemm *g, mbc_progress *prog, char *msg, size_t msg_size) {
    (void)g;
    prog->done_col = prog->done_row = 0;
    snprintf(msg, msg_size, "test stub: no GPU");
    return -1;
}

int mbc_gpu_asum(int dbl, int64_t n, const void *x, int64_t incx, int x_kind, double *result,
                 char *msg, size_t msg_size) {
    (void)dbl, (void)n, (void)x, (void)incx, (void)x_kind, (void)result;
    snprintf(msg, msg_size, "test stub: no GPU");
    return -1;
}

int mbc_gpu_dot(int dbl, int64_t n, const void *x, int64_t incx, int x_kind, const void *y,
                int64_t incy, int y_kind, double *result, char *msg, size_t msg_size) {
    (void)dbl, (void)n, (void)x, (void)incx, (void)x_kind, (void)y, (void)incy, (void)y_kind;
    (void)result;
    snprintf(msg, msg_size, "test stub: no GPU");
    return -1;
}

int mbc_gpu_omatcopy(int dbl, int trans, int64_t rows, int64_t cols, double alpha,
                     const void *A, int64_t lda, int a_kind, void *B, int64_t ldb, int b_kind,
                     char *msg, size_t msg_size) {
    (void)dbl, (void)trans, (void)rows, (void)cols, (void)alpha, (void)A, (void)lda;
    (void)a_kind, (void)B, (void)ldb, (void)b_kind;
    snprintf(msg, msg_size, "test stub: no GPU");
    return -1;
}
