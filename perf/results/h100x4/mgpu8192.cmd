# gpu: 4x NVIDIA H100 80GB HBM3, 580.159.04, 64 host cores
# commit: c8941d7, 2026-11-27 (the same machine and build as mgpu.*, right after it)
build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 8192 --layouts col --devices 1,2,4 --memory pageable,pinned --impls mbc,cublasxt --xt-blocks 4096,8192 --budget 1 --no-progress --json perf/results/h100x4/mgpu8192.json --csv perf/results/h100x4/mgpu8192.csv > perf/results/h100x4/mgpu8192.txt
