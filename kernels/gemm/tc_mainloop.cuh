/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Tensor-core GEMM (tc_common.cuh): the per-warp products of one shared-memory stage
 * (tc_warp_mma for DMMA / TF32, tc_warp_mma_x3 for 3xTF32) and the FP64 main loops of the
 * TC_PIPE_STREAM and TC_PIPE_XMMA pipelines (tc_mainloop_f64_stream and, for its interior
 * tiles of an even number of m16n8k8 steps, tc_mainloop_f64_lean; tc_mainloop_f64_xmma);
 * the other pipelines' loop is in the kernel (tc_kernel.cuh).
 */
#ifndef MINIBLAS_GEMM_TC_MAINLOOP_CUH
#define MINIBLAS_GEMM_TC_MAINLOOP_CUH

#include "tc_copy.cuh"
#include "tc_mma.cuh"

/* ---------------------------------------------------------------------------------------
 * Warp tile products on one stage and the FP64 main loops.
 * ------------------------------------------------------------------------------------- */
/* Warp tile product on k steps [S0, S1) of one stage (steps of 8 for TF32, of Cfg::DK for FP64), so
 * that the kernel can issue the next stage's copies after the first step's mma (the copies'
 * address arithmetic then overlaps tensor-core work instead of preceding it). */
template <class Cfg, int OP, bool AKC, bool BKC, int S0, int S1>
__device__ __forceinline__ void tc_warp_mma(typename Cfg::T (&acc)[Cfg::MI][Cfg::NI][4],
                                            const typename Cfg::T *sA, const typename Cfg::T *sB,
                                            int wm0, int wn0, int lane) {
    typedef typename Cfg::T T;
    if constexpr (OP == TC_OP_DMMA) {
        /* FP64: 16x8xDK steps (DK = 4 KQ), fully unrolled. TC_PIPE_STEP2 (the default, with
         * DK = 4): fragments double-buffered in registers, the LDS of step s + 1 issued before
         * the MI x NI independent mma of step s, so the tensor pipe never waits on a
         * shared-memory load inside a stage. (Two register sets of m16n8k8 fragments need ~96
         * registers on top of the 128 accumulator registers of a 32x64 warp tile, of m16n8k16
         * ~192: they spill; m16n8k4 needs 48.) TC_PIPE_STEP1: one set, load then mma (also the
         * loop of the tiles a TC_PIPE_XMMA kernel cannot run on tc_mainloop_f64_xmma). */
        constexpr int KQ = Cfg::DK / 4;
        if constexpr (Cfg::PIPE == TC_PIPE_STEP1 || Cfg::PIPE == TC_PIPE_XMMA) {
#pragma unroll
            for (int s = S0; s < S1; ++s) {
                double a[Cfg::MI][2 * KQ], b[Cfg::NI][KQ];
                tc_gather_a_f64<Cfg, AKC, KQ>(a, (const double *)sA, wm0, Cfg::DK * s, lane);
                tc_gather_b_f64<Cfg, BKC, KQ>(b, (const double *)sB, wn0, Cfg::DK * s, lane);
#pragma unroll
                for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < Cfg::NI; ++ni)
                        tc_mma_f64<KQ>((double *)acc[mi][ni], a[mi], b[ni]);
            }
        } else {
            double a[2][Cfg::MI][2 * KQ], b[2][Cfg::NI][KQ];
            tc_gather_a_f64<Cfg, AKC, KQ>(a[S0 & 1], (const double *)sA, wm0, Cfg::DK * S0,
                                          lane);
            tc_gather_b_f64<Cfg, BKC, KQ>(b[S0 & 1], (const double *)sB, wn0, Cfg::DK * S0,
                                          lane);
#pragma unroll
            for (int s = S0; s < S1; ++s) {
                if (s + 1 < S1) {
                    tc_gather_a_f64<Cfg, AKC, KQ>(a[(s + 1) & 1], (const double *)sA, wm0,
                                                  Cfg::DK * (s + 1), lane);
                    tc_gather_b_f64<Cfg, BKC, KQ>(b[(s + 1) & 1], (const double *)sB, wn0,
                                                  Cfg::DK * (s + 1), lane);
                }
#pragma unroll
                for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < Cfg::NI; ++ni)
                        tc_mma_f64<KQ>((double *)acc[mi][ni], a[s & 1][mi], b[s & 1][ni]);
            }
        }
    } else {
        /* TF32. Unrolled by 2, not fully: full unrolling lets ptxas hoist the fragment loads
         * of every k step and the kernel runs out of registers. */
#pragma unroll 2
        for (int kk = S0 * Cfg::KSTEP; kk < S1 * Cfg::KSTEP; kk += Cfg::KSTEP) {
            T a[Cfg::MI][4], b[Cfg::NI][2];
            tc_gather_a<Cfg, AKC>(a, sA, wm0, kk, lane);
            tc_gather_b<Cfg, BKC>(b, sB, wn0, kk, lane);
            unsigned ta[Cfg::MI][4], tb[Cfg::NI][2];
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                for (int v = 0; v < 4; ++v) ta[mi][v] = tc_to_tf32(a[mi][v]);
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 2; ++v) tb[ni][v] = tc_to_tf32(b[ni][v]);
#pragma unroll
            for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
                for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32(acc[mi][ni], ta[mi], tb[ni]);
        }
    }
}

