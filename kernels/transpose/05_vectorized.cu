/*
 * Rung 5, vectorised: tiles moved with 16-byte loads and stores (float4: 4 floats, double2:
 * 2 doubles) by 256 threads, each carrying 2 or 4 vectors, all loads issued before the
 * barrier, and a quarter (half) of the memory instructions of rung 4 per element.
 *
 * Lanes: 8 consecutive lanes take 8 consecutive vectors of one column (128 contiguous
 * bytes), the 4 lane groups of a warp take 4 columns. Read phase: a vector of A's column c
 * goes to tile[c][r .. r+W-1] (W scalar shared stores). Write phase: a vector of B's column,
 * which is a row of the tile, is gathered as tile[c .. c+W-1][r] and stored as one vector.
 * With each tile column padded by one element both shared phases are conflict-free for this
 * lane layout (float: bank = c + 4*v + k mod 32 covers 32 distinct banks; double: 16
 * distinct 8-byte bank pairs per half-warp; the pad is 1 mod 32 words for every tile here).
 *
 * Vectors need A and B 16-byte aligned and lda, ldb multiples of W (then every column starts
 * aligned). A vector that would cross the edge of the matrix (rows or cols not a multiple of
 * W, edge tiles) is moved element by element. When the alignment does not hold, the call
 * takes rung 4's scalar kernel (32x32 tile, 32x8 threads, 4 elements per thread).
 * trans = 0: the same vectors copied and scaled straight from A to B, no shared memory.
 *
 * Measured, run 2 (H200; ceiling = device copy 4255 GB/s read + write; 64x64 tiles for both
 * precisions then): somatcopy T 1024^2: 1601 GB/s (37.6%, 1.29x cuBLAS geam), 4096^2: 3645
 * GB/s (85.7%, 1.08x cuBLAS); domatcopy T 1024^2: 2250 GB/s (52.9%, 0.95x cuBLAS), 4096^2:
 * 3809 GB/s (89.5%, 0.98x cuBLAS; rung 4 did 3944). ptxas: float 48 registers (5 blocks per
 * SM), double 64 registers and 33 KB of shared memory (4 blocks per SM).
 *
 * Changes after run 2:
 *  - __launch_bounds__(256, 8): at most 32 registers, so 8 blocks (2048 threads) fit per SM
 *    (was 5 / 4); with one block per tile that halves the number of waves and the idle tail
 *    of the last one (4096^2 float: 6.2 waves -> 3.9).
 *  - Tile shape per precision and size: float 64x64 (16.6 KB shared); double 64 rows x 32
 *    columns (16.6 KB, 4 vectors per thread, was 64x64 with 8 vectors and 33 KB); when the
 *    big tiles would number fewer than 4 per SM (1024^2 float: 256 tiles on 132 SMs) the
 *    launcher takes half-size tiles (float 64x32, double 32x32) so every SM has work.
 *  - Streaming stores (st.global.cs) for interior tiles of B: written once, evict first.
 *  - Programmatic dependent launch (Hopper): the next launch in the stream may start while
 *    this grid runs; each grid waits (griddepcontrol.wait) before touching memory. Hides
 *    most of the launch gap between back-to-back calls (the bulk of a 1024^2 call).
 * Expected: >= 3830 GB/s (90% of copy) at 4096^2 for both precisions and above cuBLAS at
 * 1024^2 double (now 7.46 us vs 7.10).
 *
 * Measured, run 3 (copy ceiling 4251 GB/s): somatcopy T 4096^2 3769 GB/s (88.7%), 8192x2048
 * 89.0%, 8192^2 90.3%, 16384^2 90.2% (96.3% of cuBLAS's 3980); domatcopy T 4096^2 88.3%
 * (96.4% of cuBLAS), 8192^2 87.6% (cuBLAS 4005 GB/s), 16384^2 86.5%, 8192x2048 88.0%.
 *
 * Changes after run 3:
 *  - Tile order: a 1D grid of exactly one block per tile (no grid-stride loop, nothing live
 *    across tiles), numbered in bands of 32 row tiles, each band walked column of tiles by
 *    column of tiles (vec_tile_of). The ~1000 tiles in flight then cover ~32 x ~33 tiles: A
 *    columns read and B columns written in runs of 8-16 KB. Before, blockIdx.x = row tile
 *    over the whole height: whole A columns in order, but at 16384^2 only ~4 tiles (1 KB) of
 *    each B column in flight, i.e. writes scattered over ~16000 DRAM pages. Expected: the
 *    large sizes (8192^2, 16384^2, double most) +2-5%.
 *  - L2 prefetch before the PDL wait: threads 0..TC-1 of each block issue one bulk prefetch
 *    (cp.async.bulk.prefetch.L2) of their A column piece of the block's tile (interior tiles).
 *    A hint that returns no data; L2 is where every write of the previous grid lands, so the
 *    loads after the wait still see them. Blocks of the next call that become resident while
 *    this call drains its last wave start their DRAM reads during that tail. Expected: most
 *    of the tail back at 4096^2 (3.9 waves: +2-3%).
 *
 * Measured, run 4 (copy ceiling 4243 GB/s): float T 4096^2 88.3%, 8192^2 93.0%, 16384^2
 * 92.1% (98.6% of cuBLAS), 8192x2048 89.2%; double T 4096^2 91.7%, 8192^2 91.3% (96.3% of
 * cuBLAS), 16384^2 90.6%, 8192x2048 91.6%. Double trails float by ~1.5% at >= 8192^2.
 *
 * Change after run 4: band height per tile shape, from the resident block count N (launcher):
 * bh = floor(sqrt(N * TC / TR)) row tiles (<= 32), so the in-flight window of tiles is about
 * square in elements. Float 64x64 keeps 32 (2048 x 2112 window: 8 KB runs of both A and B
 * columns, the float numbers above); double 64x32 goes 32 -> 22 (window 2048 x 1056 ->
 * 1408 x 1536: A runs 16 -> 11 KB, B runs 8 -> 12 KB, i.e. the balance float already has).
 * Expected: double >= 8192^2 +1-2% (towards float's 93%); float unchanged (same order).
 * Run 5: float 4096^2 87.7%, 8192x2048 88.9% of copy; double 91.5-92.0%.
 *
 * Change after run 5 (session 3): the knobs at the top were swept in one run (two
 * repetitions; perf/sweep/transpose_knobs.sh, no rotation, copy ceiling 4191-4220
 * GB/s): band height 1, 2, 3, 4, 6, 8, 16 and the computed 32 (float), stores with and without
 * .cs, prefetch on/off, trigger at once or after the loads, 6 blocks per SM, tiles 128x32 and
 * 32x128. Two things paid: narrow bands (float 4096^2 3728 -> 3804 GB/s at heights 1-4; 16
 * and the computed 32 were the worst) and triggering the next launch only after this
 * block's loads (3804 -> 3930: triggered at once, the next grid's blocks take SM slots from
 * this grid's tail); together float
 * 4096^2 3930 GB/s, 8192x2048 3949, 2048x8192 3905, 8192^2 4082; double 4096^2 3994 (from
 * 3902). 6 blocks per SM did as well as the late trigger; .cs stores beat plain ones (3715 vs
 * 3651); the other tiles and the prefetch change made no difference beyond noise (1%). Now:
 * VEC_BAND 4, VEC_LATE_TRIGGER 1. A second sweep on top of these (perf/sweep/transpose_knobs.sh)
 * found 6 blocks per SM (launch bound; was 8) another +1.2-1.5% at every size (float 4096^2
 * 3925 -> 3981 GB/s, 8192^2 4078 -> 4112; double 4096^2 3984 -> 4037): fewer, larger-register
 * blocks, each with the same 16 KB tile in flight. VEC_BLOCKS_PER_SM is now 6.
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
 * measured 2% faster than the square window of bh = 32 and than the plain ti-fastest order
 * (see the top of the file).
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
    /* Band height: VEC_BAND row tiles (measured, see the top of the file). */
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
