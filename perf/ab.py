#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A/B table of two builds timed in alternating processes on one machine.

Usage:
    python3 perf/ab.py DIR RUNG [OP ...]

DIR holds the --csv files of miniblas-bench, old1.csv, old2.csv, ... (the build before a
change) and new1.csv, new2.csv, ... (after it), run one after the other in turn. For every
shape of the ops given (all when none) prints a Markdown table: the median time of RUNG in the
old and the new processes, new / old, cuBLAS's median over all of them, and cuBLAS time / ours
for each build (> 1: faster than cuBLAS).
"""
import csv
import glob
import os
import statistics
import sys
from collections import defaultdict


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, rung, ops = sys.argv[1], sys.argv[2], set(sys.argv[3:])
    times = defaultdict(lambda: defaultdict(list))
    for build in ("old", "new"):
        for path in sorted(glob.glob(os.path.join(d, build + "[0-9]*.csv"))):
            with open(path, encoding="utf-8") as f:
                for r in csv.DictReader(f):
                    if ops and r["op"] not in ops:
                        continue
                    key = (r["op"], r["shape"], r["trans"])
                    times[key][(build, r["rung"])].append(float(r["time_us"]))
    print("| op | shape | trans | old us | new us | new/old | cuBLAS us | ratio old | ratio new |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    med = statistics.median
    for (op, shape, trans), t in times.items():
        if not t[("old", rung)] or not t[("new", rung)]:
            continue
        o, n = med(t[("old", rung)]), med(t[("new", rung)])
        co, cn = med(t[("old", "cublas")]), med(t[("new", "cublas")])
        c = med(t[("old", "cublas")] + t[("new", "cublas")])
        print(f"| {op} | {shape} | {trans} | {o:.2f} | {n:.2f} | {n / o:.3f} | {c:.2f} | "
              f"{co / o:.2f} | {cn / n:.2f} |")


if __name__ == "__main__":
    main()
