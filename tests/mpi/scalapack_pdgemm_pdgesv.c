/* SPDX-License-Identifier: BSD-3-Clause */
/* ScaLAPACK over MPI with whatever BLAS the process has: PDGEMM and PDGESV on block-cyclic
 * matrices over a BLACS process grid, each result checked, each routine timed. Run it with
 * OpenBLAS alone, then with libminiblas_cblas preloaded in front of OpenBLAS (one GPU per
 * process): ScaLAPACK's local dgemm_ calls then go through the drop-in (tests/mpi/run.sh).
 *
 *   mpirun -np P scalapack_pdgemm_pdgesv [--n N] [--nb NB] [--grid RxC] [--reps R]
 *                                        [--seed S] [--selftest-fail]
 *
 * Every matrix element is a hash of (seed, matrix, global row, global column), so any process
 * can regenerate any element without communication:
 *   - PDGEMM: C = alpha A B + beta C (n x n, alpha and beta neither 0 nor 1). Each process
 *     recomputes its own block-cyclic part of C from the global rows of A and columns of B it
 *     needs, with OpenBLAS's own cblas_dgemm (looked up in the OpenBLAS library itself, so a
 *     preloaded drop-in does not serve it), and compares every element against the bound
 *     2 (n + 3) eps (|alpha| |A| |B| + |beta| |C|) elementwise.
 *   - PDGESV: A x = b with A diagonally dominant; the solution is gathered and the scaled
 *     residual ||A x - b||_inf / (||A||_inf ||x||_inf n eps) is computed in plain loops from
 *     regenerated elements (no BLAS), and must be below 16 (and INFO = 0).
 * Each routine runs R times (default 3; the first includes start-up costs such as a GPU's
 * context); the times are the slowest process's, the first and the best of the others.
 * --selftest-fail perturbs one element of C and one of x after the last run, to show that
 * both checks fail then. Exit status 0 when every check passes, 1 when one fails, 2 on a
 * usage or set-up error. Rank 0 prints; the line "times: pdgemm=S pdgesv=S" is for scripts. */
#define _GNU_SOURCE
#include <cblas.h>
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ScaLAPACK, PBLAS and BLACS by their Fortran names (32-bit integers, as Debian builds them).
 * BLACS and PBLAS are written in C and take character arguments as plain char pointers;
 * pdlange_ is not used (the norms are computed here). */
void blacs_pinfo_(int *mypnum, int *nprocs);
void blacs_get_(int *icontxt, int *what, int *val);
void blacs_gridinit_(int *icontxt, const char *order, int *nprow, int *npcol);
void blacs_gridinfo_(int *icontxt, int *nprow, int *npcol, int *myrow, int *mycol);
void blacs_gridexit_(int *icontxt);
void blacs_exit_(int *cont);
int numroc_(int *n, int *nb, int *iproc, int *isrcproc, int *nprocs);
void descinit_(int *desc, int *m, int *n, int *mb, int *nb, int *irsrc, int *icsrc, int *ictxt,
               int *lld, int *info);
void pdgemm_(const char *transa, const char *transb, int *m, int *n, int *k, double *alpha,
             double *a, int *ia, int *ja, int *desca, double *b, int *ib, int *jb, int *descb,
             double *beta, double *c, int *ic, int *jc, int *descc);
void pdgesv_(int *n, int *nrhs, double *a, int *ia, int *ja, int *desca, int *ipiv, double *b,
             int *ib, int *jb, int *descb, int *info);

enum { MAT_A = 1, MAT_B = 2, MAT_C = 3, MAT_S = 4, MAT_RHS = 5 }; /* S: the system's matrix */

static uint64_t g_seed = 20261126;

/* Element (i, j) of matrix `which`: uniform in [-1, 1), from a hash (splitmix64). */
static double elem(int which, int64_t i, int64_t j) {
    uint64_t z = g_seed * 0x9E3779B97F4A7C15ull + ((uint64_t)which << 58) + ((uint64_t)i << 29) +
                 (uint64_t)j;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-52 - 1.0;
}

