#!/usr/bin/env python3
"""Markdown tables of the rung ladders, generated from the results files of miniblas-bench.

Usage:
    python3 perf/ladder_tables.py [--check]
        Regenerates every generated block of docs/ladders/*.md and docs/cblas.md from
        perf/results/<gpu>/*.csv (with their .json / .cmd sidecars). A block sits between
        a start marker and "<!-- end -->":
            <!-- table:FAMILY:GPU -->    rung tables (FAMILY: gemm, transpose, reduction);
                                         table:cblas:GPU: the drop-in against OpenBLAS,
                                         from miniblas-cblas-bench's cblas.csv
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

GEMM = ("sgemm", "dgemm")
TRANSPOSE = ("somatcopy", "domatcopy")
REDUCTION = ("sasum", "dasum", "sdot", "ddot")
REF_RUNGS = ("cublas", "cublas_tf32")


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


def kernel_rung(name):
    """(family, rung, precision) of a demangled kernel name, or None."""
    prec = "double" if re.search(r"\bdouble\b", name) else "float"
    m = re.match(r"void (gemm|reduce|omatcopy)_([a-z]+)_(kernel|finish)<", name)
    if m:
        fam, rung = m.group(1), m.group(2)
        if fam == "gemm" and rung == "scale":
            return None
        if fam == "gemm" and rung == "warptiled":
            cfg = re.search(r"mb_wt_cfg<([^>]*)>", name).group(1)
            rung = "warptiled" if cfg in RUNG10_CFGS else "tuned"
        if fam == "omatcopy" and rung == "vec":
            rung = "vectorized"
        if fam == "reduce":  # the main kernel of asum (IS_DOT false) or dot; not the finish
            if m.group(3) == "finish":
                return None
            d = re.search(r"(?:float|double), (true|false)", name)
            prec += "-dot" if d and d.group(1) == "true" else "-asum"
        return fam, rung, prec
    if name.startswith("void omatcopy_vec_scalar_kernel"):
        return "omatcopy", "vectorized", prec
    m = re.match(r"void tc_gemm_kernel<tc_cfg<[^>]*>, (\d)", name)
    if m:
        return "gemm", {"0": "dmma", "1": "tf32", "2": "tf32x3"}[m.group(1)], prec
    if name.startswith("void wg_tf32x3_kernel<"):
        return "gemm", "wgmma_tf32x3", "float"
    return None


def tc_cfg_smem(es, bm, bn, bk, st, akc, bkc, split):
    """tc_common.cuh: tc_cfg::smem_bytes (pads: MN 8 floats / 4 doubles, K 4)."""
    pad_mn = 8 if es == 4 else 4
    ld_am, ld_bn, ld_k = bm + pad_mn, bn + pad_mn, bk + 4
    a = bm * ld_k if akc else bk * ld_am
    b = bn * ld_k if bkc else bk * ld_bn
    return (st + (2 if split else 0)) * (a + b) * es


def dynamic_smem(name, rung, prec):
    """Dynamic shared memory per block (bytes) as the launchers compute it, 0 if none."""
    es = 8 if prec.startswith("double") else 4
    if name.startswith("void gemm_tiled_kernel"):
        return 2 * 32 * 32 * es
    if name.startswith("void gemm_padded_kernel"):
        return 2 * 32 * 33 * es
    m = re.search(r"mb_wt_cfg<([^>]*)>", name)
    if m:  # 10_warptiled.cu mb_wt_smem_bytes: max(cp.async ring, k-slice reduction buffer)
        p = [int(x) for x in m.group(1).split(",")]
        bm, bn, bk, wm, wn, tm, tn, st, minb = p[:9]
        ks = p[9] if len(p) > 9 else 1  # k-slices (later versions): reduction buffer
        v = 16 // es
        return max(st * bk * ((bm + v) + (bn + v)) * es, (ks - 1) * bm * bn * es)
    # tc_cfg<T, BM, BN, BK, WM, WN, STAGES, MINB[, DK, PIPE, LEAN]>, OP, AKC, BKC[, SPLIT]
    m = re.match(r"void tc_gemm_kernel<tc_cfg<\w+, (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+)"
                 r"(?:, \d+, \d+, (?:true|false))?>, (\d), (true|false), (true|false)", name)
    if m:
        bm, bn, bk, wm, wn, st, minb, op = [int(x) for x in m.groups()[:8]]
        return tc_cfg_smem(es, bm, bn, bk, st, m.group(9) == "true", m.group(10) == "true", op == 2)
    m = re.match(r"void wg_tf32x3_kernel<(true|false), (true|false)", name)
    if m:  # 15_wgmma_tf32x3.cu wg_smem_bytes: 4 B planes (128 x 32 floats), then wg_cfg's stages
        return 4 * 128 * 32 * 4 + tc_cfg_smem(4, 128, 128, 32, 4, m.group(1) == "true",
                                              m.group(2) == "true", False)
    return 0


def load_ptxas(path):
    """(family, rung, precision) -> list of (regs, static smem, dynamic smem, spill bytes)."""
    entries = collections.OrderedDict()
    entry = None
    spill = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"Compiling entry function '([^']+)' for 'sm_90", line)
            if m:
                entry, spill = m.group(1), 0
                continue
            m = re.search(r"(\d+) bytes spill stores", line)
            if entry and m:
                spill = int(m.group(1))
                continue
            m = re.search(r"Used (\d+) registers(?:.*?(\d+) bytes smem)?", line)
            if entry and m:
                entries[entry] = (int(m.group(1)), int(m.group(2) or 0), spill)
                entry = None
    names = list(entries)
    dem = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True,
                         text=True).stdout.split("\n")
    out = collections.defaultdict(list)
    for n, d in zip(names, dem):
        d = re.sub(r"\(.*", "", d)
        k = kernel_rung(d)
        if not k:
            continue
        regs, smem, sp = entries[n]
        out[k].append((regs, smem, dynamic_smem(d, k[1], k[2]), sp))
    return out


def load_conflicts(path):
    """(family, rung, precision, trans) -> "ld X / st Y" from perf/bank-conflicts.sh output."""
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"void (gemm|omatcopy|reduce)_([a-z]+)_kernel<(.*?)\s+ld\s+(\d+)\s+"
                         r"conflicts/ld\s+([\d.]+)\s+st\s+(\d+)\s+conflicts/st\s+([\d.]+)", line)
            if not m:
                continue
            fam, rung, args, nld, ld, nst, st = m.groups()
            targs = [x.strip(" <>") for x in args.split(",")]
            prec = "double" if "double" in targs else "float"
            trans = "T" if fam == "omatcopy" else "-"
            if fam == "gemm":
                trans = ("T" if targs[1] == "1" else "N") + ("T" if targs[2] == "1" else "N")
            if fam == "reduce":
                dot = targs[-1] in ("1", "true")
                prec += "-dot" if dot else "-asum"
            if rung == "vec":
                rung = "vectorized"
            cell = "%s / %s" % (ld if int(nld) else "-", st if int(nst) else "-")
            if rung == "warptiled" and "128, 128" not in args:
                continue
            out[(fam, rung, prec, trans)] = cell
    return out


def conflict_cell(conf, fam, rung, prec, trans):
    if conf is None:
        return "to be measured"
    return conf.get((fam, rung, prec, trans), "-")


def kb(b):
    if b < 1024:
        return "%d B" % b
    s = "%.2f" % (b / 1024.0)
    return s.rstrip("0").rstrip(".") + " KB"


def res_cells(ptx, fam, rung, prec):
    """(registers, shared memory) cells, or ('', '') without data."""
    if ptx is None:
        return "", ""
    lst = ptx.get((fam, rung, prec))
    if not lst:
        return "-", "-"
    regs = [x[0] for x in lst]
    sp = [x[3] for x in lst if x[3] > 0]
    r = str(min(regs)) if min(regs) == max(regs) else "%d-%d" % (min(regs), max(regs))
    if sp:
        r += " (spill %s B)" % (str(min(sp)) if min(sp) == max(sp) else "%d-%d" % (min(sp), max(sp)))
    tot = [x[1] + x[2] for x in lst]
    dyn = any(x[2] for x in lst)
    if max(tot) == 0:
        s = "0"
    elif min(tot) == max(tot):
        s = kb(max(tot))
    else:
        s = "%s-%s" % (kb(min(tot)), kb(max(tot)))
    s = re.sub(r"^0 B-", "0-", s)
    s = re.sub(r" KB-(.*) KB", r"-\1 KB", s)
    s = re.sub(r"(\d) B-(\d+ B)$", r"\1-\2", s)
    if dyn:
        s += " dyn"
    return r, s


# ------------------------------------------------------------------ tables
def table(header, body):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    for b in body:
        out.append("| " + " | ".join(b) + " |")
    return "\n".join(out)


def gemm_tables(rows_all, order, sizes, conf=None):
    out = []
    for op in GEMM:
        if op not in order:
            continue
        for trans in trans_of(rows_all, op):
            out.append(gemm_tables_one(by_trans(rows_all, trans), order, sizes, conf, op,
                                       trans))
    return "\n\n".join(out)


def gemm_cell(rows, op, s, rung):
    """One gemm table cell: the rung's rate and its % of cuBLAS, and for a reduced-precision
    rung its fraction of cuBLAS TF32; "-" where the rung has no row."""
    r = cell_row(rows, op, s) or {}
    if rung not in r:
        return "-"
    rate = float(r[rung]["rate"])
    cb = cublas_rate(rows, op, s)
    txt = fmt_rate(rate, "GFLOP/s")
    if cb and rung != "cublas":
        txt += " (%s" % pct(rate / cb)
        if "reduced precision" in r[rung].get("note", ""):
            t32 = cublas_rate(rows, op, s, "cublas_tf32")
            if t32:
                txt += "; %s of TF32" % pct(rate / t32)
        txt += ")"
    return txt


def gemm_tables_one(rows, order, sizes, conf, op, trans):
    out = []
    if True:
        prec = "float" if op[0] == "s" else "double"
        sq = [s for s in shapes_of(rows, op) if is_square(s)]
        if sizes:
            sq = [s for s in sq if side(s) in sizes]
        sq.sort(key=side)
        big = sq[-1] if sq else None
        head = ["rung"] + ["n=%d TF/s (%% cuBLAS)" % side(s) for s in sq] + \
               ["%% FP%s peak, n=%d" % ("32" if prec == "float" else "64 SIMT", side(big))]
        if conf is not None:
            head += ["bank conflicts/request"]
        body = []
        for rung in order[op]:
            line = ["**%s**" % rung if rung in REF_RUNGS else rung]
            for s in sq:
                line.append(gemm_cell(rows, op, s, rung))
            r = cell_row(rows, op, big) or {}
            fc = r.get(rung, {}).get("fraction_ceiling", "") if rung in r else ""
            line.append(pct(float(fc)) if fc else "-")
            if conf is not None:
                line.append("" if rung in ("cublas", "cublas_tf32", "auto") else
                            conflict_cell(conf, "gemm", rung, prec, trans))
            body.append(line)
        out.append("#### %s, %s, square n\n\n%s" % (op, trans, table(head, body)))
        # other shapes
        other = [s for s in shapes_of(rows, op) if not is_square(s)]
        if other:
            head = ["rung"] + ["%s TF/s (%% cuBLAS)" % s for s in other]
            body = []
            for rung in order[op]:
                line = ["**%s**" % rung if rung in REF_RUNGS else rung]
                for s in other:
                    line.append(gemm_cell(rows, op, s, rung))
                body.append(line)
            out.append("#### %s, %s, other shapes (m x n x k)\n\n%s" % (op, trans, table(head, body)))
    return "\n\n".join(out)


def mem_tables(rows, order, ops, fam, ceiling_name, conf=None):
    out = []
    for op in ops:
        if op not in order:
            continue
        prec = "float" if op[0] == "s" else "double"
        if fam == "reduce":
            prec += "-dot" if op.endswith("dot") else "-asum"
        shp = shapes_of(rows, op)
        if fam == "omatcopy":
            key = lambda s: int(s.split("x")[0]) * int(s.split("x")[1])
            cand = [s for s in shp if is_square(s)]
        else:
            key = lambda s: int(s)
            cand = list(shp)
        cand.sort(key=key)
        if not cand:
            continue

        lo = cand[0] if fam == "omatcopy" else next((s for s in cand if int(s) >= 2**20), cand[0])
        hi = cand[-1]
        tiny = cand[0] if fam == "reduce" and cand[0] != lo else None
        lab = (lambda s: s) if fam == "omatcopy" else pow2
        head = ["rung"]
        if tiny:
            head += ["n=%s us/call (%% cuBLAS)" % lab(tiny)]
        for s in (lo, hi):
            head += ["%s GB/s" % lab(s), "%% %s" % ceiling_name, "% cuBLAS"]
        if conf is not None:
            head += ["bank conflicts/request"]
        body = []
        for rung in order[op]:
            line = ["**%s**" % rung if rung in REF_RUNGS else rung]
            if tiny:
                r = cell_row(rows, op, tiny) or {}
                if rung in r:
                    t = float(r[rung]["time_us"])
                    cbr = r.get("cublas")
                    txt = "%.2f" % t
                    if cbr and rung != "cublas":
                        # speed ratio = cuBLAS time / our time
                        txt += " (%s)" % pct(float(cbr["time_us"]) / t)
                    line.append(txt)
                else:
                    line.append("-")
            for s in (lo, hi):
                r = cell_row(rows, op, s) or {}
                if rung not in r:
                    line += ["-", "-", "-"]
                    continue
                rate = float(r[rung]["rate"])
                cb = cublas_rate(rows, op, s)
                fc = r[rung]["fraction_ceiling"]
                line += [fmt_rate(rate, "GB/s"), pct(float(fc)) if fc else "-",
                         "" if rung == "cublas" else pct(rate / cb) if cb else "-"]
            if conf is not None:
                line.append("" if rung in ("cublas", "auto") else
                            conflict_cell(conf, fam, rung, prec, "T" if fam == "omatcopy" else "-"))
            body.append(line)
        trans = next((t for (o, s, t, i) in rows if o == op), "")
        out.append("#### %s%s\n\n%s" % (op, " " + trans if fam == "omatcopy" else "", table(head, body)))
    return "\n\n".join(out)


# ------------------------------------------------------------------ docs mode
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ("docs/ladders/gemm.md", "docs/ladders/transpose.md", "docs/ladders/reduction.md",
        "docs/cblas.md")
FAMILY_OPS = {"gemm": GEMM, "transpose": TRANSPOSE, "reduction": REDUCTION}
# The textbook claims each ladder checks: (claim, ops, faster rung, slower rung, low, high);
# a claim holds where faster / slower is at least `low` (and at most `high`, when given).
CLAIMS = {
    "gemm": [
        ("shared-memory tiling is 10-100x faster than naive", GEMM, "tiled", "naive", 10, 100),
        ("... against the coalesced kernel (what most texts call naive)", GEMM, "tiled",
         "coalesced", 10, 100),
        ("unrolling the inner loop pays", GEMM, "unrolled", "padded", 1.05, None),
        ("several outputs per thread pay (thread tiles)", GEMM, "regblock", "unrolled", 1.5, None),
    ],
    "transpose": [
        ("a shared-memory tile makes the transpose coalesced", TRANSPOSE, "tiled", "naive", 1.5, None),
        ("padding the tile (no bank conflicts) gives about 4x", TRANSPOSE, "padded", "tiled", 3, 5),
    ],
    "reduction": [
        ("sequential addressing beats interleaved, about 2x", REDUCTION, "sequential",
         "interleaved", 1.8, None),
        ("warp shuffle is 2-3x faster (against the rung before it)", REDUCTION, "shuffle",
         "multi", 2, 3),
        ("warp shuffle is 2-3x faster (against the unrolled shared-memory tree)", REDUCTION,
         "shuffle", "unrolled", 2, 3),
    ],
}
PLACEHOLDER = ("_Not generated yet: no results in perf/results/%s/ (measure with "
               "`perf/results/run.sh %s`, then run `python3 perf/ladder_tables.py`)._")


def results_of(gpu):
    """Rows, rung order and metadata of every results file of one GPU directory."""
    d = os.path.join(ROOT, "perf", "results", gpu)
    rows, order, meta = collections.OrderedDict(), collections.OrderedDict(), []
    for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
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


def source_block(family, gpu, rows, meta):
    ops = FAMILY_OPS[family]
    mine = [m for m in meta if any(k[0] in ops for k in load(os.path.join(ROOT, m["file"]))[0])]
    if not mine:
        return PLACEHOLDER % (gpu, gpu)
    m0 = mine[0]
    head = "Measured on **%s**" % next((m["device"] for m in mine if m.get("device")), gpu)
    extra = ", ".join("%s %s" % (k.replace("_", " "), m0[k])
                      for k in ("driver", "cuda_runtime", "cublas") if m0.get(k))
    if extra:
        head += " (%s)" % extra
    if m0.get("git_commit"):
        head += ", commit %s" % m0["git_commit"][:10]
    head += "."
    c = m0.get("ceilings") or {}
    cl = []
    if family == "gemm":
        if num(c.get("fp32_peak_gflops")) > 0:
            cl.append("FP32 peak %.1f TFLOP/s" % (num(c["fp32_peak_gflops"]) / 1000))
        if num(c.get("fp64_peak_gflops")) > 0:
            cl.append("FP64 SIMT peak %.1f TFLOP/s" % (num(c["fp64_peak_gflops"]) / 1000))
    elif family == "transpose" and num(c.get("copy_gbs")) > 0:
        cl.append("device-to-device copy %.0f GB/s" % num(c["copy_gbs"]))
    elif family == "reduction" and num(c.get("read_gbs")) > 0:
        cl.append("streaming read %.0f GB/s" % num(c["read_gbs"]))
    if cl:
        head += " Ceiling measured by the same run: %s." % ", ".join(cl)
    out = [head, "", "Results files and the commands that made them:", ""]
    for m in mine:
        out.append("- `%s`: `%s`" % (m["file"], m.get("command", "(command not recorded)")))
    return "\n".join(out)


def claims_block(family, gpu, rows):
    body = []
    for claim, ops, fast, slow, lo, hi in CLAIMS[family]:
        for op in ops:
            cells, ratios = [], []
            for key, r in rows.items():
                if key[0] != op or fast not in r or slow not in r:
                    continue
                if family == "reduction" and int(key[1]) < 2 ** 20:
                    continue  # launch-bound sizes say nothing about the kernels
                if family != "reduction" and not is_square(key[1]):
                    continue
                q = num(r[fast]["rate"]) / num(r[slow]["rate"])
                ratios.append(q)
                where = key[1].split("x")[0] if family == "gemm" else \
                    (key[1] if family == "transpose" else pow2(key[1]))
                cells.append("%s: %.2fx" % (where + ("" if key[2] in ("-", "NN", "T") else " " + key[2]), q))
            if not ratios:
                continue
            if min(ratios) >= lo and (hi is None or max(ratios) <= hi):
                verdict = "holds"
            elif max(ratios) < lo:
                verdict = "**does not hold**"
            elif hi is not None and min(ratios) > hi:
                verdict = "holds, exceeded"
            else:
                verdict = "holds at some sizes"
            body.append(["%s (%s)" % (claim, op), "%s / %s" % (fast, slow), ", ".join(cells), verdict])
    if not body:
        return PLACEHOLDER % (gpu, gpu)
    return table(["claim", "ratio of rates", "measured (size: ratio)", "verdict"], body)


def table_block(family, gpu, rows, order):
    cpath = os.path.join(ROOT, "perf", "results", gpu, "conflicts.txt")
    conf = load_conflicts(cpath) if os.path.exists(cpath) else None
    if family == "gemm":
        t = gemm_tables(ops_rows(rows, GEMM), order, {1024, 2048, 4096, 8192}, conf)
    elif family == "transpose":
        t = mem_tables(ops_rows(rows, TRANSPOSE), order, TRANSPOSE, "omatcopy", "copy", conf)
    else:
        t = mem_tables(ops_rows(rows, REDUCTION), order, REDUCTION, "reduce", "read", conf)
    t = t.replace("#### ", "#### %s: " % gpu.upper())
    return t if t.strip() else PLACEHOLDER % (gpu, gpu)


PLOTS = {"gemm": ("sgemm_NN", "sgemm_TT", "dgemm_NN", "dgemm_TT"),
         "transpose": ("somatcopy_T", "domatcopy_T"),
         "reduction": ("sasum", "dasum", "sdot", "ddot")}


STEP_SIZE = {"gemm": ("4096x4096x4096", "n = 4096, NN, TFLOP/s"),
             "transpose": ("16384x16384", "16384^2, T, GB/s"),
             "reduction": ("268435456", "n = 2^28, GB/s")}


def steps_block(family, gpu, rows, order):
    """Rate of every rung at the family's reference size and its factor over the previous rung
    of the ladder (auto and cuBLAS rows left out; cuBLAS's rate as the last line)."""
    shape, label = STEP_SIZE[family]
    ops = [op for op in FAMILY_OPS[family] if op in order]
    ladder = [n for _, n in ladder_rungs(family)]
    cells, any_row = {}, False
    for op in ops:
        r = next((v for k, v in rows.items() if k[0] == op and k[1] == shape and
                  k[2] in ("-", "NN", "T")), None) or {}
        prev = None
        for rung in ladder + ["cublas"]:
            if rung not in r:
                if rung in order[op]:
                    prev = None  # skipped at this size: no factor across the gap
                continue
            v = num(r[rung]["rate"])
            txt = fmt_rate(v, r[rung].get("unit", ""))
            if prev and rung != "cublas":
                txt += " (%.2fx)" % (v / prev)
            cells[(op, rung)] = txt
            prev = v if rung != "cublas" else prev
            any_row = True
    if not any_row:
        return PLACEHOLDER % (gpu, gpu)
    body = []
    for number, rung in [(n, rg) for n, rg in ladder_rungs(family)] + [("", "cublas")]:
        if any((op, rung) in cells for op in ops):
            body.append(["%s %s" % (number, rung) if number else "**cublas**"] +
                        [cells.get((op, rung), "-") for op in ops])
    return ("%s: rate (factor over the rung before it)\n\n" % label) + table(["rung"] + ops, body)


def plots_block(family, gpu):
    out = []
    for name in PLOTS[family]:
        if os.path.exists(os.path.join(ROOT, "docs", "img", gpu, name + ".png")):
            out.append("![%s, %s](../img/%s/%s.png)" % (name.replace("_", " "), gpu.upper(), gpu, name))
    if not out:
        return ("_No plots yet: `perf/results/run.sh %s` makes them in docs/img/%s/ with "
                "perf/plot.py (needs matplotlib)._" % (gpu, gpu))
    return "\n".join(out)


RES_COLS = {"gemm": [("float", "sgemm"), ("double", "dgemm")],
            "transpose": [("float", "somatcopy"), ("double", "domatcopy")],
            "reduction": [("float-asum", "sasum"), ("double-asum", "dasum"),
                          ("float-dot", "sdot"), ("double-dot", "ddot")]}
RUNG_ORDER = {}  # family -> rung names in ladder order, from kernels/<dir>/rungs.def


def ladder_rungs(family):
    """[(number, name)] in rungs.def order; the number is the rung's position in
    `miniblas-bench --list` for the first precision it serves (the gemm ladder forks after
    the shared rungs: dmma is dgemm's 12, tf32 sgemm's 12)."""
    d = {"gemm": "gemm", "transpose": "transpose", "reduction": "reduce"}[family]
    out, count = [], {"S": 0, "D": 0}
    for line in open(os.path.join(ROOT, "kernels", d, "rungs.def")):
        m = re.match(r"\s*([A-Z]*)_RUNG\((\w+),", line)
        if not m or any(n == m.group(2) for _, n in out):
            continue
        kinds = {"SGEMM": "S", "DGEMM": "D"}.get(m.group(1), "SD")
        for k in kinds:
            count[k] += 1
        out.append((count[kinds[0]], m.group(2)))
    return out


def resources_block(family, arch):
    path = os.path.join(ROOT, "perf", "results", "ptxas-%s.log" % arch)
    if not os.path.exists(path):
        return "_Not generated yet: perf/results/ptxas-%s.log is missing (perf/results/README.md)._" % arch
    ptx = load_ptxas(path)
    fam = {"gemm": "gemm", "transpose": "omatcopy", "reduction": "reduce"}[family]
    head = ["rung"]
    for _, op in RES_COLS[family]:
        head += ["%s registers" % op, "%s shared/block" % op]
    body = []
    for number, rung in ladder_rungs(family):
        line = ["%d %s" % (number, rung)]
        for prec, _ in RES_COLS[family]:
            line += list(res_cells(ptx, fam, rung, prec))
        body.append(line)
    return table(head, body)


def cblas_block(gpu):
    """The drop-in against OpenBLAS from perf/results/GPU/cblas.csv (miniblas-cblas-bench)."""
    path = os.path.join(ROOT, "perf", "results", gpu, "cblas.csv")
    if not os.path.exists(path):
        return PLACEHOLDER % (gpu, gpu)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    body = []
    for r in rows:
        r = {k.strip(): (v or "").strip() for k, v in r.items() if k}
        if field(r, "check", default="ok") != "ok":
            continue
        ob, mb = num(field(r, "openblas_ms")), num(field(r, "mbc_ms"))
        m, n, k = field(r, "m"), field(r, "n"), field(r, "k")
        if r.get("op", "").endswith("gemm"):
            size = m if m == n == k else "%sx%sx%s" % (m, n, k)
        elif r.get("op", "").endswith("omatcopy"):
            size = "%sx%s" % (m, n)
        else:
            size = pow2(m)
        ratio = field(r, "mbc_over_openblas_paired", "mbc_over_openblas")
        speed = "%.2fx" % (1.0 / num(ratio)) if num(ratio) > 0 else (
            "%.2fx" % (ob / mb) if ob > 0 and mb > 0 else "-")
        bound = field(r, "mbc_over_bound_paired", "mbc_over_bound_host")
        cell = lambda v: "-" if v != v else ("%.3f" % v if v < 10 else "%.1f" % v)
        body.append([r.get("op", ""), field(r, "layout", default="-"), size, cell(ob), cell(mb),
                     field(r, "mbc_path", default="-"), speed,
                     "%.2f" % num(bound) if num(bound) > 0 else "-"])
    if not body:
        return PLACEHOLDER % (gpu, gpu)
    out = []
    cmd = path[:-4] + ".cmd"
    if os.path.exists(cmd):
        lines = [ln.strip() for ln in open(cmd)]
        dev = next((ln[6:].strip().split(",")[0] for ln in lines if ln.startswith("# gpu:")), gpu)
        command = next((ln for ln in lines if ln and not ln.startswith("#")), "")
        out.append("Measured on **%s**: `%s` (`%s`).\n" % (dev, command, os.path.relpath(path, ROOT)))
    out.append(table(["op", "layout", "size", "OpenBLAS ms", "layer ms", "layer path",
                      "speed-up", "layer / bound"], body))
    return "\n".join(out)


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
