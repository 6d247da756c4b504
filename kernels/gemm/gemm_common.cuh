/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared pieces of the GEMM ladder (rungs 02..11): the kernel parameter block, the dispatch of
 * the four transpose cases, the order in which blocks walk the tiles of C, guarded epilogues,
 * and the operand-tile loaders of the fast rungs (scalar, 128-bit vector, cp.async).
 *
 * Conventions. Everything is column-major (kernels/launch.h). op(A) is m x k, op(B) is k x n.
 * An operand tile has R "outer" rows (i of A, or j of B) and BK "inner" columns (p, along k).
 * In global memory element (r, p) of the operand lives at
 *     X[r + p * ld]   when the operand is contiguous along r  (A with transa == 0, B with transb == 1),
 *     X[p + r * ld]   when it is contiguous along k           (A with transa == 1, B with transb == 0).
 * The template flag MNC ("m/n contiguous") tells which; loaders pick their thread mapping from it
 * so that consecutive threads read consecutive addresses in both cases. The fast rungs keep every
 * shared tile k-major: element (r, p) at s[p * LDS + r], so the compute loop reads a row of
 * outer indices at one p (128-bit vectors from rung 8 on).
 *
 * 64-bit sizes: a block computes the 64-bit origin of its tiles once; offsets that involve a
 * leading dimension stay 64-bit (ld may be huge), offsets inside a tile are 32-bit.
 */
#ifndef MINIBLAS_GEMM_COMMON_CUH
#define MINIBLAS_GEMM_COMMON_CUH

#include "../common/common.cuh"

/* Kernel parameters, already converted to the precision. vecA/vecB/vecC: 16-byte vector access
 * is legal for that matrix (pointer 16-byte aligned and leading dimension a multiple of the
 * vector width), so any vector that starts at a multiple of the width inside it is aligned. */
template <typename T> struct mb_gp {
    const T *A;
    const T *B;
    T *C;
    int64_t m, n, k, lda, ldb, ldc;
    T alpha, beta;
    int vecA, vecB, vecC;
};

static inline int mb_vec_ok(const void *p, int64_t ld, int64_t width) {
    return ((uintptr_t)p % 16u) == 0 && (ld % width) == 0;
}

template <typename T> static inline mb_gp<T> mb_gemm_params(const mb_gemm_args *a) {
    mb_gp<T> g;
    const int64_t w = 16 / (int64_t)sizeof(T);
    g.A = (const T *)a->A;
    g.B = (const T *)a->B;
    g.C = (T *)a->C;
    g.m = a->m; g.n = a->n; g.k = a->k;
    g.lda = a->lda; g.ldb = a->ldb; g.ldc = a->ldc;
    g.alpha = (T)a->alpha;
    g.beta = (T)a->beta;
    g.vecA = mb_vec_ok(a->A, a->lda, w);
    g.vecB = mb_vec_ok(a->B, a->ldb, w);
    g.vecC = mb_vec_ok(a->C, a->ldc, w);
    return g;
}

/* fn<T, TA, TB>(const mb_gemm_args *, cudaStream_t) for the four transpose cases. */
#define MB_GEMM_TRANS_DISPATCH(fn, T, a, s)                                                   \
    ((a)->transa ? ((a)->transb ? fn<T, true, true>(a, s) : fn<T, true, false>(a, s))         \
                 : ((a)->transb ? fn<T, false, true>(a, s) : fn<T, false, false>(a, s)))

/* Index of op(A)(i, p) and op(B)(p, j). */
template <bool TA> __device__ __forceinline__ int64_t mb_ia(int64_t i, int64_t p, int64_t lda) {
    return TA ? p + i * lda : i + p * lda;
}
template <bool TB> __device__ __forceinline__ int64_t mb_ib(int64_t p, int64_t j, int64_t ldb) {
    return TB ? j + p * ldb : p + j * ldb;
}

/* C = alpha * acc + beta * C; beta == 0 never reads C (BLAS semantics: NaN in C must not leak). */
template <typename T> __device__ __forceinline__ void mb_put(T *c, T acc, T alpha, T beta) {
    if (beta == T(0))
        *c = alpha * acc;
    else
        *c = alpha * acc + beta * *c;
}

