// run.cc - the two runs of a row (run.h): the back-to-back check and the
// timed run.
#include "tools/ccl-perf/run.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fmt/format.h>
#include <iterator>
#include <utility>

#include "tools/ccl-perf/multiproc.h"

namespace cclperf {

namespace {

const char *modeName(BufMode m) {
  return m == BufMode::Separate ? "separate buffers" : "reused buffers";
}

// Element offsets of a rank's input and output in the buffer of a call.
size_t inOffset(const Env &env, size_t count, bool inplace, int r) {
  return inplace ? env.coll->inplaceInOffset(count, env.n, r) : 0;
}
size_t outOffset(const Env &env, size_t count, bool inplace, int r) {
  return inplace ? env.coll->inplaceOutOffset(count, env.n, r) : 0;
}

// Element i of buf as a note prints it: its bits, or its value.
std::string fmtElem(DType t, bool bits, const void *buf, size_t i) {
  if (bits && dtypeSize(t) == 4) {
    uint32_t v;
    std::memcpy(&v, (const char *)buf + 4 * i, 4);
    return fmt::format("0x{:08x}", v);
  }
  if (bits) {
    uint16_t v;
    std::memcpy(&v, (const char *)buf + 2 * i, 2);
    return fmt::format("0x{:04x}", v);
  }
  return fmt::format("{:g}", (double)loadAsFloat(t, buf, i));
}

// "0,1,2,5" (at most 16 entries, then "...").
std::string listInts(const std::vector<int> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) {
    if (i == 16) return s + ",...";
    s += (i ? "," : "") + std::to_string(v[i]);
  }
  return s;
}

}  // namespace

size_t slotBytes(const Env &env, const RowSpec &row) {
  // A row of 0 elements still gets a slot (distinct buffers per call).
  size_t bytes = env.coll->inplaceCount(row.count, env.n) * dtypeSize(row.t);
  return roundUp(bytes ? bytes : 1, kAlign);
}

int rowCalls(const Env &env, size_t slot) {
  size_t fit = env.arenaBytes / slot;
  size_t k = fit >= 3 ? (fit - 1) / 2 : 1;
  return (int)std::min<size_t>((size_t)env.opt.calls, k);
}

void CheckOutcome::merge(const CheckOutcome &o) {
  wrong += o.wrong;
  rankDiff += o.rankDiff;
  auto unite = [](std::vector<int> *a, const std::vector<int> &b) {
    std::vector<int> u;
    std::set_union(a->begin(), a->end(), b.begin(), b.end(), std::back_inserter(u));
    *a = std::move(u);
  };
  unite(&badCalls, o.badCalls);
  unite(&badRanks, o.badRanks);
  if (o.firstCall >= 0 &&
      (firstCall < 0 || std::make_pair(o.firstCall, o.firstRank) <
                            std::make_pair(firstCall, firstRank))) {
    firstCall = o.firstCall;
    firstRank = o.firstRank;
    firstAt = o.firstAt;
    firstGot = o.firstGot;
    firstWant = o.firstWant;
  }
}

std::string wrongNote(const CheckOutcome &o, bool inplace, BufMode mode, bool graph,
                      int K) {
  return fmt::format(
      "{}, {}, {}: {} wrong in call{} {} of {}, rank{} {}; first: call {} "
      "rank {} element {} is {}, expected {}",
      inplace ? "in-place" : "out-of-place", modeName(mode), graph ? "graph" : "eager",
      o.wrong, o.badCalls.size() > 1 ? "s" : "", listInts(o.badCalls), K,
      o.badRanks.size() > 1 ? "s" : "", listInts(o.badRanks), o.firstCall,
      o.firstRank, o.firstAt, o.firstGot, o.firstWant);
}

namespace {

std::string packOutcome(const CheckOutcome &o) {
  Pack p;
  p.u64(o.wrong).ints(o.badCalls).ints(o.badRanks).u64((uint64_t)(int64_t)o.firstCall);
  p.u64((uint64_t)(int64_t)o.firstRank).u64(o.firstAt).str(o.firstGot).str(o.firstWant);
  return p.bytes();
}

CheckOutcome unpackOutcome(const std::string &s) {
  Unpack u(s);
  CheckOutcome o;
  o.wrong = u.u64();
  o.badCalls = u.ints();
  o.badRanks = u.ints();
  o.firstCall = (int)(int64_t)u.u64();
  o.firstRank = (int)(int64_t)u.u64();
  o.firstAt = u.u64();
  o.firstGot = u.str();
  o.firstWant = u.str();
  return o;
}

}  // namespace