/* 3xTF32 on one stage. The tensor core's FP32 accumulation is not round-to-nearest (the
 * aligned addends are truncated and the sum is rounded toward zero), so an accumulator that
 * lives in mma for the whole K drifts toward zero by a fraction of an ulp per mma: an error
 * that grows linearly with K (measured on an H200 with that design: 12x cuBLAS FP32 SGEMM's
 * error at K = 256, 26x at K = 4096). Instead, every k step (8 deep), the
 * products of a 16x8 tile go into a fresh accumulator t, small cross terms first and the large
 * product last; t (an 8..16-term partial sum, whose truncation errors have random sign) is then
 * added to acc with ordinary round-to-nearest FP32 adds outside the tensor core (Ootomo and
 * Yokota 2022). A CPU model of the arithmetic (exact products, addends aligned and truncated,
 * sum rounded toward zero; it reproduces the linear growth measured), K = 256 / 4096, inputs
 * uniform in [-1, 1]: relative Frobenius error 1.4e-7 / 4.1e-7 with a fresh t per k step,
 * 1.7..2.4e-7 / 3.3..3.6e-7 with one per 2 k steps (half the FADDs; not used),
 * 3.0e-7 / 1.2e-6 for a sequential FP32 FMA loop
 * (cuBLAS FP32 SGEMM on the H200: 1.5e-7 / 1.1e-6; the test allows 2x cuBLAS).
 * Operands come from the split planes (tc_split_stage). */
