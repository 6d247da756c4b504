# SPDX-License-Identifier: BSD-3-Clause
# The GPU fuzzer (tests/test_fuzz_gpu.c, main and threads, with tests/fuzz_gpu_*.c and
# tests/fuzz_gpu.h beside it, compiled into both executables). test_fuzz_gpu itself (the native API) is registered
# by the glob in tests/CMakeLists.txt; here: its threads, its time limit, the CPU self-test of
# its oracle, and its drop-in twin test_fuzz_cblas_gpu, the same source built with
# MB_FUZZ_CBLAS against libminiblas_cblas ONLY (OpenBLAS's cblas_* would clash; the references
# are plain C loops).
find_package(Threads REQUIRED)
set(_fz_gpu_parts ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_gpu_draw.c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_gpu_ref.c
    ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_gpu_gemm.c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_gpu_cases.c)
if(TARGET test_fuzz_gpu)
  # the argument check (mb_check_*, internal) from the static library: libminiblas exports only
  # the API
  get_target_property(_fz_libs test_fuzz_gpu LINK_LIBRARIES)
  list(TRANSFORM _fz_libs REPLACE "^miniblas$" miniblas_static)
  set_property(TARGET test_fuzz_gpu PROPERTY LINK_LIBRARIES ${_fz_libs} Threads::Threads)
  target_sources(test_fuzz_gpu PRIVATE ${_fz_gpu_parts})
  set_tests_properties(test_fuzz_gpu PROPERTIES TIMEOUT 300)
  # The case generator and the checks against a plain C stand-in on host memory: no GPU.
  add_test(NAME test_fuzz_gpu_selftest COMMAND test_fuzz_gpu --selftest)
  set_tests_properties(test_fuzz_gpu_selftest PROPERTIES LABELS cpu TIMEOUT 120
                       ENVIRONMENT "MINIBLAS_FUZZ_SECONDS=5")
endif()
if(TARGET test_fuzz_gpu AND TARGET miniblas_cblas)
  add_executable(test_fuzz_cblas_gpu ${CMAKE_CURRENT_SOURCE_DIR}/test_fuzz_gpu.c ${_fz_gpu_parts}
                 ${PROJECT_SOURCE_DIR}/src/check.c)
  target_compile_definitions(test_fuzz_cblas_gpu PRIVATE MB_FUZZ_CBLAS=1)
  target_link_libraries(test_fuzz_cblas_gpu PRIVATE miniblas_cblas CUDA::cudart Threads::Threads m)
  add_test(NAME test_fuzz_cblas_gpu COMMAND test_fuzz_cblas_gpu)
  set_tests_properties(test_fuzz_cblas_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
