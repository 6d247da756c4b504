# SPDX-License-Identifier: BSD-3-Clause
# CPU tests of the benchmarks' pure-C parts and of the comparison (label cpu):
#   test_bench_cli_cpu     perf/cli.c, perf/stats.c: parsing (good and bad values), outputs
#                          opened up front, the noise measure and the stopping rule
#   test_bench_report_cpu  perf/bench_report.c: CSV, Markdown, settings, JSON text
#   bench_json_schema      the JSON result file loaded by Python's json and validated
#                          field by field (tests/bench_schema_check.py)
#   bench_compare          perf/compare.py on synthetic result files: SAME inside the noise,
#                          FAST / SLOW outside, FAIL, missing rows, exit status 3
#   bench_tools            both programs' command lines (--version, strict values, outputs
#                          refused up front) and a real result file from
#                          miniblas-cblas-bench --dry-run-cpu (no GPU needed)
#   bench_regress_job      perf/regress.sh with stand-ins for nvidia-smi and the benchmark:
#                          GPU name, baseline found or made (--update), exit 0 / 3 / 2
# The two C tests are registered by the glob in tests/CMakeLists.txt; they need perf_common.
foreach(t test_bench_cli_cpu test_bench_report_cpu)
  if(TARGET ${t})
    target_link_libraries(${t} PRIVATE perf_common)
  endif()
endforeach()
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND AND TARGET test_bench_report_cpu)
  add_test(NAME bench_json_schema
           COMMAND ${CMAKE_COMMAND} -E env
                   sh -c "\"$0\" \"$1\" >/dev/null && \"$2\" \"$3\" \"$1\" --synthetic"
                   $<TARGET_FILE:test_bench_report_cpu>
                   ${CMAKE_CURRENT_BINARY_DIR}/bench_schema.json
                   ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/bench_schema_check.py)
  add_test(NAME bench_compare
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/bench_compare_test.py
                   ${PROJECT_SOURCE_DIR}/perf/compare.py)
  add_test(NAME bench_regress_job
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench_regress_test.sh ${PROJECT_SOURCE_DIR})
  set_tests_properties(bench_json_schema bench_compare bench_regress_job PROPERTIES LABELS cpu)
  if(TARGET miniblas-bench OR TARGET miniblas-cblas-bench)
    add_test(NAME bench_tools
             COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/bench_tools_test.sh ${PROJECT_BINARY_DIR}
                     ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE})
    set_tests_properties(bench_tools PROPERTIES LABELS cpu)
  endif()
endif()
