#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The main loop of an FP64 tensor-core gemm kernel, read from its SASS.

    cuobjdump -sass build/CMakeFiles/miniblas_objects.dir/kernels/gemm/12_dmma.cu.o > ours.sass
    python3 perf/sass_loop.py ours.sass 'Li3ELb1ELb0EELi0ELb0ELb1ELb0E'
    python3 perf/sass_loop.py --min-dmma 16 cublas.sass     # a loop of one 16-DMMA k-tile

For each function whose name contains the given text (all functions without it), the smallest
loop (a backward branch and its target) that holds at least 32 DMMA (--min-dmma N: at least N;
the mid, small and tiny tiles' k-tiles, or loops not unrolled, hold 16): its instructions by kind
and, for every shared-memory load in it, how many DMMA were issued between the last DMMA that
reads the load's destination register (an A or B fragment) and the load. A load right behind
the DMMA that still reads its register (0 between) waits until that DMMA has read it; the
scheduler is free to issue it anywhere once one DMMA lies between.

Then, from each instruction's control bits (cuobjdump prints them in the upper word of its
encoding), how the loop waits: the scoreboards its DMMA results and its shared loads are
tracked on, the counted waits (DEPBAR.LE SBn, N: until at most N of the instructions on that
scoreboard are outstanding, which works because DMMA complete in order), the loads that wait
for the operand read of the DMMA right before them, and the waits that include the results
of DMMA the waiting instruction does not read (a scoreboard shared by DMMA and loads makes a
load's consumer wait for the tensor pipe too).
"""
import re
import sys


def instructions(body, control=False):
    """(address, text) of each instruction; with control, (address, text, control bits) read
    from the upper 23 bits of its 128-bit encoding (the second hex word cuobjdump prints):
    stall cycles, the scoreboard set when its result is written (wb) and when its sources
    have been read (rb), 7 for none, and the mask of scoreboards it waits on."""
    out = []
    lines = body.split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if not m:
            continue
        if not control:
            out.append((int(m.group(1), 16), m.group(2)))
            continue
        hi = re.search(r'/\* (0x[0-9a-f]+) \*/', lines[i + 1])
        c = int(hi.group(1), 16) >> 41 if hi else 0
        out.append((int(m.group(1), 16), m.group(2),
                    {'stall': c & 15, 'wb': c >> 5 & 7, 'rb': c >> 8 & 7, 'wait': c >> 11 & 63}))
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


def report(name, ins, min_mma=32):
    loop = inner_loop(ins, min_mma)
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


def scoreboards(ins, min_mma=32):
    """How the loop's instructions wait on the DMMA, from the control bits: the loop run twice
    through a model of the six scoreboards (each counts the instructions that set it and are
    not done; a wait mask waits for zero, DEPBAR.LE SBn, N for at most N), counted on the
    second pass."""
    loop = inner_loop([(a, t) for a, t, _ in ins], min_mma)
    if loop is None:
        return
    body = [(t, c) for _, t, c in ins[loop[0]:loop[1] + 1]]
    pend = [[] for _ in range(6)]  # per scoreboard: (kind, registers, DMMA issued before it)
    sb_of = {'DMMA': set(), 'LDS': set()}
    counted = war0 = extra = extra_dmma = 0
    for rnd in (0, 1):
        ndmma = 0
        for t, c in body:
            op = t.split()[0]
            kind = op.split('.')[0]
            args = [x.strip() for x in t.split(None, 1)[1].split(',')] if ' ' in t else []
            srcs = regs(args[1], 8) | regs(args[2], 4) if kind == 'DMMA' else set()
            acc = regs(args[3], 8) if kind == 'DMMA' else set()
            dest = regs(args[0], 2 if '.64' in op else 4 if '.128' in op else 1) \
                if kind == 'LDS' else acc
            m = re.match(r'DEPBAR\.LE SB(\d), (0x[0-9a-f]+)', t)
            if m:
                sb, n = int(m.group(1)), int(m.group(2), 16)
                counted += rnd and sb != 0
                pend[sb] = pend[sb][len(pend[sb]) - n:] if n else []
            for sb in range(6):
                if not c['wait'] >> sb & 1:
                    continue
                if rnd:
                    # a load waiting for the operand read of the DMMA right before it
                    war0 += kind == 'LDS' and any(k == 'DMMA-read' and r & dest and n == ndmma
                                                  for k, r, n in pend[sb])
                    # results of DMMA this instruction does not read
                    other = sum(k == 'DMMA' and not r & acc for k, r, _ in pend[sb])
                    extra += other > 0
                    extra_dmma += other
                pend[sb] = []
            if kind == 'DMMA':
                ndmma += 1
                if c['rb'] != 7:
                    pend[c['rb']].append(('DMMA-read', srcs, ndmma))
            if c['wb'] != 7:
                pend[c['wb']].append((kind, dest, ndmma))
                if kind in sb_of:
                    sb_of[kind].add(c['wb'])
    print('  scoreboards: DMMA results on SB%s, shared-load results on SB%s; %d counted waits '
          '(DEPBAR.LE) on SB1-SB5;\n  %d loads wait for the operand read of the DMMA right '
          'before them; %d waits include the results of %d DMMA the waiting instruction does '
          'not read' % (','.join(map(str, sorted(sb_of['DMMA']))),
                        ','.join(map(str, sorted(sb_of['LDS']))), counted, war0, extra,
                        extra_dmma))


def main():
    args = sys.argv[1:]
    min_mma = 32
    if args[:1] == ['--min-dmma'] and len(args) > 1 and args[1].isdigit() and int(args[1]) > 0:
        min_mma, args = int(args[1]), args[2:]
    if not args or args[0].startswith('-'):
        sys.exit(__doc__)
    text = open(args[0]).read()
    want = args[1] if len(args) > 1 else ''
    for part in text.split('Function : ')[1:]:
        name = part.split('\n')[0].strip()
        if want in name:
            report(name, instructions(part), min_mma)
            scoreboards(instructions(part, True), min_mma)


if __name__ == '__main__':
    main()
