#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Shared-memory bank conflicts of the rungs whose point is the shared-memory layout, read with
# Nsight Compute on the GPU machine (hardware counters; clocks left alone):
#   perf/bank-conflicts.sh [build-dir] > conflicts.txt
# For each kernel: shared load/store instructions (requests), wavefronts, and bank conflicts;
# conflicts per request = extra wavefronts per instruction (0 = conflict-free).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build}
bench=$build/perf/miniblas-bench
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
profile() { # kernel-regex launches bench-args...
  local regex=$1 count=$2
  shift 2
  ncu --clock-control none --kernel-name "regex:$regex" --launch-count "$count" \
      --metrics "$metrics" --csv --page raw "$bench" --trials 1 --max-trials 1 --warmup 0 --min-time-ms 0 "$@" \
      2>/dev/null | grep -E '^"(ID|[0-9])' |
    python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
if not rows: sys.exit(0)
h = rows[0]
col = {name: i for i, name in enumerate(h)}
def v(r, m):
    try: return float(r[col[m]].replace(",", ""))
    except Exception: return float("nan")
for r in rows[1:]:
    name = r[col["Kernel Name"]].split("(")[0][:60]
    ld, st = v(r, "smsp__inst_executed_op_shared_ld.sum"), v(r, "smsp__inst_executed_op_shared_st.sum")
    cl = v(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")
    cs = v(r, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")
    print(f"{name:60s} ld {ld:12.0f} conflicts/ld {cl/max(ld,1):6.2f}   st {st:12.0f} conflicts/st {cs/max(st,1):6.2f}")
'
}
echo "# shared-memory bank conflicts (ncu), $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
echo "## sgemm 1024 NN and TT: tiled vs padded"
profile 'gemm_(tiled|padded|unrolled)_kernel' 3 --op sgemm --rung tiled,padded,unrolled --sizes 1024 --trans NN
profile 'gemm_(tiled|padded|unrolled)_kernel' 3 --op sgemm --rung tiled,padded,unrolled --sizes 1024 --trans TT
echo "## sgemm 4096 NN: register-blocked and later rungs"
profile 'gemm_(regblock|vectorized|pipelined|warptiled)_kernel' 4 --op sgemm --rung regblock,vectorized,pipelined,warptiled --sizes 4096
echo "## somatcopy 4096 T: tiled vs padded vs multi vs vectorized"
profile 'omatcopy_(tiled|padded|multi|vec)_kernel' 4 --op somatcopy --rung tiled,padded,multi,vectorized --sizes 4096
echo "## sasum 2^24: interleaved vs sequential addressing vs unrolled"
profile 'reduce_(interleaved|sequential|unrolled)_kernel' 3 --op sasum --rung interleaved,sequential,unrolled --sizes 2^24
