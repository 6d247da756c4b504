# SPDX-License-Identifier: BSD-3-Clause
"""Registers and shared memory per rung for perf/ladder_tables.py: the ptxas -v build log
(perf/results/ptxas-ARCH.log), dynamic shared memory from the tile configuration, bank
conflicts (perf/results/GPU/conflicts.txt), and the <!-- resources:FAMILY:ARCH --> block."""
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
    if name.startswith("void sk_dmma_kernel<"):  # 13_streamk_dmma.cu
        return "gemm", "streamk_dmma", "double"
    if name.startswith("void tma_dmma_kernel<"):  # 14_tma_dmma.cu
        return "gemm", "tma_dmma", "double"
    if name.startswith("void wg_tf32x3_kernel<"):
        return "gemm", "wgmma_tf32x3", "float"
    if name.startswith("void tma_tf32x3_kernel<"):
        return "gemm", "tma_tf32x3", "float"
    if name.startswith("void pingpong_tf32x3_kernel<"):  # builds before rung 17
        return "gemm", "pingpong_tf32x3", "float"
    m = re.match(r"void pingpong_kernel<(true|false),", name)  # pingpong.cuh: <FAST, AKC, BKC, ..>
    if m:
        return "gemm", "fastsplit_tf32x3" if m.group(1) == "true" else "pingpong_tf32x3", "float"
    if name.startswith("void promote_kernel<"):  # promote.cuh: <AKC, BKC, SPLIT, CHECK>
        return "gemm", "promote4_tf32x3", "float"
    return None


def tc_cfg_smem(es, bm, bn, bk, st, akc, bkc, split, swz=False):
    """tc_config.cuh: tc_cfg::smem_bytes (pads: MN 8 floats / 4 doubles, K 4; none with SWZ)."""
    pad_mn = 0 if swz else 8 if es == 4 else 4
    pad_k = 0 if swz else 4
    ld_am, ld_bn, ld_k = bm + pad_mn, bn + pad_mn, bk + pad_k
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
    # tc_cfg<T, BM, BN, BK, WM, WN, STAGES, MINB[, DK, PIPE, LEAN[, SWZ]]>, OP, AKC, BKC[, SPLIT]
    cfg = (r"tc_cfg<\w+, (\d+), (\d+), (\d+), (\d+), (\d+), (\d+), (\d+)"
           r"(?:, \d+, \d+, (?:true|false)(?:, (?P<swz>true|false))?)?>")
    m = re.match(r"void tc_gemm_kernel<" + cfg + r", (?P<op>\d), (?P<akc>true|false), "
                 r"(?P<bkc>true|false)", name)
    if m:
        bm, bn, bk, wm, wn, st, minb = [int(x) for x in m.groups()[:7]]
        return tc_cfg_smem(es, bm, bn, bk, st, m.group("akc") == "true", m.group("bkc") == "true",
                           m.group("op") == "2", m.group("swz") == "true")
    m = re.match(r"void sk_dmma_kernel<" + cfg + r", (?P<akc>true|false), (?P<bkc>true|false)",
                 name)
    if m:  # 13_streamk_dmma.cu: tc_cfg::smem_bytes of rung 12's big tile
        bm, bn, bk, wm, wn, st, minb = [int(x) for x in m.groups()[:7]]
        return tc_cfg_smem(es, bm, bn, bk, st, m.group("akc") == "true", m.group("bkc") == "true",
                           False)
    m = re.match(r"void tma_dmma_kernel<(true|false), (true|false)>", name)
    if m:  # 14_tma_dmma.cu td_smem_bytes: rung 12's big-tile stages, 3 of them when A is
        # K-contiguous (transposed), else 4, then a full and an empty mbarrier per stage
        akc, bkc = m.group(1) == "true", m.group(2) == "true"
        st = 3 if akc else 4
        return tc_cfg_smem(8, 128, 64, 16, st, akc, bkc, False) + 2 * st * 8
    m = re.match(r"void (wg|tma|pingpong|promote)(?:_tf32x3_kernel<|_kernel<(?:true|false), |_kernel<)"
                 r"(true|false), (true|false)", name)
    if m:  # wg_tf32x3.cuh wg_smem_bytes: 4 B planes (128 x 32 floats), then wg_cfg's stages;
        # tma_ring.cuh tm_smem_bytes (rungs 15 to 18) adds a full and an empty mbarrier per stage
        return 4 * 128 * 32 * 4 + tc_cfg_smem(4, 128, 128, 32, 4, m.group(2) == "true",
                                              m.group(3) == "true", False) + \
            (2 * 4 * 8 if m.group(1) != "wg" else 0)
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
