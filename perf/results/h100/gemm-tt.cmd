# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 5dae8bc
# date: 2026-11-27T03:17:08Z
build/perf/miniblas-bench --op sgemm,dgemm --trans TT --sizes 1024,4096 --skip-slow --trials 5 --csv perf/results/h100/gemm-tt.csv --json perf/results/h100/gemm-tt.json
