# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 5dae8bc
# date: 2026-11-27T03:17:25Z
build/perf/miniblas-cblas-bench --ops sgemm,dgemm,sasum,sdot,somatcopy --sizes 1024,4096,8192 --vec-sizes 2^20,2^24,2^26 --layouts col --budget 3 --max-seconds 5 --csv-wide perf/results/h100/cblas.csv
