#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Whether the gemm speed targets are met, from several processes of miniblas-bench.

Usage:
    python3 perf/targets.py RUN1.csv RUN2.csv ...   (each: miniblas-bench --csv, one process)

perf/headline.sh makes such files (the benchmark's default gemm shapes NN and TT in five
processes, dgemm from 512 to 2048 in three). Each row is judged by the median over the files
of its ratio to cuBLAS (> 1: faster; each file's ratio paired within its own process):

  sgemm `auto` (FP32-accurate) against cuBLAS FP32: at least 2.0x at 4096^3 and 8192^3; 1.5x
      at 1024^3, 2048^3, 4096x4096x256, 8192x128x8192 and 128x8192x8192; 1.2x at
      4097x4095x4099;
  dgemm `auto` against cuBLAS DGEMM: at least 1.0x at those eight shapes, and 0.9x at every
      cube from 512^3 to 2048^3 in steps of 128;
  `auto` within 3% of the fastest rung timed beside it: its time at most 1.03 x that rung's
      (its median ratio at least the rung's / 1.03), for every op, shape and transpose in the
      files that has `auto` and another rung.

Prints one line per check (met, MISSED, or MISSING where no file has the row) and a summary.
Exit status: 0 every target met; 3 a target missed or missing; 2 bad usage or no rows.
"""
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spread import collect  # noqa: E402

SHAPES = ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192",
          "4096x4096x256", "8192x128x8192", "128x8192x8192", "4097x4095x4099"]
SGEMM = {"4096x4096x4096": 2.0, "8192x8192x8192": 2.0, "4097x4095x4099": 1.2}
CUBES = ["%dx%dx%d" % (n, n, n) for n in range(512, 2049, 128)]
AUTO_SLACK = 1.03


def targets():
    """(op, shape, target) for `auto`, each judged NN and TT."""
    out = [("sgemm", s, SGEMM.get(s, 1.5)) for s in SHAPES]
    out += [("dgemm", s, 1.0) for s in SHAPES]
    out += [("dgemm", s, 0.9) for s in CUBES if s not in SHAPES]
    return out


def stats(ratios):
    return min(ratios), statistics.median(ratios), max(ratios)


def down(x):
    """x cut (not rounded) to the 3 decimals printed: a median of 0.9996 shows as 0.999."""
    return math.floor(x * 1000) / 1000


def main(paths):
    rows = collect(paths)
    if not any(r for r, _ in rows.values()):
        print("targets.py: no timed rows in %s" % " ".join(paths), file=sys.stderr)
        return 2
    missed = checked = 0
    print("%-6s %-16s %-5s %-13s %6s %6s %6s %6s %4s  %s" %
          ("op", "shape", "trans", "rung", "target", "min", "median", "max", "runs", "verdict"))
    for op, shape, target in targets():
        for trans in ("NN", "TT"):
            ratios, bad = rows.get((op, shape, trans, "auto"), ([], [0]))
            checked += 1
            if not ratios:
                missed += 1
                print("%-6s %-16s %-5s %-13s %6.2f %6s %6s %6s %4d  MISSING" %
                      (op, shape, trans, "auto", target, "-", "-", "-", 0))
                continue
            lo, med, hi = stats(ratios)
            ok = med >= target and not bad[0]
            missed += not ok
            note = "" if not bad[0] else " (%d not ok)" % bad[0]
            print("%-6s %-16s %-5s %-13s %6.2f %6.3f %6.3f %6.3f %4d  %s%s" %
                  (op, shape, trans, "auto", target, down(lo), down(med), down(hi), len(ratios),
                   "met" if ok else "MISSED", note))
    # auto against the fastest rung timed beside it
    for (op, shape, trans, rung), (ratios, _) in rows.items():
        if rung != "auto" or not ratios:
            continue
        best = max(((statistics.median(r), name) for (o, s, t, name), (r, _) in rows.items()
                    if (o, s, t) == (op, shape, trans) and name != "auto" and r), default=None)
        if best is None:
            continue
        checked += 1
        med = statistics.median(ratios)
        target = best[0] / AUTO_SLACK
        ok = med >= target
        missed += not ok
        print("%-6s %-16s %-5s %-13s %6.3f %6s %6.3f %6s %4d  %s (fastest rung %s: %.3f)" %
              (op, shape, trans, "auto vs rung", target, "", down(med), "", len(ratios),
               "met" if ok else "MISSED", best[1], down(best[0])))
    print("%d of %d targets met" % (checked - missed, checked))
    return 3 if missed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    sys.exit(main(sys.argv[1:]))
