#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# CPU test of the two benchmark programs' command lines (no GPU needed): --version, strict
# values (exit 2 naming the program and the value), an unwritable output file refused before
# anything runs, and an end-to-end result file from miniblas-cblas-bench --dry-run-cpu (the
# CPU BLAS against the layer's CPU path) validated by tests/bench_schema_check.py and compared
# with itself by perf/compare.py (all SAME); perf/spread.py and perf/cblas_compare.py on
# files made up here, a dry run's output and committed results; perf/ncu_stalls.py on a
# made-up Nsight Compute source page, plain and compressed; perf/targets.py on made-up and
# committed files, and perf/headline.sh's usage errors.
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
  # several GPU sets, host memory kinds, cublasXt: strict values
  expect 2 "miniblas-cblas-bench: bad entry '0' in --devices" "$mcb" --devices 0
  expect 2 "miniblas-cblas-bench: bad entry 'd0+0' in --devices" "$mcb" --devices 1,d0+0
  expect 2 "miniblas-cblas-bench: bad entry 'd' in --devices" "$mcb" --devices d
  expect 2 "miniblas-cblas-bench: bad entry 'd1+' in --devices" "$mcb" --devices d1+
  expect 2 "miniblas-cblas-bench: bad entry 'x2' in --devices" "$mcb" --devices x2
  expect 2 "miniblas-cblas-bench: bad entry '65' in --devices" "$mcb" --devices 65
  expect 2 "miniblas-cblas-bench: bad --devices '1,2,3,4,5,6,7,8,1'" "$mcb" --devices 1,2,3,4,5,6,7,8,1
  expect 2 "miniblas-cblas-bench: bad value 'paged' for --memory" "$mcb" --memory paged
  expect 2 "miniblas-cblas-bench: bad value 'pinned,pinned' for --memory" "$mcb" --memory pinned,pinned
  expect 2 "miniblas-cblas-bench: bad value '0' for --xt-blocks" "$mcb" --xt-blocks 0
  expect 2 "miniblas-cblas-bench: bad value '4096,4096' for --xt-blocks" "$mcb" --xt-blocks 4096,4096
  expect 2 "miniblas-cblas-bench: bad value '12x' for --xt-blocks" "$mcb" --xt-blocks 12x
  expect 2 "miniblas-cblas-bench: unknown implementation 'xt'" "$mcb" --impls mbc,xt
  expect 2 "miniblas-cblas-bench: --csv-wide is not available with --devices" \
    "$mcb" --devices 1 --csv-wide "$t/w.csv"
  # one child process per GPU set (the CPU path in a dry run), rows merged with their set
  check "cblas bench --dry-run-cpu --devices 1,d0+1 --memory pageable,pinned --impls ...,cublasxt" \
    '"$mcb" "${args[@]}" --devices 1,d0+1 --memory pageable,pinned --impls openblas,mbc,cublasxt \
       --xt-blocks 1024,4096 --json "$t/d.json" --csv "$t/d.csv" --md "$t/d.md" >"$t/dlog" 2>&1'
  check "each child says which GPUs" \
    'grep -q "^==== devices 1 " "$t/dlog" && grep -q "^==== devices d0+1 " "$t/dlog" &&
     grep -q "env MINIBLAS_CBLAS_DEVICES=0,1" "$t/dlog"'
  check "cublasxt and pinned memory skipped in a dry run, with a note" \
    'grep -q "note: cublasxt is skipped in a dry run" "$t/dlog" &&
     grep -q "note: pinned memory is skipped in a dry run" "$t/dlog"'
  check "the summary: the layer over both sets side by side" \
    'grep -q "^the layer (mbc) over the device sets" "$t/dlog" &&
     grep -Eq "^sgemm +col pageable 48x48x48 +0,1 " "$t/dlog"'
  check "the merged result file is valid" '"$py" "$src/tests/bench_schema_check.py" "$t/d.json"'
  check "its rows: both device sets, pageable, one set of rows each" \
    '"$py" - "$t/d.json" <<'"'"'EOF'"'"'
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
keys = [(r["op"], r["rung"], r["devices"], r["memory"]) for r in rows]
want = {(op, rung, d, "pageable") for op in ("sgemm", "sasum") for rung in ("openblas", "mbc")
        for d in ("0", "0,1")}
