/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Range guard of the 3xTF32 rungs (13_tf32x3, 14_wgmma_tf32x3): FP32 results for every input.
 * 3xTF32 (x = big + small, three TF32 products per a*b) equals FP32 only while every part and
 * part product is a normal float that cannot overflow: a*b = 2.55e38 * 1.3336 is finite but
 * big*big rounds past FLT_MAX (+-Inf), Inf gives Inf - Inf = NaN in the split, and tiny or
 * subnormal inputs lose their small parts or products to the tensor cores' flush to zero
 * (errors near 1e-4 of sum|a b| where FP32 is near 1e-7). So:
 *   Range rule: x is IN RANGE iff x == +-0 or 2^-50 <= |x| <= 2^40 (NaN and Inf are out).
 *   H = 40: |big| <= 2^40 (2^40 is a TF32 value, rounding is monotonic), so every part product
 *     is <= 2^80 and any sum of k of them < k * 2^82 < 2^128 for k < 2^46: nothing overflows,
 *     in the tensor cores or in an FP32 SIMT gemm of the same elements (both finite).
 *   L = 50: nonzero |big| >= 2^-50 and nonzero |small| >= ulp(x) >= 2^-73, so every part is
 *     normal and every product the tensor cores compute (small*big, big*small, big*big) is
 *     >= 2^-123 > 2^-126 (normal, nothing flushed; L <= 51 is the limit). What remains is the
 *     error 3xTF32 has on all inputs (the dropped small*small <= 2^-22 |a b|) plus, where a
 *     k step's sum cancels below 2^-126, at most 2^-126 per k step of 8 (subnormal quanta).
 * A tile (BM x BN of C) whose A row panel and B column panel (all of k, rows / columns
 * outside the matrix count as zero) are in range is computed by the tensor cores as before.
 * Otherwise its block stores nothing, sets the tile's bit and the "needs fixup" word in the
 * gemm workspace, and x3g_fixup_kernel (launched unconditionally after the gemm: each block
 * reads the word and returns when it is 0) recomputes exactly those tiles with an FP32 SIMT
 * inner product (FMA in k order, as the SIMT rungs) and writes alpha*AB + beta*C (beta == 0:
 * C not read). C of such a tile is untouched until then, so beta*C is the caller's C.
 * The check costs per element 3 integer instructions (shift, max, add-min) into two registers
 * per thread, done where the kernel already splits the element; per tile one __syncthreads_or.
 * Tail scan (wgmma_tf32x3, beta == 0, k >= 1024, idle SMs in the last wave): no check in the
 * main loop; extra blocks read A and B once where the last wave leaves SMs idle and mark
 * panels, the fixup recomputes the tiles of marked panels (x3g_scan_part below).
 * Workspace (the handle's gemm workspace): word 0 = needs fixup, from byte 256 one bit per
 * tile (tm + tn * ntm), then one word per A row panel and per B column panel; zeroed once per
 * call, by cudaMemsetAsync or, before a gemm launched with programmatic dependent launch, by
 * x3g_zero_kernel (x3g_begin; other rungs use the workspace for their split-K slabs). Split-K
 * under the guard: every slice (slice 0 too) writes alpha times its partial into a slab after
 * the guard's bytes, and x3g_reduce_kernel adds the slabs and beta * C into the tiles whose
 * bit is clear. Without room for the guard (no workspace, or
 * more than 8 * (MB_GEMM_WORK_BYTES - 256) tiles) the rungs run unguarded, with the limits above
 * (x3g_room says which; rung 17, whose integer split has no saturation for Inf, NaN and values
 * that round past FLT_MAX, then runs rung 16).
 */
#ifndef MINIBLAS_GEMM_X3GUARD_CUH
#define MINIBLAS_GEMM_X3GUARD_CUH

#include <string.h> /* memcpy: the host bit cast */
#include "../common/common.cuh"

#define X3G_HI2 0xA7000000u   /* 2 * bits(2^40): largest allowed (bits << 1) */
#define X3G_LO2M2 0x4CFFFFFEu /* 2 * bits(2^-50) - 2: smallest allowed (bits << 1) - 2 */
#define X3G_HDR 256           /* bytes before the tile bits */
#define X3G_TILE 128          /* the fixup's block tile; a guarded kernel's tile is at most this */

/* flag == NULL: guard off. */
typedef struct x3g {
    unsigned *flag; /* word 0 of the workspace: some tile needs the fixup */
    unsigned *bits; /* one bit per tile, index tm + tn * ntm */
    unsigned *pa;   /* tail scan: one word per row panel of A (ntm), nonzero = out of range */
    unsigned *pb;   /* tail scan: one word per column panel of B (ntn) */
    int bm, bn;     /* the kernel's tile (<= X3G_TILE each) */
} x3g;

/* Per thread: mx = max of (bits << 1), mn = min of (bits << 1) - 2 over the elements seen
 * (the shift drops the sign; a zero's t - 2 wraps to 0xfffffffe and is never the min). */
#define X3G_HD __host__ __device__ __forceinline__
X3G_HD void x3g_init(unsigned &mx, unsigned &mn) {
    mx = 0u;
    mn = 0xffffffffu;
}
X3G_HD void x3g_note(float x, unsigned &mx, unsigned &mn) {
#ifdef __CUDA_ARCH__
    const unsigned t = __float_as_uint(x) << 1;
    mx = max(mx, t);
    mn = __viaddmin_u32(t, 0xfffffffeu, mn); /* min(t - 2, mn): one VIADDMNMX on sm_90 */
#else
    unsigned u;
    memcpy(&u, &x, 4);
    const unsigned t = u << 1;
    mx = mx > t ? mx : t;
    mn = mn < t - 2u ? mn : t - 2u;
#endif
}
X3G_HD bool x3g_out(unsigned mx, unsigned mn) { return mx > X3G_HI2 || mn < X3G_LO2M2; }
/* The same rule on one element (the fixup's and the tests' view). */
X3G_HD bool x3g_elem_out(float x) {
    unsigned mx, mn;
    x3g_init(mx, mn);
    x3g_note(x, mx, mn);
    return x3g_out(mx, mn);
}

/* Marks tile `bit` for the fixup; one thread per tile. Under programmatic dependent launch
 * (x3g_begin's zeroing kernel before the gemm) the guard's words are written only after that
 * kernel has finished (mb_grid_wait: a no-op otherwise). */
__device__ __forceinline__ void x3g_mark(const x3g &g, int64_t bit) {
    mb_grid_wait();
    atomicOr(g.bits + (bit >> 5), 1u << (bit & 31));
    atomicExch(g.flag, 1u);
}
/* End of a tile, every thread of the block: whether the tile's panels hold an out-of-range
 * element (then its bit and the flag are set, and the caller stores nothing). */
__device__ __forceinline__ bool x3g_tile_out(const x3g &g, unsigned mx, unsigned mn, int64_t bit) {
    const bool out = __syncthreads_or(g.flag != NULL && x3g_out(mx, mn)) != 0;
    if (out && threadIdx.x == 0) x3g_mark(g, bit);
    return out;
}
/* The same among the NT threads of named barrier ID only (a warp-specialised kernel's
 * consumers; the block's other threads take no part); thread `leader` marks the tile. */
template <int ID, int NT>
__device__ __forceinline__ bool x3g_tile_out_bar(const x3g &g, unsigned mx, unsigned mn,
                                                 int64_t bit, int leader) {
    unsigned out;
    asm volatile("{\n\t.reg .pred p, q;\n\t"
                 "setp.ne.u32 p, %1, 0;\n\t"
                 "bar.red.or.pred q, %2, %3, p;\n\t"
                 "selp.u32 %0, 1, 0, q;\n\t}"
                 : "=r"(out)
                 : "r"((unsigned)(g.flag != NULL && x3g_out(mx, mn))), "n"(ID), "n"(NT)
                 : "memory");
    if (out && (int)threadIdx.x == leader) x3g_mark(g, bit);
    return out != 0;
}
__device__ __forceinline__ bool x3g_bit(const x3g &g, int64_t bit) {
    return g.flag != NULL && ((g.bits[bit >> 5] >> (bit & 31)) & 1u);
}
/* Whether tile (tm, tn) needs the fixup: its bit (checked in the main loop) or, after a tail
 * scan, its A row panel or B column panel. */
__device__ __forceinline__ bool x3g_tile_flagged(const x3g &g, int64_t tm, int64_t tn,
                                                 int64_t ntm) {
    return x3g_bit(g, tm + tn * ntm) || (g.flag != NULL && (g.pa[tm] | g.pb[tn]) != 0u);
}

/* ---- The tail scan (beta == 0, no split-K; the 3xTF32 kernel's launcher decides).
 * The kernel stores every tile unchecked and E extra blocks, numbered after the tiles so that
 * they fill the SMs the last wave of tiles leaves idle, check A and B once: x3g_scan_part
 * marks the row panels of A and the column panels of B that hold an out-of-range element,
 * and the fixup recomputes every tile of a marked panel from A and B alone (beta == 0: C is
 * output only, so the unchecked tiles' stores do no harm). Work: each warp of the E blocks
 * reads an even share of A's storage columns and of B's; 16-byte loads where the operand
 * allows. */
/* One warp: storage columns [c0, c1) of an operand of `rows` rows (column-major, ld), 16-byte
 * loads when vec; each lane keeps 8 loads in flight, walking the columns' elements as one
 * sequence (short columns too). by_row: an element's panel is its row / bs (4 rows of a
 * 16-byte load share one: bs % 4 == 0), else its column / bs. */
__device__ __forceinline__ void x3g_scan_cols(const float *__restrict__ X, int64_t ld, int64_t rows,
                                              int64_t c0, int64_t c1, bool vec, bool by_row,
                                              int bs, unsigned *panels, unsigned *flag, int lane) {
    const int w = vec ? 4 : 1;               /* floats per load */
    const int64_t nq = vec ? rows / 4 : rows; /* loads per column */
    int64_t c = nq > 0 ? c0 : c1, i = lane;   /* this lane's next load: column c, load i */
    while (c < c1 && i >= nq) i -= nq, ++c;
    while (c < c1) {
        float4 v[8];
        int64_t cc[8], ii[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            cc[j] = c;
            ii[j] = i;
            v[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (c < c1) {
                const float *col = X + c * ld;
                if (vec) v[j] = __ldg((const float4 *)col + i);
                else v[j].x = __ldg(col + i);
            }
            i += 32;
            while (c < c1 && i >= nq) i -= nq, ++c;
        }
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            unsigned mx, mn;
            x3g_init(mx, mn);
            x3g_note(v[j].x, mx, mn);
            x3g_note(v[j].y, mx, mn);
            x3g_note(v[j].z, mx, mn);
            x3g_note(v[j].w, mx, mn);
            if (cc[j] < c1 && x3g_out(mx, mn)) {
                panels[(by_row ? ii[j] * w : cc[j]) / bs] = 1u;
                *flag = 1u;
            }
        }
    }
    if (vec && rows % 4 != 0) /* the last rows % 4 elements of each column */
        for (int64_t e = lane; e < (c1 - c0) * (rows % 4); e += 32) {
            const int64_t col = c0 + e / (rows % 4), r = rows - rows % 4 + e % (rows % 4);
            if (x3g_elem_out(__ldg(X + col * ld + r))) {
                panels[(by_row ? r : col) / bs] = 1u;
                *flag = 1u;
            }
        }
}
/* Part `part` of `parts` (blocks) of the scan of op(A) (m x k) and op(B) (k x n): each warp
 * takes an even share of A's storage columns and of B's. */
__device__ __forceinline__ void x3g_scan_part(const mb_gemm_args &p, const x3g &g, bool a_vec,
                                              bool b_vec, int64_t part, int64_t parts) {
    mb_grid_wait(); /* the guard's words zeroed (programmatic dependent launch; x3g_mark) */
    /* A stored (transa ? k x m : m x k), column-major with lda; B (transb ? n x k : k x n) */
    const int64_t a_rows = p.transa ? p.k : p.m, a_cols = p.transa ? p.m : p.k;
    const int64_t b_rows = p.transb ? p.n : p.k, b_cols = p.transb ? p.k : p.n;
    const int warps = blockDim.x / 32, lane = threadIdx.x & 31;
    const int64_t W = parts * warps, gw = part * warps + threadIdx.x / 32;
    x3g_scan_cols((const float *)p.A, p.lda, a_rows, a_cols * gw / W, a_cols * (gw + 1) / W, a_vec,
                  !p.transa, g.bm, g.pa, g.flag, lane);
    x3g_scan_cols((const float *)p.B, p.ldb, b_rows, b_cols * gw / W, b_cols * (gw + 1) / W, b_vec,
                  p.transb, g.bn, g.pb, g.flag, lane);
}
/* Host: the number of scan blocks for a tail scan of a kernel of one block per SM and one
 * tile per block, or 0 (check in the main loop instead): the SMs the last wave leaves idle,
 * when they are at least an eighth of the GPU and can read A and B in about the time of one
 * wave (a wave of 128 x 128 tiles takes about 64 ns per k on an H100; one block reads about
 * 25 GB/s, so (m + n) k 4 bytes over E blocks fit when m + n <= 400 E), and k >= 1024: with
 * shallower k the tiles are short and already busy reading A and B, and the scan's extra
 * reads showed (4096 x 4096 x 256 on an H100: +12..14% against no guard). */
static inline int64_t x3g_tail_blocks(const mb_gemm_args *p, int64_t tiles, int sms) {
    if (p->beta != 0.0 || sms <= 0 || p->k < 1024) return 0;
    const int64_t e = tiles % sms == 0 ? 0 : sms - tiles % sms;
    if (e < sms / 8 || p->m + p->n > 400 * e || tiles + e > MB_GRID_X_MAX) return 0;
    return e;
}

/* Host: the guard's bytes of a call with tiles of bm x bn (header, tile bits, panel words),
 * the tile bits' bytes into *bit_bytes. */
static inline size_t x3g_bytes(const mb_gemm_args *p, int bm, int bn, size_t *bit_bytes) {
    const int64_t ntm = mb_cdiv(p->m, bm), ntn = mb_cdiv(p->n, bn), tiles = ntm * ntn;
    *bit_bytes = (size_t)mb_cdiv(mb_cdiv(tiles, 32) * 4, X3G_HDR) * X3G_HDR;
    const size_t panel_bytes = (size_t)mb_cdiv((ntm + ntn) * 4, X3G_HDR) * X3G_HDR;
    return X3G_HDR + *bit_bytes + panel_bytes;
}
/* Host: whether x3g_begin will set the guard up (the workspace has room for it). */
static inline int x3g_room(const mb_gemm_args *p, int bm, int bn) {
    size_t bit_bytes;
    return p->work != NULL && x3g_bytes(p, bm, bn, &bit_bytes) <= p->work_bytes;
}

/* The guard's bytes zeroed by a kernel (16 bytes a thread), where the gemm after it is launched
 * with programmatic dependent launch: unlike a cudaMemsetAsync it lets that kernel be
 * scheduled before this one ends (the trigger before the stores), and the gemm writes the
 * guard's words only after this grid has finished (x3g_mark, x3g_scan_part, tm_start:
 * mb_grid_wait). It is such a launch itself (x3g_begin), so that it is scheduled while the
 * kernel before it ends (the previous call's fixup lets it): it waits for that kernel first,
 * and triggers only then, because the gemm reads A and B before it waits (tm_start): every
 * earlier kernel in the stream has then finished. */
static __global__ void x3g_zero_kernel(uint4 *w, int64_t n16) {
    mb_grid_wait();
    mb_grid_launch_next();
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n16;
         i += (int64_t)gridDim.x * blockDim.x)
        w[i] = make_uint4(0u, 0u, 0u, 0u);
}