/*
 * Tile order. Tile t of an mt x nt grid of C tiles. Blocks run in "groups" of up to 8 tile rows:
 * inside a group consecutive t walk down m first, then across n, so the blocks resident at one
 * time share a few panels of A and of B and those stay in L2 (plain row or column order streams
 * a whole operand through L2 for every panel of the other).
 */
__device__ __forceinline__ void mb_tile_coords(int64_t t, int64_t mt, int64_t nt, int64_t *tm,
                                               int64_t *tn) {
    const int64_t G = 8;
    const int64_t per_group = G * nt;
    const int64_t group = t / per_group;
    const int64_t first = group * G;
    const int64_t gsize = (mt - first) < G ? (mt - first) : G;
    const int64_t r = t - group * per_group;
    *tm = first + r % gsize;
    *tn = r / gsize;
}

/* Grid for a 1-D walk over `tiles` tiles (kernels loop t += gridDim.x past the cap). */
static inline unsigned mb_tile_grid(int64_t tiles) { return mb_grid_dim(tiles, MB_GRID_X_MAX); }

__host__ __device__ __forceinline__ int64_t mb_dcdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
__device__ __forceinline__ int mb_imin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int mb_rem(int64_t total, int64_t start, int tile) {
    const int64_t r = total - start;
    return r < tile ? (int)r : tile;
}

/* ---- 16-byte vectors: 4 floats or 2 doubles ---- */
template <typename T> struct mb_v16;
template <> struct mb_v16<float> { typedef float4 type; };
template <> struct mb_v16<double> { typedef double2 type; };

__device__ __forceinline__ void mb_ld16(float (&r)[4], const float *p) {
    const float4 v = *(const float4 *)p;
    r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w;
}
__device__ __forceinline__ void mb_ld16(double (&r)[2], const double *p) {
    const double2 v = *(const double2 *)p;
    r[0] = v.x; r[1] = v.y;
}
__device__ __forceinline__ void mb_st16(float *p, const float (&r)[4]) {
    *(float4 *)p = make_float4(r[0], r[1], r[2], r[3]);
}
__device__ __forceinline__ void mb_st16(double *p, const double (&r)[2]) {
    *(double2 *)p = make_double2(r[0], r[1]);
}
/* Load V consecutive values from shared memory (16-byte aligned) into r[0..V). */
__device__ __forceinline__ void mb_lds16(float *r, const float *p) {
    const float4 v = *(const float4 *)p;
    r[0] = v.x; r[1] = v.y; r[2] = v.z; r[3] = v.w;
}
__device__ __forceinline__ void mb_lds16(double *r, const double *p) {
    const double2 v = *(const double2 *)p;
    r[0] = v.x; r[1] = v.y;
}

/*
 * Store V consecutive rows i..i+V-1 of column j of C (c points at C(i, j)); rem_i = rows left in
 * the matrix from i (may be <= 0), col_ok: j < n. One 16-byte load/store when C allows vectors and
 * the whole vector is inside the matrix, else element by element with guards.
 */
template <typename T>
__device__ __forceinline__ void mb_put_vec(T *c, const T *acc, T alpha, T beta, int rem_i,
                                           bool col_ok, bool vec) {
    constexpr int V = 16 / sizeof(T);
    if (!col_ok) return;
    if (vec && rem_i >= V) {
        T v[V];
        if (beta == T(0)) {
#pragma unroll
            for (int e = 0; e < V; ++e) v[e] = alpha * acc[e];
        } else {
            mb_ld16(v, c);
#pragma unroll
            for (int e = 0; e < V; ++e) v[e] = alpha * acc[e] + beta * v[e];
        }
        mb_st16(c, v);
    } else {
#pragma unroll
        for (int e = 0; e < V; ++e)
            if (e < rem_i) mb_put(c + e, acc[e], alpha, beta);
    }
}

/*
 * Scalar tile load (rungs 6, 7): R x BK tile of an operand into s[p * LDS + r], zero-filled past
 * the matrix edge (rem_r rows, rem_p k-columns left). X points at the tile origin (r0, p0).
 * Element mapping: consecutive threads take consecutive addresses (r fastest when MNC, p fastest
 * otherwise), so every warp load is coalesced.
 */
