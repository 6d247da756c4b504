/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Accuracy of the TF32 sgemm rungs against an FP64 reference, side by side with cuBLAS FP32.
 *
 * For each shape and input distribution (uniform [-1, 1); and u * 2^e with e uniform in
 * [-10, 10], values spanning six orders of magnitude), on the same float inputs:
 *   ref  = cuBLAS DGEMM on the inputs upcast to double (exact inputs, FP64 arithmetic);
 *   e_s  = |C_cublas_sgemm - ref|_F / |ref|_F   (cuBLAS FP32 SGEMM, CUBLAS_DEFAULT_MATH);
 *   e_x3 = the same for miniblas rung tf32x3 (3xTF32, full-precision math mode);
 *   e_wg = the same for rungs wgmma_tf32x3, tma_tf32x3, pingpong_tf32x3, fastsplit_tf32x3
 *          and promote4_tf32x3 (3xTF32 on wgmma; compute capability 9.0 only; promote4_tf32x3
 *          accumulates over several k steps in the tensor cores, so its bits are its own and
 *          only this rule holds it); pingpong_tf32x3 must also give
 *          bitwise tma_tf32x3's results (the same arithmetic in the same order), and
 *          fastsplit_tf32x3 bitwise pingpong_tf32x3's (its integer split leaves the small
 *          part's low 13 bits set; this holds only if the tensor cores ignore the low 13 bits
 *          of TF32 operands, as CUTLASS's 3xTF32 assumes: a failure here means they do not);
 *   e_tf = the same for rung tf32 (math mode MINIBLAS_MATH_ALLOW_REDUCED_PRECISION).
 * Pass: e_x3 <= 2 * e_s and e_wg <= 2 * e_s (3xTF32 keeps FP32 accuracy) and e_tf < 1e-2
 * (TF32 is reduced, not broken). Each result is poisoned with NaN before the call, so an unwritten element fails.
 * Also printed, not part of the pass rule: the largest elementwise error, max|C - ref| /
 * max|ref|, of each, and its ratio to cuBLAS's (a few bad elements hide in a Frobenius norm).
 * Sizes: n = 256, 1024 and a non-square odd shape; 2048 and 4096 unless MINIBLAS_TEST_QUICK=1
 * (an error growing linearly with K, as a biased accumulation gives, is largest at 4096).
 * Then fastsplit_tf32x3 against pingpong_tf32x3 bit for bit on finite in-range inputs through
 * every path of the kernel (transposes, main-loop check, split-K, tail scan; see
 * fastsplit_bitwise_tests). Then the range guard (x3guard.cuh): inputs 3xTF32 alone gets wrong
 * (near FLT_MAX, overflow, Inf/NaN, subnormal, tiny; and for fastsplit_tf32x3's split a negative
 * NaN, a NaN payload and values that round past FLT_MAX) through auto, wgmma_tf32x3,
 * tma_tf32x3, pingpong_tf32x3, fastsplit_tf32x3, promote4_tf32x3 and tf32x3, each element against rung tuned's
 * Inf/NaN class and an FP32 error bound (see guard_tests below).
 * Ends with "tf32_accuracy: N passed, M failed"; exits 77 without a GPU.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cublas_v2.h>
#include "miniblas.h"
#include "gpu_test_util.h"

#define X3_RUNG "tf32x3"
#define TF32_RUNG "tf32"
#define WG_RUNG "wgmma_tf32x3" /* MINIBLAS_RUNG_NEEDS_SM90A: run on compute capability 9.0 only */
#define TMA_RUNG "tma_tf32x3"  /* the same */
#define PP_RUNG "pingpong_tf32x3" /* the same; bitwise TMA_RUNG's results */
#define FS_RUNG "fastsplit_tf32x3" /* the same; bitwise PP_RUNG's results on finite inputs */
#define PR_RUNG "promote4_tf32x3"  /* the same; FS_RUNG's split, its own accumulation order */
#define N_HOPPER 5
static const char *const hopper_rungs[N_HOPPER] = {WG_RUNG, TMA_RUNG, PP_RUNG, FS_RUNG, PR_RUNG};

/* Elements whose bits differ (NaN payloads included); the first one into first. */
static long bitwise_mismatches(const float *x, const float *y, size_t n, char *first, size_t fl) {
    long bad = 0;
    for (size_t i = 0; i < n; ++i) {
        uint32_t a, b;
        memcpy(&a, &x[i], sizeof a);
        memcpy(&b, &y[i], sizeof b);
        if (a != b && bad++ == 0)
            snprintf(first, fl, "element %zu: %.9g (0x%08x) vs %.9g (0x%08x)", i, (double)x[i],
                     (unsigned)a, (double)y[i], (unsigned)b);
    }
    return bad;
}

static void cublas_check(cublasStatus_t s, const char *what) {
    if (s != CUBLAS_STATUS_SUCCESS) {
        printf("cuBLAS call failed (%d): %s\n", (int)s, what);
        exit(1);
    }
}

/* cuBLAS FP32 SGEMM (default math: no TF32), NN, C = A B into dC (NaN-poisoned first) and hC. */
static void cublas_sgemm_nn(cublasHandle_t cb, int m, int n, int k, const float *dA,
                            const float *dB, float *dC, float *hC) {
    const float onef = 1.0f, zerof = 0.0f;
    size_t mn = (size_t)m * n;
    MBT_CUDA(cudaMemset(dC, 0xff, mn * sizeof(float)));
    cublas_check(cublasSgemm(cb, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &onef, dA, m, dB, k, &zerof,
                             dC, m),
                 "cublasSgemm");
    mbt_device_sync();
    mbt_d2h(hC, dC, mn * sizeof(float));
}

/* uniform [-1, 1), or u * 2^e with e uniform in [-10, 10] (wide). */
static void fill(float *x, size_t n, int wide) {
    for (size_t i = 0; i < n; ++i) {
        double u = mbt_rand_uniform();
        if (wide) u = ldexp(u, (int)(mbt_rand_u64() % 21) - 10);
        x[i] = (float)u;
    }
}

