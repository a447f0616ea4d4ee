// report.cc - failure reporting (report.h).
#include "tools/ccl-perf/report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fmt/format.h>

namespace cclperf {
namespace {

// Continuation lines of a multi-line message stay comments in the table.
std::string commented(const std::string &msg) {
  std::string out;
  for (char c : msg) {
    out += c;
    if (c == '\n') out += "#   ";
  }
  return out;
}

// True when standard output and standard error are the same file (a
// terminal, or one log): an error is then printed once, as a table line.
bool sameOutput() {
  struct stat a, b;
  return fstat(1, &a) == 0 && fstat(2, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

}  // namespace

std::string cclError(const char *what, int rank, cclResult_t r) {
  std::string s = what;
  if (rank >= 0) s += " on rank " + std::to_string(rank);
  s += " failed: ";
  s += cclGetErrorString(r);
  const char *last = cclGetLastError();
  if (last && *last) s += ": " + std::string(last);
  return s;
}

void reportError(const std::string &msg) {
  fmt::print("# ERROR: {}\n", commented(msg));
  std::fflush(stdout);
  if (!sameOutput()) {
    fmt::print(stderr, "ccl-perf: error: {}\n", msg);
    std::fflush(stderr);
  }
}

void fatal(const std::string &msg) {
  std::fflush(stdout);
  reportError(msg);
  _exit(1);
}

}  // namespace cclperf
