#!/usr/bin/env python3
"""Seconds per test (run time, without the wait for a free core) and per
kind of build action, from the JSON trace profiles of a `.ci/run` whose
bazel commands were given --profile=DIR/COMMAND-TIME.json.gz.

Usage: profile_times.py PROFILE.json.gz [N]"""
import collections, gzip, json, sys

events = json.load(gzip.open(sys.argv[1]))["traceEvents"]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 30
busy, lock, kinds = collections.Counter(), collections.Counter(), collections.Counter()
for e in events:
    if e.get("ph") != "X":
        continue
    name, cat, dur = e.get("name", ""), e.get("cat"), e.get("dur", 0) / 1e6
    if name.startswith("Testing "):
        test = name.split()[1]
        if cat == "action processing":
            busy[test] += dur
        elif cat == "action resource lock":
            lock[test] += dur
    elif cat == "action processing":
        kinds[name.split()[0]] += dur
run = {t: busy[t] - lock[t] for t in busy}
print("tests: %.0f s of run time (all shards), %.0f s waiting for resources"
      % (sum(run.values()), sum(lock.values())))
for t, s in sorted(run.items(), key=lambda x: -x[1])[:n]:
    print("%7.1f  %s" % (s, t))
print("build actions (s, including time sharing the cores):")
for k, s in kinds.most_common(8):
    print("%7.1f  %s" % (s, k))