sys.exit(0 if len(keys) == len(set(keys)) and set(keys) == want else 1)
EOF'
  check "csv: devices and memory columns" \
    'head -1 "$t/d.csv" | grep -q ",note,devices,memory$" && grep -q ",\"0,1\",pageable$" "$t/d.csv"'
  check "markdown: the device set beside the implementation" \
    'grep -q "^| sgemm | 48x48x48 | col | mbc \[devices 0,1\] |" "$t/d.md"'
  check "compare.py keeps the device sets apart (no row missing, each set listed)" \
    '"$py" "$src/perf/compare.py" "$t/d.json" "$t/d.json" >"$t/dcmp" && ! grep -q "missing in" "$t/dcmp" &&
     grep -q "sgemm 48x48x48 col mbc devices=0,1" "$t/dcmp" && grep -q "sgemm 48x48x48 col mbc devices=0 " "$t/dcmp"'
  check "cblas_compare.py: a run against itself, both device sets, no change" \
    '"$py" "$src/perf/cblas_compare.py" "$t/dlog" "$t/dlog" x y >"$t/cc" &&
     grep -Eq "^\| sgemm \| pageable \| 48 \| 2 \| [0-9.]+ \| [0-9.]+ \| \+0\.0% \|$" "$t/cc" &&
     grep -Eq "^\| sgemm \| pageable \| 48 \| 1 \|" "$t/cc" && ! grep -v "+0.0%" "$t/cc" | grep -q "^| sgemm"'
  check "compare.py: a cblas result file from before memory existed matches pageable rows" \
    '"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); [r.pop(\"memory\") for r in d[\"results\"]]; json.dump(d,open(sys.argv[2],\"w\"))" "$t/a.json" "$t/old.json" &&
     "$py" "$src/perf/compare.py" "$t/old.json" "$t/a.json" >"$t/ocmp" && ! grep -q "missing in" "$t/ocmp"'
fi
# the spread of rows over several runs (perf/spread.py) and two cblas runs side by side
# (perf/cblas_compare.py), on files made up here and on committed results
hdr="op,shape,trans,inc,rung,reference,time_us,ratio_cublas,status"
printf '%s\n%s\n%s\n' "$hdr" "sgemm,64x64x64,NN,0,cublas,1,10,1,ok" "sgemm,64x64x64,NN,0,auto,0,5,2.0,ok" >"$t/s1.csv"
printf '%s\n%s\n' "$hdr" "sgemm,64x64x64,NN,0,auto,0,8,1.25,ok" >"$t/s2.csv"
printf '%s\n%s\n' "$hdr" "sgemm,64x64x64,NN,0,auto,0,0,,WRONG" >"$t/s3.csv"
check "spread.py: lowest, median, highest over the runs; a row not ok counted" \
  '"$py" "$src/perf/spread.py" "$t/s1.csv" "$t/s2.csv" "$t/s3.csv" >"$t/sp" &&
   grep -Eq "^sgemm +64x64x64 +NN +auto +1\.25 +1\.62 +2\.00 +2  \(1 not ok\)$" "$t/sp" && ! grep -q cublas "$t/sp"'
kdir=$src/perf/results/h100x4/kslab
if [ -f "$kdir/default.txt" ]; then
  check "cblas_compare.py on committed results" \
    '"$py" "$src/perf/cblas_compare.py" "$kdir/default.txt" "$kdir/kslab2048.txt" >"$t/kc" &&
     grep -qx "| sgemm | pinned | 16384 | 1 | 118.7 | 120.7 | +1.7% |" "$t/kc" && [ "$(grep -c "^| [sd]gemm" "$t/kc")" = 12 ]'
fi
check "cblas_compare.py: a file without the summary is refused" \
  '! "$py" "$src/perf/cblas_compare.py" "$t/s1.csv" "$t/s1.csv" >/dev/null 2>&1'
# warp-stall samples by reason (perf/ncu_stalls.py) on an Nsight Compute source page made up
# here: 20 loop instructions run 100 times, 3 others once
"$py" - "$t/k-sass.csv" <<'EOF'
import csv, sys
r = ("wait", "math", "selected", "short_sb", "long_sb", "barrier", "branch_resolving", "mio",
     "lg", "no_inst", "not_selected")
w = csv.writer(open(sys.argv[1], "w", newline=""), quoting=csv.QUOTE_ALL)
w.writerow(["Kernel Name", "k"])
w.writerow(["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed"] +
           ["stall_" + x for x in r])
for i in range(20):
    w.writerow([hex(i), "DMMA", 2, 100] + [1 if x in ("wait", "short_sb") else 0 for x in r])
for i in range(3):
    w.writerow([hex(100 + i), "STG", 5, 1] + [5 if x == "long_sb" else 0 for x in r])
EOF
check "ncu_stalls.py: the loop and the rest, by reason" \
  '"$py" "$src/perf/ncu_stalls.py" "$t/k-sass.csv" >"$t/ns" &&
   grep -qx "| k | loop | 40 | 20 | 0 | 0 | 20 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |" "$t/ns" &&
   grep -qx "| k | rest | 15 | 0 | 0 | 0 | 0 | 15 | 0 | 0 | 0 | 0 | 0 | 0 |" "$t/ns"'
