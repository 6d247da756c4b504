#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The performance-regression job: build (or take a build), run miniblas-bench on the regression
# set of rows, and compare with the committed baseline of the GPU found here,
# perf/results/<gpu>/baseline.json (<gpu>: h100, h200, ...), by perf/compare.py.
#
#   perf/regress.sh [--build DIR] [--no-build] [--out DIR] [--tolerance PCT] [--update]
#                   [-- extra miniblas-bench arguments]
#
#   --build DIR     the build directory (default build/); configured and built when needed
#   --no-build      take the build as it is
#   --out DIR       where current.json, current.md, current.csv, compare.txt go
#                   (default DIR/regress)
#   --tolerance PCT added to both runs' noise by the comparison (default 5)
#   --update        write the run as the new baseline of this GPU instead of comparing
#
# Exit status: 0 no row SLOW; 3 a row SLOW (or a row correct in the baseline is WRONG now);
# 1 a rung WRONG or a call failed; 2 no GPU, no baseline for this GPU, or bad usage.
# One run takes about 1-2 minutes on an H100 or H200. docs/benchmarking.md describes the job.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
out=
tolerance=5
update=0
do_build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --out) out=$2; shift 2 ;;
    --tolerance) tolerance=$2; shift 2 ;;
    --update) update=1; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "regress.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
out=${out:-$build/regress}

# The regression set: every op, the library's choice (auto) beside cuBLAS, at sizes that show
# the large-problem rate (gemm 4096, 8192, rectangular and flat-k shapes; omatcopy 4096, 8192;
# reductions 2^20, launch-bound, and 2^28, bandwidth-bound). Changing it needs new baselines.
REGRESS_ARGS=(--ops all --rungs auto
              --gemm-sizes 1024,4096,8192,4096x4096x256,8192x128x8192
              --omat-sizes 4096,8192 --vec-sizes 2^20,2^28
              --trials 7 --max-trials 30 --max-noise 1 --max-time 1 --min-time-ms 20)

if ! gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader \
                  -i "$(printf "%s" "${CUDA_VISIBLE_DEVICES:-0}" | cut -d, -f1)" 2>/dev/null | head -1) || [ -z "$gpu_name" ]; then
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
fi
if [ -z "$gpu_name" ]; then
  echo "regress.sh: no NVIDIA GPU found (nvidia-smi); the regression job runs on the GPU machine" >&2
  exit 2
fi
# the GPU's short name: the model (gh200 before h200), else the whole name in lower case
lower=$(printf '%s' "$gpu_name" | tr '[:upper:]' '[:lower:]')
gpu=$(printf '%s' "$lower" | grep -oE 'gh200|gb200|b200|h200|h100|a100|l40s|l40|l4|a10g|a10' | head -1 || true)
[ -n "$gpu" ] || gpu=$(printf '%s' "$lower" | tr -c 'a-z0-9' '-' | sed 's/-\{2,\}/-/g; s/^-//; s/-$//')
baseline=$root/perf/results/$gpu/baseline.json
echo "== regression job on $gpu_name ($gpu); baseline $baseline"

if [ "$update" = 0 ] && [ ! -f "$baseline" ]; then
  echo "regress.sh: no baseline for $gpu: make one on this GPU with: perf/regress.sh --update" >&2
  exit 2
fi

# shellcheck source=perf/bench_build.sh
source "$root/perf/bench_build.sh"
mb_bench_build regress.sh "$root" "$build" "$do_build"

mkdir -p "$out"
rc=0
"$bench" "${REGRESS_ARGS[@]}" --json "$out/current.json" --md "$out/current.md" \
  --csv "$out/current.csv" "$@" || rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
  echo "regress.sh: miniblas-bench failed (exit status $rc)" >&2
  exit "$rc"
fi

if [ "$update" = 1 ]; then
  if [ "$rc" != 0 ]; then
    echo "regress.sh: a row is WRONG or failed: not written as the baseline" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$baseline")"
  cp "$out/current.json" "$baseline"
  echo "== wrote $baseline (commit it)"
  exit 0
fi

crc=0
python3 "$root/perf/compare.py" "$baseline" "$out/current.json" --tolerance "$tolerance" \
  | tee "$out/compare.txt" || crc=${PIPESTATUS[0]}
[ "$rc" = 1 ] && { echo "== some rows are WRONG or a call failed (exit status 1)"; exit 1; }
if [ "$crc" = 3 ]; then
  echo "== REGRESSION against $baseline (details: $out/compare.txt)"
elif [ "$crc" = 0 ]; then
  echo "== no regression against $baseline"
fi
exit "$crc"
