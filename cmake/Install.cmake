# SPDX-License-Identifier: BSD-3-Clause
# What `cmake --install` puts under the prefix, and the packages CPack makes from it:
#   include/     miniblas.h, miniblas_version.h, miniblas_cblas.h
#   lib/         libminiblas.so.*, libminiblas.a, libminiblas_cblas.so.*
#   lib/cmake/miniblas/   targets miniblas::miniblas, miniblas::miniblas_static, miniblas::cblas
#   lib/pkgconfig/        miniblas.pc, miniblas_static.pc, miniblas_cblas.pc (relocatable)
#   bin/         miniblas-bench, miniblas-cblas-bench
#   share/doc/miniblas/   README.md, LICENSE, CONTRIBUTING.md, docs/
# Installed libraries and programs find their libraries next to them ($ORIGIN RUNPATH), so
# LD_PRELOAD=<prefix>/lib/libminiblas_cblas.so works without LD_LIBRARY_PATH.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
# Two components: `library` (everything but the benchmarks) and `bench` (the benchmarks, which
# also need cuBLAS); one .deb each, one .tar.gz with both.
set(CMAKE_INSTALL_DEFAULT_COMPONENT_NAME library)

set(_mb_cuda_libdir ${CUDAToolkit_LIBRARY_DIR})
set(_mb_lib_rpath "$ORIGIN")
set(_mb_bin_rpath "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
# The CUDA runtime's directory too, unless the loader finds it by itself (a system directory).
if(_mb_cuda_libdir AND NOT _mb_cuda_libdir MATCHES "^/(usr/)?lib")
  string(APPEND _mb_lib_rpath ";${_mb_cuda_libdir}")
  string(APPEND _mb_bin_rpath ";${_mb_cuda_libdir}")
endif()

set(_mb_targets miniblas miniblas_static)
set_target_properties(miniblas PROPERTIES INSTALL_RPATH "${_mb_lib_rpath}")
if(TARGET miniblas_cblas)
  set_target_properties(miniblas_cblas PROPERTIES INSTALL_RPATH "${_mb_lib_rpath}" EXPORT_NAME cblas)
  list(APPEND _mb_targets miniblas_cblas)
endif()
install(TARGETS ${_mb_targets} EXPORT miniblasTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES include/miniblas.h ${PROJECT_BINARY_DIR}/include/miniblas_version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(TARGET miniblas_cblas)
  install(FILES src/cblas/miniblas_cblas.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
foreach(b miniblas-bench miniblas-cblas-bench)
  if(TARGET ${b})
    set_target_properties(${b} PROPERTIES INSTALL_RPATH "${_mb_bin_rpath}")
    install(TARGETS ${b} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT bench)
  endif()
endforeach()

# CMake package
install(EXPORT miniblasTargets NAMESPACE miniblas:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/miniblas)
configure_package_config_file(src/miniblasConfig.cmake.in
  ${PROJECT_BINARY_DIR}/miniblasConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/miniblas)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/miniblasConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/miniblasConfig.cmake ${PROJECT_BINARY_DIR}/miniblasConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/miniblas)

# pkg-config: the prefix is found from the file's own place (${pcfiledir}), so the installed
# tree may move. The CUDA runtime stays where the toolkit is.
file(RELATIVE_PATH _mb_pc_up "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" _mb_pc_up "${_mb_pc_up}")
set(MINIBLAS_PC_PREFIX "\${pcfiledir}/${_mb_pc_up}")
set(MINIBLAS_CUDA_INCLUDE_DIR ${CUDAToolkit_INCLUDE_DIRS})
list(GET MINIBLAS_CUDA_INCLUDE_DIR 0 MINIBLAS_CUDA_INCLUDE_DIR)
foreach(pc miniblas miniblas_static miniblas_cblas)
  if(pc STREQUAL "miniblas_cblas" AND NOT TARGET miniblas_cblas)
    continue()
  endif()
  configure_file(src/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# Documentation
install(FILES README.md LICENSE CONTRIBUTING.md DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)

# ---- CPack: .tar.gz and .deb ----
set(CPACK_PACKAGE_NAME miniblas)
set(CPACK_PACKAGE_VENDOR "The miniblas authors")
set(CPACK_PACKAGE_CONTACT "The miniblas authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_CURRENT_LIST_DIR}/CPackOptions.cmake) # prefix per generator
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
set(CPACK_COMPONENTS_ALL library bench)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME miniblas)
set(CPACK_DEBIAN_BENCH_PACKAGE_NAME miniblas-bench)
set(CPACK_DEBIAN_BENCH_PACKAGE_SECTION science)
# The CUDA runtime comes from NVIDIA's repository (cuda-cudart-<major>-<minor>) or, where the
# distribution packages it, libcudart<major>; the cblas drop-in dlopens a CPU BLAS (OpenBLAS);
# the benchmarks time cuBLAS. The libraries' own needs (readelf -d): libminiblas libcudart,
# libstdc++, libgcc_s, libc; libminiblas_cblas libminiblas, libcudart, libc (no OpenMP).
string(REGEX MATCH "^[0-9]+\\.[0-9]+" _mb_cuda_mm "${CUDAToolkit_VERSION}")
string(REPLACE "." "-" _mb_cuda_dash "${_mb_cuda_mm}")
set(_mb_cudart "cuda-cudart-${_mb_cuda_dash} | libcudart${CUDAToolkit_VERSION_MAJOR}")
set(_mb_cublas "libcublas-${_mb_cuda_dash} | libcublas${CUDAToolkit_VERSION_MAJOR}")
set(CPACK_DEBIAN_LIBRARY_PACKAGE_DEPENDS
    "libc6 (>= 2.34), libstdc++6, libgcc-s1, ${_mb_cudart}")
set(CPACK_DEBIAN_LIBRARY_PACKAGE_RECOMMENDS "libopenblas0 | libopenblas0-pthread")
set(CPACK_DEBIAN_BENCH_PACKAGE_DEPENDS
    "miniblas (= ${PROJECT_VERSION}), libc6 (>= 2.34), libstdc++6, libgcc-s1, ${_mb_cudart}, ${_mb_cublas}")
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION "libminiblas, libminiblas_cblas, headers, CMake and pkg-config files, documentation")
set(CPACK_COMPONENT_BENCH_DESCRIPTION "miniblas-bench and miniblas-cblas-bench: every rung against cuBLAS")
set(CPACK_VERBATIM_VARIABLES ON)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/\\.git/;/build[^/]*/;/\\.device-deps/")
include(CPack)