check "ncu_stalls.py --top: a gzip file, the rest's instructions by samples" \
  'gzip -c "$t/k-sass.csv" >"$t/k-sass.csv.gz" &&
   "$py" "$src/perf/ncu_stalls.py" --top 2 "$t/k-sass.csv.gz" >"$t/nt" &&
   grep -qx "| k | rest | 15 | 0 | 0 | 0 | 0 | 15 | 0 | 0 | 0 | 0 | 0 | 0 |" "$t/nt" &&
   [ "$(grep -c "^ *5  STG .*long_sb 5$" "$t/nt")" = 2 ]'
# the speed targets (perf/targets.py) on files made up here: every target met; then one row
# under its target, `auto` slower than a rung by more than 3%, one row left out; and on the
# committed headline of one GPU
"$py" - "$t/tg" <<'PY'
import sys
d = sys.argv[1]
shapes = ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192",
          "4096x4096x256", "8192x128x8192", "128x8192x8192", "4097x4095x4099"]
cubes = ["%dx%dx%d" % (n, n, n) for n in range(512, 2049, 128)]
cubes = [c for c in cubes if c not in shapes]
hdr = "op,shape,trans,inc,rung,reference,time_us,ratio_cublas,status\n"
def write(name, rows):
    with open("%s-%s.csv" % (d, name), "w") as f:
        f.write(hdr + "".join("%s,%s,%s,0,%s,0,1,%s,ok\n" % r for r in rows))
good = [(op, s, t, rung, 2.5 if op == "sgemm" else 1.1)
        for op in ("sgemm", "dgemm") for s in shapes + (cubes if op == "dgemm" else [])
        for t in ("NN", "TT") for rung in ("auto", "top")]
write("good1", good)
write("good2", good)
bad = [r for r in good if r[:3] != ("sgemm", "1024x1024x1024", "TT")]
bad = [r[:4] + (0.85,) if r[:3] == ("dgemm", "4096x4096x256", "NN") else r for r in bad]
bad = [r[:4] + (1.2,) if r[:4] == ("dgemm", "2048x2048x2048", "TT", "top") else r for r in bad]
write("bad", bad)
PY
check "targets.py: every target met (exit 0)" \
  '"$py" "$src/perf/targets.py" "$t/tg-good1.csv" "$t/tg-good2.csv" >"$t/tg" &&
   grep -q "^108 of 108 targets met$" "$t/tg" && ! grep -q MISS "$t/tg"'
check "targets.py: a row under its target, auto behind a rung, a row in one file only (exit 3)" \
  '"$py" "$src/perf/targets.py" "$t/tg-good1.csv" "$t/tg-bad.csv" >"$t/tb"; [ $? = 3 ] &&
   grep -Eq "^dgemm +4096x4096x256 +NN +auto +1\.00 +0\.850 +0\.975 +1\.100 +2  MISSED$" "$t/tb" &&
   grep -Eq "^dgemm +2048x2048x2048 +TT +auto vs rung +1\.117 +1\.100 +2  MISSED \(fastest rung top: 1\.150\)$" "$t/tb" &&
   grep -Eq "^sgemm +1024x1024x1024 +TT +auto +1\.50 .* 1  met$" "$t/tb" &&
   grep -q "^106 of 108 targets met$" "$t/tb"'
check "targets.py: a row in no file is MISSING" \
  '"$py" "$src/perf/targets.py" "$t/tg-bad.csv" >"$t/tm"; [ $? = 3 ] &&
   grep -Eq "^sgemm +1024x1024x1024 +TT +auto +1\.50 +- +- +- +0  MISSING$" "$t/tm"'
check "targets.py: files without timed rows (exit 2)" \
  '"$py" "$src/perf/targets.py" "$t/s3.csv" >/dev/null 2>&1; [ $? = 2 ]'
hl=$src/perf/results/h200/headline
if [ -f "$hl/p1.csv" ]; then
  check "targets.py on a committed headline" \
    '"$py" "$src/perf/targets.py" "$hl"/p?.csv "$hl"/s?.csv >"$t/th"; [ $? = 3 ] &&
     grep -Eq "^dgemm +4096x4096x256 +TT +auto +1\.00 +0\.9[0-9]+ +0\.9[0-9]+ .* MISSED$" "$t/th" &&
     grep -Eq "^sgemm +8192x8192x8192 +NN +auto +2\.00 .* 5  met$" "$t/th"'
fi
expect 2 "headline.sh: bad value 'x' for --runs" bash "$src/perf/headline.sh" --runs x
expect 2 "headline.sh: unknown argument '--bogus'" bash "$src/perf/headline.sh" --bogus
exit $fail
