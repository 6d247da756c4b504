# gpu: NVIDIA H100 80GB HBM3, 580.159.04 (CUDA 13.0 runtime, cuBLAS 13.1.0)
# made by the regression job; its row set is REGRESS_ARGS in perf/regress.sh
perf/regress.sh --build build --no-build --update
