#include "tools/ccl-perf/check.h"

#include <strings.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <type_traits>
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

uint64_t makeKey(uint64_t seed, uint64_t call) {
  return mix64(mix64(seed) ^ (call * 0xd1b54a32d192ed03ull));
}

// Element `i` of the stream `base` (splitmix64: one finalizer per element).
static inline uint64_t bitsHash(uint64_t base, size_t i) {
  return mix64(base + (uint64_t)i * 0x9e3779b97f4a7c15ull);
}

uint64_t InputGen::valueBase(int rank) const {
  return mix64(key ^ 0x243f6a8885a308d3ull ^ ((uint64_t)rank << 48));
}

uint64_t InputGen::prodBase() const { return mix64(key ^ 0x5bd1e995ull); }

// Element `i` of `rank`'s input in the exact-integer scheme of `O`, from
// that rank's stream `base` (valueBase) and, for prod, the call's
// `prodBase`. The operator is a template argument: the generators run over
// every element of every input and reference, and a switch per element
// was a third of their time.
template <Op O>
static inline int valueAt(int nranks, uint64_t base, uint64_t prodBase,
                          int rank, size_t i) {
  uint64_t h = bitsHash(base, i);
  if constexpr (O == Op::Sum) {
    return (int)(h % 9) - 4;
  } else if constexpr (O == Op::Max || O == Op::Min) {
    return (int)(h % 201) - 100;
  } else {
    int sign = (h & 1) ? -1 : 1;
    // Per element (same for all ranks): a window of k ranks holds +-2.
    uint64_t e = bitsHash(prodBase, i);
    int k = 0;
    if ((e & 3) == 0) k = 1 + (int)((e >> 2) % 8);  // 1..8, on 1/4 of elements
    if (k > nranks) k = nranks;
    int start = (int)((e >> 16) % (uint64_t)nranks);
    int pos = (rank - start + nranks) % nranks;
    return pos < k ? 2 * sign : sign;
  }
}

// Calls fn(std::integral_constant<Op, o>) for the operator `o`, and
// fn(std::integral_constant<DType, t>) for the type `t`: one case per
// entry of ccl/types.def.
template <typename Fn>
static void withOp(Op o, Fn &&fn) {
  switch (o) {
#define CCL_REDOP(ID, CName, ...) \
    case Op::CName: fn(std::integral_constant<Op, Op::CName>()); return;
#include "ccl/types.def"
  }
}
template <typename Fn>
static void withDType(DType t, Fn &&fn) {
  switch (t) {
#define CCL_DTYPE(ID, CName, ...) \
    case DType::CName: fn(std::integral_constant<DType, DType::CName>()); return;
#include "ccl/types.def"
  }
}

static const uint32_t kPoison32 = 0x7fc0dead;  // quiet NaN, recognisable payload
static uint16_t poison16(DType t) { return t == DType::Float16 ? 0x7e5a : 0x7fda; }

uint64_t InputGen::bitsBase(int rank) const {
  return mix64(key ^ 0x6a09e667f3bcc909ull ^ ((uint64_t)rank << 48));
}

static inline uint32_t bits32(uint64_t h) {
  uint32_t v = (uint32_t)(h >> 16);
  return v == kPoison32 ? v ^ 1u : v;
}

static inline uint16_t bits16(uint64_t h, uint16_t poison) {
  uint16_t v = (uint16_t)(h >> 24);
  return v == poison ? (uint16_t)(v ^ 1u) : v;
}

// Writes elements from + b .. from + e - 1 of `rank`'s bit-pattern input
// (dtypeSize(t) bytes each, never t's poison) to elements b .. e - 1 of dst.
static void storeBitsRange(const InputGen &g, int rank, size_t from, DType t,
                           void *dst, size_t b, size_t e) {
  const uint64_t base = g.bitsBase(rank);
  if (dtypeSize(t) == 4) {
    uint32_t *d = (uint32_t *)dst;
    for (size_t j = b; j < e; j++) {
      uint32_t v = bits32(bitsHash(base, from + j));
      std::memcpy(d + j, &v, 4);
    }
  } else {
    const uint16_t poison = poison16(t);
    uint16_t *d = (uint16_t *)dst;
    for (size_t j = b; j < e; j++) {
      uint16_t v = bits16(bitsHash(base, from + j), poison);
      std::memcpy(d + j, &v, 2);
    }
  }
}

