#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The gemm headline: sgemm and dgemm at the benchmark's default shapes, NN and TT, the top rungs
# of each ladder and `auto` beside cuBLAS, in separate processes one after the other; dgemm from
# 512 to 2048 in steps of 128 in a few more; then the spread of each row over the processes
# (perf/spread.py) and the speed targets (perf/targets.py).
#
#   perf/headline.sh [--build DIR] [--no-build] [--out DIR] [--runs N] [--sweep-runs N]
#
#   --build DIR       the build directory (default build/); configured and built when needed
#   --no-build        take the build as it is
#   --out DIR         where the files go (default DIR/headline): gpu.txt (the GPU, driver and
#                     commit), commands.txt, pI.csv (headline processes), sI.csv (dgemm
#                     sweep), headline.txt and sweep.txt (perf/spread.py), targets.txt
#   --runs N          headline processes (default 5)
#   --sweep-runs N    dgemm sweep processes (default 3; 0: none)
#
# Exit status: 0 every target met; 3 a target missed; 1 a process failed; 2 no GPU or bad
# usage. About 5 minutes on an H100 or H200 with the defaults; a line on stderr per process.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
out=
runs=5
sweep_runs=3
do_build=1
count() { case "$2" in '' | *[!0-9]*) echo "headline.sh: bad value '$2' for $1" >&2; exit 2 ;; esac; }
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=${2:?headline.sh: --build needs a value}; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --out) out=${2:?headline.sh: --out needs a value}; shift 2 ;;
    --runs) count --runs "${2:-}"; runs=$2; shift 2 ;;
    --sweep-runs) count --sweep-runs "${2:-}"; sweep_runs=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "headline.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$runs" -ge 1 ] || { echo "headline.sh: --runs must be at least 1" >&2; exit 2; }
out=${out:-$build/headline}

if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "headline.sh: no NVIDIA GPU found (nvidia-smi); the headline runs on the GPU machine" >&2
  exit 2
fi
# shellcheck source=perf/bench_build.sh
source "$root/perf/bench_build.sh"
mb_bench_build headline.sh "$root" "$build" "$do_build"
mkdir -p "$out"
rm -f "$out"/[ps][0-9]*.csv "$out"/[ps][0-9]*.log

HEAD=(--ops sgemm,dgemm --rungs auto,promote4_tf32x3,dmma,tma_dmma --trans NN,TT
      --trials 5 --max-time 0.5 --no-progress)
SWEEP=(--ops dgemm --rungs auto,dmma,tma_dmma --trans NN,TT
       --sizes 512,640,768,896,1024,1152,1280,1408,1536,1664,1792,1920,2048
       --trials 5 --max-time 0.3 --no-progress)
{
  nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader
  echo "commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$out/gpu.txt"
{
  echo "miniblas-bench ${HEAD[*]} --csv pI.csv    # I = 1..$runs, one process each"
  [ "$sweep_runs" = 0 ] || echo "miniblas-bench ${SWEEP[*]} --csv sI.csv    # I = 1..$sweep_runs"
} >"$out/commands.txt"

run() { # prefix name total i args...
  local f=$out/$1$4 name=$2 total=$3 i=$4
  shift 4
  echo "headline.sh: $name process $i of $total" >&2
  "$bench" "$@" --csv "$f.csv" >"$f.log" 2>&1 ||
    { echo "headline.sh: $name process $i failed ($f.log)" >&2; exit 1; }
}
for i in $(seq 1 "$runs"); do run p headline "$runs" "$i" "${HEAD[@]}"; done
for i in $(seq 1 "$sweep_runs"); do run s sweep "$sweep_runs" "$i" "${SWEEP[@]}"; done

py=${PYTHON:-python3}
heads=("$out"/p[0-9]*.csv) sweeps=()
[ "$sweep_runs" = 0 ] || sweeps=("$out"/s[0-9]*.csv)
"$py" "$root/perf/spread.py" "${heads[@]}" >"$out/headline.txt"
[ "$sweep_runs" = 0 ] || "$py" "$root/perf/spread.py" "${sweeps[@]}" >"$out/sweep.txt"
rc=0
"$py" "$root/perf/targets.py" "${heads[@]}" "${sweeps[@]}" >"$out/targets.txt" || rc=$?
cat "$out/gpu.txt"
grep -E "MISSED|MISSING|targets met" "$out/targets.txt" || true
echo "headline.sh: files in $out"
exit "$rc"
