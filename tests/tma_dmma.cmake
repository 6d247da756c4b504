# SPDX-License-Identifier: BSD-3-Clause
# dgemm rung 14 tma_dmma: its warps wait on mbarriers that TMA copies complete
# (kernels/gemm/14_tma_dmma.cu), so a wrong phase or a missing copy would hang rather than
# fail; a time limit turns a hang into a failure.
if(TARGET test_dgemm_tma_gpu)
  set_tests_properties(test_dgemm_tma_gpu PROPERTIES TIMEOUT 300)
endif()
