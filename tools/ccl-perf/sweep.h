// sweep.h - a sweep: every size x (dtype, op) of the options, each row
// checked and timed out of place and in place, printed as nccl-tests'
// table; and the summary below it.
#ifndef CCL_PERF_SWEEP_H
#define CCL_PERF_SWEEP_H

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "tools/ccl-perf/backend.h"
#include "tools/ccl-perf/env.h"

namespace cclperf {

// One measurement of a row: out of place or in place.
struct PlaceResult {
  bool ran = false;
  double us = 0, algbw = 0, busbw = 0;
  size_t wrong = 0;
  std::string algo;  // the algorithm that served it (--coll), else ""
};

// One row of the table: a size, a dtype and an operator.
struct Row {
  size_t bytes = 0, count = 0;
  DType t;
  Op op;
  PlaceResult place[2];  // out-of-place, in-place
};

// The rows of a sweep and how it ended.
struct SweepResult {
  std::vector<Row> rows;
  size_t wrong = 0;
  // --bitwise (bitwise true): elements whose bits differ between ranks
  // that share an output (CheckOutcome::rankDiff), over every row.
  bool bitwise = false;
  size_t rankDiff = 0;
  // --bitwise, AllReduce and Reduce: elements whose bits differ from
  // another count's with the same inputs (CheckOutcome::sizeDiff), every row.
  bool sizes = false;
  size_t sizeDiff = 0;
  bool failed = false;
  std::string error;  // what failed, with its context (printed once)
  double avgBusbw() const {
    double sum = 0;
    int k = 0;
    for (const Row &r : rows)
      for (const PlaceResult &p : r.place)
        if (p.ran) {
          sum += p.busbw;
          k++;
        }
    return k ? sum / k : 0;
  }
};

// What a sweep leaves out (the plan's kernels and largest message).
struct RowFilter {
  // Returns false (and why) to leave a (dtype, op) or size out of the sweep.
  std::function<bool(DType, Op, std::string *)> combo;
  std::function<bool(size_t bytes, std::string *)> size;
};

// Runs the sweep with backend b and prints its table under `title`; stops
// at the first failure (printed beside its row). `delays`: apply --delay
// around the checked calls (cclc only).
SweepResult sweep(Env &env, Backend &b, const RowFilter &filter,
                  const char *title, bool delays);

// "# Out of bounds values : N OK" and the average bus bandwidth; `prefix`
// names the backend ("NCCL ").
void printSummary(const char *prefix, const SweepResult &r, bool check);

}  // namespace cclperf

#endif  // CCL_PERF_SWEEP_H
