// report.cc - failure reporting (report.h).
#include "tools/ccl-perf/report.h"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <thread>

namespace cclperf {
namespace {

int gProcessRank = -1;
int gFatalScopes = 0;

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

void setProcessRank(int rank) { gProcessRank = rank; }
int processRank() { return gProcessRank; }

void reportHere(const std::string &msg) {
  if (gProcessRank <= 0) {
    reportError(msg);
    return;
  }
  fmt::print(stderr, "ccl-perf: rank {}: error: {}\n", gProcessRank, msg);
  std::fflush(stderr);
}

void exitFailure(bool linger) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (linger && gProcessRank > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(kLingerMs));
  _exit(1);
}

void fatal(const std::string &msg) {
  if (gFatalScopes > 0) throw Fatal(msg);
  std::fflush(stdout);
  // Every rank decided the same: rank 0's report is the one.
  if (gProcessRank <= 0) reportError(msg);
  exitFailure(true);
}

void fatalHere(const std::string &msg) {
  std::fflush(stdout);
  reportHere(msg);
  exitFailure(true);
}

FatalScope::FatalScope() { gFatalScopes++; }
FatalScope::~FatalScope() { gFatalScopes--; }

}  // namespace cclperf
