#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One reference BLAS / CBLAS / LAPACK test program (Debian's libblas-test, liblapack-test) run
# twice with OpenBLAS as its BLAS and LAPACK: once as is (the baseline) and once with
# libminiblas_cblas preloaded in front of OpenBLAS. The programs exit 0 whatever happens, so
# their output is judged here:
#   - BLAS level 1 (xblat1?, x?cblat1): every "Test of subprogram" section must say PASS and
#     never FAIL. The one exception is ?NRM2 when the baseline fails it too: OpenBLAS 0.3.21's
#     own ?nrm2 (increment <= 0) on some CPUs, a routine miniblas does not provide.
#   - BLAS level 3 (xblat3?, x?cblat3): no line with FAIL, SUSPECT, ERROR (other than "PASSED
#     THE TESTS OF ERROR-EXITS") or "*****", every PASSED line of the baseline present, and
#     END OF TESTS reached.
#   - LAPACK linear equations (xlintst?): no regression against the baseline: no group fails
#     more of its tests than in the baseline, every "passed" line of the baseline present, no
#     new error line, "End of tests" reached. Baseline failures (OpenBLAS's own LAPACK) are
#     listed, not counted.
# Modes: cpu (the default settings: calls of these sizes run on the CPU BLAS) and gpu (every
# crossover at 0, MINIBLAS_CBLAS_VERBOSE=2: each call's path is logged and counted; at least
# one call must have run on the GPU and none may have fallen back to the CPU).
#
#   run.sh MODE PROGRAM ROOT CBLAS_LIB OPENBLAS_LIB SHIM_LIB PROBE WORKDIR
# ROOT: where the packages are unpacked (/ when installed; dpkg -x folder otherwise);
# $MINIBLAS_CONFORMANCE_ROOT overrides it. Exit 77 (skipped) when the program is absent,
# unless MINIBLAS_CONFORMANCE_REQUIRED=1 (CI), or in gpu mode without a usable GPU.
set -u
mode=$1 prog=$2 root=${MINIBLAS_CONFORMANCE_ROOT:-$3} cblas=$4 openblas=$5 shim=$6 probe=$7 work=$8
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
cblas=$(abs "$cblas") shim=$(abs "$shim") probe=$(abs "$probe") work=$(abs "$work")
say() { printf 'conformance %s (%s): %s\n' "$prog" "$mode" "$*"; }

# ---- find the program and its input
exe=$(ls -d "$root"/usr/lib/*/blas/"$prog" "$root"/usr/lib/*/lapack/"$prog" 2>/dev/null | head -n1)
if [ -z "$exe" ] || [ ! -x "$exe" ]; then
  msg="$prog not found under $root/usr/lib/*/{blas,lapack} (Debian: apt-get install libblas-test liblapack-test libtmglib3; elsewhere set MINIBLAS_CONFORMANCE_ROOT to a dpkg -x folder of them, see tests/conformance/fetch-debs.sh)"
  if [ "${MINIBLAS_CONFORMANCE_REQUIRED:-0}" = 1 ]; then say "FAILED: $msg"; exit 1; fi
  say "SKIPPED: $msg"
  exit 77
fi
dir=$(dirname "$exe")
p=${prog#x}
case $prog in
  xblat1?|x?cblat1) kind=l1 input= ;;
  xblat3?) kind=l3 input=$dir/${prog#xblat3}blat3.in out=${prog#xblat3}blat3.out ;;
  x?cblat3) p=${prog#x}; kind=l3 input=$dir/${p%cblat3}in3 out= ;;
  xlintst?) kind=lin input=$dir/${prog#xlintst}test.in ;;
  *) say "FAILED: unknown program"; exit 1 ;;
esac
if [ -n "$input" ] && [ ! -f "$input" ]; then say "FAILED: input $input missing"; exit 1; fi

