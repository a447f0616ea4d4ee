// spawn.cc - fork and exec of one rank.
//
// ccl-run has threads when it forks (cclGetUniqueId's rendezvous
// listener), so between fork and exec the child may only make
// async-signal-safe calls: everything it needs (argv, envp, the descriptors
// to keep) is built before fork, and an exec failure travels back to
// ccl-run as an errno through a close-on-exec pipe, where it is reported
// with strerror. The same pipe tells ccl-run that the exec succeeded (EOF).
#include "tools/ccl-run/spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace cclrun {

const char *const kRankVariables[5] = {"CCL_RANK", "CCL_NRANKS",
                                       "CCL_LOCAL_RANK", "CCL_LOCAL_NRANKS",
                                       "CCL_UNIQUE_ID"};

namespace {

// Everything the child does between fork and exec, prepared by the parent.
struct ChildPlan {
  const char *path;
  char *const *argv;
  char *const *shArgv; // "/bin/sh PATH ARGS..." for a script without #!
  char *const *envp;
  int stdoutFd; // dup'ed to 1 and 2 with --tag-output, else -1
  int stderrFd;
  int reportFd;    // the exec-failure pipe
  const int *keep; // sorted descriptors >= 3 to keep; null: keep all
  size_t nkeep;
  int maxFd; // when close_range is missing: close up to this one
  pid_t parent;
  const LaunchSpec *spec;
};

void closeRange(int lo, int hi, int maxFd) {
  if (lo > hi)
    return;
#ifdef SYS_close_range
  if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0u) == 0)
    return;
#endif
  for (int fd = lo; fd <= std::min(hi, maxFd); ++fd)
    close(fd);
}

// Closes every descriptor >= 3 that is not in keep[] (sorted).
void closeAllBut(const int *keep, size_t nkeep, int maxFd) {
  int from = 3;
  for (size_t i = 0; i < nkeep; ++i) {
    if (keep[i] < from)
      continue;
    closeRange(from, keep[i] - 1, maxFd);
    from = keep[i] + 1;
  }
  closeRange(from, INT_MAX, maxFd);
}

[[noreturn]] void reportAndExit(int reportFd) {
  int e = errno;
  ssize_t ignored = write(reportFd, &e, sizeof e);
  (void)ignored;
  _exit(127);
}

[[noreturn]] void execChild(const ChildPlan &p) {
  // If ccl-run is killed (SIGKILL gives it no chance to end the ranks),
  // the kernel kills the rank. The signal is tied to the thread that
  // forked: ccl-run forks from its main thread, which lives to the end.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // ccl-run died before the prctl: no death signal will come.
  if (getppid() != p.parent)
    _exit(1);
  if (p.stdoutFd >= 0 && dup2(p.stdoutFd, STDOUT_FILENO) < 0)
    reportAndExit(p.reportFd);
  if (p.stderrFd >= 0 && dup2(p.stderrFd, STDERR_FILENO) < 0)
    reportAndExit(p.reportFd);
  // The rank gets what ccl-run inherited, not ccl-run's own descriptors
  // (the listener's sockets, the signalfd, other ranks' pipes), so that
  // no rank holds a connection or pipe open that should see its end.
  if (p.keep)
    closeAllBut(p.keep, p.nkeep, p.maxFd);
  sigaction(SIGPIPE, &p.spec->originalSigpipe, nullptr);
  sigaction(SIGCHLD, &p.spec->originalSigchld, nullptr);
  sigprocmask(SIG_SETMASK, &p.spec->originalMask, nullptr);
  execve(p.path, p.argv, p.envp);
  // As execvp and shells do: a file without #! is a shell script.
  if (errno == ENOEXEC)
    execve("/bin/sh", p.shArgv, p.envp);
  reportAndExit(p.reportFd);
}

std::vector<char *> pointers(std::vector<std::string> &strings) {
  std::vector<char *> ptrs;
  for (std::string &s : strings)
    ptrs.push_back(&s[0]);
  ptrs.push_back(nullptr);
  return ptrs;
}

void closeIfOpen(int &fd) {
  if (fd >= 0)
    close(fd);
  fd = -1;
}

// Reads the exec-failure pipe: 0 when the exec succeeded (EOF), else the
// child's errno.
int readExecResult(int fd) {
  int e = 0;
  size_t got = 0;
  while (got < sizeof e) {
    ssize_t n = read(fd, (char *)&e + got, sizeof e - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  return got == sizeof e ? e : 0;
}

int highestFd() {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
      rl.rlim_cur > 65536)
    return 65535;
  return (int)rl.rlim_cur - 1;
}

} // namespace

