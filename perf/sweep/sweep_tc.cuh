/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the tensor-core family files: NN launch and info of one tc_cfg. */
#include "gemm/tc_common.cuh"
#include "sweep.h"

/* NN, column-major: A m-contiguous (AKC = false), B k-contiguous (BKC = true). SPLIT: 0 = the
 * library's split-K rule (mb_splitk_plan), S >= 1 = S slices of k (1: none). */
template <class Cfg, int OP, int SPLIT = 0>
static cudaError_t sw_tc_launch(const mb_gemm_args *p, cudaStream_t s) {
    return tc_gemm_launch_t<Cfg, OP, false, true>(p, SPLIT, s);
}
template <class Cfg, int OP> static cudaError_t sw_tc_info(cudaFuncAttributes *a, int *bps) {
    const size_t smem = Cfg::smem_bytes(false, true, OP == TC_OP_TF32X3);
    cudaError_t e = cudaFuncSetAttribute(tc_gemm_kernel<Cfg, OP, false, true, false>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    e = cudaFuncGetAttributes(a, tc_gemm_kernel<Cfg, OP, false, true, false>);
    if (e != cudaSuccess) return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(bps, tc_gemm_kernel<Cfg, OP, false, true, false>,
                                                         Cfg::NTHREADS, smem);
}
#define SW_TC(T, OP, BM, BN, BK, WM, WN, ST, MB, note)                                         \
    {#BM "x" #BN "x" #BK "/w" #WM "x" #WN "/s" #ST "/b" #MB, note,                             \
     &sw_tc_launch<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB>, OP>,                                 \
     &sw_tc_info<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB>, OP>,                                   \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB>::smem_bytes(false, true, OP == TC_OP_TF32X3),       \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB>::NTHREADS}
/* The same with the FP64 options of tc_cfg (tc_common.cuh): DK = mma depth (4, 8, 16), PP =
 * fragment pipeline (0 TC_PIPE_STEP2, 1 TC_PIPE_STEP1, 2 TC_PIPE_STREAM), LN = lean copies
 * (0, 1). Name: ...bMINB/kDKpPPlLN. */
#define SW_TC_X(T, OP, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, note)                          \
    {#BM "x" #BN "x" #BK "/w" #WM "x" #WN "/s" #ST "/b" #MB "/k" #DK "p" #PP "l" #LN, note,     \
     &sw_tc_launch<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>, OP>,                     \
     &sw_tc_info<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>, OP>,                       \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>::smem_bytes(false, true,                \
                                                                    OP == TC_OP_TF32X3),      \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>::NTHREADS}
/* SW_TC_X with a fixed number of k slices S (split-K, splitk.cuh; clamped by mb_splitk_make to
 * at least 4 k-tiles per slice and the workspace). Name: ...lLN/S<S>. */
#define SW_TC_XS(T, OP, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, S, note)                      \
    {#BM "x" #BN "x" #BK "/w" #WM "x" #WN "/s" #ST "/b" #MB "/k" #DK "p" #PP "l" #LN "/S" #S,  \
     note, &sw_tc_launch<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>, OP, S>,            \
     &sw_tc_info<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>, OP>,                       \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>::smem_bytes(false, true,                \
                                                                    OP == TC_OP_TF32X3),      \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN>::NTHREADS}
/* SW_TC_XS with the swizzled, unpadded FP64 layout (tc_cfg SWZ = true). Name: ...lLN/S<S>/z. */
#define SW_TC_XZ(T, OP, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, S, note)                      \
    {#BM "x" #BN "x" #BK "/w" #WM "x" #WN "/s" #ST "/b" #MB "/k" #DK "p" #PP "l" #LN "/S" #S   \
         "/z",                                                                                 \
     note, &sw_tc_launch<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, true>, OP, S>,      \
     &sw_tc_info<tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, true>, OP>,                 \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, true>::smem_bytes(false, true, false),  \
     tc_cfg<T, BM, BN, BK, WM, WN, ST, MB, DK, PP, LN, true>::NTHREADS}
