#!/usr/bin/env bash
# The plots of the ladder docs from the results files of one GPU, on any machine (no GPU
# needed; matplotlib: pip install matplotlib), then the generated doc blocks:
#
#   perf/results/plots.sh GPU        e.g.  perf/results/plots.sh h100
#
# Writes docs/img/GPU/<op>[_<trans>].png with perf/plot.py (log rate axis).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpu=${1:?usage: perf/results/plots.sh GPU}
python3 -c "import matplotlib" 2>/dev/null ||
  { echo "plots.sh: matplotlib missing (pip install matplotlib)" >&2; exit 1; }
mkdir -p "$root/docs/img/$gpu"
for f in gemm gemm-tt transpose reduction; do
  csv=$root/perf/results/$gpu/$f.csv
  [ -f "$csv" ] && python3 "$root/perf/plot.py" "$csv" --out "$root/docs/img/$gpu" --logy
done
python3 "$root/perf/ladder_tables.py"
