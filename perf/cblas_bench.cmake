# SPDX-License-Identifier: BSD-3-Clause
# miniblas-cblas-bench: the cblas drop-in layer (libminiblas_cblas) on host pointers against
# OpenBLAS alone, the plain cuBLAS offload and the kernels, in one process (see
# perf/miniblas-cblas-bench.c and --help). Included from perf/CMakeLists.txt.
#
# The program dlopen()s both libminiblas_cblas and the CPU BLAS (RTLD_LOCAL) and links neither:
# their cblas_* symbols would clash. It links libminiblas (native API, kernel-only times) and
# cuBLAS (the plain offload and its kernel). cblas.h and miniblas_cblas.h come from the
# layer's public include directories (OpenBLAS's cblas.h, as the layer itself is compiled with).
# It finds libminiblas_cblas at run time (--lib; by default next to itself, in ../lib or in
# the build tree's ../src/cblas, else through the dynamic loader).
if(TARGET miniblas_cblas AND EXISTS ${CMAKE_CURRENT_LIST_DIR}/miniblas-cblas-bench.c)
  find_package(Threads REQUIRED)
  add_executable(miniblas-cblas-bench ${CMAKE_CURRENT_LIST_DIR}/miniblas-cblas-bench.c
                 ${CMAKE_CURRENT_LIST_DIR}/mcb_args.c ${CMAKE_CURRENT_LIST_DIR}/mcb_host.c
                 ${CMAKE_CURRENT_LIST_DIR}/mcb_row.c ${CMAKE_CURRENT_LIST_DIR}/mcb_output.c
                 ${PROJECT_SOURCE_DIR}/src/cblas/copypool.c  # the live staged way (its own pool)
                 ${PROJECT_SOURCE_DIR}/src/cblas/ptr.c)      # where small vectors lie
  target_include_directories(miniblas-cblas-bench PRIVATE
    $<TARGET_PROPERTY:miniblas_cblas,INTERFACE_INCLUDE_DIRECTORIES>)
  target_link_libraries(miniblas-cblas-bench PRIVATE perf_common miniblas CUDA::cublas CUDA::cudart
                        Threads::Threads ${CMAKE_DL_LIBS} m)
  target_compile_definitions(miniblas-cblas-bench PRIVATE
    MCB_CPU_BLAS="${MINIBLAS_CPU_BLAS_PATH}" MINIBLAS_GIT_COMMIT="${MINIBLAS_GIT_COMMIT}")
  target_compile_options(miniblas-cblas-bench PRIVATE -Wall -Wextra)
  add_dependencies(miniblas-cblas-bench miniblas_cblas) # loaded at run time, built with it
endif()
