#!/usr/bin/env bash
# On a GPU machine, in one command: build, the whole CTest suite (GPU tests included), the GPU
# tests again under compute-sanitizer (memcheck; racecheck on the shared-memory kernels), and
# the benchmark. Logs go to OUTDIR (at most 8 files, so the device tool can bring them back).
#
#   tests/gpu-verify.sh OUTDIR [phases] [-- miniblas-bench arguments]
#   phases: comma list of build,test,memcheck,racecheck,bench,conflicts,cblas
#           (default: build,test,memcheck,racecheck,bench)
#
# Each phase has a time limit (MB_T_<PHASE> seconds) so a slow phase cannot eat the others.
# On the lent GPU machine, first: source .device-deps/setup.sh (OpenBLAS).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: tests/gpu-verify.sh OUTDIR [phases] [-- bench args]}
shift
phases=${1:-build,test,memcheck,racecheck,bench}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
bench_args=("$@")
mkdir -p "$out"
build=${MB_BUILD_DIR:-$root/build-gpu}
summary=$out/summary.txt
has() { case ",$phases," in *",$1,"*) return 0 ;; esac; return 1; }
note() { echo "$*" | tee -a "$summary"; }

: >"$summary"
note "== $(date -u +%FT%TZ) miniblas gpu-verify, commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee -a "$summary"
nvcc --version | tail -2 | tee -a "$summary"

if has build; then
  t0=$(date +%s)
  { cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS="-Xptxas -v" &&
    timeout "${MB_T_BUILD:-420}" cmake --build "$build" -j "$(nproc)" -- -k; } >"$out/build.log" 2>&1
  rc=$?
  note "build: rc=$rc in $(( $(date +%s) - t0 )) s (keep-going: what built is still tested)"
  [ $rc -eq 0 ] || grep -E "error|Error" "$out/build.log" | head -20 | tee -a "$summary"
fi

if has test; then
  t0=$(date +%s)
  (cd "$build" && timeout "${MB_T_TEST:-400}" ctest --output-on-failure -j 4 --timeout 300) >"$out/ctest.log" 2>&1
  rc=$?
  note "ctest: rc=$rc in $(( $(date +%s) - t0 )) s"
  grep -E "tests passed|tests failed|Not Run|Skipped|\*\*\*Failed|Failed  |Timeout" "$out/ctest.log" | tee -a "$summary"
fi

sanitize() { # tool: run every GPU test executable under compute-sanitizer, quick sizes
  local tool=$1 filter=$2 t0 rc=0
  t0=$(date +%s)
  for exe in "$build"/tests/test_*_gpu; do
    [[ $(basename "$exe") =~ $filter ]] || continue
    echo "### $tool $(basename "$exe")"
    MINIBLAS_TEST_QUICK=1 timeout "${MB_T_SANITIZE:-240}" compute-sanitizer --tool "$tool" \
      --error-exitcode 9 "$exe" >"$out/.san.tmp" 2>&1
    local r=$?
    head -40 "$out/.san.tmp"; echo "[...]"; tail -6 "$out/.san.tmp"; rm -f "$out/.san.tmp"
    echo "### rc=$r"
    [ "$r" -eq 0 ] || rc=$r
  done
  note "$tool: rc=$rc in $(( $(date +%s) - t0 )) s"
}
if has memcheck; then sanitize memcheck '.' >"$out/sanitizer.log" 2>&1; grep -E "^### rc=|ERROR SUMMARY" "$out/sanitizer.log" | sort | uniq -c | tee -a "$summary"; fi
if has racecheck; then sanitize racecheck "${MB_RACE_FILTER:-gemm|omatcopy|reduce}" >>"$out/sanitizer.log" 2>&1; tail -3 "$out/sanitizer.log" | tee -a "$summary"; fi

if has bench; then
  t0=$(date +%s)
  timeout "${MB_T_BENCH:-420}" "$build/perf/miniblas-bench" --csv "$out/bench.csv" --json "$out/bench.json" \
    "${bench_args[@]}" >"$out/bench.txt" 2>"$out/.bench.err"
  rc=$?
  note "bench: rc=$rc in $(( $(date +%s) - t0 )) s"
  grep -vE '^\[[0-9]+/[0-9]+\]|timing [0-9]+ trials' "$out/.bench.err" | tail -20 >>"$summary"
  rm -f "$out/.bench.err"
fi

# Extra measurements, all into one file: bank conflicts (Nsight Compute) and the cblas layer.
if has conflicts; then
  t0=$(date +%s)
  timeout "${MB_T_CONFLICTS:-240}" "$root/perf/bank-conflicts.sh" "$build" >>"$out/extra.txt" 2>&1
  note "conflicts: rc=$? in $(( $(date +%s) - t0 )) s"
fi
if has cblas && [ -x "$build/perf/miniblas-cblas-bench" ]; then
  t0=$(date +%s)
  timeout "${MB_T_CBLAS:-300}" "$build/perf/miniblas-cblas-bench" ${MB_CBLAS_ARGS:-} >>"$out/extra.txt" 2>&1
  note "cblas bench: rc=$? in $(( $(date +%s) - t0 )) s"
fi
exit 0