/* Relative Frobenius error; *maxerr = max|c - ref| / max|ref| (NaN stays NaN in both). */
static double rel_frob(const float *c, const double *ref, size_t n, double *maxerr) {
    double num = 0, den = 0, emax = 0, rmax = 0;
    for (size_t i = 0; i < n; ++i) {
        double d = (double)c[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
        if (isnan(d) || fabs(d) > emax) emax = fabs(d); /* a NaN sticks */
        if (fabs(ref[i]) > rmax) rmax = fabs(ref[i]);
    }
    *maxerr = rmax > 0 ? emax / rmax : emax;
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Runs rung `rung` of miniblas sgemm (column-major, no transposes) into dC, returns the
 * relative Frobenius error against ref (NaN if an element was left unwritten), or CALL_FAILED
 * (after recording the failure) if the call itself failed. */
#define CALL_FAILED (-1.0)
static double run_rung(miniblas_handle_t h, const char *rung, int reduced, int m, int n, int k,
                       const float *dA, const float *dB, float *dC, float *hC, const double *ref,
                       const char *kase, double *maxerr) {
    *maxerr = CALL_FAILED;
    size_t mn = (size_t)m * n;
    MBT_CUDA(cudaMemset(dC, 0xff, mn * sizeof(float))); /* NaN everywhere */
    miniblas_status_t st = miniblas_set_math_mode(
        h, reduced ? MINIBLAS_MATH_ALLOW_REDUCED_PRECISION : MINIBLAS_MATH_DEFAULT);
    if (st == MINIBLAS_STATUS_SUCCESS) st = miniblas_set_rung(h, MINIBLAS_OP_SGEMM, rung);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, "sgemm", kase, "selecting rung %s: %s", rung, miniblas_last_error(h));
        return CALL_FAILED;
    }
    mbt_context("sgemm rung %s %s", rung, kase);
    st = miniblas_sgemm(h, MiniblasColMajor, MiniblasNoTrans, MiniblasNoTrans, m, n, k, 1.0f, dA,
                        m, dB, k, 0.0f, dC, m);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, "sgemm", kase, "rung %s returned %s: %s", rung,
                 miniblas_status_string(st), miniblas_last_error(h));
        return CALL_FAILED;
    }
    const char *ran = miniblas_last_rung(h, MINIBLAS_OP_SGEMM);
    mbt_expect(NULL, ran && strcmp(ran, rung) == 0, "sgemm", kase, "rung %s selected, %s ran", rung,
               ran ? ran : "(null)");
    mbt_device_sync();
    mbt_d2h(hC, dC, mn * sizeof(float));
    return rel_frob(hC, ref, mn, maxerr);
}

static void one_case(miniblas_handle_t h, cublasHandle_t cb, int m, int n, int k, int wide,
                     int hopper) {
    char kase[96];
    snprintf(kase, sizeof kase, "%dx%dx%d %s", m, n, k, wide ? "u*2^[-10,10]" : "uniform[-1,1]");
    size_t mk = (size_t)m * k, kn = (size_t)k * n, mn = (size_t)m * n;
    float *hA = mbt_host_alloc(mk * sizeof(float)), *hB = mbt_host_alloc(kn * sizeof(float));
    float *hC = mbt_host_alloc(mn * sizeof(float));
    double *hAd = mbt_host_alloc(mk * sizeof(double)), *hBd = mbt_host_alloc(kn * sizeof(double));
    double *ref = mbt_host_alloc(mn * sizeof(double));
    fill(hA, mk, wide);
    fill(hB, kn, wide);
    for (size_t i = 0; i < mk; ++i) hAd[i] = hA[i];
    for (size_t i = 0; i < kn; ++i) hBd[i] = hB[i];

    float *dA = mbt_dev_alloc(mk * sizeof(float)), *dB = mbt_dev_alloc(kn * sizeof(float));
    float *dC = mbt_dev_alloc(mn * sizeof(float));
    double *dAd = mbt_dev_alloc(mk * sizeof(double)), *dBd = mbt_dev_alloc(kn * sizeof(double));
    double *dCd = mbt_dev_alloc(mn * sizeof(double));
    mbt_h2d(dA, hA, mk * sizeof(float));
    mbt_h2d(dB, hB, kn * sizeof(float));
    mbt_h2d(dAd, hAd, mk * sizeof(double));
    mbt_h2d(dBd, hBd, kn * sizeof(double));

    /* FP64 reference of the product of the float inputs (exact in double). */
    const double one = 1.0, zero = 0.0;
    cublas_check(cublasDgemm(cb, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dAd, m, dBd, k, &zero,
                             dCd, m),
                 "cublasDgemm");
    mbt_device_sync();
    mbt_d2h(ref, dCd, mn * sizeof(double));

    cublas_sgemm_nn(cb, m, n, k, dA, dB, dC, hC);
    double m_s, m_x3, m_tf;
    double e_s = rel_frob(hC, ref, mn, &m_s);

    double e_x3 = run_rung(h, X3_RUNG, 0, m, n, k, dA, dB, dC, hC, ref, kase, &m_x3);
    double e_tf = run_rung(h, TF32_RUNG, 1, m, n, k, dA, dB, dC, hC, ref, kase, &m_tf);
    printf("%-34s rel. Frobenius error: cublas_sgemm %.3e  %s %.3e (%.2fx)  %s %.3e\n", kase, e_s,
           X3_RUNG, e_x3, e_x3 / e_s, TF32_RUNG, e_tf);
    printf("%-34s max elementwise err:  cublas_sgemm %.3e  %s %.3e (%.2fx)  %s %.3e\n", "", m_s,
           X3_RUNG, m_x3, m_x3 / m_s, TF32_RUNG, m_tf);
    /* A NaN error (an unwritten element) fails these comparisons. */
    if (e_x3 != CALL_FAILED)
        mbt_expect(NULL, e_x3 <= 2.0 * e_s, "sgemm", kase,
                   "%s error %.3e exceeds 2 x cuBLAS FP32 SGEMM's %.3e", X3_RUNG, e_x3, e_s);
    if (e_tf != CALL_FAILED)
        mbt_expect(NULL, e_tf < 1e-2, "sgemm", kase, "%s error %.3e not below 1e-2", TF32_RUNG,
                   e_tf);
    float *hT = mbt_host_alloc(mn * sizeof(float)); /* TMA_RUNG's result */
    float *hP = mbt_host_alloc(mn * sizeof(float)); /* PP_RUNG's result */
    int have_t = 0, have_p = 0;
    for (int r = 0; hopper && r < N_HOPPER; ++r) {
        double m_wg;
        const char *wg = hopper_rungs[r];
        double e_wg = run_rung(h, wg, 0, m, n, k, dA, dB, dC, hC, ref, kase, &m_wg);
        printf("%-34s rel. Frobenius error: %s %.3e (%.2fx cuBLAS); max elementwise err %.3e "
               "(%.2fx)\n",
               "", wg, e_wg, e_wg / e_s, m_wg, m_wg / m_s);
        if (e_wg == CALL_FAILED) continue;
        mbt_expect(NULL, e_wg <= 2.0 * e_s, "sgemm", kase,
                   "%s error %.3e exceeds 2 x cuBLAS FP32 SGEMM's %.3e", wg, e_wg, e_s);
        if (strcmp(wg, TMA_RUNG) == 0) {
            memcpy(hT, hC, mn * sizeof(float));
            have_t = 1;
        } else if ((strcmp(wg, PP_RUNG) == 0 && have_t) || (strcmp(wg, FS_RUNG) == 0 && have_p)) {
            const int pp = strcmp(wg, PP_RUNG) == 0;
            const char *base = pp ? TMA_RUNG : PP_RUNG;
            char first[160] = "";
            const long bad = bitwise_mismatches(hC, pp ? hT : hP, mn, first, sizeof first);
            printf("%-34s %s vs %s: %ld elements differ in their bits%s%s\n", "", wg, base, bad,
                   bad ? ", first " : "", first);
            mbt_expect(NULL, bad == 0, "sgemm", kase, "%s: %ld elements differ from %s's (%s)",
                       wg, bad, base, first);
        }
        if (strcmp(wg, PP_RUNG) == 0) {
            memcpy(hP, hC, mn * sizeof(float));
            have_p = 1;
        }
    }
    free(hT);
    free(hP);

    mbt_dev_free(dA);
    mbt_dev_free(dB);
    mbt_dev_free(dC);
    mbt_dev_free(dAd);
    mbt_dev_free(dBd);
    mbt_dev_free(dCd);
    free(hA);
    free(hB);
    free(hC);
    free(hAd);
    free(hBd);
    free(ref);
}

