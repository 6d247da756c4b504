#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CPU test of the two benchmark programs' command lines (no GPU needed): --version, strict
# values (exit 2 naming the program and the value), an unwritable output file refused before
# anything runs, and an end-to-end result file from miniblas-cblas-bench --dry-run-cpu (the
# CPU BLAS against the layer's CPU path) validated by tests/bench_schema_check.py and compared
# with itself by perf/compare.py (all SAME).
#   tests/bench_tools_test.sh BUILD_DIR SOURCE_DIR PYTHON
set -uo pipefail
build=$1 src=$2 py=$3
mb=$build/perf/miniblas-bench
mcb=$build/perf/miniblas-cblas-bench
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1"; fail=1; fi; }
# expect STATUS PATTERN command...: the exit status and a pattern in stderr
expect() {
  local want=$1 pat=$2
  shift 2
  "$@" >"$t/out" 2>"$t/err"
  local rc=$?
  if [ "$rc" = "$want" ] && grep -q -- "$pat" "$t/err"; then
    echo "ok: $* -> $rc"
  else
    echo "FAILED: $* -> $rc (want $want and '$pat'):"; cat "$t/err"; fail=1
  fi
}
for tool in "$mb" "$mcb"; do
  [ -x "$tool" ] || continue
  name=$(basename "$tool")
  check "$name --version" '"$tool" --version >"$t/v" && grep -q "^$name (miniblas [0-9]" "$t/v"'
  check "$name --help" '"$tool" --help >"$t/h" && grep -q -- "--max-noise" "$t/h"'
  expect 2 "$name: bad size '12x' in --sizes\|$name: bad --sizes '12x'" "$tool" --sizes 12x
  expect 2 "$name: bad value 'abc' for --trials" "$tool" --trials abc
  expect 2 "$name: bad value '3x' for --tolerance" "$tool" --tolerance 3x
  expect 2 "$name: unknown option '--bogus'" "$tool" --bogus
  expect 2 "$name: option '--json' needs a value" "$tool" --json
  expect 2 "$name: cannot write $t/no/dir/r.json" "$tool" --json "$t/no/dir/r.json"
  expect 2 "$name: cannot read --baseline" "$tool" --baseline "$t/none.json"
done
if [ -x "$mcb" ]; then
  expect 2 "miniblas-cblas-bench: bad value 'abc' for --alpha" "$mcb" --alpha abc
  expect 2 "miniblas-cblas-bench: unknown op 'foo'" "$mcb" --ops foo
  args=(--dry-run-cpu --ops sasum,sgemm --vec-sizes 2^12 --sizes 48 --layouts col --trials 3
        --budget 0.2 --settle-cpu-ms 0 --settle-ms 0 --min-time-ms 2 --no-progress)
  check "cblas bench --dry-run-cpu writes json, md, csv" \
    '"$mcb" "${args[@]}" --json "$t/a.json" --md "$t/a.md" --csv "$t/a.csv" >"$t/log" 2>&1'
  check "its result file is valid" '"$py" "$src/tests/bench_schema_check.py" "$t/a.json"'
  check "its rows: openblas (reference), mbc, mbc_gpu" \
    'grep -q "\"rung\": \"openblas\", \"reference\": true" "$t/a.json" && grep -q "\"rung\": \"mbc_gpu\"" "$t/a.json"'
  check "markdown table" 'grep -q "^| sasum | 2^12 | - | mbc |" "$t/a.md"'
  check "a file against itself: exit 0, no SLOW" \
    '"$py" "$src/perf/compare.py" "$t/a.json" "$t/a.json" >"$t/cmp" && ! grep -q "^SLOW" "$t/cmp"'
fi
exit $fail
