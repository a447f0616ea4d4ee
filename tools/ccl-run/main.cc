// ccl-run - starts the N ranks of a cclc job as N processes on this host
// (docs/ccl-run.md): `ccl-run -n N [options] [--] PROGRAM [ARGS...]`.
//
// In order: the fds ccl-run inherited (before anything opens one), the
// command line, PROGRAM (a typo fails before anything starts), the signals
// (blocked before cclGetUniqueId starts the rendezvous listener thread),
// the unique id, then the ranks, supervised to their end.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ccl/ccl.h"
#include "tools/ccl-run/options.h"
#include "tools/ccl-run/program.h"
#include "tools/ccl-run/spawn.h"
#include "tools/ccl-run/supervisor.h"

using namespace cclrun;

int main(int argc, char **argv) {
  LaunchSpec spec;
  spec.closeOthers = listOpenFds(&spec.inheritedFds);

  Options opts = parseOptions(argc, argv);
  Program program = findProgram(opts.command[0], std::getenv("PATH"));
  if (program.status != 0) {
    std::fprintf(stderr, "ccl-run: %s\n", program.error.c_str());
    return program.status;
  }
  spec.path = program.path;
  spec.argv = opts.command;
  spec.nranks = opts.nranks;
  spec.tagOutput = opts.tagOutput;

  int signalFd = interceptSignals(&spec);
  if (signalFd < 0) {
    std::perror("ccl-run: signalfd");
    return 1;
  }

  // The listener this starts lives in ccl-run, which outlives every rank.
  cclUniqueId id;
  if (cclGetUniqueId(&id) != cclSuccess) {
    std::fprintf(stderr, "ccl-run: cannot create the unique id: %s\n",
                 cclGetLastError());
    return 1;
  }
  spec.uniqueIdHex = hexEncode(id.internal, sizeof id.internal);

  int status = supervise(spec, signalFd, opts.graceMs);
  // _exit, not exit: the listener thread may still be running, and static
  // destructors must not run under it.
  std::fflush(nullptr);
  _exit(status);
}
