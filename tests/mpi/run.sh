#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ScaLAPACK over MPI with libminiblas_cblas as the node BLAS: the test program
# (scalapack_pdgemm_pdgesv.c: PDGEMM and PDGESV, each checked) on NP MPI processes of this host,
#   (a) with OpenBLAS alone,
#   (b) through tests/mpi/rank.sh: libminiblas_cblas preloaded in front of OpenBLAS, one GPU
#       per process (MINIBLAS_CBLAS_DEVICES = the local rank), MINIBLAS_CBLAS_VERBOSE=1,
#   (a') and (b') the same with PBLAS's panel width raised to PANEL (pblas_panel.c preloaded):
#       ScaLAPACK's own 32 makes PDGEMM's local products m x n x 32, which the drop-in keeps on
#       the CPU,
#   (c) as (b') for one run with MINIBLAS_CBLAS_VERBOSE=2, to count the path of every BLAS call
#       the drop-in serves (untimed).
# Fails when a check of the program fails in any run, when in (b) a process did not load the
# drop-in or did not get its own GPU, or when in (c) no dgemm of a process ran on its GPU.
# Prints the times side by side.
#
#   run.sh EXE CBLAS_LIB OPENBLAS_LIB WORKDIR [ROOT [PANEL_LIB]]
# EXE: the program, or "none:REASON" when it could not be built (then: skipped).
# ROOT: where Open MPI and ScaLAPACK were unpacked with dpkg -x (tests/mpi/fetch-debs.sh), empty
# when installed; $MINIBLAS_MPI_ROOT overrides it. PANEL_LIB: libminiblas_pblas_panel.so.
# Environment:
#   MINIBLAS_MPI_NP         processes (default 2)
#   MINIBLAS_MPI_ARGS       the program's arguments (default: --n 4001 --nb 256 --reps 3)
#   MINIBLAS_MPI_PANEL      PBLAS's panel width in (a'), (b'), (c) (default 1024; 0: no such runs)
#   MINIBLAS_MPI_THREADS    OpenBLAS threads per process (default: CPUs / processes)
#   MINIBLAS_MPI_ALLOW_CPU  1: run with fewer GPUs than processes (the drop-in then runs on its
#                           CPU path: checks the program and the plumbing only)
#   MINIBLAS_CBLAS_*        passed on to the processes (e.g. the crossovers)
# Exit 77 (skipped) without mpirun, without the program, or with fewer GPUs than processes.
set -u
exe=$1 cblas=$2 openblas=$3 work=$4 root=${MINIBLAS_MPI_ROOT:-${5:-}} panel_lib=${6:-}
np=${MINIBLAS_MPI_NP:-2}
panel=${MINIBLAS_MPI_PANEL:-1024}
case $panel in ''|*[!0-9]*) panel=0 ;; esac
[ -n "$panel_lib" ] && [ -f "$panel_lib" ] || panel=0
read -r -a args <<<"${MINIBLAS_MPI_ARGS:---n 4001 --nb 256 --reps 3}"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
abs() { case $1 in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
say() { printf 'mpi_scalapack: %s\n' "$*"; }
skip() { say "SKIPPED: $*"; exit 77; }
fail=0
bad() { say "FAIL: $*"; fail=1; }

case $exe in none:*) skip "${exe#none:}" ;; esac
exe=$(abs "$exe") cblas=$(abs "$cblas") work=$(abs "$work")
[ "$panel" = 0 ] || panel_lib=$(abs "$panel_lib")

