/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rung 5, vectorized: tiles moved with 16-byte loads and stores (float4 / double2) by 256
 * threads, each carrying 2 or 4 vectors, all loads issued before the barrier. 8 consecutive
 * lanes take 8 consecutive vectors of one column (128 contiguous bytes), the 4 lane groups of
 * a warp 4 columns; each tile column is padded by one element, which keeps both shared phases
 * free of bank conflicts for this lane layout.
 * Around the data path: tiles of 64x64 (float) or 64x32 (double), halved when the big ones
 * would leave SMs with few tiles; one block per tile in bands of VEC_BAND row tiles (short,
 * wide windows of A and B in flight); streaming (evict-first) stores of interior tiles; on
 * Hopper programmatic dependent launch, with an L2 prefetch of the tile before the wait and
 * the next launch let in only after this block's loads.
 *
 * Why: a quarter (float) or half (double) of rung 4's memory instructions per byte and 4x the
 * bytes per request; the launch-level choices take the last few percent at every size.
 * Limit: vectors need A and B 16-byte aligned and lda, ldb multiples of the vector width; a
 * vector crossing the matrix edge is moved element by element, and a call whose alignment
 * does not hold takes rung 4's scalar kernel. trans = N: vectors copied and scaled directly.
 * Resources: 256 threads, launch bound 6 blocks per SM (VEC_BLOCKS_PER_SM), about 16.6 KB of
 * shared memory per block for the big tiles. The knobs below (-D overridable) are swept by
 * perf/sweep/transpose_knobs.sh. Measured: docs/ladders/transpose.md.
 */
#include "../common/common.cuh"

#define VEC_THREADS 256
/* Tuning knobs (overridable with -D for experiments; the defaults are the measured choice). */
#ifndef VEC_BLOCKS_PER_SM
#define VEC_BLOCKS_PER_SM 6 /* launch bound: 1536 threads per SM, <= 40 registers per thread */
#endif
#ifndef VEC_STREAM_STORES
#define VEC_STREAM_STORES 1 /* interior tiles of B stored evict-first (st.global.cs) */
#endif
#ifndef VEC_PREFETCH
#define VEC_PREFETCH 1 /* bulk L2 prefetch of the tile before the PDL wait */
#endif
#ifndef VEC_LATE_TRIGGER
#define VEC_LATE_TRIGGER 1 /* let the next launch in after this block's loads, not at once */
#endif
#ifndef VEC_BAND
#define VEC_BAND 4 /* band height of the tile order, in row tiles (1 ... VEC_BAND_MAX) */
#endif
#ifndef VEC_F_BIG_TR
#define VEC_F_BIG_TR 64 /* float big tile, rows x columns of A */
#define VEC_F_BIG_TC 64
#endif


/* Bulk prefetch of [p, p + bytes) into L2 (sm_90 cp.async.bulk.prefetch; p 16-byte aligned,
 * bytes a multiple of 16). A hint: no data comes back, nothing to wait for. */
__device__ __forceinline__ void vec_prefetch_l2(const void *p, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#endif
}

/*
 * Tile order: linear tile t -> (row tile ti, column tile tj) of A in bands of bh row tiles
 * (VEC_BAND, at most VEC_BAND_MAX), each band walked column of tiles by column
 * of tiles (ti fastest within the band). Blocks run roughly in t order, so the ~800 tiles in
 * flight cover about bh row tiles x 800 / bh column tiles. With VEC_BAND = 4 that window is
 * short and wide (256 rows of A: 1 KB runs of each A column, long runs of B columns); it
 * measured faster than the square window of bh = 32 and than the plain ti-fastest order
 * (docs/ladders/transpose.md, "tried, did not pay").
 */
#define VEC_BAND_MAX 32 /* the launcher's 2^31 numbering check assumes bands <= 32 tiles */
__device__ __forceinline__ void vec_tile_of(unsigned t, unsigned row_tiles, unsigned col_tiles,
                                            unsigned bh, unsigned *ti, unsigned *tj) {
    const unsigned per_band = bh * col_tiles; /* < 2^31: checked by the launcher */
    const unsigned band = t / per_band, r = t - band * per_band;
    const unsigned left = row_tiles - band * bh;
    const unsigned h = left < bh ? left : bh;
    *tj = r / h;
    *ti = band * bh + (r - *tj * h);
}

