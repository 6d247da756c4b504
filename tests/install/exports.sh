#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# exports.sh LIBMINIBLAS LIBMINIBLAS_CBLAS: each library exports only its API (nm -D):
# libminiblas the miniblas_* functions; libminiblas_cblas the cblas, Fortran BLAS, xerbla and
# miniblas_cblas_* entry points, and it needs nothing of libminiblas but its API.
set -eu
status=0
bad=$(nm -D --defined-only "$1" | awk '{print $NF}' | grep -v '^miniblas_' || true)
[ -z "$bad" ] || { echo "FAIL: $1 exports non-API symbols:"; echo "$bad" | head -20; status=1; }
n=$(nm -D --defined-only "$1" | grep -c ' miniblas_' || true)
[ "$n" -gt 10 ] || { echo "FAIL: $1 exports only $n miniblas_* symbols"; status=1; }
if [ -n "${2:-}" ]; then
  bad=$(nm -D --defined-only "$2" | awk '{print $NF}' |
        grep -Ev '^(cblas_[sd](gemm|asum|dot|omatcopy)|cblas_xerbla|[sd](gemm|asum|dot)_|miniblas_cblas_[a-z_]+)$' || true)
  [ -z "$bad" ] || { echo "FAIL: $2 exports non-API symbols:"; echo "$bad" | head -20; status=1; }
  for s in cblas_sgemm cblas_dgemm cblas_sasum cblas_ddot sgemm_ cblas_xerbla; do
    nm -D --defined-only "$2" | grep -q " $s\$" || { echo "FAIL: $2 lacks $s"; status=1; }
  done
  bad=$(nm -D --undefined-only "$2" | awk '{print $NF}' | grep -E '^mb_|^_Z' || true)
  [ -z "$bad" ] || { echo "FAIL: $2 needs internal symbols:"; echo "$bad" | head; status=1; }
fi
[ $status = 0 ] && echo "exports: only the API ($n miniblas_* in $(basename "$1"))"
exit $status
