#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds and runs the sweep: ./run.sh [OUTFILE] [family ...]   (OUTFILE default sweep.txt,
# relative to the caller's cwd). The table goes to OUTFILE and to stdout, build messages to
# stdout; the run is capped by `timeout 200` (the program itself stops starting new
# measurements after SWEEP_BUDGET_S = 185 s, so a partial table is always complete per row).
set -u
out=${1:-sweep.txt}
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
shift || true
here=$(cd "$(dirname "$0")" && pwd)
t0=$(date +%s)
"$here/build.sh" || { echo "run.sh: build failed" | tee "$out"; exit 1; }
echo "run.sh: build took $(( $(date +%s) - t0 )) s"
timeout 200 "$here/sweep" "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
echo "run.sh: sweep exit $rc (124 = timeout), total $(( $(date +%s) - t0 )) s; table in $out"
exit $rc
