/*
 * Rung 11, tuned: rung 10's warp-tiled, cp.async-pipelined kernel, with the tile configuration
 * chosen per shape class (and per precision) from a small table instead of one fixed choice.
 * One 128 x 128 configuration cannot fit every shape: C of 1024 x 1024 or 8192 x 128 has only
 * 64 such tiles for 132 SMs, so half the GPU idles. The rule: walk the precision's table in order
 * and take the first row whose configuration gives at least `min_tiles` tiles of C for this
 * m x n; the last row (min_tiles 0) always matches. No split-K across blocks (no workspace).
 * Small-C shapes use "sliced k" instead (mb_wt_cfg's KS, 10_warptiled.cu): a 64 x 64 tile of C
 * gives 4x the tiles of 128 x 128, and KS groups of warps in the block split each shared k-tile
 * between them, then add their partial tiles through shared memory in a fixed order (so results
 * are deterministic). That keeps 16 warps per SM on 256 tiles, where run 3's 64 x 64 tile with
 * 4 warps per block had 8, and it lets the small tile keep rung 10's 8 x 8 thread tile (a 4 x 8
 * warp of 8 x 8 thread tiles is 32 x 64): run 3's F_SMALL (8 x 4 per thread) spent 10 cycles of
 * shared-memory returns per 8 cycles of FFMA (see rung 10) and was bound by them.
 *
 * Configurations (block BM x BN x BK / warp WM x WN / thread TM x TN / stages / blocks per SM /
 * k-slices; threads):
 *   float  F_BIG    128x128x16 / 64x32 / 8x8 / 2 / 2 / 1   256  (exactly rung 10's config)
 *   float  F_SLICED 64x64x32   / 32x64 / 8x8 / 2 / 2 / 4   256  (each slice 8 of the 32 k)
 *   double D_WIDE   128x128x8  / 64x32 / 8x8 / 3 / 1 / 1   256
 *   double D_BIG    128x64x16  / 64x16 / 8x4 / 3 / 2 / 1   256
 *   double D_SLICED 64x64x16   / 32x32 / 8x4 / 3 / 2 / 2   256
 * Table rows (H200, NN, run 3 unless said; % of cuBLAS FP32 51.0 TFLOP/s at 4096/8192, 37.9 at
 * 1024 from run 2):
 *   float  F_BIG    if >= 200 tiles of 128x128 (2048^2 has 256). Run 3 had 3 stages here:
 *                   41.0 TFLOP/s at 4096, 41.7 at 8192, 39.8 at 2048, 37.9 at 4097 x 4095 x 4099,
 *                   1-4% behind rung 10's 2 stages (42.2 / 42.9 / 41.0 / 39.0); now rung 10's
 *                   config, so tuned equals warptiled on these shapes by construction.
 *   float  F_SLICED otherwise. Run 3's 64x64 8x4 4-warp F_SMALL: 28.4 at 1024 (75%), 29.5 at
 *                   8192 x 128 x 8192 (58%), 29.6 at 128 x 8192 x 8192 (59%). F_SLICED NOT yet
 *                   measured.
 *   double D_WIDE   if >= 528 tiles of 128x128 (4 waves of 132 blocks): 21.2 TFLOP/s at 4096,
 *                   21.2 at 8192, 20.0 at 4097 (rung 10's 128x64 8x4: 19.0 / 19.4 / 17.4).
 *   double D_BIG    if >= 264 tiles of 128x64: 20.1 at 2048 (rung 9: 20.1).
 *   double D_SLICED otherwise (NOT yet measured; run 3's 64x64 4-warp D_SMALL: 16.3 at 1024 and
 *                   on both skinny shapes).
 * All rows also get rung 10's lane interleave (after run 3, not yet measured).
 * Resources (sm_90, -O3, all four transpose cases): F_BIG 122-128 registers (16-88 bytes of
 * spill, in the guarded edge-tile loader only), F_SLICED 128 (spills in the edge loader; two
 * 8-byte reloads per k-tile on the fast path), D_WIDE 234-250, D_BIG 126-128, D_SLICED 128,
 * 0 spills. Dynamic shared memory: F_BIG 33 KB, F_SLICED 48 KB (the k-slice reduction buffer,
 * 3 x 64 x 64 floats, is larger than the 34 KB ring), D_WIDE 48.75 KB, D_BIG 73.5 KB,
 * D_SLICED 49.5 KB; two blocks per SM fit in 228 KB wherever MINB is 2.
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
