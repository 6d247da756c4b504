/*
 * Rung 11, tuned: rung 10's warp-tiled, cp.async-pipelined kernel, with the tile configuration
 * chosen per shape class (and per precision) from a small table instead of one fixed choice.
 * One 128 x 128 configuration cannot fit every shape: C of 8192 x 128 or 1024 x 1024 has only
 * 64 such tiles for 132 SMs, so half the GPU idles; smaller block tiles give more blocks (at
 * some cost in shared-memory traffic per FMA), and the right crossover depends on the shape
 * and precision. The rule: walk the precision's table in order and take the first row whose
 * configuration gives at least `min_tiles` tiles of C for this m x n (and whose k is at least
 * `min_k`); the last row (min_tiles 0) always matches. The thresholds below are first guesses
 * from SM counting (132 SMs, 2 resident blocks each -> 264 tiles fill one wave); the measured
 * crossovers go here.
 * Configurations (block BM x BN x BK / warp WM x WN / thread TM x TN / stages):
 *   float  F_BIG   128x128x16 / 64x32 / 8x8 / 2   (= rung 10)     256 threads
 *   float  F_MID   128x64x16  / 64x32 / 8x8 / 3                   128 threads
 *   float  F_SMALL 64x64x16   / 32x32 / 8x4 / 3                   128 threads
 *   double D_BIG   128x64x8   / 64x16 / 8x4 / 3   (= rung 10)     256 threads
 *   double D_WIDE  128x128x8  / 64x32 / 8x8 / 2   (1 block/SM)    256 threads
 *   double D_SMALL 64x64x8    / 32x32 / 8x4 / 3                   128 threads
 * Resources (sm_90, -O3, worst transpose case): F_BIG 128, F_MID 249 (with MINB 3 or 4 it
 * spills), F_SMALL 128, D_BIG 128, D_WIDE 236, D_SMALL 128 registers, 0 spills; dynamic shared
 * memory < 48 KB for all (largest: F_MID 37.5 KB).
 */
#define MB_GEMM_WARPTILED_NO_LAUNCHERS
#include "10_warptiled.cu"

typedef mb_wt_cfg<128, 128, 16, 64, 32, 8, 8, 2, 2> F_BIG;
typedef mb_wt_cfg<128, 64, 16, 64, 32, 8, 8, 3, 2> F_MID;
typedef mb_wt_cfg<64, 64, 16, 32, 32, 8, 4, 3, 4> F_SMALL;
typedef mb_wt_cfg<128, 64, 8, 64, 16, 8, 4, 3, 2> D_BIG;
typedef mb_wt_cfg<128, 128, 8, 64, 32, 8, 8, 2, 1> D_WIDE;
typedef mb_wt_cfg<64, 64, 8, 32, 32, 8, 4, 3, 4> D_SMALL;

typedef cudaError_t (*mb_tuned_fn)(const mb_gemm_args *, cudaStream_t);

typedef struct {
    int bm, bn;        /* block tile of the configuration (to count tiles) */
    int64_t min_tiles; /* take this row if the configuration gives at least this many tiles */
    int64_t min_k;     /* ... and k is at least this */
    mb_tuned_fn fn;
} mb_tuned_row;

static const mb_tuned_row mb_tuned_float[] = {
    {128, 128, 264, 0, gemm_warptiled_cfg<float, F_BIG>},
    {128, 64, 264, 0, gemm_warptiled_cfg<float, F_MID>},
    {64, 64, 0, 0, gemm_warptiled_cfg<float, F_SMALL>},
};
static const mb_tuned_row mb_tuned_double[] = {
    {128, 64, 264, 0, gemm_warptiled_cfg<double, D_BIG>},
    {64, 64, 0, 0, gemm_warptiled_cfg<double, D_SMALL>},
    {128, 128, 0, 0, gemm_warptiled_cfg<double, D_WIDE>}, /* candidate: not selected yet */
};

static cudaError_t mb_tuned_pick(const mb_tuned_row *t, int rows, const mb_gemm_args *a,
                                 cudaStream_t s) {
    for (int r = 0; r < rows; ++r) {
        const int64_t tiles = mb_cdiv(a->m, t[r].bm) * mb_cdiv(a->n, t[r].bn);
        if (tiles >= t[r].min_tiles && a->k >= t[r].min_k) return t[r].fn(a, s);
    }
    return t[rows - 1].fn(a, s); /* unreachable while the last row matches everything */
}

template <typename T> static cudaError_t gemm_tuned(const mb_gemm_args *a, cudaStream_t s);
template <> cudaError_t gemm_tuned<float>(const mb_gemm_args *a, cudaStream_t s) {
    return mb_tuned_pick(mb_tuned_float, (int)(sizeof mb_tuned_float / sizeof mb_tuned_float[0]), a, s);
}
template <> cudaError_t gemm_tuned<double>(const mb_gemm_args *a, cudaStream_t s) {
    return mb_tuned_pick(mb_tuned_double, (int)(sizeof mb_tuned_double / sizeof mb_tuned_double[0]), a, s);
}

MB_GEMM_LAUNCHERS(tuned, gemm_tuned)
