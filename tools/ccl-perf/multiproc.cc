// multiproc.cc - one process per rank (multiproc.h).
#include "tools/ccl-perf/multiproc.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <utility>

#include "tools/ccl-perf/report.h"

namespace cclperf {
namespace {

// The launchers whose variables cclCommInitFromEnv reads, in its order of
// preference (docs/runtime.md, "Launchers"); only for the header.
struct LauncherVars {
  const char *rank, *size, *name;
};
constexpr LauncherVars kLaunchers[] = {
    {"CCL_RANK", "CCL_NRANKS", "ccl-run"},
    {"RANK", "WORLD_SIZE", "torchrun"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
    {"PMI_RANK", "PMI_SIZE", "PMI"},
    {"SLURM_PROCID", "SLURM_NTASKS", "Slurm"},
};

// Where launchers put a process's rank among those on its host.
constexpr const char *kLocalRankVars[] = {"CCL_LOCAL_RANK", "LOCAL_RANK",
                                          "OMPI_COMM_WORLD_LOCAL_RANK",
                                          "MPI_LOCALRANKID", "SLURM_LOCALID"};

const char *getenvNonEmpty(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool parseNonNegative(const char *s, int *out) {
  char *end = nullptr;
  long v = std::strtol(s, &end, 10);
  if (end == s || *end || v < 0 || v > (1 << 24)) return false;
  *out = (int)v;
  return true;
}

// `msg` with this rank's own "(rank R)" and "on rank R" (which the runtime
// and cclError write) blanked, so that one error reported by several ranks
// compares equal.
std::string withoutOwnRank(std::string msg, int r) {
  for (std::string tag : {"(rank " + std::to_string(r) + ")", "on rank " + std::to_string(r)}) {
    for (size_t at = msg.find(tag); at != std::string::npos; at = msg.find(tag, at)) {
      size_t end = at + tag.size();
      if (end < msg.size() && std::isdigit((unsigned char)msg[end])) {
        at = end;  // "on rank 1" inside "on rank 12"
        continue;
      }
      msg.erase(at, tag.size());
    }
  }
  return msg;
}

// "rank 1: MSG" for each distinct message, then "(ranks 2,3 reported the
// same error)" for the ranks that reported it too.
std::string combineErrors(const std::vector<std::pair<int, std::string>> &failures) {
  struct Group {
    std::string key, text;
    int first;
    std::vector<int> same;
  };
  std::vector<Group> groups;
  for (const auto &[r, msg] : failures) {
    std::string key = withoutOwnRank(msg, r);
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const Group &x) { return x.key == key; });
    if (g != groups.end())
      g->same.push_back(r);
    else
      groups.push_back({key, msg, r, {}});
  }
  std::string out;
  for (const Group &g : groups) {
    if (!out.empty()) out += "\n  ";
    out += "rank " + std::to_string(g.first) + ": " + g.text;
    if (!g.same.empty())
      out += fmt::format("\n  (rank{} {} reported the same error)",
                         g.same.size() > 1 ? "s" : "", joinInts(g.same));
  }
  return out;
}

// Every rank's `mine`, of any length, into all[r]: one all-gather of a
// fixed-size piece that holds the length and most messages whole, and a
// second one for the rest when some rank's is longer (every rank learns
// that from the first, so all of them make the second call or none).
constexpr size_t kPiece = 1024;
constexpr size_t kHead = kPiece - sizeof(uint64_t);

bool gatherStrings(Env &env, const std::string &mine, std::vector<std::string> *all,
                   std::string *err) {
  cclComm_t comm = env.comms[env.me];
  const int n = env.n;
  const uint64_t len = mine.size();
  std::string piece(kPiece, '\0');
  std::memcpy(&piece[0], &len, sizeof len);
  std::memcpy(&piece[sizeof len], mine.data(), std::min<size_t>(len, kHead));
  std::string got(kPiece * n, '\0');
  cclResult_t rc = cclBootstrapAllGather(comm, piece.data(), &got[0], kPiece);
  if (rc != cclSuccess) {
    *err = cclError("cclBootstrapAllGather", env.me, rc);
    return false;
  }
  std::vector<uint64_t> lens(n);
  uint64_t longest = 0;
  all->assign(n, std::string());
  for (int r = 0; r < n; r++) {
    std::memcpy(&lens[r], &got[r * kPiece], sizeof(uint64_t));
    longest = std::max(longest, lens[r]);
    (*all)[r] = got.substr(r * kPiece + sizeof(uint64_t), std::min<size_t>(lens[r], kHead));
  }
  if (longest <= kHead) return true;
  const size_t rest = longest - kHead;
  std::string tail(rest, '\0');
  if (len > kHead) std::memcpy(&tail[0], mine.data() + kHead, len - kHead);
  std::string gotTail(rest * n, '\0');
  rc = cclBootstrapAllGather(comm, tail.data(), &gotTail[0], rest);
  if (rc != cclSuccess) {
    *err = cclError("cclBootstrapAllGather", env.me, rc);
    return false;
  }
  for (int r = 0; r < n; r++)
    if (lens[r] > kHead) (*all)[r] += gotTail.substr(r * rest, lens[r] - kHead);
  return true;
}

// Whether this rank's communicator has an asynchronous error (it is
// aborted). The caller's message is made already: cclGetLastError may change.
bool commAborted(const Env &env) {
  cclResult_t async = cclSuccess;
  return cclCommGetAsyncError(env.comms[env.me], &async) == cclSuccess &&
         async != cclSuccess;
}

}  // namespace

Launch detectLaunch() {
  Launch l;
  cclResult_t rc = cclGetEnvRank(&l.rank, &l.nranks);
  if (rc != cclSuccess) fatalHere(cclError("cclGetEnvRank", -1, rc));
  if (!l.multi()) return l;
  for (const LauncherVars &v : kLaunchers)
    if (getenvNonEmpty(v.rank) || getenvNonEmpty(v.size)) {
      l.launcher = v.name;
      if (l.launcher != "ccl-run")
        l.launcher += std::string(" (") + v.rank + ", " + v.size + ")";
      break;
    }
  l.localRank = l.rank;
  for (const char *var : kLocalRankVars)
    if (const char *v = getenvNonEmpty(var))
      if (parseNonNegative(v, &l.localRank)) {
        l.localVar = var;
        break;
      }
  return l;
}

bool agree(Env &env, bool ok, std::string *err, const std::string &data,
           std::vector<std::string> *all) {
  if (!env.multi) {
    if (all) *all = {data};
    return ok;
  }
  if (env.broken) {  // not reached: a broken exchange stops the run
    if (ok) *err = "an earlier exchange between the ranks failed";
    return false;
  }
  // A failure that aborted the communicator (a timeout, a peer's abort)
  // reached every rank through the runtime, and their exchanges fail at
  // once; this rank's would wait for them all the same (libcclrt's
  // all-gather does not look at the communicator's own abort), so it
  // reports its error at once instead.
  if (!ok && commAborted(env)) {
    env.broken = true;
    return false;
  }
  Pack mine;
  mine.u64(ok ? 1 : 0).str(ok ? std::string() : *err).str(data);
  std::vector<std::string> got;
  std::string gatherErr;
  if (!gatherStrings(env, mine.bytes(), &got, &gatherErr)) {
    env.broken = true;
    if (ok) *err = gatherErr;
    return false;
  }
  std::vector<std::pair<int, std::string>> failures;
  if (all) all->assign(env.n, std::string());
  for (int r = 0; r < env.n; r++) {
    Unpack u(got[r]);
    bool rankOk = u.u64() != 0;
    std::string rankErr = u.str(), rankData = u.str();
    if (!u.ok()) {
      rankOk = false;
      rankErr = "malformed exchange message";
    }
    if (!rankOk)
      failures.emplace_back(r, rankErr);
    else if (all)
      (*all)[r] = std::move(rankData);
  }
  if (failures.empty()) return true;
  *err = combineErrors(failures);
  return false;
}

void agreeOrExit(Env &env, std::string err) {
  if (agree(env, err.empty(), &err)) return;
  reportRunError(env, err);
  exitFailed(env);
}

void reportRunError(const Env &env, const std::string &msg) {
  if (!env.multi)
    reportError(msg);
  else if (env.broken)
    reportHere(msg);
  else if (env.me == 0)
    reportError(msg);
}

bool barrier(Env &env) {
  if (!env.multi) return true;
  std::vector<std::string> all;
  std::string err;
  if (gatherStrings(env, std::string(), &all, &err)) return true;
  env.broken = true;
  return false;
}

void exitFailed(Env &env) {
  std::fflush(stdout);
  // After an agreed failure rank 0 has printed its report: one more
  // meeting, and no rank ends the job before that. Without one (broken),
  // the other ranks give rank 0 time instead.
  const bool linger = env.multi && env.broken;
  if (env.multi && !env.broken) barrier(env);
  exitFailure(linger);
}

}  // namespace cclperf
