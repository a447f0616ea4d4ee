#!/usr/bin/env python3
"""Reduces a program that cclc miscompiles to a small one that still fails.

  reduce.py PROGRAM.ccl --nranks 2,3 [--kernels shared|per-rank]
            [--form plain|instances=2|tiles=2] [--cclc-flag FLAG ...]
            [--run-flag FLAG ...] [--match REGEX] [--out REDUCED.ccl]
            [--cclc cclc] [--runner contract_run] [--work DIR]

The failure is the one semantic.py calls a mismatch, in the form given
(the kernel form, the rank counts compiled into one library, the extra
form): an internal compiler error or crash of cclc ("ice"), or a library
cclc wrote whose run is wrong, fails or hangs ("wrong": contract_run, K = 8
calls back to back, rank 1 delayed, each rank count of the library, random
floats and small integers, every root of a rooted collective). A program
cclc rejects (a diagnostic, exit 1) does not fail: a reduction never trades
the miscompile for a program the verifier refuses. The contract of every
candidate comes from its own `collective` declaration (cclc --emit=ccl, as
for the written programs of semantic.py), so the program and what it
promises shrink together.

Steps, each repeated until nothing changes: drop comments and blank
lines; drop whole `{ ... }` blocks (outermost first); drop runs of lines
(halving their length down to one line); shrink integer literals (to 0, 1,
2 and half); drop rank counts from the library. Each step keeps a change
only if the candidate fails the same way (the same kind and, with --match,
output matching REGEX). Writes the result to --out (default
PROGRAM.reduced.ccl) and prints it, with the cclc command that shows the
failure. Exit 0 when a failing program was written, 2 when PROGRAM does
not fail as given.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import contract  # noqa: E402
from semantic import run  # noqa: E402


class Reducer:
    def __init__(self, args):
        self.args = args
        self.calls = 0
        self.work = args.work or tempfile.mkdtemp(prefix='cclc-reduce.')
        os.makedirs(self.work, exist_ok=True)

    def name(self, src):
        m = re.search(r'algorithm\s+(\w+)\s+implements', src)
        return m.group(1) if m else None

    def outcome(self, src, ranks):
        """('ice' | 'wrong' | 'ok' | 'rejected', output)."""
        self.calls += 1
        name = self.name(src)
        if not name:
            return 'rejected', 'no algorithm'
        d = os.path.join(self.work, 'c%d' % self.calls)
        os.makedirs(d)
        path = os.path.join(d, name + '.ccl')
        with open(path, 'w') as f:
            f.write(src)
        a = self.args
        so = os.path.join(d, 'lib.so')
        cmd = [a.cclc, path, '--target=host', '--nranks=' + ','.join(map(str, ranks)),
               '--kernels=' + a.kernels, '--dtype=float32', '--max-bytes=64K', '-o', so]
        if a.form != 'plain':
            cmd.append('--' + a.form)
        cmd += a.cclc_flag
        rc, out = run(cmd, timeout=300)
        try:
            if 'internal compiler error' in out or rc not in (0, 1):
                return 'ice', out
            if rc != 0:
                return 'rejected', out
            # The contract from the program's own declaration.
            mlir = os.path.join(d, name + '.mlir')
            rc, cout = run([a.cclc, path, '--nranks=' + ','.join(map(str, ranks)),
                            '--emit=ccl', '-o', mlir])
            if rc != 0:
                return 'rejected', cout
            contract.from_ccl(mlir, d)
            for n in ranks:
                con = os.path.join(d, '%s.n%d.contract' % (name, n))
                coll = open(con).readline().split()[1]
                roots = list(range(n)) if coll in ('Reduce', 'Broadcast') else [0]
                for root in roots:
                    for i, data in enumerate(([], ['--ints'])):
                        rcmd = [a.runner, so, name, con, '--calls', '8', '--delay',
                                '1=1000000', '--count', ('81', '6561')[i],
                                '--seed', str(self.calls), '--root', str(root)]
                        rcmd += data + a.run_flag
                        rc, rout = run(rcmd, timeout=60)
                        if rc != 0:
                            return 'wrong', 'n=%d: %s\n%s' % (n, ' '.join(rcmd[1:]), rout)
            return 'ok', ''
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def fails(self, src, ranks):
        kind, out = self.outcome(src, ranks)
        if kind != self.kind:
            return False
        return not self.args.match or re.search(self.args.match, out) is not None

    # The steps: each returns a smaller candidate list to try, in order.
    @staticmethod
    def strip_comments(lines):
        out = [re.sub(r'\s*//.*$', '', l) for l in lines]
        return [l for l in out if l.strip()]

    @staticmethod
    def blocks(lines):
        """(start, end) of every `{ ... }` block spanning whole lines,
        outermost first."""
        spans, stack = [], []
        for i, l in enumerate(lines):
            for ch in l:
                if ch == '{':
                    stack.append(i)
                elif ch == '}' and stack:
                    s = stack.pop()
                    if s != i:
                        spans.append((s, i, len(stack)))
        return [(s, e) for s, e, _ in sorted(spans, key=lambda t: (t[2], t[0]))]

    def reduce_lines(self, lines, ranks):
        changed = True
        while changed:
            changed = False
            for s, e in self.blocks(lines):
                cand = lines[:s] + lines[e + 1:]
                if self.fails('\n'.join(cand) + '\n', ranks):
                    lines, changed = cand, True
                    break
        k = max(1, len(lines) // 2)
        while k >= 1:
            i, progress = 0, False
            while i < len(lines):
                cand = lines[:i] + lines[i + k:]
                if cand and self.fails('\n'.join(cand) + '\n', ranks):
                    lines, progress = cand, True
                else:
                    i += k
            if not progress:
                k //= 2
        return lines

    def shrink_ints(self, lines, ranks):
        changed = True
        while changed:
            changed = False
            for i, l in enumerate(lines):
                for m in re.finditer(r'\b\d+\b', l):
                    v = int(m.group())
                    for w in sorted({0, 1, 2, v // 2}):
                        if w >= v:
                            continue
                        cand = list(lines)
                        cand[i] = l[:m.start()] + str(w) + l[m.end():]
                        if self.fails('\n'.join(cand) + '\n', ranks):
                            lines, changed = cand, True
                            break
                    if changed:
                        break
                if changed:
                    break
        return lines

    def shrink_ranks(self, lines, ranks):
        src = '\n'.join(lines) + '\n'
        for size in range(1, len(ranks)):
            for i in range(len(ranks) - size + 1):
                cand = ranks[i:i + size]
                if self.fails(src, cand):
                    return cand
        return ranks

    def reduce(self, src, ranks):
        self.kind, out = self.outcome(src, ranks)
        if self.kind not in ('ice', 'wrong') or not self.fails(src, ranks):
            return None, ranks, out
        lines = src.splitlines()
        cand = self.strip_comments(lines)
        if self.fails('\n'.join(cand) + '\n', ranks):
            lines = cand
        while True:
            before = (list(lines), list(ranks))
            ranks = self.shrink_ranks(lines, ranks)
            lines = self.reduce_lines(lines, ranks)
            lines = self.shrink_ints(lines, ranks)
            if (lines, ranks) == before:
                break
        return '\n'.join(lines) + '\n', ranks, ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('program')
    ap.add_argument('--nranks', required=True, help='the library\'s rank counts: 2,3,...')
    ap.add_argument('--kernels', default='shared', choices=['shared', 'per-rank'])
    ap.add_argument('--form', default='plain', help='plain, instances=2 or tiles=2')
    ap.add_argument('--cclc-flag', action='append', default=[])
    ap.add_argument('--run-flag', action='append', default=[])
    ap.add_argument('--match', help='the failing output must match this')
    ap.add_argument('--out')
    ap.add_argument('--cclc', default='cclc')
    ap.add_argument('--runner', default='contract_run')
    ap.add_argument('--work')
    args = ap.parse_args()
    ranks = [int(x) for x in args.nranks.split(',')]
    src = open(args.program).read()
    r = Reducer(args)
    reduced, ranks, why = r.reduce(src, ranks)
    if reduced is None:
        print('reduce: %s does not fail in this form (%s)\n%s' % (
            args.program, r.kind, why[-1500:]))
        return 2
    out = args.out or re.sub(r'\.ccl$', '', args.program) + '.reduced.ccl'
    with open(out, 'w') as f:
        f.write(reduced)
    print(reduced, end='')
    print('reduce: %d lines -> %d, rank counts %s, %d candidates tried; fails (%s) with:\n'
          '  cclc %s --target=host --nranks=%s --kernels=%s%s %s' % (
              len(src.splitlines()), len(reduced.splitlines()),
              ','.join(map(str, ranks)), r.calls, r.kind, out,
              ','.join(map(str, ranks)), args.kernels,
              '' if args.form == 'plain' else ' --' + args.form,
              ' '.join(args.cclc_flag)))
    if not args.work:
        shutil.rmtree(r.work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
