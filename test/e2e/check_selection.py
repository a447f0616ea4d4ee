#!/usr/bin/env python3
"""Checks a ccl-perf --coll run against the bundle's selection table.

usage: check_selection.py TABLE OUTPUT COLLECTIVE NRANKS [UNAVAILABLE]

TABLE is `cclc --print-selection`; OUTPUT is ccl-perf's output. Every row of
the table that ccl-perf printed must name, in its last column, the algorithm
the selection table picks for the call (the first row whose rank range and
byte bound hold it: bytes per rank = count x element size, skipping the
algorithms of UNAVAILABLE, a comma list of those whose plans are known not
to be prepared on the machine), and the run must have found 0 wrong values.
Exits 1 with the mismatches otherwise.
"""
import re
import sys

ESIZE = {"float": 4, "half": 2, "bfloat16": 2}


def table_rows(path, coll):
    rows = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        c, ranks, max_bytes, algo = line.split()[:4]
        if c != coll:
            continue
        lo, hi = ranks.split("..")
        rows.append((int(lo), int(hi) if hi else None,
                     None if max_bytes == "any" else int(max_bytes), algo))
    return rows


def expected(rows, nranks, nbytes, unavailable):
    for lo, hi, max_bytes, algo in rows:
        if algo in unavailable:
            continue
        if nranks < lo or (hi is not None and nranks > hi):
            continue
        if max_bytes is not None and nbytes > max_bytes:
            continue
        return algo
    return None


def main():
    table, output, coll, nranks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    unavailable = set(sys.argv[5].split(",")) if len(sys.argv) > 5 else set()
    rows = table_rows(table, coll)
    if not rows:
        sys.exit("check_selection: no %s rows in %s" % (coll, table))
    text = open(output).read()
    unavailable |= set(re.findall(r"^# unprepared: ([\w.-]+):", text, re.M))
    bad, seen = [], 0
    for line in text.splitlines():
        m = re.match(r"^\s+(\d+)\s+(\d+)\s+(\w+)\s+(\w+)\s+.*\s(\S+)$", line)
        if not m or m.group(3) not in ESIZE:
            continue
        count, dtype, served = int(m.group(2)), m.group(3), m.group(5)
        want = expected(rows, nranks, count * ESIZE[dtype], unavailable)
        seen += 1
        if served != want:
            bad.append("%s: served by %s, the table names %s" % (line.strip(), served, want))
    if "Out of bounds values : 0 OK" not in text:
        bad.append("the run found wrong values or failed")
    if seen == 0:
        bad.append("no rows in the output")
    if bad:
        print("\n".join(bad))
        sys.exit(1)
    print("ok: %s, %d ranks, %d rows served as the table says" % (coll, nranks, seen))


main()
