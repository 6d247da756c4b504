# gpu: 2x NVIDIA H100 80GB HBM3, 580.159.04 (peer access between them), 32 host cores
# commit: 51e0154, 2026-11-26T16:58:39Z
build/perf/miniblas-cblas-bench --ops sasum,sdot,dasum,ddot --vec-sizes 2^24,2^26,2^28 --devices 1,2 --memory pinned --impls mbc,openblas --budget 2 --no-progress --csv perf/results/h100x2/mgpuvec.csv > perf/results/h100x2/mgpuvec.txt
# then the same with --memory pageable --vec-sizes 2^28 (the control), rows appended
