#!/usr/bin/env python3
"""Differential test of cclc: generated programs (test/semantic/gen.py),
compiled for the host target in every form, run, and compared with the
contract the generator evaluated itself.

  semantic.py --seeds A:B [--work DIR] [--forms full|suite] [--keep DIR]
  semantic.py --minutes M [--first-seed S] ...
  semantic.py --programs FILE.ccl ...    written programs, their contract
                                         from cclc --emit=ccl (ccl.ensure)
  semantic.py ... --target sm_90 --pack DIR [--max-ranks 4]
                                         compile for a GPU and pack the
                                         libraries, contracts and runs
                                         (DIR/runs.txt) for test/hw/semantic_gpu.sh

For each seed: the program is compiled with --kernels=shared and
--kernels=per-rank, for each rank count alone and for all of them in one
library, plus the generated forms (instances=2, tiles=2) with all rank
counts; every library runs each of its rank counts with K = 8 calls back
to back, rank 1 delayed, random floats and small integers, every root of a
rooted collective (two at 8 ranks), in place too for an algorithm of both
forms. A run that is wrong, a library that does not load, a crash, a hang
or an internal compiler error is a mismatch. A program cclc rejects is a
rejection, counted against the generator's own verdict (reference_ok); a
rejection of a program the reference says is right is listed for review,
with a run of the unverified library (--no-verify) as its counterexample.
An AllReduce must give every rank the same bits (contract_run --agree).

Prints one line per mismatch and rejection and a summary; writes
DIR/summary.json. Exit 1 on any mismatch.
"""
import argparse
import collections
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import contract  # noqa: E402
import gen  # noqa: E402


def run(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or '')
        return 124, out + '\n(timed out after %d s)' % timeout


