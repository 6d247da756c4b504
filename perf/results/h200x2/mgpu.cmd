# gpu: 2x NVIDIA H200, 580.159.04, 32 host cores
# commit: 4da602f (the files say f2d2494: the build read the commit from the copied tree's stale git metadata), 2026-11-27
build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 8192,16384 --layouts col --devices 1,2 --memory pageable,pinned --impls mbc,cublasxt,plain --xt-blocks 4096,8192 --budget 1 --no-progress --json perf/results/h200x2/mgpu.json --csv perf/results/h200x2/mgpu.csv > perf/results/h200x2/mgpu.txt
