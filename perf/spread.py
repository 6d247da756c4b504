#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The spread of a row's speed against cuBLAS over several runs of miniblas-bench.

Usage:
    python3 perf/spread.py RUN1.csv RUN2.csv ...   (each: miniblas-bench --csv, one process)

Prints, per (op, shape, trans, rung), the lowest, median and highest ratio to cuBLAS over the
files (ratio > 1: faster than cuBLAS; each file's ratio is paired within its own process), and
how many files had the row. Reference rows (cuBLAS itself) are left out; a row that was not ok
in some file is marked with the number of such files.
"""
import csv
import statistics
import sys


def collect(paths):
    """{(op, shape, trans, rung): (ratios, [rows not ok])} over the files, in first-seen order."""
    rows = {}
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["reference"] == "1":
                    continue
                key = (r["op"], r["shape"], r["trans"], r["rung"])
                ratios, bad = rows.setdefault(key, ([], [0]))
                if r["status"] != "ok":
                    bad[0] += 1
                elif r["ratio_cublas"]:
                    ratios.append(float(r["ratio_cublas"]))
    return rows


def main(paths):
    rows = collect(paths)
    print("%-6s %-16s %-5s %-18s %6s %6s %6s %5s" %
          ("op", "shape", "trans", "rung", "min", "median", "max", "runs"))
    for (op, shape, trans, rung), (ratios, bad) in rows.items():
        if not ratios:
            continue
        note = "  (%d not ok)" % bad[0] if bad[0] else ""
        print("%-6s %-16s %-5s %-18s %6.2f %6.2f %6.2f %5d%s" %
              (op, shape, trans, rung, min(ratios), statistics.median(ratios), max(ratios),
               len(ratios), note))
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    sys.exit(main(sys.argv[1:]))
