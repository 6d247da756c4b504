#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One MPI process with libminiblas_cblas as its BLAS: preloads the drop-in (in front of the
# OpenBLAS the program is linked with) and gives the process one GPU, chosen by its rank on
# this host, then runs the program. For mpirun:
#
#   mpirun -np 2 -x MINIBLAS_CBLAS_LIB=/path/to/libminiblas_cblas.so tests/mpi/rank.sh ./prog ARGS
#
# MINIBLAS_CBLAS_LIB    the drop-in (required)
# MINIBLAS_RANK_GPUS    the GPUs to share out, a comma list (default: 0,1,...,N-1 with N from
#                       MINIBLAS_RANK_NGPUS, else local rank r gets GPU r)
# MINIBLAS_RANK_NGPUS   the number of GPUs of the host (local rank r gets GPU r mod N)
# The local rank comes from Open MPI (OMPI_COMM_WORLD_LOCAL_RANK), MPICH / Intel MPI
# (MPI_LOCALRANKID) or Slurm (SLURM_LOCALID). MINIBLAS_CBLAS_DEVICES already set wins.
set -u
lib=${MINIBLAS_CBLAS_LIB:?MINIBLAS_CBLAS_LIB: the path of libminiblas_cblas.so}
lr=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}
if [ -z "${MINIBLAS_CBLAS_DEVICES:-}" ]; then
  if [ -n "${MINIBLAS_RANK_GPUS:-}" ]; then
    IFS=, read -r -a gpus <<<"$MINIBLAS_RANK_GPUS"
    dev=${gpus[$((lr % ${#gpus[@]}))]}
  elif [ -n "${MINIBLAS_RANK_NGPUS:-}" ] && [ "$MINIBLAS_RANK_NGPUS" -gt 0 ]; then
    dev=$((lr % MINIBLAS_RANK_NGPUS))
  else
    dev=$lr
  fi
  export MINIBLAS_CBLAS_DEVICES=$dev
fi
export LD_PRELOAD=$lib${LD_PRELOAD:+:$LD_PRELOAD}
exec "$@"
