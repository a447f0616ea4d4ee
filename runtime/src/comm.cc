// comm.cc - communicators (docs/runtime.md): creation and destruction,
// queries, synchronisation and asynchronous errors, and the memory of a
// rank's device. Plans are prepared in plans.cc, their contexts changed in
// contexts.cc, launches and asynchronous copies queued in launch.cc, the
// exported C functions in api.cc.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <system_error>
#include <shared_mutex>
#include <thread>
#include <unordered_set>

#include "bootstrap.h"
#include "device.h"
#include "proxy.h"
#include "ib.h"
#include "tcp.h"

namespace cclrt {
namespace {
constexpr uint64_t kDefaultTimeoutMs = 30000;
// How long cclCommDestroy lets queued work finish before it aborts it.
constexpr uint64_t kDestroyGraceMs = 10000;
// The largest cclMemAlloc: more than any GPU or host has, and small enough
// that no rounding of it overflows.
constexpr uint64_t kMaxAllocBytes = 1ull << 48;
} // namespace

uint64_t destroyGraceMs() {
  const char *env = getenv("CCL_DESTROY_GRACE_MS");
  if (env && *env) {
    char *end = nullptr;
    unsigned long long v = strtoull(env, &end, 10);
    if (*end == '\0' && v <= 3600000ull)
      return v;
  }
  return kDestroyGraceMs;
}

uint64_t defaultTimeoutNs() {
  const char *env = getenv("CCL_TIMEOUT_MS");
  if (env && *env) {
    char *end = nullptr;
    unsigned long long v = strtoull(env, &end, 10);
    if (end && *end == '\0' && env[0] != '-')
      return msToNs(v);
    // A fraction of a millisecond (0.05 = 50 us): finding which wait of a
    // slow kernel takes long (docs/runtime.md, "Timeouts").
    errno = 0;
    double d = strtod(env, &end);
    if (end && *end == '\0' && errno == 0 && d >= 0 && d <= 3.6e6) {
      uint64_t ns = (uint64_t)(d * 1e6 + 0.5);
      return ns == 0 && d > 0 ? 1 : ns;
    }
    fprintf(stderr,
            "libcclrt: ignoring CCL_TIMEOUT_MS=\"%s\" (not a number of "
            "milliseconds); using %" PRIu64 " ms\n",
            env, kDefaultTimeoutMs);
  }
  return msToNs(kDefaultTimeoutMs);
}

void retireHandles(Shared *s);

void destroyShared(Shared *s) {
  // Every rank's queued work finishes first (the proxies still serve it),
  // then the proxies stop and drain their transports. Work still pending
  // after the grace period (a kernel waiting for a peer that never comes,
  // with no timeout) is aborted: destroy never hangs.
  {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    const uint64_t graceMs = destroyGraceMs();
    std::thread watchdog;
    try {
      watchdog = std::thread([&] {
        std::unique_lock<std::mutex> lk(mu);
        if (!cv.wait_for(lk, std::chrono::milliseconds(graceMs),
                         [&] { return done; }) &&
            s->abortFlag && !aborted(s))
          recordRemoteFailure(
              s,
              format("cclCommDestroy aborted work still pending after %" PRIu64
                     " ms (CCL_DESTROY_GRACE_MS)",
                     graceMs),
              nullptr);
      });
    } catch (const std::system_error &) {
      // No thread: quiesce unguarded, as before.
    }
    s->device->quiesce();
    {
      std::lock_guard<std::mutex> lk(mu);
      done = true;
    }
    cv.notify_all();
    if (watchdog.joinable())
      watchdog.join();
  }
  stopProxies(s);
  releaseUserBuffers(s);
  for (auto &kv : s->plans)
    for (auto &pp : kv.second)
      releasePlan(s, pp.get());
  s->plans.clear();
  // Goodbye to the other ranks (after the last kernel: a peer that dies
  // meanwhile still aborts them), after telling them of a timeout here.
  if (s->boot) {
    tellPeers(s);
    s->boot->close();
  }
  s->device->teardown();
  retireHandles(s);
  delete s;
}

namespace {
// Every handle this process ever created, live or retired (handles are
// never freed), and the lock that orders a handle's lookup and the count of
// its calls in progress against its retirement: shared by the lookups of
// every call, exclusive for a new handle and a retirement.
std::shared_mutex handlesMu;
std::unordered_set<const cclComm *> &knownHandles() {
  static auto *set = new std::unordered_set<const cclComm *>;
  return *set;
}
} // namespace

cclComm *newHandle(Shared *s, int rank) {
  auto *h = new cclComm{s, rank, false};
  s->handles.push_back(h);
  std::unique_lock<std::shared_mutex> lock(handlesMu);
  knownHandles().insert(h);
  return h;
}

Shared *acquireShared(const cclComm *comm) {
  std::shared_lock<std::shared_mutex> lock(handlesMu);
  if (!comm || !knownHandles().count(comm) || comm->retired)
    return nullptr;
  comm->shared->activeCalls++;
  return comm->shared;
}

void releaseShared(Shared *s) {
  if (s)
    s->activeCalls--;
}

// The handles of `s` are retired (no call acquires it any more); the calls
// that acquired it before finish; then the handles lose it.
void retireHandles(Shared *s) {
  {
    std::unique_lock<std::shared_mutex> lock(handlesMu);
    for (cclComm *h : s->handles)
      h->retired = true;
  }
  while (s->activeCalls.load() > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::unique_lock<std::shared_mutex> lock(handlesMu);
  for (cclComm *h : s->handles)
    h->shared = nullptr;
}

Shared::Shared() = default;
Shared::~Shared() = default;

std::string planName(const ccl_plan *p) {
  return p && p->algorithm ? p->algorithm : "(unnamed)";
}

namespace {

// " from rank A" for channel `c` of the plan's variant for this
// communicator, with A relabelled as the last launch was (rooted plans).
std::string channelSource(Shared *s, const ccl_plan *p, uint32_t c,
                          uint32_t waitOp) {
  for (uint32_t v = 0; v < p->num_variants; v++) {
    const ccl_variant &var = p->variants[v];
    if (var.nranks != (uint32_t)s->nranks || c >= var.num_channels ||
        !var.channels)
      continue;
    int shift =
        s->local.empty() ? 0 : s->ranks[s->local.front()]->lastShift.load();
    const ccl_channel_info &ch = var.channels[c];
    uint32_t src = (ch.src + (uint32_t)shift) % var.nranks;
    // The operation the source rank should have run (ABI 5).
    std::string op;
    const ccl_op_info &w = p->ops[waitOp];
    if (w.awaits && w.awaits - 1 < p->num_ops) {
      const ccl_op_info &o = p->ops[w.awaits - 1];
      op = format(" (its %s at %s:%u:%u)", o.kind ? o.kind : "signal",
                  o.file ? o.file : (p->source ? p->source : "?"), o.line,
                  o.col);
    } else if (!w.awaits && w.source_signals) {
      op = format(" (which signals it only %u times per call, fewer than "
                  "this rank waits on it)",
                  w.source_signals);
    }
    return format(" from rank %u%s", src, op.c_str());
  }
  return "";
}

// When every rank is in this process: the ranks that queued fewer calls
// than the others, which the others' waits are most likely waiting for
// (a rank that never made the call).
std::string laggards(Shared *s) {
  if ((int)s->local.size() != s->nranks || s->nranks < 2)
    return "";
  uint64_t most = 0;
  for (int r = 0; r < s->nranks; r++)
    most = std::max<uint64_t>(most, s->ranks[r]->calls.load());
  std::string behind;
  int nbehind = 0;
  uint64_t fewest = most;
  for (int r = 0; r < s->nranks; r++) {
    uint64_t c = s->ranks[r]->calls.load();
    if (c == most)
      continue;
    behind += format("%s%d", nbehind ? ", " : "", r);
    nbehind++;
    fewest = std::min(fewest, c);
  }
  if (!nbehind)
    return "";
  return format(" (rank%s %s queued %s%" PRIu64 " calls on this communicator, "
                "the others %" PRIu64 ": %s not made the call the others "
                "wait for)",
                nbehind > 1 ? "s" : "", behind.c_str(),
                nbehind > 1 ? "as few as " : "", fewest, most,
                nbehind > 1 ? "they have" : "it has");
}

} // namespace

ccl_error_record readErrorRecord(const Shared *s) {
  // The state is claimed with a compare-and-swap, which a losing thread of
  // another rank may still be running while this reads it: an atomic load.
  // The other fields are written by the winner before it raises the abort
  // flag, and the caller has seen the flag (or the kernels finished).
  ccl_error_record rec;
  rec.state = __atomic_load_n(&s->error->state, __ATOMIC_ACQUIRE);
  volatile const ccl_error_record *e = s->error;
  rec.rank = e->rank;
  rec.block = e->block;
  rec.op_id = e->op_id;
  rec.expected = e->expected;
  rec.observed = e->observed;
  rec.waited_ns = e->waited_ns;
  rec.wait = e->wait;
  rec.channel = e->channel;
  return rec;
}

// Describes the communicator's asynchronous error (the abort flag is set).
std::string describeAsyncError(Shared *s) {
  ccl_error_record rec = readErrorRecord(s);
  if (rec.state == CCL_ERR_REMOTE) {
    std::lock_guard<std::mutex> lk(s->failMu);
    return s->remoteFailure + "; the communicator is aborted";
  }
  if (rec.state != CCL_ERR_TIMEOUT)
    return format("the communicator was aborted (abort flag raised, error "
                  "record state %u)",
                  rec.state);
  // A rooted plan's kernels report the rank they played (relabelled for the
  // call's root); every rank of a call has the same relabelling.
  if (rec.rank < (uint32_t)s->nranks && !s->local.empty()) {
    const int shift = s->ranks[s->local.front()]->lastShift.load();
    rec.rank = (rec.rank + (uint32_t)shift) % (uint32_t)s->nranks;
  }
  const ccl_plan *p = nullptr;
  if (rec.rank < (uint32_t)s->nranks)
    p = s->ranks[rec.rank]->lastPlan.load();
  for (int r = 0; !p && r < s->nranks; r++)
    p = s->ranks[r]->lastPlan.load();
  std::string block = rec.block == 0xFFFFFFFFu
                          ? std::string("thread block ?")
                          : format("thread block %u", rec.block);
  std::string where;
  if (!p) {
    where = format("in operation %u (no launch recorded to map it to a "
                   "source line)",
                   rec.op_id);
  } else if (rec.op_id >= p->num_ops || !p->ops) {
    where = format("in operation %u (out of range: algorithm %s has %u "
                   "operations)",
                   rec.op_id, planName(p).c_str(), p->num_ops);
  } else {
    const ccl_op_info &op = p->ops[rec.op_id];
    where = format("in %s at %s:%u:%u (algorithm %s)", op.kind ? op.kind : "?",
                   op.file ? op.file : (p->source ? p->source : "?"), op.line,
                   op.col, planName(p).c_str());
  }
  // What the wait waited for, by the kind of operation (counters are
  // cumulative over calls and reported by their low 32 bits).
  std::string kind;
  if (p && rec.op_id < p->num_ops && p->ops && p->ops[rec.op_id].kind)
    kind = p->ops[rec.op_id].kind;
  std::string what;
  if (rec.wait == CCL_WAIT_FIFO)
    what = format("waited for the proxy of rank %u to take request %u from "
                  "the port channel's FIFO, it had taken %u (is the proxy "
                  "stalled or its transport stuck?)",
                  rec.rank, rec.expected, rec.observed);
  else if (rec.wait == CCL_WAIT_FLUSH)
    what = format("waited for the proxy of rank %u to complete request %u "
                  "of the port channel, %u had completed",
                  rec.rank, rec.expected, rec.observed);
  else if (kind == "wait" && p && rec.channel)
    what = format(
        "waited for signal %u on its channel%s, %u had arrived", rec.expected,
        channelSource(s, p, rec.channel - 1, rec.op_id).c_str(), rec.observed);
  else if (kind == "wait")
    what = format("waited for signal %u on its channel, %u had arrived",
                  rec.expected, rec.observed);
  else if (kind == "acquire")
    what = format("waited for release %u of the semaphore, %u had happened",
                  rec.expected, rec.observed);
  else if (kind == "tb_barrier")
    what = format("waited for %u arrivals at the barrier, %u had arrived",
                  rec.expected, rec.observed);
  else
    what = format("waited for flag %u, last saw %u", rec.expected,
                  rec.observed);
  // Timeouts under 10 ms (CCL_TIMEOUT_MS=0.05) in microseconds.
  const std::string waited = rec.waited_ns < 10000000ull
                                 ? format("%.1f us", rec.waited_ns / 1e3)
                                 : format("%.2f s", rec.waited_ns / 1e9);
  return format("rank %u %s timed out after %s %s: %s%s; the "
                "communicator is aborted",
                rec.rank, block.c_str(), waited.c_str(), where.c_str(),
                what.c_str(), laggards(s).c_str());
}

cclResult_t asyncResult(Shared *s) {
  uint32_t state = __atomic_load_n(&s->error->state, __ATOMIC_ACQUIRE);
  // A timeout record copied from another rank is that rank's timeout: here
  // it is a remote failure.
  std::lock_guard<std::mutex> lk(s->failMu);
  if (state == CCL_ERR_TIMEOUT && s->remoteFailure.empty())
    return cclTimeout;
  return cclRemoteError;
}

bool aborted(Shared *s) {
  return __atomic_load_n(const_cast<uint32_t *>(s->abortFlag),
                         __ATOMIC_ACQUIRE) != 0;
}

// Common checks of a communicator handle.
cclResult_t checkComm(cclComm_t comm, const char *fn) {
  if (!comm)
    return setError(cclInvalidArgument, format("%s: comm is NULL", fn));
  bool known, gone;
  {
    std::shared_lock<std::shared_mutex> lock(handlesMu);
    known = knownHandles().count(comm) != 0;
    gone = known && comm->retired;
  }
  if (!known)
    return setError(cclInvalidArgument,
                    format("%s: comm %p is not a communicator handle of this "
                           "process (never created by cclCommInit*, or "
                           "overwritten)",
                           fn, (const void *)comm));
  if (gone)
    return setError(cclInvalidUsage,
                    format("%s(rank %d): the communicator handle was "
                           "destroyed, and so was its communicator",
                           fn, comm->rank));
  if (comm->shared->ranks[comm->rank]->destroyed.load())
    return setError(cclInvalidUsage,
                    format("%s(rank %d): the communicator handle was "
                           "destroyed",
                           fn, comm->rank));
  return cclSuccess;
}

namespace api {

cclResult_t cclCommInitAllInProcess(cclComm_t *comms, int nranks,
                                    cclTarget_t target, const int *devices) {
  const char *fn = "cclCommInitAllInProcess";
  if (!comms)
    return setError(cclInvalidArgument, format("%s: comms is NULL", fn));
  if (nranks < 1 || nranks > CCL_MAX_LOCAL_RANKS)
    return setError(cclInvalidArgument,
                    format("%s: nranks is %d; one process drives 1 to %d "
                           "ranks (use one process per rank beyond that)",
                           fn, nranks, CCL_MAX_LOCAL_RANKS));
  for (int r = 0; r < nranks; r++)
    comms[r] = nullptr;
  if (target != cclTargetHost && target != cclTargetCuda &&
      target != cclTargetHip)
    return setError(cclInvalidArgument,
                    format("%s: unknown target %d (expected cclTargetHost, "
                           "cclTargetCuda or cclTargetHip)",
                           fn, (int)target));
  if (target == cclTargetHost && devices)
    return setError(cclInvalidArgument,
                    format("%s: devices must be NULL for the host target", fn));
  bool deterministic;
  std::string envErr;
  if (!deterministicFromEnv(&deterministic, &envErr))
    return setError(cclInvalidArgument, format("%s: ", fn) + envErr);
  Shared *s = new Shared();
  s->nranks = nranks;
  s->target = target;
  s->deterministic = deterministic;
  uint64_t timeout = defaultTimeoutNs();
  for (int r = 0; r < nranks; r++) {
    s->local.push_back(r);
    s->ranks.push_back(std::make_unique<RankState>());
    s->ranks[r]->rank = r;
    s->ranks[r]->timeoutNs = timeout;
  }
  s->device = createDevice(s);
  CtxGuard guard(s);
  cclResult_t r = s->device->init(devices);
  if (r != cclSuccess) {
    std::string msg = cclGetLastError();
    destroyShared(s);
    return setError(r, std::string(fn) + ": " + msg);
  }
  s->abortFlag = static_cast<volatile uint32_t *>(s->hostMapped);
  s->error = reinterpret_cast<ccl_error_record *>(
      static_cast<char *>(s->hostMapped) + 8);
  // Plans are prepared once the abort flag and error record exist.
  std::string firstError;
  loadPlans(s, &firstError); // failures are remembered per plan
  s->liveHandles = nranks;
  for (int r = 0; r < nranks; r++)
    comms[r] = newHandle(s, r);
  return cclSuccess;
}

cclResult_t cclCommDestroy(cclComm_t comm) {
  cclResult_t r = checkComm(comm, "cclCommDestroy");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  CtxGuard guard(s);
  s->ranks[comm->rank]->destroyed = true;
  if (--s->liveHandles == 0)
    destroyShared(s);
  return cclSuccess;
}

namespace {
/// The common shape of the getters: check the handle and the out pointer,
/// then store what `get` reads from the communicator.
template <typename T, typename Get>
cclResult_t commQuery(cclComm_t comm, T *out, const char *fn,
                             const char *what, Get get) {
  cclResult_t r = checkComm(comm, fn);
  if (r != cclSuccess)
    return r;
  if (!out)
    return setError(cclInvalidArgument, format("%s: %s is NULL", fn, what));
  *out = get(comm);
  return cclSuccess;
}
} // namespace

cclResult_t cclCommRank(cclComm_t comm, int *rank) {
  return commQuery(comm, rank, "cclCommRank", "rank",
                   [](cclComm_t c) { return c->rank; });
}

cclResult_t cclCommCount(cclComm_t comm, int *nranks) {
  return commQuery(comm, nranks, "cclCommCount", "nranks",
                   [](cclComm_t c) { return c->shared->nranks; });
}

cclResult_t cclCommTarget(cclComm_t comm, cclTarget_t *target) {
  return commQuery(comm, target, "cclCommTarget", "target",
                   [](cclComm_t c) { return c->shared->target; });
}

cclResult_t cclCommDevice(cclComm_t comm, int *device) {
  return commQuery(comm, device, "cclCommDevice", "device", [](cclComm_t c) {
    return c->shared->ranks[c->rank]->device;
  });
}

cclResult_t cclCommGetAsyncError(cclComm_t comm, cclResult_t *async_error) {
  cclResult_t r = checkComm(comm, "cclCommGetAsyncError");
  if (r != cclSuccess)
    return r;
  if (!async_error)
    return setError(cclInvalidArgument,
                    format("cclCommGetAsyncError(rank %d): async_error is "
                           "NULL",
                           comm->rank));
  Shared *s = comm->shared;
  *async_error = cclSuccess;
  if (!aborted(s))
    return cclSuccess;
  // The description goes to cclGetLastError; the call itself succeeded.
  tellPeers(s);
  *async_error = asyncResult(s);
  setError(*async_error, format("cclCommGetAsyncError(rank %d): ", comm->rank) +
                             describeAsyncError(s));
  return cclSuccess;
}

cclResult_t cclCommSynchronize(cclComm_t comm, cclStream_t stream) {
  cclResult_t r = checkComm(comm, "cclCommSynchronize");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  CtxGuard guard(s);
  if (const char *why = s->device->streamError(stream))
    return setError(cclInvalidArgument,
                    format("cclCommSynchronize(rank %d): %s", comm->rank,
                           why));
  r = s->device->synchronize(comm->rank, stream);
  // A failed kernel may still have left a timeout record: prefer it.
  if (r != cclSuccess && !aborted(s))
    return r;
  if (aborted(s))
    tellPeers(s);
  if (aborted(s))
    return setError(asyncResult(s), format("cclCommSynchronize(rank %d): ",
                                           comm->rank) +
                                        describeAsyncError(s));
  return cclSuccess;
}

cclResult_t cclCommDebugSkipLaunches(cclComm_t comm, int skip) {
  cclResult_t r = checkComm(comm, "cclCommDebugSkipLaunches");
  if (r != cclSuccess)
    return r;
  comm->shared->ranks[comm->rank]->skip = skip ? 1 : 0;
  return cclSuccess;
}

cclResult_t cclMemAlloc(cclComm_t comm, void **ptr, size_t bytes) {
  cclResult_t r = checkComm(comm, "cclMemAlloc");
  if (r != cclSuccess)
    return r;
  if (!ptr)
    return setError(cclInvalidArgument, "cclMemAlloc: ptr is NULL");
  *ptr = nullptr;
  if (bytes == 0)
    return cclSuccess;
  if (bytes > kMaxAllocBytes)
    return setError(cclInvalidArgument,
                    format("cclMemAlloc(rank %d): %zu bytes is more than any "
                           "rank's memory (at most 2^48 bytes)",
                           comm->rank, bytes));
  CtxGuard guard(comm->shared);
  r = comm->shared->device->allocateUser(comm->rank, bytes, ptr);
  if (r != cclSuccess)
    return setError(r, format("cclMemAlloc(rank %d): ", comm->rank) +
                           cclGetLastError());
  RankState &rs = *comm->shared->ranks[comm->rank];
  std::lock_guard<std::mutex> lock(rs.userMu);
  rs.userAllocs[*ptr] = bytes;
  return cclSuccess;
}

cclResult_t cclMemFree(cclComm_t comm, void *ptr) {
  cclResult_t r = checkComm(comm, "cclMemFree");
  if (r != cclSuccess)
    return r;
  if (!ptr)
    return cclSuccess;
  // Only what cclMemAlloc gave this rank: any other pointer (freed
  // already, another rank's, never allocated here) is an error, never a
  // free() or cuMemFree of it.
  RankState &rs = *comm->shared->ranks[comm->rank];
  {
    std::lock_guard<std::mutex> lock(rs.userMu);
    if (!rs.userAllocs.erase(ptr))
      return setError(cclInvalidArgument,
                      format("cclMemFree(rank %d): %p is not memory "
                             "cclMemAlloc gave this rank (freed already, "
                             "another rank's, or never allocated here)",
                             comm->rank, ptr));
  }
  CtxGuard guard(comm->shared);
  return comm->shared->device->deallocate(comm->rank, ptr, "cclMemFree");
}

cclResult_t cclMemcpyToDevice(cclComm_t comm, void *dst, const void *src,
                              size_t bytes) {
  cclResult_t r = checkComm(comm, "cclMemcpyToDevice");
  if (r != cclSuccess)
    return r;
  if (bytes && (!dst || !src))
    return setError(cclInvalidArgument,
                    format("cclMemcpyToDevice(rank %d): NULL %s with %zu "
                           "bytes",
                           comm->rank, dst ? "src" : "dst", bytes));
  CtxGuard guard(comm->shared);
  r = comm->shared->device->upload(comm->rank, dst, src, bytes);
  if (r != cclSuccess)
    return setError(r, format("cclMemcpyToDevice(rank %d): ", comm->rank) +
                           cclGetLastError());
  return cclSuccess;
}

cclResult_t cclMemcpyFromDevice(cclComm_t comm, void *dst, const void *src,
                                size_t bytes) {
  cclResult_t r = checkComm(comm, "cclMemcpyFromDevice");
  if (r != cclSuccess)
    return r;
  if (bytes && (!dst || !src))
    return setError(cclInvalidArgument,
                    format("cclMemcpyFromDevice(rank %d): NULL %s with %zu "
                           "bytes",
                           comm->rank, dst ? "src" : "dst", bytes));
  CtxGuard guard(comm->shared);
  r = comm->shared->device->download(comm->rank, dst, src, bytes);
  if (r != cclSuccess)
    return setError(r, format("cclMemcpyFromDevice(rank %d): ", comm->rank) +
                           cclGetLastError());
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
