#include "tools/ccl-perf/check.h"

#include <strings.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace cclperf {

void parallelFor(size_t n, const std::function<void(size_t, size_t)> &fn) {
  const size_t kMinPerThread = 1 << 16;
  size_t hw = std::max(1u, std::thread::hardware_concurrency());
  size_t nt = std::min(hw, (n + kMinPerThread - 1) / kMinPerThread);
  if (nt <= 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> threads;
  for (size_t t = 0; t < nt; t++) {
    size_t b = n * t / nt, e = n * (t + 1) / nt;
    threads.emplace_back([&fn, b, e] { fn(b, e); });
  }
  for (auto &th : threads) th.join();
}

static inline uint64_t mix64(uint64_t z) {  // splitmix64 finalizer
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

uint64_t makeKey(uint64_t seed, uint64_t run) {
  return mix64(mix64(seed) ^ (run * 0xd1b54a32d192ed03ull));
}

double InputGen::value(int rank, size_t i) const {
  uint64_t h = mix64(key ^ mix64(((uint64_t)rank << 48) ^ (uint64_t)i));
  switch (op) {
    case Op::Sum: return (double)(int)(h % 9) - 4.0;
    case Op::Max:
    case Op::Min: return (double)(int)(h % 201) - 100.0;
    case Op::Prod: {
      double sign = (h & 1) ? -1.0 : 1.0;
      // Per element (same for all ranks): a window of k ranks holds +-2.
      uint64_t e = mix64(key ^ 0x5bd1e995ull ^ (uint64_t)i);
      int k = 0;
      if ((e & 3) == 0) k = 1 + (int)((e >> 2) % 8);  // 1..8, on 1/4 of elements
      if (k > nranks) k = nranks;
      int start = (int)((e >> 16) % (uint64_t)nranks);
      int pos = (rank - start + nranks) % nranks;
      return pos < k ? 2.0 * sign : sign;
    }
  }
  return 0;
}

void InputGen::fill(int rank, DType t, void *dst, size_t count) const {
  parallelFor(count, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) storeFromFloat(t, dst, i, (float)value(rank, i));
  });
}

void fillPoison(DType t, void *dst, size_t count) {
  if (t == DType::F32) {
    uint32_t p = 0x7fc0dead;  // quiet NaN with a recognisable payload
    for (size_t i = 0; i < count; i++) std::memcpy((char *)dst + 4 * i, &p, 4);
  } else {
    uint16_t p = t == DType::F16 ? 0x7e5a : 0x7fda;  // quiet NaNs
    for (size_t i = 0; i < count; i++) std::memcpy((char *)dst + 2 * i, &p, 2);
  }
}

size_t countMismatches(DType t, const void *out, const float *ref, size_t count) {
  std::atomic<size_t> wrong{0};
  parallelFor(count, [&](size_t b, size_t e) {
    size_t w = 0;
    for (size_t i = b; i < e; i++)
      if (!(loadAsFloat(t, out, i) == ref[i])) w++;  // NaN counts as wrong
    wrong += w;
  });
  return wrong.load();
}

// --- Collectives -----------------------------------------------------------

static size_t identity(size_t c, int) { return c; }
static size_t timesRanks(size_t c, int n) { return c * (size_t)n; }
static size_t sameBytes(size_t c, int, size_t es) { return c * es; }
static size_t gatheredBytes(size_t c, int n, size_t es) { return c * (size_t)n * es; }

static double allReduceFactor(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0; }
static double gatherFactor(int n) { return n > 0 ? (double)(n - 1) / n : 0; }

static void allReduceRef(const InputGen &g, int, size_t count, float *out) {
  parallelFor(count, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) {
      double acc = g.value(0, i);
      for (int r = 1; r < g.nranks; r++) acc = applyOp(g.op, acc, g.value(r, i));
      out[i] = (float)acc;
    }
  });
}

// To add a collective: describe its buffers and bus-bandwidth factor here,
// write its reference (expected output of one rank from InputGen::value),
// and set checkable. The benchmark loop is collective-agnostic.
static const Collective kCollectives[] = {
    {"AllReduce", true, true, allReduceFactor, identity, identity, sameBytes,
     true, allReduceRef},
    // count = elements each rank contributes (NCCL's sendcount).
    {"AllGather", false, false, gatherFactor, identity, timesRanks,
     gatheredBytes, true, nullptr},
    // count = elements each rank receives (NCCL's recvcount).
    {"ReduceScatter", true, false, gatherFactor, timesRanks, identity,
     gatheredBytes, false, nullptr},
    // count = elements sent to each peer.
    {"AllToAll", false, false, gatherFactor, timesRanks, timesRanks,
     gatheredBytes, false, nullptr},
};

const Collective *findCollective(const std::string &name) {
  for (const Collective &c : kCollectives)
    if (strcasecmp(c.name, name.c_str()) == 0) return &c;
  return nullptr;
}

}  // namespace cclperf
