// check.h - test data, reference results and collective descriptions.
//
// Inputs are integer valued and chosen so that every partial result is
// exactly representable in float32, float16 and bfloat16 for up to 64 ranks
// (whatever order the algorithm reduces in):
//   sum      values in [-4, 4]                 |result| <= 256
//   prod     +-1, and +-2 on a window of k ranks (k <= 8, mostly 0)
//                                              |result| <= 256
//   max/min  values in [-100, 100]
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
  // Input element `i` of `rank`.
  double value(int rank, size_t i) const;
  // Writes `count` elements of `rank`'s input as `t` into dst.
  void fill(int rank, DType t, void *dst, size_t count) const;
};

// A key for the checked run number `run` of a session seeded with `seed`.
uint64_t makeKey(uint64_t seed, uint64_t run);

// Fills count elements with a NaN pattern (so unwritten output is wrong).
void fillPoison(DType t, void *dst, size_t count);

// Number of elements of `out` (type t) that differ from ref (as float).
size_t countMismatches(DType t, const void *out, const float *ref, size_t count);

// What ccl-perf knows about a collective: buffer sizes, bus-bandwidth factor
// (nccl-tests' definitions) and the reference result.
struct Collective {
  const char *name;  // as in ccl_plan::collective
  bool reduction;    // takes a reduction operator
  // Whether ccl-perf can check it yet (reference implemented).
  bool checkable;
  // busbw = algbw * busFactor(nranks).
  double (*busFactor)(int nranks);
  // Elements of each rank's input / output buffer for a call with `count`.
  size_t (*inCount)(size_t count, int nranks);
  size_t (*outCount)(size_t count, int nranks);
  // Bytes that define algbw (nccl-tests: the larger of input and output).
  size_t (*dataBytes)(size_t count, int nranks, size_t esize);
  // Whether every rank has the same expected output.
  bool sameOutput;
  // Expected output of `rank` (outCount elements) as float.
  void (*reference)(const InputGen &gen, int rank, size_t count, float *out);
};

// nullptr if unknown. Names are matched case-insensitively.
const Collective *findCollective(const std::string &name);

}  // namespace cclperf

#endif  // CCL_PERF_CHECK_H
