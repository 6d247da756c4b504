# SPDX-License-Identifier: BSD-3-Clause
# The installed package, tested against the installed files only (tests/install/run.sh), and
# the libraries' exported symbols (tests/install/exports.sh). Both CPU-only (label cpu).
if(TARGET miniblas_cblas)
  add_test(NAME library_exports
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/exports.sh $<TARGET_FILE:miniblas>
                   $<TARGET_FILE:miniblas_cblas>)
  add_test(NAME install_consumers
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                   ${CMAKE_C_COMPILER} ${CMAKE_COMMAND})
  set_tests_properties(library_exports install_consumers PROPERTIES LABELS cpu TIMEOUT 600)
else()
  add_test(NAME library_exports
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/exports.sh $<TARGET_FILE:miniblas>)
  set_tests_properties(library_exports PROPERTIES LABELS cpu)
endif()
