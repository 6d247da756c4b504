/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The contract between dispatch (src/) and the kernel launchers (kernels/<op>/NN_<rung>.cu).
 *
 * Dispatch has already checked every argument and normalised the problem, so a launcher only
 * ever sees valid, non-trivial input:
 *   - matrices are COLUMN-MAJOR (row-major calls were turned into column-major ones by
 *     swapping operands / dimensions);
 *   - gemm: m, n, k >= 1 and alpha != 0 (alpha == 0 or k == 0 is handled by mb_gemm_scale);
 *     beta == 0 means C must not be read; `work` (work_bytes bytes of device memory, may be
 *     NULL) is the handle's gemm workspace, free for the launch's own use in stream order
 *     (split-K partial sums, kernels/gemm/splitk.cuh; stream-K partial tiles and flags,
 *     kernels/gemm/streamk.h, the flags zeroed by the launch; the 3xTF32 range guard's flag and tile
 *     bits, kernels/gemm/x3guard.cuh, zeroed by the launch itself: no state between calls);
 *   - omatcopy: rows, cols >= 1; alpha != 0 (alpha == 0: dispatch zero-fills B); no overlap;
 *   - reductions: n >= 1; x (and y) point at LOGICAL element 0 and element i lives at
 *     x[i * incx], with incx possibly negative (dot) or zero (dot); asum has incx >= 1.
 *     The launcher writes ONE value (float or double, as the op) to the device pointer
 *     `result`, in stream order, without host synchronisation. `work` is the handle's
 *     device workspace (work_bytes bytes, zero-filled at handle creation); a rung that
 *     uses counters in it must leave them zero again when it finishes.
 *   - gemm: `pdl` is 1 only where the device and the code the library runs on it are
 *     compute capability 9.0 or newer and MINIBLAS_PDL is not 0 (src/rungs.c). A launcher may
 *     then launch its kernels with programmatic dependent launch
 *     (cudaLaunchAttributeProgrammaticStreamSerialization, mb_launch_cfg in
 *     kernels/common/common.cuh): the later kernels of its chain, and a first kernel that
 *     executes griddepcontrol.wait (mb_grid_wait) in every block before it touches global
 *     memory or lets the next kernel be scheduled (griddepcontrol.launch_dependents), so
 *     that what follows it may take every earlier kernel in the stream as finished (the
 *     range guard's zeroing kernel, x3guard.cuh; the tensor-core gemm kernel where its grid
 *     is one wave capped to ceil(blocks / SMs) blocks per SM, tc_kernel.cuh). Any kernel so
 *     launched waits in every block before it touches memory that an earlier kernel writes,
 *     or writes memory that one reads, and before it ends. Results do not depend on pdl (only
 *     when kernels start), so they are bitwise the same either way.
 *   - gemm: `pool` (may be NULL) is the handle's stream-ordered memory pool; a launcher may
 *     take scratch memory from it (cudaMallocFromPoolAsync) for copies of its operands and
 *     frees it (cudaFreeAsync) in stream order before it returns.
 * A launcher returns the cudaError_t of its launch (cudaGetLastError() after the launch);
 * it never synchronises, allocates except from `pool`, or prints.
 *
 * Pure C header: included by the C dispatch and by the .cu launchers (extern "C").
 */
#ifndef MINIBLAS_KERNELS_LAUNCH_H
#define MINIBLAS_KERNELS_LAUNCH_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mb_gemm_args {
    int transa, transb; /* 0: no transpose, 1: transpose */
    int64_t m, n, k;    /* C is m x n, op(A) m x k, op(B) k x n; all >= 1 */
    double alpha, beta; /* alpha != 0; beta == 0: do not read C */
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    void *C;
    int64_t ldc;
    void *work;         /* gemm workspace (NULL: none) */
    size_t work_bytes;
    cudaMemPool_t pool; /* the handle's memory pool for scratch copies (NULL: none) */
    int pdl;            /* 1: the kernels after a call's first one may be launched with
                           programmatic dependent launch (see below); 0: plain launches */
    int splitk_cluster; /* 1: split-K may be summed in thread-block clusters (the TMA 3xTF32
                           rungs, tma_ring.cuh) where the device and code are 9.0 or newer and
                           MINIBLAS_SPLITK_CLUSTER is not 0; same bits either way */
} mb_gemm_args;

typedef struct mb_omatcopy_args {
    int trans;          /* 0: B = alpha*A (B rows x cols), 1: B = alpha*A^T (B cols x rows) */
    int64_t rows, cols; /* of A, column-major; both >= 1 */
    double alpha;
    const void *A;
    int64_t lda;
    void *B;
    int64_t ldb;
} mb_omatcopy_args;

typedef struct mb_reduce_args {
    int64_t n;          /* >= 1 */
    const void *x;      /* logical element 0 */
    int64_t incx;       /* asum: >= 1; dot: any */
    const void *y;      /* dot only (NULL for asum) */
    int64_t incy;
    void *result;       /* device pointer: one float or double */
    void *work;         /* handle workspace, device memory */
    size_t work_bytes;
} mb_reduce_args;

