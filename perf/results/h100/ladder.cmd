# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 91a2592
# date: 2026-11-27T01:06:39Z
build/perf/miniblas-bench --op all --rung all --skip-slow --trials 5 --csv perf/results/h100/ladder.csv --json perf/results/h100/ladder.json
