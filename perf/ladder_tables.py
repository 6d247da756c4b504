#!/usr/bin/env python3
"""Markdown tables of the rung ladders (docs/gemm-ladder.md, docs/reduction-ladder.md,
docs/transpose-ladder.md) from a miniblas-bench CSV, so the docs can be regenerated after
every benchmark run instead of edited by hand.

Usage:
    python3 perf/ladder_tables.py CSV [--doc gemm|transpose|reduction|all]
                                      [--ptxas BUILD_LOG] [--base OLD_CSV]
                                      [--cublas-from OP:SHAPE[:TRANS]=CSV_OR_RATE ...]
                                      [--conflicts NCU_TXT]
                                      [--update docs/X-ladder.md]

  CSV            written by miniblas-bench --csv (one row per op, shape, rung).
  --ptxas LOG    a build log made with -Xptxas -v (tests/gpu-verify.sh writes OUT/build.log):
                 adds registers (min-max over the transpose / asum-dot instantiations of the
                 rung, "+spill" where ptxas reports spill stores) and shared memory per block
                 (static from ptxas; dynamic computed from the kernel's tile configuration, the
                 same formulas as the launchers).
  --base OLD     a second CSV (an earlier run): adds a table "rate now / rate in OLD" per rung
                 and size.
  --cublas-from OP:SHAPE[:TRANS]=X
                 take cuBLAS's rate at that op and shape (and transpose case, e.g. NN; without
                 it, every case) from CSV file X (or X itself if it is a number, in the CSV's
                 unit) for the %-of-cuBLAS figures; marked with "*" in the table. For a cuBLAS
                 row measured while the GPU clock was still ramping up.
  --conflicts F  the output of perf/bank-conflicts.sh (ncu): fills the column "bank conflicts
                 per request" (shared loads / shared stores) for the kernels it measured.
  --update DOC   replace the generated block of DOC (between the markers
                 "<!-- tables: generated ..." and "<!-- end of generated tables -->") in place.

Every figure is read from the CSV: rate (GFLOP/s or GB/s), fraction_ceiling (the benchmark's
ceiling: FP32/FP64 SIMT peak for gemm, device copy for omatcopy, streaming read for the
reductions). % of cuBLAS is recomputed as rate / cuBLAS rate (cuBLAS FP32 for every sgemm
rung, also tf32; the tf32 cell adds its ratio to cuBLAS TF32). gemm gets one set of tables
per transpose case in the CSV (NN, TT, ...). The bank-conflict column is filled from
--conflicts where given ("-" where ncu did not measure that kernel).
"""
import argparse
import collections
import csv
import re
import subprocess
import sys

GEMM = ("sgemm", "dgemm")
TRANSPOSE = ("somatcopy", "domatcopy")
REDUCTION = ("sasum", "dasum", "sdot", "ddot")
REF_RUNGS = ("cublas", "cublas_tf32")


def load(path):
    """(op, shape, trans, inc) -> rung -> row, plus rung order per op (CSV order)."""
    rows = collections.OrderedDict()
    order = collections.OrderedDict()
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok" or not r["rate"]:
                continue
            key = (r["op"], r["shape"], r["trans"], r["inc"])
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
    return "%.0f%%" % (100.0 * x) if x < 10 else "%.1fx" % x


def pow2(n):
    n = int(n)
    if n > 0 and n & (n - 1) == 0 and n >= 1024:
        return "2^%d" % (n.bit_length() - 1)
    return str(n)


# ------------------------------------------------------------------ cuBLAS overrides
def parse_overrides(items):
    out = {}
    for it in items:
        m = re.match(r"^([a-z]+):([0-9x]+)(?::([A-Z-]+))?=(.+)$", it)
        if not m:
            sys.exit("ladder_tables: bad --cublas-from '%s' (OP:SHAPE[:TRANS]=CSV_OR_RATE)" % it)
        op, shape, trans, src = m.groups()
        try:
            out[(op, shape, trans)] = float(src)
            continue
        except ValueError:
            pass
        rows, _ = load(src)
        r = cell_row(by_trans(rows, trans) if trans else rows, op, shape)
        if not r or "cublas" not in r:
            sys.exit("ladder_tables: no cublas row for %s %s in %s" % (op, shape, src))
        out[(op, shape, trans)] = float(r["cublas"]["rate"])
    return out


def cublas_rate(rows, overrides, op, shape, which="cublas"):
    """(rate, overridden?) of cuBLAS at op/shape (rows: one transpose case)."""
    r = cell_row(rows, op, shape)
    trans = next((t for (o, s, t, i) in rows if o == op and s == shape), None)
    if which == "cublas":
        for key in ((op, shape, trans), (op, shape, None)):
            if key in overrides:
                return overrides[key], True
    if r and which in r:
        return float(r[which]["rate"]), False
    return None, False


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


