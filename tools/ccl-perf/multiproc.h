// multiproc.h - one process per rank (docs/ccl-perf.md, "One process per
// rank"): how ccl-perf learns that a launcher (ccl-run, torchrun, mpirun,
// srun) started it as one rank of a job, and the exchanges through which
// the ranks agree on every outcome (statuses, check results, times), so
// that rank 0 prints one table and every rank exits with the same status.
//
// The rule that keeps the ranks in step: every rank calls agree() at the
// same points of the run, in the same order, whether its own work there
// succeeded or not; a failure of any rank makes agree() return false on
// every rank, and all of them stop there.
#ifndef CCL_PERF_MULTIPROC_H
#define CCL_PERF_MULTIPROC_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tools/ccl-perf/env.h"

namespace cclperf {

// What the environment says about this process.
struct Launch {
  // From cclGetEnvRank: the rank and rank count, -1 when no launcher set
  // them (one process drives every rank).
  int rank = -1, nranks = -1;
  // "ccl-run", or "torchrun (RANK, WORLD_SIZE)": which launcher's
  // variables cclCommInitFromEnv reads (the same order of preference).
  std::string launcher;
  // The rank among the job's processes on this host (CCL_LOCAL_RANK,
  // LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID;
  // else the rank) and the variable it came from ("" for the rank).
  int localRank = 0;
  std::string localVar;
  bool multi() const { return nranks > 0; }
};

// Reads the launcher's variables (cclGetEnvRank). Variables that are set
// but malformed stop the run, each process reporting it.
Launch detectLaunch();

// Appends values to a byte string and reads them back in the same order
// (the ranks run the same binary, so host byte order is fine).
class Pack {
 public:
  Pack &u64(uint64_t v) { return raw(&v, sizeof v); }
  Pack &f64(double v) { return raw(&v, sizeof v); }
  Pack &str(const std::string &s) {
    u64(s.size());
    bytes_ += s;
    return *this;
  }
  Pack &ints(const std::vector<int> &v) {
    u64(v.size());
    for (int x : v) u64((uint64_t)(int64_t)x);
    return *this;
  }
  const std::string &bytes() const { return bytes_; }

 private:
  Pack &raw(const void *p, size_t n) {
    bytes_.append((const char *)p, n);
    return *this;
  }
  std::string bytes_;
};

class Unpack {
 public:
  explicit Unpack(const std::string &s) : s_(s) {}
  uint64_t u64() {
    uint64_t v = 0;
    raw(&v, sizeof v);
    return v;
  }
  double f64() {
    double v = 0;
    raw(&v, sizeof v);
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    if (n > s_.size() - at_) {
      ok_ = false;
      return "";
    }
    std::string v = s_.substr(at_, n);
    at_ += n;
    return v;
  }
  std::vector<int> ints() {
    uint64_t n = u64();
    std::vector<int> v;
    for (uint64_t i = 0; i < n && ok_; i++) v.push_back((int)(int64_t)u64());
    return v;
  }
  // False when a read ran past the end.
  bool ok() const { return ok_; }

 private:
  void raw(void *p, size_t n) {
    if (n > s_.size() - at_) {
      ok_ = false;
      return;
    }
    std::memcpy(p, s_.data() + at_, n);
    at_ += n;
  }
  const std::string &s_;
  size_t at_ = 0;
  bool ok_ = true;
};

// The ranks' outcome at a point that every rank reaches in the same order.
// ok and *err are this rank's. Returns true when every rank is ok;
// otherwise *err becomes the failing ranks' messages ("rank R: ..."; one
// message that several ranks reported, once, with their ranks) on every
// rank. With `data`, *all receives every rank's data (rank order) when
// every rank is ok. If the exchange itself fails (a peer is gone, the
// communicator is aborted), env.broken is set and *err is this rank's own
// error, or the exchange's. In-process it returns ok (and *all = {data}).
bool agree(Env &env, bool ok, std::string *err, const std::string &data = "",
           std::vector<std::string> *all = nullptr);

// Setup step after the communicator exists: `err` ("" if fine) is this
// rank's; if any rank failed, rank 0 reports it and every rank exits 1.
void agreeOrExit(Env &env, std::string err);

// The report of an error the ranks agreed on (rank 0 prints it), or, once
// env.broken, of this rank's own error (each rank prints its own).
void reportRunError(const Env &env, const std::string &msg);

// Ends a run that failed: with one process per rank the ranks meet once
// more (so that no rank ends the job before rank 0 has printed), then exit
// 1 without teardown.
[[noreturn]] void exitFailed(Env &env);

// The ranks meet (an exchange of nothing); false when that failed.
bool barrier(Env &env);

}  // namespace cclperf

#endif  // CCL_PERF_MULTIPROC_H
