#!/usr/bin/env python3
"""Plot miniblas-bench results: one PNG per (op, trans, inc), rate against size, one line per
rung, cuBLAS drawn as a thick black line (cublas_tf32 dashed), log-scaled size axis.

Usage:
    miniblas-bench --csv results.csv ...
    python3 perf/plot.py results.csv [--out DIR] [--ops sgemm,sasum]

Size axis: gemm uses the equivalent cube side (m*n*k)^(1/3) (so 4096 is 4096^3 and the
non-square shapes sit among the squares); omatcopy the number of elements rows*cols; the
reductions n. Only rows with status "ok" are drawn (WRONG / skipped rows have no rate).
Needs matplotlib (pip install matplotlib).
"""
import argparse
import collections
import csv
import os
import sys


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="CSV written by miniblas-bench --csv")
    ap.add_argument("--out", default=".", help="directory for the PNG files (default .)")
    ap.add_argument("--ops", default="", help="comma-separated ops to plot (default all)")
    ap.add_argument("--logy", action="store_true",
                    help="logarithmic rate axis (the gemm ladders span 0.5 to 70 TFLOP/s)")
    args = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py needs matplotlib: pip install matplotlib")

    wanted = set(o for o in args.ops.split(",") if o)
    # (op, trans, inc) -> rung -> list of (size, rate)
    groups = collections.OrderedDict()
    units = {}
    with open(args.csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "ok" or not row["rate"]:
                continue
            if wanted and row["op"] not in wanted:
                continue
            key = (row["op"], row["trans"], row["inc"])
            groups.setdefault(key, collections.OrderedDict()).setdefault(row["rung"], []).append(
                (size_of(row), float(row["rate"])))
            units[key] = row["unit"]

    if not groups:
        sys.exit("no plottable rows in %s" % args.csv)
    os.makedirs(args.out, exist_ok=True)
    for (op, trans, inc), rungs in groups.items():
        fig, ax = plt.subplots(figsize=(10, 5.5))
        # distinct colour and marker per rung (the default cycle repeats after 10 rungs)
        ours = [r for r in rungs if r not in ("cublas", "cublas_tf32")]
        style = {r: (plt.cm.tab20(i % 20), "osD^v<>ph*"[i % 10]) for i, r in enumerate(ours)}
        for rung, pts in rungs.items():
            pts.sort()
            xs = [p[0] for p in pts]
            ys = [p[1] for p in pts]
            if rung == "cublas":
                ax.plot(xs, ys, color="black", linewidth=2.5, label="cuBLAS", zorder=10)
            elif rung == "cublas_tf32":
                ax.plot(xs, ys, color="black", linewidth=1.5, linestyle="--",
                        label="cuBLAS TF32", zorder=9)
            else:
                ax.plot(xs, ys, color=style[rung][0], marker=style[rung][1], markersize=4,
                        linewidth=1.2, label=rung)
        ax.set_xscale("log", base=2)
        if args.logy:
            ax.set_yscale("log")
        ax.set_xlabel(size_label(op))
        ax.set_ylabel(units[(op, trans, inc)])
        title = op
        if trans not in ("", "-"):
            title += " " + trans
        if inc not in ("", "0"):
            title += " inc=" + inc
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        name = op + ("_" + trans if trans not in ("", "-") else "") + \
            ("_inc" + inc if inc not in ("", "0", "1") else "") + ".png"
        path = os.path.join(args.out, name)
        fig.savefig(path, dpi=120)
        plt.close(fig)
        print(path)


if __name__ == "__main__":
    main()
