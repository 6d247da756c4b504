/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-shot tile-configuration sweep of miniblas' GEMM kernels against cuBLAS (not part of the
 * library build; see README in this folder). Families (sweep_<family>.cu):
 *   dmma    dgemm, FP64 tensor cores (tc_common.cuh, TC_OP_DMMA)     vs cublasDgemm
 *   dmid    the same at mid sizes (512 ... 4096), with forced split-K slice counts
 *   dswz    the same with the swizzled, unpadded FP64 layout (tc_cfg SWZ), 512 ... 2048
 *   tf32x3  sgemm, 3xTF32 tensor cores (tc_common.cuh, TC_OP_TF32X3) vs cublasSgemm (FP32 math)
 *   simt_s  sgemm, warp-tiled SIMT (10_warptiled.cu / 11_tuned.cu)  vs cublasSgemm
 *   simt_d  dgemm, warp-tiled SIMT                                   vs cublasDgemm
 * Column-major NN, alpha = 1, beta = 0, lda = m, ldb = k, ldc = m, inputs uniform in [-1, 1].
 * Per config and shape: 1 warm-up launch (its result is checked against cuBLAS: max |C - C_ref|
 * / max |C_ref|, C pre-filled with NaN so unwritten elements fail), then the median of 5 timed
 * launches (CUDA events around each). Rows "lib" run the library's own launcher (its shape
 * rules included). A launch error is printed and the config skipped; a sticky error (the CUDA
 * context is dead) re-executes this program from the next config.
 *
 * Usage: sweep [family ...] [--resume FAMILY SHAPE CONFIG]      (default: all families)
 * Every launch gets a split-K workspace (kernels/gemm/splitk.cuh): the library's launchers ("lib"
 * rows) the library's size (MB_GEMM_WORK_BYTES), the configurations SWEEP_WORK_MB MiB.
 * Env: SWEEP_BUDGET_S (default 185): stop starting new measurements after this many seconds.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>
#include <unistd.h>
#include <cublas_v2.h>
#include "sweep.h"

static const int REPS = 5;

struct shape {
    int m, n, k;
};
struct family {
    const char *id;
    bool dbl;
    std::vector<sw_cfg> cfgs; /* parts 0 and 1 */
    std::vector<shape> shapes;
    double tol;
    mb_launch_fn lib;
    const char *lib_name;
};

static double now_s() {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
static double g_t0, g_budget;
static char **g_argv;
static std::vector<std::string> g_fams; /* families of this run, in order */

/* ---- device helpers ---- */
__global__ void fill_kernel(void *p, size_t n, bool dbl, unsigned long long seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long z = (i + 1) * 0x9E3779B97F4A7C15ull + seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        const double u = (double)(z >> 11) * (1.0 / 9007199254740992.0) * 2.0 - 1.0;
        if (dbl)
            ((double *)p)[i] = u;
        else
            ((float *)p)[i] = (float)u;
    }
}
/* out[0] = max |c - r| (NaN/inf -> +inf), out[1] = max |r|, as the bits of non-negative doubles
 * (which order like unsigned integers). */
