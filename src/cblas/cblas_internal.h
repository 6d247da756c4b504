/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internal to libminiblas_cblas. See docs/cblas.md for the design. The layers, top down:
 *
 *   entry.c      the exported cblas_* and Fortran symbols: the shared argument check
 *                (src/check.h), the small-call quick paths, then the routing decision
 *   route.c      initialisation and the one routing decision: CPU BLAS, or the GPU in place
 *                or staged, or refused
 *   config.c     the one reader of the environment: the settings table, MINIBLAS_CBLAS_TUNING
 *   cpu_blas.c   the CPU BLAS, loaded at run time (dlopen/dlsym)
 *   xerbla.c     error reporting: cblas_xerbla, the Fortran xerbla_
 *   diag.c       MINIBLAS_<OP> rung settings the GPU cannot honour, said once
 *   gpu_state.c  the GPU side: probe, pointer kinds, per-thread state, the call frame
 *   staging.c    pinned chunks, device buffers, the host copies (copy pool), copies in/out
 *   gpu_gemm.c   the schedule of a staged gemm, and its split over several GPUs
 *   mgpu_plan.c  the split plan (pure C); mgpu.c: one worker thread per extra GPU
 *   gpu_ops.c    asum, dot, omatcopy on the GPU
 *   trace.c      MINIBLAS_CBLAS_VERBOSE=2 timing lines of a GPU gemm
 *   ptr.c, fork.c, copypool.c: address-only host checks, fork() children, the copy pool
 *
 * The core is used only through include/miniblas.h (and the shared argument check).
 */
#ifndef MINIBLAS_CBLAS_INTERNAL_H
#define MINIBLAS_CBLAS_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <cblas.h> /* OpenBLAS's: the signatures and enum values we must match */

/* ------------------------------------------------------------------ configuration (config.c) */

/* The crossover table: a call on host pointers goes to the GPU only when it reaches every
 * bound of its op. MBC_NEVER: never by size (only forced or with device pointers). */
typedef enum mbc_xover {
    MBC_X_SGEMM = 0, /* min m*n*k */
    MBC_X_DGEMM,     /* min m*n*k */
    MBC_X_GEMM_DIM,  /* min of min(m, n, k) */
    MBC_X_ASUM,      /* min n of sasum (dasum: n / 2, the same bytes) */
    MBC_X_DOT,       /* min n of sdot (ddot: n / 2) */
    MBC_X_OMATCOPY,  /* min rows*cols */
    MBC_X_COUNT
} mbc_xover;
#define MBC_NEVER INT64_MAX
#define MBC_MAX_DEVICES 64

/* Every setting of the layer, read once by mbc_config_read (the only reader of the
 * environment); the user-facing table and the tuning keys are in config.c. */