class Checker:
    def __init__(self, args):
        self.args = args
        self.cclc = args.cclc
        self.runner = args.runner
        self.stats = collections.Counter()
        self.features = collections.Counter()
        self.mismatches = []
        self.review = []

    def compile(self, d, meta, kernels, ranks, extra, no_verify=False):
        tag = '%s_%s_%s%s' % (kernels, '-'.join(map(str, ranks)),
                              extra.replace('=', ''), '_nv' if no_verify else '')
        so = os.path.join(d, 'lib_%s.so' % tag)
        cmd = [self.cclc, os.path.join(d, meta['name'] + '.ccl'),
               '--target=' + self.args.target,
               '--nranks=' + ','.join(map(str, ranks)), '--kernels=' + kernels,
               '--dtype=float32', '--max-bytes=64K', '-o', so]
        if extra != 'plain':
            cmd.append('--' + extra)
        if no_verify:
            cmd.append('--no-verify')
        rc, out = run(cmd, timeout=300)
        self.stats['compiles'] += 1
        return rc, out, so, ' '.join(cmd[1:])

    def runs(self, meta, n):
        """The contract_run argument lists for rank count n."""
        roots = [0]
        if 'rooted' in meta['features']:
            roots = list(range(n)) if n <= 4 else [1, n - 1]
        places = [[]] + ([['--inplace']] if meta['inplace'] else [])
        datas = [[], ['--ints']] if 'reduction' in meta['features'] else [[]]
        agree = ['--agree'] if meta.get('agree') else []
        out = []
        for root in roots:
            for place in places:
                for data in datas:
                    out.append(['--root', str(root)] + place + data + agree)
        return out

    def check_lib(self, d, meta, so, n):
        contract = os.path.join(d, '%s.n%d.contract' % (meta['name'], n))
        if self.args.pack:
            return self.pack(meta, so, contract, n)
        bad = []
        for i, extra in enumerate(self.runs(meta, n)):
            count = ['1', '81', '6561'][i % 3]
            cmd = [self.runner, so, meta['name'], contract, '--calls', '8',
                   '--delay', '1=1000000', '--count', count,
                   '--seed', str(meta['seed'] * 1000 + i)] + extra
            rc, out = run(cmd, timeout=30)
            self.stats['runs'] += 1
            if rc != 0:
                bad.append((' '.join(cmd[1:]), out.strip().splitlines()[-6:]))
                break
        return bad

    def pack(self, meta, so, contract, n):
        """Pack mode: the library and contract go to the pack folder and
        the runs to its runs.txt (one line each: library, algorithm,
        contract, contract_run's options); nothing runs here."""
        pack = self.args.pack
        lib = '%s.%s' % (meta['name'], os.path.basename(so))
        if not os.path.exists(os.path.join(pack, lib)):
            shutil.copy(so, os.path.join(pack, lib))
        con = os.path.basename(contract)
        shutil.copy(contract, os.path.join(pack, con))
        with open(os.path.join(pack, 'runs.txt'), 'a') as f:
            for i, extra in enumerate(self.runs(meta, n)):
                count = ['1', '81', '6561'][i % 3]
                f.write(' '.join([lib, meta['name'], con, '--calls', '8',
                                  '--delay', '1=1000000', '--count', count,
                                  '--seed', str(meta['seed'] * 1000 + i)] +
                                 extra) + '\n')
                self.stats['runs'] += 1
        return []

    def written(self, path):
        """A program written by hand (test/semantic/programs): its
        contract from the ccl.ensure operations `cclc --emit=ccl` prints."""
        src = open(path).read()
        m = re.search(r'algorithm (\w+) implements (\w+)(\([^)]*\))?', src)
        name, coll = m.group(1), m.group(2)
        d = os.path.join(self.args.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        shutil.copy(path, os.path.join(d, name + '.ccl'))
        mlir = os.path.join(d, name + '.mlir')
        rc, out = run([self.cclc, path, '--nranks=' + ','.join(map(str, gen.RANKS)),
                       '--emit=ccl', '-o', mlir])
        if rc != 0:
            self.mismatch({'name': name, 'seed': 0}, d, 'cclc --emit=ccl ' + path, out)
            return None
        contract.from_ccl(mlir, d)
        sums = any(len(l.split()) > 6 for n in gen.RANKS
                   for l in open(os.path.join(d, '%s.n%d.contract' % (name, n)))
                   if l.startswith('ensure'))
        feats = ['written'] + (['allreduce'] if coll == 'AllReduce' else [])
        if coll in ('Reduce', 'Broadcast'):
            feats.append('rooted')
        if sums:
            feats.append('reduction')
        return {'name': name, 'seed': 0, 'kind': 'written', 'collective': coll,
                'ranks': gen.RANKS, 'forms': ['plain', 'instances=2', 'tiles=2'],
                'inplace': 'inplace' in (m.group(3) or ''),
                'agree': coll == 'AllReduce', 'features': feats,
                'reference_ok': {str(n): True for n in gen.RANKS}}, d

    def program(self, seed, forms, path=None):
        if path:
            got = self.written(path)
            if not got:
                return
            meta, d = got
        else:
            d = os.path.join(self.args.work, 'g%d' % seed)
            shutil.rmtree(d, ignore_errors=True)
            p = gen.generate(seed)
            meta = gen.write(p, d)
        self.stats['generated'] += 1
        ranks = [n for n in meta['ranks'] if n <= self.args.max_ranks]
        if not ranks:
            return
        # Rejections: cclc's verdict per rank count against the reference's.
        verified = []
        for n in ranks:
            rc, out, so, cmd = self.compile(d, meta, 'shared', [n], 'plain')
            if rc == 0:
                verified.append(n)
                continue
            if 'internal compiler error' in out or rc not in (0, 1):
                self.mismatch(meta, d, 'cclc ' + cmd, out, ('shared', [n], 'plain'))
                return
            self.stats['rejected'] += 1
            first = next((l for l in out.splitlines() if 'error' in l), out[:200])
            if meta['reference_ok'][str(n)]:
                # The reference says it is right: a run of the unverified
                # library is its counterexample (or there is none).
                wrong = []
                if not self.args.pack:
                    rc2, out2, so2, _ = self.compile(d, meta, 'shared', [n], 'plain',
                                                     no_verify=True)
                    wrong = self.check_lib(d, meta, so2, n) if rc2 == 0 else []
                self.review.append({'program': meta['name'], 'nranks': n,
                                    'error': first,
                                    'unverified_run': 'wrong' if wrong else 'right'})
                self.stats['rejected_reference_ok'] += 1
            else:
                self.stats['rejected_reference_wrong'] += 1
        if not verified:
            return
        self.stats['verified'] += 1
        for f in meta['features']:
            self.features[f] += 1
        if self.asymmetric(d, meta, verified):
            self.features['ranks_run_different_programs'] += 1
        plan = []
        for kernels in ('shared', 'per-rank'):
            for n in verified:
                plan.append((kernels, [n], 'plain'))
            if len(verified) > 1:
                plan.append((kernels, verified, 'plain'))
        for extra in meta['forms'][1:]:
            plan.append(('shared', verified, extra))
            if forms == 'full':
                plan.append(('per-rank', verified, extra))
        for kernels, rs, extra in plan:
            rc, out, so, cmd = self.compile(d, meta, kernels, rs, extra)
            if rc != 0:
                self.mismatch(meta, d, 'cclc ' + cmd, out, (kernels, rs, extra))
                continue
            for n in rs:
                bad = self.check_lib(d, meta, so, n)
                self.stats['forms_run'] += 1
                self.stats['forms_wrong'] += bool(bad)
                if bad:
                    self.mismatch(meta, d, 'cclc %s; n=%d: %s' % (cmd, n, bad[0][0]),
                                  '\n'.join(bad[0][1]), (kernels, rs, extra))
        if not self.args.keep_all:
            for f in os.listdir(d):
                if f.endswith('.so'):
                    os.unlink(os.path.join(d, f))

    def asymmetric(self, d, meta, verified):
        """Whether ranks run different block programs (cclc --emit=sched
        reports the block programs per rank)."""
        n = max(verified)
        rc, out = run([self.cclc, os.path.join(d, meta['name'] + '.ccl'),
                       '--nranks=%d' % n, '--emit=sched', '-o', '-'])
        if rc != 0:
            return False
        per_rank = collections.defaultdict(set)
        rank = None
        for line in out.splitlines():
            w = line.split()
            if len(w) == 2 and w[0] == 'rank':
                rank = w[1]
            elif rank is not None and '(program' in line:
                per_rank[rank].add(line.split('(program')[1].split(')')[0])
        return len({frozenset(v) for v in per_rank.values()}) > 1

    def mismatch(self, meta, d, what, out, form=None):
        self.stats['mismatches'] += 1
        entry = {'program': meta['name'], 'seed': meta['seed'], 'what': what,
                 'output': out[-2000:]}
        self.mismatches.append(entry)
        print('MISMATCH %s: %s\n  %s' % (meta['name'], what,
                                          '\n  '.join(out.strip().splitlines()[-8:])),
              flush=True)
        if self.args.keep:
            os.makedirs(self.args.keep, exist_ok=True)
            shutil.copy(os.path.join(d, meta['name'] + '.ccl'), self.args.keep)
            if form and not self.args.pack:
                self.reduce(meta, d, form)

    def reduce(self, meta, d, form):
        """The smallest program that still fails in `form` (reduce.py),
        kept beside the failing one as NAME.reduced.ccl."""
        import reduce as reducer
        kernels, ranks, extra = form
        src = os.path.join(d, meta['name'] + '.ccl')
        out = os.path.join(self.args.keep, meta['name'] + '.reduced.ccl')
        ns = argparse.Namespace(cclc=self.cclc, runner=self.runner, kernels=kernels,
                                form=extra, cclc_flag=[], run_flag=[], match=None,
                                work=os.path.join(d, 'reduce'))
        r = reducer.Reducer(ns)
        reduced, rs, _ = r.reduce(open(src).read(), list(ranks))
        if reduced is None:
            print('  (reduce.py: the failure did not repeat in that form)', flush=True)
            return
        with open(out, 'w') as f:
            f.write(reduced)
        print('  reduced to %s (%d lines, rank counts %s, %d candidates)' % (
            out, len(reduced.splitlines()), ','.join(map(str, rs)), r.calls), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seeds', help='A:B, seeds A to B-1')
    ap.add_argument('--programs', nargs='+', help='written programs instead')
    ap.add_argument('--minutes', type=float, help='run fresh seeds this long')
    ap.add_argument('--first-seed', type=int, default=None)
    ap.add_argument('--work', default=None)
    ap.add_argument('--forms', choices=['full', 'suite'], default='full')
    ap.add_argument('--keep', help='copy failing programs here, each with its '
                    'reduction (reduce.py) NAME.reduced.ccl')
    ap.add_argument('--keep-all', action='store_true')
    ap.add_argument('--cclc', default='cclc')
    ap.add_argument('--runner', default='contract_run')
    ap.add_argument('--target', default='host',
                    help='cclc --target (a GPU target needs --pack)')
    ap.add_argument('--pack', help='pack libraries and runs here, run nothing')
    ap.add_argument('--max-ranks', type=int, default=1 << 30,
                    help='leave out rank counts above this')
    args = ap.parse_args()
    if args.target != 'host' and not args.pack:
        ap.error('--target %s needs --pack (contract_run --cuda runs the '
                 'pack: test/hw/semantic_gpu.sh)' % args.target)
    if args.pack:
        os.makedirs(args.pack, exist_ok=True)
    if not args.work:
        args.work = tempfile.mkdtemp(prefix='ccl-semantic-')
    os.makedirs(args.work, exist_ok=True)
    c = Checker(args)
    start = time.time()
    if args.programs:
        for path in args.programs:
            c.program(0, args.forms, path)
        seeds = []
    elif args.seeds:
        a, b = map(int, args.seeds.split(':'))
        seeds = range(a, b)
    else:
        first = args.first_seed if args.first_seed is not None else int(time.time())
        seeds = itertools.count(first)
    for seed in seeds:
        if args.minutes and time.time() - start > args.minutes * 60:
            break
        c.program(seed, args.forms)
    elapsed = time.time() - start
    summary = {'stats': dict(c.stats), 'features': dict(c.features),
               'review': c.review, 'mismatches': c.mismatches,
               'seconds': round(elapsed, 1)}
    with open(os.path.join(args.work, 'summary.json'), 'w') as f:
        json.dump(summary, f, indent=1)
    for r in c.review:
        print('REVIEW %s n=%d (unverified run %s): %s' %
              (r['program'], r['nranks'], r['unverified_run'], r['error']))
    s = c.stats
    print('semantic: %d generated, %d verified, %d rejections (%d the reference '
          'also rejects, %d listed for review), %d compiles, %d forms run, %d runs, '
          '%d mismatches, %.0f s' %
          (s['generated'], s['verified'], s['rejected'],
           s['rejected_reference_wrong'], s['rejected_reference_ok'], s['compiles'],
           s['forms_run'], s['runs'], s['mismatches'], elapsed))
    print('semantic: features of verified programs: ' +
          ', '.join('%s %d' % kv for kv in sorted(c.features.items())))
    # One test per form run, and one per compile or load that failed.
    print('%d passed, %d failed' % (s['forms_run'] - s['forms_wrong'],
                                    s['mismatches']))
    return 1 if s['mismatches'] else 0


if __name__ == '__main__':
    sys.exit(main())