template <class Cfg, bool AKC, bool BKC, int S0, int S1>
__device__ __forceinline__ void tc_warp_mma_x3(float (&acc)[Cfg::MI][Cfg::NI][4], const float *sX,
                                               int wm0, int wn0, int lane) {
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    const float *sAb = sX, *sAs = sX + AE, *sBb = sX + 2 * AE, *sBs = sX + 2 * AE + BE;
    /* Per k step, the three products of all MI x NI tiles are issued pass by pass (small*big
     * of every tile, then big*small of every tile, then big*big), so dependent mma are
     * MI x NI = 16 instructions apart and the tensor pipe never waits on its own result (the
     * run-3 version did one 16-row tile at a time: chains of 3 dependent mma only NI = 4
     * apart, then the FADDs waiting on the last). Per tile the arithmetic and its order are
     * unchanged: t = as*bb (fresh accumulator) + ab*bs + ab*bb, then acc += t in FP32.
     * Registers: 64 accumulators, 64 partial sums t, 48 fragment registers. Not unrolled:
     * unrolling lets ptxas hoist the next step's fragment loads and the kernel spills. */
#pragma unroll 1
    for (int k0 = S0 * Cfg::KSTEP; k0 < S1 * Cfg::KSTEP; k0 += Cfg::KSTEP) {
        float fb[Cfg::NI][2], fa[4];
        unsigned bb[Cfg::NI][2], bs[Cfg::NI][2], ab[Cfg::MI][4], as[Cfg::MI][4];
        tc_gather_b<Cfg, BKC>(fb, sBb, wn0, k0, lane);
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 2; ++v) bb[ni][v] = __float_as_uint(fb[ni][v]);
        tc_gather_b<Cfg, BKC>(fb, sBs, wn0, k0, lane);
#pragma unroll
        for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
            for (int v = 0; v < 2; ++v) bs[ni][v] = __float_as_uint(fb[ni][v]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi) {
            tc_gather_a1<Cfg, AKC>(fa, sAb, wm0, mi, k0, lane);
#pragma unroll
            for (int v = 0; v < 4; ++v) ab[mi][v] = __float_as_uint(fa[v]);
            tc_gather_a1<Cfg, AKC>(fa, sAs, wm0, mi, k0, lane);
#pragma unroll
            for (int v = 0; v < 4; ++v) as[mi][v] = __float_as_uint(fa[v]);
        }
        float t[Cfg::MI][Cfg::NI][4];
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32_zero(t[mi][ni], as[mi], bb[ni]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32(t[mi][ni], ab[mi], bs[ni]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni) tc_mma_tf32(t[mi][ni], ab[mi], bb[ni]);
#pragma unroll
        for (int mi = 0; mi < Cfg::MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < Cfg::NI; ++ni)
#pragma unroll
                for (int v = 0; v < 4; ++v) acc[mi][ni][v] += t[mi][ni][v];
    }
}

/* FP64 main loop of one block tile with TC_PIPE_STREAM (after the prologue has committed
 * STAGES - 1 groups). Per k step of DK: the A fragments of the warp's MI row tiles are held;
 * the mma go column by column (MI mma per n tile), each column's B fragment loaded one column
 * ahead; during the last column the next step's A and first B fragments are loaded. At the
 * last column of a stage the loads come from the next stage, so the wait and the barrier sit
 * there: every fragment of the current stage is then already in registers (all warps are done
 * reading it: its buffer may be refilled after the barrier), and the mma of that last column
 * need no shared-memory load, so they can issue right after the barrier while the next
 * stage's first fragments load (CUTLASS's multistage main loop does the same). The barrier at
 * the top of each stage (and the LDS latency after it) goes. Fragment registers: 2 x A (2 x
 * MI x 2 DK / 4 doubles) + 2 x one B column (2 x DK / 4): 80 for m16n8k16 and MI = 2.
 * Copies of k-tile kt + STAGES - 1 go to the buffer of k-tile kt - 1 (free since the
 * barrier in the last column of k-tile kt - 1), issued after the first column's mma (or at
 * the top of the stage when it has a single k step). */