__global__ void cmp_kernel(const void *c, const void *r, size_t n, bool dbl,
                           unsigned long long *out) {
    double md = 0, mr = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const double cv = dbl ? ((const double *)c)[i] : (double)((const float *)c)[i];
        const double rv = dbl ? ((const double *)r)[i] : (double)((const float *)r)[i];
        double d = fabs(cv - rv);
        if (!(d <= 1e300)) d = INFINITY;
        md = fmax(md, d);
        mr = fmax(mr, fabs(rv));
    }
    for (int o = 16; o > 0; o >>= 1) {
        md = fmax(md, __shfl_xor_sync(0xffffffffu, md, o));
        mr = fmax(mr, __shfl_xor_sync(0xffffffffu, mr, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(&out[0], (unsigned long long)__double_as_longlong(md));
        atomicMax(&out[1], (unsigned long long)__double_as_longlong(mr));
    }
}

static void *g_A, *g_B, *g_C, *g_R, *g_W;
static size_t g_wbytes;
static unsigned long long *g_cmp;
static cublasHandle_t g_h;
static cudaEvent_t g_ev[2 * REPS];

/* Re-executes the program from (family fi, shape si, config ci) after a sticky error. */
[[noreturn]] static void reexec(int fi, int si, int ci) {
    const char *cnt = getenv("SWEEP_REEXEC");
    const int n = cnt ? atoi(cnt) : 0;
    if (n >= 10) {
        printf("# too many sticky errors, giving up\n");
        fflush(stdout);
        exit(3);
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%d", n + 1);
    setenv("SWEEP_REEXEC", buf, 1);
    snprintf(buf, sizeof buf, "%.6f", g_t0);
    setenv("SWEEP_T0", buf, 1);
    std::vector<std::string> args;
    args.push_back(g_argv[0]);
    for (size_t i = fi; i < g_fams.size(); ++i) args.push_back(g_fams[i]);
    args.push_back("--resume");
    args.push_back(g_fams[fi]);
    args.push_back(std::to_string(si));
    args.push_back(std::to_string(ci));
    std::vector<char *> av;
    for (auto &a : args) av.push_back((char *)a.c_str());
    av.push_back(nullptr);
    printf("# sticky CUDA error: restarting the process at %s shape %d config %d\n",
           g_fams[fi].c_str(), si, ci);
    fflush(stdout);
    execv("/proc/self/exe", av.data());
    perror("execv");
    exit(3);
}

/* Returns cudaSuccess or the error; *sticky set when the context is unusable afterwards. */
static cudaError_t settle(cudaError_t e, bool *sticky) {
    *sticky = false;
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e == cudaSuccess) return e;
    (void)cudaGetLastError();
    if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess) *sticky = true;
    return e;
}

struct result {
    bool ok_run;
    double ms, rel;
    bool ok_check;
    cudaError_t err;
    bool sticky;
};

static result measure(const family &f, const shape &s, const mb_gemm_args *a,
                      cudaError_t (*run)(const void *ctx, const mb_gemm_args *a), const void *ctx,
                      bool check) {
    result r = {};
    const size_t es = f.dbl ? 8 : 4, nc = (size_t)s.m * s.n;
    cudaMemset(g_C, 0xFF, nc * es); /* NaN: an unwritten element fails the check */
    cudaError_t e = settle(run(ctx, a), &r.sticky);
    if (e != cudaSuccess) {
        r.err = e;
        return r;
    }
    r.ok_check = true;
    if (check) {
        cudaMemset(g_cmp, 0, 2 * sizeof(unsigned long long));
        cmp_kernel<<<1024, 256>>>(g_C, g_R, nc, f.dbl, g_cmp);
        unsigned long long h[2];
        cudaMemcpy(h, g_cmp, sizeof h, cudaMemcpyDeviceToHost);
        double md, mr;
        memcpy(&md, &h[0], 8);
        memcpy(&mr, &h[1], 8);
        r.rel = mr > 0 ? md / mr : md;
        r.ok_check = r.rel <= f.tol;
    }
    for (int i = 0; i < REPS; ++i) {
        cudaEventRecord(g_ev[2 * i]);
        e = run(ctx, a);
        cudaEventRecord(g_ev[2 * i + 1]);
        if (e != cudaSuccess) break;
    }
    e = settle(e, &r.sticky);
    if (e != cudaSuccess) {
        r.err = e;
        return r;
    }
    std::vector<float> t(REPS);
    for (int i = 0; i < REPS; ++i) cudaEventElapsedTime(&t[i], g_ev[2 * i], g_ev[2 * i + 1]);
    std::sort(t.begin(), t.end());
    r.ms = t[REPS / 2];
    r.ok_run = true;
    return r;
}

static cudaError_t run_cfg(const void *ctx, const mb_gemm_args *a) {
    return ((const sw_cfg *)ctx)->launch(a, 0);
}
static cudaError_t run_lib(const void *ctx, const mb_gemm_args *a) {
    return ((mb_launch_fn)ctx)(a, 0);
}
struct cublas_ctx {
    bool dbl;
};
static cudaError_t run_cublas(const void *ctx, const mb_gemm_args *a) {
    const bool dbl = ((const cublas_ctx *)ctx)->dbl;
    cublasStatus_t st;
    if (dbl) {
        const double al = 1, be = 0;
        st = cublasDgemm(g_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)a->m, (int)a->n, (int)a->k, &al,
                         (const double *)a->A, (int)a->lda, (const double *)a->B, (int)a->ldb, &be,
                         (double *)a->C, (int)a->ldc);
    } else {
        const float al = 1, be = 0;
        st = cublasSgemm(g_h, CUBLAS_OP_N, CUBLAS_OP_N, (int)a->m, (int)a->n, (int)a->k, &al,
                         (const float *)a->A, (int)a->lda, (const float *)a->B, (int)a->ldb, &be,
                         (float *)a->C, (int)a->ldc);
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublas status %d\n", (int)st);
        return cudaErrorUnknown;
    }
    return cudaSuccess;
}

