/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference CBLAS test programs (x[sdcz]cblat[123]) were linked against Debian's
 * reference libblas.so.3, which also defines the global RowMajorStrg that the programs' own
 * cblas_xerbla reads (a copy relocation in the executable). OpenBLAS does not define it, so the
 * programs cannot start with OpenBLAS as their libblas.so.3 unless some loaded library does:
 * this one, preloaded by run.sh in both runs (with and without libminiblas_cblas).
 */
int RowMajorStrg = 0;
