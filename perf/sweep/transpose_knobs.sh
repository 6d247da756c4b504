#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds variants of the vectorized transpose with different knobs (in parallel) and times each:
#   perf/sweep/transpose_knobs.sh [OUTFILE]      (on the GPU machine; prints to stdout too)
# Edit the V list to try other settings; the defaults in 05_vectorized.cu are the measured ones.
set -u
cd "$(dirname "$0")"
out=${1:-/dev/null}
F="-O3 -std=c++17 -arch=sm_90 -I../../include -I../../kernels -I../../src"
declare -A V=( [default]="" [band32]="-DVEC_BAND=32" [band1]="-DVEC_BAND=1" [early]="-DVEC_LATE_TRIGGER=0"
  [nocs]="-DVEC_STREAM_STORES=0" [nopf]="-DVEC_PREFETCH=0" [b6]="-DVEC_BLOCKS_PER_SM=6" )
mkdir -p build-knobs
nvcc $F -c ../../kernels/transpose/04_multi.cu -o build-knobs/multi.o &
for k in "${!V[@]}"; do nvcc $F ${V[$k]} -c transpose_knobs.cu -o build-knobs/$k.o & done
wait
for k in "${!V[@]}"; do nvcc -arch=sm_90 build-knobs/$k.o build-knobs/multi.o -o build-knobs/$k || exit 1; done
{ for k in "${!V[@]}"; do ./build-knobs/$k $k; done; ./build-knobs/default copy x; } | tee "$out"
