# SPDX-License-Identifier: BSD-3-Clause
"""The generated blocks of docs/ladders/*.md and docs/cblas.md for perf/ladder_tables.py: the
rung tables, the textbook claims, the source of the figures, the plots, the steps between
rungs, and the drop-in's table against OpenBLAS."""
import argparse
import collections
import csv
import glob
import json
import os
import re
import subprocess
import sys


from ladder_results import *  # noqa: F401,F403
from ladder_resources import *  # noqa: F401,F403


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


def cblas_wide(rows):
    """miniblas-cblas-bench --csv (a line per implementation) as --csv-wide's columns (a line
    per op and size); the bounds are only in --csv-wide, so they stay empty."""
    out = collections.OrderedDict()
    for r in rows:
        key = (r.get("op", ""), r.get("shape", ""), r.get("trans", ""))
        w = out.setdefault(key, {"op": key[0], "layout": key[2] or "-", "m": r.get("m", ""),
                                 "n": r.get("n", ""), "k": r.get("k", ""), "check": "ok"})
        if r.get("status", "ok") != "ok":
            w["check"] = r.get("status")
        impl = r.get("rung", "")
        if impl in ("openblas", "mbc"):
            w[impl + "_ms"] = "%g" % (num(r.get("time_us")) / 1000.0)
        if impl == "mbc":
            note = r.get("note", "")
            w["mbc_path"] = note.split("path ", 1)[1].split(";")[0].strip() if "path " in note else "-"
    return list(out.values())


def measured_on(path, gpu, extra=""):
    """["Measured on **GPU**: `command` (`file`).\n"] from the .cmd beside a CSV; [] without."""
    cmd = path[:-4] + ".cmd"
    if not os.path.exists(cmd):
        return []
    lines = [ln.strip() for ln in open(cmd)]
    dev = next((ln[6:].strip().split(",")[0] for ln in lines if ln.startswith("# gpu:")), gpu)
    command = next((ln for ln in lines if ln and not ln.startswith("#")), "")
    return ["Measured on **%s**: `%s` (`%s`%s).\n" % (dev, command, os.path.relpath(path, ROOT), extra)]


def cblas_block(gpu):
    """The drop-in against OpenBLAS from perf/results/GPU/cblas.csv (miniblas-cblas-bench)."""
    path = os.path.join(ROOT, "perf", "results", gpu, "cblas.csv")
    if not os.path.exists(path):
        return PLACEHOLDER % (gpu, gpu)
    with open(path, newline="") as f:
        rows = list(csv.DictReader(ln for ln in f if not ln.startswith("#")))
    if rows and "rung" in rows[0]:
        rows = cblas_wide(rows)
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
    out = measured_on(path, gpu)
    head = ["op", "layout", "size", "OpenBLAS ms", "layer ms", "layer path", "speed-up",
            "layer / bound"]
    if all(b[-1] == "-" for b in body):  # no bounds in the file (--csv rather than --csv-wide)
        head, body = head[:-1], [b[:-1] for b in body]
    out.append(table(head, body))
    return "\n".join(out)


