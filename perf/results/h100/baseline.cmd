# gpu: NVIDIA H100 80GB HBM3, 580.159.04 (CUDA 13.0 runtime, cuBLAS 13.1.0)
# made by the regression job; its row set is REGRESS_ARGS in perf/regress.sh
# recorded while a pre-scan variant of the 3xTF32 range guard was the default (since removed):
# the current code's sgemm auto rows measured from 22% below to 3% above it (x3guard-cost/README.md)
perf/regress.sh --build build --no-build --update