template <class Cfg, bool AKC, bool BKC>
__device__ __forceinline__ void tc_mainloop_f64_stream(double (&acc)[Cfg::MI][Cfg::NI][4],
                                                       double *sA, double *sB,
                                                       const mb_gemm_args &p, int64_t m0,
                                                       int64_t n0, int64_t KT, bool a_vec,
                                                       bool b_vec, int tid, int wm0, int wn0,
                                                       int lane) {
    constexpr int KQ = Cfg::DK / 4, NS = Cfg::BK / Cfg::DK, S = Cfg::STAGES;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    constexpr int MI = Cfg::MI, NI = Cfg::NI;
    double a_cur[MI][2 * KQ], a_nxt[MI][2 * KQ], b_cur[KQ], b_nxt[KQ];
    /* Groups committed: STAGES - 1; k-tile 0 is group 0. */
    tc_cp_async_wait<S - 2>();
    __syncthreads();
    tc_gather_a_f64<Cfg, AKC, KQ>(a_cur, sA, wm0, 0, lane);
    tc_gather_b1_f64<Cfg, BKC, KQ>(b_cur, sB, wn0, 0, 0, lane);
    int cs = 0, ls = S - 1; /* buffers of k-tiles kt and kt + S - 1 (= kt - 1 mod S) */
    for (int64_t kt = 0; kt < KT; ++kt) {
        const double *cA = sA + cs * AE, *cB = sB + cs * BE;
        const int ns = cs + 1 == S ? 0 : cs + 1;
        const int64_t nk = kt + S - 1;
        /* Column ni of k step s: prefetch, then the MI mma of the column. */
        auto column = [&](int s, int ni) {
            if (ni + 1 < NI) {
                tc_gather_b1_f64<Cfg, BKC, KQ>(b_nxt, cB, wn0, ni + 1, Cfg::DK * s, lane);
            } else if (s + 1 < NS) {
                tc_gather_a_f64<Cfg, AKC, KQ>(a_nxt, cA, wm0, Cfg::DK * (s + 1), lane);
                tc_gather_b1_f64<Cfg, BKC, KQ>(b_nxt, cB, wn0, 0, Cfg::DK * (s + 1), lane);
            } else if (kt + 1 < KT) {
                /* Groups committed: S - 1 + kt + 1; k-tile kt + 1 is group kt + 1. */
                tc_cp_async_wait<S - 2>();
                __syncthreads();
                tc_gather_a_f64<Cfg, AKC, KQ>(a_nxt, sA + ns * AE, wm0, 0, lane);
                tc_gather_b1_f64<Cfg, BKC, KQ>(b_nxt, sB + ns * BE, wn0, 0, 0, lane);
            }
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) tc_mma_f64<KQ>(acc[mi][ni], a_cur[mi], b_cur);
#pragma unroll
            for (int v = 0; v < KQ; ++v) b_cur[v] = b_nxt[v];
            if (ni + 1 == NI) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                    for (int v = 0; v < 2 * KQ; ++v) a_cur[mi][v] = a_nxt[mi][v];
            }
        };
        /* The copies stay out of the unrolled column loop (its body would grow past what
         * the compiler unrolls fully, and the fragment arrays would go to local memory). */
        if constexpr (NS == 1) {
            if (nk < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0, nk, a_vec,
                                             b_vec, tid);
            tc_cp_async_commit();
        }
        column(0, 0);
        if constexpr (NS > 1) {
            if (nk < KT)
                tc_load_stage<Cfg, AKC, BKC>(sA + ls * AE, sB + ls * BE, p, m0, n0, nk, a_vec,
                                             b_vec, tid);
            tc_cp_async_commit();
        }
#pragma unroll
        for (int c = 1; c < NS * NI; ++c) column(c / NI, c % NI);
        cs = ns;
        ls = ls + 1 == S ? 0 : ls + 1;
    }
}

/* FP64 main loop with TC_PIPE_STREAM for the tiles wholly inside the matrix, when DK = 8 and
 * BK an even number NS of m16n8k8 steps (16 or 32), k a multiple of BK and 16-byte copies
 * (the others run tc_mainloop_f64_stream). The stream loop's copies are the generic guarded
 * ones (a branch per path and per-chunk bounds arithmetic on every k-tile) and its fragments
 * move from "next" to "current" registers every column; here, as in the XMMA loop, the
 * copies are the lean ones without a branch (past the last k-tile the last one is copied
 * again, into a buffer nothing reads) and the loop is unrolled by the S stages, so the
 * buffer offsets are constants and two fragment sets F0 / F1 alternate by step (F0 the even
 * steps, F1 the odd). The prologue (k-tiles 0 .. S - 2) is here too, with the same lean
 * copies: with the kernel's guarded one the small tile's kernel spilled. Per k-tile in stage
 * cs, step s:
 *   s < NS - 1: mma (mi, 0) of every row tile, then step s + 1's A and B fragments into the
 *               other set, the other columns; after step 0's column 1 the copies of A for
 *               k-tile kt + S - 1 into buffer (cs + S - 1) % S, after step 1's (step 0's when
 *               NS = 2) those of B;
 *   s = NS - 1: mma (mi, 0) of every row tile (all reads of stage cs are issued by then),
 *               wait for k-tile kt + 1 and the barrier, the next stage's step-0 fragments
 *               into F0, the other columns (F1: NS is even).
 * Each accumulator takes the same mma on the same fragments in the same k order as in
 * tc_mainloop_f64_stream, so C is bitwise the same. */
