# gpu: 2x NVIDIA H100 80GB HBM3, 580.159.04 (peer access between them), 32 host cores
# commit: ea0f2cc, 2026-11-26
MINIBLAS_CBLAS_TUNING=split_cols=2048 build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 8192,16384 --layouts col --devices 1,2 --memory pageable --impls mbc,plain --budget 2 --no-progress --no-kernels --csv perf/results/h100x2/split2048.csv > perf/results/h100x2/split2048.txt