/* Host: the guard of one call, and the args whose workspace is what follows the guard's bytes
 * (for split-K slabs); zeroes the guard's bytes in stream order: by cudaMemsetAsync, or where
 * zero_kernel (the next kernel, the gemm, is a programmatic dependent launch) by
 * x3g_zero_kernel, itself such a launch (it writes after all earlier work in the stream). */
static inline cudaError_t x3g_begin(const mb_gemm_args *p, int bm, int bn, x3g *g,
                                    mb_gemm_args *q, int zero_kernel, cudaStream_t s) {
    *q = *p;
    g->flag = NULL;
    g->bits = NULL;
    g->pa = NULL;
    g->pb = NULL;
    g->bm = bm;
    g->bn = bn;
    const int64_t ntm = mb_cdiv(p->m, bm);
    size_t bit_bytes;
    const size_t bytes = x3g_bytes(p, bm, bn, &bit_bytes);
    if (!x3g_room(p, bm, bn)) {
        q->work = NULL; /* no split-K either: no room to keep C intact */
        q->work_bytes = 0;
        return cudaSuccess;
    }
    g->flag = (unsigned *)p->work;
    g->bits = (unsigned *)((char *)p->work + X3G_HDR);
    g->pa = (unsigned *)((char *)p->work + X3G_HDR + bit_bytes);
    g->pb = g->pa + ntm;
    q->work = (char *)p->work + bytes;
    q->work_bytes = p->work_bytes - bytes;
    if (!zero_kernel) return cudaMemsetAsync(p->work, 0, bytes, s);
    const int64_t n16 = (int64_t)(bytes / 16); /* bytes: a multiple of X3G_HDR */
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg =
        mb_launch_cfg(attr, dim3(mb_grid_dim(mb_cdiv(n16, 256), 1024)), dim3(256), 0, s, 1);
    const cudaError_t e = cudaLaunchKernelEx(&cfg, x3g_zero_kernel, (uint4 *)p->work, n16);
    return e != cudaSuccess ? e : cudaGetLastError();
}

