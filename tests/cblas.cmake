# SPDX-License-Identifier: BSD-3-Clause
# Tests of the cblas drop-in (src/cblas, docs/cblas.md). Included by tests/CMakeLists.txt after
# the globbed tests, so test_cblas_cpu / test_cblas_gpu already exist as targets: they are
# re-linked here against libminiblas_cblas ONLY. Linking OpenBLAS too would clash (both define
# cblas_sgemm, ...); the layer dlopens its CPU BLAS itself and the tests compute references in
# plain C loops.
find_package(Threads REQUIRED)

# The address-only host check of the layer, compiled in directly (it has no CUDA in it).
if(TARGET test_cblas_ptr_cpu)
  target_sources(test_cblas_ptr_cpu PRIVATE ${PROJECT_SOURCE_DIR}/src/cblas/ptr.c
                 ${PROJECT_SOURCE_DIR}/src/cblas/copypool.c)
  target_link_libraries(test_cblas_ptr_cpu PRIVATE Threads::Threads)
endif()

if(NOT TARGET miniblas_cblas)
  foreach(t test_cblas_cpu test_cblas_gpu test_cblas_faults_gpu test_cblas_layer_cpu
            test_cblas_config_cpu)
    if(TARGET ${t})
      set_target_properties(${t} PROPERTIES EXCLUDE_FROM_ALL TRUE)
      set_tests_properties(${t} PROPERTIES DISABLED TRUE)
    endif()
  endforeach()
  return()
endif()

# The configuration reader compiled in directly (made-up environments), and the library linked
# (a process with bad settings).
if(TARGET test_cblas_config_cpu)
  target_sources(test_cblas_config_cpu PRIVATE ${PROJECT_SOURCE_DIR}/src/cblas/config.c)
  target_include_directories(test_cblas_config_cpu PRIVATE
                             $<TARGET_PROPERTY:miniblas_cblas,INTERFACE_INCLUDE_DIRECTORIES>)
  set_property(TARGET test_cblas_config_cpu PROPERTY LINK_LIBRARIES miniblas_cblas m)
endif()