def gemm_tables(rows_all, order, ptx, overrides, sizes, conf=None):
    out = []
    for op in GEMM:
        if op not in order:
            continue
        for trans in trans_of(rows_all, op):
            out.append(gemm_tables_one(by_trans(rows_all, trans), order, ptx, overrides, sizes,
                                       conf, op, trans))
    return "\n\n".join(out)


def gemm_cell(rows, overrides, op, trans, s, rung, notes):
    """One gemm table cell: the rung's rate and its % of cuBLAS ("*": cuBLAS's rate from
    another run, explained by a line appended to notes), and for a reduced-precision rung its
    fraction of cuBLAS TF32; "-" where the rung has no row."""
    r = cell_row(rows, op, s) or {}
    if rung not in r:
        return "-"
    rate = float(r[rung]["rate"])
    cb, over = cublas_rate(rows, overrides, op, s)
    txt = fmt_rate(rate, "GFLOP/s")
    if cb and rung != "cublas":
        txt += " (%s%s" % (pct(rate / cb), "*" if over else "")
        if "reduced precision" in r[rung]["note"]:
            t32, _ = cublas_rate(rows, overrides, op, s, "cublas_tf32")
            if t32:
                txt += "; %s of TF32" % pct(rate / t32)
        txt += ")"
    elif rung == "cublas" and over:
        txt += " [%s*]" % fmt_rate(cb, "GFLOP/s")
        where = "n=%d" % side(s) if is_square(s) else s
        notes.append("* " + trans + " %s: %% of cuBLAS against cuBLAS's %s TFLOP/s taken from "
                     "another run (--cublas-from); this run measured %s." %
                     (where, fmt_rate(cb, "GFLOP/s"), txt.split(" ")[0]))
    return txt


def gemm_tables_one(rows, order, ptx, overrides, sizes, conf, op, trans):
    out = []
    if True:
        prec = "float" if op[0] == "s" else "double"
        sq = [s for s in shapes_of(rows, op) if is_square(s)]
        if sizes:
            sq = [s for s in sq if side(s) in sizes]
        sq.sort(key=side)
        big = sq[-1] if sq else None
        notes = []
        head = ["rung"] + ["n=%d TF/s (%% cuBLAS)" % side(s) for s in sq] + \
               ["%% FP%s peak, n=%d" % ("32" if prec == "float" else "64 SIMT", side(big))]
        if ptx is not None:
            head += ["registers", "shared/block"]
        head += ["bank conflicts/request"]
        body = []
        for rung in order[op]:
            line = ["**%s**" % rung if rung in REF_RUNGS else rung]
            for s in sq:
                line.append(gemm_cell(rows, overrides, op, trans, s, rung, notes))
            r = cell_row(rows, op, big) or {}
            fc = r.get(rung, {}).get("fraction_ceiling", "") if rung in r else ""
            line.append(pct(float(fc)) if fc else "-")
            if ptx is not None:
                if rung in ("cublas", "cublas_tf32", "auto"):
                    line += ["", ""]
                else:
                    line += list(res_cells(ptx, "gemm", rung, prec))
            line.append("" if rung in ("cublas", "cublas_tf32", "auto") else
                        conflict_cell(conf, "gemm", rung, prec, trans))
            body.append(line)
        out.append("#### %s, %s, square n\n\n%s" % (op, trans, table(head, body)))
        if notes:
            out.append("\n".join(sorted(set(notes))))
        # other shapes
        other = [s for s in shapes_of(rows, op) if not is_square(s)]
        if other:
            notes = []
            head = ["rung"] + ["%s TF/s (%% cuBLAS)" % s for s in other]
            body = []
            for rung in order[op]:
                line = ["**%s**" % rung if rung in REF_RUNGS else rung]
                for s in other:
                    line.append(gemm_cell(rows, overrides, op, trans, s, rung, notes))
                body.append(line)
            out.append("#### %s, %s, other shapes (m x n x k)\n\n%s" % (op, trans, table(head, body)))
            if notes:
                out.append("\n".join(sorted(set(notes))))
    return "\n\n".join(out)


def mem_tables(rows, order, ptx, overrides, ops, fam, small, large, ceiling_name, conf=None):
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

        def pick(want, default):
            if want:
                for s in cand:
                    if s == want or s.split("x")[0] == want or pow2(s) == want:
                        return s
            return default

        lo = pick(small, cand[0] if fam == "omatcopy" else
                  next((s for s in cand if int(s) >= 2**20), cand[0]))
        hi = pick(large, cand[-1])
        tiny = cand[0] if fam == "reduce" and cand[0] != lo else None
        lab = (lambda s: s) if fam == "omatcopy" else pow2
        head = ["rung"]
        if tiny:
            head += ["n=%s us/call (%% cuBLAS)" % lab(tiny)]
        for s in (lo, hi):
            head += ["%s GB/s" % lab(s), "%% %s" % ceiling_name, "% cuBLAS"]
        if ptx is not None:
            head += ["registers", "shared/block"]
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
                cb, over = cublas_rate(rows, overrides, op, s)
                fc = r[rung]["fraction_ceiling"]
                line += [fmt_rate(rate, "GB/s"), pct(float(fc)) if fc else "-",
                         "" if rung == "cublas" else (pct(rate / cb) + ("*" if over else "")) if cb else "-"]
            if ptx is not None:
                if rung in ("cublas", "auto"):
                    line += ["", ""]
                else:
                    line += list(res_cells(ptx, fam, rung, prec))
            line.append("" if rung in ("cublas", "auto") else
                        conflict_cell(conf, fam, rung, prec, "T" if fam == "omatcopy" else "-"))
            body.append(line)
        trans = next((t for (o, s, t, i) in rows if o == op), "")
        out.append("#### %s%s\n\n%s" % (op, " " + trans if fam == "omatcopy" else "", table(head, body)))
    return "\n\n".join(out)


