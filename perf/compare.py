#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Compare two benchmark result files (--json of miniblas-bench or miniblas-cblas-bench).

Usage:
    python3 perf/compare.py BASELINE.json CURRENT.json [--tolerance PCT] [--only-changes]
                            [--fail-missing] [--strict-reference]

Rows are matched by (op, shape, trans, inc, rung, devices, memory). For a row timed in both
files, with median times b (baseline) and c (current) and relative noises nb and nc (1.4826 MAD /
median of each run's trials):

    change    = c / b - 1
    allowance = tolerance + nb + nc          (tolerance defaults to 5 %)
    SAME  when |change| <= allowance
    SLOW  when change > allowance
    FAST  when change < -allowance

A row that was correct in the baseline and is WRONG or ERROR now is FAIL. Reference rows
(cuBLAS, OpenBLAS: "reference": true) get a verdict too, marked "ref": they show whether the
machine changed, and count as a regression only with --strict-reference. Rows present in only
one file are listed (a failure only with --fail-missing).

Exit status: 0 no regression; 3 a row is SLOW or FAIL (or missing, with --fail-missing);
2 a file cannot be read or is not a result file.
"""
import argparse
import json
import math
import sys

KEY = ("op", "shape", "trans", "inc", "rung", "devices", "memory")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise SystemExit2(f"{path}: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise SystemExit2(f"{path}: not a benchmark result file (no \"results\" list)")
    rows = {}
    # the cblas bench's rows before "memory" existed were all on pageable host memory
    cblas = doc.get("tool") == "miniblas-cblas-bench"
    for r in doc["results"]:
        try:
            key = tuple(int(r.get(k) or 0) if k == "inc" else
                        (r.get(k) or ("pageable" if cblas else "")) if k == "memory" else
                        str(r.get(k) or "") for k in KEY)
        except (TypeError, ValueError):
            raise SystemExit2(f"{path}: a row has a bad key: {r!r}")
        rows[key] = r
    return doc, rows


class SystemExit2(Exception):
    pass


def num(v):
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def timed(r):
    return r.get("status", "ok") == "ok" and num(r.get("time_us")) is not None and num(r.get("time_us")) > 0


def verdict(b, c, tol):
    """Returns (verdict, change, allowance); change/allowance are fractions or None."""
    bad_now = c.get("status") in ("wrong", "error")
    if timed(b) and bad_now:
        return "FAIL", None, None
    if not timed(b) and not timed(c):
        return "-", None, None
    if not timed(b):
        return "NEW", None, None
    if not timed(c):
        return "UNTIMED", None, None
    tb, tc = num(b["time_us"]), num(c["time_us"])
    nb, nc = num(b.get("noise")) or 0.0, num(c.get("noise")) or 0.0
    change = tc / tb - 1.0
    allowance = tol + nb + nc
    if change > allowance:
        return "SLOW", change, allowance
    if change < -allowance:
        return "FAST", change, allowance
    return "SAME", change, allowance


def fmt_key(k):
    op, shape, trans, inc, rung, devices, memory = k
    t = "" if trans in ("", "-") else " " + trans
    i = f" inc={inc}" if inc not in (0, 1) else ""
    d = f" devices={devices}" if devices else ""
    m = f" {memory}" if memory and memory != "pageable" else ""
    return f"{op} {shape}{t}{i} {rung}{d}{m}"


def fmt_t(r):
    if not timed(r):
        return r.get("status", "-")
    n = num(r.get("noise"))
    return f"{num(r['time_us']):.2f}" + (f" ±{100 * n:.1f}%" if n is not None else "")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("baseline")
    ap.add_argument("current")
    ap.add_argument("--tolerance", type=float, default=5.0, help="percent added to the noise (default 5)")
    ap.add_argument("--only-changes", action="store_true", help="print only rows that are not SAME")
    ap.add_argument("--fail-missing", action="store_true", help="exit 3 when a row is missing on either side")
    ap.add_argument("--strict-reference", action="store_true", help="reference rows can be regressions too")
    a = ap.parse_args(argv)
    if not (a.tolerance >= 0):
        print("compare.py: --tolerance must be >= 0", file=sys.stderr)
        return 2
    try:
        bdoc, brows = load(a.baseline)
        cdoc, crows = load(a.current)
    except SystemExit2 as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    tol = a.tolerance / 100.0
    print(f"baseline: {a.baseline} ({bdoc.get('tool')}, {bdoc.get('device')}, commit {bdoc.get('git_commit')}, {bdoc.get('timestamp')})")
    print(f"current:  {a.current} ({cdoc.get('tool')}, {cdoc.get('device')}, commit {cdoc.get('git_commit')}, {cdoc.get('timestamp')})")
    if bdoc.get("device") != cdoc.get("device"):
        print("note: the two runs are on different devices")
    for name, doc in (("baseline", bdoc), ("current", cdoc)):
        for when in ("gpu_start", "gpu_end"):
            g = doc.get(when)
            if isinstance(g, dict) and g.get("sw_power_cap") is True:
                print(f"note: the {name} run had the SW power cap active at {when[4:]} (clocks lowered)")
    counts = {}
    regressions = 0
    lines = []
    for k, c in crows.items():
        b = brows.get(k)
        if b is None:
            continue
        v, change, allow = verdict(b, c, tol)
        ref = bool(b.get("reference") or c.get("reference"))
        counted = v in ("SLOW", "FAIL") and (not ref or a.strict_reference)
        regressions += counted
        counts[v] = counts.get(v, 0) + 1
        if a.only_changes and v in ("SAME", "-"):
            continue
        ch = f"{100 * change:+7.1f}%" if change is not None else "       -"
        al = f"±{100 * allow:.1f}%" if allow is not None else "-"
        lines.append(f"{v:<7} {'ref' if ref else '   '} {fmt_key(k):<52} {fmt_t(b):>18} {fmt_t(c):>18} {ch} {al:>8}")
    print(f"\n{'verdict':<7} {'':3} {'row':<52} {'baseline us':>18} {'current us':>18} {'change':>8} {'allowed':>8}")
    for ln in lines:
        print(ln)
    only_b = [k for k in brows if k not in crows]
    only_c = [k for k in crows if k not in brows]
    if only_b:
        print(f"\nmissing in current ({len(only_b)}):")
        for k in only_b:
            print("  " + fmt_key(k))
    if only_c:
        print(f"\nmissing in baseline ({len(only_c)}):")
        for k in only_c:
            print("  " + fmt_key(k))
    summary = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    print(f"\n{len(crows) - len(only_c)} rows matched: {summary or 'none'}; tolerance {a.tolerance:g}% + both runs' noise")
    if regressions:
        print(f"REGRESSION: {regressions} row(s) SLOW or FAIL")
        return 3
    if a.fail_missing and (only_b or only_c):
        print("REGRESSION: rows missing (--fail-missing)")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
