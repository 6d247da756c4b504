#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The main job (README.md): install what is missing, build, and run the rung-ladder benchmark
# of every op side by side with cuBLAS. With no GPU it says so plainly and runs a CPU-side
# example instead (the rung tables, and the cblas example program on the CPU path).
#   perf/run-main.sh [build-dir] [-- miniblas-bench arguments]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
if [ $# -gt 0 ] && [ "$1" != "--" ]; then build=$1; shift; fi
[ "${1:-}" = "--" ] && shift
# shellcheck source=tests/deps.sh
source "$root/tests/deps.sh"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"

if nvidia-smi -L >/dev/null 2>&1; then
  mkdir -p "$build/results"
  echo "== miniblas rung ladder vs cuBLAS on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo "   (CSV, JSON and Markdown in $build/results/; plot with:"
  echo "    python3 perf/plot.py $build/results/bench.json --out $build/results/plots)"
  exec "$build/perf/miniblas-bench" --skip-slow --csv "$build/results/bench.csv" \
    --json "$build/results/bench.json" --md "$build/results/bench.md" "$@"
fi

echo "== No NVIDIA GPU found on this machine: miniblas's kernels cannot run here, so the"
echo "   benchmark is skipped. Running the CPU-side example instead."
echo
echo "-- the rung ladder of every op (what the benchmark would time):"
"$build/perf/miniblas-bench" --list
ex=$build/tests/cblas_example_relinked
if [ -x "$ex" ]; then
  echo
  echo "-- a plain cblas.h program (docs/examples/cblas_example.c) relinked against"
  echo "   libminiblas_cblas: with no GPU every call runs on the CPU BLAS (MINIBLAS_CBLAS_VERBOSE=2"
  echo "   prints the path of each call):"
  MINIBLAS_CBLAS_VERBOSE=2 "$ex"
fi
