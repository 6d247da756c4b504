# SPDX-License-Identifier: BSD-3-Clause
# miniblas_create's diagnostics with the GPUs hidden (CUDA_VISIBLE_DEVICES=-1): on a machine
# with a driver, MINIBLAS_STATUS_NO_DEVICE and its message; without one, MINIBLAS_STATUS_NO_DRIVER
# as in test_create_cpu itself (tests/test_create_cpu.c asks libcuda what to expect).
if(TARGET test_create_cpu)
  add_test(NAME test_create_cpu_hidden_gpu COMMAND test_create_cpu)
  set_tests_properties(test_create_cpu_hidden_gpu PROPERTIES LABELS cpu
                       ENVIRONMENT "CUDA_VISIBLE_DEVICES=-1")
endif()