/* IEEE special values through the 3xTF32 rungs: A and B uniform [-1, 1) with +-Inf, NaN,
 * values near FLT_MAX (3e38, 1e30) and subnormals (1e-40) planted. Reference in double on the
 * CPU (no overflow is possible at these magnitudes, so its Inf/NaN pattern is FP32's). Each
 * element of C must be NaN exactly where the reference is, +-Inf exactly where it is (same
 * sign), and elsewhere within 2 k eps_f sum_k |a||b| of it. cuBLAS FP32 SGEMM is checked the
 * same way and printed (a mismatch there would mean the expectation is wrong). */
static int special_mismatches(const float *c, const double *ref, const double *bound, size_t n,
                              char *first, size_t first_len) {
    int bad = 0;
    for (size_t i = 0; i < n; ++i) {
        double r = ref[i], v = c[i];
        int ok = isnan(r) ? isnan(v)
                 : isinf(r) ? (isinf(v) && (v > 0) == (r > 0))
                            : (!isnan(v) && !isinf(v) && fabs(v - r) <= bound[i]);
        if (!ok && bad++ == 0)
            snprintf(first, first_len, "element %zu: %g, reference %g (bound %.3g)", i, v, r,
                     bound[i]);
    }
    return bad;
}

static void special_case(miniblas_handle_t h, cublasHandle_t cb, int hopper) {
    const int m = 300, n = 257, k = 129;
    const char *kase = "300x257x129 Inf/NaN/huge/subnormal";
    size_t mk = (size_t)m * k, kn = (size_t)k * n, mn = (size_t)m * n;
    float *hA = mbt_host_alloc(mk * sizeof(float)), *hB = mbt_host_alloc(kn * sizeof(float));
    float *hC = mbt_host_alloc(mn * sizeof(float));
    double *ref = mbt_host_alloc(mn * sizeof(double)), *bound = mbt_host_alloc(mn * sizeof(double));
    fill(hA, mk, 0);
    fill(hB, kn, 0);
    /* A(i, p) at i + p m, B(p, j) at p + j k */
    hA[5 + 3 * (size_t)m] = INFINITY;            /* row 5: +Inf */
    hA[7 + 10 * (size_t)m] = -INFINITY;          /* row 7: -Inf ... */
    hA[7 + 11 * (size_t)m] = INFINITY;           /* ... and +Inf: Inf - Inf = NaN wherever both meet */
    hB[20 + 9 * (size_t)k] = NAN;                /* column 9: NaN */
    hB[3 + 40 * (size_t)k] = 0.0f;               /* column 40: Inf * 0 = NaN in row 5 */
    hB[11 + 41 * (size_t)k] = 0.0f;              /* column 41: +Inf * 0 = NaN in row 7 */
    hA[100 + 50 * (size_t)m] = 3.0e38f;          /* near FLT_MAX */
    hA[101 + 51 * (size_t)m] = -1.0e30f;
    hB[60 + 70 * (size_t)k] = 2.5e37f;
    hA[150 + 2 * (size_t)m] = 1.0e-40f;          /* subnormals */
    hB[2 + 3 * (size_t)k] = -1.0e-40f;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double sum = 0, mag = 0;
            for (int p = 0; p < k; ++p) {
                double t = (double)hA[i + (size_t)p * m] * (double)hB[p + (size_t)j * k];
                sum += t;
                if (!isnan(t) && !isinf(t)) mag += fabs(t);
            }
            ref[i + (size_t)j * m] = sum;
            bound[i + (size_t)j * m] = 2.0 * k * 0x1p-24 * mag;
        }
    float *dA = mbt_dev_alloc(mk * sizeof(float)), *dB = mbt_dev_alloc(kn * sizeof(float));
    float *dC = mbt_dev_alloc(mn * sizeof(float));
    mbt_h2d(dA, hA, mk * sizeof(float));
    mbt_h2d(dB, hB, kn * sizeof(float));
    char first[160] = "";

    cublas_sgemm_nn(cb, m, n, k, dA, dB, dC, hC);
    int bad = special_mismatches(hC, ref, bound, mn, first, sizeof first);
    printf("%-34s cublas_sgemm: %d mismatches%s%s\n", kase, bad, bad ? ", first " : "", first);

    const char *rungs[1 + N_HOPPER] = {X3_RUNG, WG_RUNG, TMA_RUNG, PP_RUNG, FS_RUNG, PR_RUNG};
    for (int r = 0; r < (hopper ? 1 + N_HOPPER : 1); ++r) {
        double maxerr;
        if (run_rung(h, rungs[r], 0, m, n, k, dA, dB, dC, hC, ref, kase, &maxerr) == CALL_FAILED)
            continue;
        bad = special_mismatches(hC, ref, bound, mn, first, sizeof first);
        printf("%-34s %s: %d mismatches%s%s\n", "", rungs[r], bad, bad ? ", first " : "", first);
        mbt_expect(NULL, bad == 0, "sgemm", kase, "%s: %d elements differ from IEEE FP32 (%s)",
                   rungs[r], bad, first);
    }
    mbt_dev_free(dA);
    mbt_dev_free(dB);
    mbt_dev_free(dC);
    free(hA);
    free(hB);
    free(hC);
    free(ref);
    free(bound);
}

