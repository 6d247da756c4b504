/*
 * Rung 3, tiled: a block of TS x TS threads (TS = 32) computes a TS x TS tile of C. It walks k in
 * steps of TS; at each step the block loads a TS x TS tile of op(A) and of op(B) into shared
 * memory, cooperatively (one element per thread), synchronises, and every thread takes its dot
 * product from shared memory. Each element loaded from global memory is now used TS times
 * (by a whole row or column of the block) instead of once, which cuts global traffic by TS.
 * The load mapping follows the operand's storage: for each of the four transpose cases
 * consecutive threads read consecutive addresses (coalesced).
 * Shared layout: A is stored k-major, As[p][i] (element (i, p) at As[p * TS + i]), B as
 * Bs[j][p]. In the inner loop the 32 threads of a warp (consecutive tx = i, one ty = j) read
 * As[p][tx], 32 consecutive words in 32 different banks, and Bs[ty][p], one word for the whole
 * warp (a broadcast): conflict-free.
 * Run 2 stored A as As[i][p] instead: the warp then read As[tx][p], 32 words 32 apart, all in
 * ONE bank, a 32-way conflict on every A read (each replayed 32 times). That version measured
 * 0.47 TFLOP/s at 1024 and 0.48 at 4096 (H200, NN; 1.2% / 0.9% of cuBLAS), slower than naive and
 * 13x slower than coalesced; the k-major layout removes it. Measured (H200, run 3, NN): sgemm
 * 5.77 TFLOP/s at 1024 (15.2% of cuBLAS), 5.99 TFLOP/s at 4096 (11.8%); dgemm 4.31 / 4.39
 * TFLOP/s: 12x run 2, level with padded.
 * Conflicts left for rung 4: the transposing STORES of the transposed cases. With transa == 1
 * the warp reads 32 consecutive k of one row i of A and stores them to As[p = tx][i = ty]: 32
 * words 32 apart, a 32-way conflict (likewise B with transb == 1, Bs[j = tx][p = ty]). That is one
 * store per element per k-tile against 32 conflict-free loads per thread, so it roughly doubles
 * the shared-memory time of those cases; NN has no conflict at all.
 * The tile size is a run-time value (blockDim.x), so the inner loop cannot be unrolled (rung 5).
 * Blocks walk the tiles of C in grouped order (gemm_common.cuh) for L2 reuse.
 * Resources (sm_90, -O3): 32 registers (__launch_bounds__(1024, 2): two 1024-thread blocks per
 * SM, as rung 4; some cases spill 4-16 bytes outside the k-loop), 2*TS*TS*sizeof(T) bytes
 * dynamic shared memory (8 KB float, 16 KB double).
 */
#include "gemm_common.cuh"

template <typename T, bool TA, bool TB>
__global__ void __launch_bounds__(1024, 2) gemm_tiled_kernel(mb_gp<T> g) {
    extern __shared__ __align__(16) unsigned char mb_smem[];
    const int TS = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
    T *As = (T *)mb_smem, *Bs = As + TS * TS;
    const int64_t mt = mb_dcdiv(g.m, TS), nt = mb_dcdiv(g.n, TS);
    for (int64_t t = blockIdx.x; t < mt * nt; t += gridDim.x) {
        int64_t tm, tn;
        mb_tile_coords(t, mt, nt, &tm, &tn);
        const int64_t i0 = tm * TS, j0 = tn * TS;
        const int rem_m = mb_rem(g.m, i0, TS), rem_n = mb_rem(g.n, j0, TS);
        T acc = 0;
        for (int64_t p0 = 0; p0 < g.k; p0 += TS) {
            const int rem_k = mb_rem(g.k, p0, TS);
            const T *Ab = g.A + mb_ia<TA>(i0, p0, g.lda); /* op(A)(i0, p0) */
            const T *Bb = g.B + mb_ib<TB>(p0, j0, g.ldb); /* op(B)(p0, j0) */
            if (!TA) /* A(i0+tx, p0+ty): tx along the stored column */
                As[ty * TS + tx] = (tx < rem_m && ty < rem_k) ? Ab[tx + (int64_t)ty * g.lda] : T(0);
            else     /* A stored k x m: tx along k */
                As[tx * TS + ty] = (ty < rem_m && tx < rem_k) ? Ab[tx + (int64_t)ty * g.lda] : T(0);
            if (!TB) /* B(p0+tx, j0+ty) */
                Bs[ty * TS + tx] = (tx < rem_k && ty < rem_n) ? Bb[tx + (int64_t)ty * g.ldb] : T(0);
            else     /* B stored n x k: tx along n */
                Bs[tx * TS + ty] = (ty < rem_k && tx < rem_n) ? Bb[tx + (int64_t)ty * g.ldb] : T(0);
            __syncthreads();
            for (int p = 0; p < TS; ++p) acc += As[p * TS + tx] * Bs[ty * TS + p];
            __syncthreads();
        }
        if (tx < rem_m && ty < rem_n)
            mb_put(g.C + (i0 + tx) + (j0 + ty) * g.ldc, acc, g.alpha, g.beta);
    }
}

template <typename T, bool TA, bool TB>
static cudaError_t gemm_tiled_run(const mb_gemm_args *a, cudaStream_t s) {
    const int TS = 32;
    const int64_t tiles = mb_cdiv(a->m, TS) * mb_cdiv(a->n, TS);
    const size_t smem = 2 * TS * TS * sizeof(T);
    gemm_tiled_kernel<T, TA, TB><<<mb_tile_grid(tiles), dim3(TS, TS), smem, s>>>(mb_gemm_params<T>(a));
    return cudaGetLastError();
}

template <typename T> static cudaError_t gemm_tiled(const mb_gemm_args *a, cudaStream_t s) {
    return MB_GEMM_TRANS_DISPATCH(gemm_tiled_run, T, a, s);
}

MB_GEMM_LAUNCHERS(tiled, gemm_tiled)
