/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the SIMT family files: NN launch and info of one mb_wt_cfg. */
#define MB_GEMM_WARPTILED_NO_LAUNCHERS
#include "gemm/10_warptiled.cu"
#include "sweep.h"

template <typename T, class CFG> static cudaError_t sw_wt_launch(const mb_gemm_args *p, cudaStream_t s) {
    return gemm_warptiled_launch<T, false, false, CFG>(p, s);
}
template <typename T, class CFG> static cudaError_t sw_wt_info(cudaFuncAttributes *a, int *bps) {
    const size_t smem = mb_wt_smem_bytes<T, CFG>();
    cudaError_t e = cudaFuncSetAttribute((const void *)gemm_warptiled_kernel<T, false, false, CFG>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    e = cudaFuncGetAttributes(a, (const void *)gemm_warptiled_kernel<T, false, false, CFG>);
    if (e != cudaSuccess) return e;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        bps, (const void *)gemm_warptiled_kernel<T, false, false, CFG>, CFG::NT, smem);
}
/* mb_wt_cfg<BM, BN, BK, WM, WN, TM, TN, STAGES, MINB, KS>; the smem value is computed at
 * static-initialisation time (mb_wt_smem_bytes is not constexpr). */
#define SW_WT(T, BM, BN, BK, WM, WN, TM, TN, ST, MB, KS, note)                                  \
    {#BM "x" #BN "x" #BK "/w" #WM "x" #WN "/t" #TM "x" #TN "/s" #ST "/b" #MB "/k" #KS, note,    \
     &sw_wt_launch<T, mb_wt_cfg<BM, BN, BK, WM, WN, TM, TN, ST, MB, KS>>,                       \
     &sw_wt_info<T, mb_wt_cfg<BM, BN, BK, WM, WN, TM, TN, ST, MB, KS>>,                         \
     mb_wt_smem_bytes<T, mb_wt_cfg<BM, BN, BK, WM, WN, TM, TN, ST, MB, KS>>(),                  \
     mb_wt_cfg<BM, BN, BK, WM, WN, TM, TN, ST, MB, KS>::NT}
