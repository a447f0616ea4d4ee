// run.h - the two runs of one row of a sweep: the back-to-back check
// (checkedRun: K calls per rank with no host synchronisation, then one
// check of all K results) and the timed run (timedRun).
#ifndef CCL_PERF_RUN_H
#define CCL_PERF_RUN_H

#include <cstddef>
#include <string>
#include <vector>

#include "tools/ccl-perf/backend.h"
#include "tools/ccl-perf/env.h"

namespace cclperf {

// What one row runs: count elements of type t, reduced with op.
struct RowSpec {
  size_t count = 0;
  DType t = DType::Float32;
  Op op = Op::Sum;
};

// The buffers of the check's calls: separate ones per call, or the working
// buffers refilled with cclMemcpyAsync (see checkedRun).
enum class BufMode { Separate, Reused };

// Bytes of one buffer of the check for a row: its largest buffer (an
// in-place call's buffer holds both input and output).
size_t slotBytes(const Env &env, const RowSpec &row);
// K for a row: the arena holds 2K + 1 buffers of slotBytes (see checkedRun).
int rowCalls(const Env &env, size_t slot);

// What the check of one checked run found, over every rank's defined
// output of every call.
struct CheckOutcome {
  size_t wrong = 0;
  std::vector<int> badCalls, badRanks;  // ascending
  // The first wrong element in issue order (call, then rank): its call,
  // rank, index, value and expected value (firstCall < 0: none).
  int firstCall = -1, firstRank = -1;
  size_t firstAt = 0;
  std::string firstGot, firstWant;
  // --bitwise: elements of an output several ranks share whose bits differ
  // from the first such rank's, and the first of them in issue order.
  size_t rankDiff = 0;
  int diffCall = -1, diffRank = -1, diffBase = -1;
  size_t diffAt = 0;
  // --bitwise, AllReduce and Reduce: elements of call 0's output whose bits
  // differ from the same element of the largest count's output checked
  // before (the same inputs at every count), the first of them and that
  // count.
  size_t sizeDiff = 0, sizeDiffAt = 0, sizeDiffCount = 0;
  // Adds another rank's outcome (one process per rank).
  void merge(const CheckOutcome &o);
};

// The "#   wrong: ..." line (without that prefix) for an outcome with
// wrong values.
std::string wrongNote(const CheckOutcome &o, bool inplace, BufMode mode, bool graph,
                      int K);

// One checked run of K calls per rank, eager or as one CUDA graph per rank,
// in `mode`; *out gets what the check found (with one process per rank,
// over every rank: the same on every rank). False (and *err) when a call
// failed on any rank.
bool checkedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
                bool graph, BufMode mode, int K, CheckOutcome *out,
                std::string *err);

// Average time of one iteration in microseconds (*us); with one process
// per rank, the max over the ranks (the same on every rank). False (and
// *err) when a call failed on any rank.
bool timedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
              double *us, std::string *err);

}  // namespace cclperf

#endif  // CCL_PERF_RUN_H
