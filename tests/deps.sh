# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tests/run-tests.sh and perf/run-main.sh: make sure the build tools are there.
# Installs what is missing on a Debian machine (cmake, pkg-config, OpenBLAS, python3 for several
# CPU tests) when run as root;
# the CUDA toolkit (nvcc) must already be installed. On the GPU machine, which has no network,
# source .device-deps/setup.sh first (see README.md): OpenBLAS then comes from there.
mb_need=""
command -v cmake >/dev/null 2>&1 || mb_need="$mb_need cmake"
command -v pkg-config >/dev/null 2>&1 || mb_need="$mb_need pkg-config"
command -v cc >/dev/null 2>&1 || mb_need="$mb_need build-essential"
command -v python3 >/dev/null 2>&1 || mb_need="$mb_need python3"
if ! pkg-config --exists openblas 2>/dev/null && [ ! -f "${OPENBLAS_ROOT:-/nonexistent}/include/cblas.h" ]; then
  mb_need="$mb_need libopenblas-dev"
fi
if [ -n "$mb_need" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "miniblas: installing:$mb_need" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q $mb_need >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $mb_need >/dev/null; } ||
      { echo "miniblas: could not install:$mb_need" >&2; return 1; }
  else
    echo "miniblas: missing:$mb_need (install them, e.g. apt-get install$mb_need)" >&2
    return 1
  fi
fi
# The reference BLAS / CBLAS / LAPACK test programs of tests/conformance.cmake (optional: without
# them those tests skip, unless MINIBLAS_CONFORMANCE_REQUIRED=1 as in CI). On a machine without
# apt, tests/conformance/fetch-debs.sh unpacks them elsewhere (MINIBLAS_CONFORMANCE_ROOT).
if [ -z "${MINIBLAS_CONFORMANCE_ROOT:-}" ] && ! ls /usr/lib/*/blas/xblat1s /usr/lib/*/lapack/xlintsts >/dev/null 2>&1; then
  mb_conf="libblas-test liblapack-test libtmglib3"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "miniblas: installing: $mb_conf" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q $mb_conf >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q $mb_conf >/dev/null; } ||
      echo "miniblas: could not install $mb_conf: the conformance tests will skip" >&2
  else
    echo "miniblas: $mb_conf not installed: the conformance tests will skip" >&2
  fi
fi
if ! command -v nvcc >/dev/null 2>&1; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do
    [ -x "$d/nvcc" ] && export PATH="$d:$PATH" && break
  done
fi
command -v nvcc >/dev/null 2>&1 ||
  { echo "miniblas: nvcc not found: install the CUDA toolkit (12.x or 13.x)" >&2; return 1; }
# cmake >= 3.24 is required; Debian 12 ships 3.25.
return 0
