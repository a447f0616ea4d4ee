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

// One checked run of K calls per rank, eager or as one CUDA graph per rank,
// in `mode`. Adds the wrong values (over every rank's defined output of
// every call) to *wrong and a line describing them to *notes; false (and
// *err) when a call failed.
bool checkedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
                bool graph, BufMode mode, int K, size_t *wrong,
                std::vector<std::string> *notes, std::string *err);

// Average time of one iteration in microseconds (*us).
bool timedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
              double *us, std::string *err);

}  // namespace cclperf

#endif  // CCL_PERF_RUN_H
