#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The plots of the ladder docs from the results files of one GPU, on any machine (no GPU
# needed; matplotlib: apt-get install python3-matplotlib), then the generated doc blocks:
#
#   perf/results/plots.sh GPU        e.g.  perf/results/plots.sh h100
#
# Writes docs/img/GPU/<op>[_<trans>].png with perf/plot.py (log rate axis).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpu=${1:?usage: perf/results/plots.sh GPU}
python3 -c "import matplotlib" 2>/dev/null ||
  { echo "plots.sh: matplotlib missing (apt-get install python3-matplotlib)" >&2; exit 1; }
mkdir -p "$root/docs/img/$gpu"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for csv in "$root"/perf/results/"$gpu"/*.csv; do
  [ "$(basename "$csv")" = cblas.csv ] && continue # miniblas-cblas-bench's own format
  # rung names as in rungs.def (results measured before a rename carry the former ones)
  python3 "$root/perf/ladder_tables.py" --current-names "$csv" "$tmp/$(basename "$csv")"
  python3 "$root/perf/plot.py" "$tmp/$(basename "$csv")" --out "$root/docs/img/$gpu" --logy
done
python3 "$root/perf/ladder_tables.py"