# ---- libblas.so.3 / liblapack.so.3 -> OpenBLAS (LAPACK included); libtmglib.so.3 from ROOT
real_ob=$(readlink -f "$openblas")
if [ ! -f "$real_ob" ]; then say "FAILED: OpenBLAS library $openblas not found"; exit 1; fi
rm -rf "$work" && mkdir -p "$work/lib" "$work/base" "$work/pre" || exit 1
ln -s "$real_ob" "$work/lib/libblas.so.3"
ln -s "$real_ob" "$work/lib/liblapack.so.3"
tmg=$(ls "$root"/usr/lib/*/libtmglib.so.3 2>/dev/null | head -n1)
[ -n "$tmg" ] && ln -s "$(readlink -f "$tmg")" "$work/lib/libtmglib.so.3"
export LD_LIBRARY_PATH=$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# one thread: the programs' calls are tiny, and the LAPACK parts run side by side
export OPENBLAS_NUM_THREADS=1
unset MINIBLAS_CBLAS_VERBOSE

# ---- the mode
probe_out=$("$probe" 2>&1)
case $probe_out in
  *cpu_blas=none*) say "FAILED: libminiblas_cblas loaded no CPU BLAS ($probe_out)"; exit 1 ;;
esac
if [ "$mode" = gpu ]; then
  case $probe_out in
    *gpu=1*) ;;
    *) say "SKIPPED: no usable GPU ($probe_out)"; exit 77 ;;
  esac
  mode_env="MINIBLAS_CBLAS_MIN_SGEMM=0 MINIBLAS_CBLAS_MIN_DGEMM=0 MINIBLAS_CBLAS_MIN_GEMM_DIM=0
    MINIBLAS_CBLAS_MIN_ASUM=0 MINIBLAS_CBLAS_MIN_DOT=0 MINIBLAS_CBLAS_MIN_OMATCOPY=0
    MINIBLAS_CBLAS_VERBOSE=2"
else
  mode_env="MINIBLAS_CBLAS_VERBOSE=1"
fi

# run1 DIR INPUT PRELOAD ENV...: the program in DIR (reading INPUT, if any), its stdout and stderr
# in DIR/stdout, DIR/stderr
run1() {
  local d=$1 in=$2 pre=$3
  shift 3
  (cd "$d" && if [ -n "$in" ]; then
     env LD_PRELOAD="$pre" "$@" "$exe" <"$in" >stdout 2>stderr
   else
     env LD_PRELOAD="$pre" "$@" "$exe" >stdout 2>stderr
   fi)
}
# The LAPACK programs run their test paths (the lines after the header of ?test.in, which ends
# with the "error exits" switch) in $MINIBLAS_CONFORMANCE_JOBS parts at once, at most 8: each
# part is the header and every JOBS-th path, in its own folder; the reports are joined in part
# order. Default: the CPU count; in gpu mode 1 unless the CUDA MPS daemon runs (several
# processes' tiny calls on one GPU without MPS ran 5x slower together than one process alone
# on an H100: 6.6k against 32k calls/s; with MPS, 8 processes made 174k calls/s).
jobs=1
if [ "$kind" = lin ]; then
  if [ "$mode" = gpu ] && [ ! -S "${CUDA_MPS_PIPE_DIRECTORY:-/tmp/nvidia-mps}/control" ]; then
    jobs_default=1
  else
    jobs_default=$(nproc 2>/dev/null || echo 1)
  fi
  jobs=${MINIBLAS_CONFORMANCE_JOBS:-$jobs_default}
  case $jobs in ''|*[!0-9]*|0) jobs=1 ;; esac
  [ "$jobs" -gt 8 ] && jobs=8
  hdr=$(grep -n -m1 'error exits' "$input" | cut -d: -f1)
  [ -n "$hdr" ] || { say "FAILED: no 'error exits' line in $input"; exit 1; }
  npaths=$(tail -n +$((hdr + 1)) "$input" | grep -c '[^[:space:]]')
  [ "$jobs" -gt "$npaths" ] && jobs=$npaths
  [ "$jobs" -lt 1 ] && jobs=1
fi
# run DIR PRELOAD ENV...: the whole program in DIR: its report in DIR/report, its stderr in
# DIR/stderr; the exit status is the first non-zero one of its parts
run() {
  local d=$1 pre=$2 j rc=0 r
  shift 2
  if [ "$jobs" -le 1 ]; then
    run1 "$d" "$input" "$pre" "$@"
    rc=$?
  else
    local pids=()
    for ((j = 0; j < jobs; j++)); do
      mkdir -p "$d/part$j"
      { head -n "$hdr" "$input"
        tail -n +$((hdr + 1)) "$input" | grep '[^[:space:]]' | awk -v j=$j -v n=$jobs '(NR - 1) % n == j'
      } >"$d/part$j/input"
      run1 "$d/part$j" "$d/part$j/input" "$pre" "$@" &
      pids+=($!)
    done
    for ((j = 0; j < jobs; j++)); do
      wait "${pids[$j]}"
      r=$?
      [ $rc -eq 0 ] && rc=$r
    done
    for ((j = 0; j < jobs; j++)); do cat "$d/part$j/stdout"; done >"$d/stdout"
    for ((j = 0; j < jobs; j++)); do cat "$d/part$j/stderr"; done >"$d/stderr"
  fi
  if [ "$kind" = l3 ] && [ -n "$out" ]; then cp "$d/$out" "$d/report" 2>/dev/null || : >"$d/report"
  else cp "$d/stdout" "$d/report"; fi
  return $rc
}
run "$work/base" "$shim" &
base_pid=$!
# shellcheck disable=SC2086
run "$work/pre" "$cblas $shim" $mode_env
pre_rc=$?
wait $base_pid
base_rc=$?
B=$work/base/report P=$work/pre/report
fail=0
bad() { say "FAIL: $*"; fail=1; }
note() { say "note: $*"; }

[ $pre_rc -eq 0 ] || bad "exit status $pre_rc with libminiblas_cblas (baseline: $base_rc); stderr tail:
$(tail -n 5 "$work/pre/stderr")"
grep -q 'cannot be preloaded' "$work/pre/stderr" && bad "the loader did not preload $cblas"
# the layer announces itself (verbose >= 1) when the program first calls it
grep -q '^miniblas_cblas: CPU BLAS: ' "$work/pre/stderr" ||
  bad "libminiblas_cblas was never called (no initialisation notice on stderr)"

case $kind in
l1)
  sections() { # "NAME PASS|FAIL" per "Test of subprogram" section
    awk '/Test of subprogram number/ { if (n) print n, s; n = $NF; s = "MISSING" }
         /FAIL/ { if (n) s = "FAIL" }
         /----- PASS -----/ { if (n && s != "FAIL") s = "PASS" }
         END { if (n) print n, s }' "$1"
  }
  sections "$B" >"$work/base/sections"
  sections "$P" >"$work/pre/sections"
  [ -s "$work/pre/sections" ] || bad "no test section in the output"
  while read -r name st; do
    pst=$(awk -v n="$name" '$1 == n { print $2 }' "$work/pre/sections")
    [ -n "$pst" ] || bad "$name: section missing with libminiblas_cblas (ran in the baseline)"
  done <"$work/base/sections"
  while read -r name st; do
    [ "$st" = PASS ] && continue
    bst=$(awk -v n="$name" '$1 == n { print $2 }' "$work/base/sections")
    case $name in
      *NRM2*)
        if [ "$bst" = FAIL ]; then
          note "$name fails without libminiblas_cblas too: OpenBLAS 0.3.21's own ?nrm2 (increment <= 0), a routine miniblas does not replace; not counted"
          continue
        fi ;;
    esac
    bad "$name: $st (baseline: ${bst:-absent}); its lines:
$(awk -v n="$name" '/Test of subprogram number/ { on = ($NF == n) } on' "$P" | grep -v '^ *$' | head -n 20)"
  done <"$work/pre/sections"
  ;;
l3)
  problems() { grep -E 'FAIL|SUSPECT|ERROR|\*\*\*\*\*' "$1" | grep -v 'PASSED THE TESTS OF ERROR-EXITS' | sed 's/^ *//'; }
  grep -q 'END OF TESTS' "$P" || bad "END OF TESTS not reached"
  problems "$B" >"$work/base/problems"
  problems "$P" >"$work/pre/problems"
  if [ -s "$work/base/problems" ]; then
    note "the baseline (OpenBLAS alone) reports:"
    sort "$work/base/problems" | uniq -c | sed 's/^/    /'
  fi
  grep 'PASSED' "$B" | sed 's/^ *//' | while IFS= read -r line; do
    grep -qF -- "$line" "$P" || echo "$line"
  done >"$work/missing"
  if [ -s "$work/pre/problems" ]; then
    bad "with libminiblas_cblas, failed checks (count x line):
$(sort "$work/pre/problems" | uniq -c | sed 's/^/    /')"
  fi
  [ -s "$work/missing" ] && bad "passed in the baseline, not with libminiblas_cblas:
$(sed 's/^/    /' "$work/missing")"
  ;;
lin)
  ends=$(grep -c 'End of tests' "$P")
  [ "$ends" -eq "$jobs" ] || bad "'End of tests' reached by $ends of the $jobs parts"
  failed_groups() { # "GROUP FAILED_COUNT" from "XYZ:   n out of   m tests failed to pass the threshold"
    awk '/out of .* tests failed to pass the threshold/ { g = $1; sub(/:$/, "", g); f[g] += $2 }
         END { for (g in f) print g, f[g] }' "$1" | sort
  }
  failed_groups "$B" >"$work/base/groups"
  failed_groups "$P" >"$work/pre/groups"
  while read -r g n; do
    bn=$(awk -v g="$g" '$1 == g { print $2 }' "$work/base/groups")
    if [ -z "$bn" ] || [ "$n" -gt "$bn" ]; then
      bad "$g: $n tests failed to pass the threshold with libminiblas_cblas (baseline: ${bn:-0}); their lines:
