/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * miniblas-bench: one problem (an op at one shape and transpose): its buffers (rotated over
 * twice the L2 for the bandwidth ops unless --warm-l2), one launch of a participant, the check
 * of each rung against cuBLAS, the timing (warm-up, interleaved trials under the stopping
 * rule), and the ceilings measured once per run.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mb.h"

void setf(char *dst, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, size, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------------------ */
/* errors */

int cuda_ok(ctx *c, cudaError_t e, const char *what) {
    if (e == cudaSuccess) return 1;
    snprintf(c->err, sizeof c->err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return 0;
}

const char *cublas_status_str(cublasStatus_t s) {
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "CUBLAS_STATUS_(other)";
    }
}

void fatal(ctx *c, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cli_error("fatal: %s", msg);
    fflush(stdout);
    write_outputs(c);
    exit(1);
}

/* ------------------------------------------------------------------------------------ */
/* ------------------------------------------------------------------------------------ */
/* one problem: an op at one shape and transpose */


static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

void problem_free(problem *p) {
    if (p->arena) cudaFree(p->arena);
    if (p->ref) cudaFree(p->ref);
    p->arena = NULL;
    p->ref = NULL;
}

/* Sets sizes and allocates/fills; returns 0, or -1 with c->err (allocation failures are not
 * fatal: the caller reports the problem as ERROR and goes on). */
int problem_setup(ctx *c, problem *p) {
    const opinfo *oi = p->oi;
    p->es = oi->dbl ? sizeof(double) : sizeof(float);
    size_t es = p->es;
    switch (oi->kind) {
    case K_GEMM:
        p->lda = p->ta ? p->k : p->m;
        p->ldb = p->tb ? p->n : p->k;
        p->ldc = p->m;
        p->a_elems = (size_t)p->m * (size_t)p->k;
        p->b_elems = (size_t)p->k * (size_t)p->n;
        p->c_elems = (size_t)p->m * (size_t)p->n;
        p->off_b = align_up(p->a_elems * es, 256);
        p->off_c = p->off_b + align_up(p->b_elems * es, 256);
        p->slot_bytes = p->off_c + align_up(p->c_elems * es, 256);
        p->work = 2.0 * (double)p->m * (double)p->n * (double)p->k;
        snprintf(p->shape, sizeof p->shape, "%" PRId64 "x%" PRId64 "x%" PRId64, p->m, p->n, p->k);
        snprintf(p->trans, sizeof p->trans, "%c%c", p->ta ? 'T' : 'N', p->tb ? 'T' : 'N');
        break;
    case K_OMAT:
        p->lda = p->m;                 /* A: rows x cols */
        p->ldb = p->ta ? p->n : p->m; /* B: cols x rows (T) or rows x cols */
        p->a_elems = p->b_elems = (size_t)p->m * (size_t)p->n;
        p->off_b = align_up(p->a_elems * es, 256);
        p->slot_bytes = p->off_b + align_up(p->b_elems * es, 256);
        p->work = 2.0 * (double)p->a_elems * (double)es;
        snprintf(p->shape, sizeof p->shape, "%" PRId64 "x%" PRId64, p->m, p->n);
        snprintf(p->trans, sizeof p->trans, "%c", p->ta ? 'T' : 'N');
        break;
    case K_ASUM:
    case K_DOT:
        p->a_elems = (size_t)(1 + (p->m - 1) * p->inc);
        p->b_elems = oi->kind == K_DOT ? p->a_elems : 0;
        p->off_b = align_up(p->a_elems * es, 256);
        p->slot_bytes = p->off_b + align_up(p->b_elems * es, 256);
        p->work = (double)p->m * (double)es * (oi->kind == K_DOT ? 2.0 : 1.0);
        snprintf(p->shape, sizeof p->shape, "%" PRId64, p->m);
        snprintf(p->trans, sizeof p->trans, "-");
        break;
    }
    /* rotation: bandwidth ops spread over >= 2x L2 so each launch reads DRAM (--warm-l2: one
     * set of buffers, so calls back to back find them in L2 when they fit) */
    p->slots = 1;
    if (oi->kind != K_GEMM && !c->warm_l2 && p->slot_bytes < 2 * c->l2) {
        size_t s = (2 * c->l2 + p->slot_bytes - 1) / p->slot_bytes;
        p->slots = (int)(s > 65536 ? 65536 : s);
    }
    size_t arena_bytes = p->slot_bytes * (size_t)p->slots;
    cudaError_t e = cudaMalloc((void **)&p->arena, arena_bytes);
    if (e == cudaSuccess && oi->kind != K_ASUM && oi->kind != K_DOT) {
        size_t out_elems = oi->kind == K_GEMM ? p->c_elems : p->b_elems;
        e = cudaMalloc(&p->ref, out_elems * es);
    }
    if (e != cudaSuccess) {
        cudaGetLastError(); /* allocation failures are not sticky */
        size_t ref_bytes = oi->kind == K_GEMM ? p->c_elems * es
                           : oi->kind == K_OMAT ? p->b_elems * es
                                                : 0;
        snprintf(c->err, sizeof c->err, "cannot allocate %.2f GiB of device memory (%s)",
                 (double)(arena_bytes + ref_bytes) / 1073741824.0, cudaGetErrorName(e));
        problem_free(p);
        return -1;
    }
    if (!cuda_ok(c, bench_fill_uniform(p->arena, arena_bytes / es, oi->dbl,
                                       (uint64_t)(p->m * 131 + p->n * 7 + p->k) ^ 0x5eed, 0),
                 "fill") ||
        !cuda_ok(c, cudaDeviceSynchronize(), "fill (sync)"))
        fatal(c, "%s", c->err);
    return 0;
}

static void *slot_ptr(const problem *p, int slot, size_t off) {
    return p->arena + (size_t)slot * p->slot_bytes + off;
}

/* The output buffer of a slot (gemm C, omatcopy B; reductions: NULL, see scratch). */
static void *slot_out(const problem *p, int slot) {
    if (p->oi->kind == K_GEMM) return slot_ptr(p, slot, p->off_c);
    if (p->oi->kind == K_OMAT) return slot_ptr(p, slot, p->off_b);
    return NULL;
}

/* ------------------------------------------------------------------------------------ */
/* participants: cuBLAS, cuBLAS TF32, rungs, auto */


static void prepare(ctx *c, const problem *p, const part *pt) {
    if (pt->is_cublas) {
        cublasStatus_t s = cublasSetMathMode(c->cb, pt->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                              : CUBLAS_DEFAULT_MATH);
        if (s == CUBLAS_STATUS_SUCCESS)
            s = cublasSetPointerMode(c->cb, (p->oi->kind == K_ASUM || p->oi->kind == K_DOT)
                                                ? CUBLAS_POINTER_MODE_DEVICE
                                                : CUBLAS_POINTER_MODE_HOST);
        if (s != CUBLAS_STATUS_SUCCESS) fatal(c, "cuBLAS mode setting: %s", cublas_status_str(s));
    } else {
        miniblas_status_t s = miniblas_set_rung(c->mb, p->oi->op, pt->name);
        if (s == MINIBLAS_STATUS_SUCCESS)
            s = miniblas_set_math_mode(c->mb, pt->reduced ? MINIBLAS_MATH_ALLOW_REDUCED_PRECISION
                                                          : MINIBLAS_MATH_DEFAULT);
        if (s != MINIBLAS_STATUS_SUCCESS)
            fatal(c, "miniblas_set_rung(%s, %s): %s: %s", p->oi->name, pt->name,
                  miniblas_status_string(s), miniblas_last_error(c->mb));
    }
}

/* One launch. out: where the result goes (NULL: the slot's output / the scratch slot).
 * Returns 0, or -1 with c->err set and *mst the miniblas status (for NOT_SUPPORTED). */
static int launch(ctx *c, problem *p, const part *pt, int slot, void *out,
                  miniblas_status_t *mst) {
    const opinfo *oi = p->oi;
    const void *A = slot_ptr(p, slot, 0);
    const void *B = slot_ptr(p, slot, p->off_b);
    void *C = out ? out : slot_out(p, slot);
    if (mst) *mst = MINIBLAS_STATUS_SUCCESS;
    if (pt->is_cublas) {
        cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
        cublasOperation_t ta = p->ta ? CUBLAS_OP_T : CUBLAS_OP_N;
        cublasOperation_t tb = p->tb ? CUBLAS_OP_T : CUBLAS_OP_N;
        switch (oi->kind) {
        case K_GEMM:
            if (oi->dbl) {
                const double al = 1.0, be = 0.0;
                s = cublasDgemm(c->cb, ta, tb, (int)p->m, (int)p->n, (int)p->k, &al, A,
                                (int)p->lda, B, (int)p->ldb, &be, C, (int)p->ldc);
            } else {
                const float al = 1.0f, be = 0.0f;
                s = cublasSgemm(c->cb, ta, tb, (int)p->m, (int)p->n, (int)p->k, &al, A,
                                (int)p->lda, B, (int)p->ldb, &be, C, (int)p->ldc);
            }
            break;
        case K_OMAT: {
            /* C (op(A)'s shape) = 1 * op(A) + 0 * C: B aliases C (cuBLAS's in-place form). */
            int mm = (int)(p->ta ? p->n : p->m), nn = (int)(p->ta ? p->m : p->n);
            if (oi->dbl) {
                const double al = 1.0, be = 0.0;
                s = cublasDgeam(c->cb, ta, CUBLAS_OP_N, mm, nn, &al, A, (int)p->lda, &be, C,
                                (int)p->ldb, C, (int)p->ldb);
            } else {
                const float al = 1.0f, be = 0.0f;
                s = cublasSgeam(c->cb, ta, CUBLAS_OP_N, mm, nn, &al, A, (int)p->lda, &be, C,
                                (int)p->ldb, C, (int)p->ldb);
            }
            break;
        }
        case K_ASUM:
            C = out ? out : SCR_CUB(c);
            s = oi->dbl ? cublasDasum(c->cb, (int)p->m, A, (int)p->inc, C)
                        : cublasSasum(c->cb, (int)p->m, A, (int)p->inc, C);
            break;
        case K_DOT:
            C = out ? out : SCR_CUB(c);
            s = oi->dbl ? cublasDdot(c->cb, (int)p->m, A, (int)p->inc, B, (int)p->inc, C)
                        : cublasSdot(c->cb, (int)p->m, A, (int)p->inc, B, (int)p->inc, C);
            break;
        }
        if (s != CUBLAS_STATUS_SUCCESS) {
            snprintf(c->err, sizeof c->err, "cuBLAS %s: %s", oi->name, cublas_status_str(s));
            return -1;
        }
        return 0;
    }
    miniblas_status_t s = MINIBLAS_STATUS_SUCCESS;
    miniblas_transpose_t ta = p->ta ? MiniblasTrans : MiniblasNoTrans;
    miniblas_transpose_t tb = p->tb ? MiniblasTrans : MiniblasNoTrans;
    switch (oi->kind) {
    case K_GEMM:
        s = oi->dbl ? miniblas_dgemm(c->mb, MiniblasColMajor, ta, tb, p->m, p->n, p->k, 1.0, A,
                                     p->lda, B, p->ldb, 0.0, C, p->ldc)
                    : miniblas_sgemm(c->mb, MiniblasColMajor, ta, tb, p->m, p->n, p->k, 1.0f, A,
                                     p->lda, B, p->ldb, 0.0f, C, p->ldc);
        break;
    case K_OMAT:
        s = oi->dbl ? miniblas_domatcopy(c->mb, MiniblasColMajor, ta, p->m, p->n, 1.0, A, p->lda,
                                         C, p->ldb)
                    : miniblas_somatcopy(c->mb, MiniblasColMajor, ta, p->m, p->n, 1.0f, A, p->lda,
                                         C, p->ldb);
        break;
    case K_ASUM:
        C = out ? out : SCR_OURS(c);
        s = oi->dbl ? miniblas_dasum_device(c->mb, p->m, A, p->inc, C)
                    : miniblas_sasum_device(c->mb, p->m, A, p->inc, C);
        break;
    case K_DOT:
        C = out ? out : SCR_OURS(c);
        s = oi->dbl ? miniblas_ddot_device(c->mb, p->m, A, p->inc, B, p->inc, C)
                    : miniblas_sdot_device(c->mb, p->m, A, p->inc, B, p->inc, C);
        break;
    }
    if (mst) *mst = s;
    if (s != MINIBLAS_STATUS_SUCCESS) {
        snprintf(c->err, sizeof c->err, "%s: %s", miniblas_status_string(s),
                 miniblas_last_error(c->mb));
        return -1;
    }
    return 0;
}

static double elapsed_ms(ctx *c) {
    float ms = 0.0f;
    if (!cuda_ok(c, cudaEventSynchronize(c->ev1), "cudaEventSynchronize") ||
        !cuda_ok(c, cudaEventElapsedTime(&ms, c->ev0, c->ev1), "cudaEventElapsedTime"))
        fatal(c, "%s", c->err);
    return (double)ms;
}

static void record(ctx *c, cudaEvent_t ev) {
    if (!cuda_ok(c, cudaEventRecord(ev, 0), "cudaEventRecord")) fatal(c, "%s", c->err);
}

/* After a failed launch: is the device still usable? */
void check_device_alive(ctx *c, const char *after) {
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) fatal(c, "the device failed after %s: %s", after, cudaGetErrorString(e));
    cudaGetLastError();
}

