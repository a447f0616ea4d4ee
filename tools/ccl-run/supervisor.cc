// supervisor.cc - one thread waits, in poll(2), for a signal (the signalfd:
// SIGCHLD or a signal to forward), for output of a rank (--tag-output), or
// for the end of the grace time. No work is done in signal handlers: there
// are none.
#include "tools/ccl-run/supervisor.h"

#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/ccl-run/output.h"

namespace cclrun {
namespace {

using Clock = std::chrono::steady_clock;

const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

// "SIGKILL (9)".
std::string signalName(int sig) {
  const char *abbrev = sigabbrev_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal";
  return name + " (" + std::to_string(sig) + ")";
}

struct Rank {
  RankProcess proc;
  bool live = false;
  TaggedStream out{"", STDOUT_FILENO};
  TaggedStream err{"", STDERR_FILENO};
};

class Supervisor {
public:
  Supervisor(const LaunchSpec &spec, int signalFd, int64_t graceMs)
      : spec_(spec), signalFd_(signalFd), graceMs_(graceMs),
        ranks_(spec.nranks) {}

  int run() {
    startAll();
    while (anyLive())
      waitOnce();
    drainOutput();
    return status_;
  }

private:
  void startAll();
  void waitOnce();
  void handleSignals();
  void forward(int sig);
  void reap(int flags = WNOHANG);
  void failed(int rank, int waitStatus);
  void endLiveRanks();
  void killLiveRanks();
  bool pump(int &fd, TaggedStream &stream);
  void drainOutput();
  bool anyLive() const;

