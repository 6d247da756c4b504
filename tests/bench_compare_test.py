#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""CPU test of perf/compare.py on synthetic result files: a change inside both runs' noise
plus the tolerance is SAME, outside it FAST or SLOW; a row correct before and wrong now is
FAIL; rows missing on either side are listed; exit status 3 on SLOW or FAIL, 0 otherwise,
2 for an unreadable file; reference rows never fail the run unless --strict-reference.

    python3 tests/bench_compare_test.py perf/compare.py
"""
import json
import os
import re
import subprocess
import sys
import tempfile

FAILED = []


def check(cond, what):
    if not cond:
        FAILED.append(what)
        print("FAILED:", what)


def row(op, shape, rung, t, noise, status="ok", ref=False):
    return {"op": op, "shape": shape, "trans": "NN" if op.endswith("gemm") else "-",
            "inc": 0 if op.endswith("gemm") else 1, "rung": rung, "reference": ref,
            "m": 1, "n": 1, "k": 1, "time_us": t if status == "ok" else None,
            "min_us": t, "max_us": t, "noise": noise, "trials": 7, "noise_ok": True,
            "rate": None, "unit": "GB/s", "ratio_cublas": None, "fraction_ceiling": None,
            "correct": status == "ok", "status": status, "note": ""}


def doc(rows):
    return {"schema_version": 2, "tool": "miniblas-bench", "device": "NVIDIA H100 80GB HBM3",
            "git_commit": "abc", "timestamp": "t", "command": "x", "settings": {},
            "gpu_start": None, "gpu_end": None, "ceilings": {}, "results": rows}


def run(script, base, cur, *extra):
    with tempfile.TemporaryDirectory() as d:
        pb, pc = os.path.join(d, "base.json"), os.path.join(d, "cur.json")
        for p, rows in ((pb, base), (pc, cur)):
            with open(p, "w") as f:
                json.dump(doc(rows) if isinstance(rows, list) else rows, f)
        r = subprocess.run([sys.executable, script, pb, pc, *extra], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def verdicts(out):
    """row text -> verdict, from the table lines."""
    v = {}
    for line in out.splitlines():
        m = re.match(r"^(SAME|FAST|SLOW|FAIL|NEW|UNTIMED|-)\s+(ref)?\s+(\S+ \S+(?: NN)?(?: inc=\d+)? \S+)", line)
        if m:
            v[m.group(3)] = m.group(1)
    return v


def main():
    script = sys.argv[1]
    # noise 2% on each side, tolerance 5%: the allowance is 9%
    base = [row("sgemm", "4096x4096x4096", "auto", 1000, 0.02),
            row("sgemm", "8192x8192x8192", "auto", 8000, 0.02),
            row("dgemm", "4096x4096x4096", "auto", 2000, 0.02),
            row("sasum", "1048576", "auto", 10, 0.02),
            row("sdot", "1048576", "auto", 10, 0.02),
            row("ddot", "1048576", "auto", 20, 0.0),
            row("sgemm", "4096x4096x4096", "cublas", 900, 0.01, ref=True),
            row("dasum", "268435456", "auto", 500, 0.01)]          # missing in current
    cur = [row("sgemm", "4096x4096x4096", "auto", 1085, 0.02),     # +8.5%: inside 9% -> SAME
           row("sgemm", "8192x8192x8192", "auto", 8800, 0.02),     # +10%: outside -> SLOW
           row("dgemm", "4096x4096x4096", "auto", 1700, 0.02),     # -15% -> FAST
           row("sasum", "1048576", "auto", 10.5, 0.02),            # +5% -> SAME
           row("sdot", "1048576", "auto", 10, 0.02, status="wrong"),  # -> FAIL
           row("ddot", "1048576", "auto", 20.9, 0.0),              # +4.5%, no noise: SAME at 5%
           row("sgemm", "4096x4096x4096", "cublas", 1200, 0.01, ref=True),  # reference SLOW
           row("somatcopy", "4096x4096", "auto", 100, 0.01)]       # missing in baseline
    rc, out = run(script, base, cur)
    v = verdicts(out)
    check(v.get("sgemm 4096x4096x4096 NN auto") == "SAME", "inside the noise: SAME\n" + out)
    check(v.get("sgemm 8192x8192x8192 NN auto") == "SLOW", "outside the noise: SLOW")
    check(v.get("dgemm 4096x4096x4096 NN auto") == "FAST", "faster beyond the noise: FAST")
    check(v.get("sasum 1048576 auto") == "SAME", "small change: SAME")
    check(v.get("sdot 1048576 auto") == "FAIL", "wrong now: FAIL")
    check(v.get("ddot 1048576 auto") == "SAME", "tolerance alone: SAME")
    check(v.get("sgemm 4096x4096x4096 NN cublas") == "SLOW", "reference rows get a verdict")
    check("missing in current (1)" in out and "dasum 268435456 auto" in out, "missing in current listed")
    check("missing in baseline (1)" in out and "somatcopy 4096x4096 auto" in out, "missing in baseline listed")
    check(rc == 3, f"exit 3 on SLOW (got {rc})")

    # the same comparison with only the rows that pass: exit 0 although cuBLAS got slower
    keep = {("sgemm", "4096x4096x4096", "auto"), ("dgemm", "4096x4096x4096", "auto"),
            ("sasum", "1048576", "auto"), ("sgemm", "4096x4096x4096", "cublas")}
    b2 = [r for r in base if (r["op"], r["shape"], r["rung"]) in keep]
    c2 = [r for r in cur if (r["op"], r["shape"], r["rung"]) in keep]
    rc, out = run(script, b2, c2)
    check(rc == 0, f"no miniblas row SLOW: exit 0 (got {rc})\n" + out)
    rc, _ = run(script, b2, c2, "--strict-reference")
    check(rc == 3, "--strict-reference: a SLOW reference row fails")
    # a larger tolerance turns the SLOW row into SAME; a smaller one the SAME row into SLOW
    b3 = [base[1]]
    c3 = [cur[1]]
    rc, out = run(script, b3, c3, "--tolerance", "7")
    check(rc == 0 and verdicts(out).get("sgemm 8192x8192x8192 NN auto") == "SAME", "tolerance 7%: SAME")
    rc, out = run(script, [base[0]], [cur[0]], "--tolerance", "4")
    check(rc == 3 and verdicts(out).get("sgemm 4096x4096x4096 NN auto") == "SLOW", "tolerance 4%: SLOW")
    # identical files: all SAME, exit 0
    rc, out = run(script, base, base)
    check(rc == 0 and set(verdicts(out).values()) == {"SAME"}, "a file against itself: all SAME")
    # missing rows fail only with --fail-missing
    rc, _ = run(script, b2, b2[:-1], "--fail-missing")
    check(rc == 3, "--fail-missing: exit 3")
    # not a result file, or unreadable
    rc, out = run(script, {"x": 1}, cur)
    check(rc == 2 and "not a benchmark result file" in out, "not a result file: exit 2")
    rc = subprocess.run([sys.executable, script, "/nonexistent/a.json", "/nonexistent/b.json"],
                        capture_output=True).returncode
    check(rc == 2, "unreadable file: exit 2")
    print(f"bench_compare_test: {'FAILED ' + str(len(FAILED)) if FAILED else 'all passed'}")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