template <typename T, bool MNC, int R, int BK, int NT, int LDS>
__device__ __forceinline__ void mb_load_tile_scalar(T *s, const T *X, int64_t ld, int rem_r,
                                                    int rem_p, int tid) {
    constexpr int E = R * BK / NT;
    static_assert((R * BK) % NT == 0, "tile not divisible by threads");
    T v[E];
    if (MNC) {
        static_assert(!MNC || NT % R == 0 || R % NT == 0, "mapping");
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int q = tid + e * NT, r = q % R, p = q / R;
            v[e] = (r < rem_r && p < rem_p) ? X[r + (int64_t)p * ld] : T(0);
        }
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int q = tid + e * NT, r = q % R, p = q / R;
            s[p * LDS + r] = v[e];
        }
    } else {
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int q = tid + e * NT, p = q % BK, r = q / BK;
            v[e] = (r < rem_r && p < rem_p) ? X[p + (int64_t)r * ld] : T(0);
        }
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int q = tid + e * NT, p = q % BK, r = q / BK;
            s[p * LDS + r] = v[e];
        }
    }
}

/*
 * Vector tile load through registers (rung 8): each thread moves 16-byte vectors, V = 16/sizeof(T)
 * consecutive elements along the contiguous direction of the operand. MNC: the vector is V outer
 * indices at one p and lands as one 16-byte shared store. Otherwise (contiguous along k) it is V
 * values of p at one r and is stored transposed, V scalar shared stores, so the shared tile is
 * k-major either way. Vectors that are unaligned (vec == false) or cross the matrix edge fall back
 * to guarded scalar loads with zero fill.
 */
template <typename T, bool MNC, int R, int BK, int NT, int LDS>
__device__ __forceinline__ void mb_load_tile_vec(T *s, const T *X, int64_t ld, int rem_r,
                                                 int rem_p, bool vec, int tid) {
    constexpr int V = 16 / sizeof(T);
    constexpr int NV = R * BK / V;
    constexpr int E = NV / NT;
    static_assert(NV % NT == 0 && E >= 1, "tile not divisible by threads");
    T v[E][V];
    if (MNC) {
        constexpr int VPR = R / V;
        static_assert(NT % VPR == 0, "mapping");
        const int r = (tid % VPR) * V, pt = tid / VPR;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int p = pt + e * (NT / VPR);
            const T *src = X + r + (int64_t)p * ld;
            if (vec && p < rem_p && r + V <= rem_r) {
                mb_ld16(v[e], src);
            } else {
#pragma unroll
                for (int x = 0; x < V; ++x)
                    v[e][x] = (p < rem_p && r + x < rem_r) ? src[x] : T(0);
            }
        }
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int p = pt + e * (NT / VPR);
            mb_st16(s + p * LDS + r, v[e]);
        }
    } else {
        constexpr int VPK = BK / V;
        static_assert(NT % VPK == 0, "mapping");
        const int p = (tid % VPK) * V, rt = tid / VPK;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int r = rt + e * (NT / VPK);
            const T *src = X + p + (int64_t)r * ld;
            if (vec && r < rem_r && p + V <= rem_p) {
                mb_ld16(v[e], src);
            } else {
#pragma unroll
                for (int x = 0; x < V; ++x)
                    v[e][x] = (r < rem_r && p + x < rem_p) ? src[x] : T(0);
            }
        }
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int r = rt + e * (NT / VPK);
#pragma unroll
            for (int x = 0; x < V; ++x) s[(p + x) * LDS + r] = v[e][x];
        }
    }
}

/* ---- cp.async (sm_80+): global -> shared without registers; src_bytes < size zero-fills ----
 * MB_GEMM_HOST_EMU: a CPU emulation (test harness only, never in the library build) supplies
 * its own versions that queue the copies and perform them at wait time. */
#if !defined(MB_GEMM_HOST_EMU) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
/* Before sm_80 there is no cp.async: the copy is done at once, with the same zero fill (an
 * asynchronous copy may land at any time before its wait, so landing at issue is one of its
 * allowed orders). The rungs stay correct there, without the overlap. */
