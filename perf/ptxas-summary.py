#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Registers and static shared memory of every kernel, from a build log made with
-DCMAKE_CUDA_FLAGS="-Xptxas -v" (tests/gpu-verify.sh does that):
    python3 perf/ptxas-summary.py OUTDIR/build.log
"""
import re, sys, subprocess, collections
entry = None
out = collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.search(r"Compiling entry function '([^']+)' for 'sm_90", line)
    if m: entry = m.group(1); continue
    m = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", line)
    if entry and m:
        out[entry] = (int(m.group(1)), int(m.group(2)))
        entry = None
names = list(out)
dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.split("\n")
for n, d in zip(names, dem):
    r, s = out[n]
    d = re.sub(r"\(.*", "", d)
    print(f"{r:4d} regs {s:7d} B static smem  {d}")
