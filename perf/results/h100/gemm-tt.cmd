# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 5b02b8e
# date: 2026-11-26T17:23:08Z
build/perf/miniblas-bench --op sgemm,dgemm --trans TT --sizes 1024,4096 --skip-slow --trials 5 --csv perf/results/h100/gemm-tt.csv --json perf/results/h100/gemm-tt.json
