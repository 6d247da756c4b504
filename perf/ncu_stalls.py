#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Warp-stall samples of gemm kernels by reason, main loop and the rest, from Nsight Compute.

    ncu --clock-control none -k regex:KERNEL --launch-skip 2 --launch-count 1 \
        --section SourceCounters -o rep build/perf/miniblas-bench ...
    ncu -i rep.ncu-rep --page source --print-source sass --csv > NAME-sass.csv
    python3 perf/ncu_stalls.py [--top N] NAME-sass.csv[.gz] [...]

Prints one Markdown table: for each file, the samples of the main loop (the instructions
executed at least 0.3 times as often as the most executed ones: once per k-tile) and of the
rest (set-up, prologue, epilogue), split by the stall reasons that hold the most samples.
With --top N, then for each file the N instructions of the rest with the most samples, each
with the reasons that hold at least 15% of them. A file may be gzip-compressed (.gz).
"""
import collections
import csv
import gzip
import sys

REASONS = ("wait", "math", "selected", "short_sb", "long_sb", "barrier", "branch_resolving",
           "mio", "lg", "no_inst", "not_selected")


def summarize(path):
    with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
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
    rest = []  # (samples, source, reasons) of the rest's instructions
    for e, r in execs:
        c = parts["loop" if e >= 0.3 * top else "rest"]
        n = int(r[ix["Warp Stall Sampling (All Samples)"]] or 0)
        c["all"] += n
        for k in REASONS:
            c[k] += int(r[ix["stall_" + k]] or 0)
        if e < 0.3 * top and n > 0:
            why = [(k, int(r[ix["stall_" + k]] or 0)) for k in REASONS]
            rest.append((n, r[ix["Source"]].strip(), [f"{k} {v}" for k, v in why if v >= 0.15 * n]))
    return parts, sorted(rest, key=lambda x: -x[0])


def main():
    args = sys.argv[1:]
    top = 0
    if len(args) >= 2 and args[0] == "--top":
        top, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__)
    print("| kernel | part | samples | " + " | ".join(REASONS) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in REASONS) + " |")
    done = []
    for path in args:
        name = path.rsplit("/", 1)[-1].replace(".gz", "").replace("-sass.csv", "")
        parts, rest = summarize(path)
        for part, c in parts.items():
            print(f"| {name} | {part} | {c['all']} | " +
                  " | ".join(str(c[k]) for k in REASONS) + " |")
        done.append((name, rest))
    for name, rest in done if top > 0 else []:
        print(f"\n{name}, the rest's top {top}:")
        for n, src, why in rest[:top]:
            print(f"  {n:6d}  {src[:60]:60s} {', '.join(why)}")


if __name__ == "__main__":
    main()
