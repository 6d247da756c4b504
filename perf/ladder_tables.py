#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown tables of the rung ladders, generated from the results files of miniblas-bench.

Usage:
    python3 perf/ladder_tables.py [--check]
        Regenerates every generated block of docs/ladders/*.md and docs/cblas.md from
        perf/results/<gpu>/*.csv (with their .json / .cmd sidecars). A block sits between
        a start marker and "<!-- end -->":
            <!-- table:FAMILY:GPU -->    rung tables (FAMILY: gemm, transpose, reduction);
                                         table:cblas:GPU: the drop-in against OpenBLAS,
                                         from miniblas-cblas-bench's cblas.csv;
                                         table:mgpu:GPU: its gemm on 1 and N GPUs
                                         beside cuBLASXt, from mgpu.csv;
                                         table:mgpuvec:GPU: asum and dot on 1 and
                                         N GPUs, from mgpuvec.csv
            <!-- claims:FAMILY:GPU -->   the textbook claims of the ladder, as measured
            <!-- source:FAMILY:GPU -->   device, ceilings and the command that measured
            <!-- plots:FAMILY:GPU -->    the PNGs perf/plot.py made in docs/img/GPU/
            <!-- steps:FAMILY:GPU -->    each rung's rate at one size and its factor over
                                         the rung before it
            <!-- resources:FAMILY:sm90 --> registers and shared memory per rung, from
                                         perf/results/ptxas-sm90.log (no GPU needed)
        A GPU directory without results gives a one-line placeholder. --check changes
        nothing and exits 1 when a block is out of date.

Registers and shared memory come from perf/results/ptxas-sm90.log (a build log made with
-Xptxas -v: min-max over the instantiations of a rung, "spill" where ptxas reports spill
stores; dynamic shared memory computed from the tile configuration, as the launchers do). When
perf/results/GPU/conflicts.txt (the output of perf/bank-conflicts.sh) exists, the rung tables
get a column of bank conflicts per shared-memory request. To compare two runs, use
miniblas-bench --baseline.

Columns are read by name (op, shape, trans, inc, rung, m, n, k, time_us, rate, unit,
fraction_ceiling, status, note), so added or reordered columns do not matter; lines starting
with "#" are comments. Rows whose status is not "ok" are left out. % of cuBLAS is rate / cuBLAS
rate at the same shape (cuBLAS FP32 for every sgemm rung; the reduced-precision tf32 rung adds
its ratio to cuBLAS TF32); % of the ceiling is the benchmark's fraction_ceiling (FP32 / FP64
SIMT peak for gemm, device copy for omatcopy, streaming read for the reductions).
"""
import argparse
import collections
import csv
import glob
import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # the modules beside this file: no __pycache__ in the source tree
from ladder_results import *  # noqa: F401,F403
from ladder_resources import *  # noqa: F401,F403
from ladder_blocks import *  # noqa: F401,F403

# The modules beside this file: ladder_results (reading results files), ladder_resources
# (registers and shared memory per rung), ladder_blocks (the generated blocks).

# ------------------------------------------------------------------ docs mode
DOCS = ("docs/ladders/gemm.md", "docs/ladders/transpose.md", "docs/ladders/reduction.md",
        "docs/cblas.md")


def regenerate(check):
    cache = {}
    stale = []
    marker = re.compile(r"(<!-- (table|claims|source|plots|resources|steps):([a-z]+):([a-z0-9_-]+) -->)(.*?)(<!-- end -->)", re.S)
    for doc in DOCS:
        path = os.path.join(ROOT, doc)
        if not os.path.exists(path):
            continue
        text = open(path).read()

        def block(m):
            kind, family, gpu = m.group(2), m.group(3), m.group(4)
            if family == "cblas" and kind == "table":
                return "%s\n%s\n%s" % (m.group(1), cblas_block(gpu), m.group(6))
            if family == "mgpu" and kind == "table":
                return "%s\n%s\n%s" % (m.group(1), mgpu_block(gpu), m.group(6))
            if family == "mgpuvec" and kind == "table":
                return "%s\n%s\n%s" % (m.group(1), mgpuvec_block(gpu), m.group(6))
            if family not in FAMILY_OPS:
                return m.group(0)
            if kind != "resources" and gpu not in cache:
                cache[gpu] = results_of(gpu)
            rows, order, meta = cache.get(gpu, ({}, {}, []))
            fam_rows = ops_rows(rows, FAMILY_OPS[family])
            if kind == "resources":
                return "%s\n%s\n%s" % (m.group(1), resources_block(family, gpu), m.group(6))
            if kind == "plots":
                body = plots_block(family, gpu)
            elif not fam_rows:
                body = PLACEHOLDER % (gpu, gpu)
            elif kind == "table":
                body = table_block(family, gpu, fam_rows, order)
            elif kind == "claims":
                body = claims_block(family, gpu, fam_rows)
            elif kind == "steps":
                body = steps_block(family, gpu, fam_rows, order)
            else:
                body = source_block(family, gpu, fam_rows, meta)
            return "%s\n%s\n%s" % (m.group(1), body, m.group(6))

        new = marker.sub(block, text)
        if new != text:
            stale.append(doc)
            if not check:
                with open(path, "w") as f:
                    f.write(new)
    if check:
        if stale:
            print("ladder_tables: out of date: " + ", ".join(stale))
            return 1
        return 0
    print("ladder_tables: regenerated " + (", ".join(stale) if stale else "nothing (up to date)"))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if a block is out of date")
    ap.add_argument("--current-names", nargs=2, metavar=("IN.csv", "OUT.csv"),
                    help="copy a results CSV with former rung names replaced (for perf/plot.py)")
    a = ap.parse_args()
    if a.current_names:
        former = former_names()
        with open(a.current_names[0], newline="") as f, open(a.current_names[1], "w", newline="") as g:
            rd = csv.DictReader(ln for ln in f if not ln.startswith("#"))
            w = csv.DictWriter(g, fieldnames=rd.fieldnames)
            w.writeheader()
            for r in rd:
                r["rung"] = former.get(family_of(r["op"]), {}).get(r["rung"], r["rung"])
                w.writerow(r)
        return
    sys.exit(regenerate(a.check))


if __name__ == "__main__":
    main()