/* ---------------------------------------------------------------------------------------
 * The 3xTF32 range guard (kernels/gemm/x3guard.cuh): the default sgemm (`auto`) and the
 * 3xTF32 rungs must give, for every input, the result class of an FP32 SIMT gemm and FP32
 * accuracy. Inputs that 3xTF32 alone gets wrong: a finite a*b whose TF32 high parts multiply
 * past FLT_MAX (2.55e38 * 1.3336), products that overflow in FP32 too, subnormal and tiny
 * normal inputs (the tensor cores flush; small parts underflow), Inf and NaN anywhere.
 * For each case (transposes, padded leading dimensions with NaN in the padding of A and B and
 * a sentinel in C's, alpha, beta; beta == 0 runs with NaN in C):
 *   class reference: miniblas rung `tuned` (FP32 SIMT, FMA in k order) on the same call: each
 *     element must be NaN exactly where it is NaN, +-Inf exactly where it is (same sign),
 *     finite where it is finite;
 *   value reference: cuBLAS DGEMM of the float inputs upcast (exact products, FP64 sums), and
 *     mag = |alpha| sum_p |a_ip||b_pj| + |beta c_ij| (DGEMM of |A|, |B|). A finite element must
 *     satisfy |c - ref| <= 2 (k + 2) eps_f mag + 2 (k + 2) 2^-149: an FP32 inner product of k
 *     terms has error <= k eps_f sum|a b| plus, per operation, half a subnormal quantum 2^-150
 *     where a result falls below 2^-126 (gradual underflow); the factor 2 is the slack 3xTF32
 *     takes on normal inputs everywhere in this test. A flushed subnormal product (1e-40 and
 *     more) or a lost small part (2^-11 relative) exceeds it.
 * The C padding must keep its sentinel (nothing written outside C). `tuned` itself is held to
 * the same bound (a failure there means the reference or the bound is wrong).
 * ------------------------------------------------------------------------------------- */
#define SENTINEL 12345.0f

static int fclass(double v) { return isnan(v) ? 2 : isinf(v) ? (v > 0 ? 3 : 4) : 0; }

/* Runs `rung` ("auto" allowed) on the stored operands, C uploaded from hC0s first; the result
 * (stored layout, ldc) into out. Returns 0 when the call failed (recorded). */
static int guard_run(miniblas_handle_t h, const char *rung, const char *kase, int ta, int tb,
                     int m, int n, int k, float alpha, const float *dA, int lda, const float *dB,
                     int ldb, float beta, float *dC, int ldc, const float *hC0s, float *out,
                     char *ran_out, size_t ran_len) {
    const size_t cs = (size_t)ldc * n;
    mbt_h2d(dC, hC0s, cs * sizeof(float));
    miniblas_status_t st = miniblas_set_math_mode(h, MINIBLAS_MATH_DEFAULT);
    if (st == MINIBLAS_STATUS_SUCCESS) st = miniblas_set_rung(h, MINIBLAS_OP_SGEMM, rung);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, "sgemm", kase, "selecting rung %s: %s", rung, miniblas_last_error(h));
        return 0;
    }
    mbt_context("sgemm rung %s %s", rung, kase);
    st = miniblas_sgemm(h, MiniblasColMajor, ta ? MiniblasTrans : MiniblasNoTrans,
                        tb ? MiniblasTrans : MiniblasNoTrans, m, n, k, alpha, dA, lda, dB, ldb,
                        beta, dC, ldc);
    if (st != MINIBLAS_STATUS_SUCCESS) {
        mbt_fail(NULL, "sgemm", kase, "rung %s returned %s: %s", rung, miniblas_status_string(st),
                 miniblas_last_error(h));
        return 0;
    }
    const char *ran = miniblas_last_rung(h, MINIBLAS_OP_SGEMM);
    snprintf(ran_out, ran_len, "%s", ran ? ran : "(null)");
    if (strcmp(rung, "auto") != 0)
        mbt_expect(NULL, ran && strcmp(ran, rung) == 0, "sgemm", kase, "rung %s selected, %s ran",
                   rung, ran ? ran : "(null)");
    mbt_device_sync();
    mbt_d2h(out, dC, cs * sizeof(float));
    return 1;
}

/* Mismatches of out against the class reference cls and the value reference. */
static long guard_compare(const float *out, const float *cls, const double *ref, const double *bnd,
                          int m, int n, int ldc, char *first, size_t first_len) {
    long bad = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ldc; ++i) {
            const size_t e = i + (size_t)j * ldc;
            int ok;
            if (i >= m)
                ok = out[e] == SENTINEL;
            else if (fclass(cls[e]) != 0)
                ok = fclass(out[e]) == fclass(cls[e]);
            else
                ok = fclass(out[e]) == 0 && fabs((double)out[e] - ref[e]) <= bnd[e];
            if (!ok && bad++ == 0)
                snprintf(first, first_len, "C(%d,%d) = %.9g, SIMT FP32 %.9g, FP64 %.9g (bound %.3g)",
                         i, j, out[e], cls[e], i < m ? ref[e] : 0.0, i < m ? bnd[e] : 0.0);
        }
    return bad;
}

/* One case: op(A) (m x k, element (i, p) at i + p m) and op(B) (k x n, (p, j) at p + j k) and
 * C0 (m x n) given logically; stored with the transposes and `pad` extra rows of leading
 * dimension (A's and B's padding NaN, C's SENTINEL). */