template <class Cfg, bool AKC, bool BKC>
__device__ __forceinline__ void tc_mainloop_f64_lean(double (&acc)[Cfg::MI][Cfg::NI][4],
                                                     double *sA, double *sB,
                                                     const mb_gemm_args &p, int64_t m0,
                                                     int64_t n0, int64_t KT, int tid, int wm0,
                                                     int wn0, int lane) {
    constexpr int S = Cfg::STAGES, BK = Cfg::BK, MI = Cfg::MI, NI = Cfg::NI, NS = BK / 8;
    static_assert(Cfg::DK == 8 && NS % 2 == 0 && NI >= 2, "an even number of m16n8k8 steps");
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    /* Copies: as in tc_mainloop_f64_xmma (without its L2 prefetch, as the stream loop). */
    constexpr int A_OUT = AKC ? Cfg::BM : BK, A_IN = AKC ? BK : Cfg::BM;
    constexpr int A_LDS = AKC ? Cfg::LD_K : Cfg::LD_AM;
    constexpr int B_OUT = BKC ? Cfg::BN : BK, B_IN = BKC ? BK : Cfg::BN;
    constexpr int B_LDS = BKC ? Cfg::LD_K : Cfg::LD_BN;
    const int ao = tid / (A_IN / 2), ai = tid % (A_IN / 2) * 2;
    const int bo = tid / (B_IN / 2), bi = tid % (B_IN / 2) * 2;
    const int64_t adv_a = AKC ? BK : BK * p.lda, adv_b = BKC ? BK : BK * p.ldb;
    const double *ga = (const double *)p.A + (AKC ? (m0 + ao) * p.lda + ai : ao * p.lda + m0 + ai);
    const double *gb = (const double *)p.B + (BKC ? (n0 + bo) * p.ldb + bi : bo * p.ldb + n0 + bi);
    double *da = sA + ao * A_LDS + tc_swz<Cfg::SWZ>(ao, ai);
    double *db = sB + bo * B_LDS + tc_swz<Cfg::SWZ>(bo, bi);
    auto copy_a = [&](int buf) {
        tc_copy_lean<double, A_OUT, A_IN, A_LDS, Cfg::NTHREADS, false, Cfg::SWZ>(da + buf * AE,
                                                                                 ga, p.lda);
    };
    auto copy_b = [&](int buf) {
        tc_copy_lean<double, B_OUT, B_IN, B_LDS, Cfg::NTHREADS, false, Cfg::SWZ>(db + buf * BE,
                                                                                 gb, p.ldb);
    };
    /* Prologue: k-tiles 0 .. S - 2 (empty groups past the end keep the count); then the
     * sources move to k-tile S - 1, the first the loop copies (or the last k-tile, when
     * there are fewer). */
#pragma unroll
    for (int s = 0; s < S - 1; ++s) {
        if (s < KT) {
            copy_a(s);
            copy_b(s);
        }
        tc_cp_async_commit();
        if (s + 1 < KT) {
            ga += adv_a;
            gb += adv_b;
        }
    }

    /* The step after whose column 1 B is copied and the group committed: before the last
     * step, whose wait counts this k-tile's group. */
    constexpr int CB = NS > 2 ? 1 : 0;
    double a[2][MI][4], b[2][NI][2];
    /* Groups committed: S - 1 (the prologue); k-tile 0 is group 0. */
    tc_cp_async_wait<S - 2>();
    __syncthreads();
    tc_gather_a_f64<Cfg, AKC, 2>(a[0], sA, wm0, 0, lane);
    tc_gather_b_f64<Cfg, BKC, 2>(b[0], sB, wn0, 0, lane);
    auto tile = [&](int64_t kt, int cs) {
        const int ns = (cs + 1) % S, ls = (cs + S - 1) % S;
        const double *cA = sA + cs * AE, *cB = sB + cs * BE;
        const double *nA = sA + ns * AE, *nB = sB + ns * BE;
#pragma unroll
        for (int st = 0; st < NS; ++st) {
            const int f = st & 1;
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) tc_mma_f64<2>(acc[mi][0], a[f][mi], b[f][0]);
            if (st + 1 < NS) {
                tc_gather_a_f64<Cfg, AKC, 2>(a[f ^ 1], cA, wm0, 8 * (st + 1), lane);
                tc_gather_b_f64<Cfg, BKC, 2>(b[f ^ 1], cB, wn0, 8 * (st + 1), lane);
            } else {
                /* Groups committed: S - 1 + kt + 1; k-tile kt + 1 is group kt + 1. */
                tc_cp_async_wait<S - 2>();
                __syncthreads();
                tc_gather_b_f64<Cfg, BKC, 2>(b[0], nB, wn0, 0, lane);
                tc_gather_a_f64<Cfg, AKC, 2>(a[0], nA, wm0, 0, lane);
            }
#pragma unroll
            for (int ni = 1; ni < NI; ++ni) {
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) tc_mma_f64<2>(acc[mi][ni], a[f][mi], b[f][ni]);
                if (ni == 1 && st == 0) copy_a(ls);
                if (ni == 1 && st == CB) {
                    copy_b(ls);
                    tc_cp_async_commit();
                    if (kt + S < KT) {
                        ga += adv_a;
                        gb += adv_b;
                    }
                }
            }
        }
    };
    for (int64_t kt = 0; kt < KT; kt += S) {
#pragma unroll
        for (int j = 0; j < S; ++j)
            if (kt + j < KT) tile(kt + j, j);
    }
}