/* The system's matrix: diagonally dominant (each off-diagonal row sum is below n - 1). */
static double elem_s(int n, int64_t i, int64_t j) {
    return elem(MAT_S, i, j) + (i == j ? (double)n : 0.0);
}

/* Global index of local index l (0-based) on process coordinate p of np, block size nb,
 * distribution starting on coordinate 0. */
static int64_t l2g(int64_t l, int nb, int p, int np) {
    return (l / nb * np + p) * nb + l % nb;
}

typedef void (*dgemm_fn)(CBLAS_ORDER, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, blasint, blasint, blasint,
                         double, const double *, blasint, const double *, blasint, double,
                         double *, blasint);

/* OpenBLAS's own cblas_dgemm: the library this program was linked with (found through a
 * symbol only OpenBLAS has), asked for the symbol directly so that a preloaded library that
 * also defines cblas_dgemm does not answer. */
static dgemm_fn openblas_dgemm(char *where, size_t where_size) {
    Dl_info info;
    if (!dladdr((void *)&openblas_get_config, &info) || !info.dli_fname) {
        snprintf(where, where_size, "dladdr(openblas_get_config) failed");
        return NULL;
    }
    snprintf(where, where_size, "%s", info.dli_fname);
    void *h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (!h) return NULL;
    dgemm_fn f = (dgemm_fn)dlsym(h, "cblas_dgemm");
    Dl_info fi;
    /* the symbol must live in that very file, not come from a library it depends on */
    if (f && (!dladdr((void *)f, &fi) || !fi.dli_fname || strcmp(fi.dli_fname, info.dli_fname)))
        f = NULL;
    return f;
}

typedef struct {
    int n, nb, nprow, npcol, reps, selftest_fail;
} options;

static int parse(int argc, char **argv, options *o, int rank) {
    o->n = 2001;
    o->nb = 128;
    o->nprow = o->npcol = 0;
    o->reps = 3;
    o->selftest_fail = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--selftest-fail")) {
            o->selftest_fail = 1;
            continue;
        }
        if (!v) goto bad;
        ++i;
        if (!strcmp(a, "--n")) {
            long x = strtol(v, &end, 10);
            if (*end || x < 1 || x > 100000) goto bad;
            o->n = (int)x;
        } else if (!strcmp(a, "--nb")) {
            long x = strtol(v, &end, 10);
            if (*end || x < 1 || x > 4096) goto bad;
            o->nb = (int)x;
        } else if (!strcmp(a, "--reps")) {
            long x = strtol(v, &end, 10);
            if (*end || x < 1 || x > 100) goto bad;
            o->reps = (int)x;
        } else if (!strcmp(a, "--seed")) {
            unsigned long long x = strtoull(v, &end, 10);
            if (*end) goto bad;
            g_seed = x;
        } else if (!strcmp(a, "--grid")) {
            if (sscanf(v, "%dx%d", &o->nprow, &o->npcol) != 2 || o->nprow < 1 || o->npcol < 1)
                goto bad;
        } else {
            goto bad;
        }
        continue;
    bad:
        if (rank == 0)
            fprintf(stderr,
                    "usage: %s [--n N] [--nb NB] [--grid RxC] [--reps R] [--seed S] "
                    "[--selftest-fail]\n  (bad or incomplete argument: %s)\n",
                    argv[0], a);
        return -1;
    }
    return 0;
}

static double max_over_ranks(double x) {
    double y;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return y;
}

typedef struct {
    int ctxt, nprow, npcol, myrow, mycol, n, nb, mloc, nloc, lld;
} grid;

