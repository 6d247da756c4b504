# The benchmark's pure-C reporting (perf/bench_report.c: table, CSV, JSON, baseline check) is
# tested on the CPU by tests/test_bench_report_cpu.c, which the glob in tests/CMakeLists.txt
# already registered (label cpu); it needs the report source too.
if(TARGET test_bench_report_cpu)
  target_sources(test_bench_report_cpu PRIVATE ${PROJECT_SOURCE_DIR}/perf/bench_report.c)
  target_link_libraries(test_bench_report_cpu PRIVATE m)
endif()
