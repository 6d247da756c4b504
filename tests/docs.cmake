# SPDX-License-Identifier: BSD-3-Clause
# The generated blocks of the docs (tables, claims, resources) match the results files in
# perf/results/: perf/ladder_tables.py --check fails when someone edited inside a block or
# changed a results file without regenerating. Needs python3 and c++filt (binutils).
find_program(MINIBLAS_PYTHON3 python3)
find_program(MINIBLAS_CXXFILT c++filt)
if(MINIBLAS_PYTHON3 AND MINIBLAS_CXXFILT)
  add_test(NAME docs_tables COMMAND ${MINIBLAS_PYTHON3} ${PROJECT_SOURCE_DIR}/perf/ladder_tables.py --check)
  set_tests_properties(docs_tables PROPERTIES LABELS cpu)
endif()
