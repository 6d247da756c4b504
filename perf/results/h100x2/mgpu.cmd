# gpu: 2x NVIDIA H100 80GB HBM3, 580.159.04 (NVLink between them), 32 host cores
# commit: 8f469d3, 2026-11-27T09:16:17Z
build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 8192,16384 --layouts col --devices 1,2 --memory pageable,pinned --impls mbc,cublasxt,plain --xt-blocks 4096,8192 --budget 1 --no-progress --json perf/results/h100x2/mgpu.json --csv perf/results/h100x2/mgpu.csv > perf/results/h100x2/mgpu.txt