__device__ __forceinline__ void mb_cp_sync(void *smem, const void *gmem, int size, int src_bytes) {
    if (src_bytes == size && size == 16) {
        *(uint4 *)smem = *(const uint4 *)gmem;
    } else if (src_bytes == size && size == 8) {
        *(unsigned long long *)smem = *(const unsigned long long *)gmem;
    } else if (src_bytes == size && size == 4) {
        *(unsigned *)smem = *(const unsigned *)gmem;
    } else {
        for (int i = 0; i < size; ++i)
            ((unsigned char *)smem)[i] = i < src_bytes ? ((const unsigned char *)gmem)[i] : 0;
    }
}
__device__ __forceinline__ void mb_cp_async16(void *smem, const void *gmem, int src_bytes) {
    mb_cp_sync(smem, gmem, 16, src_bytes);
}
template <int N>
__device__ __forceinline__ void mb_cp_async_small(void *smem, const void *gmem, int src_bytes) {
    mb_cp_sync(smem, gmem, N, src_bytes);
}
__device__ __forceinline__ void mb_cp_async_commit() {}
template <int N> __device__ __forceinline__ void mb_cp_async_wait() {}
#elif !defined(MB_GEMM_HOST_EMU)
__device__ __forceinline__ void mb_cp_async16(void *smem, const void *gmem, int src_bytes) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem),
                 "r"(src_bytes)
                 : "memory");
}
template <int N>
__device__ __forceinline__ void mb_cp_async_small(void *smem, const void *gmem, int src_bytes) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(gmem), "n"(N),
                 "r"(src_bytes)
                 : "memory");
}
__device__ __forceinline__ void mb_cp_async_commit() {
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void mb_cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
#else
void mb_emu_cp_async(void *smem, const void *gmem, int size, int src_bytes);
void mb_emu_cp_commit();
void mb_emu_cp_wait(int n);
inline void mb_cp_async16(void *smem, const void *gmem, int src_bytes) {
    mb_emu_cp_async(smem, gmem, 16, src_bytes);
}
template <int N> inline void mb_cp_async_small(void *smem, const void *gmem, int src_bytes) {
    mb_emu_cp_async(smem, gmem, N, src_bytes);
}
inline void mb_cp_async_commit() { mb_emu_cp_commit(); }
template <int N> inline void mb_cp_async_wait() { mb_emu_cp_wait(N); }
#endif

/*
 * Asynchronous tile load (rungs 9..11): same k-major shared layout. MNC operands move in 16-byte
 * cp.async vectors, but ONLY when the whole vector is inside the matrix and its actual address is
 * 16-byte aligned (vec: base pointer aligned and ld a multiple of V; tile origins and in-tile
 * offsets are multiples of V). A vector that crosses the m/n edge, or any vector of an unaligned
 * matrix, moves element by element (4- or 8-byte cp.async). Operands contiguous along k cannot be
 * transposed by a 16-byte copy, so they always move element by element, consecutive threads on
 * consecutive addresses, each element landing at its transposed place.
 * Out-of-range elements are NOT copied: the thread stores a zero into shared memory directly, so
 * no cp.async is ever issued with a source outside the matrix. (A 16-byte cp.async with
 * src-size 8 for a vector straddling the n edge was reported by compute-sanitizer as a 16-byte
 * read past the allocation: the hardware may fetch the whole 16 bytes.) The plain zero stores
 * become visible with the cp.async data at the next __syncthreads, and they go to the stage being
 * filled, which no thread reads before that barrier.
 */
template <typename T, bool MNC, int R, int BK, int NT, int LDS>
__device__ __forceinline__ void mb_load_tile_async_edge(T *s, const T *X, int64_t ld, int rem_r,
                                                        int rem_p, bool vec, int tid) {
    constexpr int V = 16 / sizeof(T);
    constexpr int S = (int)sizeof(T);
    if (MNC) {
        constexpr int VPR = R / V;
        constexpr int NV = R * BK / V;
        constexpr int E = NV / NT;
        static_assert(NV % NT == 0 && E >= 1 && NT % VPR == 0, "mapping");
        const int r = (tid % VPR) * V, pt = tid / VPR;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int p = pt + e * (NT / VPR);
            const T *src = X + r + (int64_t)p * ld;
            T *dst = s + p * LDS + r;
            if (vec && p < rem_p && r + V <= rem_r) {
                mb_cp_async16(dst, src, 16);
            } else {
#pragma unroll
                for (int x = 0; x < V; ++x) {
                    if (p < rem_p && r + x < rem_r)
                        mb_cp_async_small<S>(dst + x, src + x, S);
                    else
                        dst[x] = T(0);
                }
            }
        }
    } else {
        constexpr int E = R * BK / NT;
        static_assert((R * BK) % NT == 0 && NT % BK == 0, "mapping");
        const int p = tid % BK, rt = tid / BK;
        (void)vec;
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int r = rt + e * (NT / BK);
            if (p < rem_p && r < rem_r)
                mb_cp_async_small<S>(s + p * LDS + r, X + p + (int64_t)r * ld, S);
            else
                s[p * LDS + r] = T(0);
        }
    }
}