template <typename T>
struct __align__(16) vec_t {
    T v[16 / sizeof(T)];
};

/* Streaming (evict-first) 16-byte store: B is written once and not read back here. */
/* Edge tiles: store vector v at rows row .. row+W-1 of column col of B (column-major, ldb),
 * as one 16-byte store when it lies inside the nrows x ncols matrix, else element by element. */
template <typename T>
__device__ __forceinline__ void vec_store_edge(T *B, int64_t ldb, int64_t row, int64_t col,
                                               int64_t nrows, int64_t ncols, const vec_t<T> &v) {
    enum { W = 16 / sizeof(T) };
    if (col >= ncols) return;
    if (row + W <= nrows) {
        *(vec_t<T> *)(B + row + col * ldb) = v;
        return;
    }
#pragma unroll
    for (int k = 0; k < W; ++k)
        if (row + k < nrows) B[row + k + col * ldb] = v.v[k];
}

__device__ __forceinline__ void vec_store_cs(float *p, const vec_t<float> &r) {
#if VEC_STREAM_STORES
    __stcs((float4 *)p, make_float4(r.v[0], r.v[1], r.v[2], r.v[3]));
#else
    *(float4 *)p = make_float4(r.v[0], r.v[1], r.v[2], r.v[3]);
#endif
}
__device__ __forceinline__ void vec_store_cs(double *p, const vec_t<double> &r) {
#if VEC_STREAM_STORES
    __stcs((double2 *)p, make_double2(r.v[0], r.v[1]));
#else
    *(double2 *)p = make_double2(r.v[0], r.v[1]);
#endif
}

/*
 * One TR x TC tile of A (TR rows, TC columns; B gets the TC x TR transpose) per block
 * iteration, 256 threads, NSLOT = TR*TC / (W*256) 16-byte vectors per thread.
 * Load mapping, slot s: A column c = lc + 32*(s % CG), vector rv = lv + 8*(s / CG) of that
 * column (rows W*rv ... W*rv+W-1), CG = TC/32 column groups, lv = tid & 7, lc = tid >> 3:
 * 8 lanes cover 128 contiguous bytes of a column, a warp 4 columns.
 * Store mapping, slot s: B column (A row) rr = lc + 32*(s % RG), vector cv = lv + 8*(s / RG)
 * of that B column (A columns W*cv ...), RG = TR/32.
 * Needs TC % 32 == 0, TR % 32 == 0, (TR/W) % 8 == 0, (TC/W) % 8 == 0.
 */
