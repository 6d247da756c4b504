#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run docs/examples/cblas_example three ways and compare the outputs (CTest: cblas_example).
#   compare.sh EXAMPLE_OPENBLAS EXAMPLE_RELINKED LIBMINIBLAS_CBLAS
# 1. EXAMPLE_OPENBLAS: built against OpenBLAS alone (the reference output);
# 2. EXAMPLE_RELINKED: the same source linked with libminiblas_cblas before OpenBLAS;
# 3. EXAMPLE_OPENBLAS with LD_PRELOAD=LIBMINIBLAS_CBLAS.
# Every line "name value scale tol" must agree with the reference within tol * scale. With
# MINIBLAS_CBLAS_VERBOSE=2 the layer logs each call it takes on stderr: ways 2 and 3 must show
# all eight functions going through miniblas, way 1 none. When a GPU is visible (nvidia-smi -L)
# the 2048 sgemm must have run on the GPU.
set -u
ref_exe=$1 relinked_exe=$2 lib=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
die() { echo "FAIL: $*"; fail=1; }

"$ref_exe" >"$tmp/ref.out" 2>"$tmp/ref.err" || die "the OpenBLAS build exited with $?"
MINIBLAS_CBLAS_VERBOSE=2 "$relinked_exe" >"$tmp/relinked.out" 2>"$tmp/relinked.err" ||
  die "the relinked build exited with $?"
MINIBLAS_CBLAS_VERBOSE=2 LD_PRELOAD="$lib" "$ref_exe" >"$tmp/preloaded.out" 2>"$tmp/preloaded.err" ||
  die "the preloaded run exited with $?"

[ -s "$tmp/ref.out" ] || die "no reference output"
if grep -q miniblas_cblas "$tmp/ref.err"; then die "the OpenBLAS-only run went through miniblas"; fi

for run in relinked preloaded; do
  awk -v run="$run" '
    NR == FNR { name[FNR] = $1; val[FNR] = $2; scale[FNR] = $3; tol[FNR] = $4; n = FNR; next }
    {
      if (!(FNR in name) || $1 != name[FNR]) { printf "FAIL: %s line %d: %s where the reference has %s\n", run, FNR, $1, name[FNR]; bad = 1; next }
      d = $2 - val[FNR]; if (d < 0) d = -d
      lim = tol[FNR] * scale[FNR]
      if (!(d <= lim)) { printf "FAIL: %s %s = %s, reference %s (|diff| %g > %g)\n", run, $1, $2, val[FNR], d, lim; bad = 1 }
      m = FNR
    }
    END {
      if (m != n) { printf "FAIL: %s has %d lines, the reference %d\n", run, m, n; bad = 1 }
      if (!bad) printf "%s: %d values agree with OpenBLAS\n", run, n
      exit bad
    }' "$tmp/ref.out" "$tmp/$run.out" || fail=1
  for f in cblas_sgemm cblas_dgemm cblas_sasum cblas_dasum cblas_sdot cblas_ddot cblas_somatcopy cblas_domatcopy; do
    grep -q "miniblas_cblas: $f " "$tmp/$run.err" || die "$run: $f did not go through miniblas"
  done
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && [ "${MINIBLAS_CBLAS_GPU:-1}" != 0 ]; then
    grep -q "cblas_sgemm m=2048 n=2048 k=2048 -> gpu" "$tmp/$run.err" ||
      die "$run: a GPU is visible but the 2048 sgemm did not run on it"
  fi
  echo "--- $run: path log"
  grep "miniblas_cblas" "$tmp/$run.err" | head -20
done
[ $fail -eq 0 ] && echo "cblas_example: PASS"
exit $fail
