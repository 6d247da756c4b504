# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 91a2592
# date: 2026-11-27T01:08:45Z
build/perf/miniblas-bench --op sgemm,dgemm --trans TT --sizes 1024,4096 --skip-slow --trials 5 --csv perf/results/h100/gemm-tt.csv --json perf/results/h100/gemm-tt.json