/* ---- PDGEMM: run, time, check. Returns 0 when the check passes. */
static int run_pdgemm(const grid *g, const options *o, dgemm_fn ref_dgemm, double *t_first,
                      double *t_best) {
    int n = g->n, nb = g->nb, one = 1, info = 0, desc[9], lld = g->lld;
    int zero = 0, ctxt = g->ctxt;
    size_t loc = (size_t)g->lld * (size_t)(g->nloc > 0 ? g->nloc : 1);
    double alpha = 0.75, beta = -1.25;
    double *A = malloc(loc * sizeof *A), *B = malloc(loc * sizeof *B), *C = malloc(loc * sizeof *C);
    int ok_alloc = A && B && C;
    if (max_over_ranks(ok_alloc ? 0 : 1) != 0) {
        if (ok_alloc == 0) fprintf(stderr, "pdgemm: out of memory\n");
        free(A), free(B), free(C);
        return 1;
    }
    descinit_(desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    for (int jl = 0; jl < g->nloc; ++jl) {
        int64_t j = l2g(jl, nb, g->mycol, g->npcol);
        for (int il = 0; il < g->mloc; ++il) {
            int64_t i = l2g(il, nb, g->myrow, g->nprow);
            A[(size_t)jl * lld + il] = elem(MAT_A, i, j);
            B[(size_t)jl * lld + il] = elem(MAT_B, i, j);
        }
    }
    *t_best = INFINITY;
    for (int r = 0; r < o->reps; ++r) {
        for (int jl = 0; jl < g->nloc; ++jl) /* C is overwritten: a fresh C each time */
            for (int il = 0; il < g->mloc; ++il)
                C[(size_t)jl * lld + il] =
                    elem(MAT_C, l2g(il, nb, g->myrow, g->nprow), l2g(jl, nb, g->mycol, g->npcol));
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgemm_("N", "N", &n, &n, &n, &alpha, A, &one, &one, desc, B, &one, &one, desc, &beta, C,
                &one, &one, desc);
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (r == 0) *t_first = t;
        if (r > 0 || o->reps == 1) *t_best = fmin(*t_best, t);
    }
    free(A), free(B);
    if (o->selftest_fail && g->myrow == g->nprow - 1 && g->mycol == g->npcol - 1 && g->mloc > 0 &&
        g->nloc > 0)
        C[(size_t)(g->nloc / 2) * lld + g->mloc / 2] += 1e-6;

    /* the reference for this process's part: rows of A, columns of B, from the generator */
    double worst = 0, maxerr = 0;
    long long nan_count = 0;
    if (g->mloc > 0 && g->nloc > 0) {
        size_t m = (size_t)g->mloc, q = (size_t)g->nloc;
        double *Ar = malloc(m * n * sizeof *Ar), *Bc = malloc((size_t)n * q * sizeof *Bc);
        double *R = malloc(m * q * sizeof *R), *Ab = malloc(m * q * sizeof *Ab);
        if (!Ar || !Bc || !R || !Ab) {
            fprintf(stderr, "pdgemm check: out of memory\n");
            worst = INFINITY;
        } else {
            for (int64_t j = 0; j < n; ++j)
                for (size_t il = 0; il < m; ++il)
                    Ar[j * m + il] = elem(MAT_A, l2g((int64_t)il, nb, g->myrow, g->nprow), j);
            for (size_t jl = 0; jl < q; ++jl) {
                int64_t jg = l2g((int64_t)jl, nb, g->mycol, g->npcol);
                for (int64_t i = 0; i < n; ++i) Bc[jl * n + i] = elem(MAT_B, i, jg);
            }
            for (size_t jl = 0; jl < q; ++jl)
                for (size_t il = 0; il < m; ++il) {
                    double c0 = elem(MAT_C, l2g((int64_t)il, nb, g->myrow, g->nprow),
                                     l2g((int64_t)jl, nb, g->mycol, g->npcol));
                    R[jl * m + il] = c0;
                    Ab[jl * m + il] = fabs(beta) * fabs(c0);
                }
            ref_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)q, n, alpha,
                      Ar, (blasint)m, Bc, n, beta, R, (blasint)m);
            for (size_t x = 0; x < m * n; ++x) Ar[x] = fabs(Ar[x]);
            for (size_t x = 0; x < (size_t)n * q; ++x) Bc[x] = fabs(Bc[x]);
            ref_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (blasint)m, (blasint)q, n,
                      fabs(alpha), Ar, (blasint)m, Bc, n, 1.0, Ab, (blasint)m);
            for (size_t jl = 0; jl < q; ++jl)
                for (size_t il = 0; il < m; ++il) {
                    double e = fabs(C[jl * lld + il] - R[jl * m + il]);
                    double bound = 2.0 * (n + 3) * DBL_EPSILON * Ab[jl * m + il];
                    if (isnan(e)) {
                        ++nan_count;
                        continue;
                    }
                    if (e > maxerr) maxerr = e;
                    double ratio = bound > 0 ? e / bound : e > 0 ? INFINITY : 0;
                    if (ratio > worst) worst = ratio;
                }
        }
        free(Ar), free(Bc), free(R), free(Ab);
    }
    free(C);
    double nans = max_over_ranks((double)nan_count);
    double worst_all = max_over_ranks(nans > 0 ? INFINITY : worst);
    double maxerr_all = max_over_ranks(maxerr);
    int ok = worst_all <= 1.0;
    if (g->myrow == 0 && g->mycol == 0) {
        printf("pdgemm: C = %.2f A B %+.2f C, n = %d: max |C - C_ref| = %.3g; worst error / bound "
               "= %.3g (bound 2 (n+3) eps (|alpha| |A||B| + |beta| |C|) elementwise)%s: %s\n",
               alpha, beta, n, maxerr_all, worst_all, nans > 0 ? "; NaN in C" : "",
               ok ? "ok" : "FAILED");
    }
    return ok ? 0 : 1;
}

