// spawn.h - starting one rank: its environment, its file descriptors and
// signal state, fork and exec.
#ifndef CCL_TOOLS_CCL_RUN_SPAWN_H
#define CCL_TOOLS_CCL_RUN_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cclrun {

// The variables ccl-run sets in every rank's environment (docs/ccl-run.md).
extern const char *const kRankVariables[5];

// What every rank is started with; made once, before the first rank.
struct LaunchSpec {
  std::string path;              // the resolved PROGRAM
  std::vector<std::string> argv; // PROGRAM as given, then its arguments
  int nranks = 0;
  std::string uniqueIdHex; // CCL_UNIQUE_ID
  bool tagOutput = false;  // stdout and stderr through pipes to ccl-run
  // The descriptors (>= 3) ccl-run inherited; the ranks inherit these and
  // no other. closeOthers is false when they could not be listed.
  std::vector<int> inheritedFds;
  bool closeOthers = false;
  // The signal state ccl-run was started with, which the ranks get back:
  // the mask, and SIGPIPE's and SIGCHLD's dispositions (ccl-run changes
  // those three for itself).
  sigset_t originalMask;
  struct sigaction originalSigpipe;
  struct sigaction originalSigchld;
};

// A started rank. outFd and errFd are the read ends of its stdout and
// stderr with tagOutput (non-blocking), else -1.
struct RankProcess {
  pid_t pid = -1;
  int outFd = -1;
  int errFd = -1;
};

// Starts rank `rank`. On failure nothing is left running, *error says why
// ("cannot execute PATH: ...") and *status is ccl-run's exit status for
// it: 127 (no such file), 126 (could not execute), 1 (fork, pipes).
bool startRank(const LaunchSpec &spec, int rank, RankProcess *out,
               std::string *error, int *status);

// Rank `rank`'s environment: `environ` without kRankVariables, then those.
std::vector<std::string> rankEnvironment(char *const *environ, int rank,
                                         int nranks,
                                         const std::string &uniqueIdHex);

// Lowercase hex of `bytes` bytes: two characters a byte.
std::string hexEncode(const void *data, size_t bytes);

// The open descriptors >= 3 of this process, sorted, from /proc/self/fd;
// false when that cannot be read.
bool listOpenFds(std::vector<int> *fds);

} // namespace cclrun

#endif
