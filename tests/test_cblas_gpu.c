/*
 * libminiblas_cblas on a GPU machine (exits 77 without a GPU): the same checks as
 * tests/test_cblas_cpu.c (included below), with every call forced onto the GPU path and
 * the path asserted, plus what only a GPU run can show:
 *   - the staged pipeline at sizes where it splits into many column panels, A row blocks and
 *     chunk-sized pieces (MINIBLAS_CBLAS_PANEL=96, MINIBLAS_CBLAS_CHUNK_MB=1 unless set),
 *     including a column taller than a staging chunk;
 *   - operands in pinned host memory (direct DMA), managed memory and device memory
 *     (cudaMalloc: used in place), and a mix of device and host operands;
 *   - the default (auto) decision sending large gemms to the GPU;
 *   - 8 host threads calling at once with different sizes.
 * Registered twice (tests/cblas.cmake): as is, and as test_cblas_gpu_disabled with
 * MINIBLAS_CBLAS_GPU=0, where every call must complete on the CPU BLAS instead.
 */
#define MBC_TEST_NO_MAIN
#include "test_cblas_cpu.c"
#include <cuda_runtime_api.h>

/* ------------------------------------------------------------------ memory hooks */

static void *copy_to(const void *host, size_t bytes, int kind) {
    void *p = NULL;
    cudaError_t e = kind == 1   ? cudaMallocHost(&p, bytes)
                    : kind == 2 ? cudaMallocManaged(&p, bytes, cudaMemAttachGlobal)
                                : cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
        printf("allocation of %zu bytes failed: %s\n", bytes, cudaGetErrorString(e));
        exit(1);
    }
    if (cudaMemcpy(p, host, bytes, cudaMemcpyDefault) != cudaSuccess) exit(1);
    return p;
}
static void *to_pinned(const void *h, size_t b) { return copy_to(h, b, 1); }
static void *to_managed(const void *h, size_t b) { return copy_to(h, b, 2); }
static void *to_device(const void *h, size_t b) { return copy_to(h, b, 3); }
static void back_any(void *host, const void *p, size_t bytes) {
    if (cudaDeviceSynchronize() != cudaSuccess ||
        cudaMemcpy(host, p, bytes, cudaMemcpyDefault) != cudaSuccess)
        exit(1);
}
static void release_host(void *p) { cudaFreeHost(p); }
static void release_dev(void *p) { cudaFree(p); }
static const mem_hook hook_pinned = {to_pinned, back_any, release_host};
static const mem_hook hook_managed = {to_managed, back_any, release_dev};
static const mem_hook hook_device = {to_device, back_any, release_dev};

/* ------------------------------------------------------------------ cases */

static void pipeline_cases(void) {
    uint64_t seed = g_seed ^ 0x5151;
    static const int64_t sz[][3] = {{700, 500, 300}, {1023, 257, 129}, {513, 1000, 64},
                                    {96, 96, 96},    {97, 1, 600},     {1, 700, 33}};
    static const int tr[2] = {CblasNoTrans, CblasTrans};
    for (int dbl = 0; dbl < 2; ++dbl)
        for (size_t s = 0; s < sizeof sz / sizeof sz[0]; ++s)
            for (int t = 0; t < 4; ++t)
                gemm_case(dbl, 0, (s + t) % 2 ? CblasColMajor : CblasRowMajor, tr[t / 2],
                          tr[t % 2], sz[s][0], sz[s][1], sz[s][2], t == 3 ? -0.5 : 1.0,
                          t % 2 ? 0.0 : 0.75, (int64_t)(s % 3), &seed, "pipeline");
    /* one column of C larger than a 1 MB staging chunk: pieces split along the rows */
    gemm_case(0, 0, CblasColMajor, CblasNoTrans, CblasTrans, 300000, 3, 2, 1.0, 0.5, 1, &seed,
              "tall");
    gemm_case(1, 0, CblasRowMajor, CblasTrans, CblasNoTrans, 3, 140000, 2, 1.0, 0.0, 1, &seed,
              "wide");
    gemm_case(0, 1, CblasColMajor, CblasTrans, CblasNoTrans, 600, 450, 200, 2.0, -1.0, 0, &seed,
              "pipeline fortran");
}