/* Split-K under the guard: C = beta * C + slab 0 + ... + slab S - 1 (slab s = alpha times
 * slice s's partial, m x n, ld m), in slice order, for the elements of tiles whose bit is
 * clear; beta == 0: C not read (else one fused multiply-add, beta * C + v: the split-K of
 * the TMA rungs in clusters, tma_ring.cuh's tm_split_store, computes the same bits). One
 * thread per element, column by column (mb_colwise_grid).
 * Programmatic dependent launch (p->pdl): waits for the gemm before reading anything, then
 * lets the fixup be scheduled. */
static __global__ void x3g_reduce_kernel(float *C, int64_t ldc, const float *W, int64_t m, int64_t n,
                                  int slabs, float beta, x3g g) {
    mb_grid_wait();
    mb_grid_launch_next();
    const int64_t mn = m * n, ntm = (m + g.bm - 1) / g.bm;
    for (int64_t r = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; r < m;
         r += (int64_t)gridDim.x * blockDim.x) {
        const int64_t tm = mb_div_small(r, g.bm);
        for (int64_t c = blockIdx.y; c < n; c += gridDim.y) {
            if (x3g_bit(g, tm + mb_div_small(c, g.bn) * ntm)) continue;
            const int64_t e = r + c * m;
            float v = W[e];
            for (int s = 1; s < slabs; ++s) v += W[s * mn + e];
            float *dst = C + r + c * ldc;
            *dst = beta == 0.0f ? v : __fmaf_rn(beta, *dst, v); /* as tm_split_store */
        }
    }
}
static inline cudaError_t x3g_reduce(const mb_gemm_args *p, const mb_gemm_args *q, int S, x3g g,
                                     cudaStream_t s) {
    dim3 grid, block;
    mb_colwise_grid(p->m, p->n, &grid, &block);
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg = mb_launch_cfg(attr, grid, block, 0, s, p->pdl);
    const cudaError_t e = cudaLaunchKernelEx(&cfg, x3g_reduce_kernel, (float *)p->C, p->ldc,
                                             (const float *)q->work, p->m, p->n, S,
                                             (float)p->beta, g);
    return e != cudaSuccess ? e : cudaGetLastError();
}

