# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by perf/regress.sh and perf/headline.sh: mb_bench_build PROG ROOT BUILD DO_BUILD
# configures (when BUILD has no cache yet) and builds miniblas-bench in BUILD, the build tools
# checked first by tests/deps.sh, unless DO_BUILD is 0; then sets `bench` to the program, or
# exits 2 naming PROG when it is not there.
mb_bench_build() {
  local prog=$1 root=$2 build=$3 do_build=$4
  if [ "$do_build" = 1 ]; then
    # shellcheck source=tests/deps.sh
    source "$root/tests/deps.sh"
    if [ ! -f "$build/CMakeCache.txt" ]; then
      mkdir -p "$build"
      cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1 ||
        { cat "$build/configure.log"; exit 2; }
    fi
    cmake --build "$build" -j "$(nproc)" --target miniblas-bench >/dev/null ||
      { echo "$prog: the build failed" >&2; exit 2; }
  fi
  bench=$build/perf/miniblas-bench
  [ -x "$bench" ] || { echo "$prog: $bench not found (build it, or drop --no-build)" >&2; exit 2; }
}
