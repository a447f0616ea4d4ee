#!/usr/bin/env python3
"""Regenerates `select` items from benchmark runs (docs/perf.md,
"Regenerating the selection table").

usage: gen-selection.py CSV... > selection.ccl

Each CSV is a `ccl-perf --coll C --csv FILE` run of one algorithm forced with
CCL_ALGO (scripts/bench-selection.sh makes them); the `algorithm` column
says which one ran. For every collective and rank count, each size goes to
the algorithm with the lowest time (the mean of its out-of-place and
in-place rows, over the data types measured); neighbouring sizes with the
same winner become one row `ALGORITHM max_bytes(B)` (B: the largest bytes
per rank it won, as ccl_plan::max_bytes counts them), the last row has no
bound, and rows of a rank count apply to that count only
(min_ranks/max_ranks). Paste the output into stdlib/stdlib.ccl.
"""
import collections
import csv
import sys

# Bytes per rank as ccl_plan::max_bytes counts them, from a CSV row (its
# `count` column is the entry point's count).
ESIZE = {"float32": 4, "float16": 2, "bfloat16": 2}


def main(paths):
    times = collections.defaultdict(list)  # (coll, n, bytes, algo) -> [us]
    for path in paths:
        for r in csv.DictReader(open(path)):
            if r["backend"] != "cclc" or int(r["wrong"]) != 0:
                continue
            nbytes = int(r["count"]) * ESIZE[r["type"]]
            key = (r["collective"], int(r["nranks"]), nbytes, r["algorithm"])
            times[key].append(float(r["time_us"]))
    best = collections.defaultdict(dict)  # (coll, n) -> bytes -> (us, algo)
    for (coll, n, nbytes, algo), ts in times.items():
        us = sum(ts) / len(ts)
        cur = best[(coll, n)].get(nbytes)
        if cur is None or us < cur[0]:
            best[(coll, n)][nbytes] = (us, algo)
    by_coll = collections.defaultdict(list)
    for (coll, n), sizes in sorted(best.items()):
        rows = []
        for nbytes in sorted(sizes):
            algo = sizes[nbytes][1]
            if rows and rows[-1][0] == algo:
                rows[-1][1] = nbytes
            else:
                rows.append([algo, nbytes])
        by_coll[coll].append((n, rows))
    for coll, groups in by_coll.items():
        print("select %s {" % coll)
        for i, (n, rows) in enumerate(groups):
            ranks = "" if len(groups) == 1 else " min_ranks(%d) max_ranks(%d)" % (n, n)
            for j, (algo, nbytes) in enumerate(rows):
                last = j == len(rows) - 1
                bound = "" if last else " max_bytes(%d)" % nbytes
                print("  %s%s%s;" % (algo, ranks, bound))
        print("}\n")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
