# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 400ad2c
# date: 2026-11-26T19:11:42Z
build/perf/miniblas-bench --op all --rung all --skip-slow --trials 5 --csv perf/results/h100/ladder.csv --json perf/results/h100/ladder.json
