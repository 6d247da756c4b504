/*
 * Accuracy of the TF32 sgemm rungs against an FP64 reference, side by side with cuBLAS FP32.
 *
 * For each shape and input distribution (uniform [-1, 1); and u * 2^e with e uniform in
 * [-10, 10], values spanning six orders of magnitude), on the same float inputs:
 *   ref  = cuBLAS DGEMM on the inputs upcast to double (exact inputs, FP64 arithmetic);
 *   e_s  = |C_cublas_sgemm - ref|_F / |ref|_F   (cuBLAS FP32 SGEMM, CUBLAS_DEFAULT_MATH);
 *   e_x3 = the same for miniblas rung tf32x3 (3xTF32, full-precision math mode);
 *   e_wg = the same for rung wgmma_tf32x3 (3xTF32 on wgmma; compute capability 9.0 only);
 *   e_tf = the same for rung tf32 (math mode MINIBLAS_MATH_ALLOW_REDUCED_PRECISION).
 * Pass: e_x3 <= 2 * e_s and e_wg <= 2 * e_s (3xTF32 keeps FP32 accuracy) and e_tf < 1e-2
 * (TF32 is reduced, not broken). Each result is poisoned with NaN before the call, so an unwritten element fails.
 * Also printed, not part of the pass rule: the largest elementwise error, max|C - ref| /
 * max|ref|, of each, and its ratio to cuBLAS's (a few bad elements hide in a Frobenius norm).
 * Sizes: n = 256, 1024 and a non-square odd shape; 2048 and 4096 unless MINIBLAS_TEST_QUICK=1
 * (an error growing linearly with K, as a biased accumulation gives, is largest at 4096).
 * Ends with "tf32_accuracy: N passed, M failed"; exits 77 without a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cublas_v2.h>
#include "miniblas.h"
#include "gpu_test_util.h"

#define X3_RUNG "tf32x3"
#define TF32_RUNG "tf32"
#define WG_RUNG "wgmma_tf32x3" /* MINIBLAS_RUNG_NEEDS_SM90A: run on compute capability 9.0 only */

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
    if (hopper) {
        double m_wg;
        double e_wg = run_rung(h, WG_RUNG, 0, m, n, k, dA, dB, dC, hC, ref, kase, &m_wg);
        printf("%-34s rel. Frobenius error: %s %.3e (%.2fx cuBLAS); max elementwise err %.3e "
               "(%.2fx)\n",
               "", WG_RUNG, e_wg, e_wg / e_s, m_wg, m_wg / m_s);
        if (e_wg != CALL_FAILED)
            mbt_expect(NULL, e_wg <= 2.0 * e_s, "sgemm", kase,
                       "%s error %.3e exceeds 2 x cuBLAS FP32 SGEMM's %.3e", WG_RUNG, e_wg, e_s);
    }

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

    const char *rungs[2] = {X3_RUNG, WG_RUNG};
    for (int r = 0; r < (hopper ? 2 : 1); ++r) {
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

    int dev = 0, major = 0, minor = 0;
    MBT_CUDA(cudaGetDevice(&dev));
    MBT_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    MBT_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    const int hopper = major == 9 && minor == 0;
    if (!hopper)
        printf("%s skipped: needs a compute capability 9.0 GPU (this is %d.%d)\n", WG_RUNG, major,
               minor);

    static const int shapes[][3] = {{256, 256, 256},   {1024, 1024, 1024}, {777, 1001, 1535},
                                    {2048, 2048, 2048}, {4096, 4096, 4096}};
    const int nshapes = mbt_quick() ? 3 : 5;
    for (int s = 0; s < nshapes; ++s)
        for (int wide = 0; wide < 2; ++wide)
            one_case(h, cb, shapes[s][0], shapes[s][1], shapes[s][2], wide, hopper);
    special_case(h, cb, hopper);

    cublasDestroy(cb);
    miniblas_destroy(h);
    return mbt_finish();
}
