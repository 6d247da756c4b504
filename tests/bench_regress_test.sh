#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CPU test of the regression job perf/regress.sh, with a stand-in nvidia-smi (the GPU's name)
# and a stand-in miniblas-bench (writes a result file whose sgemm row is as slow as asked):
# the GPU name is normalised (h100), the committed baseline of that GPU is found, --update
# writes it, the same speed compares SAME (exit 0), a 50% slower row is SLOW (exit 3), and a
# GPU with no baseline is exit 2.
#   tests/bench_regress_test.sh SOURCE_DIR
set -uo pipefail
src=$(cd "$1" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1"; fail=1; fi; }

# a copy of the tree's perf/ scripts, so the test writes its baseline into the copy
mkdir -p "$t/root/perf" "$t/root/tests" "$t/bin" "$t/build/perf"
cp "$src/perf/regress.sh" "$src/perf/bench_build.sh" "$src/perf/compare.py" "$t/root/perf/"
cat >"$t/bin/nvidia-smi" <<'X'
#!/bin/sh
echo "${FAKE_GPU:-NVIDIA H100 80GB HBM3}"
X
cat >"$t/build/perf/miniblas-bench" <<'X'
#!/bin/sh
# writes --json with one sgemm auto row of ${FAKE_US:-1000} us and a cuBLAS row
json=
while [ $# -gt 0 ]; do case "$1" in --json) json=$2; shift 2;; --md|--csv) : >"$2"; shift 2;; *) shift;; esac; done
row() { printf '{"op": "sgemm", "shape": "4096x4096x4096", "trans": "NN", "inc": 0, "rung": "%s", "reference": %s, "m": 4096, "n": 4096, "k": 4096, "time_us": %s, "min_us": %s, "max_us": %s, "noise": 0.01, "trials": 7, "noise_ok": true, "rate": 1, "unit": "GFLOP/s", "ratio_cublas": 1, "fraction_ceiling": null, "correct": true, "status": "ok", "note": ""}' "$1" "$2" "$3" "$3" "$3"; }
{ printf '{"schema_version": 2, "tool": "miniblas-bench", "device": "NVIDIA H100 80GB HBM3", "command": "x", "settings": {}, "gpu_start": null, "gpu_end": null, "ceilings": {}, "results": ['
  row auto false "${FAKE_US:-1000}"; printf ', '; row cublas true 900; printf ']}\n'; } >"$json"
X
chmod +x "$t/bin/nvidia-smi" "$t/build/perf/miniblas-bench"
export PATH="$t/bin:$PATH"
job() { "$t/root/perf/regress.sh" --no-build --build "$t/build" "$@" >"$t/log" 2>&1; echo $?; }

check "no baseline yet: exit 2" '[ "$(job)" = 2 ] && grep -q "regress.sh --update" "$t/log"'
check "--update writes perf/results/h100/baseline.json" '[ "$(job --update)" = 0 ] && [ -f "$t/root/perf/results/h100/baseline.json" ]'
check "same speed: exit 0" '[ "$(FAKE_US=1010 job)" = 0 ] && grep -q "no regression" "$t/log"'
check "50% slower: exit 3" '[ "$(FAKE_US=1500 job)" = 3 ] && grep -q "^SLOW" "$t/log"'
check "faster: exit 0, FAST" '[ "$(FAKE_US=500 job)" = 0 ] && grep -q "^FAST" "$t/log"'
check "an H200 has no baseline: exit 2" '[ "$(FAKE_GPU="NVIDIA H200" job)" = 2 ]'
check "GH200 is gh200" 'FAKE_GPU="NVIDIA GH200 480GB" job >/dev/null; grep -q "(gh200)" "$t/log"'
exit $fail
