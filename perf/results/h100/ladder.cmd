# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 5b02b8e
# date: 2026-11-26T17:21:08Z
build/perf/miniblas-bench --op all --rung all --skip-slow --trials 5 --csv perf/results/h100/ladder.csv --json perf/results/h100/ladder.json
