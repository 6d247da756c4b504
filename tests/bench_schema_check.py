#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Validates a benchmark result file (schema_version 2, docs/benchmarking.md) with Python's
json module: every header field and every row field present with its type.

    python3 tests/bench_schema_check.py RESULT.json [--synthetic]

--synthetic also checks the values written by tests/test_bench_report_cpu.c. Exit 0 valid,
1 invalid (each problem printed).
"""
import json
import math
import sys

STR, NUM, INT, BOOL, OBJ, LIST = "string", "number", "integer", "boolean", "object", "list"

HEADER = {
    "schema_version": (INT, False), "tool": (STR, False), "version": (STR, True),
    "device": (STR, True), "driver": (STR, True), "cuda_driver": (STR, True),
    "cuda_runtime": (STR, True), "cublas": (STR, True), "openblas": (STR, True),
    "git_commit": (STR, True), "timestamp": (STR, True), "command": (STR, False),
    "settings": (OBJ, False), "gpu_start": (OBJ, True), "gpu_end": (OBJ, True),
    "ceilings": (OBJ, False), "results": (LIST, False),
}
GPU = {"sm_mhz": NUM, "mem_mhz": NUM, "max_sm_mhz": NUM, "max_mem_mhz": NUM, "power_w": NUM,
       "power_limit_w": NUM, "temperature_c": NUM, "sw_power_cap": BOOL,
       "clock_event_reasons": STR}
CEILINGS = ("copy_gbs", "read_gbs", "fp32_peak_gflops", "fp64_peak_gflops")
ROW = {
    "op": (STR, False), "shape": (STR, False), "trans": (STR, False), "inc": (INT, False),
    "rung": (STR, False), "reference": (BOOL, False), "m": (INT, False), "n": (INT, False),
    "k": (INT, False), "time_us": (NUM, True), "min_us": (NUM, True), "max_us": (NUM, True),
    "noise": (NUM, True), "trials": (INT, False), "noise_ok": (BOOL, False), "rate": (NUM, True),
    "unit": (STR, False), "ratio_cublas": (NUM, True), "fraction_ceiling": (NUM, True),
    "correct": (BOOL, True), "status": (STR, False), "note": (STR, False),
}
# added within schema version 2 (absent in older files): the cblas bench's GPUs and host memory
ROW_ADDED = {"devices": STR, "memory": STR}
MEMORY = {"pageable", "pinned"}
STATUSES = {"ok", "wrong", "skipped", "unsupported", "error"}


def is_type(v, t):
    if t == STR:
        return isinstance(v, str)
    if t == INT:
        return isinstance(v, int) and not isinstance(v, bool)
    if t == NUM:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
    if t == BOOL:
        return isinstance(v, bool)
    if t == OBJ:
        return isinstance(v, dict)
    return isinstance(v, list)


def validate(doc):
    errs = []
    if not isinstance(doc, dict):
        return ["the document is not an object"]
    for k, (t, nullable) in HEADER.items():
        if k not in doc:
            errs.append(f"header: missing {k}")
        elif not (is_type(doc[k], t) or (nullable and doc[k] is None)):
            errs.append(f"header: {k} is not a {t}: {doc[k]!r}")
    if doc.get("schema_version") != 2:
        errs.append(f"schema_version {doc.get('schema_version')!r} != 2")
    for g in ("gpu_start", "gpu_end"):
        if isinstance(doc.get(g), dict):
            for k, t in GPU.items():
                if k not in doc[g]:
                    errs.append(f"{g}: missing {k}")
                elif doc[g][k] is not None and not is_type(doc[g][k], t):
                    errs.append(f"{g}: {k} is not a {t}")
    for k in CEILINGS:
        v = doc.get("ceilings", {}).get(k, "missing")
        if v is not None and not is_type(v, NUM):
            errs.append(f"ceilings: {k} is {v!r}")
    for i, r in enumerate(doc.get("results") or []):
        for k, (t, nullable) in ROW.items():
            if k not in r:
                errs.append(f"row {i}: missing {k}")
            elif not (is_type(r[k], t) or (nullable and r[k] is None)):
                errs.append(f"row {i}: {k} is not a {t}: {r[k]!r}")
        for k, t in ROW_ADDED.items():
            if r.get(k) is not None and not is_type(r[k], t):
                errs.append(f"row {i}: {k} is not a {t}: {r[k]!r}")
        if doc.get("tool") == "miniblas-cblas-bench":
            if r.get("memory") not in MEMORY:
                errs.append(f"row {i}: memory {r.get('memory')!r} is not pageable or pinned")
            d = r.get("devices")
            if d is not None and not (isinstance(d, str) and d and
                                      all(x.isdigit() for x in d.split(","))):
                errs.append(f"row {i}: devices {d!r} is not a list of device numbers")
        if r.get("status") not in STATUSES:
            errs.append(f"row {i}: status {r.get('status')!r}")
        if r.get("status") == "ok":
            for k in ("time_us", "min_us", "max_us"):
                if r.get(k) is None:
                    errs.append(f"row {i}: status ok but {k} is null")
            if None not in (r.get("min_us"), r.get("time_us"), r.get("max_us")) and \
                    not r["min_us"] <= r["time_us"] <= r["max_us"]:
                errs.append(f"row {i}: not min <= median <= max")
            if r.get("trials", 0) < 1:
                errs.append(f"row {i}: status ok with {r.get('trials')} trials")
    return errs


def synthetic(doc):
    """The values tests/test_bench_report_cpu.c wrote."""
    errs = []
    want_dev = "NVIDIA \"H200\" \\ tab\there\nnewline \x01 caf\u00e9, {x}"
    checks = [
        (doc["device"] == want_dev, "device string round trip"),
        (doc["openblas"] is None, "openblas null"),
        (doc["gpu_end"] is None, "gpu_end null"),
        (doc["gpu_start"]["sm_mhz"] == 1980 and doc["gpu_start"]["sw_power_cap"] is False, "gpu_start"),
        (doc["gpu_start"]["temperature_c"] is None, "unknown temperature null"),
        (doc["settings"] == {"trials": 7, "max_noise_pct": 1, "MINIBLAS_SGEMM": "na\"ive"}, "settings"),
        (doc["ceilings"]["fp64_peak_gflops"] is None and doc["ceilings"]["copy_gbs"] == 4274.5, "ceilings"),
        (len(doc["results"]) == 3, "three rows"),
    ]
    if len(doc["results"]) == 3:
        a, b, c = doc["results"]
        checks += [
            (a["reference"] is True and a["rung"] == "cublas" and a["noise"] == 0.004, "row 0"),
            (b["noise_ok"] is False and b["trials"] == 30 and b["time_us"] == 2800.5, "row 1"),
            (b["note"] == "note with, comma | pipe and \"quotes\"", "row 1 note"),
            (c["status"] == "wrong" and c["correct"] is False and c["time_us"] is None, "row 2"),
            (c["inc"] == 1 and c["m"] == 268435456, "row 2 sizes"),
        ]
    for ok, what in checks:
        if not ok:
            errs.append("synthetic: " + what)
    return errs


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 1:
        print(__doc__)
        return 2
    try:
        with open(args[0], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{args[0]}: {e}")
        return 1
    errs = validate(doc)
    if not errs and "--synthetic" in sys.argv:
        errs = synthetic(doc)
    for e in errs:
        print(e)
    print(f"{args[0]}: {'valid' if not errs else f'{len(errs)} problem(s)'}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
