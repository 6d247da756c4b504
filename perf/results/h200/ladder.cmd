# GPU: NVIDIA H200 (cc 9.0, 132 SMs), driver 580.159.04, CUDA 13.0 runtime, cuBLAS 13.1.0, 700 W power limit
# build: cmake -S . -B build -DCMAKE_BUILD_TYPE=Release && cmake --build build -j
build/perf/miniblas-bench --op all --rung all --skip-slow --trials 5 --csv perf/results/h200/ladder.csv
