# SPDX-License-Identifier: BSD-3-Clause
# ScaLAPACK over MPI with libminiblas_cblas as the node BLAS (docs/cblas.md, "Beyond one host"):
# tests/mpi/scalapack_pdgemm_pdgesv.c runs PDGEMM and PDGESV on 2 MPI processes, with OpenBLAS
# alone and with the drop-in preloaded, one GPU per process (tests/mpi/run.sh judges both), with
# PBLAS's own panel width and with a wider one (tests/mpi/pblas_panel.c).
#   mpi_scalapack   labels gpu;multigpu: skipped (77) with fewer than 2 GPUs, or when MPI or
#                   ScaLAPACK was not found here
# Open MPI and ScaLAPACK come from the system (Debian: openmpi-bin, libopenmpi-dev,
# libscalapack-openmpi-dev) or from a folder they were unpacked into with dpkg -x
# (tests/mpi/fetch-debs.sh), named by MINIBLAS_MPI_ROOT (a cache variable, also read from the
# environment at configure and at test time). Without them the test is still declared and skips.
if(NOT TARGET miniblas_cblas OR NOT MINIBLAS_CPU_BLAS_PATH OR NOT TARGET miniblas_openblas)
  return()
endif()

miniblas_path_setting(MINIBLAS_MPI_ROOT ""
    "Folder holding a dpkg -x unpacked Open MPI and ScaLAPACK (tests/mpi/fetch-debs.sh); empty: the system's")

set(_mb_mpi_why "")
set(_mb_mpi_libdirs "")
if(MINIBLAS_MPI_ROOT)
  # A relocated Open MPI: its compiler wrapper reports its own paths only with OPAL_PREFIX set,
  # and linking against libmpi needs the folder of the libraries it loads.
  file(GLOB _mb_mpi_ompi LIST_DIRECTORIES true "${MINIBLAS_MPI_ROOT}/usr/lib/*/openmpi")
  if(_mb_mpi_ompi)
    list(GET _mb_mpi_ompi 0 _mb_mpi_ompi)
    get_filename_component(_mb_mpi_libdir "${_mb_mpi_ompi}" DIRECTORY)
    set(_mb_mpi_libdirs "${_mb_mpi_libdir}")
    set(ENV{OPAL_PREFIX} "${MINIBLAS_MPI_ROOT}/usr")
    if(DEFINED ENV{LD_LIBRARY_PATH})
      set(ENV{LD_LIBRARY_PATH} "${_mb_mpi_libdir}:$ENV{LD_LIBRARY_PATH}")
    else()
      set(ENV{LD_LIBRARY_PATH} "${_mb_mpi_libdir}")
    endif()
    if(NOT MPI_C_COMPILER AND EXISTS "${MINIBLAS_MPI_ROOT}/usr/bin/mpicc")
      set(MPI_C_COMPILER "${MINIBLAS_MPI_ROOT}/usr/bin/mpicc" CACHE FILEPATH "MPI C compiler wrapper")
    endif()
  else()
    set(_mb_mpi_why "no Open MPI under MINIBLAS_MPI_ROOT=${MINIBLAS_MPI_ROOT}")
  endif()
endif()

if(NOT _mb_mpi_why)
  find_package(MPI COMPONENTS C QUIET)
  if(NOT MPI_C_FOUND)
    set(_mb_mpi_why "MPI (C) not found at configure time (Debian: apt-get install libopenmpi-dev openmpi-bin; or MINIBLAS_MPI_ROOT, see tests/mpi/fetch-debs.sh)")
  endif()
endif()
if(NOT _mb_mpi_why)
  if(MINIBLAS_MPI_ROOT)
    find_library(_mb_scalapack NAMES scalapack-openmpi scalapack PATHS ${_mb_mpi_libdirs}
                 NO_DEFAULT_PATH NO_CACHE)
  else()
    find_library(_mb_scalapack NAMES scalapack-openmpi scalapack NO_CACHE)
  endif()
  if(NOT _mb_scalapack)
    set(_mb_mpi_why "ScaLAPACK not found at configure time (Debian: apt-get install libscalapack-openmpi-dev)")
  endif()
endif()

set(_mb_mpi_dir ${CMAKE_CURRENT_BINARY_DIR}/mpi)
set(_mb_mpi_panel "")
if(_mb_mpi_why)
  message(STATUS "miniblas: test mpi_scalapack will skip: ${_mb_mpi_why}")
  set(_mb_mpi_exe "none:${_mb_mpi_why}")
else()
  message(STATUS "miniblas: test mpi_scalapack: MPI ${MPI_C_VERSION} (${MPI_C_COMPILER}), ${_mb_scalapack}")
  # ScaLAPACK needs libblas.so.3 and liblapack.so.3: OpenBLAS, linked to under those names
  # for the linker (run.sh does the same for the loader).
  get_filename_component(_mb_ob_real "${MINIBLAS_CPU_BLAS_PATH}" REALPATH)
  file(MAKE_DIRECTORY ${_mb_mpi_dir}/blas)
  file(CREATE_LINK "${_mb_ob_real}" ${_mb_mpi_dir}/blas/libblas.so.3 SYMBOLIC)
  file(CREATE_LINK "${_mb_ob_real}" ${_mb_mpi_dir}/blas/liblapack.so.3 SYMBOLIC)
  add_executable(miniblas_scalapack_test ${CMAKE_CURRENT_SOURCE_DIR}/mpi/scalapack_pdgemm_pdgesv.c)
  target_link_libraries(miniblas_scalapack_test PRIVATE ${_mb_scalapack} MPI::MPI_C
                        miniblas_openblas ${CMAKE_DL_LIBS} m)
  target_compile_options(miniblas_scalapack_test PRIVATE -Wall -Wextra)
  foreach(d ${_mb_mpi_dir}/blas ${_mb_mpi_libdirs})
    target_link_options(miniblas_scalapack_test PRIVATE "LINKER:-rpath-link,${d}")
  endforeach()
  set(_mb_mpi_exe $<TARGET_FILE:miniblas_scalapack_test>)
  # PBLAS's panel width, preloaded by run.sh for its panel runs (tests/mpi/pblas_panel.c)
  add_library(miniblas_pblas_panel SHARED ${CMAKE_CURRENT_SOURCE_DIR}/mpi/pblas_panel.c)
  target_compile_options(miniblas_pblas_panel PRIVATE -Wall -Wextra)
  set(_mb_mpi_panel $<TARGET_FILE:miniblas_pblas_panel>)
endif()
add_test(NAME mpi_scalapack
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/mpi/run.sh "${_mb_mpi_exe}"
                 $<TARGET_FILE:miniblas_cblas> ${MINIBLAS_CPU_BLAS_PATH} ${_mb_mpi_dir}/run
                 "${MINIBLAS_MPI_ROOT}" "${_mb_mpi_panel}")
set_tests_properties(mpi_scalapack PROPERTIES LABELS "gpu;multigpu" SKIP_RETURN_CODE 77
                     TIMEOUT 1200)