// The 16-bit types' encodings of the integers -256 .. 256 (every input
// and partial result of the exact-integer scheme but large products).
namespace {
constexpr int kIntMax = 256;
struct IntTable {
  uint16_t half[2 * kIntMax + 1], bf16[2 * kIntMax + 1];
  IntTable() {
    for (int x = -kIntMax; x <= kIntMax; x++) {
      half[x + kIntMax] = floatToHalf((float)x);
      bf16[x + kIntMax] = floatToBf16((float)x);
    }
  }
};
const IntTable kIntTable;
}  // namespace

// Stores the integer v as T (element i of dst).
template <DType T>
static inline void storeInt(void *dst, size_t i, int v) {
  if constexpr (T == DType::Float32) {
    float f = (float)v;
    std::memcpy((char *)dst + 4 * i, &f, 4);
  } else {
    if (v < -kIntMax || v > kIntMax) {
      storeFromFloat(T, dst, i, (float)v);
      return;
    }
    uint16_t h = T == DType::Float16 ? kIntTable.half[v + kIntMax]
                                     : kIntTable.bf16[v + kIntMax];
    std::memcpy((char *)dst + 2 * i, &h, 2);
  }
}

float floatAt(const InputGen &g, int rank, size_t i, DType t) {
  const uint64_t h = bitsHash(g.valueBase(rank) ^ 0x6a09e667f3bcc909ull, i);
  const double u = (double)(h >> 11) / (double)(1ull << 53);  // [0, 1)
  float v;
  if (g.op == Op::Prod)
    v = (float)((h & 1 ? -1.0 : 1.0) * (0.9 + 0.2 * u));
  else
    v = (float)((2.0 * u - 1.0) * std::ldexp(1.0, (int)((h >> 3) % 7) - 3));
  // As the type holds it (the reference reduces what the ranks hold).
  unsigned char tmp[4];
  storeFromFloat(t, tmp, 0, v);
  return loadAsFloat(t, tmp, 0);
}

size_t countFloatMismatches(const InputGen &g, size_t base, DType t,
                            const void *out, size_t count, size_t *first,
                            double *want) {
  const double eps = t == DType::Float32   ? std::ldexp(1.0, -24)
                     : t == DType::Float16 ? std::ldexp(1.0, -11)
                                           : std::ldexp(1.0, -8);
  std::atomic<size_t> wrong{0};
  std::atomic<size_t> firstBad{count};
  parallelFor(count, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; i++) {
      double ref = floatAt(g, 0, base + i, t), mag = std::fabs(ref);
      for (int r = 1; r < g.nranks; r++) {
        double x = floatAt(g, r, base + i, t);
        switch (g.op) {
          case Op::Sum: ref += x; break;
          case Op::Prod: ref *= x; break;
          case Op::Max: ref = std::max(ref, x); break;
          case Op::Min: ref = std::min(ref, x); break;
        }
        mag += std::fabs(x);
      }
      const double got = loadAsFloat(t, out, i);
      double tol = 0;
      if (g.op == Op::Sum) tol = 2.0 * g.nranks * eps * mag;
      if (g.op == Op::Prod) tol = 2.0 * g.nranks * eps * std::fabs(ref);
      // max and min: the reference is one of the inputs, exactly.
      if (!(std::fabs(got - ref) <= tol)) {
        wrong++;
        size_t cur = firstBad.load();
        while (i < cur && !firstBad.compare_exchange_weak(cur, i)) {
        }
      }
    }
  });
  *first = firstBad.load();
  if (*first < count) {
    double ref = floatAt(g, 0, base + *first, t);
    for (int r = 1; r < g.nranks; r++) {
      double x = floatAt(g, r, base + *first, t);
      ref = g.op == Op::Sum    ? ref + x
            : g.op == Op::Prod ? ref * x
            : g.op == Op::Max  ? std::max(ref, x)
                               : std::min(ref, x);
    }
    *want = ref;
  }
  return wrong.load();
}

void InputGen::fill(int rank, DType t, void *dst, size_t count,
                    int32_t *acc) const {
  parallelFor(count, [&](size_t b, size_t e) {
    if (floats && !bits) {
      for (size_t i = b; i < e; i++) storeFromFloat(t, dst, i, floatAt(*this, rank, i, t));
      return;
    }
    if (bits) {
      storeBitsRange(*this, rank, 0, t, dst, b, e);
      return;
    }
    const uint64_t base = valueBase(rank), pb = prodBase();
    const int n = nranks;
    withOp(op, [&](auto o) {
      withDType(t, [&](auto ty) {
        if (!acc) {
          for (size_t i = b; i < e; i++)
            storeInt<decltype(ty)::value>(dst, i, valueAt<decltype(o)::value>(n, base, pb, rank, i));
          return;
        }
        for (size_t i = b; i < e; i++) {
          const int v = valueAt<decltype(o)::value>(n, base, pb, rank, i);
          storeInt<decltype(ty)::value>(dst, i, v);
          acc[i] = applyOp(decltype(o)::value, acc[i], (int32_t)v);
        }
      });
    });
  });
}