def compare_tables(rows_all, base_all, ops):
    out = []
    for op in ops:
        for trans in trans_of(base_all, op):
            rows, base = by_trans(rows_all, trans), by_trans(base_all, trans)
            t = compare_one(rows, base, op, "" if trans == "-" else " " + trans)
            if t:
                out.append(t)
    return "\n\n".join(out)


def compare_one(rows, base, op, tlab):
    out = []
    if True:
        shp = [s for s in shapes_of(rows, op) if cell_row(base, op, s)]
        if not shp:
            return ""
        rungs = []
        for s in shp:
            for rg in cell_row(rows, op, s):
                if rg not in rungs:
                    rungs.append(rg)
        head = ["rung"] + [pow2(s) if op not in GEMM + TRANSPOSE else s for s in shp]
        body = []
        for rg in rungs:
            line = [rg]
            for s in shp:
                a, b = cell_row(rows, op, s), cell_row(base, op, s)
                if rg in a and rg in b:
                    line.append("%.2fx" % (float(a[rg]["rate"]) / float(b[rg]["rate"])))
                else:
                    line.append("-")
            body.append(line)
        out.append("#### %s%s: rate in this CSV / rate in the base CSV\n\n%s" % (op, tlab, table(head, body)))
    return "\n\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--doc", default="all", choices=["gemm", "transpose", "reduction", "all"])
    ap.add_argument("--ptxas", help="build log with -Xptxas -v output")
    ap.add_argument("--base", help="an earlier CSV to compare with")
    ap.add_argument("--cublas-from", action="append", default=[], metavar="OP:SHAPE[:TRANS]=CSV_OR_RATE")
    ap.add_argument("--conflicts", help="output of perf/bank-conflicts.sh (ncu)")
    ap.add_argument("--gemm-sizes", default="1024,4096,8192",
                    help="square gemm sizes to tabulate (default 1024,4096,8192; 'all' for every one)")
    ap.add_argument("--small", default="", help="small size of the memory-bound tables (e.g. 1024, 2^20)")
    ap.add_argument("--large", default="", help="large size of the memory-bound tables (default the largest)")
    ap.add_argument("--update", metavar="DOC.md",
                    help="write the tables into DOC.md between its markers '<!-- tables: generated' "
                         "and '<!-- end of generated tables -->' instead of printing them")
    a = ap.parse_args()

    rows, order = load(a.csv)
    if not rows:
        sys.exit("ladder_tables: no usable rows in %s" % a.csv)
    ptx = load_ptxas(a.ptxas) if a.ptxas else None
    ov = parse_overrides(a.cublas_from)
    conf = load_conflicts(a.conflicts) if a.conflicts else None
    base = load(a.base)[0] if a.base else None
    sizes = None if a.gemm_sizes == "all" else set(int(x) for x in a.gemm_sizes.split(","))
    parts = []
    if a.doc in ("gemm", "all"):
        parts.append(gemm_tables(rows, order, ptx, ov, sizes, conf))
        if base:
            parts.append(compare_tables(rows, base, GEMM))
    if a.doc in ("transpose", "all"):
        parts.append(mem_tables(rows, order, ptx, ov, TRANSPOSE, "omatcopy", a.small, a.large, "copy", conf))
        if base:
            parts.append(compare_tables(rows, base, TRANSPOSE))
    if a.doc in ("reduction", "all"):
        parts.append(mem_tables(rows, order, ptx, ov, REDUCTION, "reduce", a.small, a.large, "read", conf))
        if base:
            parts.append(compare_tables(rows, base, REDUCTION))
    text = "\n\n".join(p for p in parts if p)
    if not a.update:
        print(text)
        return
    doc = open(a.update).read()
    m = re.search(r"(<!-- tables: generated[^\n]*\n)(.*?)(<!-- end of generated tables -->)", doc, re.S)
    if not m:
        sys.exit("ladder_tables: no table markers in %s" % a.update)
    doc = doc[:m.start(2)] + "\n" + text + "\n\n" + doc[m.end(2):]
    with open(a.update, "w") as f:
        f.write(doc)
    print("ladder_tables: tables in %s updated" % a.update)


if __name__ == "__main__":
    main()
