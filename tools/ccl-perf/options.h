// options.h - ccl-perf's command line (nccl-tests' flags plus our own),
// parsed with CLI11; docs/ccl-perf.md lists the flags.
#ifndef CCL_PERF_OPTIONS_H
#define CCL_PERF_OPTIONS_H

#include <cstdint>
#include <string>
#include <vector>

#include "tools/ccl-perf/dtype.h"

namespace cclperf {

enum class TargetChoice { Auto, Host, Cuda };

// --delay R[:B]=US: rank R's thread block B (every block when B is -1) spins
// US microseconds at the start of every checked call.
struct Delay {
  int rank = 0;
  int block = -1;
  uint64_t us = 0;
};

struct Options {
  size_t minBytes = 32 << 20;
  size_t maxBytes = 32 << 20;
  size_t stepBytes = 1 << 20;
  double stepFactor = 1;  // > 1: multiply; else add stepBytes
  int iters = 20;
  int warmup = 5;
  bool check = true;
  // --bitwise: reductions get random finite floats (checked within their
  // rounding), and every output several ranks share is compared bit for
  // bit between them.
  bool bitwise = false;
  int nranks = 1;
  // Whether -g (or --devices), -b and -e were given: otherwise main.cc picks
  // defaults that the plan can run.
  bool nranksSet = false, minBytesSet = false, maxBytesSet = false;
  // Not a flag: the largest message a row can run, which the buffers are
  // sized for: -e, or the plan's max_bytes when that is smaller (set by
  // main.cc; 0: -e).
  size_t bufferBytes = 0;
  int graphLaunches = 0;  // -G: 0 = eager
  std::vector<DType> dtypes{DType::Float32};
  std::vector<Op> ops{Op::Sum};
  std::string lib;
  std::string algo;
  // --coll: run a bundle's NCCL-shaped entry point of this collective (as
  // ccl-perf's Collective::name spells it, e.g. "AllGather").
  std::string coll;
  // Broadcast, Reduce: the root of every call (--root).
  int root = 0;
  // --csv FILE, --plot FILE.png.
  std::string csv, plot;
  TargetChoice target = TargetChoice::Auto;
  bool compareNccl = false;
  bool timeoutSet = false;
  uint64_t timeoutMs = 0;
  int skipRank = -1;
  uint64_t seed = 1;
  // Back-to-back check: calls per rank per checked run (-k).
  int calls = 8;
  // Device memory per rank for the back-to-back check's buffers; 0: the
  // target's default (kCheckMemCuda, kCheckMemHost).
  size_t checkMem = 0;
  std::vector<Delay> delays;
  // --proxy-delay R=US|stall: rank -> nanoseconds its proxy sleeps before
  // each request (UINT64_MAX: it takes none).
  std::vector<std::pair<int, uint64_t>> proxyDelays;
  // --devices: CUDA ordinal of each rank (empty: 0 .. nranks-1).
  std::vector<int> devices;
};

constexpr size_t kCheckMemCuda = size_t(1) << 30;
constexpr size_t kCheckMemHost = size_t(256) << 20;

// "0,0,1": devices that more than one rank uses ("" when none does).
std::string sharedDevices(const std::vector<int> &devices);
// "0,0,1".
std::string joinInts(const std::vector<int> &v);

// Parses argv. On --help (--version) prints the usage (the version) and
// exits 0; on an error prints "ccl-perf: MESSAGE" and "(try --help)" and
// exits 1 (the process exits; no exceptions).
Options parseOptions(int argc, char **argv);

// The checks of rank numbers (--delay, --skip-rank) against o.nranks, once
// it is known: the message of the first that fails, or "".
std::string validateRanks(const Options &o);

// The sizes of the sweep, nccl-tests style.
std::vector<size_t> sweepSizes(const Options &o);

}  // namespace cclperf

#endif  // CCL_PERF_OPTIONS_H