# ---- a relocated Open MPI (dpkg -x): its programs, libraries, and where it and PMIx live
if [ -n "$root" ]; then
  root=$(abs "$root")
  ompi_dir=$(find "$root"/usr/lib -mindepth 2 -maxdepth 2 -name openmpi -type d 2>/dev/null | head -n1)
  ma=$(basename "$(dirname "${ompi_dir:-.}")")
  if [ -z "$ma" ] || [ "$ma" = . ]; then skip "no Open MPI under MINIBLAS_MPI_ROOT=$root (tests/mpi/fetch-debs.sh makes one)"; fi
  export PATH=$root/usr/bin:$PATH
  export LD_LIBRARY_PATH=$root/usr/lib/$ma${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OPAL_PREFIX=$root/usr
  pmix=$root/usr/lib/$ma/pmix2
  if [ -d "$pmix" ]; then
    export PMIX_PREFIX=$pmix PMIX_PKGDATADIR=$pmix/share/pmix PMIX_PKGLIBDIR=$pmix/lib/pmix
  fi
fi
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (Debian: apt-get install openmpi-bin; elsewhere MINIBLAS_MPI_ROOT, see tests/mpi/fetch-debs.sh)"
[ -x "$exe" ] || skip "$exe not found"

# ---- GPUs: nvidia-smi's count, limited by CUDA_VISIBLE_DEVICES
ngpu=0
if command -v nvidia-smi >/dev/null 2>&1; then
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
fi
if [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
  nvis=$(printf '%s' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c '[^[:space:]]')
  [ "$nvis" -lt "$ngpu" ] && ngpu=$nvis
fi
gpu_mode=1
if [ "$ngpu" -lt "$np" ]; then
  [ "${MINIBLAS_MPI_ALLOW_CPU:-0}" = 1 ] || skip "$ngpu GPU(s) visible, $np processes need one each"
  gpu_mode=0
  say "$ngpu GPU(s) for $np processes: the drop-in runs on its CPU path (MINIBLAS_MPI_ALLOW_CPU=1)"
fi

# ---- ScaLAPACK's BLAS and LAPACK (libblas.so.3, liblapack.so.3) are OpenBLAS
real_ob=$(readlink -f "$openblas")
[ -f "$real_ob" ] || { say "FAILED: OpenBLAS library $openblas not found"; exit 1; }
rm -rf "$work" && mkdir -p "$work/lib" || exit 1
ln -s "$real_ob" "$work/lib/libblas.so.3"
ln -s "$real_ob" "$work/lib/liblapack.so.3"
ob_dir=$(dirname "$real_ob")
export LD_LIBRARY_PATH=$work/lib:$ob_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ncpu=$(nproc 2>/dev/null || echo 1)
t=$((ncpu / np))
[ "$t" -lt 1 ] && t=1
export OPENBLAS_NUM_THREADS=${MINIBLAS_MPI_THREADS:-$t}

# ---- mpirun: one host, shared memory between the processes, threads not pinned to one core
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
mpi_opts=(-np "$np" --oversubscribe --bind-to none --tag-output)
if [ "$(id -u)" = 0 ]; then
  mpi_opts+=(--allow-run-as-root)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
unset LD_PRELOAD MINIBLAS_CBLAS_DEVICES MINIBLAS_CBLAS_DEVICE
if ! ver=$(mpirun --version 2>&1); then
  say "FAILED: mpirun does not run here: $ver"
  exit 1
fi
say "$(printf '%s\n' "$ver" | head -n1); $np processes, $OPENBLAS_NUM_THREADS OpenBLAS threads each, $ngpu GPU(s); program arguments: ${args[*]}"

# run NAME PANEL [VERBOSE]: the program under mpirun, with PBLAS's panel width PANEL (0: its
# own), through rank.sh (the drop-in) when VERBOSE is given; output in $work/NAME.out, exit
# status returned
run() {
  local name=$1 wrap=(env)
  [ "$2" != 0 ] && wrap+=("MINIBLAS_PBLAS_PANEL=$2" "LD_PRELOAD=$panel_lib")
  [ $# -gt 2 ] && wrap+=("MINIBLAS_CBLAS_VERBOSE=$3" bash "$here/rank.sh")
  mpirun "${mpi_opts[@]}" "${wrap[@]}" "$exe" "${args[@]}" >"$work/$name.out" 2>&1
}
# The program's lines (rank 0, stdout) without mpirun's tag
prog_lines() { sed -n 's/^\[[0-9]*,0\]<stdout>://p' "$1"; }
check_run() { # NAME LABEL RC
  local f=$work/$1.out
  prog_lines "$f" | grep -E '^(pdgemm|pdgesv|result):' | grep -v ' first ' | sed "s/^/    [$2] /"
  if [ "$3" -ne 0 ] || ! prog_lines "$f" | grep -q '^result: passed'; then
    bad "$2: exit status $3: a check failed or the program did not finish; its failed checks and the output's tail:
$(prog_lines "$f" | grep 'FAILED' | sed 's/^/    /')
$(grep -v '^\[[0-9]*,[0-9]*\]<stdout>:' "$f" | grep -v '^-*$' | tail -n 8 | sed 's/^/    /')"
  fi
}

run base 0
check_run base "OpenBLAS alone" $?

export MINIBLAS_CBLAS_LIB=$cblas MINIBLAS_RANK_NGPUS=$ngpu
[ "$ngpu" -gt 0 ] || MINIBLAS_RANK_NGPUS=
run pre 0 1
check_run pre "libminiblas_cblas" $?
if [ "$panel" != 0 ]; then
  run base_panel "$panel"
  check_run base_panel "OpenBLAS alone, panel $panel" $?
  run pre_panel "$panel" 1
  check_run pre_panel "libminiblas_cblas, panel $panel" $?
fi
# each process: the drop-in's start-up notice, its GPU
for ((r = 0; r < np; r++)); do
  line=$(sed -n "s/^\[[0-9]*,$r\]<stderr>:miniblas_cblas: CPU BLAS: //p" "$work/pre.out" | head -n1)
  if [ -z "$line" ]; then
    bad "process $r: no start-up notice of libminiblas_cblas: the drop-in was not loaded or never called"
    continue
  fi
  say "process $r: libminiblas_cblas: CPU BLAS: $line"
  if [ $gpu_mode = 1 ]; then
    # "GPU 1: NVIDIA H100 ..." (or a list, "GPUs 0,1: ...", that names this process's GPU)
    if [[ $line == *"CPU BLAS only"* ]] || ! [[ $line =~ GPUs?\ ([0-9]+,)*${r}[^0-9] ]]; then
      bad "process $r did not get GPU $r: $line"
    fi
  fi
done
grep -q 'cannot be preloaded' "$work/pre.out" && bad "the loader did not preload $cblas"

# ---- (c) the path of every call the drop-in served, per process (one run, untimed)
save=("${args[@]}")
args+=(--reps 1)
run paths "$panel" 2
rc_c=$?
args=("${save[@]}")
[ $rc_c -eq 0 ] || bad "verbose run: exit status $rc_c; output tail:
$(tail -n 15 "$work/paths.out")"
for ((r = 0; r < np; r++)); do
  sed -n "s/^\[[0-9]*,$r\]<stderr>:miniblas_cblas: \([a-z_]*\) .* -> \(.*\)$/\1 -> \2/p" "$work/paths.out" |
    sort | uniq -c | awk '{ $1 = $1; print }' >"$work/paths.$r"
  say "process $r: calls by routine and path: $(tr '\n' ';' <"$work/paths.$r" | sed 's/;$//; s/;/; /g')"
  [ $gpu_mode = 0 ] ||
    awk '$2 ~ /gemm/ && $NF == "gpu" { n += $1 } END { exit n > 0 ? 0 : 1 }' "$work/paths.$r" ||
    bad "process $r: no gemm ran on the GPU"
  grep -q 'gpu failed' "$work/paths.$r" && bad "process $r: calls failed on the GPU and fell back to the CPU"
done

# ---- the times side by side
time_of() { prog_lines "$work/$1.out" | sed -n "s/^times: .*$2=\([0-9.]*\).*/\1/p"; }
row() { # LABEL BASE_RUN PRE_RUN
  local r a b ratio
  for r in pdgemm pdgesv; do
    a=$(time_of "$2" $r) b=$(time_of "$3" $r)
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }')
    printf '    %-8s %-11s %16s %20s %8s\n' "$r" "$1" "${a:--}" "${b:--}" "$ratio"
  done
}
say "times (s, best of the runs after the first; the slowest process):"
printf '    %-8s %-11s %16s %20s %8s\n' routine "PBLAS panel" "OpenBLAS alone" "libminiblas_cblas" speedup
row 32 base pre
[ "$panel" != 0 ] && row "$panel" base_panel pre_panel
if [ $fail -ne 0 ]; then
  say "FAILED (outputs in $work)"
  exit 1
fi
say "passed (outputs in $work)"
exit 0
