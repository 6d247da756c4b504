# gpu: 4x NVIDIA H100 80GB HBM3, 580.159.04, 64 host cores
# commit: c8941d7, 2026-11-27
build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 16384 --layouts col --devices 1,2,4 --memory pageable,pinned --impls mbc,cublasxt --xt-blocks 4096,8192 --budget 1 --no-progress --json perf/results/h100x4/mgpu.json --csv perf/results/h100x4/mgpu.csv > perf/results/h100x4/mgpu.txt