static void guard_case(miniblas_handle_t h, cublasHandle_t cb, const char *what, int ta, int tb,
                       int m, int n, int k, int pad, float alpha, float beta, const float *opA,
                       const float *opB, const float *C0, int hopper) {
    char kase[160];
    snprintf(kase, sizeof kase, "%s %dx%dx%d %c%c pad %d alpha %g beta %g", what, m, n, k,
             ta ? 'T' : 'N', tb ? 'T' : 'N', pad, alpha, beta);
    const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int lda = ar + pad, ldb = br + pad, ldc = m + pad;
    const size_t as = (size_t)lda * ac, bs = (size_t)ldb * bc, cs = (size_t)ldc * n;
    float *hA = mbt_host_alloc(as * sizeof(float)), *hB = mbt_host_alloc(bs * sizeof(float));
    float *hC0 = mbt_host_alloc(cs * sizeof(float)), *out = mbt_host_alloc(cs * sizeof(float));
    float *cls = mbt_host_alloc(cs * sizeof(float));
    double *hAd = mbt_host_alloc(as * sizeof(double)), *hBd = mbt_host_alloc(bs * sizeof(double));
    double *ref = mbt_host_alloc(cs * sizeof(double)), *bnd = mbt_host_alloc(cs * sizeof(double));
    for (size_t e = 0; e < as; ++e) hA[e] = NAN;
    for (size_t e = 0; e < bs; ++e) hB[e] = NAN;
    for (int i = 0; i < m; ++i)
        for (int p = 0; p < k; ++p)
            hA[ta ? p + (size_t)i * lda : i + (size_t)p * lda] = opA[i + (size_t)p * m];
    for (int p = 0; p < k; ++p)
        for (int j = 0; j < n; ++j)
            hB[tb ? j + (size_t)p * ldb : p + (size_t)j * ldb] = opB[p + (size_t)j * k];
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ldc; ++i)
            hC0[i + (size_t)j * ldc] = i < m ? (beta == 0.0f ? NAN : C0[i + (size_t)j * m]) : SENTINEL;

    float *dA = mbt_dev_alloc(as * sizeof(float)), *dB = mbt_dev_alloc(bs * sizeof(float));
    float *dC = mbt_dev_alloc(cs * sizeof(float));
    double *dAd = mbt_dev_alloc(as * sizeof(double)), *dBd = mbt_dev_alloc(bs * sizeof(double));
    double *dCd = mbt_dev_alloc(cs * sizeof(double));
    /* the reference's padding rows are never written by cuBLAS but are copied back whole */
    MBT_CUDA(cudaMemset(dCd, 0, cs * sizeof(double)));
    mbt_h2d(dA, hA, as * sizeof(float));
    mbt_h2d(dB, hB, bs * sizeof(float));

    /* FP64 value reference and magnitudes (padding NaN is never read by a BLAS). */
    const double a64 = alpha, one = 1.0, zero = 0.0;
    const cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t e = 0; e < as; ++e) hAd[e] = pass ? fabs((double)hA[e]) : hA[e];
        for (size_t e = 0; e < bs; ++e) hBd[e] = pass ? fabs((double)hB[e]) : hB[e];
        mbt_h2d(dAd, hAd, as * sizeof(double));
        mbt_h2d(dBd, hBd, bs * sizeof(double));
        cublas_check(cublasDgemm(cb, oa, ob, m, n, k, pass ? &one : &a64, dAd, lda, dBd, ldb,
                                 &zero, dCd, ldc),
                     "cublasDgemm");
        mbt_device_sync();
        mbt_d2h(pass ? bnd : ref, dCd, cs * sizeof(double));
    }
    const double eps = 0x1p-24, q = 0x1p-149;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const size_t e = i + (size_t)j * ldc;
            const double c0 = beta == 0.0f ? 0.0 : (double)hC0[e];
            ref[e] += (double)beta * c0;
            const double mag = fabs((double)alpha) * bnd[e] + fabs((double)beta * c0);
            bnd[e] = 2.0 * (k + 2) * (eps * mag + q);
        }

    char first[256] = "", ran[64] = "";
    long bad;
    if (guard_run(h, "tuned", kase, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, hC0,
                  cls, ran, sizeof ran)) {
        bad = guard_compare(cls, cls, ref, bnd, m, n, ldc, first, sizeof first);
        mbt_expect(NULL, bad == 0, "sgemm", kase,
                   "reference rung tuned: %ld elements outside the FP32 bound (%s)", bad, first);
        const char *rungs[2 + N_HOPPER] = {"auto", WG_RUNG, TMA_RUNG, PP_RUNG, FS_RUNG, PR_RUNG,
                                           X3_RUNG};
        for (int r = 0; r < 2 + N_HOPPER; ++r) {
            if (r >= 1 && r <= N_HOPPER && !hopper) continue;
            if (!guard_run(h, rungs[r], kase, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC,
                           ldc, hC0, out, ran, sizeof ran))
                continue;
            first[0] = 0;
            bad = guard_compare(out, cls, ref, bnd, m, n, ldc, first, sizeof first);
            mbt_expect(NULL, bad == 0, "sgemm", kase, "%s (ran %s): %ld elements differ from FP32 (%s)",
                       rungs[r], ran, bad, first);
            if (bad) printf("%-48s %s (ran %s): %ld mismatches, first %s\n", kase, rungs[r], ran, bad, first);
        }
    }
    printf("guard %-64s done\n", kase);
    mbt_dev_free(dA);
    mbt_dev_free(dB);
    mbt_dev_free(dC);
    mbt_dev_free(dAd);
    mbt_dev_free(dBd);
    mbt_dev_free(dCd);
    free(hA);
    free(hB);
    free(hC0);
    free(out);
    free(cls);
    free(hAd);
    free(hBd);
    free(ref);
    free(bnd);
}

/* Input kinds for one operand (logical r x c, column-major). */
enum { G_UNIFORM, G_SUBNORMAL, G_SUBNORMAL_MIXED, G_TINY100, G_TINY60 };
static void gfill(float *x, int r, int c, int kind) {
    const size_t nel = (size_t)r * c;
    for (size_t e = 0; e < nel; ++e) {
        const double u = mbt_rand_uniform();
        switch (kind) {
        case G_SUBNORMAL: x[e] = (float)ldexp(u, -127 - (int)(mbt_rand_u64() % 20)); break;
        case G_SUBNORMAL_MIXED: /* a quarter subnormal, the rest normal around 1 */
            x[e] = (float)(mbt_rand_u64() % 4 == 0 ? ldexp(u, -128 - (int)(mbt_rand_u64() % 16)) : u);
            break;
        case G_TINY100: x[e] = (float)ldexp(u, -100); break;
        case G_TINY60: x[e] = (float)ldexp(u, -60); break;
        default: x[e] = (float)u; break;
        }
    }
}

