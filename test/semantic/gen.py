#!/usr/bin/env python3
"""Random .ccl programs whose ranks run different code, with their contract.

A program is drawn from a seed: a collective (a permutation or a reduction
of its own, declared with `collective`, or the built-in Reduce, Broadcast,
AllGather), routes for its chunks that differ by rank (direct, relayed
through a third rank's scratch, two relays, reduction chains of several
lengths, partial sums resting in scratch or in outputs), chunk ranges,
placed and unplaced operations, LL or Simple, and the forms it is compiled
in (instances, tiles). The generator evaluates the contract itself (Python,
from the same formulas the program is written with, never from cclc), so a
run is compared with what the program promises, not with what the compiler
made of it.

  gen.py SEED OUTDIR     writes OUTDIR/g<SEED>.ccl, OUTDIR/g<SEED>.json
                         (name, collective, rank counts, forms, features)
                         and OUTDIR/g<SEED>.n<N>.contract per rank count
"""
import json
import os
import random
import sys

RANKS = [2, 3, 4, 8]


class Prog:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.name = 'g%d' % seed
        self.features = set()
        self.lines = []
        # What each generator sets: the source lines, the collective, the
        # chunk factor, whether it is of both forms, the output's chunks
        # per rank count, the ensured chunks per rank count as (rank,
        # chunk, [(input rank, input chunk), ...]), and the generator's own
        # verdict per rank count.
        self.collective = None
        self.chunks = 1
        self.inplace = False
        self.out_chunks = lambda n: self.chunks
        self.in_chunks = lambda n: self.chunks
        self.ensures = lambda n: []
        self.reference_ok = lambda n: True
        # AllReduce: every rank must get the same bits (semantics.md).
        self.agree = False
        # Rooted collectives: the root the algorithm is written for, per
        # rank count (its `root =` argument; the contract's plan_root).
        self.plan_root = lambda n: 0

    def contract(self, n):
        """The contract file of test/semantic/contract_run.cc."""
        out = ['collective %s' % self.collective, 'nranks %d' % n,
               'chunks %d %d' % (self.in_chunks(n), self.out_chunks(n)),
               'plan_root %d' % self.plan_root(n)]
        for r, c, terms in self.ensures(n):
            out.append('ensure %d %d = %s' % (
                r, c, ' '.join('%d %d' % t for t in terms)))
        return out

    def pick(self, *xs):
        return self.rng.choice(xs)

    def chance(self, p):
        return self.rng.random() < p


