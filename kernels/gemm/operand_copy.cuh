/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Aligned copies of a gemm's operands (host code of the launchers; no kernel of its own).
 *
 * The fastest main loops need operands their copies can read in 16-byte pieces (TMA for the
 * 3xTF32 rungs 15 and 16; the dmma rung's XMMA loop, which also needs k a multiple of 16).
 * Odd sizes and sub-matrices at odd offsets do not allow it, and those loops then fall back
 * to slower ones that run at about half their rate. Where the gemm is large enough, copying
 * such an operand first costs less than the fallback: one read and one write of each element
 * (cudaMemcpy2DAsync), into scratch memory taken in stream order from the handle's pool
 * (kernels/launch.h) with the leading dimension rounded up to 32 elements (128 bytes for
 * floats), and k rounded up to the loop's multiple with zeros (zero products leave the sums
 * as they are). The scratch goes back to the pool in stream order after the launches.
 */
#ifndef MINIBLAS_GEMM_OPERAND_COPY_CUH
#define MINIBLAS_GEMM_OPERAND_COPY_CUH

#include <stdint.h>
#include <cuda_runtime.h>
#include "../launch.h"

/* One operand to copy: stored rows x cols (column-major), into rows_to x cols_to with zeros
 * beyond (only k grows: rows of op(A)^T / B, or columns of A / op(B)^T). */
typedef struct oc_operand {
    int64_t rows, cols, rows_to, cols_to;
} oc_operand;

/* The shapes of A and B as stored, and as copied with k grown to k_to. */
static oc_operand oc_shape_a(const mb_gemm_args *p, int64_t k_to) {
    return p->transa ? oc_operand{p->k, p->m, k_to, p->m} : oc_operand{p->m, p->k, p->m, k_to};
}
static oc_operand oc_shape_b(const mb_gemm_args *p, int64_t k_to) {
    return p->transb ? oc_operand{p->n, p->k, p->n, k_to} : oc_operand{p->k, p->n, k_to, p->n};
}
static int64_t oc_pad_ld(int64_t rows) { return (rows + 31) & ~(int64_t)31; }

/* Copies of A (copy_a) and/or B (copy_b) into scratch, k grown to k_to (>= p->k; when it grows,
 * both must be copied), described by *q (p with the copies' pointers, leading dimensions and
 * k). Made only where they pay: at least min_per_elem multiply-adds of the gemm per element
 * copied and 2^28 in all (against the copies' launches). Returns 1 with *buf set (pass it to
 * oc_end after the launches), 0 where no copies were made (no pool, no memory, they would not
 * pay, a pitch beyond cudaMemcpy2DAsync's limit), or -1 with *e the error of a copy. */
static int oc_begin(const mb_gemm_args *p, size_t elem, int copy_a, int copy_b, int64_t k_to,
                    double min_per_elem, mb_gemm_args *q, void **buf, cudaError_t *e,
                    cudaStream_t s) {
    const oc_operand a = oc_shape_a(p, k_to), b = oc_shape_b(p, k_to);
    const int64_t lda = copy_a ? oc_pad_ld(a.rows_to) : p->lda;
    const int64_t ldb = copy_b ? oc_pad_ld(b.rows_to) : p->ldb;
    const double copied = (copy_a ? (double)a.rows * (double)a.cols : 0.0) +
                          (copy_b ? (double)b.rows * (double)b.cols : 0.0);
    const double mnk = (double)p->m * (double)p->n * (double)p->k;
    const int64_t pitch_max = (((int64_t)1 << 31) - 1) / (int64_t)elem; /* cudaDevAttrMaxPitch */
    *buf = NULL;
    *e = cudaSuccess;
    if (!p->pool || mnk < min_per_elem * copied || mnk < (double)(1 << 28) ||
        p->lda > pitch_max || p->ldb > pitch_max || lda > pitch_max || ldb > pitch_max)
        return 0;
    const size_t a_bytes = copy_a ? (size_t)lda * (size_t)a.cols_to * elem : 0;
    const size_t b_bytes = copy_b ? (size_t)ldb * (size_t)b.cols_to * elem : 0;
    char *base = NULL; /* A's copy, then B's (each a multiple of 128 bytes) */
    if (cudaMallocFromPoolAsync((void **)&base, a_bytes + b_bytes, p->pool, s) != cudaSuccess) {
        cudaGetLastError(); /* out of memory is no error here: the caller runs its fallback */
        return 0;
    }
    *q = *p;
    q->k = k_to;
    const void *src[2] = {p->A, p->B};
    const int64_t sld[2] = {p->lda, p->ldb}, dld[2] = {lda, ldb};
    const oc_operand op[2] = {a, b};
    const int copy[2] = {copy_a, copy_b};
    char *dst[2] = {base, base + a_bytes};
    for (int i = 0; i < 2 && *e == cudaSuccess; ++i) {
        if (!copy[i]) continue;
        const oc_operand o = op[i];
        const size_t pitch = (size_t)dld[i] * elem;
        *e = cudaMemcpy2DAsync(dst[i], pitch, src[i], (size_t)sld[i] * elem,
                               (size_t)o.rows * elem, (size_t)o.cols, cudaMemcpyDeviceToDevice, s);
        if (*e == cudaSuccess && o.rows_to > o.rows) /* k grows down the columns */
            *e = cudaMemset2DAsync(dst[i] + (size_t)o.rows * elem, pitch, 0,
                                   (size_t)(o.rows_to - o.rows) * elem, (size_t)o.cols, s);
        if (*e == cudaSuccess && o.cols_to > o.cols) /* k grows by whole columns */
            *e = cudaMemsetAsync(dst[i] + (size_t)o.cols * pitch, 0,
                                 (size_t)(o.cols_to - o.cols) * pitch, s);
    }
    if (copy_a) q->A = dst[0], q->lda = lda;
    if (copy_b) q->B = dst[1], q->ldb = ldb;
    *buf = base;
    if (*e != cudaSuccess) {
        cudaFreeAsync(base, s);
        *buf = NULL;
        return -1;
    }
    return 1;
}

/* The scratch of oc_begin back to the pool after the launches; the first error of the two. */
static cudaError_t oc_end(void *buf, cudaError_t launched, cudaStream_t s) {
    const cudaError_t f = cudaFreeAsync(buf, s);
    return launched != cudaSuccess ? launched : f;
}

#endif