  const LaunchSpec &spec_;
  int signalFd_;
  int64_t graceMs_;
  std::vector<Rank> ranks_;
  int status_ = 0;      // ccl-run's exit status: the first failure's
  bool ending_ = false; // a rank failed: the others got SIGTERM
  bool killed_ = false; // ... and, after the grace time, SIGKILL
  Clock::time_point deadline_;
};

bool Supervisor::anyLive() const {
  for (const Rank &r : ranks_)
    if (r.live)
      return true;
  return false;
}

void Supervisor::startAll() {
  for (int i = 0; i < spec_.nranks; ++i) {
    Rank &r = ranks_[i];
    std::string error;
    int status = 0;
    if (!startRank(spec_, i, &r.proc, &error, &status)) {
      // A failed start is the first failure: the started ranks end.
      std::fprintf(stderr, "ccl-run: rank %d: %s%s\n", i, error.c_str(),
                   anyLive() ? "; ending the other ranks" : "");
      status_ = status;
      endLiveRanks();
      return;
    }
    r.live = true;
    if (spec_.tagOutput) {
      std::string tag = "[" + std::to_string(i) + "] ";
      r.out = TaggedStream(tag, STDOUT_FILENO);
      r.err = TaggedStream(tag, STDERR_FILENO);
    }
  }
}

void Supervisor::waitOnce() {
  std::vector<pollfd> fds{{signalFd_, POLLIN, 0}};
  for (const Rank &r : ranks_)
    for (int fd : {r.proc.outFd, r.proc.errFd})
      if (fd >= 0)
        fds.push_back({fd, POLLIN, 0});
  int timeout = -1;
  if (ending_ && !killed_) {
    auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now());
    timeout = (int)std::max<int64_t>(0, left.count());
  }
  if (poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
    // Cannot supervise any more: end the ranks rather than leak them.
    std::perror("ccl-run: poll");
    killLiveRanks();
    reap(0);
    return;
  }
  if (ending_ && !killed_ && Clock::now() >= deadline_)
    killLiveRanks();
  if (fds[0].revents)
    handleSignals();
  for (Rank &r : ranks_) {
    pump(r.proc.outFd, r.out);
    pump(r.proc.errFd, r.err);
  }
}

void Supervisor::handleSignals() {
  bool child = false;
  signalfd_siginfo info;
  while (read(signalFd_, &info, sizeof info) == (ssize_t)sizeof info) {
    if (info.ssi_signo == SIGCHLD)
      child = true; // several exits may show as one SIGCHLD: reap them all
    else if (info.ssi_code != SI_KERNEL)
      forward((int)info.ssi_signo);
    // SI_KERNEL: sent by the terminal (Ctrl-C, Ctrl-\, hangup) to the
    // foreground process group, which the ranks share with ccl-run: they
    // have it already, and a second one would cut short their handler.
  }
  if (child)
    reap();
}

void Supervisor::forward(int sig) {
  for (Rank &r : ranks_)
    if (r.live)
      kill(r.proc.pid, sig);
}

// Collects the ranks that ended (flags 0: waits for every live rank).
void Supervisor::reap(int flags) {
  for (size_t i = 0; i < ranks_.size(); ++i) {
    Rank &r = ranks_[i];
    if (!r.live)
      continue;
    int ws = 0;
    pid_t p;
    while ((p = waitpid(r.proc.pid, &ws, flags)) < 0 && errno == EINTR) {
    }
    if (p != r.proc.pid)
      continue;
    r.live = false;
    if (!(WIFEXITED(ws) && WEXITSTATUS(ws) == 0))
      failed((int)i, ws);
  }
}

void Supervisor::failed(int rank, int ws) {
  if (status_ != 0)
    return; // not the first failure: most likely our own SIGTERM
  std::string how;
  if (WIFEXITED(ws)) {
    status_ = WEXITSTATUS(ws);
    how = "exited with status " + std::to_string(status_);
  } else {
    status_ = 128 + WTERMSIG(ws); // as shells report it
    how = "was killed by signal " + signalName(WTERMSIG(ws));
    if (WCOREDUMP(ws))
      how += " (core dumped)";
  }
  std::fprintf(stderr, "ccl-run: rank %d (pid %d) %s%s\n", rank,
               (int)ranks_[rank].proc.pid, how.c_str(),
               anyLive() ? "; ending the other ranks" : "");
  endLiveRanks();
}

void Supervisor::endLiveRanks() {
  ending_ = true;
  deadline_ = Clock::now() + std::chrono::milliseconds(graceMs_);
  forward(SIGTERM);
  forward(SIGCONT); // a stopped rank acts on its SIGTERM only once resumed
}

void Supervisor::killLiveRanks() {
  killed_ = true;
  std::string which;
  int count = 0;
  for (size_t i = 0; i < ranks_.size(); ++i)
    if (ranks_[i].live)
      which += (count++ ? ", " : "") + std::to_string(i);
  if (count == 0)
    return;
  std::fprintf(stderr,
               "ccl-run: rank%s %s %s still running %lld ms after SIGTERM; "
               "sending SIGKILL\n",
               count > 1 ? "s" : "", which.c_str(), count > 1 ? "are" : "is",
               (long long)graceMs_);
  forward(SIGKILL);
}

// Copies what is available on `fd` to `stream`; at EOF closes `fd`.
// Returns false when nothing more can be read now.
bool Supervisor::pump(int &fd, TaggedStream &stream) {
  if (fd < 0)
    return false;
  char buf[65536];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) {
    stream.feed(buf, (size_t)n);
    return true;
  }
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return false;
  stream.finish(); // EOF, or an error: the stream is over
  close(fd);
  fd = -1;
  return false;
}

// After the last rank ended: what is left in the pipes. A process the
// rank started may still hold them open; ccl-run does not wait for it.
void Supervisor::drainOutput() {
  for (Rank &r : ranks_) {
    while (pump(r.proc.outFd, r.out)) {
    }
    while (pump(r.proc.errFd, r.err)) {
    }
    r.out.finish();
    r.err.finish();
  }
}

} // namespace

int interceptSignals(LaunchSpec *spec) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwarded)
    sigaddset(&set, sig);
  sigaddset(&set, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &set, &spec->originalMask);
  // ccl-run's parent may have set SIGCHLD to SIG_IGN (inherited through
  // exec): the kernel would then reap the ranks and hide their statuses.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &dfl, &spec->originalSigchld);
  // With --tag-output ccl-run writes the ranks' output; a reader that
  // went away must not kill it (and leave the ranks unsupervised).
  struct sigaction ign = dfl;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &spec->originalSigpipe);
  return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int supervise(const LaunchSpec &spec, int signalFd, int64_t graceMs) {
  return Supervisor(spec, signalFd, graceMs).run();
}

} // namespace cclrun
