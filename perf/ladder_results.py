# SPDX-License-Identifier: BSD-3-Clause
"""Reading the results of miniblas-bench for perf/ladder_tables.py: rows of the CSV files (columns
read by name, former rung names mapped to current ones), shapes, cuBLAS reference rates, number
formatting, Markdown tables, and every results file of one GPU directory with its sidecars."""
import argparse
import collections
import csv
import glob
import json
import os
import re
import subprocess
import sys


GEMM = ("sgemm", "dgemm")
TRANSPOSE = ("somatcopy", "domatcopy")
REDUCTION = ("sasum", "dasum", "sdot", "ddot")
REF_RUNGS = ("cublas", "cublas_tf32")
FAMILY_OPS = {"gemm": GEMM, "transpose": TRANSPOSE, "reduction": REDUCTION}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def field(r, *names, default=""):
    """The first of `names` present and non-empty in row r (columns are read by name)."""
    for n in names:
        v = r.get(n)
        if v not in (None, ""):
            return v
    return default


def former_names():
    """op family -> {former rung name: current name} from the RUNG_ALIAS lines of rungs.def, so
    results measured before a rename still land in the right rows."""
    out = {}
    for fam, d in (("reduce", "reduce"), ("gemm", "gemm"), ("omatcopy", "transpose")):
        path = os.path.join(ROOT, "kernels", d, "rungs.def")
        if os.path.exists(path):
            out[fam] = dict(re.findall(r"^RUNG_ALIAS\((\w+), (\w+)\)", open(path).read(), re.M))
    return out


def family_of(op):
    return "gemm" if op.endswith("gemm") else "omatcopy" if op.endswith("omatcopy") else "reduce"


def load(path, rows=None, order=None):
    """(op, shape, trans, inc) -> rung -> row, plus rung order per op (file order). Rows of
    several files accumulate when rows/order are passed in."""
    rows = collections.OrderedDict() if rows is None else rows
    order = collections.OrderedDict() if order is None else order
    with open(path, newline="") as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    former = former_names()
    for r in csv.DictReader(lines):
        r = {k.strip(): (v or "").strip() for k, v in r.items() if k}
        r["rung"] = former.get(family_of(r.get("op", "")), {}).get(r.get("rung"), r.get("rung"))
        if field(r, "status", default="ok").lower() != "ok" or not field(r, "rate"):
            continue
        r.setdefault("note", "")
        r["rate"] = field(r, "rate")
        r["fraction_ceiling"] = field(r, "fraction_ceiling", "fraction_of_ceiling")
        r["time_us"] = field(r, "time_us", "us")
        key = (r["op"], r["shape"], field(r, "trans", default="-"), field(r, "inc", default="0"))
        rows.setdefault(key, collections.OrderedDict())[r["rung"]] = r
        lst = order.setdefault(r["op"], [])
        if r["rung"] not in lst:
            lst.append(r["rung"])
    return rows, order


def by_trans(rows, trans):
    """The rows of one transpose case only."""
    return collections.OrderedDict((k, v) for k, v in rows.items() if k[2] == trans)


def trans_of(rows, op):
    out = []
    for (o, s, t, i) in rows:
        if o == op and t not in out:
            out.append(t)
    return out


def shapes_of(rows, op):
    out = []
    for (o, shape, trans, inc) in rows:
        if o == op and shape not in out:
            out.append(shape)
    return out


def cell_row(rows, op, shape):
    for (o, s, t, i), v in rows.items():
        if o == op and s == shape:
            return v
    return None


def is_square(shape):
    p = shape.split("x")
    return all(x == p[0] for x in p)


def side(shape):
    return int(shape.split("x")[0])


def fmt_rate(v, unit):
    if unit == "GFLOP/s":
        return "%.1f" % (v / 1000.0)  # TFLOP/s
    return "%.0f" % v if v >= 100 else "%.1f" % v


def pct(x):
    if x >= 10:
        return "%.1fx" % x
    return "%.1f%%" % (100.0 * x) if x < 0.1 else "%.0f%%" % (100.0 * x)


def pow2(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0 and n >= 1024:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


# ------------------------------------------------------------------ cuBLAS
def cublas_rate(rows, op, shape, which="cublas"):
    """cuBLAS's rate at op/shape (rows: one transpose case), or None."""
    r = cell_row(rows, op, shape)
    return float(r[which]["rate"]) if r and which in r else None


# ------------------------------------------------------------------ ptxas
RUNG10_CFGS = {"128, 128, 16, 64, 32, 8, 8, 2, 2", "128, 64, 8, 64, 16, 8, 4, 3, 2",
               "128, 128, 16, 64, 32, 8, 8, 2, 2, 1", "128, 64, 8, 64, 16, 8, 4, 3, 2, 1"}


def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    for b in body:
        out.append("| " + " | ".join(b) + " |")
    return "\n".join(out)




def results_of(gpu):
    """Rows, rung order and metadata of every results file of one GPU directory."""
    d = os.path.join(ROOT, "perf", "results", gpu)
    rows, order, meta = collections.OrderedDict(), collections.OrderedDict(), []
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
        if os.path.basename(path) in ("cblas.csv", "mgpu.csv", "mgpuvec.csv"):
            # miniblas-cblas-bench's: cblas_block, mgpu_block and mgpuvec_block read them
            continue
        load(path, rows, order)
        base = path[:-4]
        m = {"file": os.path.relpath(path, ROOT)}
        if os.path.exists(base + ".json"):
            try:
                j = json.load(open(base + ".json"))
                for k in ("device", "driver", "cuda_runtime", "cublas", "git_commit",
                          "timestamp", "command"):
                    if j.get(k):
                        m[k] = j[k]
                m["ceilings"] = j.get("ceilings") or {}
            except (ValueError, OSError):
                pass
        if os.path.exists(base + ".cmd"):
            for ln in open(base + ".cmd"):
                ln = ln.strip()
                if ln.lower().startswith("# gpu:"):
                    m.setdefault("device", ln[6:].strip())
                elif ln and not ln.startswith("#"):
                    m["command"] = ln
        if not m.get("ceilings") and os.path.exists(base + ".txt"):
            txt = open(base + ".txt", errors="replace").read()
            c = {}
            for key, pat in (("copy_gbs", r"copy ([\d.]+) GB/s"),
                             ("read_gbs", r"streaming read ([\d.]+) GB/s"),
                             ("fp32_peak_gflops", r"FP32 peak ([\d.]+) GFLOP/s"),
                             ("fp64_peak_gflops", r"FP64 SIMT peak ([\d.]+) GFLOP/s")):
                mm = re.search(r"ceilings:.*?" + pat, txt)
                if mm:
                    c[key] = float(mm.group(1))
            m["ceilings"] = c
        meta.append(m)
    return rows, order, meta


def ops_rows(rows, ops):
    return collections.OrderedDict((k, v) for k, v in rows.items() if k[0] in ops)


def num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")
