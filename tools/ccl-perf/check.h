// check.h - test data, reference results and collective descriptions.
//
// Reductions (AllReduce, ReduceScatter, Reduce) get integer valued inputs,
// chosen so that every partial result is exactly representable in float32,
// float16 and bfloat16 for up to 64 ranks (whatever order the algorithm
// reduces in); results are compared as float:
//   sum      values in [-4, 4]                 |result| <= 256
//   prod     +-1, and +-2 on a window of k ranks (k <= 8, mostly 0)
//                                              |result| <= 256
//   max/min  values in [-100, 100]
// Byte-moving collectives (AllGather, AllToAll, Broadcast) must be exact for
// any data: their inputs are arbitrary bit patterns (NaNs, infinities,
// subnormals and negative zero included) and results are compared bit for
// bit.
// Element values are a hash of (key, rank, index), so any rank's input and
// the reference can be computed independently and in parallel.
#ifndef CCL_PERF_CHECK_H
#define CCL_PERF_CHECK_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "tools/ccl-perf/dtype.h"

namespace cclperf {

// Runs fn(begin, end) over [0, n) on up to hardware_concurrency threads.
void parallelFor(size_t n, const std::function<void(size_t, size_t)> &fn);

struct InputGen {
  uint64_t key = 0;
  Op op = Op::Sum;
  int nranks = 1;
  int root = 0;
  // true: arbitrary bit patterns (byte-moving collectives); false: the
  // exact-integer scheme of `op` (reductions).
  bool bits = false;
  // Reductions with --bitwise: random finite floats of mixed sign and
  // magnitude instead of the exact integers (floatAt).
  bool floats = false;
  // The seed of `rank`'s input in the exact-integer scheme: element i is
  // drawn from the i-th splitmix64 output from it.
  uint64_t valueBase(int rank) const;
  // The seed of the per-element windows of the prod scheme (the same for
  // every rank).
  uint64_t prodBase() const;
  // The seed of `rank`'s input in the bit-pattern scheme: element i is
  // the i-th splitmix64 output from it, cut to the type's width (never the
  // type's poison pattern).
  uint64_t bitsBase(int rank) const;
  // Writes `count` elements of `rank`'s input (elements 0 .. count-1) as `t`
  // into dst, in the scheme `bits` selects. With acc (the exact-integer
  // scheme only): also acc[i] = acc[i] op element i, so that once every
  // rank's input is filled into an accumulator that started at
  // startReduction, acc holds the exact reduction of the call's inputs
  // (storeReduction) without generating them again.
  void fill(int rank, DType t, void *dst, size_t count,
            int32_t *acc = nullptr) const;
  // Sets acc[0 .. count-1] to the identity of `op`.
  void startReduction(int32_t *acc, size_t count) const;
};

// Writes acc[0 .. count-1] (an exact-integer reduction, InputGen::fill) as
// `t` into out: the same bits as the reference the collective's own
// reference function computes from the generator.
void storeReduction(const int32_t *acc, size_t count, DType t, void *out);

// Element i of `rank`'s input in the float scheme (InputGen::floats), as
// type t holds it: sum x * 2^e with x in [-1, 1) and e in -3..3; max and
// min the same; prod +-(0.9 .. 1.1), so that 64 ranks stay in float16's
// range.
float floatAt(const InputGen &g, int rank, size_t i, DType t);

// Elements of `out` (a reduction's count output elements, those of input
// elements base .. base + count - 1) outside the rounding of the float
// scheme's reference: max and min exact; sum within 2 n eps sum|x| and prod
// within 2 n eps |ref| (eps of type t, n ranks). *first and *want: the first
// such element and its reference.
size_t countFloatMismatches(const InputGen &g, size_t base, DType t,
                            const void *out, size_t count, size_t *first,
                            double *want);

// A key for the checked call number `call` of a session seeded with `seed`.
uint64_t makeKey(uint64_t seed, uint64_t call);

// Fills count elements with a NaN pattern (so unwritten output is wrong).
void fillPoison(DType t, void *dst, size_t count);

// Number of elements of `out` that differ from `ref` (both `count` elements
// of type t). bits: compared bit for bit; else as float (NaN is wrong).
// *first gets the index of the first mismatch (count if none).
size_t countMismatches(DType t, bool bits, const void *out, const void *ref,
                       size_t count, size_t *first);

// What ccl-perf knows about a collective: buffer sizes, bus-bandwidth factor
// (nccl-tests' definitions), the in-place layout (NCCL's) and the reference.
enum class CollKind { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce };

struct Collective {
  CollKind kind;
  const char *name;  // as in ccl_plan::collective
  bool reduction;    // takes a reduction operator (exact-integer data)
  bool rooted;       // has a root (Broadcast, Reduce): ccl_plan::root
  bool rootOutputOnly;  // only the root's output is defined (Reduce)
  bool hasInplace;   // has an in-place form (AllToAll has none)
  // busbw = algbw * busFactor(nranks).
  double (*busFactor)(int nranks);
  // Elements of each rank's input / output buffer for a call with `count`.
  size_t (*inCount)(size_t count, int nranks);
  size_t (*outCount)(size_t count, int nranks);
  // Bytes that define algbw (nccl-tests: the larger of input and output).
  size_t (*dataBytes)(size_t count, int nranks, size_t esize);
  // In place, input and output lie in one buffer of
  // max(inCount, outCount) elements, at these element offsets (AllGather:
  // input = output + rank * count; ReduceScatter: output = input + rank *
  // count; else both at 0).
  size_t (*inplaceInOffset)(size_t count, int nranks, int rank);
  size_t (*inplaceOutOffset)(size_t count, int nranks, int rank);
  // Whether every rank with a defined output expects the same output.
  bool sameOutput;
  // Expected output of `rank` (outCount elements of type t) into out.
  void (*reference)(const InputGen &gen, int rank, size_t count, DType t,
                    void *out);

  bool outputDefined(int rank, int root) const {
    return !rootOutputOnly || rank == root;
  }
  // Elements of the one buffer of an in-place call.
  size_t inplaceCount(size_t count, int nranks) const {
    size_t i = inCount(count, nranks), o = outCount(count, nranks);
    return i > o ? i : o;
  }
};

// nullptr if unknown. Names are matched case-insensitively.
const Collective *findCollective(const std::string &name);
// "AllReduce, AllGather, ..." for messages.
std::string collectiveNames();

}  // namespace cclperf

#endif  // CCL_PERF_CHECK_H
