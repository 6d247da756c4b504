# SPDX-License-Identifier: BSD-3-Clause
# dgemm rung 13 streamk_dmma: its blocks wait on each other's flags (kernels/gemm/streamk.h), so
# a fault in that protocol would hang rather than fail; a time limit turns a hang into a failure
# (the test takes well under a minute on an H100).
if(TARGET test_dgemm_streamk_gpu)
  set_tests_properties(test_dgemm_streamk_gpu PROPERTIES TIMEOUT 300)
endif()
