// report.h - how ccl-perf reports a failure: once, as a "# ERROR:" line of
// the table (standard output) and, when standard error is another file,
// there too.
#ifndef CCL_PERF_REPORT_H
#define CCL_PERF_REPORT_H

#include <string>

#include "ccl/ccl.h"

namespace cclperf {

// "WHAT on rank R failed: cclNoDevice: ...: <cclGetLastError()>" (rank < 0:
// no rank).
std::string cclError(const char *what, int rank, cclResult_t r);

// The one report of an error (continuation lines stay table comments).
void reportError(const std::string &msg);

// Reports the error and exits 1 at once (no teardown: the communicator may
// be aborted or in an unknown state).
[[noreturn]] void fatal(const std::string &msg);

}  // namespace cclperf

#endif  // CCL_PERF_REPORT_H
