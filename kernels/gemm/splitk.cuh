/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Split-K for the tensor-core rungs (12..14): when C has too few tiles to fill the GPU (the
 * skinny shapes 8192x128x8192 and 128x8192x8192 have 64 tiles of 128x128 for 132 SMs), the k
 * range is cut into S slices and the grid gets a second dimension: block (t, s) computes tile
 * t over slice s. Slice 0 writes C as usual (alpha * partial + beta * C); slice s > 0 writes
 * alpha * partial into slab s - 1 of the handle's gemm workspace (m x n, column-major, ld m);
 * then one small kernel adds the slabs into C, in slice order (deterministic: the same
 * inputs give the same bits every time).
 * The kernels only change the problem they see (mb_splitk_part): the A and B origins move to
 * the slice's first k, k becomes the slice's depth, and slices s > 0 target their slab.
 * Under the 3xTF32 range guard (x3guard.cuh) slice 0 writes a slab too (own0 = 1 in the
 * plans): C must stay intact for the fixup of flagged tiles, so only the reduce writes C.
 * Cost: the slabs are written and read once ((S - 1) m n elements each way), small next to
 * the product when a slice is at least MB_SPLITK_MIN_KT k-tiles deep.
 * Measured (H200, before the range guard, TFLOP/s and % of cuBLAS): wgmma_tf32x3 on 8192x128x8192
 * 63.8 NN / 65.1 TT (126% / 137%; before: 33.7 / 33.8), 128x8192x8192 64.3 / 65.5 (128% /
 * 130%; before 33.6 / 34.1), 1024^3 49.2 / 49.8 (129% / 123%; before 30.8 / 31.5); dmma on
 * the skinny shapes 39-40 TFLOP/s (74-77% of cuBLAS DGEMM).
 */
#ifndef MINIBLAS_GEMM_SPLITK_CUH
#define MINIBLAS_GEMM_SPLITK_CUH

#include "../common/common.cuh"

#define MB_SPLITK_MIN_KT 4 /* k-tiles per slice at least */
#define MB_SPLITK_MAX 16   /* slices at most */

/* How to split one launch: S slices of kc elements of k (a multiple of the k-tile; the last
 * slice may be shorter, none is empty). S == 1: no split. */
typedef struct mb_splitk {
    int S;
    int64_t kc;
} mb_splitk;

/* S slices of k, clamped so that each is at least MB_SPLITK_MIN_KT k-tiles of depth bk, there
 * are at most MB_SPLITK_MAX, and the workspace holds their slabs (S - 1 of m x n elements). */
/* own0: slice 0 writes a slab too (the 3xTF32 range guard, x3guard.cuh): S slabs, not S - 1. */
static inline mb_splitk mb_splitk_make(const mb_gemm_args *p, int64_t s, int bk, size_t elem,
                                       int own0 = 0) {
    mb_splitk sp = {1, p->k};
    if (!p->work) return sp;
    const int64_t kt = mb_cdiv(p->k, bk);
    if (s > kt / MB_SPLITK_MIN_KT) s = kt / MB_SPLITK_MIN_KT;
    if (s > MB_SPLITK_MAX) s = MB_SPLITK_MAX;
    const int64_t slab = p->m * p->n * (int64_t)elem;
    const int64_t fit = (int64_t)(p->work_bytes / (size_t)slab);
    if (s > 1 + fit - own0) s = 1 + fit - own0;
    if (s < 2) return sp;
    const int64_t per = mb_cdiv(kt, s); /* k-tiles per slice; recount so none is empty */
    sp.S = (int)mb_cdiv(kt, per);
    sp.kc = per * bk;
    return sp;
}

/* The split for a grid of `tiles` blocks when `per_sm` blocks fit on an SM: split only when
 * the tiles fill less than half of the GPU's block slots, into as many slices as fill them.
 * The SMs are the current device's, or `sms` when positive. */
static inline mb_splitk mb_splitk_plan(const mb_gemm_args *p, int64_t tiles, int per_sm, int bk,
                                       size_t elem, int own0 = 0, int sms = 0) {
    mb_splitk sp = {1, p->k};
    if (!p->work || (sms <= 0 && mb_device_info(&sms, NULL) != cudaSuccess)) return sp;
    const int64_t slots = (int64_t)sms * per_sm;
    if (2 * tiles > slots) return sp;
    return mb_splitk_make(p, slots / tiles, bk, elem, own0);
}

/* The k range of slice s: A and B move to its first k, k becomes its depth. */
template <typename T>
__device__ __forceinline__ mb_gemm_args mb_splitk_slice(mb_gemm_args p, int s, int64_t kc) {
    const int64_t k0 = (int64_t)s * kc;
    p.k = p.k - k0 < kc ? p.k - k0 : kc;
    p.A = (const T *)p.A + (p.transa ? k0 : k0 * p.lda);
    p.B = (const T *)p.B + (p.transb ? k0 * p.ldb : k0);
    return p;
}

/* The problem block row s of the grid computes (see the header comment). */
template <typename T>
__device__ __forceinline__ mb_gemm_args mb_splitk_part(mb_gemm_args p, int s, int64_t kc) {
    p = mb_splitk_slice<T>(p, s, kc);
    if (s > 0) {
        p.C = (T *)p.work + (int64_t)(s - 1) * p.m * p.n;
        p.ldc = p.m;
        p.beta = 0.0;
    }
    return p;
}

