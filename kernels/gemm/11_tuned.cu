/*
 * Rung 11, tuned: rung 10's warp-tiled, cp.async-pipelined kernel, with the tile configuration
 * chosen per shape class (and per precision) from a small table instead of one fixed choice.
 * One 128 x 128 configuration cannot fit every shape: C of 1024 x 1024 or 8192 x 128 has only
 * 64 such tiles for 132 SMs, so half the GPU idles; smaller block tiles give more blocks (at
 * some cost in shared-memory traffic per FMA). The rule: walk the precision's table in order and
 * take the first row whose configuration gives at least `min_tiles` tiles of C for this m x n;
 * the last row (min_tiles 0) always matches. No split-K: the launcher has no workspace.
 *
 * Configurations (block BM x BN x BK / warp WM x WN / thread TM x TN / stages / blocks per SM):
 *   float  F_BIG   128x128x16 / 64x32 / 8x8 / 3 / 2   256 threads   (rung 10 has 2 stages)
 *   float  F_SMALL 64x64x16   / 32x32 / 8x4 / 3 / 4   128 threads
 *   double D_WIDE  128x128x8  / 64x32 / 8x8 / 3 / 1   256 threads   (rung 9's tile, 1 block/SM)
 *   double D_BIG   128x64x16  / 64x16 / 8x4 / 3 / 2   256 threads   (rung 10's, with BK 16)
 *   double D_SMALL 64x64x8    / 32x32 / 8x4 / 3 / 4   128 threads
 *
 * Table rows, and what backs them (H200, run 2, NN, before the loader fast path):
 *   float  F_BIG   if >= 200 tiles: MEASURED at 4096 (1024 tiles): 41.3 TFLOP/s (81.0% of
 *                  cuBLAS) with 2 stages; 3 stages here is a GUESS (more latency slack, smem
 *                  49.5 KB per block, still 2 blocks per SM). The threshold 200 (~0.75 of one
 *                  wave of 264 resident blocks) is a GUESS: 2048^2 (256 tiles) stays on F_BIG.
 *   float  F_SMALL otherwise: MEASURED at 1024 (256 tiles): 30.9 TFLOP/s (81.5%), against
 *                  18.6 for F_BIG-like rung 10 (64 tiles). Skinny shapes (8192x128, 128x8192:
 *                  256 tiles) land here: GUESS, not yet measured.
 *   double D_WIDE  if >= 528 tiles of 128x128 (4 waves of 132 blocks, n >= ~2900): GUESS from
 *                  rung 9 (same tile and thread tile, 1 block/SM) measuring 20.4 TFLOP/s at 4096
 *                  against 19.3 for rung 10's 128x64.
 *   double D_BIG   if >= 264 tiles: GUESS (BK 16 halves the barriers per FMA of rung 10).
 *   double D_SMALL otherwise: MEASURED at 1024: 17.1 TFLOP/s (rung 10's 128x64: 16.8).
 * (Run 2 also had a float 128x64 configuration in the table: 243 registers, 4 warps per block,
 * 2 blocks per SM, never measured; dropped until a shape shows a need for it.)
 * Measured (H200, run 2, NN): sgemm 30.9 TFLOP/s at 1024 (81.5% of cuBLAS), 41.3 at 4096
 * (81.0%); dgemm 17.1 / 19.3 TFLOP/s.
 * Resources (sm_90, -O3, worst transpose case): F_BIG 128 registers (16-88 bytes of spill, in the
 * guarded edge-tile loader only), F_SMALL 128, D_WIDE 242, D_BIG 128, D_SMALL 128, 0 spills;
 * dynamic shared memory above 48 KB for F_BIG (49.5 KB), D_WIDE (48.75 KB) and D_BIG (73.5 KB)
 * (the launcher raises the limit; two blocks per SM still fit in 228 KB).
 */
#define MB_GEMM_WARPTILED_NO_LAUNCHERS
#include "10_warptiled.cu"

typedef mb_wt_cfg<128, 128, 16, 64, 32, 8, 8, 3, 2> F_BIG;
typedef mb_wt_cfg<64, 64, 16, 32, 32, 8, 4, 3, 4> F_SMALL;
typedef mb_wt_cfg<128, 128, 8, 64, 32, 8, 8, 3, 1> D_WIDE;
typedef mb_wt_cfg<128, 64, 16, 64, 16, 8, 4, 3, 2> D_BIG;
typedef mb_wt_cfg<64, 64, 8, 32, 32, 8, 4, 3, 4> D_SMALL;

typedef cudaError_t (*mb_tuned_fn)(const mb_gemm_args *, cudaStream_t);

typedef struct {
    int bm, bn;        /* block tile of the configuration (to count tiles) */
    int64_t min_tiles; /* take this row if the configuration gives at least this many tiles */
    mb_tuned_fn fn;
} mb_tuned_row;

static const mb_tuned_row mb_tuned_float[] = {
    {128, 128, 200, gemm_warptiled_cfg<float, F_BIG>},
    {64, 64, 0, gemm_warptiled_cfg<float, F_SMALL>},
};
static const mb_tuned_row mb_tuned_double[] = {
    {128, 128, 528, gemm_warptiled_cfg<double, D_WIDE>},
    {128, 64, 264, gemm_warptiled_cfg<double, D_BIG>},
    {64, 64, 0, gemm_warptiled_cfg<double, D_SMALL>},
};

static cudaError_t mb_tuned_pick(const mb_tuned_row *t, int rows, const mb_gemm_args *a,
                                 cudaStream_t s) {
    for (int r = 0; r < rows - 1; ++r) {
        const int64_t tiles = mb_cdiv(a->m, t[r].bm) * mb_cdiv(a->n, t[r].bn);
        if (tiles >= t[r].min_tiles) return t[r].fn(a, s);
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
