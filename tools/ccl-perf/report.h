// report.h - how ccl-perf reports a failure: once, as a "# ERROR:" line of
// the table (standard output) and, when standard error is another file,
// there too. With one process per rank (docs/ccl-perf.md, "One process per
// rank") rank 0 prints the reports; what the other ranks print goes to
// standard error with their rank.
#ifndef CCL_PERF_REPORT_H
#define CCL_PERF_REPORT_H

#include <stdexcept>
#include <string>

#include "ccl/ccl.h"

namespace cclperf {

// "WHAT on rank R failed: cclNoDevice: ...: <cclGetLastError()>" (rank < 0:
// no rank).
std::string cclError(const char *what, int rank, cclResult_t r);

// The one report of an error (continuation lines stay table comments).
void reportError(const std::string &msg);

// One process per rank: this process is rank `rank` of a job (-1, the
// default: one process drives every rank). Set once, before the options
// are parsed.
void setProcessRank(int rank);
// -1, or the rank of this process.
int processRank();

// A failure of the run that every process decides alike (the command line,
// the plan): reported and exits 1 at once (no teardown: the communicator
// may be aborted or in an unknown state). With one process per rank only
// rank 0 reports it. Inside a FatalScope it throws Fatal instead.
[[noreturn]] void fatal(const std::string &msg);

// A failure of this process that the other ranks cannot learn (no
// communicator to tell them through): every rank reports its own, rank 0
// as reportError, the others on standard error as "ccl-perf: rank R:
// error: MSG"; then exits 1.
[[noreturn]] void fatalHere(const std::string &msg);
// reportError for rank 0 (and in-process), "ccl-perf: rank R: error: MSG"
// on standard error for the other ranks.
void reportHere(const std::string &msg);

// Exits 1 without teardown. A rank other than 0 of a job first waits
// kLingerMs when `linger`: launchers (ccl-run, mpirun) end every rank as
// soon as one fails, and rank 0, which prints the report, must not be
// ended before it has.
constexpr int kLingerMs = 1000;
[[noreturn]] void exitFailure(bool linger);

// What fatal() throws inside a FatalScope.
struct Fatal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// While one lives, fatal() throws Fatal instead of exiting: with one
// process per rank, the setup steps after the communicator exists run in
// one, so that a failure of one rank reaches the others (which would wait
// for it at the next exchange) and rank 0 reports it (multiproc.h).
class FatalScope {
 public:
  FatalScope();
  ~FatalScope();
  FatalScope(const FatalScope &) = delete;
  FatalScope &operator=(const FatalScope &) = delete;
};

}  // namespace cclperf

#endif  // CCL_PERF_REPORT_H
