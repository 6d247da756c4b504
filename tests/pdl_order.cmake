# SPDX-License-Identifier: BSD-3-Clause
# test_pdl_order_gpu: the caller's own kernel lets dependent launches start at once and writes
# A late; the gemm call after it must still read the A it wrote (CUDA source: the test has a
# kernel of its own).
add_executable(test_pdl_order_gpu ${CMAKE_CURRENT_SOURCE_DIR}/test_pdl_order_gpu.cu
               ${CMAKE_CURRENT_SOURCE_DIR}/gpu_test_util.c)
target_include_directories(test_pdl_order_gpu PRIVATE ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_SOURCE_DIR}/kernels)
target_link_libraries(test_pdl_order_gpu PRIVATE miniblas miniblas_openblas m)
add_test(NAME test_pdl_order_gpu COMMAND test_pdl_order_gpu)
set_tests_properties(test_pdl_order_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