static void memory_kind_cases(const mem_hook *h, const char *what, int gpu_on) {
    uint64_t seed = g_seed ^ 0xABCD;
    g_mem = h;
    for (int dbl = 0; dbl < 2; ++dbl) {
        gemm_case(dbl, 0, CblasRowMajor, CblasNoTrans, CblasTrans, 300, 200, 100, 1.0, 0.5, 1,
                  &seed, what);
        gemm_case(dbl, 0, CblasColMajor, CblasTrans, CblasNoTrans, 520, 130, 70, -1.0, 0.0, 2,
                  &seed, what);
        gemm_case(dbl, 1, CblasColMajor, CblasNoTrans, CblasNoTrans, 33, 17, 9, 1.0, 1.0, 0,
                  &seed, what);
        omatcopy_case(dbl, CblasRowMajor, CblasTrans, 301, 77, 2.0, 1, &seed);
        omatcopy_case(dbl, CblasColMajor, CblasNoTrans, 64, 300, -1.0, 0, &seed);
    }
    g_mem = NULL;
    (void)gpu_on;
}

/* Reductions on device memory (in place, any increments) and a gemm with mixed operands. */
static void device_pointer_cases(void) {
    uint64_t seed = g_seed ^ 0xD00D;
    const int n = 100003;
    float *hx = malloc(sizeof(float) * 3 * n), *hy = malloc(sizeof(float) * 3 * n);
    double *dx_h = malloc(sizeof(double) * 3 * n), *dy_h = malloc(sizeof(double) * 3 * n);
    for (int i = 0; i < 3 * n; ++i) {
        hx[i] = (float)urand_r(&seed), hy[i] = (float)urand_r(&seed);
        dx_h[i] = urand_r(&seed), dy_h[i] = urand_r(&seed);
    }
    float *dx = to_device(hx, sizeof(float) * 3 * n), *dy = to_device(hy, sizeof(float) * 3 * n);
    double *ddx = to_device(dx_h, sizeof(double) * 3 * n), *ddy = to_device(dy_h, sizeof(double) * 3 * n);
    static const int incs[][2] = {{1, 1}, {3, -2}, {-1, 0}, {2, 3}};
    for (int c = 0; c < 4; ++c) {
        int ix = incs[c][0], iy = incs[c][1];
        double ra = 0, rs = 0, ss = 0, rd = 0, sd = 0, rda = 0;
        for (int64_t i = 0; i < n; ++i) {
            int64_t px = ix >= 0 ? i * ix : (n - 1 - i) * -ix;
            int64_t py = iy >= 0 ? i * iy : (n - 1 - i) * -iy;
            if (ix > 0) ra += fabs((double)hx[px]), rda += fabs(dx_h[px]);
            rs += (double)hx[px] * hy[py], ss += fabs((double)hx[px] * hy[py]);
            rd += dx_h[px] * dy_h[py], sd += fabs(dx_h[px] * dy_h[py]);
        }
        double ts = (double)(n + 2) * 6e-8, td = (double)(n + 2) * 1.2e-16;
        float a = cblas_sasum(n, dx, ix);
        int pa = ix > 0 ? miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU_INPLACE : 1;
        CHECK(fabs(a - ra) <= ts * ra && pa, "device sasum inc=%d: %g vs %g path %d", ix, a, ra,
              miniblas_cblas_last_path());
        double da = cblas_dasum(n, ddx, ix);
        CHECK(fabs(da - rda) <= td * rda, "device dasum inc=%d: %g vs %g", ix, da, rda);
        float d = cblas_sdot(n, dx, ix, dy, iy);
        int pd = miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU_INPLACE;
        CHECK(fabs(d - rs) <= ts * ss && pd, "device sdot %d %d: %g vs %g path %d", ix, iy, d, rs,
              miniblas_cblas_last_path());
        double dd = cblas_ddot(n, ddx, ix, ddy, iy);
        CHECK(fabs(dd - rd) <= td * sd, "device ddot %d %d: %g vs %g", ix, iy, dd, rd);
        /* mixed: x on the device, y on the host */
        float m = cblas_sdot(n, dx, ix, hy, iy);
        CHECK(fabs(m - rs) <= ts * ss && miniblas_cblas_last_path() == MINIBLAS_CBLAS_PATH_GPU,
              "mixed sdot %d %d: %g vs %g path %d", ix, iy, m, rs, miniblas_cblas_last_path());
    }
    cudaFree(dx), cudaFree(dy), cudaFree(ddx), cudaFree(ddy);
    free(hx), free(hy), free(dx_h), free(dy_h);

    /* gemm with A on the device, B and C on the host: staged around the in-place A */
    const int M = 333, N = 222, K = 111;
    float *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);
    float *C = malloc(sizeof(float) * M * N);
    for (int i = 0; i < M * K; ++i) A[i] = (float)urand_r(&seed);
    for (int i = 0; i < K * N; ++i) B[i] = (float)urand_r(&seed);
    for (int i = 0; i < M * N; ++i) C[i] = NAN;
    float *dA = to_device(A, sizeof(float) * M * K);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, dA, M, B, K, 0.0f, C, M);
    int path = miniblas_cblas_last_path(), ok = 1;
    for (int j = 0; j < N && ok; ++j)
        for (int i = 0; i < M; ++i) {
            double s = 0, sa = 0;
            for (int l = 0; l < K; ++l) s += (double)A[i + l * M] * B[l + j * K], sa += fabs((double)A[i + l * M] * B[l + j * K]);
            if (!(fabs(C[i + j * M] - s) <= 4.0 * (K + 2) * 6e-8 * sa)) ok = 0;
        }
    CHECK(ok && path == MINIBLAS_CBLAS_PATH_GPU, "mixed gemm (A device): ok %d path %d", ok, path);
    cudaFree(dA);
    free(A), free(B), free(C);
}

