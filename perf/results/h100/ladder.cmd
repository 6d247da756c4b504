# gpu: NVIDIA H100 80GB HBM3, 580.159.04
# commit: 5dae8bc
# date: 2026-11-27T03:15:03Z
build/perf/miniblas-bench --op all --rung all --skip-slow --trials 5 --csv perf/results/h100/ladder.csv --json perf/results/h100/ladder.json