static void row(const char *fam, const char *cfg, const shape &s, const result &r, double ref_ms,
                bool checked) {
    char sh[48];
    snprintf(sh, sizeof sh, "%dx%dx%d", s.m, s.n, s.k);
    if (!r.ok_run) {
        printf("%-7s %-36s %-16s FAILED: %s%s\n", fam, cfg, sh, cudaGetErrorString(r.err),
               r.sticky ? " (sticky)" : "");
    } else {
        const double tf = 2.0 * s.m * s.n * (double)s.k / (r.ms * 1e-3) / 1e12;
        printf("%-7s %-36s %-16s %9.3f %8.2f %7.1f%% %9.2e %s\n", fam, cfg, sh, r.ms, tf,
               100.0 * ref_ms / r.ms, r.rel, !checked ? "ref" : (r.ok_check ? "ok" : "BAD"));
    }
    fflush(stdout);
}

static std::vector<sw_cfg> cat(const sw_cfg *a, int na, const sw_cfg *b, int nb) {
    std::vector<sw_cfg> v(a, a + na);
    v.insert(v.end(), b, b + nb);
    return v;
}

static bool over_budget() { return now_s() - g_t0 > g_budget; }

static void run_family(int fi, const family &f, int s0, int c0, bool resumed) {
    const size_t es = f.dbl ? 8 : 4;
    size_t na = 0, nb = 0, nc = 0;
    for (const shape &s : f.shapes) {
        na = std::max(na, (size_t)s.m * s.k);
        nb = std::max(nb, (size_t)s.k * s.n);
        nc = std::max(nc, (size_t)s.m * s.n);
    }
    if (cudaMalloc(&g_A, na * es) != cudaSuccess || cudaMalloc(&g_B, nb * es) != cudaSuccess ||
        cudaMalloc(&g_C, nc * es) != cudaSuccess || cudaMalloc(&g_R, nc * es) != cudaSuccess) {
        printf("# %s: cudaMalloc failed\n", f.id);
        exit(4);
    }
    fill_kernel<<<2048, 256>>>(g_A, na, f.dbl, 1);
    fill_kernel<<<2048, 256>>>(g_B, nb, f.dbl, 2);

    if (!resumed) {
        printf("\n## family %s (%d configs; check tolerance %.0e relative to max|C|)\n", f.id, (int)f.cfgs.size(),
               f.tol);
        printf("#  %-2s %-32s %4s %7s %5s %6s %3s  %s\n", "i", "config", "thr", "smemKB", "regs",
               "spillB", "bps", "vs current");
        for (int i = 0; i < (int)f.cfgs.size(); ++i) {
            const sw_cfg &c = f.cfgs[i];
            cudaFuncAttributes at;
            int bps = 0;
            cudaError_t e = c.info(&at, &bps);
            if (e != cudaSuccess) {
                (void)cudaGetLastError();
                printf("#  %-2d %-32s %4d %7.1f  info error: %s  %s\n", i, c.name, c.threads,
                       c.smem / 1024.0, cudaGetErrorString(e), c.note);
            } else {
                printf("#  %-2d %-32s %4d %7.1f %5d %6d %3d  %s\n", i, c.name, c.threads,
                       c.smem / 1024.0, at.numRegs, (int)at.localSizeBytes, bps, c.note);
            }
        }
        printf("%-7s %-36s %-16s %9s %8s %8s %9s %s\n", "family", "config", "shape", "ms", "TFLOP/s",
               "%cuBLAS", "rel.err", "check");
        fflush(stdout);
    }

    for (int si = s0; si < (int)f.shapes.size(); ++si) {
        const shape &s = f.shapes[si];
        if (over_budget()) {
            printf("# budget of %.0f s spent: skipping the rest of %s\n", g_budget, f.id);
            break;
        }
        mb_gemm_args a = {};
        a.transa = a.transb = 0;
        a.m = s.m; a.n = s.n; a.k = s.k;
        a.alpha = 1; a.beta = 0;
        a.A = g_A; a.lda = s.m;
        a.B = g_B; a.ldb = s.k;
        a.C = g_C; a.ldc = s.m;
        a.work = g_W; a.work_bytes = g_wbytes;
        /* reference into g_R, then cuBLAS timed like the others (into g_C) */
        cublas_ctx cc = {f.dbl};
        mb_gemm_args ar = a;
        ar.C = g_R;
        bool sticky;
        if (settle(run_cublas(&cc, &ar), &sticky) != cudaSuccess) {
            printf("# cuBLAS reference failed at %dx%dx%d\n", s.m, s.n, s.k);
            exit(4);
        }
        result rr = measure(f, s, &a, run_cublas, &cc, false);
        if (!rr.ok_run) {
            row(f.id, "cublas", s, rr, 1, false);
            exit(4);
        }
        row(f.id, "cublas", s, rr, rr.ms, false);
        const double ref_ms = rr.ms;
        if (f.lib && !(resumed && si == s0)) {
            mb_gemm_args al = a;
            al.work_bytes = std::min(g_wbytes, MB_GEMM_WORK_BYTES);
            result r = measure(f, s, &al, run_lib, (const void *)f.lib, true);
            if (r.sticky) {
                row(f.id, f.lib_name, s, r, ref_ms, true);
                reexec(fi, si, 0); /* the resumed run skips lib at this shape */
            }
            row(f.id, f.lib_name, s, r, ref_ms, true);
        }
        int best = -1;
        double best_ms = 0;
        for (int ci = c0; ci < (int)f.cfgs.size(); ++ci) {
            if (over_budget()) break;
            const sw_cfg &c = f.cfgs[ci];
            result r = measure(f, s, &a, run_cfg, &c, true);
            char nm[64];
            snprintf(nm, sizeof nm, "%d:%s", ci, c.name);
            row(f.id, nm, s, r, ref_ms, true);
            if (r.sticky) reexec(fi, si, ci + 1);
            if (r.ok_run && r.ok_check && (best < 0 || r.ms < best_ms)) {
                best = ci;
                best_ms = r.ms;
            }
        }
        c0 = 0;
        if (best >= 0)
            printf("# best %s at %dx%dx%d: %d:%s  %.2f TFLOP/s = %.1f%% of cuBLAS\n", f.id, s.m,
                   s.n, s.k, best, f.cfgs[best].name,
                   2.0 * s.m * s.n * (double)s.k / (best_ms * 1e-3) / 1e12, 100.0 * ref_ms / best_ms);
        fflush(stdout);
    }
    cudaFree(g_A);
    cudaFree(g_B);
    cudaFree(g_C);
    cudaFree(g_R);
}