typedef struct mbc_config {
    /* user-facing settings */
    char cpu_blas_lib[512]; /* MINIBLAS_CPU_BLAS_LIB: the CPU BLAS to dlopen ("": default) */
    int gpu_enabled;        /* MINIBLAS_CBLAS_GPU: 0 never uses the GPU */
    int ndevices;           /* MINIBLAS_CBLAS_DEVICES (alias MINIBLAS_CBLAS_DEVICE): the list; */
    int devices[MBC_MAX_DEVICES]; /* 0 with all_devices */
    int all_devices;        /* "all" */
    int device;             /* the first device of the list (0 for all or unset) */
    int64_t xover[MBC_X_COUNT]; /* MINIBLAS_CBLAS_MIN_*: the crossovers */
    int verbose;            /* MINIBLAS_CBLAS_VERBOSE: 0, 1 (notices), 2 (+ a line per call), 3 */
    int ptr_check;          /* MINIBLAS_CBLAS_PTR_CHECK: classify pointers (device/managed/pinned) */
    /* MINIBLAS_CBLAS_TUNING (experts: the GPU gemm schedule and the staging) */
    int64_t panel;          /* panel=: gemm panel width in columns (0: automatic) */
    int64_t kslab;          /* kslab=: depth of gemm's phase-1 k-slabs (-1: automatic, 0: off) */
    int64_t nslab;          /* nslab=: most k-slabs in phase 1 (at most half of k in all) */
    size_t chunk_max;       /* chunk_mb=: largest pinned staging chunk, bytes */
    int copy_threads;       /* copy_threads=: host threads packing staging buffers */
    int copy_threads_auto;  /* copy_threads not set: mbc_copy_threads_auto for the GPUs of
                               each call (copy_threads holds the one-GPU count) */
    long ncpu;              /* the cores online at initialisation */
    int64_t pin_row_kb;     /* pin_row_kb=: pinned inputs whose columns are shorter (KB) are
                               packed into the staging chunks, not DMA'd from place (-1:
                               automatic, mbc_pin_pack; 0: never) */
    int64_t row_gemm_k;     /* row_gemm_k=: a gemm panel after the first ones is computed per
                               row block of A where a block's product has this many K
                               elements of C (-1: automatic, MBC_ROW_GEMM_K; 0: never) */
    int64_t head_rows;      /* head_rows=: the gemm panels below A's last row block are
                               computed by one gemm per (row block x panel) where all are by
                               rows, so a split need not keep them on its first device (-1:
                               automatic, on; 0 off; 1 on) */
    int64_t row_out;        /* row_out=: pinned C, beta == 0: C of a panel computed by row
                               blocks copied back block by block (-1: automatic, on; 0 off;
                               1 on) */
    int64_t split_cols;     /* split_cols=: several GPUs: the least columns of C per device,
                               any volume (-1: automatic, mgpu_plan.h) */
    int64_t split_vec;      /* split_vec=: several GPUs: the least elements of a reduction's
                               vectors (of an omatcopy's A) per device (-1: automatic,
                               mgpu_plan.h) */
    int64_t a_parts;        /* a_parts=: several GPUs, pinned A: each device DMAs a part of
                               each piece of A and copies the rest from the others (-1:
                               automatic, on; 0: each DMAs all of A) */
    /* tests only */
    int64_t test_fail_gemm; /* MINIBLAS_CBLAS_TEST_FAIL_GEMM=N[@P]: a staged gemm fails after
                               N of its GPU gemms; -1: off */
    int test_fail_dev;      /* ...@P: only on the P-th device of the list (from 0); -1: every one */
    int64_t test_fail_reduce; /* MINIBLAS_CBLAS_TEST_FAIL_REDUCE=N[@P]: a reduction on pinned
                                 vectors fails after N of its pieces on a device, an omatcopy
                                 on the GPU at its piece (one per device); -1: off */
    int test_fail_reduce_dev; /* ...@P: as test_fail_dev */
    /* found at initialisation, not settings */
    int gpu;                /* 1: a usable GPU was found and MINIBLAS_CBLAS_GPU is not 0 */
    int cuda_memory;        /* 0 when the probe found no CUDA device: no pointer can be device memory */
    int nuse;               /* the devices the layer runs on (the list resolved by the probe): */
    int use[MBC_MAX_DEVICES]; /* use[0] is `device`; gemm on host operands and reductions on
                                 pinned vectors may use them all */
} mbc_config;

extern mbc_config mbc_cfg;

/* The layer's one access to the environment (getenv). */
const char *mbc_getenv(const char *name);
/* Fill *cfg with the defaults, then the settings get(name) returns (NULL: unset); `ncpu`
 * sizes the default copy_threads. A bad value (not a number, out of range, an unknown
 * tuning key) is one line on `err` and keeps its default. Returns the number of lines. */
int mbc_config_read(mbc_config *cfg, const char *(*get)(const char *name), long ncpu, FILE *err);
/* The default copy_threads for a call on `ngpu` GPUs (a split gemm: its devices) on `ncpu`
 * cores. */
int mbc_copy_threads_auto(long ncpu, int ngpu);