/* ---- PDGESV: run, time, check. Returns 0 when the check passes. */
static int run_pdgesv(const grid *g, const options *o, double *t_first, double *t_best) {
    int n = g->n, nb = g->nb, one = 1, zero = 0, info = 0, descA[9], descB[9], lld = g->lld;
    int ctxt = g->ctxt;
    size_t loc = (size_t)g->lld * (size_t)(g->nloc > 0 ? g->nloc : 1);
    /* b: n x 1 on process column 0 */
    int nlocb = g->mycol == 0 ? 1 : 0;
    double *A = malloc(loc * sizeof *A), *b = malloc((size_t)g->lld * sizeof *b);
    int *ipiv = malloc(((size_t)g->mloc + nb) * sizeof *ipiv);
    int ok_alloc = A && b && ipiv;
    if (max_over_ranks(ok_alloc ? 0 : 1) != 0) {
        if (!ok_alloc) fprintf(stderr, "pdgesv: out of memory\n");
        free(A), free(b), free(ipiv);
        return 1;
    }
    descinit_(descA, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    descinit_(descB, &n, &one, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    *t_best = INFINITY;
    int info_bad = 0;
    for (int r = 0; r < o->reps; ++r) {
        for (int jl = 0; jl < g->nloc; ++jl) {
            int64_t j = l2g(jl, nb, g->mycol, g->npcol);
            for (int il = 0; il < g->mloc; ++il)
                A[(size_t)jl * lld + il] = elem_s(n, l2g(il, nb, g->myrow, g->nprow), j);
        }
        for (int il = 0; il < g->mloc && nlocb; ++il)
            b[il] = elem(MAT_RHS, l2g(il, nb, g->myrow, g->nprow), 0);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        pdgesv_(&n, &one, A, &one, &one, descA, ipiv, b, &one, &one, descB, &info);
        double t = max_over_ranks(MPI_Wtime() - t0);
        if (info != 0) info_bad = info;
        if (r == 0) *t_first = t;
        if (r > 0 || o->reps == 1) *t_best = fmin(*t_best, t);
    }
    /* x (in b) to every process: each element is held by exactly one process */
    double *x = calloc((size_t)n, sizeof *x);
    if (!x) {
        fprintf(stderr, "pdgesv check: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (nlocb)
        for (int il = 0; il < g->mloc; ++il) x[l2g(il, nb, g->myrow, g->nprow)] = b[il];
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (o->selftest_fail) x[n / 2] += 1e-6;
    /* ||A x - b||_inf and ||A||_inf over this process's share of the rows, in plain loops */
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    double rmax = 0, amax = 0, xmax = 0;
    for (int64_t i = rank; i < n; i += nprocs) {
        double s = -elem(MAT_RHS, i, 0), a = 0;
        for (int64_t j = 0; j < n; ++j) {
            double v = elem_s(n, i, j);
            s += v * x[j];
            a += fabs(v);
        }
        if (!(fabs(s) <= rmax)) rmax = isnan(s) ? INFINITY : fabs(s);
        if (a > amax) amax = a;
    }
    for (int i = 0; i < n; ++i)
        if (!(fabs(x[i]) <= xmax)) xmax = isnan(x[i]) ? INFINITY : fabs(x[i]);
    rmax = max_over_ranks(rmax);
    amax = max_over_ranks(amax);
    int info_any = (int)max_over_ranks(info_bad != 0 ? 1.0 : 0.0);
    double scaled = rmax / (amax * xmax * n * DBL_EPSILON);
    if (!(xmax > 0)) scaled = INFINITY; /* x = 0 cannot solve A x = b with b != 0 */
    int ok = !info_any && scaled < 16.0;
    if (rank == 0)
        printf("pdgesv: A x = b, n = %d, A diagonally dominant: INFO %s; ||Ax-b|| / (||A|| ||x|| "
               "n eps) = %.3g (threshold 16): %s\n",
               n, info_any ? "nonzero" : "= 0", scaled, ok ? "ok" : "FAILED");
    free(A), free(b), free(ipiv), free(x);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    options o;
    if (parse(argc, argv, &o, rank) != 0) {
        MPI_Finalize();
        return 2;
    }
    if (o.nprow == 0) { /* the squarest grid: nprow <= npcol */
        o.nprow = 1;
        for (int p = 1; p * p <= nprocs; ++p)
            if (nprocs % p == 0) o.nprow = p;
        o.npcol = nprocs / o.nprow;
    }
    if (o.nprow * o.npcol != nprocs) {
        if (rank == 0)
            fprintf(stderr, "grid %dx%d does not match %d processes\n", o.nprow, o.npcol, nprocs);
        MPI_Finalize();
        return 2;
    }
    char where[512];
    dgemm_fn ref = openblas_dgemm(where, sizeof where);
    if (max_over_ranks(ref ? 0 : 1) != 0) {
        if (!ref) fprintf(stderr, "OpenBLAS's own cblas_dgemm not found (%s)\n", where);
        MPI_Finalize();
        return 2;
    }

    grid g;
    int iam, np, m1 = -1, z = 0;
    blacs_pinfo_(&iam, &np);
    blacs_get_(&m1, &z, &g.ctxt);
    blacs_gridinit_(&g.ctxt, "Row", &o.nprow, &o.npcol);
    blacs_gridinfo_(&g.ctxt, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
    g.n = o.n;
    g.nb = o.nb;
    g.mloc = numroc_(&g.n, &g.nb, &g.myrow, &z, &g.nprow);
    g.nloc = numroc_(&g.n, &g.nb, &g.mycol, &z, &g.npcol);
    g.lld = g.mloc > 1 ? g.mloc : 1;
    if (rank == 0)
        printf("scalapack_pdgemm_pdgesv: %d processes on a %dx%d grid, n = %d, block %d, %d "
               "runs each, seed %llu%s\n",
               nprocs, g.nprow, g.npcol, g.n, g.nb, o.reps, (unsigned long long)g_seed,
               o.selftest_fail ? " (--selftest-fail: results perturbed, the checks must fail)" : "");
    fflush(stdout);

    double gf1 = NAN, gb = NAN, sf1 = NAN, sb = NAN;
    int fails = run_pdgemm(&g, &o, ref, &gf1, &gb);
    fails += run_pdgesv(&g, &o, &sf1, &sb);
    if (rank == 0) {
        double nn = (double)g.n;
        printf("pdgemm: first %.4f s, best %.4f s (%.1f GFLOP/s)\n", gf1, gb,
               2 * nn * nn * nn / gb * 1e-9);
        printf("pdgesv: first %.4f s, best %.4f s (%.1f GFLOP/s)\n", sf1, sb,
               (2.0 / 3.0 * nn * nn * nn + 2 * nn * nn) / sb * 1e-9);
        printf("times: pdgemm=%.4f pdgesv=%.4f\n", gb, sb);
        printf("result: %s\n", fails ? "FAILED" : "passed");
        fflush(stdout);
    }
    blacs_gridexit_(&g.ctxt);
    int cont = 1;
    blacs_exit_(&cont);
    MPI_Finalize();
    return fails ? 1 : 0;
}