$(grep -vxF -f "$B" "$P" | grep -v '^ *$' | head -n 20)"
    fi
  done <"$work/pre/groups"
  [ -s "$work/base/groups" ] &&
    note "failing without libminiblas_cblas too (OpenBLAS's own LAPACK; not counted): $(tr '\n' ' ' <"$work/base/groups")"
  errlines() { grep -E 'failed the tests of the error exits|\*\*\*|Illegal|[Ee]rror code' "$1" | sed 's/^ *//' | sort -u; }
  errlines "$B" >"$work/base/err"
  errlines "$P" >"$work/pre/err"
  new_err=$(comm -13 "$work/base/err" "$work/pre/err")
  [ -n "$new_err" ] && bad "error lines not in the baseline:
$(printf '%s\n' "$new_err" | head -n 20 | sed 's/^/    /')"
  grep -E 'passed the (threshold|tests of the error exits)' "$B" | sed 's/^ *//' | while IFS= read -r line; do
    grep -qF -- "$line" "$P" || echo "$line"
  done >"$work/missing"
  [ -s "$work/missing" ] && bad "passed in the baseline, not with libminiblas_cblas:
$(sed 's/^/    /' "$work/missing" | head -n 20)"
  ;;
esac

if [ "$mode" = gpu ]; then
  # miniblas_cblas: ROUTINE SHAPE -> PATH, one line per call
  awk '/^miniblas_cblas: .* -> / { r = $2; p = $0; sub(/.* -> /, "", p); c[r " -> " p]++ }
       END { for (k in c) print c[k], k }' "$work/pre/stderr" | sort -k2 >"$work/paths"
  ngpu=$(awk '$NF == "gpu" || /device pointers/ { s += $1 } END { print s + 0 }' "$work/paths")
  nfb=$(awk '/gpu failed/ { s += $1 } END { print s + 0 }' "$work/paths")
  say "calls by routine and path:"
  sed 's/^/    /' "$work/paths"
  # With every crossover at 0 only gemm's alpha == 0 / K == 0 calls (C = beta C, done by the
  # layer itself) may stay on the CPU; a reduction or omatcopy there missed the GPU.
  ncpu_red=$(awk '$NF == "cpu" && $2 !~ /gemm/ { s += $1 } END { print s + 0 }' "$work/paths")
  [ "$ngpu" -gt 0 ] || bad "no call ran on the GPU"
  [ "$ncpu_red" -eq 0 ] || bad "$ncpu_red asum / dot / omatcopy calls ran on the CPU with every crossover at 0"
  [ "$nfb" -eq 0 ] || bad "$nfb calls failed on the GPU and fell back to the CPU BLAS:
$(grep -B1 -A1 -m 5 'gpu failed' "$work/pre/stderr")"
fi

if [ $fail -ne 0 ]; then
  say "FAILED (outputs in $work/{base,pre})"
  exit 1
fi
say "passed (no failure; outputs in $work/{base,pre})"
exit 0