int run_reference(ctx *c, problem *p, part *cub) {
    prepare(c, p, cub);
    void *out = p->ref;
    if (p->oi->kind == K_OMAT) /* cuBLAS's geam may read C (beta = 0): make it finite */
        if (!cuda_ok(c, cudaMemset(p->ref, 0, p->b_elems * p->es), "cudaMemset")) return -1;
    if (p->oi->kind == K_ASUM || p->oi->kind == K_DOT) {
        out = SCR_CUB(c);
        if (!cuda_ok(c, cudaMemset(c->scratch, 0, 64), "cudaMemset") ||
            !cuda_ok(c, bench_ref_reduce(slot_ptr(p, 0, 0), p->inc,
                                         p->oi->kind == K_DOT ? slot_ptr(p, 0, p->off_b) : NULL,
                                         p->inc, p->m, p->oi->dbl, SCR_REF(c), 0),
                     "reference sum"))
            return -1;
    }
    record(c, c->ev0);
    if (launch(c, p, cub, 0, out, NULL) != 0) return -1;
    record(c, c->ev1);
    cub->first_ms = elapsed_ms(c);
    return 0;
}

static double eps_of(const problem *p) { return p->oi->dbl ? DBL_EPSILON : FLT_EPSILON; }

/* Bound on max|ours - cuBLAS| for gemm with inputs in [-1, 1) (max|A| max|B| <= 1, alpha 1):
 * see the comment at the top of this file. */