/* step(kt, stage) for kt in [0, KT), k-tile kt in stage kt % S: whole rounds of S k-tiles with
 * no test between them (every stage offset a constant), then the last KT % S. The FP64 loops
 * of rungs 12 and 14 run so: on such a straight line ptxas keeps the DMMA results on one
 * scoreboard (tc_mainloop_f64_xmma). */
template <int S, class I, class F>
__device__ __forceinline__ void tc_in_rounds(I KT, F &&step) {
    I kt = 0;
    for (; kt + S <= KT; kt += S) {
#pragma unroll
        for (int j = 0; j < S; ++j) step(kt + j, j);
    }
#pragma unroll
    for (int j = 0; j < S - 1; ++j)
        if (kt + j < KT) step(kt + j, j);
}

/* FP64 main loop with TC_PIPE_XMMA, for the big and deep tiles wholly inside the matrix, k a
 * multiple of BK = 2 DK, 16-byte copies. The STEP loops wait for a k step's fragments right
 * before its mma, with a barrier and a branch around the copies between: while a warp loads,
 * waits or computes addresses its tensor pipe idles. Here two fragment sets alternate by k
 * step, so a step's mma run while the next step's fragments load. Per k-tile in stage cs:
 *   step 0: step 1's A and B fragments (set 1), the copies of k-tile kt + S - 1 (lean, with
 *           the L2 prefetch of 128 bytes cuBLAS's copies use), the 16 mma on set 0;
 *   step 1: wait for k-tile kt + 1, the barrier, the next stage's step 0 fragments (set 0),
 *           the 16 mma on set 1.
 * Every read of stage kt precedes the barrier of iteration kt, so the copies of iteration
 * kt + 1 may refill it; every read of stage kt + 1 follows it. The copies have no branch
 * (past the last k-tile it is copied again, into a buffer nothing reads; the sources advance
 * by a mask), and whole rounds of S k-tiles run with no branch between them (every buffer
 * offset a constant), the last KT % S after them. On this straight line ptxas tracks the
 * DMMA results on one scoreboard with counted waits (DEPBAR.LE), as in cuBLAS's own loop for
 * this tile; with a branch per k-tile (each guarded by kt + j < KT) or loads interleaved
 * with the mma it spread them over the scoreboards of the fragment loads, so that loads and
 * mma waited for DMMA results they do not read (perf/sass_loop.py counts both). One H100:
 * 2-3.5% less time from 2048^3 to 8192^3 than the interleaved order (ROUNDS false), which
 * rung 13 keeps: its stream-K kernel, with more live state, spilled in the loop this way.
 * Each accumulator takes the same mma in the same k order either way: C is bitwise the same. */
