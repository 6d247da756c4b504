# gpu: 2x NVIDIA H100 80GB HBM3, 580.159.04 (peer access between them), 32 host cores
# commit: 91a2592, 2026-11-27T01:16:50Z
build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 8192,16384 --layouts col --devices 1,2 --memory pageable,pinned --impls mbc,cublasxt,plain --xt-blocks 4096,8192 --budget 2 --no-progress --json perf/results/h100x2/mgpu.json --csv perf/results/h100x2/mgpu.csv > perf/results/h100x2/mgpu.txt