/* The fixup: every block reads the flag and returns when it is 0. Else tiles (grid-stride)
 * whose bit is set are recomputed: 256 threads, each 8 x 8 elements of the 128 x 128 tile
 * (rows tx + 16 i, columns ty + 16 j), k in chunks of 16 staged in shared memory; per element
 * acc = fmaf(a_q, b_q, acc) for q = 0 .. k - 1 in order (as the SIMT rungs), then
 * alpha * acc (+ beta * C). Slow (SIMT, one block per tile) but only for flagged tiles. */
#define X3G_FK 16
static __global__ void __launch_bounds__(256) x3g_fixup_kernel(mb_gemm_args p, x3g g) {
    mb_grid_launch_next(); /* the next call's first kernel waits for this grid's end */
    mb_grid_wait(); /* programmatic dependent launch (p.pdl): the gemm and its reduce done */
    if (*(volatile unsigned *)g.flag == 0u) return;
    __shared__ float sA[X3G_FK][X3G_TILE], sB[X3G_FK][X3G_TILE + 1];
    const float *A = (const float *)p.A, *B = (const float *)p.B;
    float *C = (float *)p.C;
    const float alpha = (float)p.alpha, beta = (float)p.beta;
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const int64_t ntm = (p.m + g.bm - 1) / g.bm, ntn = (p.n + g.bn - 1) / g.bn;
    for (int64_t tile = blockIdx.x; tile < ntm * ntn; tile += gridDim.x) {
        if (!x3g_tile_flagged(g, tile % ntm, tile / ntm, ntm)) continue; /* same for the block */
        const int64_t m0 = (tile % ntm) * g.bm, n0 = (tile / ntm) * g.bn;
        const int64_t me = m0 + g.bm < p.m ? m0 + g.bm : p.m; /* the tile's rows end */
        const int64_t ne = n0 + g.bn < p.n ? n0 + g.bn : p.n;
        float acc[8][8];
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
        for (int64_t q0 = 0; q0 < p.k; q0 += X3G_FK) {
            const int kl = p.k - q0 < X3G_FK ? (int)(p.k - q0) : X3G_FK;
            __syncthreads(); /* the previous chunk's reads are done */
            for (int e = tid; e < X3G_FK * X3G_TILE; e += 256) {
                /* A: element (m0 + i, q0 + kk); consecutive threads walk A's contiguous dim */
                const int i = p.transa ? e / X3G_FK : e % X3G_TILE;
                const int kk = p.transa ? e % X3G_FK : e / X3G_TILE;
                const int64_t r = m0 + i, q = q0 + kk;
                sA[kk][i] = r < me && kk < kl ? (p.transa ? A[q + r * p.lda] : A[r + q * p.lda])
                                               : 0.0f;
                /* B: element (q0 + kk, n0 + j) */
                const int j = p.transb ? e % X3G_TILE : e / X3G_FK;
                const int kb = p.transb ? e / X3G_TILE : e % X3G_FK;
                const int64_t c = n0 + j, qb = q0 + kb;
                sB[kb][j] = c < ne && kb < kl ? (p.transb ? B[c + qb * p.ldb] : B[qb + c * p.ldb])
                                               : 0.0f;
            }
            __syncthreads();
            for (int kk = 0; kk < kl; ++kk) {
                float a[8], b[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) a[i] = sA[kk][tx + 16 * i];
#pragma unroll
                for (int j = 0; j < 8; ++j) b[j] = sB[kk][ty + 16 * j];
#pragma unroll
                for (int i = 0; i < 8; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const int64_t r = m0 + tx + 16 * i, c = n0 + ty + 16 * j;
                if (r < me && c < ne) {
                    float *dst = C + r + c * p.ldc;
                    const float v = alpha * acc[i][j];
                    *dst = beta == 0.0f ? v : v + beta * *dst;
                }
            }
    }
}
/* After the gemm (and its split-K reduce): the fixup launch, a few blocks per SM at most. */
static inline cudaError_t x3g_end(const mb_gemm_args *p, x3g g, cudaStream_t s) {
    if (!g.flag) return cudaSuccess;
    int sms = 0;
    cudaError_t e = mb_device_info(&sms, NULL);
    if (e != cudaSuccess) return e;
    const int64_t tiles = mb_cdiv(p->m, g.bm) * mb_cdiv(p->n, g.bn);
    const int64_t blocks = tiles < 2 * (int64_t)sms ? tiles : 2 * (int64_t)sms;
    cudaLaunchAttribute attr[1];
    const cudaLaunchConfig_t cfg =
        mb_launch_cfg(attr, dim3(mb_grid_dim(blocks, 65535)), dim3(256), 0, s, p->pdl);
    e = cudaLaunchKernelEx(&cfg, x3g_fixup_kernel, *p, g);
    return e != cudaSuccess ? e : cudaGetLastError();
}

#endif