// One checked run: K calls per rank, queued rank after rank (call k of
// every rank, then call k + 1) with no host synchronisation in between
// (eagerly, or captured into one CUDA graph per rank and replayed once),
// then one synchronisation and a check of all K results. Every call gets
// fresh data. Buffers, per rank, from its arena (slot = slotBytes):
//   A[k] = slot k, B[k] = slot K + k, P = slot 2K.
// Separate: call k reads A[k] and writes B[k] (in place: works in B[k]).
// Reused:  every call uses the working buffers send/recv; before call k,
//   cclMemcpyAsync refills the input from A[k] (and the output with poison
//   from P; in place: the whole buffer from A[k]); after it, the output is
//   copied to B[k]. All on the rank's stream, no host synchronisation.
// With one process per rank each process does this for its own rank, and
// the ranks exchange twice: after queuing (a rank that could not queue its
// calls must not leave the others waiting for it in the synchronisation)
// and after the check (the outcomes).
bool checkedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
                bool graph, BufMode mode, int K, CheckOutcome *out,
                std::string *err) {
  const int n = env.n;
  const DType t = row.t;
  const size_t es = dtypeSize(t), count = row.count;
  const Collective &coll = *env.coll;
  const size_t ic = coll.inCount(count, n), oc = coll.outCount(count, n);
  const size_t len = coll.inplaceCount(count, n);  // in-place buffer
  const size_t slot = slotBytes(env, row);
  const bool bits = !coll.reduction;
  // --bitwise: reductions get random floats, checked within their rounding.
  const bool floats = env.opt.bitwise && coll.reduction;
  auto A = [&](int r, int k) { return (char *)env.arena[r] + (size_t)k * slot; };
  auto B = [&](int r, int k) { return (char *)env.arena[r] + (size_t)(K + k) * slot; };
  auto P = [&](int r) { return (char *)env.arena[r] + (size_t)(2 * K) * slot; };

  // --bitwise, one process, AllReduce and Reduce: call 0 takes the same
  // inputs at every count (element i = f(key, rank, i)), so its output must
  // have the same bits as any other count's in their common prefix when
  // the result does not depend on the message size.
  const bool compareSizes = env.opt.bitwise && !env.multi && coll.reduction &&
                            (coll.kind == CollKind::AllReduce ||
                             coll.kind == CollKind::Reduce);
  std::vector<InputGen> gens(K);
  for (InputGen &g : gens) {
    g.key = makeKey(env.opt.seed, ++env.checkedCalls);
    if (compareSizes && &g == &gens[0]) g.key = makeKey(env.opt.seed, 0);
    g.op = row.op;
    g.nranks = n;
    g.root = env.root;
    g.bits = bits;
    g.floats = floats;
  }

  // The references of a reduction's calls, when this process drives every
  // rank: each call's exact-integer reduction accumulated while its inputs
  // are generated (before any rank runs), rather than every rank's input
  // generated again per element for the reference (which was a fifth of a
  // host sweep's time). Up to 256 MiB of accumulators; beyond that the
  // reference function generates them again.
  std::vector<std::vector<int32_t>> accs;
  if (coll.reduction && !floats && !env.multi &&
      (size_t)K * ic <= (size_t(256) << 20) / sizeof(int32_t)) {
    accs.resize(K);
    for (int k = 0; k < K; k++) {
      accs[k].resize(ic);
      gens[k].startReduction(accs[k].data(), ic);
    }
  }
  auto accOf = [&](int k) { return accs.empty() ? nullptr : accs[k].data(); };

  // 1. Stage every call's data (host copies complete on return; every
  // stream is idle here).
  unsigned char *host = env.hostBuf.data();
  const void *poison = env.poison(t);
  auto stage = [&](std::string *e) {
    for (int r : env.local) {
      const size_t io = inOffset(env, count, inplace, r);
      for (int k = 0; k < K; k++) {
        if (inplace) {  // the whole buffer: poison, the input at its offset
          std::memcpy(host, poison, len * es);
          gens[k].fill(r, t, host + io * es, ic, accOf(k));
          if (!copyIn(env, r, mode == BufMode::Separate ? B(r, k) : A(r, k), host,
                      len * es, e))
            return false;
          if (mode == BufMode::Reused && !copyIn(env, r, B(r, k), poison, oc * es, e))
            return false;
        } else {
          gens[k].fill(r, t, host, ic, accOf(k));
          if (!copyIn(env, r, A(r, k), host, ic * es, e) ||
              !copyIn(env, r, B(r, k), poison, oc * es, e))
            return false;
        }
      }
      if (mode == BufMode::Reused && !inplace &&
          !copyIn(env, r, P(r), poison, oc * es, e))
        return false;
    }
    return true;
  };

  // 2. Queue the K calls of every rank.
  auto queue = [&](std::string *e) {
    std::vector<void *> in(n), out(n);
    for (int k = 0; k < K; k++) {
      for (int r : env.local) {
        const size_t io = inOffset(env, count, inplace, r) * es;
        const size_t oo = outOffset(env, count, inplace, r) * es;
        if (mode == BufMode::Separate) {
          in[r] = inplace ? B(r, k) + io : A(r, k);
          out[r] = B(r, k) + oo;
        } else {
          char *work = (char *)env.recv[r];
          in[r] = inplace ? work + io : env.send[r];
          out[r] = work + oo;
          bool queued = inplace
                            ? copyAsync(env, r, work, A(r, k), len * es, e)
                            : copyAsync(env, r, env.send[r], A(r, k), ic * es, e) &&
                                  copyAsync(env, r, work, P(r), oc * es, e);
          if (!queued) return false;
        }
      }
      if (!b.launchAll(in, out, count, t, row.op, e)) return false;
      if (mode == BufMode::Reused)
        for (int r : env.local)
          if (!copyAsync(env, r, B(r, k), out[r], oc * es, e)) return false;
    }
    return true;
  };

  // 3. Check every call's defined outputs (of this process's ranks).
  CheckOutcome mine;
  unsigned char *ref = env.refBuf.data();
  // --bitwise, one process: the first defined output of each call, which
  // the other ranks' outputs of a shared-output collective must equal.
  const bool compareRanks = env.opt.bitwise && coll.sameOutput && !env.multi;
  std::vector<unsigned char> firstOut(compareRanks ? oc * es : 0);
  auto check = [&](std::string *e) {
    for (int k = 0; k < K; k++) {
      bool haveRef = false, callBad = false, sizeDone = false;
      int firstRank = -1;
      for (int r : env.local) {
        if (!coll.outputDefined(r, env.root)) continue;
        const char *src = mode == BufMode::Separate
                              ? B(r, k) + outOffset(env, count, inplace, r) * es
                              : B(r, k);
        if (!copyOut(env, r, host, src, oc * es, e)) return false;
        if (compareSizes && k == 0 && !sizeDone) {
          sizeDone = true;
          auto &[refCount, refOut] =
              env.sizeRef[{(int)t, (int)row.op, inplace}];
          const size_t common = std::min(refCount, oc);
          for (size_t i = 0; i < common; i++)
            if (std::memcmp(host + i * es, refOut.data() + i * es, es) != 0) {
              if (!mine.sizeDiff) {
                mine.sizeDiffAt = i;
                mine.sizeDiffCount = refCount;
              }
              mine.sizeDiff++;
            }
          if (oc > refCount) {
            refCount = oc;
            refOut.assign(host, host + oc * es);
          }
        }
        if (compareRanks) {
          if (firstRank < 0) {
            firstRank = r;
            std::memcpy(firstOut.data(), host, oc * es);
          } else {
            for (size_t i = 0; i < oc; i++)
              if (std::memcmp(host + i * es, firstOut.data() + i * es, es) != 0) {
                if (mine.diffCall < 0) {
                  mine.diffCall = k;
                  mine.diffRank = r;
                  mine.diffBase = firstRank;
                  mine.diffAt = i;
                }
                mine.rankDiff++;
              }
          }
        }
        size_t first = oc;
        size_t w;
        double want = 0;
        if (floats) {
          const size_t base = coll.kind == CollKind::ReduceScatter ? count * (size_t)r : 0;
          w = countFloatMismatches(gens[k], base, t, host, oc, &first, &want);
        } else {
          if (!haveRef || !coll.sameOutput) {
            // From the accumulated reduction: what reduceRef writes,
            // elements base .. base + oc - 1 of the inputs' reduction.
            const size_t base =
                coll.kind == CollKind::ReduceScatter ? count * (size_t)r : 0;
            if (accs.empty()) coll.reference(gens[k], r, count, t, ref);
            else storeReduction(accs[k].data() + base, oc, t, ref);
          }
          haveRef = true;
          w = countMismatches(t, bits, host, ref, oc, &first);
        }
        if (!w) continue;
        if (mine.firstCall < 0) {
          mine.firstCall = k;
          mine.firstRank = r;
          mine.firstAt = first;
          mine.firstGot = fmtElem(t, bits, host, first);
          mine.firstWant = floats ? fmt::format("{:.9g}", want) : fmtElem(t, bits, ref, first);
        }
        mine.wrong += w;
        callBad = true;
        if (std::find(mine.badRanks.begin(), mine.badRanks.end(), r) == mine.badRanks.end())
          mine.badRanks.push_back(r);
      }
      if (callBad) mine.badCalls.push_back(k);
    }
    std::sort(mine.badRanks.begin(), mine.badRanks.end());
    return true;
  };

  bool ok = stage(err);
  Graphs g;
  if (ok) ok = graph ? captureGraphs(env, queue, &g, err) && launchGraphs(env, g, err)
                     : queue(err);
  if (!agree(env, ok, err)) return false;
  ok = b.syncAll(err) && check(err);
  std::vector<std::string> all;
  if (!agree(env, ok, err, packOutcome(mine), &all)) return false;
  if (!env.multi) {
    *out = mine;
    return true;
  }
  *out = CheckOutcome();
  for (const std::string &s : all) out->merge(unpackOutcome(s));
  return true;
}