def gen_perm(p):
    """A custom permutation: output[(r + A) % n][(c + B) % K] = input[r][c]
    (or a two-piece map where odd ranks shift further), routed per chunk
    directly or through one or two relays, chosen by a rank formula."""
    K = p.pick(1, 2, 3, 4)
    A = p.pick(1, 2, 3)
    # A rotation of the chunks moves them between chunks of other sizes
    # (unless count is a multiple of K): a program cclc must reject.
    B = p.rng.randrange(K) if p.chance(0.15) else 0
    B2 = p.pick(B, p.rng.randrange(K)) if p.chance(0.15) else B
    ll = p.chance(0.35)
    use_ranges = K >= 2 and B == 0 and B2 == 0 and not ll and p.chance(0.5)
    relay_off1 = p.pick(1, 2, 3)
    relay_off2 = p.pick(1, 2)
    kind_mod = p.pick(2, 3)
    kind_c = p.pick(0, 1)
    placed = p.chance(0.4)
    p.features.update(['custom', 'permutation', 'LL' if ll else 'Simple'])
    if B2 != B:
        p.features.add('rank_asymmetric_contract')

    def rot(r):
        return B2 if r % 2 == 1 else B

    src = []
    src.append('collective Perm%d input(chunks) output(chunks) {' % p.seed)
    src.append('  for r in ranks {')
    src.append('    let b = %d;' % B)
    if B2 != B:
        src.append('    if r %% 2 == 1 { b = %d; }' % B2)
    src.append('    for c in 0..chunks {')
    src.append('      ensure output[(r + %d) %% nranks][(c + b) %% chunks] == input[r][c];' % A)
    src.append('    }')
    src.append('  }')
    src.append('}')
    src.append('')
    proto = ' protocol(LL)' if ll else ''
    src.append('algorithm %s implements Perm%d chunks(%d)%s {' %
               (p.name, p.seed, K, proto))
    if not ll:
        src.append('  scratch hop[nranks * chunks];')
        src.append('  scratch hop2[nranks * chunks];')
    src.append('  for r in ranks {')
    src.append('    let d = (r + %d) %% nranks;' % A)
    src.append('    let b = %d;' % B)
    if B2 != B:
        src.append('    if r %% 2 == 1 { b = %d; }' % B2)
    tb = lambda e: (', tb = %s' % e) if placed else ''
    p.features.add('placed' if placed else 'unplaced')
    if use_ranges:
        p.features.add('ranges')
        half = K // 2
        src.append('    input[r][0..%d].copy(output[d][0..%d]%s);' %
                   (half, half, tb('0')))
        src.append('    for c in %d..chunks {' % half)
    else:
        src.append('    for c in 0..chunks {')
    src.append('      let o = (c + b) % chunks;')
    if ll:
        src.append('      input[r][c].copy(output[d][o]%s);' % tb('c % 2'))
    else:
        src.append('      let kind = (r + c * %d) %% %d;' % (kind_c, kind_mod))
        src.append('      let v = (r + %d) %% nranks;' % relay_off1)
        src.append('      let w = (v + %d) %% nranks;' % relay_off2)
        src.append('      let slot = r * chunks + c;')
        src.append('      if kind == 0 {')
        src.append('        input[r][c].copy(output[d][o]%s);' % tb('c % 2'))
        src.append('      } else if kind == 1 {')
        src.append('        input[r][c].copy(hop[v][slot]).copy(output[d][o]%s);'
                   % tb('0'))
        src.append('      } else {')
        src.append('        input[r][c].copy(hop[v][slot]).copy(hop2[w][slot])'
                   '.copy(output[d][o]);')
        src.append('      }')
        p.features.add('relay')
    src.append('    }')
    src.append('  }')
    src.append('}')
    p.lines = src
    p.collective = 'Perm%d' % p.seed
    p.chunks = K

    p.ensures = lambda n: [((r + A) % n, (c + rot(r)) % K, [(r, c)])
                           for r in range(n) for c in range(K)]
    # Chunk c and chunk c + b differ in size at some count unless b == 0.
    p.reference_ok = lambda n: K == 1 or (B == 0 and B2 == 0)


def gen_sum(p):
    """A custom reduction: output[d][c] = the sum of input[q][c] over the L
    ranks d, d+1, ..., d+L-1 (L = min(Lmax, n)), summed along a chain that
    ends at d; partial sums rest in scratch or in the ranks' outputs and may
    be relayed through a third rank's scratch."""
    K = p.pick(1, 2, 3)
    Lmax = p.pick(2, 3, 8)
    rest_in_output = p.chance(0.4)
    relay = p.chance(0.4)
    every_other = p.chance(0.5)  # only even destinations get a sum
    p.features.update(['custom', 'reduction', 'Simple'])
    if relay:
        p.features.add('relay')
    if rest_in_output:
        p.features.add('partial_in_output')
    src = []
    cond = 'd % 2 == 0' if every_other else 'true'
    if every_other:
        p.features.add('rank_asymmetric_contract')
    src.append('collective Sum%d input(chunks) output(chunks) {' % p.seed)
    src.append('  let l = min(%d, nranks);' % Lmax)
    src.append('  for d in ranks if %s {' % cond)
    src.append('    for c in 0..chunks {')
    src.append('      let s = input[d][c];')
    src.append('      for i in 1..l { s = s + input[(d + i) % nranks][c]; }')
    src.append('      ensure output[d][c] == s;')
    src.append('    }')
    src.append('  }')
    src.append('}')
    src.append('')
    src.append('algorithm %s implements Sum%d chunks(%d) {' % (p.name, p.seed, K))
    src.append('  scratch part[nranks * chunks];')
    src.append('  scratch hop[nranks * chunks];')
    src.append('  let l = min(%d, nranks);' % Lmax)
    src.append('  for d in ranks if %s {' % cond)
    src.append('    for c in 0..chunks {')
    src.append('      let slot = d * chunks + c;')
    src.append('      let acc = input[(d + l - 1) % nranks][c];')
    src.append('      for j in 1..l {')
    src.append('        let q = (d + l - 1 - j) % nranks;')
    if relay:
        src.append('        if (q + c) % 2 == 1 {')
        src.append('          acc = acc.copy(hop[(q + 2) % nranks][slot]);')
        src.append('        }')
    if rest_in_output:
        # Only the last hop's rank (q == d) may use its own output; the
        # others' outputs may hold their own sums.
        src.append('        if q == d {')
        src.append('          acc = input[q][c].copy(output[q][c]).reduce(acc);')
        src.append('        } else {')
        src.append('          acc = input[q][c].copy(part[q][slot]).reduce(acc);')
        src.append('        }')
    else:
        src.append('        acc = input[q][c].copy(part[q][slot]).reduce(acc);')
    src.append('      }')
    if rest_in_output:
        src.append('      if l == 1 { acc.copy(output[d][c]); }')
    else:
        src.append('      acc.copy(output[d][c]);')
    src.append('    }')
    src.append('  }')
    src.append('}')
    p.lines = src
    p.collective = 'Sum%d' % p.seed
    p.chunks = K

    def ensures(n):
        l = min(Lmax, n)
        return [(d, c, [((d + i) % n, c) for i in range(l)])
                for d in range(n) if not (every_other and d % 2)
                for c in range(K)]
    p.ensures = ensures


