#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Measures the three ladders on this machine's GPU and writes the results files the docs are
# generated from:
#
#   perf/results/run.sh GPU [BENCH]      e.g.  perf/results/run.sh h100 build/perf/miniblas-bench
#
# GPU names the directory (h100, h200); BENCH is the miniblas-bench binary (default
# build/perf/miniblas-bench; $MINIBLAS_GIT_COMMIT names the commit where the tree is no
# checkout; the build reads it as well, like -DMINIBLAS_GIT_COMMIT). Writes perf/results/GPU/<part>.csv, <part>.json, <part>.cmd (the
# GPU, driver and the exact command) and <part>.txt (the printed table) for ladder (every op)
# and gemm-tt, then the plots (docs/img/GPU/, needs matplotlib) and the generated blocks of
# docs/ladders/*.md and docs/cblas.md. A few minutes on an H100, plus about 2 for the cblas
# drop-in (cblas.csv) when miniblas-cblas-bench is built. Exit status: miniblas-bench's worst (1 = a rung was WRONG: the
# docs must not be regenerated from such a run).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
gpu=${1:?usage: perf/results/run.sh GPU [BENCH]}
bench=${2:-$root/build/perf/miniblas-bench}
out=$root/perf/results/$gpu
mkdir -p "$out"
common=(--skip-slow --trials 5)
worst=0

part() { # part NAME miniblas-bench-arguments...
  local name=$1
  shift
  local args=("$@" "${common[@]}" --csv "perf/results/$gpu/$name.csv" --json "perf/results/$gpu/$name.json")
  {
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "# commit: ${MINIBLAS_GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "# date: $(date -u +%FT%TZ)"
    echo "build/perf/miniblas-bench ${args[*]}"
  } >"$out/$name.cmd"
  echo "== $name: miniblas-bench ${args[*]}" >&2
  (cd "$root" && "$bench" "${args[@]}") >"$out/$name.txt"
  local rc=$?
  [ $rc -gt $worst ] && worst=$rc
  echo "== $name: exit $rc" >&2
}

# One measurement per directory: the files of an earlier one go (git keeps them).
# (baseline.* belongs to perf/regress.sh and stays.)
rm -f "$out"/{ladder,gemm-tt,cblas}.{csv,json,cmd,txt}
# Every rung of every op at the benchmark's default sizes (as perf/results/h200/ladder.csv),
# then gemm TT, where the transposing shared-memory stores of rungs 3 and 4 differ.
part ladder --op all --rung all
part gemm-tt --op sgemm,dgemm --trans TT --sizes 1024,4096

# The cblas drop-in against OpenBLAS on host memory (docs/cblas.md), when its benchmark was
# built (it needs OpenBLAS); about 2 minutes more.
cbench=$(dirname "$bench")/miniblas-cblas-bench
if [ -x "$cbench" ]; then
  cargs=(--ops sgemm,dgemm,sasum,sdot,somatcopy --sizes 1024,4096,8192 --vec-sizes 2^20,2^24,2^26
         --layouts col --budget 3 --max-seconds 5 --csv-wide "perf/results/$gpu/cblas.csv")
  {
    echo "# gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    echo "# commit: ${MINIBLAS_GIT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
    echo "# date: $(date -u +%FT%TZ)"
    echo "build/perf/miniblas-cblas-bench ${cargs[*]}"
  } >"$out/cblas.cmd"
  echo "== cblas: miniblas-cblas-bench ${cargs[*]}" >&2
  (cd "$root" && "$cbench" "${cargs[@]}") >"$out/cblas.txt"
  echo "== cblas: exit $?" >&2
else
  echo "no $cbench: the cblas table stays as it is" >&2
fi

# Plots (matplotlib; the GPU machine may lack it: then run perf/results/plots.sh GPU on any
# machine after copying the results back) and the generated doc blocks.
if ! "$root/perf/results/plots.sh" "$gpu"; then
  echo "no plots made here: run perf/results/plots.sh $gpu where matplotlib is installed" >&2
  python3 "$root/perf/ladder_tables.py"
fi
exit $worst