/* Split of the last, partial wave only ("tail split"): when the tiles fill w >= 1
 * whole waves of the GPU's block slots plus a last wave at most half full, that wave would
 * run its few tiles on a few SMs for a whole tile time while the rest idle. Instead its
 * tiles (t0 .. tiles - 1, the last in launch order) are each cut into S slices of k, one
 * block per slice, in the same launch: they start as the last full wave drains and take
 * about 1/S of a tile time. Slice 0 writes C; slice s > 0 writes alpha * its partial tile
 * into a compact BM x BN slab of the workspace; a small kernel adds the slabs into C (in
 * slice order: deterministic). S = 1: none.
 * Measured (H100, alternating processes with and without, % of cuBLAS): dgemm
 * dmma 2560^3 (800 tiles of 128x64 = 3 waves + 8) 79-81 -> 91-92%, 8192^3 (31 waves + 8)
 * +1; sgemm tf32x3 2560^3 71 -> 91%, 8192^3 85 -> 87%; 3072^3 (4 waves + 96, 2 slices) and
 * shapes without a short last wave unchanged.
 * At shallow k the slab sum costs more than it saves: there an FP64 grid of four waves or
 * more splits its last wave only where that wave is at most an eighth full (MB_TAIL_SHALLOW_KT).
 * Measured (H200, alternating processes with and without the split, dgemm rungs 12 and 14,
 * perf/results/h200/dgemm-tail/): a last wave 36-45% full took 2-12% less time unsplit at
 * k = 128-384 (3072x3072x128 NN 69.4 -> 60.9 us, 6144x6144x256 TT 441 -> 427 us); one 12%
 * full was level (5120x5120x256); one 3% full 2-4% slower unsplit (2560x2560x256). */
#define MB_TAIL_SHALLOW_KT 24 /* k-tiles; FP64 big tile: k <= 384 */
typedef struct mb_tail {
    int64_t t0; /* first tail tile */
    int S;      /* slices per tail tile (1: no tail split) */
    int64_t kc; /* k per slice */
} mb_tail;

static inline mb_tail mb_tail_plan(const mb_gemm_args *p, int64_t tiles, int per_sm, int bk,
                                   int64_t tile_elems, size_t elem, int own0 = 0, int sms = 0) {
    mb_tail t = {tiles, 1, p->k};
    if (!p->work || (sms <= 0 && mb_device_info(&sms, NULL) != cudaSuccess)) return t;
    const int64_t slots = (int64_t)sms * per_sm, rem = tiles % slots;
    if (tiles < slots || rem == 0 || 2 * rem > slots || tiles + slots > MB_GRID_X_MAX) return t;
    const int64_t kt = mb_cdiv(p->k, bk);
    if (elem == sizeof(double) && kt <= MB_TAIL_SHALLOW_KT && tiles >= 4 * slots &&
        8 * rem > slots)
        return t;
    int64_t S = slots / rem;
    if (S > kt / MB_SPLITK_MIN_KT) S = kt / MB_SPLITK_MIN_KT;
    if (S > MB_SPLITK_MAX) S = MB_SPLITK_MAX;
    const int64_t fit = (int64_t)(p->work_bytes / ((size_t)(rem * tile_elems) * elem));
    if (S > 1 + fit - own0) S = 1 + fit - own0;
    if (S < 2) return t;
    const int64_t per = mb_cdiv(kt, S); /* k-tiles per slice; recount so none is empty */
    t.t0 = tiles - rem;
    t.S = (int)mb_cdiv(kt, per);
    t.kc = per * bk;
    return t;
}

/* C += slab 0 + ... + slab S - 2, one thread per element of C, column by column
 * (mb_colwise_grid). Programmatic dependent launch (mb_gemm_args.pdl): waits for the gemm
 * before reading anything. */
template <typename T>
__global__ void mb_splitk_reduce_kernel(T *C, int64_t ldc, const T *W, int64_t m, int64_t n,
                                        int slabs) {
    mb_grid_wait();
    mb_grid_launch_next();
    const int64_t mn = m * n;
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m;
         r += (int64_t)gridDim.x * blockDim.x)
        for (int64_t c = blockIdx.y; c < n; c += gridDim.y) {
            const int64_t e = r + c * m;
            T v = C[r + c * ldc];
            for (int s = 0; s < slabs; ++s) v += W[s * mn + e];
            C[r + c * ldc] = v;
        }
}

/* After the split launch: the slab sum into C (nothing when S == 1). */
template <typename T>
static inline cudaError_t mb_splitk_finish(const mb_gemm_args *p, mb_splitk sp, cudaStream_t s) {
    if (sp.S == 1) return cudaSuccess;
    dim3 grid, block;
    mb_colwise_grid(p->m, p->n, &grid, &block);
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = mb_launch_cfg(attr, grid, block, 0, s, p->pdl);
    const cudaError_t e = cudaLaunchKernelEx(&cfg, mb_splitk_reduce_kernel<T>, (T *)p->C, p->ldc,
                                             (const T *)p->work, p->m, p->n, sp.S - 1);
    return e != cudaSuccess ? e : cudaGetLastError();
}

#endif