/* One guard case with freshly filled operands; plant(opA, opB, m, n, k) adds special values. */
typedef void (*gplant_fn)(float *A, float *B, int m, int n, int k);
static void guard_fill_run(miniblas_handle_t h, cublasHandle_t cb, const char *what, int ta, int tb,
                           int m, int n, int k, int pad, float alpha, float beta, int akind,
                           int bkind, gplant_fn plant, int hopper) {
    float *A = mbt_host_alloc((size_t)m * k * sizeof(float));
    float *B = mbt_host_alloc((size_t)k * n * sizeof(float));
    float *C0 = mbt_host_alloc((size_t)m * n * sizeof(float));
    gfill(A, m, k, akind);
    gfill(B, k, n, bkind);
    gfill(C0, m, n, G_UNIFORM);
    if (plant) plant(A, B, m, n, k);
    guard_case(h, cb, what, ta, tb, m, n, k, pad, alpha, beta, A, B, C0, hopper);
    free(A);
    free(B);
    free(C0);
}

#define GA(i, p) A[(i) + (size_t)(p) * m]
#define GB(p, j) B[(p) + (size_t)(j) * k]
/* Near FLT_MAX: 2.55e38 * 1.3336 = 3.4007e38 (finite; its TF32 high parts overflow), 2^64 * 1.8e19
 * (just below FLT_MAX), and products that overflow in FP32 too (+Inf and -Inf). */
static void plant_huge(float *A, float *B, int m, int n, int k) {
    (void)n;
    GA(5, 3) = 2.55e38f;
    GB(3, 7) = 1.3336f;
    GA(9 % m, 4 % k) = 18446744073709551616.0f;
    GB(4 % k, 8) = 1.8e19f;
    GA(11 % m, 6 % k) = 3.0e38f;
    GA(12 % m, 6 % k) = -3.0e38f;
    GB(6 % k, 2) = 2.0f;
    GB(7 % k, 10) = -3.0e38f;
    GA(m - 1, 7 % k) = 1.5f; /* -4.5e38: -Inf in the last row, column 10 */
}
/* Inf and NaN anywhere: a row of A with +Inf, one with +Inf and -Inf (NaN where both meet),
 * Inf * 0, a NaN column of B, a NaN in the last row / column, a tiny and a huge element. */
static void plant_inf_nan(float *A, float *B, int m, int n, int k) {
    GA(1, 0) = INFINITY;
    GA(2, 1) = -INFINITY;
    GA(2, 2) = INFINITY;
    GB(0, 3) = 0.0f; /* Inf * 0 = NaN at (1, 3) */
    GB(5 % k, n / 2) = NAN;
    GA(m - 1, k - 1) = NAN;
    GB(k - 1, n - 1) = INFINITY;
    GA(m / 2, k / 2) = 1e-42f;
    GB(k / 3, n / 3) = 7.0e20f;
}
/* One bad row (subnormal: its results are tiny, so a flushed product shows) in a large,
 * otherwise normal problem: only its tile row is recomputed. */
static void plant_one_subnormal(float *A, float *B, int m, int n, int k) {
    (void)B;
    (void)n;
    for (int p = 0; p < k; ++p) GA(m / 2 + 3, p) = (float)(3.0e-39 * mbt_rand_uniform());
}
static void plant_one_each(float *A, float *B, int m, int n, int k) {
    GA(m / 2 + 3, k - 2) = 3.0e-39f;   /* subnormal: its tile row */
    GB(k / 2, n - 5) = INFINITY;       /* Inf: column n - 5 non-finite */
    GA(3, k / 3) = 2.55e38f;           /* huge: row 3 */
}
/* Bad elements in the first, a middle and the last tile row (the last tiles in launch order
 * are the ones the tail split cuts), in the first and last k slice. */
static void plant_rows(float *A, float *B, int m, int n, int k) {
    (void)B;
    (void)n;
    GA(5, 0) = 1e-40f;
    GA(m / 2, k / 2) = -2.0e-39f;
    GA(m - 6, k - 1) = 1e-41f;
    GA(m - 130 > 0 ? m - 130 : 0, k - 3) = 5e-45f;
}
/* The guard at the edges of its panels: single Inf / NaN in the last, partial row panel of
 * op(A) at the last k, at the first and the last k of a 32-deep k-tile in other row panels, in the first column of op(B) at k = 0 and in the last, partial
 * column panel at the last k. Every tile holding one must come out as FP32 gives it (Inf,
 * NaN; 3xTF32 gives NaN for an Inf), and the tiles between (row panels 0 and 3, column panels
 * 1 and 2 for the larger shapes) are computed by the tensor cores. */
static void plant_panel_edges(float *A, float *B, int m, int n, int k) {
    GA(m - 1, k - 1) = INFINITY;
    GA(200 % m, 32 % k) = -INFINITY;
    GA(300 % m, 63 % k) = NAN;
    GB(0, 0) = INFINITY;
    GB(k - 1, n - 1) = NAN;
}
/* The inputs on which fastsplit_tf32x3's integer split differs from cvt.rna.satfinite (the
 * guard must recompute their tiles): a negative NaN with every payload bit set (+ 0x1000
 * wraps it to a zero big part), a NaN whose payload is in the low 13 bits only (big part
 * Inf), 0x1.ffep127 and -FLT_MAX (they round past FLT_MAX: big part Inf, small -Inf), -Inf;
 * times B elements below 1, so the FP32 products stay finite. */
static float f_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static void plant_fastsplit(float *A, float *B, int m, int n, int k) {
    GA(3, 5 % k) = f_bits(0xffffffffu);
    GA(m - 2, 1 % k) = f_bits(0x7f800001u);
    GA(m / 2, k - 1) = f_bits(0x7f7ff000u);
    GB(k / 3, n / 3) = -FLT_MAX;
    GB(k / 2, n - 1) = -INFINITY;
}
#undef GA
#undef GB