namespace {

// The exchange that ends a timed run: every rank's status, and *us becomes
// the max over ranks (as nccl-tests).
bool agreeTime(Env &env, bool ok, double *us, std::string *err) {
  std::vector<std::string> all;
  if (!agree(env, ok, err, Pack().f64(*us).bytes(), &all)) return false;
  for (const std::string &s : all) *us = std::max(*us, Unpack(s).f64());
  return true;
}

}  // namespace

bool timedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
              double *us, std::string *err) {
  const int n = env.n;
  const int iters = env.opt.iters;
  const size_t count = row.count, es = dtypeSize(row.t);
  const DType t = row.t;
  const Op op = row.op;
  std::vector<void *> in(n), out(n);
  for (int r : env.local) {
    char *work = (char *)env.recv[r];
    in[r] = inplace ? work + inOffset(env, count, true, r) * es : env.send[r];
    out[r] = work + outOffset(env, count, inplace, r) * es;
  }
  bool ok = true;
  for (int i = 0; i < env.opt.warmup && ok; i++)
    ok = b.launchAll(in, out, count, t, op, err);
  ok = ok && b.syncAll(err);
  // With one process per rank: every rank warmed up, and the timed calls
  // of all ranks start together (each rank times its own; agreeTime takes
  // the max).
  if (!agree(env, ok, err)) return false;

  // The measurement of this process's ranks; every return leads to the
  // exchange below, which every rank reaches.
  auto measure = [&]() -> bool {
    if (!env.cuda) {
      auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iters; i++)
        if (!b.launchAll(in, out, count, t, op, err)) return false;
      if (!b.syncAll(err)) return false;
      auto t1 = std::chrono::steady_clock::now();
      *us = std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
      return true;
    }

    const cu::CudaDriver *d = env.drv;
    const int G = env.opt.graphLaunches;
    Graphs g;
    if (G > 0) {
      auto queue = [&](std::string *e) {
        for (int i = 0; i < iters; i++)
          if (!b.launchAll(in, out, count, t, op, e)) return false;
        return true;
      };
      if (!captureGraphs(env, queue, &g, err)) return false;
      if (env.opt.warmup > 0 && (!launchGraphs(env, g, err) || !b.syncAll(err)))
        return false;
    }
    for (int r : env.local)
      if (!env.setRank(r, err) ||
          !env.cu(d->cuEventRecord(env.evStart[r], env.streams[r]), "cuEventRecord", r, err))
        return false;
    if (G > 0) {
      for (int k = 0; k < G; k++)
        if (!launchGraphs(env, g, err)) return false;
    } else {
      for (int i = 0; i < iters; i++)
        if (!b.launchAll(in, out, count, t, op, err)) return false;
    }
    for (int r : env.local)
      if (!env.setRank(r, err) ||
          !env.cu(d->cuEventRecord(env.evStop[r], env.streams[r]), "cuEventRecord", r, err))
        return false;
    if (!b.syncAll(err)) return false;
    double maxMs = 0;
    for (int r : env.local) {
      float ms = 0;
      if (!env.setRank(r, err) ||
          !env.cu(d->cuEventSynchronize(env.evStop[r]), "cuEventSynchronize", r, err) ||
          !env.cu(d->cuEventElapsedTime(&ms, env.evStart[r], env.evStop[r]),
                  "cuEventElapsedTime", r, err))
        return false;
      maxMs = std::max(maxMs, (double)ms);
    }
    *us = maxMs * 1000.0 / ((double)iters * (G > 0 ? G : 1));
    return true;
  };
  ok = measure();
  return agreeTime(env, ok, us, err);
}


}  // namespace cclperf
