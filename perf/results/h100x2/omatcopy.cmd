# gpu: 2x NVIDIA H100 80GB HBM3, 580.159.04 (peer access between them), 32 host cores
# commit: 91a2592, 2026-11-27T01:16:50Z
# stopped by a 100 s time limit during its last row (domatcopy, pageable, 16384, 2 GPUs): the
# printed table only (omatcopy.txt), no CSV or JSON
build/perf/miniblas-cblas-bench --ops somatcopy,domatcopy --sizes 8192,16384 --devices 1,2 --memory pinned,pageable --impls mbc --budget 1 --no-progress --json perf/results/h100x2/omatcopy.json --csv perf/results/h100x2/omatcopy.csv > perf/results/h100x2/omatcopy.txt