static void guard_tests(miniblas_handle_t h, cublasHandle_t cb, int hopper) {
    const int quick = mbt_quick();
    /* near FLT_MAX and overflow, all transposes, odd sizes, padding, beta 0 / not */
    for (int t = 0; t < 4; ++t)
        guard_fill_run(h, cb, "huge", t & 1, t >> 1, 257, 131, 1029, t == 3 ? 0 : 3, 1.0f,
                       t & 1 ? 0.5f : 0.0f, G_UNIFORM, G_UNIFORM, plant_huge, hopper);
    guard_fill_run(h, cb, "huge", 0, 0, 300, 260, 200, 0, -1.5f, -2.0f, G_UNIFORM, G_UNIFORM,
                   plant_huge, hopper);
    /* Inf / NaN anywhere */
    for (int t = 0; t < 4; ++t)
        guard_fill_run(h, cb, "inf-nan", t & 1, t >> 1, 257, 131, 1029, 5, 1.0f,
                       t == 2 ? 1.0f : 0.0f, G_UNIFORM, G_UNIFORM, plant_inf_nan, hopper);
    /* subnormal and tiny inputs */
    guard_fill_run(h, cb, "all-subnormal", 0, 0, 256, 256, 256, 0, 1.0f, 0.0f, G_SUBNORMAL,
                   G_SUBNORMAL, NULL, hopper);
    guard_fill_run(h, cb, "subnormal A, normal B", 0, 1, 257, 131, 1029, 1, 1.0f, 0.0f,
                   G_SUBNORMAL, G_UNIFORM, NULL, hopper);
    guard_fill_run(h, cb, "mixed subnormal", 1, 0, 300, 200, 515, 2, 1.0f, 0.25f,
                   G_SUBNORMAL_MIXED, G_SUBNORMAL_MIXED, NULL, hopper);
    /* (k small: 3xTF32's lost small parts, ~2^-12 relative, exceed 2 k eps only for k below
     * a few hundred) */
    guard_fill_run(h, cb, "tiny 2^-100 x 1", 1, 1, 257, 131, 100, 0, 1.0f, 0.0f, G_TINY100,
                   G_UNIFORM, NULL, hopper);
    guard_fill_run(h, cb, "tiny 2^-60 x 2^-60", 0, 0, 256, 384, 72, 0, 1.0f, 0.0f, G_TINY60,
                   G_TINY60, NULL, hopper);
    /* one bad element in a large normal problem: the whole C checked */
    guard_fill_run(h, cb, "one subnormal", 0, 0, quick ? 1024 : 2048, quick ? 1024 : 2048, 512, 0,
                   1.0f, 0.0f, G_UNIFORM, G_UNIFORM, plant_one_subnormal, hopper);
    guard_fill_run(h, cb, "one of each", 1, 0, quick ? 1024 : 2048, quick ? 768 : 1536, 384, 4,
                   0.75f, 1.0f, G_UNIFORM, G_UNIFORM, plant_one_each, hopper);
    /* split-K (few tiles, deep k) and the tail split (144 tiles: one wave of 132 + 12) */
    guard_fill_run(h, cb, "split-K", 0, 0, 2048, 64, quick ? 2048 : 4096, 0, 1.0f, 0.5f,
                   G_UNIFORM, G_UNIFORM, plant_rows, hopper);
    guard_fill_run(h, cb, "split-K", 1, 1, 1000, 100, 3000, 3, 1.0f, 0.0f, G_UNIFORM, G_UNIFORM,
                   plant_rows, hopper);
    guard_fill_run(h, cb, "tail split", 0, 0, 1536, 1536, 1024, 0, 1.0f, 0.5f, G_UNIFORM,
                   G_UNIFORM, plant_rows, hopper);
    guard_fill_run(h, cb, "tail split", 1, 0, 1536, 1536, 1024, 2, 1.0f, 0.0f, G_UNIFORM,
                   G_UNIFORM, plant_one_each, hopper);
    /* panel edges: odd sizes (partial last panels and 16-byte units), every
     * transpose, lda / ldb padded by 0 and 4 (16-byte loads) and by 1 and 3 (scalar loads),
     * k not a multiple of the k-tile; 517x389 is split in k, 1157x1029 is not; k = 5: one
     * partial k-tile */
    for (int t = 0; t < 4; ++t) {
        static const int pads[4] = {0, 3, 4, 1};
        guard_fill_run(h, cb, "panel edges", t & 1, t >> 1, 517, 389, 1031, pads[t], 1.0f,
                       t == 1 ? 0.5f : 0.0f, G_UNIFORM, G_UNIFORM, plant_panel_edges, hopper);
        guard_fill_run(h, cb, "panel edges", t & 1, t >> 1, 1157, 1029, 301, pads[3 - t], 1.0f,
                       t == 2 ? -1.0f : 0.0f, G_UNIFORM, G_UNIFORM, plant_panel_edges, hopper);
    }
    guard_fill_run(h, cb, "panel edges", 1, 0, 130, 129, 5, 1, 1.0f, 0.0f, G_UNIFORM, G_UNIFORM,
                   plant_panel_edges, hopper);
    /* fastsplit_tf32x3's special inputs: main-loop check, split-K (operands copied: pad 3),
     * tail scan */
    guard_fill_run(h, cb, "fastsplit specials", 0, 0, 1157, 1029, 301, 0, 1.0f, 0.0f, G_UNIFORM,
                   G_UNIFORM, plant_fastsplit, hopper);
    guard_fill_run(h, cb, "fastsplit specials", 1, 1, 1157, 1029, 301, 4, 1.0f, -1.0f,
                   G_UNIFORM, G_UNIFORM, plant_fastsplit, hopper);
    guard_fill_run(h, cb, "fastsplit specials split-K", 0, 1, 1000, 100, 3000, 3, 1.0f, 0.0f,
                   G_UNIFORM, G_UNIFORM, plant_fastsplit, hopper);
    guard_fill_run(h, cb, "fastsplit specials tail split", 1, 0, 1536, 1536, 1024, 0, 1.0f, 0.0f,
                   G_UNIFORM, G_UNIFORM, plant_fastsplit, hopper);
    /* normal inputs through the guarded path (nothing flagged), beta != 0 */
    guard_fill_run(h, cb, "normal", 0, 1, 1000, 1000, 1000, 1, 1.0f, 1.0f, G_UNIFORM, G_UNIFORM,
                   NULL, hopper);
}

/* ---------------------------------------------------------------------------------------
 * fastsplit_tf32x3 against pingpong_tf32x3, bit for bit, on finite inputs inside the guard's
 * range (so the tensor cores compute every tile): random signs, exponents in [-49, 39] (wide)
 * or [-4, 4], and in three elements of four the mantissa's low 13 bits set to 0x1000 (a tie
 * of the big part's rounding), 0x0fff, 0x1fff or 0. Every path of the kernel: the main-loop
 * check (1157 x 1029 x 301), split-K (1000 x 100 x 3000, 517 x 389 x 1031), the tail scan
 * (1536^2 x 1024, beta 0), all transposes, alpha and beta, k = 5, leading dimensions padded by
 * 4 (TMA) and by 3 and 1 (operands copied first, or rung 14 for both rungs). The whole stored
 * C is compared, its padding (a sentinel) too. Equality holds only if the tensor cores ignore
 * the low 13 bits of TF32 operands (fastsplit_tf32x3's small parts keep them).
 * ------------------------------------------------------------------------------------- */
