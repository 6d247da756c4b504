# SPDX-License-Identifier: BSD-3-Clause
# The CUDA architectures of the default build, and whether rung 15's Hopper-only code is built.
#
# Default (CMAKE_CUDA_ARCHITECTURES not given): every architecture the installed toolkit
# supports that people use, each as machine code (SASS), plus PTX for the newest so that GPUs
# newer than the toolkit compile it at load time:
#   CUDA 13.x, 12.8, 12.9:  75 80 86 89 90 100 120 (SASS) + 120 (PTX)
#   CUDA 12.0 ... 12.7:     75 80 86 89 90 (SASS) + 90 (PTX)
# Override with -DCMAKE_CUDA_ARCHITECTURES=native (the GPUs of this machine), or a list, where
# CMake reads "80" as SASS and PTX for 8.0, "80-real" as SASS only, "80-virtual" as PTX only.
#
# Call before project(): records whether the user chose; miniblas_default_cuda_architectures()
# after project() fills in the default from the compiler's version.
macro(miniblas_note_cuda_architectures)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
    set(MINIBLAS_CUDA_ARCHITECTURES_DEFAULT ON)
  endif()
endmacro()

function(miniblas_default_cuda_architectures)
  if(NOT MINIBLAS_CUDA_ARCHITECTURES_DEFAULT)
    return()
  endif()
  set(v ${CMAKE_CUDA_COMPILER_VERSION})
  if(v VERSION_GREATER_EQUAL 12.8)
    set(archs 75-real 80-real 86-real 89-real 90-real 100-real 120)
  elseif(v VERSION_GREATER_EQUAL 12.0)
    set(archs 75-real 80-real 86-real 89-real 90)
  else()
    message(FATAL_ERROR "miniblas needs CUDA 12.0 or newer (found ${v})")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${archs}" CACHE STRING
      "CUDA architectures (default: every one CUDA ${v} supports that people use)" FORCE)
endfunction()

# MINIBLAS_HAVE_SM90A: 1 when the architectures include 9.0 (then rung 15's file is also built
# for sm_90a: wgmma exists only there), else 0 (its kernels are stubs and the registry reports
# the rung as not supported).
function(miniblas_sm90a_choice out)
  set(archs ${CMAKE_CUDA_ARCHITECTURES})
  if(archs STREQUAL "native")
    if(CMAKE_CUDA_ARCHITECTURES_NATIVE)
      set(archs ${CMAKE_CUDA_ARCHITECTURES_NATIVE})
    else()
      execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE caps ERROR_QUIET RESULT_VARIABLE rc)
      string(REPLACE "." "" caps "${caps}")
      string(REPLACE "\n" ";" archs "${caps}")
    endif()
  endif()
  set(has 0)
  foreach(a ${archs})
    if(a MATCHES "^(all|all-major)$" OR a MATCHES "^90")
      set(has 1)
    endif()
  endforeach()
  set(${out} ${has} PARENT_SCOPE)
endfunction()
