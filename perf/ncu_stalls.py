#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Warp-stall samples of gemm kernels by reason, main loop and the rest, from Nsight Compute.

    ncu --clock-control none -k regex:KERNEL --launch-skip 2 --launch-count 1 \
        --section SourceCounters -o rep build/perf/miniblas-bench ...
    ncu -i rep.ncu-rep --page source --print-source sass --csv > NAME-sass.csv
    python3 perf/ncu_stalls.py NAME-sass.csv [...]

Prints one Markdown table: for each file, the samples of the main loop (the instructions
executed at least 0.3 times as often as the most executed ones: once per k-tile) and of the
rest (set-up, prologue, epilogue), split by the stall reasons that hold the most samples.
"""
import collections
import csv
import sys

REASONS = ("wait", "math", "selected", "short_sb", "long_sb", "barrier", "branch_resolving",
           "mio", "lg", "no_inst", "not_selected")


def summarize(path):
    with open(path, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    hdr = rows[1]
    ix = {h: i for i, h in enumerate(hdr)}
    execs = []
    for r in rows[2:]:
        try:
            execs.append((int(r[ix["Instructions Executed"]]), r))
        except (ValueError, IndexError):
            pass
    common = collections.Counter(e for e, _ in execs)
    top = max((e for e in common if common[e] >= 20), default=max(common, default=0))
    parts = {"loop": collections.Counter(), "rest": collections.Counter()}
    for e, r in execs:
        c = parts["loop" if e >= 0.3 * top else "rest"]
        c["all"] += int(r[ix["Warp Stall Sampling (All Samples)"]] or 0)
        for k in REASONS:
            c[k] += int(r[ix["stall_" + k]] or 0)
    return parts


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| kernel | part | samples | " + " | ".join(REASONS) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in REASONS) + " |")
    for path in sys.argv[1:]:
        name = path.rsplit("/", 1)[-1].replace("-sass.csv", "")
        for part, c in summarize(path).items():
            print(f"| {name} | {part} | {c['all']} | " +
                  " | ".join(str(c[k]) for k in REASONS) + " |")


if __name__ == "__main__":
    main()
