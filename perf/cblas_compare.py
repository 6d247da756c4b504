#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Two runs of miniblas-cblas-bench --devices side by side (e.g. two MINIBLAS_CBLAS_TUNING
settings of one build on one machine): the layer's time per row in each and the change.

Usage:
    python3 perf/cblas_compare.py A.txt B.txt [LABEL_A LABEL_B]

Reads the summary at the end of each printed table ("the layer (mbc) over the device sets")
and prints a Markdown table of the rows found in both, in A's order.
"""
import sys

MARK = "the layer (mbc) over the device sets"


def rows(path):
    text = open(path).read()
    if MARK not in text:
        sys.exit("%s: no '%s' summary (a run with --devices)" % (path, MARK))
    out = {}
    for line in text[text.index(MARK):].splitlines():
        f = line.split()
        if len(f) >= 6 and f[0] in ("sgemm", "dgemm"):
            out[(f[0], f[2], f[3], f[4])] = float(f[5])  # op, memory, shape, devices: ms
    return out


def main(argv):
    if len(argv) not in (2, 4):
        print(__doc__.strip())
        return 2
    a, b = rows(argv[0]), rows(argv[1])
    la, lb = argv[2:4] if len(argv) == 4 else ("A", "B")
    print("| op | memory | n | GPUs | %s ms | %s ms | change |" % (la, lb))
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key, ta in a.items():
        if key in b:
            op, mem, shape, dev = key
            print("| %s | %s | %s | %d | %.1f | %.1f | %+.1f%% |" %
                  (op, mem, shape.split("x")[0] if len(set(shape.split("x"))) == 1 else shape,
                   len(dev.split(",")), ta, b[key], 100 * (b[key] / ta - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
