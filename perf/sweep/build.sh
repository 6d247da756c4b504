#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds ./sweep (in this folder) from any cwd. Flags as the library's CMake Release build
# (-O3 -DNDEBUG, C++17, --expt-relaxed-constexpr; no -lineinfo, no fast math); sm_90.
# 15 translation units compile in parallel (each family file twice, -DSW_PART=0/1, half of its
# configs each); ptxas -v output of each goes to build-<unit>.log (registers/spills per kernel;
# the sweep also prints them at run time).
set -u
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null 2>&1 || NVCC=/usr/local/cuda/bin/nvcc
ARCH=${SWEEP_ARCH:-sm_90}
FLAGS="-O3 -DNDEBUG -std=c++17 -arch=$ARCH --expt-relaxed-constexpr -Xcompiler=-Wall
       -I../../include -I../../kernels -I../../src -Xptxas -v"
units=()
for f in sweep_lib sweep_dmma sweep_dmid sweep_dswz sweep_tf32x3 sweep_simt_s sweep_simt_d; do
  units+=("$f:0" "$f:1")
done
units+=("sweep:-")
pids=(); objs=()
for u in "${units[@]}"; do
  src=${u%%:*}; part=${u##*:}
  if [ "$part" = "-" ]; then obj=$src.o; def=""; else obj=$src.p$part.o; def="-DSW_PART=$part"; fi
  $NVCC $FLAGS $def -c $src.cu -o $obj > build-${obj%.o}.log 2>&1 &
  pids+=($!); objs+=($obj)
done
fail=0
for i in "${!units[@]}"; do
  if ! wait ${pids[$i]}; then
    log=build-${objs[$i]%.o}.log
    echo "build.sh: ${units[$i]} failed ($log):"
    grep -v "ptxas info\|bytes stack frame\|Compiling entry\|Function properties" $log | head -40
    fail=1
  fi
done
[ $fail = 0 ] || exit 1
$NVCC -arch=$ARCH -o sweep "${objs[@]}" -lcublas || exit 1
echo "build.sh: built $(pwd)/sweep"