template <class Cfg, bool AKC, bool BKC, bool ROUNDS = true>
__device__ __forceinline__ void tc_mainloop_f64_xmma(double (&acc)[Cfg::MI][Cfg::NI][4],
                                                     double *sA, double *sB,
                                                     const mb_gemm_args &p, int64_t m0,
                                                     int64_t n0, int64_t KT, int tid, int wm0,
                                                     int wn0, int lane) {
    static_assert(Cfg::DK == 8 && Cfg::BK == 16 && Cfg::MI >= 2, "XMMA: two m16n8k8 steps");
    constexpr int S = Cfg::STAGES, BK = Cfg::BK, MI = Cfg::MI, NI = Cfg::NI;
    constexpr int AE = Cfg::a_elems(AKC), BE = Cfg::b_elems(BKC);
    /* Copies: the lean interior path of tc_load_tile; a thread's first chunk of A is in
     * row ao (of the tile's outer dimension) at inner offset ai, likewise for B. */
    constexpr int A_OUT = AKC ? Cfg::BM : BK, A_IN = AKC ? BK : Cfg::BM;
    constexpr int A_LDS = AKC ? Cfg::LD_K : Cfg::LD_AM;
    constexpr int B_OUT = BKC ? Cfg::BN : BK, B_IN = BKC ? BK : Cfg::BN;
    constexpr int B_LDS = BKC ? Cfg::LD_K : Cfg::LD_BN;
    const int ao = tid / (A_IN / 2), ai = tid % (A_IN / 2) * 2;
    const int bo = tid / (B_IN / 2), bi = tid % (B_IN / 2) * 2;
    /* Global sources of k-tile S - 1, the first the loop copies (or of the last k-tile, when
     * there are fewer), and the step per k-tile. */
    const int64_t adv_a = AKC ? BK : BK * p.lda, adv_b = BKC ? BK : BK * p.ldb;
    const int64_t k1 = KT < S ? KT - 1 : S - 1;
    const double *ga = (const double *)p.A +
                       (AKC ? (m0 + ao) * p.lda + ai : ao * p.lda + m0 + ai) + k1 * adv_a;
    const double *gb = (const double *)p.B +
                       (BKC ? (n0 + bo) * p.ldb + bi : bo * p.ldb + n0 + bi) + k1 * adv_b;
    double *da = sA + ao * A_LDS + tc_swz<Cfg::SWZ>(ao, ai);
    double *db = sB + bo * B_LDS + tc_swz<Cfg::SWZ>(bo, bi);

    double a0[MI][4], a1[MI][4], b0[NI][2], b1[NI][2];
    auto mma0 = [&](int mi, int n_lo, int n_hi) {
#pragma unroll
        for (int ni = n_lo; ni < n_hi; ++ni) tc_mma_f64<2>(acc[mi][ni], a0[mi], b0[ni]);
    };
    auto mma1 = [&](int mi, int n_lo, int n_hi) {
#pragma unroll
        for (int ni = n_lo; ni < n_hi; ++ni) tc_mma_f64<2>(acc[mi][ni], a1[mi], b1[ni]);
    };
    /* The copies of the k-tile the sources name into buffer ls, one group. */
    auto copy = [&](int ls) {
        tc_copy_lean<double, A_OUT, A_IN, A_LDS, Cfg::NTHREADS, true, Cfg::SWZ>(da + ls * AE, ga,
                                                                              p.lda);
        tc_copy_lean<double, B_OUT, B_IN, B_LDS, Cfg::NTHREADS, true, Cfg::SWZ>(db + ls * BE, gb,
                                                                              p.ldb);
        tc_cp_async_commit();
    };
    /* Groups committed: S - 1 (the prologue); k-tile 0 is group 0. */
    tc_cp_async_wait<S - 2>();
    __syncthreads();
#pragma unroll
    for (int mi = 0; mi < (ROUNDS ? MI : MI - 1); ++mi)
        tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi], sA, wm0, mi, 0, lane);
    tc_gather_b_f64<Cfg, BKC, 2>(b0, sB, wn0, 0, lane);
    /* One k-tile in stage buffer cs (copies into buffer (cs + S - 1) % S); unrolled by S below
     * so that every buffer offset is a constant (fewer live registers). */
    auto steps = [&](int64_t kt, int cs) {
        const int ns = (cs + 1) % S, ls = (cs + S - 1) % S;
        const double *cA = sA + cs * AE, *cB = sB + cs * BE;
        const double *nA = sA + ns * AE, *nB = sB + ns * BE;
        /* step 0: step 1's fragments, the copies of k-tile kt + S - 1, then the mma */
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) tc_gather_a1_f64<Cfg, AKC, 2>(a1[mi], cA, wm0, mi, 8, lane);
        tc_gather_b_f64<Cfg, BKC, 2>(b1, cB, wn0, 8, lane);
        copy(ls);
        /* past the last k-tile the sources stay on it (a mask, not a branch) */
        const int64_t more = -(int64_t)(kt + S < KT);
        ga += adv_a & more;
        gb += adv_b & more;
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) mma0(mi, 0, NI);
        /* step 1: wait for k-tile kt + 1, its step 0 fragments, then the mma */
        tc_cp_async_wait<S - 2>();
        __syncthreads();
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi], nA, wm0, mi, 0, lane);
        tc_gather_b_f64<Cfg, BKC, 2>(b0, nB, wn0, 0, lane);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) mma1(mi, 0, NI);
    };
    /* The same k-tile in the interleaved order (ROUNDS false): each load one mma after the
     * last reader of its register, as in cuBLAS's loop; the copies after mma (1, 0), the wait
     * and the barrier after mma (1, 0) of step 1. */
    auto interleaved = [&](int64_t kt, int cs) {
        const int ns = (cs + 1) % S, ls = (cs + S - 1) % S;
        const double *cA = sA + cs * AE, *cB = sB + cs * BE;
        const double *nA = sA + ns * AE, *nB = sB + ns * BE;
        mma0(0, 0, 1);
        tc_gather_a1_f64<Cfg, AKC, 2>(a0[MI - 1], cA, wm0, MI - 1, 0, lane);
        tc_gather_b_f64<Cfg, BKC, 2>(b1, cB, wn0, 8, lane);
        mma0(0, 1, NI);
#pragma unroll
        for (int mi = 1; mi < MI; ++mi) {
            mma0(mi, 0, 1);
            tc_gather_a1_f64<Cfg, AKC, 2>(a1[mi - 1], cA, wm0, mi - 1, 8, lane);
            if (mi == 1) {
                copy(ls);
                if (kt + S < KT) {
                    ga += adv_a;
                    gb += adv_b;
                }
            }
            mma0(mi, 1, NI);
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            mma1(mi, 0, 1);
            if (mi == 0) {
                tc_gather_a1_f64<Cfg, AKC, 2>(a1[MI - 1], cA, wm0, MI - 1, 8, lane);
            } else if (mi == 1) {
                tc_cp_async_wait<S - 2>();
                __syncthreads();
                tc_gather_b_f64<Cfg, BKC, 2>(b0, nB, wn0, 0, lane);
                tc_gather_a1_f64<Cfg, AKC, 2>(a0[0], nA, wm0, 0, 0, lane);
            } else {
                tc_gather_a1_f64<Cfg, AKC, 2>(a0[mi - 1], nA, wm0, mi - 1, 0, lane);
            }
            mma1(mi, 1, NI);
        }
    };
    if constexpr (!ROUNDS) {
        for (int64_t kt = 0; kt < KT; kt += S) {
#pragma unroll
            for (int j = 0; j < S; ++j)
                if (kt + j < KT) interleaved(kt + j, j);
        }
    } else {
        tc_in_rounds<S>(KT, steps);
    }
}

#endif