template <typename T, int TR, int TC, bool TRANS>
__global__ void __launch_bounds__(VEC_THREADS, VEC_BLOCKS_PER_SM)
    omatcopy_vec_kernel(mb_omatcopy_args a, unsigned row_tiles, unsigned col_tiles, unsigned bh) {
    enum { W = 16 / sizeof(T), NSLOT = TR * TC / (W * VEC_THREADS), CG = TC / 32, RG = TR / 32 };
    static_assert(TC % 32 == 0 && TR % 32 == 0 && (TR / W) % 8 == 0 && (TC / W) % 8 == 0,
                  "tile shape outside the lane mapping");
    __shared__ T tile[TC][TR + 1]; /* tile[column of A][row of A], padded */
    const T *A = (const T *)a.A;
    T *B = (T *)a.B;
    const T alpha = (T)a.alpha;
    const int tid = threadIdx.x;
    const int64_t rows = a.rows, cols = a.cols, lda = a.lda, ldb = a.ldb;
    /* exactly one block per tile: the grid is row_tiles * col_tiles blocks (< 2^31, checked by
     * the launcher), so no grid-stride loop and nothing live across tiles */
    const int lv = tid & 7, lc = tid >> 3;
    unsigned ti, tj;
    vec_tile_of(blockIdx.x, row_tiles, col_tiles, bh, &ti, &tj);
    /* Before the PDL wait: ask L2 for this tile (its TC column pieces of A, TR elements each,
     * one bulk prefetch per column by threads 0 .. TC-1). A hint only: no data comes back,
     * and L2 is where every write of the previous grid lands, so the loads after the wait
     * still see them. Blocks that become resident while the previous call drains its last
     * wave keep DRAM busy through that tail. Interior tiles only (aligned and whole). */
    const int64_t i0 = (int64_t)ti * TR, j0 = (int64_t)tj * TC;
    const bool full = i0 + TR <= rows && j0 + TC <= cols;
    if (VEC_PREFETCH && full && tid < TC)
        vec_prefetch_l2(A + i0 + (j0 + tid) * lda, (unsigned)(TR * sizeof(T)));
    mb_grid_wait(); /* PDL: nothing is read or written before the previous grid is done */
    if (!VEC_LATE_TRIGGER) mb_grid_launch_next();
    {
        {
            vec_t<T> r[NSLOT];
            if (full) { /* interior tile: no checks, addresses from one base + constants */
                const T *p = A + (i0 + W * lv) + (j0 + lc) * lda;
                const int64_t lda32 = 32 * lda;
#pragma unroll
                for (int s = 0; s < NSLOT; ++s)
                    r[s] = *(const vec_t<T> *)(p + W * 8 * (s / CG) + (s % CG) * lda32);
            } else {
#pragma unroll
                for (int s = 0; s < NSLOT; ++s) {
                    const int c = lc + 32 * (s % CG), rv = lv + 8 * (s / CG);
                    const int64_t row = i0 + W * rv, col = j0 + c;
                    if (row + W <= rows && col < cols) {
                        r[s] = *(const vec_t<T> *)(A + row + col * lda);
                    } else {
#pragma unroll
                        for (int k = 0; k < W; ++k)
                            r[s].v[k] = (row + k < rows && col < cols) ? A[row + k + col * lda] : (T)0;
                    }
                }
            }
            if (VEC_LATE_TRIGGER) mb_grid_launch_next();
            if (!TRANS) { /* scaled copy: the same vectors go straight to B */
#pragma unroll
                for (int s = 0; s < NSLOT; ++s)
#pragma unroll
                    for (int k = 0; k < W; ++k) r[s].v[k] *= alpha;
                if (full) {
                    T *q = B + (i0 + W * lv) + (j0 + lc) * ldb;
                    const int64_t ldb32 = 32 * ldb;
#pragma unroll
                    for (int s = 0; s < NSLOT; ++s)
                        vec_store_cs(q + W * 8 * (s / CG) + (s % CG) * ldb32, r[s]);
                } else {
#pragma unroll
                    for (int s = 0; s < NSLOT; ++s) {
                        const int c = lc + 32 * (s % CG), rv = lv + 8 * (s / CG);
                        vec_store_edge(B, ldb, i0 + W * rv, j0 + c, rows, cols, r[s]);
                    }
                }
            } else {
#pragma unroll
                for (int s = 0; s < NSLOT; ++s) {
                    const int c = lc + 32 * (s % CG), rv = lv + 8 * (s / CG);
#pragma unroll
                    for (int k = 0; k < W; ++k) tile[c][W * rv + k] = alpha * r[s].v[k];
                }
                __syncthreads();
                /* Store: slot s is vector cv of B column i0 + rr (A row), gathered from a row of
                 * the tile: B rows (A columns) j0 + W*cv ... j0 + W*cv + W-1. */
#pragma unroll
                for (int s = 0; s < NSLOT; ++s) {
                    const int rr = lc + 32 * (s % RG), cv = lv + 8 * (s / RG);
#pragma unroll
                    for (int k = 0; k < W; ++k) r[s].v[k] = tile[W * cv + k][rr];
                }
                if (full) {
                    T *q = B + (j0 + W * lv) + (i0 + lc) * ldb;
                    const int64_t ldb32 = 32 * ldb;
#pragma unroll
                    for (int s = 0; s < NSLOT; ++s)
                        vec_store_cs(q + W * 8 * (s / RG) + (s % RG) * ldb32, r[s]);
                } else {
#pragma unroll
                    for (int s = 0; s < NSLOT; ++s) {
                        const int rr = lc + 32 * (s % RG), cv = lv + 8 * (s / RG);
                        vec_store_edge(B, ldb, j0 + W * cv, i0 + rr, cols, rows, r[s]);
                    }
                }
                __syncthreads(); /* the tile is read before the next one overwrites it */
            }
        }
    }
}

