#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The kernels of cublas_kernels.cu under ncu, as a Markdown table.

Usage: python3 perf/sweep/ncu_table.py NCU_OUTPUT SHAPE...

NCU_OUTPUT: what `ncu --csv --metrics launch__grid_size,launch__block_size,
launch__registers_per_thread,launch__shared_mem_per_block_dynamic,gpu__time_duration.sum
./cublas_kernels SHAPE...` printed (the probe's lines and ncu's CSV). The probe calls cuBLAS
twice per shape, in the order given; the table pairs the kernels with the shapes in that order
and refuses when the count is not twice the shapes (a call that launched a second kernel).
"""
import csv
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = list(csv.reader(open(sys.argv[1], encoding="utf-8")))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    h = rows[head]
    kid, name, metric, value = (h.index(x) for x in ("ID", "Kernel Name", "Metric Name",
                                                       "Metric Value"))
    kernels = {}
    for r in rows[head + 1:]:
        if len(r) == len(h):
            kernels.setdefault(int(r[kid]), {"name": r[name]})[r[metric]] = r[value]
    shapes = sys.argv[2:]
    if len(kernels) != 2 * len(shapes):
        sys.exit(f"{len(kernels)} kernels for {len(shapes)} shapes: not one kernel per call")
    print("| shape | cuBLAS kernel | grid | threads | registers | shared KB | us |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for i, s in enumerate(shapes):
        k = kernels[2 * i + 1]  # the second call
        short = re.sub(r"_execute_kernel__5x_cublas$", "", k["name"])
        num = lambda key: float(k[key].replace(",", ""))
        print(f"| {s} | `{short}` | {num('launch__grid_size'):.0f} | "
              f"{num('launch__block_size'):.0f} | {num('launch__registers_per_thread'):.0f} | "
              f"{num('launch__shared_mem_per_block_dynamic') / 1024:.1f} | "
              f"{num('gpu__time_duration.sum') / 1000:.1f} |")


if __name__ == "__main__":
    main()
