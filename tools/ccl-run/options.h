// options.h - ccl-run's command line (docs/ccl-run.md).
#ifndef CCL_TOOLS_CCL_RUN_OPTIONS_H
#define CCL_TOOLS_CCL_RUN_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

namespace cclrun {

// Exit status of ccl-run for a bad command line (as most Unix tools).
constexpr int kUsageStatus = 2;

struct Options {
  int nranks = 0;
  // Between the SIGTERM and the SIGKILL that end the ranks after a failure.
  int64_t graceMs = 3000;
  bool tagOutput = false;
  // PROGRAM and its arguments, as given (never empty).
  std::vector<std::string> command;
};

// Reads argv. --help and --version print and exit 0; a bad command line
// prints "ccl-run: ..." to stderr and exits with kUsageStatus.
Options parseOptions(int argc, char **argv);

} // namespace cclrun

#endif