/* Fallback when alignment does not allow vectors: rung 4's launcher (32x32 tile, 32x8 threads,
 * 4 elements per thread), kernels/transpose/04_multi.cu. */
extern "C" cudaError_t mb_somatcopy_multi(const void *args, cudaStream_t stream);
extern "C" cudaError_t mb_domatcopy_multi(const void *args, cudaStream_t stream);
template <typename T> static cudaError_t vec_fallback(const mb_omatcopy_args *a, cudaStream_t s) {
    return sizeof(T) == sizeof(float) ? mb_somatcopy_multi(a, s) : mb_domatcopy_multi(a, s);
}

/* Tile shapes (rows x columns of A): large problems take the big tile; problems with fewer
 * than VEC_SMALL_TILES_PER_SM * SMs big tiles take the small one (twice as many tiles, so
 * every SM gets several). */
template <typename T> struct vec_cfg;
template <> struct vec_cfg<float> { enum { BIG_TR = VEC_F_BIG_TR, BIG_TC = VEC_F_BIG_TC, SMALL_TR = 64, SMALL_TC = 32 }; };
template <> struct vec_cfg<double> { enum { BIG_TR = 64, BIG_TC = 32, SMALL_TR = 32, SMALL_TC = 32 }; };
#define VEC_SMALL_TILES_PER_SM 4

template <typename T, int TR, int TC>
static cudaError_t vec_launch(const mb_omatcopy_args *a, int pdl, cudaStream_t s) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1] = {};
    const unsigned row_tiles = (unsigned)mb_cdiv(a->rows, TR), col_tiles = (unsigned)mb_cdiv(a->cols, TC);
    /* Band height: VEC_BAND row tiles (measured: docs/ladders/transpose.md). */
    const long bh = VEC_BAND;
    /* one block per tile, 1D, in the banded order of vec_tile_of */
    cfg.gridDim = dim3(row_tiles * col_tiles);
    cfg.blockDim = dim3(VEC_THREADS);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    cudaError_t e =
        a->trans ? cudaLaunchKernelEx(&cfg, omatcopy_vec_kernel<T, TR, TC, true>, *a, row_tiles, col_tiles, (unsigned)bh)
                 : cudaLaunchKernelEx(&cfg, omatcopy_vec_kernel<T, TR, TC, false>, *a, row_tiles, col_tiles, (unsigned)bh);
    if (e != cudaSuccess) return e;
    return cudaGetLastError();
}

template <typename T>
static cudaError_t omatcopy_vectorized(const mb_omatcopy_args *a, cudaStream_t s) {
    const int64_t W = 16 / sizeof(T);
    /* vectors need 16-byte aligned columns; the banded 1D tile numbering needs the tile count
     * (of the smallest tile, 32x32) and a band's count below 2^31 (always so for matrices that
     * fit in memory; otherwise rung 4, which has no such limit) */
    const int64_t rt = mb_cdiv(a->rows, 32), ct = mb_cdiv(a->cols, 32);
    const int numberable = rt < ((int64_t)1 << 31) && ct < ((int64_t)1 << 25) &&
                           rt * ct + 32 * ct < ((int64_t)1 << 31);
    const int aligned = (uintptr_t)a->A % 16 == 0 && (uintptr_t)a->B % 16 == 0 &&
                        a->lda % W == 0 && a->ldb % W == 0 && numberable;
    if (!aligned) return vec_fallback<T>(a, s);
    int sms = 0, major = 0;
    cudaError_t e = mb_device_info(&sms, &major);
    if (e != cudaSuccess) return e;
    const int pdl = major >= 9;
    typedef vec_cfg<T> C;
    const int64_t big_tiles = mb_cdiv(a->rows, C::BIG_TR) * mb_cdiv(a->cols, C::BIG_TC);
    if (big_tiles >= (int64_t)VEC_SMALL_TILES_PER_SM * sms)
        return vec_launch<T, C::BIG_TR, C::BIG_TC>(a, pdl, s);
    return vec_launch<T, C::SMALL_TR, C::SMALL_TC>(a, pdl, s);
}

MB_OMATCOPY_LAUNCHERS(vectorized, omatcopy_vectorized)