int main(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("test_cblas_gpu: no GPU, skipped\n");
        return 77;
    }
    const char *g = getenv("MINIBLAS_CBLAS_GPU");
    int disabled = g && !strcmp(g, "0");
    /* Read once, at the layer's first call: small panels and chunks so that moderate sizes
     * run the whole pipeline (many panels, A row blocks, several pieces per operand). */
    setenv("MINIBLAS_CBLAS_PANEL", "96", 0);
    setenv("MINIBLAS_CBLAS_CHUNK_MB", "1", 0);
    int avail = miniblas_cblas_gpu_available();
    printf("CPU BLAS: %s; GPU %s; MINIBLAS_CBLAS_GPU=%s\n", miniblas_cblas_cpu_blas(),
           avail ? "in use" : "not in use", g ? g : "(unset)");
    CHECK(avail == !disabled, "GPU availability %d with MINIBLAS_CBLAS_GPU=%s", avail,
          g ? g : "(unset)");
    CHECK(miniblas_cblas_cpu_blas() != NULL, "no CPU BLAS loaded");

    g_expect_path = disabled ? MINIBLAS_CBLAS_PATH_CPU : MINIBLAS_CBLAS_PATH_GPU;
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_GPU); /* with the GPU disabled: still CPU */
    const char *quick = getenv("MINIBLAS_TEST_QUICK");
    test_gemm(quick != NULL);
    test_fortran();
    test_reductions(quick ? 1000 : INT64_MAX);
    test_omatcopy();
    test_xerbla();
    pipeline_cases();
    memory_kind_cases(&hook_pinned, "pinned", !disabled);
    if (!disabled) { /* device and managed pointers need the GPU on */
        memory_kind_cases(&hook_managed, "managed", 1);
        memory_kind_cases(&hook_device, "device", 1);
        device_pointer_cases();
    }
    test_threads(quick ? 2 : 6);

    /* the default decision: large problems go to the GPU, small ones stay on the CPU */
    miniblas_cblas_force_path(MINIBLAS_CBLAS_PATH_AUTO);
    uint64_t seed = 99;
    g_expect_path = disabled ? MINIBLAS_CBLAS_PATH_CPU : MINIBLAS_CBLAS_PATH_GPU;
    gemm_case(0, 0, CblasRowMajor, CblasNoTrans, CblasNoTrans, 1024, 1024, 512, 1.0, 0.5, 0,
              &seed, "auto large");
    gemm_case(1, 0, CblasColMajor, CblasTrans, CblasNoTrans, 768, 640, 512, 1.0, 0.0, 3, &seed,
              "auto large");
    g_expect_path = MINIBLAS_CBLAS_PATH_CPU;
    gemm_case(0, 0, CblasColMajor, CblasNoTrans, CblasNoTrans, 40, 30, 20, 1.0, 0.5, 0, &seed,
              "auto small");
    test_reductions(1000);

    printf("test_cblas_gpu%s: %d passed, %d failed\n", disabled ? " (GPU disabled)" : "", g_pass,
           g_fail);
    return g_fail ? 1 : 0;
}
