#!/usr/bin/env python3
"""Contracts for test/semantic/contract_run.cc.

From the ccl.ensure operations `cclc --emit=ccl` prints (the collective's
contract as the front end evaluated it, independent of the back end under
test):

  contract.py from-ccl FILE.mlir OUTDIR    writes OUTDIR/<algo>.n<N>.contract
                                           for every ccl.algorithm in FILE
"""
import os
import re
import sys

ALGO = re.compile(r'ccl\.algorithm @(\w+)_n(\d+) attributes \{(.*)\}')
ENSURE = re.compile(r'ccl\.ensure <"output"\[(\d+)\] \[(\d+) : (\d+)\]> = \[(.*)\]')
TERM = re.compile(r'#ccl\.chunk<"input"\[(\d+)\] \[(\d+) : (\d+)\]>')


def attr(attrs, name, default=None):
    m = re.search(r'\b%s = (-?\d+)' % name, attrs)
    return m.group(1) if m else default


def collective_of(attrs):
    m = re.search(r'custom_collective = "(\w+)"', attrs)
    if m:
        return m.group(1)
    m = re.search(r'collective = #ccl\.collective<(\w+)>', attrs)
    return m.group(1)


def write(outdir, algo):
    name, n, attrs, ensures = algo
    chunks = int(attr(attrs, 'chunks'))
    inc = int(attr(attrs, 'input_chunks', chunks))
    outc = int(attr(attrs, 'output_chunks', chunks))
    root = int(attr(attrs, 'root', 0))
    path = os.path.join(outdir, '%s.n%d.contract' % (name, n))
    with open(path, 'w') as f:
        f.write('collective %s\nnranks %d\nchunks %d %d\nplan_root %d\n' %
                (collective_of(attrs), n, inc, outc, root))
        for line in ensures:
            f.write(line + '\n')


def from_ccl(path, outdir):
    algo = None
    algos = []
    for line in open(path):
        m = ALGO.search(line)
        if m:
            algo = (m.group(1), int(m.group(2)), m.group(3), [])
            algos.append(algo)
            continue
        m = ENSURE.search(line)
        if m and algo:
            r, c, k = int(m.group(1)), int(m.group(2)), int(m.group(3))
            terms = [(int(t[0]), int(t[1]), int(t[2]))
                     for t in TERM.findall(m.group(4))]
            if any(t[2] != k for t in terms) or len(terms) != len(TERM.findall(m.group(4))) \
                    or m.group(4).count('#ccl.chunk') != len(terms):
                sys.exit('contract.py: cannot read ' + line.strip())
            for i in range(k):
                algo[3].append('ensure %d %d = %s' % (
                    r, c + i, ' '.join('%d %d' % (p, d + i) for p, d, _ in terms)))
    os.makedirs(outdir, exist_ok=True)
    for a in algos:
        write(outdir, a)
    if not algos:
        sys.exit('contract.py: no ccl.algorithm in ' + path)


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'from-ccl':
        from_ccl(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
