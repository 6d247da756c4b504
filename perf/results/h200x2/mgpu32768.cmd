# gpu: 2x NVIDIA H200, 580.159.04, 32 host cores (the same machine, right after mgpu.*)
# commit: 4da602f (the files say f2d2494, as in mgpu.cmd), 2026-11-27
build/perf/miniblas-cblas-bench --ops sgemm,dgemm --gemm-sizes 32768 --layouts col --devices 1,2 --memory pageable --impls mbc --budget 1 --no-progress --json perf/results/h200x2/mgpu32768.json --csv perf/results/h200x2/mgpu32768.csv > perf/results/h200x2/mgpu32768.txt
