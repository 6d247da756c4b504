#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# On a GPU machine, in one command: build, the whole CTest suite (GPU tests included), every GPU
# test again under each compute-sanitizer tool (memcheck, racecheck, initcheck, synccheck), and
# the benchmark. Logs go to OUTDIR (at most 8 files, so the device tool can bring them back).
#
#   tests/gpu-verify.sh OUTDIR [phases] [-- miniblas-bench arguments]
#   phases: comma list of build,test,memcheck,racecheck,initcheck,synccheck,bench,conflicts,cblas
#           (default: build,test,memcheck,racecheck,initcheck,synccheck,bench)
#
# Each phase has a time limit (MB_T_<PHASE> seconds; the test phase's LAPACK programs, run last
# and under MPS where possible, have MB_T_LAPACK) so a slow phase cannot eat the others; a
# sanitizer phase (MB_T_MEMCHECK, MB_T_RACECHECK, MB_T_INITCHECK, MB_T_SYNCCHECK, default 540 s
# each) also limits each test executable (MB_T_SANITIZE, default 150 s) and names the tests it
# had no time left for. The summary gives each tool's error count, in total and per test.
# MB_SAN_FILTER (a regular expression) limits the sanitizer phases to some test executables.
# On the lent GPU machine, first: source .device-deps/setup.sh (OpenBLAS).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${1:?usage: tests/gpu-verify.sh OUTDIR [phases] [-- bench args]}
shift
phases=${1:-build,test,memcheck,racecheck,initcheck,synccheck,bench}
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

# The LAPACK test programs through the drop-in in gpu mode (conformance_xlintst[sd]_gpu) make
# millions of tiny calls: tests/conformance/run.sh runs each in 8 parts at once when the CUDA MPS
# daemon runs, else in one (many times longer). So the other tests first, then those two, under
# an MPS daemon this script starts where none runs and it may (root, nvidia-cuda-mps-control).
if has test; then
  t0=$(date +%s)
  lapack='conformance_xlintst[sd]_gpu'
  (cd "$build" && timeout "${MB_T_TEST:-400}" ctest --output-on-failure -j 4 --timeout 300 -E "$lapack") >"$out/ctest.log" 2>&1
  rc=$?
  mps_control=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}/control
  mps=running
  if [ ! -S "$mps_control" ]; then
    mps=off
    if [ "$(id -u)" = 0 ] && command -v nvidia-cuda-mps-control >/dev/null 2>&1 &&
      nvidia-cuda-mps-control -d >/dev/null 2>&1; then
      for _ in 1 2 3 4 5 6 7 8 9 10; do [ -S "$mps_control" ] && break; sleep 0.5; done
      [ -S "$mps_control" ] && mps=started
    fi
  fi
  (cd "$build" && timeout "${MB_T_LAPACK:-900}" ctest --output-on-failure -j 2 -R "$lapack") >>"$out/ctest.log" 2>&1
  r=$?
  [ "$rc" -eq 0 ] && rc=$r
  [ "$mps" = started ] && echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
  note "ctest: rc=$rc in $(( $(date +%s) - t0 )) s (MPS for the LAPACK programs: $mps)"
  grep -E "tests passed|tests failed|Not Run|Skipped|\*\*\*Failed|Failed  |Timeout" "$out/ctest.log" | tee -a "$summary"
fi

# One compute-sanitizer tool over every GPU test executable (quick sizes), into sanitizer.log;
# the error count of each test from the tool's "ERROR SUMMARY" line (racecheck: its hazard
# errors), and the phase's line in the summary: rc, total errors, per-test counts.
sanitize() { # tool phase-limit-seconds [extra compute-sanitizer options]
  local tool=$1 limit=$2 t0 rc=0 total=0 per="" skipped="" name r n
  shift 2
  t0=$(date +%s)
  for exe in "$build"/tests/test_*_gpu; do
    [ -x "$exe" ] || continue
    name=$(basename "$exe")
    [[ $name =~ ${MB_SAN_FILTER:-.} ]] || continue
    local left=$(( limit - ($(date +%s) - t0) ))
    if [ "$left" -le 5 ]; then skipped="$skipped $name"; continue; fi
    [ "$left" -gt "${MB_T_SANITIZE:-150}" ] && left=${MB_T_SANITIZE:-150}
    echo "### $tool $name"
    MINIBLAS_TEST_QUICK=1 MINIBLAS_FUZZ_SECONDS=${MB_SAN_FUZZ_SECONDS:-15} timeout "$left" \
      compute-sanitizer --tool "$tool" "$@" --error-exitcode 9 "$exe" >"$out/.san.tmp" 2>&1
    r=$?
    # "ERROR SUMMARY: N errors" (memcheck, initcheck, synccheck); racecheck prints
    # "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)"
    n=$(grep -oE "ERROR SUMMARY: [0-9]+ error" "$out/.san.tmp" | grep -oE "[0-9]+" | tail -1)
    [ -z "$n" ] && n=$(grep -oE "\(([0-9]+) errors?," "$out/.san.tmp" | grep -oE "[0-9]+" | tail -1)
    [ -z "$n" ] && n="?"
    head -40 "$out/.san.tmp"; echo "[...]"; tail -8 "$out/.san.tmp"; rm -f "$out/.san.tmp"
    echo "### rc=$r errors=$n ($tool $name)"
    [ "$r" -eq 0 ] || rc=$r
    [ "$n" = "?" ] || total=$(( total + n ))
    [ "$r" -eq 124 ] && n="$n,TIMEOUT"
    per="$per $name=$n"
  done
  note "$tool: rc=$rc errors=$total in $(( $(date +%s) - t0 )) s;$per${skipped:+; NOT RUN (phase limit ${limit} s):$skipped}"
}
: >"$out/sanitizer.log"
for tool in memcheck racecheck initcheck synccheck; do
  lim_var=MB_T_$(echo "$tool" | tr '[:lower:]' '[:upper:]')
  has "$tool" && sanitize "$tool" "${!lim_var:-540}" >>"$out/sanitizer.log" 2>&1
done

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
