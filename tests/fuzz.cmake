# SPDX-License-Identifier: BSD-3-Clause
# The CPU fuzzer (tests/fuzz/fuzz_cpu.c, the driver, and tests/fuzz/fuzz_cpu_*.c, declarations in
# fuzz_cpu.h): the argument check and every entry point of libminiblas_cblas on the CPU path,
# against a model of the rules and OpenBLAS, with guard pages.
# The layer's sources and src/check.c are compiled into the fuzzer itself with AddressSanitizer
# and UndefinedBehaviorSanitizer (when the compiler can link them), so the test needs no second
# build tree; libminiblas (the native library, uninstrumented) and the CUDA runtime are linked as
# the layer links them. OpenBLAS is dlopen'ed by the layer and by the fuzzer (not linked: its
# cblas_* would clash with the layer's).
#   fuzz_cpu        label cpu: bounded (MINIBLAS_FUZZ_CI_ITERS iterations, about a minute on two
#                   cores, at most 150 s), a new seed each run, printed; replay or run longer:
#                   build/tests/fuzz_cpu --seed S [--from I --iters 1 --verbose] [--seconds 600]
#                   (with the test's ENVIRONMENT below: ctest -R fuzz_cpu -V shows it)
#   fuzz_cpu_plain  the same without sanitizers (the layer's heap quick paths)
if(NOT TARGET miniblas_cblas OR NOT MINIBLAS_CPU_BLAS_PATH)
  return()
endif()
find_package(Threads REQUIRED)

set(MINIBLAS_FUZZ_CI_ITERS 150000 CACHE STRING "Iterations of the fuzz_cpu CTest test")

include(CheckCSourceCompiles)
set(_fz_san -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
check_c_source_compiles("int main(void) { return 0; }" MINIBLAS_HAVE_ASAN_UBSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)

# The layer's own source list (relative to src/cblas; src/check.c among them), so the fuzzer
# follows the library.
get_target_property(_cb_rel miniblas_cblas SOURCES)
set(_cb_srcs "")
foreach(f ${_cb_rel})
  list(APPEND _cb_srcs ${PROJECT_SOURCE_DIR}/src/cblas/${f})
endforeach()
set(_fz_parts "")
foreach(f fuzz_cpu fuzz_cpu_ref fuzz_cpu_mem fuzz_cpu_model fuzz_cpu_gemm fuzz_cpu_ops)
  list(APPEND _fz_parts ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/${f}.c)
endforeach()
add_executable(fuzz_cpu ${_fz_parts} ${_cb_srcs})
target_include_directories(fuzz_cpu PRIVATE
  $<TARGET_PROPERTY:miniblas_cblas,INCLUDE_DIRECTORIES> ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(fuzz_cpu PRIVATE MBC_BUILD_CPU_BLAS="${MINIBLAS_CPU_BLAS_PATH}"
                           FUZZ_CPU_BLAS_PATH="${MINIBLAS_CPU_BLAS_PATH}")
target_compile_options(fuzz_cpu PRIVATE -O1 -g)
target_link_libraries(fuzz_cpu PRIVATE miniblas CUDA::cudart Threads::Threads ${CMAKE_DL_LIBS} m)
# cblas_xerbla and xerbla_ of the fuzzer must be found by dlsym(RTLD_DEFAULT) and by OpenBLAS
set_target_properties(fuzz_cpu PROPERTIES ENABLE_EXPORTS ON)
if(MINIBLAS_HAVE_ASAN_UBSAN)
  target_compile_options(fuzz_cpu PRIVATE ${_fz_san})
  target_link_options(fuzz_cpu PRIVATE -fsanitize=address,undefined)
  set(_fz_sanitizers "ASan+UBSan")
else()
  message(STATUS "fuzz_cpu: the compiler cannot link -fsanitize=address,undefined; built without")
  set(_fz_sanitizers "none")
endif()

# The same fuzzer without sanitizers: ASan's allocator does not use the brk heap, so only here
# do the heap operands take the layer's quick paths (src/cblas/ptr.c); their poisoned margins
# are checked instead.
add_executable(fuzz_cpu_plain ${_fz_parts} ${_cb_srcs})
foreach(p INCLUDE_DIRECTORIES COMPILE_DEFINITIONS LINK_LIBRARIES)
  set_property(TARGET fuzz_cpu_plain PROPERTY ${p} $<TARGET_PROPERTY:fuzz_cpu,${p}>)
endforeach()
target_compile_options(fuzz_cpu_plain PRIVATE -O2 -g)
set_target_properties(fuzz_cpu_plain PROPERTIES ENABLE_EXPORTS ON)

set(_fz_args --iters ${MINIBLAS_FUZZ_CI_ITERS} --max-seconds 150)
add_test(NAME fuzz_cpu COMMAND fuzz_cpu ${_fz_args})
add_test(NAME fuzz_cpu_plain COMMAND fuzz_cpu_plain ${_fz_args})
set_tests_properties(fuzz_cpu_plain PROPERTIES LABELS "cpu;fuzz" TIMEOUT 900
  ENVIRONMENT "MINIBLAS_CBLAS_GPU=0;OPENBLAS_NUM_THREADS=1;MINIBLAS_FUZZ_SANITIZERS=none")
# MINIBLAS_CBLAS_GPU=0: the CPU path, also on a GPU machine, where the CUDA driver is then never
# initialised under ASan (the GPU path has its own fuzzer).
# protect_shadow_gap=0: the CUDA runtime maps memory where ASan would keep its shadow gap.
# Leaks are not checked: OpenBLAS's and the CUDA runtime's allocations live until exit.
set_tests_properties(fuzz_cpu PROPERTIES LABELS "cpu;fuzz" TIMEOUT 900
  ENVIRONMENT "MINIBLAS_CBLAS_GPU=0;OPENBLAS_NUM_THREADS=1;ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:abort_on_error=0;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1;MINIBLAS_FUZZ_SANITIZERS=${_fz_sanitizers}")