/*
 * The same copies for a tile wholly inside the matrix: no predicate, no zero fill, no
 * per-element branch. MNC operands use 16-byte copies when the matrix allows vectors (vec),
 * else unguarded element copies (odd ld or misaligned pointer, e.g. 4097 x 4095 x 4099: without
 * this every tile of such a matrix took the guarded path). With only the guarded loader, rung 10 spent ~290
 * instructions per k-tile in the guarded loader (64-bit address, edge test and branch per
 * element) against 1024 FFMA; this path issues the copies from one 64-bit base pointer per
 * thread plus constant strides, about 30-40 instructions for the same tile.
 */
template <typename T, bool MNC, int R, int BK, int NT, int LDS>
__device__ __forceinline__ void mb_load_tile_async_full(T *s, const T *X, int64_t ld, bool vec,
                                                        int tid) {
    constexpr int V = 16 / sizeof(T);
    constexpr int S = (int)sizeof(T);
    if (MNC) {
        constexpr int VPR = R / V;
        constexpr int E = R * BK / V / NT;
        const int r = (tid % VPR) * V, pt = tid / VPR;
        const T *src = X + r + (int64_t)pt * ld;
        const int64_t step = (int64_t)(NT / VPR) * ld;
        T *dst = s + pt * LDS + r;
        if (vec) {
#pragma unroll
            for (int e = 0; e < E; ++e)
                mb_cp_async16(dst + e * (NT / VPR) * LDS, src + e * step, 16);
        } else {
#pragma unroll
            for (int e = 0; e < E; ++e)
#pragma unroll
                for (int x = 0; x < V; ++x)
                    mb_cp_async_small<S>(dst + e * (NT / VPR) * LDS + x, src + e * step + x, S);
        }
    } else {
        constexpr int E = R * BK / NT;
        const int p = tid % BK, rt = tid / BK;
        const T *src = X + p + (int64_t)rt * ld;
        const int64_t step = (int64_t)(NT / BK) * ld;
        T *dst = s + p * LDS + rt;
        (void)vec;
#pragma unroll
        for (int e = 0; e < E; ++e) mb_cp_async_small<S>(dst + e * (NT / BK), src + e * step, S);
    }
}

/* Tile loader of rungs 9..11: the unguarded copies when the whole tile is inside the matrix (a
 * block-uniform branch, taken by every tile but the last row/column of tiles and the last
 * k-tile), the guarded ones otherwise. */
template <typename T, bool MNC, int R, int BK, int NT, int LDS>
__device__ __forceinline__ void mb_load_tile_async(T *s, const T *X, int64_t ld, int rem_r,
                                                   int rem_p, bool vec, int tid) {
    if (rem_r == R && rem_p == BK)
        mb_load_tile_async_full<T, MNC, R, BK, NT, LDS>(s, X, ld, vec, tid);
    else
        mb_load_tile_async_edge<T, MNC, R, BK, NT, LDS>(s, X, ld, rem_r, rem_p, vec, tid);
}

#endif
