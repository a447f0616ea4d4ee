// output.h - the rows of a run as CSV (--csv) and as a plot (--plot: busbw
// and time against size, cclc beside NCCL when compared).
#ifndef CCL_PERF_OUTPUT_H
#define CCL_PERF_OUTPUT_H

#include "tools/ccl-perf/env.h"
#include "tools/ccl-perf/sweep.h"

namespace cclperf {

// Writes --csv and --plot when given (`theirs`: NCCL's rows, or null). A
// failure to write or plot is reported (# ERROR, with the reason: a
// missing matplotlib is a clear message) and returns false: the run then
// exits 1, since an output the user asked for was not written.
bool writeOutputs(const Env &env, const SweepResult &mine, const SweepResult *theirs);

}  // namespace cclperf

#endif  // CCL_PERF_OUTPUT_H