void mbc_notice(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;                         /* one line on stderr when verbose */

/* ------------------------------------------------------------------ routing (route.c) */

void mbc_init(void);          /* once per process (pthread_once); every entry point calls it */
extern int mbc_force;         /* MINIBLAS_CBLAS_PATH_* of miniblas_cblas_force_path */
/* Flags that turn the GPU off for the rest of the process; written and read with
 * mbc_flag_set / mbc_flag (atomics: threads read them while another sets them). */
extern int mbc_gpu_broken; /* a sticky CUDA error was seen */
extern int mbc_exiting;    /* the process is exiting (CUDA may be unloading) */
extern int mbc_forked;     /* this is a child of fork(): CUDA is unusable here (fork.c) */
static inline int mbc_flag(const int *f) { return __atomic_load_n(f, __ATOMIC_ACQUIRE); }
static inline void mbc_flag_set(int *f) { __atomic_store_n(f, 1, __ATOMIC_RELEASE); }
int mbc_gpu_usable(void);          /* a GPU was found and none of the flags is set */

/* Where a call runs: the one decision every entry point takes (mbc_route). */
typedef enum mbc_route_t {
    MBC_ROUTE_CPU = 0,        /* the CPU BLAS */
    MBC_ROUTE_GPU = 1,        /* the GPU, host operands staged */
    MBC_ROUTE_GPU_INPLACE = 2, /* the GPU on device/managed operands only */
    MBC_ROUTE_REFUSE = 3      /* an operand is not host memory and no GPU can run the call */
} mbc_route_t;

/* A call as the decision sees it. */
typedef struct mbc_call {
    int xover;       /* the op's crossover (MBC_X_*) */
    double size;     /* the call's measure in that crossover's unit; -1: never by size */
    int64_t min_dim; /* gemm: min(m, n, k), against MBC_X_GEMM_DIM; else INT64_MAX */
    int cpu_have;    /* the CPU BLAS (or the layer's own loops) can run it */
    int nops;        /* operands the call references, and their kinds (mbc_ptr_kind) */
    int kind[3];
} mbc_call;

/* Device operands: the GPU (in place when every operand is); an unreachable operand: refused
 * (*bad: its index); host operands: the GPU when usable and the CPU BLAS cannot run the call,
 * the path is forced onto it, or the call reaches its crossover (MBC_ROUTE_GPU); else CPU. */
mbc_route_t mbc_route(const mbc_call *c, int *bad);
/* The size in crossover x's unit below which a call on host memory surely stays on the CPU
 * (0: none does, INT64_MAX: every one); the small-call quick paths are built from it. */
int64_t mbc_route_cpu_below(int x);
void mbc_quick_update(void);       /* entry.c: recompute the quick paths' limits (after
                                      settings, a forced path, a lost GPU) */
void mbc_fork_init(void);          /* fork.c: the pthread_atfork handlers, from mbc_init */
void mbc_gpu_atfork_child(void);   /* gpu_state.c: forget the parent's GPU state (no CUDA calls) */
void mbc_mgpu_atfork_child(void);  /* mgpu.c: the device workers stayed in the parent */

/* MINIBLAS_SGEMM, MINIBLAS_DGEMM, ... naming no rung of their op, or one this GPU / math mode
 * does not permit: one line each on `out` (diag.c; called once, at initialisation, when a GPU
 * is usable: calls on device pointers would fail). Returns the number of lines written. */
int mbc_check_rung_env(int cc_major, int cc_minor, FILE *out);

/* ------------------------------------------------------------------ CPU BLAS (cpu_blas.c) */

typedef struct mbc_cpu_blas {
    void *handle;
    char name[512];
    __typeof__(&cblas_sgemm) cblas_sgemm;
    __typeof__(&cblas_dgemm) cblas_dgemm;
    __typeof__(&cblas_sasum) cblas_sasum;
    __typeof__(&cblas_dasum) cblas_dasum;
    __typeof__(&cblas_sdot) cblas_sdot;
    __typeof__(&cblas_ddot) cblas_ddot;
    __typeof__(&cblas_somatcopy) cblas_somatcopy;
    __typeof__(&cblas_domatcopy) cblas_domatcopy;
    void (*sgemm_)(const char *, const char *, const blasint *, const blasint *, const blasint *,
                   const float *, const float *, const blasint *, const float *, const blasint *,
                   const float *, float *, const blasint *, size_t, size_t);
    void (*dgemm_)(const char *, const char *, const blasint *, const blasint *, const blasint *,
                   const double *, const double *, const blasint *, const double *,
                   const blasint *, const double *, double *, const blasint *, size_t, size_t);
    float (*sasum_)(const blasint *, const float *, const blasint *);
    double (*dasum_)(const blasint *, const double *, const blasint *);
    float (*sdot_)(const blasint *, const float *, const blasint *, const float *, const blasint *);
    double (*ddot_)(const blasint *, const double *, const blasint *, const double *,
                    const blasint *);
    void (*xerbla_)(const char *, const blasint *, size_t); /* the CPU BLAS's, if any */
} mbc_cpu_blas;

extern mbc_cpu_blas mbc_cpu;
void mbc_cpu_load(void); /* called by mbc_init */
/* A symbol of the loaded CPU BLAS; NULL when absent or when it is libminiblas_cblas's own. */
void *mbc_cpu_sym(const char *name);

/* Column-major gemm on the CPU BLAS (Fortran symbol preferred, else cblas); 0 when done,
 * -1 when the CPU BLAS has neither symbol. ta/tb: 0/1. */
int mbc_cpu_gemm_colmajor(int dbl, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const void *A, int64_t lda, const void *B, int64_t ldb,
                          double beta, void *C, int64_t ldc);

/* sum |x_i| (y == NULL) or sum x_i y_i of n elements at unit increments on the CPU BLAS
 * (cblas symbol, else the Fortran one); 0 when done, -1 when the CPU BLAS has neither. */
int mbc_cpu_reduce(int dbl, int64_t n, const void *x, const void *y, double *result);

/* C = beta C (beta == 0: C = 0, NaN not kept), column-major m x n: gemm with alpha == 0 or
 * k == 0, where A and B are not referenced (and may be NULL). */
void mbc_cpu_scale_c(int dbl, int64_t m, int64_t n, double beta, void *C, int64_t ldc);

/* ------------------------------------------------------------------ errors (xerbla.c) */

/* Error reporting: through the program's cblas_xerbla (or ours), or the Fortran xerbla_. */
void mbc_report_cblas(int param, const char *routine, const char *message);
/* The same for a gemm: row_major passes reference CBLAS's number of a row-major call (that of
 * the column-major call it becomes: M 4 <-> 5 N, lda 9 <-> 11 ldb); `param` is the caller's
 * number, which our default cblas_xerbla prints (as reference's swaps back). */
void mbc_report_cblas_gemm(int param, int row_major, const char *routine, const char *message);
int mbc_gemm_param_rowmajor(int param); /* caller's number <-> swapped number (an involution) */
void mbc_report_fortran(int info, const char *routine6);
/* "This call cannot be computed" (not an argument error): parameter 0; `output` says what
 * became of the output ("nothing was written", or that it is undefined). */
void mbc_report_cannot(const char *routine, const char *why, const char *output);
/* An operand that is not host memory while no GPU can run the call (MBC_ROUTE_REFUSE):
 * its parameter number (the caller's numbering), nothing written. */
void mbc_report_unreachable(int param, const char *routine, const char *operand);

/* ------------------------------------------------------------------ GPU side (gpu_*.c) */

/* Where an operand lives. MBC_UNREACHABLE: not host memory, and no usable GPU to run on (a
 * device pointer after a sticky CUDA error, at process exit, in a fork() child, or with the
 * GPU disabled): the call is refused, never given to the CPU BLAS. */
enum { MBC_HOST = 0, MBC_PINNED = 1, MBC_DEVICE = 2 /* device or managed */, MBC_UNREACHABLE = 3 };
/* The kind of the operand [p, p + bytes). MBC_HOST for NULL, ordinary host memory, anything
 * with MINIBLAS_CBLAS_PTR_CHECK=0 or when no CUDA device exists; otherwise CUDA's answer when
 * the GPU is usable and CUDA gives one, else mbc_host_readable decides HOST / UNREACHABLE. */
int mbc_ptr_kind(const void *p, size_t bytes);
/* The part of mbc_ptr_kind without CUDA (entry.c): HOST or UNREACHABLE. */
int mbc_ptr_kind_nocuda(const void *p, size_t bytes);

/* A column-major gemm (already normalised), operands classified. */
typedef struct mbc_gemm {
    int dbl, ta, tb;
    int64_t m, n, k;
    double alpha, beta;
    const void *A;
    int64_t lda;
    const void *B;
    int64_t ldb;
    void *C;
    int64_t ldc;
    int a_kind, b_kind, c_kind;
} mbc_gemm;

/* How far the host copy of C was written when a staged gemm failed: every column below
 * done_col is final, and rows below done_row of column done_col. */
typedef struct mbc_progress {
    int64_t done_col, done_row;
} mbc_progress;

/* Each returns 0 on success, else nonzero with a sentence in msg (for the verbose notice).
 * A failure leaves host outputs untouched except for gemm's progress as described, and for
 * outputs the GPU writes in place (device memory; pinned C with beta == 0), which are then
 * undefined. */
int mbc_gpu_gemm(const mbc_gemm *g, mbc_progress *prog, char *msg, size_t msg_size);
int mbc_gpu_asum(int dbl, int64_t n, const void *x, int64_t incx, int x_kind, double *result,
                 char *msg, size_t msg_size);
int mbc_gpu_dot(int dbl, int64_t n, const void *x, int64_t incx, int x_kind, const void *y,
                int64_t incy, int y_kind, double *result, char *msg, size_t msg_size);
/* Column-major omatcopy (normalised): A rows x cols, B = alpha op(A). */
int mbc_gpu_omatcopy(int dbl, int trans, int64_t rows, int64_t cols, double alpha,
                     const void *A, int64_t lda, int a_kind, void *B, int64_t ldb, int b_kind,
                     char *msg, size_t msg_size);
/* Probe for usable GPUs (called once by mbc_init when MINIBLAS_CBLAS_GPU is not 0): resolves
 * the device list (all or unset: every device CUDA shows) into mbc_cfg.use / nuse. 0 (msg
 * says why) when there is none or the list names a device that does not exist. */
int mbc_gpu_probe(char *msg, size_t msg_size);

#endif