void InputGen::startReduction(int32_t *acc, size_t count) const {
  // The exact-integer scheme's values and partial results are small
  // integers (sums of |x| <= 100 per rank, products +-2^k with k <= 8), so
  // any order of the ranks gives the reference's reduction exactly.
  int32_t id = 0;
  switch (op) {
    case Op::Sum: id = 0; break;
    case Op::Prod: id = 1; break;
    case Op::Max: id = INT32_MIN; break;
    case Op::Min: id = INT32_MAX; break;
  }
  std::fill(acc, acc + count, id);
}

void storeReduction(const int32_t *acc, size_t count, DType t, void *out) {
  parallelFor(count, [&](size_t b, size_t e) {
    withDType(t, [&](auto ty) {
      for (size_t i = b; i < e; i++) storeInt<decltype(ty)::value>(out, i, acc[i]);
    });
  });
}

void fillPoison(DType t, void *dst, size_t count) {
  if (t == DType::Float32) {
    for (size_t i = 0; i < count; i++) std::memcpy((char *)dst + 4 * i, &kPoison32, 4);
  } else {
    uint16_t p = poison16(t);
    for (size_t i = 0; i < count; i++) std::memcpy((char *)dst + 2 * i, &p, 2);
  }
}

size_t countMismatches(DType t, bool bits, const void *out, const void *ref,
                       size_t count, size_t *first) {
  std::atomic<size_t> wrong{0};
  std::atomic<size_t> firstBad{count};
  const size_t es = dtypeSize(t);
  parallelFor(count, [&](size_t b, size_t e) {
    // Most checked outputs are right: one comparison of the whole range
    // settles them. Equal bits are equal floats too, since a reference
    // holds no NaN (a reduction's reference is finite; a byte-moving
    // collective's is compared bit for bit).
    if (std::memcmp((const char *)out + b * es, (const char *)ref + b * es,
                    (e - b) * es) == 0)
      return;
    size_t w = 0, f = count;
    for (size_t i = b; i < e; i++) {
      bool bad = bits ? std::memcmp((const char *)out + i * es,
                                    (const char *)ref + i * es, es) != 0
                      // NaN counts as wrong.
                      : !(loadAsFloat(t, out, i) == loadAsFloat(t, ref, i));
      if (bad) {
        if (f == count) f = i;
        w++;
      }
    }
    wrong += w;
    size_t cur = firstBad.load();
    while (f < cur && !firstBad.compare_exchange_weak(cur, f)) {
    }
  });
  *first = firstBad.load();
  return wrong.load();
}

// --- Collectives -----------------------------------------------------------

static size_t identity(size_t c, int) { return c; }
static size_t timesRanks(size_t c, int n) { return c * (size_t)n; }
static size_t sameBytes(size_t c, int, size_t es) { return c * es; }
static size_t gatheredBytes(size_t c, int n, size_t es) { return c * (size_t)n * es; }
static size_t atZero(size_t, int, int) { return 0; }
static size_t atRankBlock(size_t c, int, int rank) { return c * (size_t)rank; }

static double allReduceFactor(int n) { return n > 0 ? 2.0 * (n - 1) / n : 0; }
static double gatherFactor(int n) { return n > 0 ? (double)(n - 1) / n : 0; }
static double rootedFactor(int) { return 1.0; }

// out[i] = op over ranks of input element `base + i`, for i < count.
static void reduceRef(const InputGen &g, size_t base, size_t count, DType t,
                      void *out) {
  std::vector<uint64_t> bases(g.nranks);
  for (int r = 0; r < g.nranks; r++) bases[r] = g.valueBase(r);
  const uint64_t pb = g.prodBase();
  const int n = g.nranks;
  parallelFor(count, [&](size_t b, size_t e) {
    withOp(g.op, [&](auto o) {
      withDType(t, [&](auto ty) {
        for (size_t i = b; i < e; i++) {
          int acc = valueAt<decltype(o)::value>(n, bases[0], pb, 0, base + i);
          for (int r = 1; r < n; r++)
            acc = applyOp(decltype(o)::value, acc,
                          valueAt<decltype(o)::value>(n, bases[r], pb, r, base + i));
          storeInt<decltype(ty)::value>(out, i, acc);
        }
      });
    });
  });
}

