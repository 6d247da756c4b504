#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Warp-stall samples of one kernel by region: what runs once per warp, in loops, or rarely.

Usage:
    python3 perf/ncu_regions.py SASS.csv[.gz] [TOP]

SASS.csv is `ncu -i REPORT --page source --print-source sass --csv` of a report with the
SourceCounters section (one kernel). A warp runs the kernel's first instruction once, so its
execution count is the number of warps; each instruction's count over that is how often one
warp ran it: "once" (0.5 to 1.5: set-up, prologue, epilogue), "loop" (more), "rare" (less:
branches taken by some warps). For each region prints the instructions, the samples (share of
the kernel's) and the stall reasons holding at least 2% of them, then the TOP (default 8)
instructions of the "once" region with their main reasons.
"""
import csv
import gzip
import sys
from collections import Counter


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        r = list(csv.reader(f))
    header = r[1]  # r[0] names the kernel
    return header, r[2:]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    header, data = rows(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    reasons = [c for c in header if c.startswith("stall_") and "(Not Issued)" not in c]
    col = {c: header.index(c) for c in reasons + ["Instructions Executed", "Source"]}
    instrs = []
    for r in data:
        try:
            n = int(r[col["Instructions Executed"]] or 0)
        except ValueError:
            continue
        stalls = {c[6:]: int(r[col[c]] or 0) for c in reasons}
        instrs.append((n, r[col["Source"]].strip(), stalls))
    warps = next(n for n, _, _ in instrs if n > 0)
    total = sum(sum(s.values()) for _, _, s in instrs)
    regions = {"once": Counter(), "loop": Counter(), "rare": Counter()}
    count = Counter()
    once = []
    for n, src, s in instrs:
        if n == 0:
            continue
        per = n / warps
        reg = "once" if 0.5 <= per <= 1.5 else ("loop" if per > 1.5 else "rare")
        regions[reg].update(s)
        count[reg] += 1
        if reg == "once":
            once.append((sum(s.values()), src, s))
    print(f"{sys.argv[1]}: {warps} warps, {total} samples")
    for reg, c in regions.items():
        t = sum(c.values())
        main_reasons = ", ".join(f"{k} {v}" for k, v in c.most_common() if v >= 0.02 * t)
        print(f"  {reg:4s} {count[reg]:5d} instructions, {t:6d} samples "
              f"({100.0 * t / max(total, 1):4.1f}%): {main_reasons}")
    print(f"  top of once:")
    for t, src, s in sorted(once, key=lambda x: -x[0])[:top]:
        why = ", ".join(f"{k} {v}" for k, v in sorted(s.items(), key=lambda x: -x[1]) if v >= 0.15 * t)
        print(f"    {t:5d}  {src[:60]:60s} {why}")


if __name__ == "__main__":
    main()
