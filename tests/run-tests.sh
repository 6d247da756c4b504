#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The test command (README.md): install what is missing, build, run the whole CTest suite.
# With no GPU the GPU tests (label gpu) report "skipped", never "passed"; CPU tests must pass.
#   tests/run-tests.sh [build-dir]        (default: build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
# shellcheck source=tests/deps.sh
source "$root/tests/deps.sh"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