def by_devices(path, key):
    """Rows of a miniblas-cblas-bench --devices CSV: {key(row): {(rung, number of GPUs): ms}},
    and the GPU counts measured."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(ln for ln in f if not ln.startswith("#"))
                if r.get("status") == "ok"]
    t = {}
    for r in rows:
        ngpu = len([d for d in (r.get("devices") or "0").split(",") if d.strip()])
        t.setdefault(key(r), {})[(r["rung"], ngpu)] = num(r["time_us"]) / 1000.0
    return t, sorted({g for v in t.values() for (_, g) in v})


def mgpuvec_block(gpu):
    """The drop-in's asum and dot on 1 and N GPUs beside OpenBLAS, from
    perf/results/GPU/mgpuvec.csv (miniblas-cblas-bench --devices 1,N --impls mbc,openblas)."""
    path = os.path.join(ROOT, "perf", "results", gpu, "mgpuvec.csv")
    if not os.path.exists(path):
        return PLACEHOLDER % (gpu, gpu)
    t, ngpus = by_devices(path, lambda r: (r["op"], int(num(r["m"])),
                                           r.get("memory") or "pageable"))
    if len(ngpus) < 2:
        return PLACEHOLDER % (gpu, gpu)
    lo, hi = ngpus[0], ngpus[-1]
    ms = lambda v: "-" if v != v else ("%.1f" % v if v >= 10 else "%.2f" % v)
    ops = ["sasum", "dasum", "sdot", "ddot"]
    body = []
    for key in sorted(t, key=lambda k: (k[2] != "pinned", ops.index(k[0]) if k[0] in ops else 9,
                                        k[1])):
        v = t[key]
        one, many = v.get(("mbc", lo), float("nan")), v.get(("mbc", hi), float("nan"))
        cpu = v.get(("openblas", lo), float("nan"))
        nbytes = key[1] * (8 if key[0][0] == "d" else 4) * (2 if key[0].endswith("dot") else 1)
        body.append([key[0], "2^%d" % (key[1].bit_length() - 1) if key[1] & (key[1] - 1) == 0
                     else str(key[1]), key[2], ms(cpu), ms(one), ms(many),
                     "%.2fx" % (one / many) if many > 0 else "-",
                     "%.1f" % (nbytes / many / 1e6) if many > 0 else "-"])
    head = ["op", "n", "host memory", "OpenBLAS ms", "%d GPU ms" % lo, "%d GPUs ms" % hi,
            "speed-up", "%d GPUs GB/s" % hi]
    out = measured_on(path, gpu)
    out.append(table(head, body))
    return "\n".join(out)


def mgpu_block(gpu):
    """The drop-in's gemm on 1 and N GPUs beside cuBLASXt, from perf/results/GPU/mgpu.csv
    (miniblas-cblas-bench --devices 1,N --memory pageable,pinned --impls mbc,cublasxt,...)."""
    path = os.path.join(ROOT, "perf", "results", gpu, "mgpu.csv")
    if not os.path.exists(path):
        return PLACEHOLDER % (gpu, gpu)
    t, ngpus = by_devices(path, lambda r: (r["op"], r["shape"], r.get("memory") or "pageable"))
    if len(ngpus) < 2:
        return PLACEHOLDER % (gpu, gpu)
    lo, hi = ngpus[0], ngpus[-1]
    ms = lambda v: "-" if v != v else ("%.1f" % v if v >= 10 else "%.2f" % v)
    body = []
    order = lambda k: (k[0] != "sgemm", int(k[1].split("x")[0]), k[2] != "pageable")
    for key in sorted(t, key=order):
        v = t[key]
        one, many = v.get(("mbc", lo), float("nan")), v.get(("mbc", hi), float("nan"))
        kern = v.get(("kern_mb", hi), v.get(("kern_mb", lo), float("nan")))
        xt = {int(r.split("_")[1]): s for (r, g), s in v.items()
              if r.startswith("cublasxt_") and g == hi}
        best = min(xt.items(), key=lambda b: b[1]) if xt else (0, float("nan"))
        n = key[1].split("x")[0]
        bound = v.get(("bound_host", hi), float("nan"))  # max(kernel / N, the host copies)
        body.append([key[0], n if key[1] == "x".join([n] * 3) else key[1], key[2], ms(one),
                     ms(many), "%.2fx" % (one / many) if many > 0 else "-", ms(kern / hi),
                     "%.2f" % (many / bound) if bound > 0 else "-",
                     ms(xt.get(4096, float("nan"))), "%s (%d)" % (ms(best[1]), best[0]),
                     "%.2fx" % (best[1] / many) if many > 0 else "-"])
    head = ["op", "n", "host memory", "%d GPU ms" % lo, "%d GPUs ms" % hi, "speed-up",
            "kernel / %d ms" % hi, "%d GPUs / bound" % hi, "cuBLASXt %d GPUs, block 4096" % hi,
            "cuBLASXt best (block)", "vs cuBLASXt best"]
    if all(b[7] == "-" for b in body):  # a file without the bound rows
        head, body = head[:7] + head[8:], [b[:7] + b[8:] for b in body]
    out = measured_on(path, gpu, "; the bounds of each row in `%s.txt`"
                      % os.path.relpath(path[:-4], ROOT))
    out.append(table(head, body))
    return "\n".join(out)