std::string hexEncode(const void *data, size_t bytes) {
  static const char digits[] = "0123456789abcdef";
  const unsigned char *p = static_cast<const unsigned char *>(data);
  std::string hex;
  hex.reserve(2 * bytes);
  for (size_t i = 0; i < bytes; ++i) {
    hex += digits[p[i] >> 4];
    hex += digits[p[i] & 15];
  }
  return hex;
}

std::vector<std::string> rankEnvironment(char *const *environ, int rank,
                                         int nranks,
                                         const std::string &uniqueIdHex) {
  std::vector<std::string> env;
  for (char *const *e = environ; e && *e; ++e) {
    bool ours = false;
    for (const char *name : kRankVariables) {
      size_t n = std::strlen(name);
      ours |= std::strncmp(*e, name, n) == 0 && (*e)[n] == '=';
    }
    // A ccl-run inside a rank of another ccl-run starts a job of its own.
    if (!ours)
      env.push_back(*e);
  }
  const std::string values[5] = {std::to_string(rank), std::to_string(nranks),
                                 std::to_string(rank), std::to_string(nranks),
                                 uniqueIdHex};
  for (int i = 0; i < 5; ++i)
    env.push_back(std::string(kRankVariables[i]) + "=" + values[i]);
  return env;
}

bool listOpenFds(std::vector<int> *fds) {
  fds->clear();
  DIR *dir = opendir("/proc/self/fd");
  if (!dir)
    return false;
  int self = dirfd(dir);
  while (struct dirent *ent = readdir(dir)) {
    char *end = nullptr;
    long fd = std::strtol(ent->d_name, &end, 10);
    if (end == ent->d_name || *end != '\0' || fd < 3 || fd == self)
      continue;
    fds->push_back((int)fd);
  }
  closedir(dir);
  std::sort(fds->begin(), fds->end());
  return true;
}

bool startRank(const LaunchSpec &spec, int rank, RankProcess *out,
               std::string *error, int *status) {
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> shArgv = spec.argv;
  shArgv[0] = spec.path;
  shArgv.insert(shArgv.begin(), "/bin/sh");
  std::vector<std::string> env =
      rankEnvironment(environ, rank, spec.nranks, spec.uniqueIdHex);
  std::vector<char *> argvP = pointers(argv), shArgvP = pointers(shArgv),
                      envP = pointers(env);

  int report[2] = {-1, -1}, outPipe[2] = {-1, -1}, errPipe[2] = {-1, -1};
  auto fail = [&](const std::string &what) {
    *error = what + ": " + std::strerror(errno);
    *status = 1;
    for (int *fd : {&report[0], &report[1], &outPipe[0], &outPipe[1],
                    &errPipe[0], &errPipe[1]})
      closeIfOpen(*fd);
    return false;
  };
  if (pipe2(report, O_CLOEXEC) != 0)
    return fail("pipe");
  if (spec.tagOutput &&
      (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0))
    return fail("pipe");

  std::vector<int> keep = spec.inheritedFds;
  keep.push_back(report[1]);
  std::sort(keep.begin(), keep.end());
  ChildPlan plan;
  plan.path = spec.path.c_str();
  plan.argv = argvP.data();
  plan.shArgv = shArgvP.data();
  plan.envp = envP.data();
  plan.stdoutFd = outPipe[1];
  plan.stderrFd = errPipe[1];
  plan.reportFd = report[1];
  plan.keep = spec.closeOthers ? keep.data() : nullptr;
  plan.nkeep = keep.size();
  plan.maxFd = highestFd();
  plan.parent = getpid();
  plan.spec = &spec;

  pid_t pid = fork();
  if (pid < 0)
    return fail("fork");
  if (pid == 0)
    execChild(plan);

  closeIfOpen(report[1]);
  closeIfOpen(outPipe[1]);
  closeIfOpen(errPipe[1]);
  int execErrno = readExecResult(report[0]);
  closeIfOpen(report[0]);
  if (execErrno != 0) {
    // The child has exited (127); reap it here so that the supervisor
    // never sees it as a rank.
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    closeIfOpen(outPipe[0]);
    closeIfOpen(errPipe[0]);
    *error = "cannot execute " + spec.path + ": " + std::strerror(execErrno);
    *status = execErrno == ENOENT ? 127 : 126;
    return false;
  }
  for (int fd : {outPipe[0], errPipe[0]})
    if (fd >= 0)
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  out->pid = pid;
  out->outFd = outPipe[0];
  out->errFd = errPipe[0];
  return true;
}

} // namespace cclrun