int main(int argc, char **argv) {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    g_argv = argv;
    g_t0 = getenv("SWEEP_T0") ? atof(getenv("SWEEP_T0")) : now_s();
    g_budget = getenv("SWEEP_BUDGET_S") ? atof(getenv("SWEEP_BUDGET_S")) : 185.0;

    std::vector<family> fams = {
        {"dmma", true, cat(sw_dmma_p0, sw_dmma_n_p0, sw_dmma_p1, sw_dmma_n_p1), {{4096, 4096, 4096}, {8192, 8192, 8192}, {1024, 1024, 1024}, {4097, 4095, 4099}},
         1e-10, mb_dgemm_dmma, "lib:mb_dgemm_dmma"},
        {"dmid", true, cat(sw_dmid_p0, sw_dmid_n_p0, sw_dmid_p1, sw_dmid_n_p1),
         {{512, 512, 512}, {640, 640, 640}, {768, 768, 768}, {896, 896, 896}, {1000, 600, 700},
          {1024, 576, 704}, {1000, 576, 704}, {1024, 600, 704}, {1024, 576, 700},
          {1024, 1024, 1024}, {1152, 1152, 1152}, {1280, 1280, 1280}, {1536, 1536, 1536},
          {2048, 2048, 2048}, {2560, 2560, 2560}, {3072, 3072, 3072}, {4096, 4096, 4096}},
         1e-10, mb_dgemm_dmma, "lib:mb_dgemm_dmma"},
        {"dswz", true, cat(sw_dswz_p0, sw_dswz_n_p0, sw_dswz_p1, sw_dswz_n_p1),
         {{512, 512, 512}, {640, 640, 640}, {768, 768, 768}, {896, 896, 896}, {1024, 1024, 1024},
          {1152, 1152, 1152}, {1280, 1280, 1280}, {1408, 1408, 1408}, {1536, 1536, 1536},
          {1664, 1664, 1664}, {1792, 1792, 1792}, {1920, 1920, 1920}, {2048, 2048, 2048},
          {4096, 4096, 4096}},
         1e-10, mb_dgemm_dmma, "lib:mb_dgemm_dmma"},
        {"tf32x3", false, cat(sw_tf32x3_p0, sw_tf32x3_n_p0, sw_tf32x3_p1, sw_tf32x3_n_p1), {{4096, 4096, 4096}, {8192, 8192, 8192}},
         1e-3, mb_sgemm_tf32x3, "lib:mb_sgemm_tf32x3"},
        {"simt_s", false, cat(sw_simt_s_p0, sw_simt_s_n_p0, sw_simt_s_p1, sw_simt_s_n_p1),
         {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 128, 8192}, {128, 8192, 8192}, {4096, 4096, 256}},
         1e-3, mb_sgemm_tuned, "lib:mb_sgemm_tuned"},
        {"simt_d", true, cat(sw_simt_d_p0, sw_simt_d_n_p0, sw_simt_d_p1, sw_simt_d_n_p1), {{4096, 4096, 4096}, {8192, 8192, 8192}},
         1e-10, mb_dgemm_tuned, "lib:mb_dgemm_tuned"},
    };

    std::string rfam;
    int rs = 0, rc = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--resume") && i + 3 < argc) {
            rfam = argv[i + 1];
            rs = atoi(argv[i + 2]);
            rc = atoi(argv[i + 3]);
            i += 3;
        } else {
            bool known = false;
            for (auto &f : fams) known |= !strcmp(f.id, argv[i]);
            if (!known) {
                fprintf(stderr, "usage: %s [dmma|dmid|dswz|tf32x3|simt_s|simt_d ...] [--resume FAMILY SHAPE CONFIG]\n",
                        argv[0]);
                return 1;
            }
            g_fams.push_back(argv[i]);
        }
    }
    if (g_fams.empty())
        for (auto &f : fams) g_fams.push_back(f.id);

    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("no CUDA device: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 2;
    }
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    if (cublasCreate(&g_h) != CUBLAS_STATUS_SUCCESS) {
        printf("cublasCreate failed\n");
        return 2;
    }
    cublasSetMathMode(g_h, CUBLAS_DEFAULT_MATH); /* sgemm in FP32, no TF32 */
    int cbv = 0;
    cublasGetVersion(g_h, &cbv);
    if (!getenv("SWEEP_REEXEC"))
        printf("# device %s, sm_%d%d, %d SMs, %.0f KB smem/block optin; cuBLAS %d; reps: 1 warm-up "
               "+ median of %d; NN column-major, alpha 1, beta 0\n",
               prop.name, prop.major, prop.minor, prop.multiProcessorCount,
               prop.sharedMemPerBlockOptin / 1024.0, cbv, REPS);
    for (int i = 0; i < 2 * REPS; ++i) cudaEventCreate(&g_ev[i]);
    cudaMalloc(&g_cmp, 2 * sizeof(unsigned long long));
    g_wbytes = (size_t)(getenv("SWEEP_WORK_MB") ? atoi(getenv("SWEEP_WORK_MB")) : 64) << 20;
    if (g_wbytes < MB_GEMM_WORK_BYTES) g_wbytes = MB_GEMM_WORK_BYTES;
    if (cudaMalloc(&g_W, g_wbytes) != cudaSuccess) {
        printf("# cudaMalloc of the %zu-byte split-K workspace failed\n", g_wbytes);
        return 2;
    }

    for (int fi = 0; fi < (int)g_fams.size(); ++fi) {
        for (auto &f : fams) {
            if (g_fams[fi] != f.id) continue;
            const bool res = fi == 0 && rfam == f.id;
            if (over_budget()) {
                printf("# budget of %.0f s spent: skipping %s\n", g_budget, f.id);
                break;
            }
            run_family(fi, f, res ? rs : 0, res ? rc : 0, res);
        }
    }
    printf("# done in %.1f s\n", now_s() - g_t0);
    return 0;
}
