# SPDX-License-Identifier: BSD-3-Clause
# The fastest gemm loops take aligned scratch copies of operands they cannot read as they are
# (kernels/gemm/operand_copy.cuh). With MINIBLAS_GEMM_COPIES=0 the handle has no memory pool
# and the same large odd cases run the fallbacks (dmma's STEP loop, also for tma_dmma; rung 14
# for rungs 15 to 18): the gemm tests again on those rungs, copies off.
if(TARGET test_dgemm_gpu AND TARGET test_sgemm_gpu)
  add_test(NAME test_dgemm_nocopies_gpu COMMAND test_dgemm_gpu)
  add_test(NAME test_sgemm_nocopies_gpu COMMAND test_sgemm_gpu)
  set_tests_properties(test_dgemm_nocopies_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "MINIBLAS_GEMM_COPIES=0;MINIBLAS_TEST_RUNG=dmma,tma_dmma,auto")
  set_tests_properties(test_sgemm_nocopies_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77
                       ENVIRONMENT "MINIBLAS_GEMM_COPIES=0;MINIBLAS_TEST_RUNG=pingpong_tf32x3,fastsplit_tf32x3,promote4_tf32x3,tma_tf32x3,auto")
endif()