foreach(t test_cblas_cpu test_cblas_gpu)
  if(TARGET ${t})
    set_property(TARGET ${t} PROPERTY SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
    set_property(TARGET ${t} PROPERTY LINK_LIBRARIES miniblas_cblas Threads::Threads m)
  endif()
endforeach()
if(TARGET test_cblas_faults_gpu)
  # faults (tests/test_cblas_faults_gpu.c): libminiblas for the kernel that makes a sticky error
  set_property(TARGET test_cblas_faults_gpu PROPERTY SOURCES
               ${CMAKE_CURRENT_SOURCE_DIR}/test_cblas_faults_gpu.c)
  set_property(TARGET test_cblas_faults_gpu PROPERTY LINK_LIBRARIES miniblas_cblas miniblas
               CUDA::cudart Threads::Threads m)
  set_tests_properties(test_cblas_faults_gpu PROPERTIES TIMEOUT 900)
endif()
if(TARGET test_cblas_gpu)
  # cudaMalloc / cudaMallocManaged / cudaMallocHost for the device- and pinned-pointer cases
  set_property(TARGET test_cblas_gpu APPEND PROPERTY LINK_LIBRARIES CUDA::cudart)
  set_tests_properties(test_cblas_gpu PROPERTIES TIMEOUT 600)
  # The same program with the GPU disabled: every call must complete on the CPU BLAS.
  add_test(NAME test_cblas_gpu_disabled COMMAND test_cblas_gpu)
  set_tests_properties(test_cblas_gpu_disabled PROPERTIES
    LABELS gpu SKIP_RETURN_CODE 77 ENVIRONMENT "MINIBLAS_CBLAS_GPU=0" TIMEOUT 600)
endif()

# ---- docs/examples: one unmodified cblas.h program, three ways ----
# built against OpenBLAS alone; relinked with libminiblas_cblas first (OpenBLAS still gives
# every other symbol, e.g. cblas_saxpy); and the OpenBLAS build run with libminiblas_cblas
# preloaded. docs/examples/compare.sh checks the outputs agree within the tolerance each line
# states and that the miniblas runs really went through miniblas (and, on a GPU machine, that
# the large sgemm ran on the GPU).
set(_ex ${PROJECT_SOURCE_DIR}/docs/examples)
add_executable(cblas_example_openblas ${_ex}/cblas_example.c)
target_link_libraries(cblas_example_openblas PRIVATE miniblas_openblas m)
add_executable(cblas_example_relinked ${_ex}/cblas_example.c)
target_link_libraries(cblas_example_relinked PRIVATE miniblas_cblas miniblas_openblas m)
add_test(NAME cblas_example
         COMMAND sh ${_ex}/compare.sh $<TARGET_FILE:cblas_example_openblas>
                 $<TARGET_FILE:cblas_example_relinked> $<TARGET_FILE:miniblas_cblas>)
set_tests_properties(cblas_example PROPERTIES LABELS cpu TIMEOUT 600)

# The layer's host sources compiled into the test with a GPU side that never works
# (tests/test_cblas_nogpu_stub.c): a device CUDA cannot use; see the test's header. Plus a
# ThreadSanitizer build of the same test running only the first calls of 8 threads at once.
if(TARGET test_cblas_layer_cpu AND TARGET miniblas_cblas)
  set(_mbc_dir ${PROJECT_SOURCE_DIR}/src/cblas)
  set(_mbc_layer_src ${_mbc_dir}/entry.c ${_mbc_dir}/route.c ${_mbc_dir}/config.c
      ${_mbc_dir}/cpu_blas.c ${_mbc_dir}/xerbla.c ${_mbc_dir}/ptr.c
      ${_mbc_dir}/copypool.c ${_mbc_dir}/fork.c ${_mbc_dir}/diag.c
      ${CMAKE_CURRENT_SOURCE_DIR}/test_cblas_nogpu_stub.c)
  set(_mbc_layer_inc $<TARGET_PROPERTY:miniblas_cblas,INTERFACE_INCLUDE_DIRECTORIES>)
  target_sources(test_cblas_layer_cpu PRIVATE ${_mbc_layer_src})
  target_include_directories(test_cblas_layer_cpu PRIVATE ${_mbc_layer_inc})
  target_link_libraries(test_cblas_layer_cpu PRIVATE Threads::Threads ${CMAKE_DL_LIBS} m)
  set_tests_properties(test_cblas_layer_cpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)

  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
  check_c_source_compiles("int main(void) { return 0; }" MINIBLAS_HAVE_TSAN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(MINIBLAS_HAVE_TSAN)
    add_executable(test_cblas_layer_tsan ${CMAKE_CURRENT_SOURCE_DIR}/test_cblas_layer_cpu.c
                   ${_mbc_layer_src})
    target_include_directories(test_cblas_layer_tsan PRIVATE ${PROJECT_SOURCE_DIR}/src
                               ${PROJECT_SOURCE_DIR}/kernels ${_mbc_layer_inc})
    target_compile_options(test_cblas_layer_tsan PRIVATE -fsanitize=thread -g -O1)
    target_link_options(test_cblas_layer_tsan PRIVATE -fsanitize=thread)
    target_link_libraries(test_cblas_layer_tsan PRIVATE miniblas_static Threads::Threads
                          ${CMAKE_DL_LIBS} m)
    # skipped (77) where ThreadSanitizer cannot run at all (a kernel whose address-space
    # layout it does not support: "unexpected memory mapping")
    add_test(NAME test_cblas_layer_tsan COMMAND sh -c
             "out=$(\"$0\" race 2>&1); rc=$?; echo \"$out\"; case \"$out\" in *'unexpected memory mapping'*) exit 77;; esac; exit $rc"
             $<TARGET_FILE:test_cblas_layer_tsan>)
    set_tests_properties(test_cblas_layer_tsan PROPERTIES LABELS cpu TIMEOUT 300 SKIP_RETURN_CODE 77
      ENVIRONMENT "TSAN_OPTIONS=halt_on_error=1 exitcode=66 report_signal_unsafe=0;OPENBLAS_NUM_THREADS=1")
  endif()
endif()

# the multi-GPU split plan (src/cblas/mgpu_plan.c, pure C), compiled in
if(TARGET test_cblas_split_cpu)
  target_sources(test_cblas_split_cpu PRIVATE ${PROJECT_SOURCE_DIR}/src/cblas/mgpu_plan.c)
  target_include_directories(test_cblas_split_cpu PRIVATE ${PROJECT_SOURCE_DIR}/src/cblas)
endif()

# asum/dot on pinned vectors by pieces over several devices (src/cblas/gpu_ops.c) with a fake
# GPU side on the CPU (tests/test_cblas_vecsplit_fake.c): the layer's gpu_ops.c, mgpu_plan.c,
# config.c and cpu_blas.c compiled in; no CUDA library linked (the test defines what it uses).
if(TARGET miniblas_cblas)
  set(_mbc_src ${PROJECT_SOURCE_DIR}/src/cblas)
  add_executable(test_cblas_vecsplit_fake ${CMAKE_CURRENT_SOURCE_DIR}/test_cblas_vecsplit_fake.c
                 ${_mbc_src}/gpu_ops.c ${_mbc_src}/mgpu_plan.c ${_mbc_src}/config.c
                 ${_mbc_src}/cpu_blas.c)
  target_include_directories(test_cblas_vecsplit_fake PRIVATE
    $<TARGET_PROPERTY:miniblas_cblas,INTERFACE_INCLUDE_DIRECTORIES>
    $<TARGET_PROPERTY:miniblas,INTERFACE_INCLUDE_DIRECTORIES> ${CUDAToolkit_INCLUDE_DIRS}
    ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(test_cblas_vecsplit_fake PRIVATE
                             MBC_BUILD_CPU_BLAS="${MINIBLAS_CPU_BLAS_PATH}")
  target_link_libraries(test_cblas_vecsplit_fake PRIVATE Threads::Threads ${CMAKE_DL_LIBS} m)
  add_test(NAME test_cblas_vecsplit_fake COMMAND test_cblas_vecsplit_fake)
  set_tests_properties(test_cblas_vecsplit_fake PROPERTIES LABELS cpu SKIP_RETURN_CODE 77
                       TIMEOUT 300 ENVIRONMENT "OPENBLAS_NUM_THREADS=1")
endif()

# gemm on host operands over several GPUs (tests/test_cblas_multigpu.c): exits 77 with fewer
# than 2 GPUs. libminiblas_cblas only (it dlopens OpenBLAS) and the CUDA runtime (pinned memory).
if(TARGET miniblas_cblas)
  add_executable(test_cblas_multigpu ${CMAKE_CURRENT_SOURCE_DIR}/test_cblas_multigpu.c)
  target_link_libraries(test_cblas_multigpu PRIVATE miniblas_cblas CUDA::cudart m)
  add_test(NAME test_cblas_multigpu COMMAND test_cblas_multigpu)
  set_tests_properties(test_cblas_multigpu PROPERTIES LABELS "gpu;multigpu" SKIP_RETURN_CODE 77
                       TIMEOUT 900)
endif()
