/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SGEMM on every rung (and auto) against OpenBLAS: see gemm_test.inc for the cases and the
 * error bound.
 */
#include "gemm_test.inc"

int main(void) { return gemm_test_main("test_sgemm_gpu", 0); }
