#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Plot benchmark result files (miniblas-bench or miniblas-cblas-bench, --json or --csv).

One run: one PNG per (op, trans, inc), rate against size, one line per rung (or
implementation), the fastest and slowest trial as a band; cuBLAS is the thick black line
(cublas_tf32 dashed), other reference rows (OpenBLAS, the plain offload) are grey.

    python3 perf/plot.py RESULT.json [--out DIR] [--ops sgemm,sasum] [--logy]

Before and after: the same PNGs with both runs (before dashed, after solid), and
change.png, the change of every row's median time with the allowance of perf/compare.py
(both runs' noise plus the tolerance), coloured SAME / FAST / SLOW.

    python3 perf/plot.py --before OLD.json --after NEW.json [--out DIR] [--tolerance 5]

Size axis: gemm uses the equivalent cube side (m*n*k)^(1/3) (so 4096 is 4096^3 and the
non-square shapes sit among the squares); omatcopy the number of elements rows*cols; the
reductions n. Only rows with status "ok" are drawn.
Needs matplotlib; on Debian or Ubuntu: apt-get install python3-matplotlib
"""
import argparse
import collections
import csv
import importlib.util
import json
import os
import sys


def load(path):
    """The rows of a result file, as dicts with numbers where numbers belong."""
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f)]
        for r in rows:
            for k in ("m", "n", "k", "inc", "trials"):
                r[k] = int(r[k]) if r.get(k) not in (None, "") else 0
            for k in ("time_us", "min_us", "max_us", "noise", "rate"):
                r[k] = float(r[k]) if r.get(k) not in (None, "") else None
            r["reference"] = r.get("reference") in ("1", "true")
        return rows
    with open(path, encoding="utf-8") as f:
        return json.load(f)["results"]


def size_of(row):
    m, n, k = int(row["m"]), int(row["n"]), int(row["k"])
    op = row["op"]
    if op.endswith("gemm"):
        return (m * n * k) ** (1.0 / 3.0)
    if op.endswith("omatcopy"):
        return float(m * n)
    return float(m)


def size_label(op):
    if op.endswith("gemm"):
        return "(m n k)^(1/3)"
    if op.endswith("omatcopy"):
        return "elements (rows x cols)"
    return "n"


def groups_of(rows, wanted):
    """(op, trans, inc) -> rung -> sorted [(size, rate, rate_lo, rate_hi)], units."""
    groups = collections.OrderedDict()
    units, refs = {}, set()
    for r in rows:
        if r.get("status") != "ok" or not r.get("rate") or not r.get("time_us"):
            continue
        if wanted and r["op"] not in wanted:
            continue
        key = (r["op"], str(r["trans"]), str(r["inc"]))
        rate, t = float(r["rate"]), float(r["time_us"])
        lo = rate * t / r["max_us"] if r.get("max_us") else rate
        hi = rate * t / r["min_us"] if r.get("min_us") else rate
        # the cblas bench's rows of several GPU sets and host memories: a line each
        name = r["rung"] + (f" devices {r['devices']}" if r.get("devices") else "") + \
            (" pinned" if r.get("memory") == "pinned" else "")
        groups.setdefault(key, collections.OrderedDict()).setdefault(name, []).append(
            (size_of(r), rate, lo, hi))
        units[key] = r["unit"]
        if r.get("reference"):
            refs.add(name)
    for g in groups.values():
        for pts in g.values():
            pts.sort()
    return groups, units, refs


def file_name(op, trans, inc, suffix=""):
    return op + ("_" + trans if trans not in ("", "-") else "") + \
        ("_inc" + inc if inc not in ("", "0", "1") else "") + suffix + ".png"


def draw(plt, ax, rungs, refs, style, linestyle="-", tag=""):
    for rung, pts in rungs.items():
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        label = rung + tag
        if rung == "cublas":
            ax.plot(xs, ys, color="black", linewidth=2.5, linestyle=linestyle, label="cuBLAS" + tag, zorder=10)
        elif rung == "cublas_tf32":
            ax.plot(xs, ys, color="black", linewidth=1.5, linestyle="--", label="cuBLAS TF32" + tag, zorder=9)
        elif rung in refs:
            ax.plot(xs, ys, color="grey", linewidth=2, linestyle=linestyle, label=label, zorder=8)
        else:
            c, mk = style[rung]
            ax.plot(xs, ys, color=c, marker=mk, markersize=4, linewidth=1.2, linestyle=linestyle, label=label)
            ax.fill_between(xs, [p[2] for p in pts], [p[3] for p in pts], color=c, alpha=0.15, linewidth=0)


def finish(plt, fig, ax, op, trans, inc, unit, logy, path):
    ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(size_label(op))
    ax.set_ylabel(unit)
    title = op + ("" if trans in ("", "-") else " " + trans) + ("" if inc in ("", "0", "1") else " inc=" + inc)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)


def styles(plt, names, refs):
    ours = [r for r in names if r not in refs and not r.startswith("cublas")]
    return {r: (plt.cm.tab20(i % 20), "osD^v<>ph*"[i % 10]) for i, r in enumerate(ours)}


def load_compare():
    sys.dont_write_bytecode = True  # no __pycache__ beside the sources
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("compare", os.path.join(here, "compare.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def change_plot(plt, before, after, tol, path):
    cmp = load_compare()
    key = lambda r: tuple(str(r.get(k, "")) if k != "inc" else int(r.get(k) or 0) for k in cmp.KEY)
    b = {key(r): r for r in before}
    items = []
    for r in after:
        k = key(r)
        if k in b:
            v, change, allow = cmp.verdict(b[k], r, tol / 100.0)
            if change is not None:
                items.append((cmp.fmt_key(k), v, change * 100, allow * 100))
    if not items:
        print("no row timed in both files: no change.png", file=sys.stderr)
        return
    colours = {"SAME": "tab:grey", "FAST": "tab:green", "SLOW": "tab:red"}
    fig, ax = plt.subplots(figsize=(10, 0.25 * len(items) + 1.5))
    ys = list(range(len(items)))[::-1]
    ax.barh(ys, [i[2] for i in items], color=[colours[i[1]] for i in items])
    ax.errorbar([0] * len(items), ys, xerr=[i[3] for i in items], fmt="none", ecolor="black",
                elinewidth=0.8, capsize=2, label="allowance (noise + tolerance)")
    ax.set_yticks(ys)
    ax.set_yticklabels([i[0] for i in items], fontsize=7)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("change of the median time per call, % (positive: slower)")
    ax.set_title("after vs before: SAME (grey), FAST (green), SLOW (red)")
    ax.legend(fontsize=8)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("result", nargs="?", help="a result file (--json or --csv)")
    ap.add_argument("--before", help="the earlier result file (with --after)")
    ap.add_argument("--after", help="the later result file (with --before)")
    ap.add_argument("--out", default=".", help="directory for the PNG files (default .)")
    ap.add_argument("--ops", default="", help="comma-separated ops to plot (default all)")
    ap.add_argument("--tolerance", type=float, default=5.0, help="percent, as perf/compare.py (default 5)")
    ap.add_argument("--logy", action="store_true",
                    help="logarithmic rate axis (the gemm ladders span 0.5 to 70 TFLOP/s)")
    args = ap.parse_args()
    if bool(args.before) != bool(args.after) or bool(args.result) == bool(args.before):
        ap.error("give one result file, or --before and --after")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py needs matplotlib; on Debian or Ubuntu: apt-get install python3-matplotlib")

    wanted = set(o for o in args.ops.split(",") if o)
    os.makedirs(args.out, exist_ok=True)
    if args.result:
        groups, units, refs = groups_of(load(args.result), wanted)
        if not groups:
            sys.exit("no plottable rows in %s" % args.result)
        for (op, trans, inc), rungs in groups.items():
            fig, ax = plt.subplots(figsize=(10, 5.5))
            draw(plt, ax, rungs, refs, styles(plt, rungs, refs))
            finish(plt, fig, ax, op, trans, inc, units[(op, trans, inc)], args.logy,
                   os.path.join(args.out, file_name(op, trans, inc)))
        return 0
    before, after = load(args.before), load(args.after)
    gb, ub, rb = groups_of(before, wanted)
    ga, ua, ra = groups_of(after, wanted)
    refs = rb | ra
    for key in list(dict.fromkeys(list(gb) + list(ga))):
        op, trans, inc = key
        names = list(dict.fromkeys(list(gb.get(key, {})) + list(ga.get(key, {}))))
        st = styles(plt, names, refs)
        fig, ax = plt.subplots(figsize=(10, 5.5))
        draw(plt, ax, gb.get(key, {}), refs, st, linestyle=":", tag=" (before)")
        draw(plt, ax, ga.get(key, {}), refs, st, tag=" (after)")
        finish(plt, fig, ax, op, trans, inc, (ua.get(key) or ub.get(key)), args.logy,
               os.path.join(args.out, file_name(op, trans, inc, "_before_after")))
    change_plot(plt, before, after, args.tolerance, os.path.join(args.out, "change.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