def root_arg(p):
    """A rooted algorithm's `root =` argument, half of the time: a constant
    or one that depends on the rank count (the root it is written and
    proved for differs between the variants of one library). Drawn from a
    stream of its own. Returns the argument's text (or ''), the lines of a
    function it calls, and sets p.plan_root."""
    side = random.Random(p.seed * 7919 + 5)
    if side.random() < 0.5:
        return '', []
    p.features.add('root_arg')
    fn = p.name + '_root'
    expr, lines, of = side.choice([
        ('min(2, nranks - 1)', [], lambda n: min(2, n - 1)),
        ('nranks - 1', [], lambda n: n - 1),
        ('nranks / 2', [], lambda n: n // 2),
        ('1', [], lambda n: 1),
        (fn + '()', ['fn %s() {' % fn, '  if nranks == 2 { return 0; }',
                     '  return 1;', '}'], lambda n: 0 if n == 2 else 1)])
    if expr != '1':
        p.features.add('root_by_nranks')
    p.plan_root = of
    return 'root = ' + expr, lines


def implements(collective, root, both):
    """`Reduce(root = ..., inplace, outofplace)` and its shorter forms."""
    args = [a for a in (root, 'inplace, outofplace' if both else '') if a]
    return collective + ('(%s)' % ', '.join(args) if args else '')


def gen_reduce(p):
    """Reduce (built-in, rooted): a chain from the rank after the root,
    going up or down the ring, or two half chains meeting at the root;
    partial sums in outputs (the chain of issue 41) or scratch."""
    K = p.pick(1, 2, 4)
    shape = p.pick('chain', 'chain', 'two')
    step = p.pick(1, -1)
    in_output = p.chance(0.5)
    both = p.chance(0.6)
    p.features.update(['rooted', 'reduction', 'Simple', 'builtin'])
    if in_output:
        p.features.add('partial_in_output')
    if both:
        p.features.add('both_forms')
    root, fn = root_arg(p)
    src = fn + ['algorithm %s implements %s chunks(%d) {' % (
        p.name, implements('Reduce', root, both), K), '  scratch part[chunks];']
    dst = 'output' if in_output else 'part'
    if shape == 'chain':
        src += ['  for c in 0..chunks {',
                '    let acc = input[(root + %d * (nranks - 1)) %% nranks][c];' % step,
                '    for s in 2..nranks + 1 {',
                '      let r = (root + %d * (nranks - s)) %% nranks;' % step,
                '      if r == root {',
                '        acc = input[r][c].copy(output[r][c]).reduce(acc);',
                '      } else {',
                '        acc = input[r][c].copy(%s[r][c]).reduce(acc);' % dst,
                '      }',
                '    }',
                '  }']
    else:
        p.features.add('two_chains')
        # Ranks root+1 .. root+h sum up into root+1, root+h+1 .. root+n-1
        # into root+n-1, both meet at the root.
        src += ['  let h = nranks / 2;',
                '  for c in 0..chunks {',
                '    let a = input[(root + h) % nranks][c];',
                '    for s in 1..h {',
                '      let r = (root + h - s) % nranks;',
                '      a = input[r][c].copy(%s[r][c]).reduce(a);' % dst,
                '    }',
                '    let acc = input[root][c].copy(output[root][c]).reduce(a);',
                '    if nranks - 1 > h {',
                '      let b = input[(root + h + 1) % nranks][c];',
                '      for s in h + 2..nranks {',
                '        let r = (root + s) % nranks;',
                '        b = input[r][c].copy(%s[r][c]).reduce(b);' % dst,
                '      }',
                '      acc.reduce(b);',
                '    }',
                '  }']
    src.append('}')
    p.lines = src
    p.collective = 'Reduce'
    p.chunks = K
    p.inplace = both

    p.ensures = lambda n: [(p.plan_root(n), c, [(q, c) for q in range(n)])
                           for c in range(K)]


def gen_bcast(p):
    """Broadcast (built-in, rooted): the root's chunks go down a chain or
    a tree; odd ranks keep what they receive in scratch and forward from
    there, even ranks forward from their output."""
    K = p.pick(1, 2, 3, 4)
    fan = p.pick(1, 2)
    both = p.chance(0.6)
    p.features.update(['rooted', 'permutation', 'Simple', 'builtin', 'relay'])
    if both:
        p.features.add('both_forms')
    root, fn = root_arg(p)
    src = fn + ['algorithm %s implements %s chunks(%d) {' % (
        p.name, implements('Broadcast', root, both), K),
           '  scratch keep[chunks];',
           '  for c in 0..chunks {',
           '    input[root][c].copy(output[root][c]);',
           '    for i in 1..nranks {',
           '      let r = (root + i) % nranks;',
           '      let up = (root + (i - 1) / %d) %% nranks;' % fan if fan > 1 else
           '      let up = (root + i - 1) % nranks;',
           '      if i % 2 == 1 && r != up {',
           '        output[up][c].copy(keep[r][c]).copy(output[r][c]);',
           '      } else {',
           '        output[up][c].copy(output[r][c]);',
           '      }',
           '    }',
           '  }',
           '}']
    if fan > 1:
        p.features.add('tree')
    p.lines = src
    p.collective = 'Broadcast'
    p.chunks = K
    p.inplace = both

    p.ensures = lambda n: [(r, c, [(p.plan_root(n), c)]) for r in range(n)
                           for c in range(K)]


def direction_split(p, var):
    """The condition under which rank or block `var` goes down the ring:
    odd ones (ranks run alike), or the upper half (drawn half of the time
    from a stream of its own: the ranks at the halves' borders start or end
    more chains than the others, so their programs differ)."""
    if random.Random(p.seed * 7919 + 6).random() < 0.5:
        return '%s >= nranks / 2' % var
    return '%s %% 2 == 1' % var


def gen_allgather(p):
    """AllGather (built-in): rank r's chunk reaches every rank along a ring
    in one direction for some r (even ones, or the lower half) and the other
    for the rest, resting in each rank's output on the way."""
    K = p.pick(1, 2)
    both = p.chance(0.6)
    p.features.update(['builtin', 'permutation', 'Simple', 'relay'])
    if both:
        p.features.add('both_forms')
    form = '(inplace, outofplace)' if both else ''
    # With 2 chunks, half the programs move both as one range (drawn from
    # a stream of their own, so that no other seed's program changes).
    ranged = K == 2 and random.Random(p.seed * 7919 + 2).random() < 0.5
    down = direction_split(p, 'r')
    if ranged:
        p.features.add('ranges')
        src = ['algorithm %s implements AllGather%s chunks(%d) {' % (p.name, form, K),
               '  for r in ranks {',
               '    let mine = r * chunks..r * chunks + chunks;',
               '    let at = input[r][0..chunks].copy(output[r][mine]);',
               '    let dir = 1;',
               '    if %s { dir = nranks - 1; }' % down,
               '    for s in 1..nranks {',
               '      at = at.copy(output[(r + dir * s) % nranks][mine]);',
               '    }',
               '  }',
               '}']
    else:
        src = ['algorithm %s implements AllGather%s chunks(%d) {' % (p.name, form, K),
               '  for r in ranks {',
               '    for c in 0..chunks {',
               '      let at = input[r][c].copy(output[r][r * chunks + c]);',
               '      let dir = 1;',
               '      if %s { dir = nranks - 1; }' % down,
               '      for s in 1..nranks {',
               '        at = at.copy(output[(r + dir * s) % nranks][r * chunks + c]);',
               '      }',
               '    }',
               '  }',
               '}']
    p.lines = src
    p.collective = 'AllGather'
    p.chunks = K
    p.inplace = both

    p.out_chunks = lambda n: n * K
    p.ensures = lambda n: [(r, q * K + c, [(q, c)]) for r in range(n)
                           for q in range(n) for c in range(K)]


def gen_allreduce(p):
    """AllReduce (built-in): chunk c is summed along a chain that ends at
    rank (c * S) % n (the chain runs up the ring for even c, down for odd
    c), then the total goes around the ring, relayed through scratch on
    every other hop. Every rank gets the one sum the chain made, so the
    ranks must agree bit for bit."""
    K = p.pick(1, 2, 3, 4)
    S = p.pick(1, 2)
    p.features.update(['builtin', 'reduction', 'Simple', 'relay', 'allreduce'])
    src = ['algorithm %s implements AllReduce chunks(%d) {' % (p.name, K),
           '  scratch part[chunks];',
           '  scratch keep[chunks];',
           '  for c in 0..chunks {',
           '    let end = (c * %d) %% nranks;' % S,
           '    let dir = 1;',
           '    if c % 2 == 1 { dir = nranks - 1; }',
           '    let acc = input[(end + dir) % nranks][c];',
           '    for s in 2..nranks + 1 {',
           '      let r = (end + dir * s) % nranks;',
           '      if r == end {',
           '        acc = input[r][c].copy(output[r][c]).reduce(acc);',
           '      } else {',
           '        acc = input[r][c].copy(part[r][c]).reduce(acc);',
           '      }',
           '    }',
           '    for s in 1..nranks {',
           '      let r = (end + s) % nranks;',
           '      if s % 2 == 1 {',
           '        acc = acc.copy(keep[r][c]).copy(output[r][c]);',
           '      } else {',
           '        acc = acc.copy(output[r][c]);',
           '      }',
           '    }',
           '  }',
           '}']
    p.lines = src
    p.collective = 'AllReduce'
    p.chunks = K
    p.agree = True
    p.ensures = lambda n: [(r, c, [(q, c) for q in range(n)])
                           for r in range(n) for c in range(K)]


def gen_channels(p):
    """A custom shift written with channels: rank r puts chunk c of its
    input (or all its chunks as one range) into the next (or previous)
    rank's scratch and signals (on a memory or a port channel, whose put
    the proxy moves and the sender flushes); the receiver waits, copies it to its
    output, and acknowledges on a second channel whose credit lets the
    sender's first wait of the first call return at once. In LL the data
    goes as packets (no signal and wait; the scratch alternates between two
    copies, so the credit is 2). A receiver may split the work over two
    thread blocks ordered by a semaphore (one copies, the other
    acknowledges). Without the acknowledgement, or with a relaxed one, the
    next call's put races with this call's read: a program cclc must
    reject."""
    K = p.pick(1, 2, 3)
    up = p.chance(0.5)
    ll = p.chance(0.35)
    sem = p.chance(0.7)
    acked = not p.chance(0.15)
    relaxed = p.chance(0.2)
    ranges = K >= 2 and p.chance(0.5)
    # More receivers split over two blocks and a semaphore: from a stream
    # of their own, so that no other seed's program changes.
    if not sem and random.Random(p.seed * 7919 + 4).random() < 0.6:
        sem = True
    p.features.update(['custom', 'permutation', 'LL' if ll else 'Simple',
                       'channels', 'placed'])
    if acked:
        p.features.add('credit')
    if sem:
        p.features.add('semaphore')
    if ranges:
        p.features.add('ranges')
    # Port channels (the proxy moves the bytes; a put is flushed before the
    # kernel ends) for the data and, independently, the acknowledgement, in
    # Simple programs. Drawn from a stream of their own, so that the
    # programs of every other seed stay as they were.
    side = random.Random(p.seed * 7919 + 1)
    port = not ll and side.random() < 0.5
    ack_port = not ll and acked and side.random() < 0.5
    if port or ack_port:
        p.features.add('port')
    step = '1' if up else 'nranks - 1'
    proto = ' protocol(LL)' if ll else ''
    src = ['collective Chan%d input(chunks) output(chunks) {' % p.seed,
           '  for r in ranks {',
           '    for c in 0..chunks {',
           '      ensure output[(r + %s) %% nranks][c] == input[r][c];' % step,
           '    }',
           '  }',
           '}',
           '',
           'algorithm %s implements Chan%d chunks(%d)%s {' %
           (p.name, p.seed, K, proto),
           '  scratch recv[chunks];',
           '  for r in ranks {',
           '    let d = (r + %s) %% nranks;' % step,
           '    let ch = %s(r -> d);' % ('port' if port else 'memory')]
    if acked:
        src.append('    let ack = %s(d -> r, id = 1, credit = %d);' %
                   ('port' if ack_port else 'memory', 2 if ll else 1))
    if sem:
        src.append('    let done = semaphore(d);')
    if ranges:
        src.append('    if true {')
        at = '0..chunks'
    else:
        src.append('    for c in 0..chunks {')
        at = 'c'
    if acked:
        src.append('      ack.wait(tb = 0);')
    if ll:
        src += ['      ch.put_packets(recv[d][%s], input[r][%s], tb = 0);' % (at, at),
                '      output[d][%s].unpack_packets(recv[d][%s], tb = 1);' % (at, at)]
    else:
        put = 'put_with_signal_and_flush' if port else 'put_with_signal'
        src += ['      ch.%s(recv[d][%s], input[r][%s], tb = 0);' % (put, at, at),
                '      ch.wait(tb = 1);',
                '      recv[d][%s].copy(output[d][%s], tb = 1);' % (at, at)]
    last = 1
    if sem:
        src += ['      done.release(tb = 1);', '      done.acquire(tb = 2);']
        last = 2
    if acked:
        src.append('      ack.signal(tb = %d%s);' %
                   (last, ', relaxed = true' if relaxed else ''))
    src += ['    }', '  }', '}']
    p.lines = src
    p.collective = 'Chan%d' % p.seed
    p.chunks = K
    sh = (lambda n: 1) if up else (lambda n: n - 1)
    p.ensures = lambda n: [((r + sh(n)) % n, c, [(r, c)])
                           for r in range(n) for c in range(K)]
    # A relaxed acknowledgement does not order the receiver's read before
    # the sender's next put. At 2 ranks an LL program needs none: a rank
    # starts its call after next only once its peer has finished the next,
    # whose blocks start after its reads of this one.
    p.reference_ok = lambda n: (acked and not relaxed) or (ll and n == 2)


def gen_alltoall(p):
    """AllToAll (built-in): block r of rank q goes to rank r directly or
    through the scratch of a third rank chosen by a rank formula."""
    K = p.pick(1, 2)
    off = p.pick(1, 2, 3)
    kmod = p.pick(2, 3)
    p.features.update(['builtin', 'permutation', 'Simple', 'relay',
                       'alltoall'])
    # With 2 chunks, half the programs move each block as one range of
    # chunks (and of scratch slots when relayed), from a stream of their
    # own.
    if K == 2 and random.Random(p.seed * 7919 + 3).random() < 0.5:
        p.features.add('ranges')
        p.lines = [
            'algorithm %s implements AllToAll chunks(%d) {' % (p.name, K),
            '  scratch hop[nranks * chunks];',
            '  for q in ranks {',
            '    let v = (q + %d) %% nranks;' % off,
            '    for r in ranks {',
            '      let blk = r * chunks..r * chunks + chunks;',
            '      let dst = q * chunks..q * chunks + chunks;',
            '      if (q + 2 * r) %% %d == 0 {' % kmod,
            '        input[q][blk].copy(hop[v][blk]).copy(output[r][dst]);',
            '      } else {',
            '        input[q][blk].copy(output[r][dst]);',
            '      }',
            '    }',
            '  }',
            '}']
    else:
        p.lines = None
    src = ['algorithm %s implements AllToAll chunks(%d) {' % (p.name, K),
           '  scratch hop[nranks * chunks];',
           '  for q in ranks {',
           '    let v = (q + %d) %% nranks;' % off,
           '    for r in ranks {',
           '      for c in 0..chunks {',
           '        if (q + 2 * r + c) %% %d == 0 {' % kmod,
           '          input[q][r * chunks + c].copy(hop[v][r * chunks + c])'
           '.copy(output[r][q * chunks + c]);',
           '        } else {',
           '          input[q][r * chunks + c].copy(output[r][q * chunks + c]);',
           '        }',
           '      }',
           '    }',
           '  }',
           '}']
    p.lines = p.lines or src
    p.collective = 'AllToAll'
    p.chunks = K
    p.in_chunks = lambda n: n * K
    p.out_chunks = lambda n: n * K
    p.ensures = lambda n: [(r, q * K + c, [(q, r * K + c)]) for r in range(n)
                           for q in range(n) for c in range(K)]


def gen_reducescatter(p):
    """ReduceScatter (built-in): block d is summed along a chain that
    starts after d and runs up the ring for even d (or the lower half),
    down for the others, with
    partial sums in scratch, ending in d's output."""
    K = p.pick(1, 2)
    p.features.update(['builtin', 'reduction', 'Simple', 'reducescatter'])
    src = ['algorithm %s implements ReduceScatter chunks(%d) {' % (p.name, K),
           '  scratch part[nranks * chunks];',
           '  for d in ranks {',
           '    let dir = 1;',
           '    if %s { dir = nranks - 1; }' % direction_split(p, 'd'),
           '    for c in 0..chunks {',
           '      let b = d * chunks + c;',
           '      let acc = input[(d + dir) % nranks][b];',
           '      for s in 2..nranks {',
           '        let r = (d + dir * s) % nranks;',
           '        acc = input[r][b].copy(part[r][b]).reduce(acc);',
           '      }',
           '      input[d][b].copy(output[d][c]).reduce(acc);',
           '    }',
           '  }',
           '}']
    p.lines = src
    p.collective = 'ReduceScatter'
    p.chunks = K
    p.in_chunks = lambda n: n * K
    p.ensures = lambda n: [(d, c, [(q, d * K + c) for q in range(n)])
                           for d in range(n) for c in range(K)]


def generate(seed):
    p = Prog(seed)
    kind = p.rng.choice(['perm', 'perm', 'sum', 'sum', 'reduce', 'bcast',
                         'allgather', 'allreduce', 'channels', 'channels',
                         'alltoall', 'reducescatter'])
    {'perm': gen_perm, 'sum': gen_sum, 'reduce': gen_reduce,
     'bcast': gen_bcast, 'allgather': gen_allgather,
     'allreduce': gen_allreduce, 'channels': gen_channels,
     'alltoall': gen_alltoall, 'reducescatter': gen_reducescatter}[kind](p)
    p.kind = kind
    # The chunk-level programs give no thread block: the compiler places
    # every operation.
    if kind not in ('perm', 'channels'):
        p.features.add('unplaced')
    # Forms besides the plain one: instances and tiles from the options.
    p.forms = ['plain']
    if p.chance(0.5):
        p.forms.append('instances=2')
    if p.chance(0.5):
        p.forms.append('tiles=2')
    return p


def write(p, outdir):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, p.name + '.ccl'), 'w') as f:
        f.write('// Generated by test/semantic/gen.py, seed %d (%s).\n' %
                (p.seed, p.kind))
        f.write('\n'.join(p.lines) + '\n')
    for n in RANKS:
        with open(os.path.join(outdir, '%s.n%d.contract' % (p.name, n)), 'w') as f:
            f.write('\n'.join(p.contract(n)) + '\n')
    meta = {'name': p.name, 'seed': p.seed, 'kind': p.kind,
            'collective': p.collective, 'ranks': RANKS, 'forms': p.forms,
            'inplace': bool(p.inplace), 'agree': p.agree,
            'features': sorted(p.features),
            'reference_ok': {str(n): bool(p.reference_ok(n)) for n in RANKS}}
    with open(os.path.join(outdir, p.name + '.json'), 'w') as f:
        json.dump(meta, f, indent=1)
    return meta


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    write(generate(int(sys.argv[1])), sys.argv[2])
