/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 11, tuned: rung 10's kernel with the tile configuration chosen per shape class and
 * precision from a small table: walk the table in order and take the first row whose
 * configuration gives at least `min_tiles` tiles of C for this m x n (the last row always
 * matches). Small-C shapes use "sliced k" (mb_wt_cfg's KS): a 64 x 64 tile gives 4x the tiles
 * of 128 x 128, and KS groups of warps split each shared k-tile between them, then add their
 * partial tiles through shared memory in a fixed order (deterministic). That keeps 16 warps
 * per SM on small problems and lets the small tile keep the 8 x 8 thread tile.
 *
 * Configurations (block BM x BN x BK / warp / thread / stages / blocks per SM / k-slices),
 * 256 threads each:
 *   float  F_BIG    128x128x16 / 64x32 / 8x8 / 2 / 2 / 1   (rung 10's) if >= 200 tiles
 *   float  F_SLICED 64x64x32   / 32x64 / 8x8 / 2 / 2 / 4   otherwise
 *   double D_WIDE   128x128x8  / 64x32 / 8x8 / 3 / 1 / 1   if >= 528 tiles (4 waves)
 *   double D_BIG    128x64x16  / 64x16 / 8x4 / 3 / 2 / 1   if >= 264 tiles
 *   double D_SLICED 64x64x16   / 32x32 / 8x4 / 3 / 2 / 2   otherwise
 *
 * Why: one 128 x 128 configuration cannot fill 132 SMs on 1024^2 or on skinny shapes.
 * Limit: no split-K across blocks (the SIMT rungs have no workspace); at large n it is rung 10.
 * Resources: F_BIG / D_BIG / slices about 128 registers, D_WIDE about 250 (one block per SM);
 * dynamic shared memory F_BIG 33 KB, F_SLICED 48 KB (the k-slice reduction buffer), D_WIDE
 * 48.75 KB, D_BIG 73.5 KB, D_SLICED 49.5 KB. Measured: docs/ladders/gemm.md.
 */
#define MB_GEMM_WARPTILED_NO_LAUNCHERS
#include "10_warptiled.cu"

typedef mb_wt_cfg<128, 128, 16, 64, 32, 8, 8, 2, 2> F_BIG;     /* = rung 10's float config */
typedef mb_wt_cfg<64, 64, 32, 32, 64, 8, 8, 2, 2, 4> F_SLICED; /* 4 k-slices, 256 threads */
typedef mb_wt_cfg<128, 128, 8, 64, 32, 8, 8, 3, 1> D_WIDE;
typedef mb_wt_cfg<128, 64, 16, 64, 16, 8, 4, 3, 2> D_BIG;
typedef mb_wt_cfg<64, 64, 16, 32, 32, 8, 4, 3, 2, 2> D_SLICED; /* 2 k-slices, 256 threads */

typedef cudaError_t (*mb_tuned_fn)(const mb_gemm_args *, cudaStream_t);

typedef struct {
    int bm, bn;        /* block tile of the configuration (to count tiles) */
    int64_t min_tiles; /* take this row if the configuration gives at least this many tiles */
    mb_tuned_fn fn;
    size_t smem;       /* its dynamic shared memory: rows the GPU cannot hold are passed over */
} mb_tuned_row;

static const mb_tuned_row mb_tuned_float[] = {
    {128, 128, 200, gemm_warptiled_cfg<float, F_BIG>, mb_wt_smem_bytes<float, F_BIG>()},
    {64, 64, 0, gemm_warptiled_cfg<float, F_SLICED>, mb_wt_smem_bytes<float, F_SLICED>()},
};
static const mb_tuned_row mb_tuned_double[] = {
    {128, 128, 528, gemm_warptiled_cfg<double, D_WIDE>, mb_wt_smem_bytes<double, D_WIDE>()},
    {128, 64, 264, gemm_warptiled_cfg<double, D_BIG>, mb_wt_smem_bytes<double, D_BIG>()},
    {64, 64, 0, gemm_warptiled_cfg<double, D_SLICED>, mb_wt_smem_bytes<double, D_SLICED>()},
};

/* The most dynamic shared memory a block may have on the current device (opt-in), cached per
 * device: 227 KB on 9.0, 163 KB on 8.0, 99 KB on 8.6/8.9/12.x, 64 KB on 7.5. 0: unknown. */
static size_t mb_tuned_smem_max(void) {
    static int cache[64]; /* KB + 1; 0: not read yet */
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 0;
    int c = __atomic_load_n(&cache[dev], __ATOMIC_RELAXED);
    if (c == 0) {
        cudaError_t e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        if (e != cudaSuccess) {
            v = 0;
            cudaGetLastError(); /* not the launch's error */
        }
        c = v / 1024 + 1;
        __atomic_store_n(&cache[dev], c, __ATOMIC_RELAXED);
    }
    return (size_t)(c - 1) * 1024;
}

static cudaError_t mb_tuned_pick(const mb_tuned_row *t, int rows, const mb_gemm_args *a,
                                 cudaStream_t s) {
    const size_t smem_max = mb_tuned_smem_max();
    for (int r = 0; r < rows - 1; ++r) {
        const int64_t tiles = mb_cdiv(a->m, t[r].bm) * mb_cdiv(a->n, t[r].bn);
        if (tiles >= t[r].min_tiles && (smem_max == 0 || t[r].smem <= smem_max))
            return t[r].fn(a, s);
    }
    return t[rows - 1].fn(a, s); /* the last row matches everything */
}

template <typename T> static cudaError_t gemm_tuned(const mb_gemm_args *a, cudaStream_t s);
template <> cudaError_t gemm_tuned<float>(const mb_gemm_args *a, cudaStream_t s) {
    return mb_tuned_pick(mb_tuned_float, (int)(sizeof mb_tuned_float / sizeof mb_tuned_float[0]), a, s);
}
template <> cudaError_t gemm_tuned<double>(const mb_gemm_args *a, cudaStream_t s) {
    return mb_tuned_pick(mb_tuned_double, (int)(sizeof mb_tuned_double / sizeof mb_tuned_double[0]), a, s);
}

MB_GEMM_LAUNCHERS(tuned, gemm_tuned)