static double gemm_bound(const problem *p, int reduced) {
    double k = (double)p->k;
    double b = 2.0 * k * sqrt(k) * eps_of(p);
    if (reduced) b += 8.0 * sqrt(k) * ldexp(1.0, -10); /* TF32 inputs: 10 mantissa bits */
    return b;
}

/* Compares our output (slot 0 / scratch) with the reference; sets pt->status/note. */
static void check_result(ctx *c, problem *p, part *pt) {
    const opinfo *oi = p->oi;
    if (oi->kind == K_GEMM || oi->kind == K_OMAT) {
        int64_t rows = oi->kind == K_GEMM ? p->m : (p->ta ? p->n : p->m);
        int64_t cols = oi->kind == K_GEMM ? p->n : (p->ta ? p->m : p->n);
        int64_t ld = oi->kind == K_GEMM ? p->ldc : p->ldb;
        unsigned long long bits = 0;
        if (!cuda_ok(c, cudaMemset(SCR_MAXDIFF(c), 0, 8), "cudaMemset") ||
            !cuda_ok(c, bench_max_absdiff(slot_out(p, 0), ld, p->ref, ld, rows, cols, oi->dbl,
                                          SCR_MAXDIFF(c), 0),
                     "max |diff|") ||
            !cuda_ok(c, cudaMemcpy(&bits, SCR_MAXDIFF(c), 8, cudaMemcpyDeviceToHost),
                     "cudaMemcpy"))
            fatal(c, "%s", c->err);
        double diff;
        memcpy(&diff, &bits, sizeof diff);
        /* inputs are uniform in [-1, 1): max|A| max|B| <= 1; alpha = 1 */
        double bound = oi->kind == K_GEMM ? gemm_bound(p, pt->reduced) : 0.0;
        if (!(diff <= bound)) {
            pt->status = BENCH_WRONG;
            if (oi->kind == K_GEMM)
                snprintf(pt->note, sizeof pt->note,
                         "max|ours-cuBLAS| = %.3g > %.3g (2 k^1.5 eps max|A| max|B|%s)", diff,
                         bound, pt->reduced ? " + TF32 term" : "");
            else
                snprintf(pt->note, sizeof pt->note, "max|ours-cuBLAS| = %.3g, must be exact",
                         diff);
        }
        return;
    }
    double ours, cub, ref[2];
    if (oi->dbl) {
        if (!cuda_ok(c, cudaMemcpy(&ours, SCR_OURS(c), 8, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
            !cuda_ok(c, cudaMemcpy(&cub, SCR_CUB(c), 8, cudaMemcpyDeviceToHost), "cudaMemcpy"))
            fatal(c, "%s", c->err);
    } else {
        float fo, fc;
        if (!cuda_ok(c, cudaMemcpy(&fo, SCR_OURS(c), 4, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
            !cuda_ok(c, cudaMemcpy(&fc, SCR_CUB(c), 4, cudaMemcpyDeviceToHost), "cudaMemcpy"))
            fatal(c, "%s", c->err);
        ours = fo;
        cub = fc;
    }
    if (!cuda_ok(c, cudaMemcpy(ref, SCR_REF(c), 16, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        fatal(c, "%s", c->err);
    double n = (double)p->m;
    double rtol = eps_of(p) * fmax(64.0, 4.0 * sqrt(n));
    double bound = 2.0 * rtol * ref[1];
    double diff = fabs(ours - cub);
    if (!(diff <= bound)) {
        pt->status = BENCH_WRONG;
        snprintf(pt->note, sizeof pt->note,
                 "ours %.9g, cuBLAS %.9g, exact %.9g: |diff| %.3g > %.3g", ours, cub, ref[0],
                 diff, bound);
    }
}

static const history *find_history(ctx *c, int opk, const char *rung) {
    for (int i = c->nhist - 1; i >= 0; --i)
        if (c->hist[i].op == opk && strcmp(c->hist[i].rung, rung) == 0) return &c->hist[i];
    return NULL;
}

void add_history(ctx *c, int opk, const char *rung, double work, double ms,
                        const char *shape) {
    if (c->nhist == (int)(sizeof c->hist / sizeof c->hist[0])) {
        memmove(c->hist, c->hist + 1, sizeof c->hist - sizeof c->hist[0]);
        c->nhist--;
    }
    history *h = &c->hist[c->nhist++];
    h->op = opk;
    setf(h->rung, sizeof h->rung, "%s", rung);
    snprintf(h->shape, sizeof h->shape, "%s", shape);
    h->work = work;
    h->ms = ms;
}

/* Poison our output, run once (timed), check. */
void check_part(ctx *c, problem *p, part *pt, int opk) {
    const history *h = find_history(c, opk, pt->name);
    if (h && h->work > 0) {
        double est_s = h->ms * p->work / h->work / 1e3;
        if (est_s > c->o->slow_limit_s) {
            pt->status = BENCH_SKIPPED;
            snprintf(pt->note, sizeof pt->note, "estimated %.3g s per call from %s (limit %.3g s)",
                     est_s, h->shape, c->o->slow_limit_s);
            return;
        }
    }
    void *out = slot_out(p, 0);
    if (out) {
        size_t bytes = (p->oi->kind == K_GEMM ? p->c_elems : p->b_elems) * p->es;
        if (!cuda_ok(c, cudaMemset(out, 0xFF, bytes), "cudaMemset")) fatal(c, "%s", c->err);
    } else if (!cuda_ok(c, cudaMemset(SCR_OURS(c), 0xFF, 8), "cudaMemset")) {
        fatal(c, "%s", c->err);
    }
    prepare(c, p, pt);
    miniblas_status_t mst;
    record(c, c->ev0);
    if (launch(c, p, pt, 0, NULL, &mst) != 0) {
        pt->status = mst == MINIBLAS_STATUS_NOT_SUPPORTED ? BENCH_UNSUPPORTED : BENCH_ERROR;
        setf(pt->note, sizeof pt->note, "%s", c->err);
        check_device_alive(c, pt->name);
        return;
    }
    record(c, c->ev1);
    pt->first_ms = elapsed_ms(c);
    if (strcmp(pt->name, "auto") == 0) {
        const char *r = miniblas_last_rung(c->mb, p->oi->op);
        snprintf(pt->note, sizeof pt->note, "auto picked %s", r ? r : "?");
    } else if (pt->reduced) {
        snprintf(pt->note, sizeof pt->note, "reduced precision");
    }
    check_result(c, p, pt);
    if (pt->status == BENCH_OK && pt->first_ms > c->o->slow_limit_s * 1e3) {
        pt->status = BENCH_SKIPPED;
        snprintf(pt->note, sizeof pt->note, "first call took %.3g s (limit %.3g s)",
                 pt->first_ms / 1e3, c->o->slow_limit_s);
    }
}

/* A batch of `reps` launches of one participant; returns ms per launch, or -1 on failure. */
static double timed_batch(ctx *c, problem *p, part *pt, int reps) {
    prepare(c, p, pt);
    record(c, c->ev0);
    for (int r = 0; r < reps; ++r) {
        int slot = (int)(p->counter++ % (unsigned long long)p->slots);
        if (launch(c, p, pt, slot, NULL, NULL) != 0) {
            pt->status = BENCH_ERROR;
            setf(pt->note, sizeof pt->note, "during timing: %s", c->err);
            check_device_alive(c, pt->name);
            return -1.0;
        }
    }
    record(c, c->ev1);
    return elapsed_ms(c) / reps;
}

void check_cublas_tf32(ctx *c, problem *p, part *pt) {
    prepare(c, p, pt);
    record(c, c->ev0);
    if (launch(c, p, pt, 0, NULL, NULL) != 0) {
        pt->status = BENCH_ERROR;
        setf(pt->note, sizeof pt->note, "%s", c->err);
        check_device_alive(c, "cuBLAS TF32");
        return;
    }
    record(c, c->ev1);
    pt->first_ms = elapsed_ms(c);
    snprintf(pt->note, sizeof pt->note, "TF32 tensor cores");
}

static int is_timed(const part *pt) { return pt->status == BENCH_OK; }

/* The order of one round: 0..n-1 shuffled afresh (Fisher-Yates on xorshift64 from *state, a
   fixed seed: a run is repeatable), so no participant always runs right after the same one. */
static void round_order(int *order, int n, uint64_t *state) {
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = n - 1; i > 0; --i) {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        int j = (int)(*state % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

void time_parts(ctx *c, problem *p, part *parts, int nparts) {
    const options *o = c->o;
    const cli_common *cm = &o->com;
    stop_rule rule = {cm->trials, cm->max_trials, cm->max_noise_pct / 100.0, cm->max_time_s};
    /* warm-up and calibration, one participant at a time */
    for (int i = 0; i < nparts; ++i) {
        part *pt = &parts[i];
        if (!is_timed(pt)) continue;
        int w = pt->first_ms > 50.0 && o->warmup > 1 ? 1 : o->warmup;
        if (w > 0 && timed_batch(c, p, pt, w) < 0) continue;
        /* a slow launch needs no calibration: one per trial */
        double t1 = pt->first_ms > 2.0 * cm->min_time_ms ? pt->first_ms : timed_batch(c, p, pt, 1);
        if (t1 < 0) continue;
        double reps = cm->min_time_ms > 0 ? ceil(cm->min_time_ms / fmax(t1, 1e-4)) : 1.0;
        pt->reps = (int)fmin(fmax(reps, 1.0), 1e6);
        pt->times = calloc((size_t)rule.max_trials, sizeof(double));
        if (!pt->times) fatal(c, "out of host memory");
    }
    /* trials: every participant not yet done, round after round, until each meets the
       stopping rule (minimum trials and the noise target, or the trial or time limit). Each
       round runs them in a fresh random order: with a fixed or rotated order a participant
       would nearly always follow the same one, and one that leaves the GPU hot (tensor cores
       at full power) would slow that successor in every round. */
    int *order = malloc((size_t)(nparts > 0 ? nparts : 1) * sizeof *order);
    if (!order) fatal(c, "out of host memory");
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (;;) {
        int any = 0;
        round_order(order, nparts, &state);
        for (int j = 0; j < nparts; ++j) {
            part *pt = &parts[order[j]];
            if (!is_timed(pt) || !pt->times || pt->done) continue;
            double ms = timed_batch(c, p, pt, pt->reps);
            if (ms < 0) continue;
            pt->times[pt->ntimes++] = ms;
            pt->spent_ms += ms * pt->reps;
            pt->done = stop_done(&rule, pt->times, pt->ntimes, pt->spent_ms / 1e3);
            any |= !pt->done;
        }
        if (!any) break;
    }
    free(order);
}

/* ------------------------------------------------------------------------------------ */
/* ceilings and metadata */

/* Bring the GPU to its working clocks before anything is timed: an idle H200 sits at a few
 * hundred MHz, and the first shape measured would otherwise read low. ~0.5 s of cuBLAS SGEMM. */
void spin_up(ctx *c) {
    const int n = 2048;
    float *buf = NULL;
    if (cudaMalloc((void **)&buf, (size_t)3 * n * n * sizeof(float)) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    cudaMemset(buf, 0, (size_t)3 * n * n * sizeof(float));
    const float one = 1.0f, zero = 0.0f;
    cublasPointerMode_t pm;
    cublasGetPointerMode(c->cb, &pm);
    cublasSetPointerMode(c->cb, CUBLAS_POINTER_MODE_HOST);
    for (int i = 0; i < 1500; ++i) /* ~0.35 ms each at full clock */
        cublasSgemm(c->cb, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, buf, n, buf + (size_t)n * n, n,
                    &zero, buf + (size_t)2 * n * n, n);
    cudaDeviceSynchronize();
    cublasSetPointerMode(c->cb, pm);
    cudaFree(buf);
    cudaGetLastError();
}

void measure_ceilings(ctx *c) {
    bench_meta *m = &c->run.meta;
    size_t bytes = (size_t)1 << 30;
    void *src = NULL, *dst = NULL;
    float *blk = NULL;
    while (bytes >= ((size_t)1 << 26)) {
        if (cudaMalloc(&src, bytes) == cudaSuccess && cudaMalloc(&dst, bytes) == cudaSuccess) break;
        cudaGetLastError();
        if (src) cudaFree(src);
        src = dst = NULL;
        bytes /= 2;
    }
    if (!src) fatal(c, "cannot allocate buffers for the bandwidth ceilings");
    int blocks = c->sms * 8;
    if (!cuda_ok(c, cudaMalloc((void **)&blk, sizeof(float) * (size_t)blocks), "cudaMalloc") ||
        !cuda_ok(c, bench_fill_uniform(src, bytes / 4, 0, 42, 0), "fill") ||
        !cuda_ok(c, cudaDeviceSynchronize(), "fill"))
        fatal(c, "%s", c->err);
    int trials = c->o->com.trials < 5 ? 5 : c->o->com.trials;
    double t[1000];
    const int reps = 5;
    for (int pass = 0; pass < 2; ++pass) {
        for (int w = 0; w < 2; ++w) { /* warm-up */
            cudaError_t e = pass == 0 ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)
                                      : bench_read_stream(src, bytes, blk, blocks, 0);
            if (!cuda_ok(c, e, "ceiling warm-up")) fatal(c, "%s", c->err);
        }
        for (int i = 0; i < trials; ++i) {
            record(c, c->ev0);
            for (int r = 0; r < reps; ++r) {
                cudaError_t e = pass == 0
                                    ? cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0)
                                    : bench_read_stream(src, bytes, blk, blocks, 0);
                if (!cuda_ok(c, e, pass == 0 ? "copy ceiling" : "read ceiling"))
                    fatal(c, "%s", c->err);
            }
            record(c, c->ev1);
            t[i] = elapsed_ms(c) / reps;
        }
        double ms = stats_median(t, trials);
        if (pass == 0)
            m->copy_gbs = 2.0 * (double)bytes / (ms * 1e-3) / 1e9;
        else
            m->read_gbs = (double)bytes / (ms * 1e-3) / 1e9;
    }
    cudaFree(src);
    cudaFree(dst);
    cudaFree(blk);
    /* arithmetic peaks (FMA = 2 flops): cc 9.x has 128 FP32 lanes and 64 FP64 lanes per SM
     * (FP64 tensor cores reach the FP32 rate); cc 8.0 has 64 and 32. Others: unknown. The dgemm
     * ceiling is the FP64 SIMT peak, the one the SIMT rungs aim at (tensor-core rungs exceed it). */
    int clock_khz = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaGetLastError();
    double per_sm = c->cc_major == 9 ? 256.0 : (c->cc_major == 8 && c->cc_minor == 0) ? 128.0 : 0.0;
    if (per_sm > 0 && clock_khz > 0) {
        m->fp32_peak_gflops = per_sm * c->sms * clock_khz * 1e3 / 1e9;
        m->fp64_peak_gflops = m->fp32_peak_gflops / 2;
    }
    printf("ceilings: copy %.0f GB/s (%.0f MiB device-to-device, read + write), streaming read "
           "%.0f GB/s", m->copy_gbs, (double)bytes / 1048576.0, m->read_gbs);
    if (!isnan(m->fp32_peak_gflops))
        printf(", FP32 peak %.0f GFLOP/s (%d SMs x %.0f flop/clk x %.2f GHz), FP64 SIMT peak "
               "%.0f GFLOP/s", m->fp32_peak_gflops, c->sms, per_sm, clock_khz / 1e6,
               m->fp64_peak_gflops);
    printf("\n");
}