static void allReduceRef(const InputGen &g, int, size_t count, DType t, void *out) {
  reduceRef(g, 0, count, t, out);
}
// Rank r receives the reduction of block r of every rank's input.
static void reduceScatterRef(const InputGen &g, int rank, size_t count, DType t,
                             void *out) {
  reduceRef(g, count * (size_t)rank, count, t, out);
}
// Block p of every output is rank p's input.
static void allGatherRef(const InputGen &g, int, size_t count, DType t, void *out) {
  const size_t n = (size_t)g.nranks;
  parallelFor(n * count, [&](size_t b, size_t e) {
    // Block p (elements [p * count, (p + 1) * count)) is rank p's input.
    for (size_t j = b; j < e;) {
      size_t p = j / count, end = std::min(e, (p + 1) * count);
      char *blk = (char *)out + p * count * dtypeSize(t);
      storeBitsRange(g, (int)p, 0, t, blk, j - p * count, end - p * count);
      j = end;
    }
  });
}
// Block p of rank r's output is block r of rank p's input.
static void allToAllRef(const InputGen &g, int rank, size_t count, DType t,
                        void *out) {
  const size_t n = (size_t)g.nranks;
  parallelFor(n * count, [&](size_t b, size_t e) {
    for (size_t j = b; j < e;) {
      size_t p = j / count, end = std::min(e, (p + 1) * count);
      char *blk = (char *)out + p * count * dtypeSize(t);
      storeBitsRange(g, (int)p, (size_t)rank * count, t, blk, j - p * count,
                     end - p * count);
      j = end;
    }
  });
}
static void broadcastRef(const InputGen &g, int, size_t count, DType t, void *out) {
  parallelFor(count, [&](size_t b, size_t e) {
    storeBitsRange(g, g.root, 0, t, out, b, e);
  });
}

// To add a collective: describe its buffers, in-place layout and
// bus-bandwidth factor here and write its reference (expected output of one
// rank from InputGen). The benchmark loop is collective-agnostic.
static const Collective kCollectives[] = {
    // kind, name, reduction, rooted, rootOutputOnly, hasInplace,
    // busFactor, inCount, outCount, dataBytes,
    // inplaceInOffset, inplaceOutOffset, sameOutput, reference
    {CollKind::AllReduce, "AllReduce", true, false, false, true,
     allReduceFactor, identity, identity, sameBytes,
     atZero, atZero, true, allReduceRef},
    // count = elements each rank contributes (NCCL's sendcount); in place:
    // input = output + rank * count.
    {CollKind::AllGather, "AllGather", false, false, false, true,
     gatherFactor, identity, timesRanks, gatheredBytes,
     atRankBlock, atZero, true, allGatherRef},
    // count = elements each rank receives (NCCL's recvcount); in place:
    // output = input + rank * count.
    {CollKind::ReduceScatter, "ReduceScatter", true, false, false, true,
     gatherFactor, timesRanks, identity, gatheredBytes,
     atZero, atRankBlock, false, reduceScatterRef},
    // count = elements sent to each peer; no in-place form.
    {CollKind::AllToAll, "AllToAll", false, false, false, false,
     gatherFactor, timesRanks, timesRanks, gatheredBytes,
     atZero, atZero, false, allToAllRef},
    // count elements from the root's input to every output.
    {CollKind::Broadcast, "Broadcast", false, true, false, true,
     rootedFactor, identity, identity, sameBytes,
     atZero, atZero, true, broadcastRef},
    // count elements; only the root's output is defined.
    {CollKind::Reduce, "Reduce", true, true, true, true,
     rootedFactor, identity, identity, sameBytes,
     atZero, atZero, true, allReduceRef},
};

const Collective *findCollective(const std::string &name) {
  for (const Collective &c : kCollectives)
    if (strcasecmp(c.name, name.c_str()) == 0) return &c;
  return nullptr;
}

std::string collectiveNames() {
  std::string s;
  for (const Collective &c : kCollectives) {
    if (!s.empty()) s += ", ";
    s += c.name;
  }
  return s;
}

}  // namespace cclperf
