// supervisor.h - running the ranks to their end: signals, exit statuses,
// ending the others after a failure, --tag-output.
#ifndef CCL_TOOLS_CCL_RUN_SUPERVISOR_H
#define CCL_TOOLS_CCL_RUN_SUPERVISOR_H

#include <cstdint>

#include "tools/ccl-run/spawn.h"

namespace cclrun {

// Blocks the signals ccl-run forwards, and SIGCHLD, in the calling thread
// and returns a signalfd that reads them (non-blocking); ignores SIGPIPE
// and sets SIGCHLD to its default. Records the state it changed in `spec`
// for the ranks. Call it before any thread starts (cclGetUniqueId), so
// that every thread has them blocked and they all reach the signalfd.
int interceptSignals(LaunchSpec *spec);

// Starts the ranks of `spec` and supervises them until all have ended;
// returns ccl-run's exit status (docs/ccl-run.md, "Exit status").
int supervise(const LaunchSpec &spec, int signalFd, int64_t graceMs);

} // namespace cclrun

#endif
