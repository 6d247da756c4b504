# SPDX-License-Identifier: BSD-3-Clause
# The reference test programs of BLAS, CBLAS and LAPACK (Debian's libblas-test and
# liblapack-test) run through the drop-in: libminiblas_cblas preloaded in front of OpenBLAS,
# judged by tests/conformance/run.sh against the same program without the preload.
#   conformance_<program>      label cpu:  the default settings (these sizes stay on the CPU)
#   conformance_<program>_gpu  label gpu:  every crossover at 0, each call's path checked
# The programs are found under MINIBLAS_CONFORMANCE_ROOT (a cache variable, also read from the
# environment at configure and at test time): / where the packages are installed (tests/deps.sh
# installs them on Debian), or a folder they were unpacked into with dpkg -x
# (tests/conformance/fetch-debs.sh). Absent programs make the tests skip (77), except with
# MINIBLAS_CONFORMANCE_REQUIRED=1 in the environment (.ci/run sets it). The LAPACK programs run
# their test paths in MINIBLAS_CONFORMANCE_JOBS parts at once (default: the CPU count, at most 8;
# in gpu mode 1 unless the CUDA MPS daemon runs: see run.sh).
if(NOT TARGET miniblas_cblas OR NOT MINIBLAS_CPU_BLAS_PATH)
  return()
endif()

miniblas_path_setting(MINIBLAS_CONFORMANCE_ROOT "/"
    "Root under which usr/lib/<multiarch>/{blas,lapack} hold the reference test programs")

set(_conf ${CMAKE_CURRENT_SOURCE_DIR}/conformance)
# RowMajorStrg for the CBLAS test programs (see rowmajor_shim.c)
add_library(miniblas_conformance_shim SHARED ${_conf}/rowmajor_shim.c)
add_executable(miniblas_conformance_probe ${_conf}/probe.c)
target_link_libraries(miniblas_conformance_probe PRIVATE miniblas_cblas)

set(_conf_programs xblat1s xblat1d xblat3s xblat3d xscblat1 xdcblat1 xscblat3 xdcblat3
                   xlintsts xlintstd)
foreach(prog ${_conf_programs})
  foreach(mode cpu gpu)
    if(mode STREQUAL cpu)
      set(name conformance_${prog})
    else()
      set(name conformance_${prog}_gpu)
    endif()
    add_test(NAME ${name}
             COMMAND bash ${_conf}/run.sh ${mode} ${prog} ${MINIBLAS_CONFORMANCE_ROOT}
                     $<TARGET_FILE:miniblas_cblas> ${MINIBLAS_CPU_BLAS_PATH}
                     $<TARGET_FILE:miniblas_conformance_shim>
                     $<TARGET_FILE:miniblas_conformance_probe>
                     ${CMAKE_CURRENT_BINARY_DIR}/conformance/${mode}/${prog})
    set_tests_properties(${name} PROPERTIES LABELS "${mode};conformance" SKIP_RETURN_CODE 77)
    if(mode STREQUAL gpu)
      set_tests_properties(${name} PROPERTIES TIMEOUT 1800)
    else()
      set_tests_properties(${name} PROPERTIES TIMEOUT 600)
    endif()
  endforeach()
endforeach()
