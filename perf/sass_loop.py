#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The main loop of an FP64 tensor-core gemm kernel, read from its SASS.

    cuobjdump -sass build/CMakeFiles/miniblas_objects.dir/kernels/gemm/12_dmma.cu.o > ours.sass
    python3 perf/sass_loop.py ours.sass 'Li3ELb1ELb0EELi0ELb0ELb1ELb0E'

For each function whose name contains the given text (all functions without it), the smallest
loop (a backward branch and its target) that holds at least 32 DMMA: its instructions by kind
and, for every shared-memory load in it, how many DMMA were issued between the last DMMA that
reads the load's destination register (an A or B fragment) and the load. A load right behind
the DMMA that still reads its register (0 between) waits until that DMMA has read it; the
scheduler is free to issue it anywhere once one DMMA lies between.
"""
import re
import sys


def instructions(body):
    out = []
    for line in body.split('\n'):
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return out


def inner_loop(ins, min_mma=32):
    at = {a: i for i, (a, _) in enumerate(ins)}
    best = None
    for i, (a, text) in enumerate(ins):
        m = re.search(r'BRA (0x[0-9a-f]+)', text)
        if not m or int(m.group(1), 16) >= a or int(m.group(1), 16) not in at:
            continue
        s = at[int(m.group(1), 16)]
        if sum(t.startswith('DMMA') for _, t in ins[s:i + 1]) >= min_mma and \
                (best is None or i - s < best[1] - best[0]):
            best = (s, i)
    return best


def regs(operand, width):
    m = re.search(r'\bR(\d+)', operand)
    return set(range(int(m.group(1)), int(m.group(1)) + width)) if m else set()


def report(name, ins):
    loop = inner_loop(ins)
    if loop is None:
        return
    body = [t for _, t in ins[loop[0]:loop[1] + 1]]
    # fillers: never-executed uniform adds and NOPs that space the issue
    real = [t for t in body if not t.startswith('@!UPT') and t != 'NOP']
    count = {k: sum(t.split()[0].split('.')[0].lstrip('@!P0123456789 ') == k for t in real)
             for k in ('DMMA', 'LDS', 'LDGSTS', 'BAR', 'DEPBAR', 'LDL', 'STL')}
    gaps = [0] * 6
    for i, t in enumerate(real):
        if not t.startswith('LDS'):
            continue
        op, rest = t.split(None, 1)
        width = 4 if '.128' in op else 2 if '.64' in op else 1
        dest = regs(rest.split(',')[0], width)
        between = 0
        for u in reversed(real[max(0, i - 80):i]):
            if not u.startswith('DMMA'):
                continue
            d, a, b, c = [x.strip() for x in u.split(None, 1)[1].split(',')]
            if dest & (regs(a, 8) | regs(b, 4)):
                gaps[min(between, 5)] += 1
                break
            between += 1
    print(name)
    print('  loop: %d instructions (%d without fillers), %s' %
          (len(body), len(real), ', '.join('%s %d' % kv for kv in count.items())))
    print('  shared loads by DMMA between them and the last DMMA reading their register '
          '(0, 1, 2, 3, 4, 5+): %s' % ', '.join(map(str, gaps)))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    text = open(sys.argv[1]).read()
    want = sys.argv[2] if len(sys.argv) > 2 else ''
    for part in text.split('Function : ')[1:]:
        name = part.split('\n')[0].strip()
        if want in name:
            report(name, instructions(part))


if __name__ == '__main__':
    main()