static float fs_draw(int wide) {
    static const uint32_t low[4] = {0x1000u, 0x0fffu, 0x1fffu, 0u};
    const uint64_t r = mbt_rand_u64();
    uint32_t mant = (uint32_t)(r >> 32) & 0x7fffffu;
    if ((r & 3u) != 0) mant = (mant & ~0x1fffu) | low[(r >> 2) & 3u];
    const uint32_t e = wide ? 127 - 49 + (uint32_t)((r >> 8) % 89) : 127 - 4 + (uint32_t)((r >> 8) % 9);
    return f_bits((uint32_t)((r >> 4) & 1u) << 31 | e << 23 | mant);
}
static void fs_bitwise_case(miniblas_handle_t h, int ta, int tb, int m, int n, int k, int pad,
                            float alpha, float beta, int wide) {
    char kase[160];
    snprintf(kase, sizeof kase, "%s vs %s %dx%dx%d %c%c pad %d alpha %g beta %g %s", FS_RUNG,
             PP_RUNG, m, n, k, ta ? 'T' : 'N', tb ? 'T' : 'N', pad, alpha, beta,
             wide ? "2^[-49,39]" : "2^[-4,4]");
    const int ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int lda = ar + pad, ldb = br + pad, ldc = m + pad;
    const size_t as = (size_t)lda * ac, bs = (size_t)ldb * bc, cs = (size_t)ldc * n;
    float *hA = mbt_host_alloc(as * sizeof(float)), *hB = mbt_host_alloc(bs * sizeof(float));
    float *hC0 = mbt_host_alloc(cs * sizeof(float)), *outp = mbt_host_alloc(cs * sizeof(float));
    float *outf = mbt_host_alloc(cs * sizeof(float));
    for (size_t e = 0; e < as; ++e) hA[e] = fs_draw(wide);
    for (size_t e = 0; e < bs; ++e) hB[e] = fs_draw(wide);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ldc; ++i)
            hC0[i + (size_t)j * ldc] = i >= m ? SENTINEL : beta == 0.0f ? NAN : fs_draw(0);
    float *dA = mbt_dev_alloc(as * sizeof(float)), *dB = mbt_dev_alloc(bs * sizeof(float));
    float *dC = mbt_dev_alloc(cs * sizeof(float));
    mbt_h2d(dA, hA, as * sizeof(float));
    mbt_h2d(dB, hB, bs * sizeof(float));
    char ran[64], first[160] = "";
    if (guard_run(h, PP_RUNG, kase, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, hC0,
                  outp, ran, sizeof ran) &&
        guard_run(h, FS_RUNG, kase, ta, tb, m, n, k, alpha, dA, lda, dB, ldb, beta, dC, ldc, hC0,
                  outf, ran, sizeof ran)) {
        long nonfinite = 0;
        for (size_t e = 0; e < cs; ++e) nonfinite += !isfinite(outp[e]);
        const long bad = bitwise_mismatches(outf, outp, cs, first, sizeof first);
        printf("%-76s %ld elements differ in their bits%s%s\n", kase, bad, bad ? ", first " : "",
               first);
        mbt_expect(NULL, bad == 0, "sgemm", kase, "%ld elements differ from %s's (%s)", bad,
                   PP_RUNG, first);
        mbt_expect(NULL, nonfinite == 0, "sgemm", kase, "%s: %ld elements not finite", PP_RUNG,
                   nonfinite);
    }
    mbt_dev_free(dA);
    mbt_dev_free(dB);
    mbt_dev_free(dC);
    free(hA);
    free(hB);
    free(hC0);
    free(outp);
    free(outf);
}
static void fastsplit_bitwise_tests(miniblas_handle_t h) {
    for (int t = 0; t < 4; ++t) {
        fs_bitwise_case(h, t & 1, t >> 1, 1157, 1029, 301, t == 3 ? 4 : 0, t & 1 ? -0.75f : 1.0f,
                        t == 1 ? 0.5f : 0.0f, t & 1);
        fs_bitwise_case(h, t & 1, t >> 1, 1000, 100, 3000, 0, 1.0f, t == 2 ? 1.0f : 0.0f, t >> 1);
    }
    fs_bitwise_case(h, 0, 0, 1536, 1536, 1024, 0, 1.0f, 0.0f, 1);
    fs_bitwise_case(h, 1, 1, 1536, 1536, 1024, 0, 2.0f, 0.0f, 0);
    fs_bitwise_case(h, 0, 1, 517, 389, 1031, 3, 1.0f, -1.0f, 1);
    fs_bitwise_case(h, 1, 0, 517, 389, 1031, 1, 1.0f, 0.0f, 0);
    fs_bitwise_case(h, 0, 0, 130, 129, 5, 0, 1.0f, 0.25f, 0);
}

int main(void) {
    mbt_init("tf32_accuracy");
    miniblas_handle_t h;
    if (miniblas_create(&h) != MINIBLAS_STATUS_SUCCESS) {
        printf("miniblas_create failed\n");
        return 1;
    }
    cublasHandle_t cb;
    cublas_check(cublasCreate(&cb), "cublasCreate");
    cublas_check(cublasSetMathMode(cb, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");

    const int hopper =
        miniblas_rung_supported(h, MINIBLAS_OP_SGEMM, WG_RUNG) == MINIBLAS_STATUS_SUCCESS;
    if (!hopper) printf("%s skipped: %s\n", WG_RUNG, miniblas_last_error(h));

    static const int shapes[][3] = {{256, 256, 256},   {1024, 1024, 1024}, {777, 1001, 1535},
                                    {2048, 2048, 2048}, {4096, 4096, 4096}};
    const int nshapes = mbt_quick() ? 3 : 5;
    for (int s = 0; s < nshapes; ++s)
        for (int wide = 0; wide < 2; ++wide)
            one_case(h, cb, shapes[s][0], shapes[s][1], shapes[s][2], wide, hopper);
    special_case(h, cb, hopper);
    if (hopper) fastsplit_bitwise_tests(h);
    guard_tests(h, cb, hopper);

    cublasDestroy(cb);
    miniblas_destroy(h);
    return mbt_finish();
}