/* Every launcher has this signature; `args` points at the op's args struct above. */
typedef cudaError_t (*mb_launch_fn)(const void *args, cudaStream_t stream);

/* Rung flags: the public MINIBLAS_RUNG_* values of miniblas.h. */
#define MB_RUNG_REDUCED_PRECISION 1u /* runs only when the handle's math mode allows it */
#define MB_RUNG_NEEDS_SM90A       2u /* needs Hopper-only instructions (checked at run time) */

typedef struct mb_rung {
    const char *name;   /* short, lower case: "naive", "tiled", ... */
    const char *desc;   /* one line: what this rung adds */
    mb_launch_fn launch;
    unsigned flags;
} mb_rung;

/* Workspace every handle owns (device), for reduction partials and counters. */
#define MB_WORK_BYTES ((size_t)1 << 20)
/* The gemm workspace of a handle (split-K partial sums): 16 MiB holds, e.g., one 8192 x 128
 * FP32 slab with room to spare (cuBLAS recommends 32 MiB for Hopper, cublasSetWorkspace). */
#define MB_GEMM_WORK_BYTES ((size_t)16 << 20)

/* One table per op, defined in kernels/<family>/rungs.c, in ladder order. */
extern const mb_rung mb_sgemm_rungs[];
extern const int mb_sgemm_rung_count;
extern const mb_rung mb_dgemm_rungs[];
extern const int mb_dgemm_rung_count;
extern const mb_rung mb_somatcopy_rungs[];
extern const int mb_somatcopy_rung_count;
extern const mb_rung mb_domatcopy_rungs[];
extern const int mb_domatcopy_rung_count;
extern const mb_rung mb_sasum_rungs[];
extern const int mb_sasum_rung_count;
extern const mb_rung mb_dasum_rungs[];
extern const int mb_dasum_rung_count;
extern const mb_rung mb_sdot_rungs[];
extern const int mb_sdot_rung_count;
extern const mb_rung mb_ddot_rungs[];
extern const int mb_ddot_rung_count;

/* Not a rung: C = beta * C (beta == 0 writes zeros without reading C), used for gemm with
 * alpha == 0 or k == 0. kernels/common/scale.cu. */
cudaError_t mb_sgemm_scale(const mb_gemm_args *args, cudaStream_t stream);
cudaError_t mb_dgemm_scale(const mb_gemm_args *args, cudaStream_t stream);

/* Whether dgemm rung 12 (kernels/gemm/12_dmma.cu) runs its big 128 x 64 tile on a GPU of `sms`
 * SMs: for these arguments (rung 14's rule), and for an m x n x k product with the handle's
 * gemm workspace (auto's stream-K rule). */
int mb_dgemm_dmma_picks_big(const mb_gemm_args *args, int sms);
int mb_dgemm_dmma_big(int64_t m, int64_t n, int64_t k, int sms);
/* Whether it runs that tile's 128 x 128 variant (its deep tile: at most one wave of big tiles,
 * k deep) for an m x n x k product with aligned operands and the handle's gemm workspace
 * (auto's stream-K rule). The shape alone: a GPU whose blocks cannot take the deep tile's
 * 120 KB of shared memory (compute capability 8.6, 8.9) keeps the big tile there. */
int mb_dgemm_dmma_deep(int64_t m, int64_t n, int64_t k, int sms);
/* Whether that big tile leaves an edge tile of an m x n product unshifted (it then runs the
 * plainer STEP loop; ta, tb: A, B transposed, column-major; auto's rule for rung 14). */
int mb_dgemm_dmma_fixed_edges(int64_t m, int64_t n, int ta, int tb);
/* The tile dgemm rung 12 runs an m x n x k product with (ta, tb: A, B transposed, column-major;
 * lda, ldb: leading dimensions of 16-byte aligned operands; the handle's gemm workspace) on a
 * GPU of `sms` SMs: its big tile (the deep and STEP variants included), or its mid, small or
 * tiny tile, the first two on the XMMA loop or on their stream loop (tests check that the test
 * cases run the tile they are written for). */
enum {
    MB_DMMA_BIG,
    MB_DMMA_MID_XMMA,
    MB_DMMA_MID,
    MB_DMMA_SMALL_XMMA,
    MB_DMMA_SMALL,
    MB_DMMA_TINY
};
int mb_dgemm_dmma_tile(int64_t m, int64_t n, int64_t k, int ta, int tb, int64_t lda, int64_t ldb,
                       int sms);
/* Whether dgemm rung 14 (kernels/gemm/14_tma_dmma.cu) runs its TMA kernel for an m x n x k
 * product with the handle's gemm workspace (where rung 12 runs its big tile, from 3 tiles per
 * SM; auto's rules). */
int mb_dgemm_tma_dmma_big(int64_t m, int64_t n, int64_t k, int sms);

#ifdef __cplusplus
}
#endif
#endif
