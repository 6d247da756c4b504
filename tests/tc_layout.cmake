# SPDX-License-Identifier: BSD-3-Clause
# test_tc_layout_cpu: the shared-memory layouts of dgemm rung 12's tiles, checked on the CPU
# (CUDA source: the tile configurations are templates of kernels/gemm/tc_config.cuh).
add_executable(test_tc_layout_cpu ${CMAKE_CURRENT_SOURCE_DIR}/test_tc_layout_cpu.cu)
target_include_directories(test_tc_layout_cpu PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/kernels ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_tc_layout_cpu PRIVATE miniblas)
add_test(NAME test_tc_layout_cpu COMMAND test_tc_layout_cpu)
set_tests_properties(test_tc_layout_cpu PROPERTIES LABELS cpu)
