// ccl-perf - benchmark and correctness checker for cclc-generated libraries,
// in the style of nccl-tests' all_reduce_perf. docs/ccl-perf.md describes
// the flags, the table and how results are checked.
#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ccl/ccl.h"
#include "tools/ccl-perf/check.h"
#include "tools/ccl-perf/cuda_driver.h"
#include "tools/ccl-perf/dtype.h"
#include "tools/ccl-perf/nccl_loader.h"
#include "tools/ccl-perf/options.h"

using namespace cclperf;

// --- Plans of the library ----------------------------------------------------
//
// libcclrt has no API to look a registered plan up, so ccl-perf defines
// cclrtRegisterPlan itself (exported from the executable, see BUILD): the
// library's static constructor binds to this definition, which records the
// plan and forwards it to libcclrt's. A library may also export the plan as
// a data symbol (see findExportedPlan).

static std::vector<const ccl_plan *> &capturedPlans() {
  static std::vector<const ccl_plan *> plans;
  return plans;
}
static bool g_forwardFailed = false;

extern "C" __attribute__((visibility("default"))) void cclrtRegisterPlan(
    const ccl_plan *plan) {
  capturedPlans().push_back(plan);
  typedef void (*Fn)(const ccl_plan *);
  static Fn next = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "cclrtRegisterPlan"));
  if (next && next != &cclrtRegisterPlan)
    next(plan);
  else
    g_forwardFailed = true;
}

static std::vector<const ccl_plan *> findExportedPlans(void *lib,
                                                       const std::string &algo) {
  std::vector<const ccl_plan *> out;
  const std::string names[] = {"ccl_plan_" + algo, "ccl_" + algo + "_plan",
                               algo + "_plan"};
  for (const std::string &n : names)
    if (void *p = dlsym(lib, n.c_str())) out.push_back((const ccl_plan *)p);
  return out;
}

static const char *targetName(uint32_t t) {
  switch (t) {
    case CCL_TARGET_HOST: return "host";
    case CCL_TARGET_NVPTX: return "cuda";
    case CCL_TARGET_AMDGPU: return "amdgpu";
  }
  return "?";
}

// --- Failure reporting -------------------------------------------------------

static std::string cclError(const char *what, int rank, cclResult_t r) {
  std::string s = what;
  if (rank >= 0) s += " on rank " + std::to_string(rank);
  s += " failed: ";
  s += cclGetErrorString(r);
  const char *last = cclGetLastError();
  if (last && *last) s += ": " + std::string(last);
  return s;
}

// Continuation lines of a multi-line message stay comments in the table.
static std::string commented(const std::string &msg) {
  std::string out;
  for (char c : msg) {
    out += c;
    if (c == '\n') out += "#   ";
  }
  return out;
}

// True when standard output and standard error are the same file (a
// terminal, or one log): an error is then printed once, as a table line.
static bool sameOutput() {
  struct stat a, b;
  return fstat(1, &a) == 0 && fstat(2, &b) == 0 && a.st_dev == b.st_dev &&
         a.st_ino == b.st_ino;
}

// The one report of an error: a `# ERROR:` line in the table (standard
// output) and, when standard error goes elsewhere, the message there too.
static void reportError(const std::string &msg) {
  std::printf("# ERROR: %s\n", commented(msg).c_str());
  std::fflush(stdout);
  if (!sameOutput()) {
    std::fprintf(stderr, "ccl-perf: error: %s\n", msg.c_str());
    std::fflush(stderr);
  }
}

[[noreturn]] static void fatal(const std::string &msg) {
  std::fflush(stdout);
  reportError(msg);
  _exit(1);
}

// --- Shared state ------------------------------------------------------------

typedef int (*EntryFn)(cclComm_t comm, const void *input, void *output,
                       size_t count, cclDataType_t dtype, cclRedOp_t op,
                       cclStream_t stream);

struct Env {
  Options opt;
  bool cuda = false;
  int n = 1;
  const Collective *coll = nullptr;
  int root = 0;  // Broadcast, Reduce: the plan's root
  std::vector<cclComm_t> comms;
  const cu::Driver *drv = nullptr;
  std::vector<int> devices;
  std::vector<cu::CUcontext> ctxs;
  std::vector<cu::CUstream> streams;  // nullptr on host
  std::vector<cu::CUevent> evStart, evStop;
  // Per rank, from cclMemAlloc: the working buffers (timed runs, and the
  // buffers every call reuses in the back-to-back check). recv is large
  // enough for an in-place call (max of input and output).
  std::vector<void *> send, recv;
  // Per rank: the back-to-back check's buffers (see checkedRun).
  std::vector<void *> arena;
  size_t arenaBytes = 0;
  // Host buffers of the largest buffer's size: staging, reference, poison.
  std::vector<unsigned char> hostBuf, refBuf, poisonBuf;
  bool poisonValid = false;
  DType poisonType = DType::F32;
  uint64_t checkedCalls = 0;

  bool cu(cu::CUresult r, const char *what, int rank, std::string *err) const {
    if (r == 0) return true;
    *err = std::string(what) + (rank >= 0 ? " on rank " + std::to_string(rank) : "") +
           " failed: " + drv->errorText(r);
    return false;
  }
  bool setRank(int r, std::string *err) const {
    return !cuda || cu(drv->cuCtxSetCurrent(ctxs[r]), "cuCtxSetCurrent", r, err);
  }
  cclStream_t stream(int r) const { return cuda ? (cclStream_t)streams[r] : nullptr; }
  // The host poison pattern of t, at least `count` elements.
  const void *poison(DType t) {
    if (!poisonValid || poisonType != t) {
      fillPoison(t, poisonBuf.data(), poisonBuf.size() / dtypeSize(t));
      poisonType = t;
      poisonValid = true;
    }
    return poisonBuf.data();
  }
};

// --- Backends ----------------------------------------------------------------

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char *label() const = 0;
  // Queues one call on every rank, in rank order, from this thread.
  virtual bool launchAll(const std::vector<void *> &in,
                         const std::vector<void *> &out, size_t count, DType t,
                         Op op, std::string *err) = 0;
  // Waits for every rank; reports asynchronous failures (timeouts).
  virtual bool syncAll(std::string *err) = 0;
};

// `msg` without the first "(rank R)", so that the same asynchronous error
// reported through several ranks compares equal.
static std::string withoutRank(const std::string &msg, int r) {
  std::string tag = "(rank " + std::to_string(r) + ")";
  size_t at = msg.find(tag);
  return at == std::string::npos ? msg : msg.substr(0, at) + msg.substr(at + tag.size());
}

class CclBackend : public Backend {
 public:
  CclBackend(Env &env, EntryFn fn) : env_(env), fn_(fn) {}
  const char *label() const override { return "cclc"; }
  bool launchAll(const std::vector<void *> &in, const std::vector<void *> &out,
                 size_t count, DType t, Op op, std::string *err) override {
    for (int r = 0; r < env_.n; r++) {
      if (!env_.setRank(r, err)) return false;
      int rc = fn_(env_.comms[r], in[r], out[r], count, (cclDataType_t)t,
                   (cclRedOp_t)op, env_.stream(r));
      if (rc != cclSuccess) {
        *err = cclError(("ccl_" + env_.opt.algo).c_str(), r, (cclResult_t)rc);
        return false;
      }
    }
    return true;
  }
  // Every rank is synchronised; an error that several ranks report (an
  // aborted communicator) is reported once, with the ranks that saw it.
  bool syncAll(std::string *err) override {
    bool ok = true;
    std::string first;
    std::vector<int> same;
    for (int r = 0; r < env_.n; r++) {
      cclResult_t rc = cclCommSynchronize(env_.comms[r], env_.stream(r));
      if (rc == cclSuccess) continue;
      const char *last = cclGetLastError();
      std::string norm = withoutRank(last ? last : "", r);
      std::string e = cclError("cclCommSynchronize", r, rc);
      if (ok) {
        *err = e;
        first = norm;
        ok = false;
      } else if (norm == first) {
        same.push_back(r);
      } else {
        *err += "\n  " + e;
      }
    }
    if (!same.empty()) {
      *err += "\n  (rank";
      *err += same.size() > 1 ? "s " : " ";
      *err += joinInts(same) + " reported the same error)";
    }
    return ok;
  }

 private:
  Env &env_;
  EntryFn fn_;
};

class NcclBackend : public Backend {
 public:
  NcclBackend(Env &env, const nccl::Nccl *nc, std::vector<nccl::ncclComm_t> comms)
      : env_(env), nc_(nc), comms_(std::move(comms)) {}
  ~NcclBackend() override {
    for (auto c : comms_) nc_->ncclCommDestroy(c);
  }
  const char *label() const override { return "NCCL"; }
  bool launchAll(const std::vector<void *> &in, const std::vector<void *> &out,
                 size_t count, DType t, Op op, std::string *err) override {
    static const int kType[] = {nccl::ncclFloat32, nccl::ncclFloat16,
                                nccl::ncclBfloat16};
    const int dt = kType[(int)t];
    nccl::ncclResult_t rc = nc_->ncclGroupStart();
    if (rc != 0) return fail("ncclGroupStart", -1, rc, err);
    for (int r = 0; r < env_.n; r++) {
      void *s = env_.streams[r];
      nccl::ncclComm_t c = comms_[r];
      const char *what = "?";
      switch (env_.coll->kind) {
        case CollKind::AllReduce:
          what = "ncclAllReduce";
          rc = nc_->ncclAllReduce(in[r], out[r], count, dt, (int)op, c, s);
          break;
        case CollKind::AllGather:
          what = "ncclAllGather";
          rc = nc_->ncclAllGather(in[r], out[r], count, dt, c, s);
          break;
        case CollKind::ReduceScatter:
          what = "ncclReduceScatter";
          rc = nc_->ncclReduceScatter(in[r], out[r], count, dt, (int)op, c, s);
          break;
        case CollKind::AllToAll:  // resolved, or refused before the sweep
          what = "ncclAlltoAll";
          rc = nc_->ncclAlltoAll(in[r], out[r], count, dt, c, s);
          break;
        case CollKind::Broadcast:
          what = "ncclBroadcast";
          rc = nc_->ncclBroadcast(in[r], out[r], count, dt, env_.root, c, s);
          break;
        case CollKind::Reduce:
          what = "ncclReduce";
          rc = nc_->ncclReduce(in[r], out[r], count, dt, (int)op, env_.root, c, s);
          break;
      }
      if (rc != 0) {
        nc_->ncclGroupEnd();
        return fail(what, r, rc, err);
      }
    }
    rc = nc_->ncclGroupEnd();
    if (rc != 0) return fail("ncclGroupEnd", -1, rc, err);
    return true;
  }
  bool syncAll(std::string *err) override {
    for (int r = 0; r < env_.n; r++) {
      if (!env_.setRank(r, err)) return false;
      if (!env_.cu(env_.drv->cuStreamSynchronize(env_.streams[r]),
                   "cuStreamSynchronize (NCCL)", r, err))
        return false;
    }
    return true;
  }

 private:
  bool fail(const char *what, int rank, nccl::ncclResult_t rc, std::string *err) {
    *err = std::string(what) + (rank >= 0 ? " on rank " + std::to_string(rank) : "") +
           " failed: " + nc_->errorText(rc);
    return false;
  }
  Env &env_;
  const nccl::Nccl *nc_;
  std::vector<nccl::ncclComm_t> comms_;
};

// --- CUDA graphs -------------------------------------------------------------

struct Graphs {
  const Env *env = nullptr;
  std::vector<cu::CUgraphExec> execs;
  ~Graphs() {
    for (size_t r = 0; r < execs.size(); r++)
      if (execs[r]) {
        std::string e;
        env->setRank((int)r, &e);
        env->drv->cuGraphExecDestroy(execs[r]);
      }
  }
};

// Captures what `queue` puts on the ranks' streams (each rank's work on its
// own stream) into one graph per rank.
static bool captureGraphs(Env &env, const std::function<bool(std::string *)> &queue,
                          Graphs *g, std::string *err) {
  const cu::Driver *d = env.drv;
  g->env = &env;
  g->execs.assign(env.n, nullptr);
  int begun = 0;
  bool ok = true;
  for (int r = 0; r < env.n && ok; r++) {
    ok = env.setRank(r, err) &&
         env.cu(d->cuStreamBeginCapture(env.streams[r],
                                        cu::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                "cuStreamBeginCapture", r, err);
    if (ok) begun++;
  }
  if (ok) ok = queue(err);
  std::vector<cu::CUgraph> graphs(env.n, nullptr);
  for (int r = 0; r < begun; r++) {
    std::string e;
    bool endOk = env.setRank(r, &e) &&
                 env.cu(d->cuStreamEndCapture(env.streams[r], &graphs[r]),
                        "cuStreamEndCapture", r, &e);
    if (!endOk && ok) {
      *err = e;
      ok = false;
    }
  }
  for (int r = 0; r < env.n && ok; r++)
    ok = env.setRank(r, err) &&
         env.cu(d->cuGraphInstantiateWithFlags(&g->execs[r], graphs[r], 0),
                "cuGraphInstantiate", r, err);
  for (int r = 0; r < env.n; r++)
    if (graphs[r]) {
      std::string e;
      env.setRank(r, &e);
      d->cuGraphDestroy(graphs[r]);
    }
  return ok;
}

static bool launchGraphs(Env &env, const Graphs &g, std::string *err) {
  for (int r = 0; r < env.n; r++)
    if (!env.setRank(r, err) ||
        !env.cu(env.drv->cuGraphLaunch(g.execs[r], env.streams[r]), "cuGraphLaunch",
                r, err))
      return false;
  return true;
}

// --- Copies ------------------------------------------------------------------

static bool copyIn(Env &env, int r, void *dst, const void *src, size_t bytes,
                   std::string *err) {
  cclResult_t rc = cclMemcpyToDevice(env.comms[r], dst, src, bytes);
  if (rc != cclSuccess) *err = cclError("cclMemcpyToDevice", r, rc);
  return rc == cclSuccess;
}

static bool copyOut(Env &env, int r, void *dst, const void *src, size_t bytes,
                    std::string *err) {
  cclResult_t rc = cclMemcpyFromDevice(env.comms[r], dst, src, bytes);
  if (rc != cclSuccess) *err = cclError("cclMemcpyFromDevice", r, rc);
  return rc == cclSuccess;
}

// Queued on the rank's stream (host: its worker), ordered with the calls.
static bool copyAsync(Env &env, int r, void *dst, const void *src, size_t bytes,
                      std::string *err) {
  if (!env.setRank(r, err)) return false;
  cclResult_t rc = cclMemcpyAsync(env.comms[r], dst, src, bytes, env.stream(r));
  if (rc != cclSuccess) *err = cclError("cclMemcpyAsync", r, rc);
  return rc == cclSuccess;
}

// --delay: on before the checked calls, off for the timed ones.
static bool setDelays(Env &env, bool on, std::string *err) {
  for (const Delay &d : env.opt.delays) {
    cclResult_t rc = cclCommDebugSetDelay(env.comms[d.rank], d.block,
                                          on ? d.us * 1000 : 0);
    if (rc != cclSuccess) {
      *err = cclError("cclCommDebugSetDelay", d.rank, rc);
      return false;
    }
  }
  return true;
}

// --- The back-to-back check --------------------------------------------------

struct RowSpec {
  size_t count = 0;
  DType t = DType::F32;
  Op op = Op::Sum;
};

enum class BufMode { Separate, Reused };

static const char *modeName(BufMode m) {
  return m == BufMode::Separate ? "separate buffers" : "reused buffers";
}

static size_t roundUp(size_t x, size_t a) { return (x + a - 1) / a * a; }
// Buffers carved from the arena start at multiples of this.
static const size_t kAlign = 256;

// Bytes of one buffer of the check for a row: its largest buffer (an
// in-place call's buffer holds both input and output).
static size_t slotBytes(const Env &env, const RowSpec &row) {
  return roundUp(env.coll->inplaceCount(row.count, env.n) * dtypeSize(row.t), kAlign);
}

// K for a row: the arena holds 2K + 1 buffers of slotBytes (see checkedRun).
static int rowCalls(const Env &env, size_t slot) {
  size_t fit = env.arenaBytes / slot;
  size_t k = fit >= 3 ? (fit - 1) / 2 : 1;
  return (int)std::min<size_t>((size_t)env.opt.calls, k);
}

// Element offsets of a rank's input and output in the buffer of a call.
static size_t inOffset(const Env &env, size_t count, bool inplace, int r) {
  return inplace ? env.coll->inplaceInOffset(count, env.n, r) : 0;
}
static size_t outOffset(const Env &env, size_t count, bool inplace, int r) {
  return inplace ? env.coll->inplaceOutOffset(count, env.n, r) : 0;
}

static std::string fmtElem(DType t, bool bits, const void *buf, size_t i) {
  char s[48];
  if (bits && dtypeSize(t) == 4) {
    uint32_t v;
    std::memcpy(&v, (const char *)buf + 4 * i, 4);
    std::snprintf(s, sizeof s, "0x%08x", v);
  } else if (bits) {
    uint16_t v;
    std::memcpy(&v, (const char *)buf + 2 * i, 2);
    std::snprintf(s, sizeof s, "0x%04x", v);
  } else {
    std::snprintf(s, sizeof s, "%g", (double)loadAsFloat(t, buf, i));
  }
  return s;
}

// "0,1,2,5" (at most 16 entries, then "...").
static std::string listInts(const std::vector<int> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++) {
    if (i == 16) return s + ",...";
    s += (i ? "," : "") + std::to_string(v[i]);
  }
  return s;
}

// One checked run: K calls per rank, queued rank after rank (call k of
// every rank, then call k + 1) with no host synchronisation in between
// (eagerly, or captured into one CUDA graph per rank and replayed once),
// then one synchronisation and a check of all K results. Every call gets
// fresh data. Buffers, per rank, from its arena (slot = slotBytes):
//   A[k] = slot k, B[k] = slot K + k, P = slot 2K.
// Separate: call k reads A[k] and writes B[k] (in place: works in B[k]).
// Reused:  every call uses the working buffers send/recv; before call k,
//   cclMemcpyAsync refills the input from A[k] (and the output with poison
//   from P; in place: the whole buffer from A[k]); after it, the output is
//   copied to B[k]. All on the rank's stream, no host synchronisation.
// Adds the wrong values (over every rank's defined output of every call) to
// *wrong and a line describing them to *notes.
static bool checkedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
                       bool graph, BufMode mode, int K, size_t *wrong,
                       std::vector<std::string> *notes, std::string *err) {
  const int n = env.n;
  const DType t = row.t;
  const size_t es = dtypeSize(t), count = row.count;
  const Collective &coll = *env.coll;
  const size_t ic = coll.inCount(count, n), oc = coll.outCount(count, n);
  const size_t len = coll.inplaceCount(count, n);  // in-place buffer
  const size_t slot = slotBytes(env, row);
  const bool bits = !coll.reduction;
  auto A = [&](int r, int k) { return (char *)env.arena[r] + (size_t)k * slot; };
  auto B = [&](int r, int k) { return (char *)env.arena[r] + (size_t)(K + k) * slot; };
  auto P = [&](int r) { return (char *)env.arena[r] + (size_t)(2 * K) * slot; };

  std::vector<InputGen> gens(K);
  for (InputGen &g : gens) {
    g.key = makeKey(env.opt.seed, ++env.checkedCalls);
    g.op = row.op;
    g.nranks = n;
    g.root = env.root;
    g.bits = bits;
  }

  // 1. Stage every call's data (host copies complete on return; every
  // stream is idle here).
  unsigned char *host = env.hostBuf.data();
  const void *poison = env.poison(t);
  for (int r = 0; r < n; r++) {
    const size_t io = inOffset(env, count, inplace, r);
    for (int k = 0; k < K; k++) {
      if (inplace) {  // the whole buffer: poison, the input at its offset
        std::memcpy(host, poison, len * es);
        gens[k].fill(r, t, host + io * es, ic);
        if (!copyIn(env, r, mode == BufMode::Separate ? B(r, k) : A(r, k), host,
                    len * es, err))
          return false;
        if (mode == BufMode::Reused && !copyIn(env, r, B(r, k), poison, oc * es, err))
          return false;
      } else {
        gens[k].fill(r, t, host, ic);
        if (!copyIn(env, r, A(r, k), host, ic * es, err) ||
            !copyIn(env, r, B(r, k), poison, oc * es, err))
          return false;
      }
    }
    if (mode == BufMode::Reused && !inplace &&
        !copyIn(env, r, P(r), poison, oc * es, err))
      return false;
  }

  // 2. Queue the K calls of every rank.
  auto queue = [&](std::string *e) {
    std::vector<void *> in(n), out(n);
    for (int k = 0; k < K; k++) {
      for (int r = 0; r < n; r++) {
        const size_t io = inOffset(env, count, inplace, r) * es;
        const size_t oo = outOffset(env, count, inplace, r) * es;
        if (mode == BufMode::Separate) {
          in[r] = inplace ? B(r, k) + io : A(r, k);
          out[r] = B(r, k) + oo;
        } else {
          char *work = (char *)env.recv[r];
          in[r] = inplace ? work + io : env.send[r];
          out[r] = work + oo;
          bool queued = inplace
                            ? copyAsync(env, r, work, A(r, k), len * es, e)
                            : copyAsync(env, r, env.send[r], A(r, k), ic * es, e) &&
                                  copyAsync(env, r, work, P(r), oc * es, e);
          if (!queued) return false;
        }
      }
      if (!b.launchAll(in, out, count, t, row.op, e)) return false;
      if (mode == BufMode::Reused)
        for (int r = 0; r < n; r++)
          if (!copyAsync(env, r, B(r, k), out[r], oc * es, e)) return false;
    }
    return true;
  };
  if (graph) {
    Graphs g;
    if (!captureGraphs(env, queue, &g, err)) return false;
    if (!launchGraphs(env, g, err) || !b.syncAll(err)) return false;
  } else {
    if (!queue(err) || !b.syncAll(err)) return false;
  }

  // 3. Check every call's defined outputs.
  size_t bad = 0, firstAt = 0;
  int firstCall = -1, firstRank = -1;
  std::string firstGot, firstWant;
  std::vector<int> badCalls, badRanks;
  std::vector<bool> rankBad(n, false);
  unsigned char *ref = env.refBuf.data();
  for (int k = 0; k < K; k++) {
    bool haveRef = false, callBad = false;
    for (int r = 0; r < n; r++) {
      if (!coll.outputDefined(r, env.root)) continue;
      const char *src = mode == BufMode::Separate
                            ? B(r, k) + outOffset(env, count, inplace, r) * es
                            : B(r, k);
      if (!copyOut(env, r, host, src, oc * es, err)) return false;
      if (!haveRef || !coll.sameOutput) coll.reference(gens[k], r, count, t, ref);
      haveRef = true;
      size_t first = oc;
      size_t w = countMismatches(t, bits, host, ref, oc, &first);
      if (!w) continue;
      if (firstCall < 0) {
        firstCall = k;
        firstRank = r;
        firstAt = first;
        firstGot = fmtElem(t, bits, host, first);
        firstWant = fmtElem(t, bits, ref, first);
      }
      bad += w;
      callBad = true;
      rankBad[r] = true;
    }
    if (callBad) badCalls.push_back(k);
  }
  *wrong += bad;
  if (bad) {
    for (int r = 0; r < n; r++)
      if (rankBad[r]) badRanks.push_back(r);
    char line[512];
    std::snprintf(line, sizeof line,
                  "%s, %s, %s: %zu wrong in call%s %s of %d, rank%s %s; first: call "
                  "%d rank %d element %zu is %s, expected %s",
                  inplace ? "in-place" : "out-of-place", modeName(mode),
                  graph ? "graph" : "eager", bad, badCalls.size() > 1 ? "s" : "",
                  listInts(badCalls).c_str(), K, badRanks.size() > 1 ? "s" : "",
                  listInts(badRanks).c_str(), firstCall, firstRank, firstAt,
                  firstGot.c_str(), firstWant.c_str());
    notes->push_back(line);
  }
  return true;
}

// --- Timing ------------------------------------------------------------------

// Average time of one iteration in microseconds.
static bool timedRun(Env &env, Backend &b, const RowSpec &row, bool inplace,
                     double *us, std::string *err) {
  const int n = env.n;
  const int iters = env.opt.iters;
  const size_t count = row.count, es = dtypeSize(row.t);
  const DType t = row.t;
  const Op op = row.op;
  std::vector<void *> in(n), out(n);
  for (int r = 0; r < n; r++) {
    char *work = (char *)env.recv[r];
    in[r] = inplace ? work + inOffset(env, count, true, r) * es : env.send[r];
    out[r] = work + outOffset(env, count, inplace, r) * es;
  }
  for (int i = 0; i < env.opt.warmup; i++)
    if (!b.launchAll(in, out, count, t, op, err)) return false;
  if (!b.syncAll(err)) return false;

  if (!env.cuda) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; i++)
      if (!b.launchAll(in, out, count, t, op, err)) return false;
    if (!b.syncAll(err)) return false;
    auto t1 = std::chrono::steady_clock::now();
    *us = std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
    return true;
  }

  const cu::Driver *d = env.drv;
  const int G = env.opt.graphLaunches;
  Graphs g;
  if (G > 0) {
    auto queue = [&](std::string *e) {
      for (int i = 0; i < iters; i++)
        if (!b.launchAll(in, out, count, t, op, e)) return false;
      return true;
    };
    if (!captureGraphs(env, queue, &g, err)) return false;
    if (env.opt.warmup > 0 && (!launchGraphs(env, g, err) || !b.syncAll(err)))
      return false;
  }
  for (int r = 0; r < n; r++)
    if (!env.setRank(r, err) ||
        !env.cu(d->cuEventRecord(env.evStart[r], env.streams[r]), "cuEventRecord", r, err))
      return false;
  if (G > 0) {
    for (int k = 0; k < G; k++)
      if (!launchGraphs(env, g, err)) return false;
  } else {
    for (int i = 0; i < iters; i++)
      if (!b.launchAll(in, out, count, t, op, err)) return false;
  }
  for (int r = 0; r < n; r++)
    if (!env.setRank(r, err) ||
        !env.cu(d->cuEventRecord(env.evStop[r], env.streams[r]), "cuEventRecord", r, err))
      return false;
  if (!b.syncAll(err)) return false;
  double maxMs = 0;
  for (int r = 0; r < n; r++) {
    float ms = 0;
    if (!env.setRank(r, err) ||
        !env.cu(d->cuEventSynchronize(env.evStop[r]), "cuEventSynchronize", r, err) ||
        !env.cu(d->cuEventElapsedTime(&ms, env.evStart[r], env.evStop[r]),
                "cuEventElapsedTime", r, err))
      return false;
    maxMs = std::max(maxMs, (double)ms);
  }
  *us = maxMs * 1000.0 / ((double)iters * (G > 0 ? G : 1));
  return true;
}

// --- The sweep and its table -------------------------------------------------

struct PlaceResult {
  bool ran = false;
  double us = 0, algbw = 0, busbw = 0;
  size_t wrong = 0;
};

struct Row {
  size_t bytes = 0, count = 0;
  DType t;
  Op op;
  PlaceResult place[2];  // out-of-place, in-place
};

struct SweepResult {
  std::vector<Row> rows;
  size_t wrong = 0;
  bool failed = false;
  std::string error;  // what failed, with its context (printed once)
  double avgBusbw() const {
    double sum = 0;
    int k = 0;
    for (const Row &r : rows)
      for (const PlaceResult &p : r.place)
        if (p.ran) {
          sum += p.busbw;
          k++;
        }
    return k ? sum / k : 0;
  }
};

static std::string fmtTime(double us) {
  char b[32];
  if (us >= 10000.0) std::snprintf(b, sizeof b, "%7.0f", us);
  else if (us >= 100.0) std::snprintf(b, sizeof b, "%7.1f", us);
  else std::snprintf(b, sizeof b, "%7.2f", us);
  return b;
}

static void printTableHeader(const char *title) {
  std::printf("#\n# %s\n", title);
  std::printf("#%62s%35s\n", "out-of-place", "in-place");
  std::printf("#%11s  %12s  %8s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
              "size", "count", "type", "redop", "time", "algbw", "busbw",
              "#wrong", "time", "algbw", "busbw", "#wrong");
  std::printf("#%11s  %12s  %8s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
              "(B)", "(elements)", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)",
              "(GB/s)", "(GB/s)", "");
  std::fflush(stdout);
}

static const char *redopColumn(const Env &env, Op op) {
  return env.coll->reduction ? opName(op) : "none";  // as nccl-tests
}

static void printRow(const Env &env, const Row &row, bool check) {
  std::printf("%12zu  %12zu  %8s  %6s", row.bytes, row.count,
              dtypeTableName(row.t), redopColumn(env, row.op));
  for (const PlaceResult &p : row.place) {
    if (!p.ran) {
      std::printf("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
      continue;
    }
    char wrong[32];
    if (check) std::snprintf(wrong, sizeof wrong, "%6zu", p.wrong);
    else std::snprintf(wrong, sizeof wrong, "%6s", "N/A");
    std::printf("  %7s  %6.2f  %6.2f  %6s", fmtTime(p.us).c_str(), p.algbw,
                p.busbw, wrong);
  }
  std::printf("\n");
  std::fflush(stdout);
}

struct RowFilter {
  // Returns false (and why) to leave a (dtype, op) or size out of the sweep.
  std::function<bool(DType, Op, std::string *)> combo;
  std::function<bool(size_t bytes, std::string *)> size;
};

// The (dtype, op) pairs of the sweep. A collective without a reduction runs
// once per dtype, with the first operator of -o (else of sum, prod, max,
// min) the plan has a kernel for: the operator does not change its result.
static std::vector<std::pair<DType, Op>> sweepCombos(const Env &env, const Backend &b,
                                                     const RowFilter &filter) {
  const Options &o = env.opt;
  std::vector<std::pair<DType, Op>> combos;
  for (DType t : o.dtypes) {
    if (env.coll->reduction) {
      for (Op op : o.ops) {
        std::string why;
        if (filter.combo && !filter.combo(t, op, &why)) {
          std::printf("# %s: skipping %s %s: %s\n", b.label(), dtypeName(t),
                      opName(op), why.c_str());
          continue;
        }
        combos.push_back({t, op});
      }
      continue;
    }
    std::vector<Op> candidates = o.ops;
    for (Op op : {Op::Sum, Op::Prod, Op::Max, Op::Min}) candidates.push_back(op);
    bool found = false;
    std::string why;
    for (Op op : candidates)
      if (!filter.combo || filter.combo(t, op, &why)) {
        combos.push_back({t, op});
        found = true;
        break;
      }
    if (!found)
      std::printf("# %s: skipping %s: %s\n", b.label(), dtypeName(t), why.c_str());
  }
  return combos;
}

// `delays`: apply --delay around the checked calls (cclc only).
static SweepResult sweep(Env &env, Backend &b, const RowFilter &filter,
                         const char *title, bool delays) {
  SweepResult res;
  const Options &o = env.opt;
  const int n = env.n;
  std::vector<std::pair<DType, Op>> combos = sweepCombos(env, b, filter);
  printTableHeader(title);
  size_t lastNoteBytes = 0;
  int lastNoteCalls = 0;
  for (size_t bytes : sweepSizes(o)) {
    for (auto [t, op] : combos) {
      Row row;
      row.t = t;
      row.op = op;
      size_t es = dtypeSize(t);
      row.count = std::max<size_t>(1, bytes / es);
      RowSpec spec{row.count, t, op};
      row.bytes = env.coll->dataBytes(row.count, n, es);
      std::string why;
      if (filter.size && !filter.size(row.count * es, &why)) {
        std::printf("%12zu  %12zu  %8s  %6s  skipped: %s\n", row.bytes, row.count,
                    dtypeTableName(t), redopColumn(env, op), why.c_str());
        continue;
      }
      const size_t slot = slotBytes(env, spec);
      const int K = o.check ? rowCalls(env, slot) : 0;
      if (o.check && K < o.calls && (row.bytes != lastNoteBytes || K != lastNoteCalls)) {
        std::printf("# back-to-back check of %zu-byte rows: K = %d call%s instead of "
                    "%d (2K + 1 buffers of %zu bytes per rank must fit in the "
                    "check's %zu bytes, --check-mem)\n",
                    row.bytes, K, K > 1 ? "s" : "", o.calls, slot, env.arenaBytes);
        lastNoteBytes = row.bytes;
        lastNoteCalls = K;
      }
      std::vector<std::string> notes;
      for (int p = 0; p < 2; p++) {
        bool inplace = p == 1;
        if (inplace && !env.coll->hasInplace) continue;  // N/A column
        PlaceResult &pr = row.place[p];
        std::string err;
        bool ok = true;
        if (o.check) {
          ok = !delays || setDelays(env, true, &err);
          for (BufMode mode : {BufMode::Separate, BufMode::Reused})
            for (bool graph : {false, true}) {
              if (graph && !(env.cuda && o.graphLaunches > 0)) continue;
              if (ok)
                ok = checkedRun(env, b, spec, inplace, graph, mode, K, &pr.wrong,
                                &notes, &err);
            }
          if (ok && delays) ok = setDelays(env, false, &err);
        }
        if (ok) ok = timedRun(env, b, spec, inplace, &pr.us, &err);
        if (!ok) {
          printRow(env, row, o.check);
          res.rows.push_back(row);
          res.failed = true;
          char ctx[160];
          std::snprintf(ctx, sizeof ctx, "%s %zu B %s %s %s", b.label(), row.bytes,
                        dtypeName(t), redopColumn(env, op),
                        inplace ? "in-place" : "out-of-place");
          res.error = std::string(ctx) + ": " + err;
          // The one report of the error: here, beside its row.
          reportError(res.error);
          return res;
        }
        pr.ran = true;
        pr.algbw = pr.us > 0 ? (double)row.bytes / (pr.us * 1e3) : 0;
        pr.busbw = pr.algbw * env.coll->busFactor(n);
        res.wrong += pr.wrong;
      }
      res.rows.push_back(row);
      printRow(env, row, o.check);
      for (const std::string &note : notes) std::printf("#   wrong: %s\n", note.c_str());
    }
  }
  return res;
}

static void printSummary(const char *prefix, const SweepResult &r, bool check) {
  std::printf("# %sOut of bounds values : %zu %s\n", prefix, r.wrong,
              (r.wrong == 0 && !r.failed) ? "OK" : "FAILED");
  std::printf("# %sAvg bus bandwidth    : %g\n", prefix, r.avgBusbw());
  if (!check) std::printf("# %s(results not checked: -c 0)\n", prefix);
}

// --- main --------------------------------------------------------------------

int main(int argc, char **argv) {
  Options opt = parseOptions(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  Env env;
  env.opt = opt;
  env.n = opt.nranks;

  // NVLS / multicast rule first, before anything is loaded.
  if (opt.compareNccl) {
    std::string why;
    if (!nccl::checkNcclEnvironment(&why)) fatal(why);
  }

  // Target: probe the driver (no context yet).
  std::string cudaWhy;
  const cu::Driver *drv = nullptr;
  if (opt.target != TargetChoice::Host) drv = cu::loadDriver(&cudaWhy);
  if (opt.target == TargetChoice::Cuda && !drv)
    fatal("--target cuda: no usable GPU: " + cudaWhy);

  // The library, before any communicator exists (it registers its plans).
  // A bare file name that exists here means that file (dlopen would search
  // the library path for it instead).
  if (opt.lib.find('/') == std::string::npos && access(opt.lib.c_str(), F_OK) == 0)
    opt.lib = "./" + opt.lib;
  void *lib = dlopen(opt.lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *e = dlerror();
    fatal("cannot load --lib " + opt.lib + ": " + (e ? e : "?"));
  }
  if (g_forwardFailed)
    fatal("internal: could not forward cclrtRegisterPlan to libcclrt");
  std::string entryName = "ccl_" + opt.algo;
  EntryFn entry = reinterpret_cast<EntryFn>(dlsym(lib, entryName.c_str()));
  if (!entry) fatal(opt.lib + " has no entry point " + entryName + " (--algo " + opt.algo + ")");

  std::vector<const ccl_plan *> plans;
  for (const ccl_plan *p : capturedPlans())
    if (p && p->algorithm && opt.algo == p->algorithm) plans.push_back(p);
  if (plans.empty()) plans = findExportedPlans(lib, opt.algo);

  bool haveCudaPlan = false, haveHostPlan = false;
  for (const ccl_plan *p : plans) {
    haveCudaPlan |= p->target == CCL_TARGET_NVPTX;
    haveHostPlan |= p->target == CCL_TARGET_HOST;
  }
  std::string targetWhy;
  if (opt.target == TargetChoice::Cuda) {
    env.cuda = true;
    targetWhy = "--target cuda";
  } else if (opt.target == TargetChoice::Host) {
    targetWhy = "--target host";
  } else if (!drv) {
    targetWhy = "no usable GPU: " + cudaWhy;
  } else if (!plans.empty() && !haveCudaPlan) {
    targetWhy = "the library has no CUDA plan for " + opt.algo;
  } else {
    env.cuda = true;
    targetWhy = std::to_string(drv->deviceCount) + " GPU(s) found";
  }
  if (env.cuda) env.drv = drv;
  const uint32_t planTarget = env.cuda ? CCL_TARGET_NVPTX : CCL_TARGET_HOST;

  const ccl_plan *plan = nullptr;
  for (const ccl_plan *p : plans)
    if (p->target == planTarget) plan = p;
  if (!plans.empty() && !plan) {
    std::string have;
    for (const ccl_plan *p : plans) have += std::string(" ") + targetName(p->target);
    fatal(opt.lib + " has no " + targetName(planTarget) + " plan for " + opt.algo +
          " (it has:" + have + ")");
  }
  // Defaults that run: without -g (or --devices) the plan's smallest rank
  // count the machine has; without -b/-e, sizes no larger than the plan's
  // largest message. Each said in the header.
  std::string defaultsNote;
  if (!opt.nranksSet && plan) {
    int best = -1;
    std::string have;
    for (uint32_t i = 0; i < plan->num_variants; i++) {
      int n = (int)plan->variants[i].nranks;
      have += " " + std::to_string(n);
      if (env.cuda && n > drv->deviceCount) continue;
      if (best < 0 || n < best) best = n;
    }
    if (best < 0)
      fatal("the " + std::string(targetName(planTarget)) + " plan of " + opt.algo +
            " has no variant for the " + std::to_string(drv->deviceCount) +
            " GPU(s) here (it has:" + have + "); --devices puts several ranks on one GPU");
    opt.nranks = best;
    defaultsNote += "# ranks     : " + std::to_string(best) +
                    ", the smallest rank count of the plan" +
                    (env.cuda ? " that the GPUs here can run" : "") +
                    " (-g to choose; it has:" + have + ")\n";
  }
  if (plan && plan->max_bytes) {
    bool clipped = false;
    if (!opt.maxBytesSet && opt.maxBytes > plan->max_bytes) {
      opt.maxBytes = plan->max_bytes;
      clipped = true;
    }
    if (!opt.minBytesSet && opt.minBytes > opt.maxBytes) {
      opt.minBytes = opt.maxBytes;
      clipped = true;
    }
    if (clipped)
      defaultsNote += "# sizes     : " + std::to_string(opt.minBytes) + " to " +
                      std::to_string(opt.maxBytes) +
                      " bytes: the nccl-tests defaults (-b 32M -e 32M) clipped to "
                      "the plan's largest message (-b/-e to choose)\n";
  }
  std::string rankError = validateRanks(opt);
  if (!rankError.empty()) fatal(rankError);
  env.opt = opt;
  env.n = opt.nranks;

  if (opt.compareNccl && !env.cuda)
    fatal("--compare nccl needs the cuda target (" + targetWhy + ")");
  if (!opt.devices.empty() && !env.cuda)
    fatal("--devices " + joinInts(opt.devices) +
          " is a CUDA option: the host target runs its ranks as threads of this "
          "process (target host: " + targetWhy + ")");
  if (env.cuda && opt.devices.empty() && opt.nranks > drv->deviceCount)
    fatal("-g " + std::to_string(opt.nranks) + " needs " + std::to_string(opt.nranks) +
          " GPUs; the CUDA driver sees " + std::to_string(drv->deviceCount) +
          " (--devices puts several ranks on one GPU)");
  for (int d : opt.devices)
    if (d >= drv->deviceCount)
      fatal("--devices " + joinInts(opt.devices) + ": GPU " + std::to_string(d) +
            " does not exist; the CUDA driver sees " + std::to_string(drv->deviceCount));
  const std::string sharedGpus = sharedDevices(opt.devices);

  std::string collName = plan && plan->collective ? plan->collective : "AllReduce";
  env.coll = findCollective(collName);
  if (!env.coll)
    fatal("unknown collective '" + collName + "' in the plan of " + opt.algo +
          " (ccl-perf knows " + collectiveNames() + ")");
  if (env.coll->rooted && plan) {
    // ccl_plan::root exists since plan ABI 3.
    env.root = plan->abi_version >= 3 ? (int)plan->root : 0;
    if (env.root >= opt.nranks)
      fatal("the plan of " + opt.algo + " has root " + std::to_string(env.root) +
            ", which is not a rank of -g " + std::to_string(opt.nranks));
  }

  // NCCL early, so that a missing entry point stops the run before it starts.
  const nccl::Nccl *nc = nullptr;
  if (opt.compareNccl) {
    std::string why;
    nc = nccl::loadNccl(&why);
    if (!nc) fatal(why);
    if (env.coll->kind == CollKind::AllToAll && !nc->ncclAlltoAll)
      fatal("--compare nccl: NCCL " + nc->versionString() + " (" + nc->path +
            ") has no ncclAlltoAll (added in NCCL 2.28)");
  }

  const ccl_variant *variant = nullptr;
  if (plan) {
    std::string have;
    for (uint32_t i = 0; i < plan->num_variants; i++) {
      if ((int)plan->variants[i].nranks == opt.nranks) variant = &plan->variants[i];
      have += " " + std::to_string(plan->variants[i].nranks);
    }
    if (!variant)
      fatal("the " + std::string(targetName(planTarget)) + " plan of " + opt.algo +
            " has no variant for " + std::to_string(opt.nranks) + " ranks (it has:" +
            have + ")");
    for (const Delay &d : opt.delays)
      if (d.block >= (int)variant->nblocks)
        fatal("--delay " + std::to_string(d.rank) + ":" + std::to_string(d.block) + "=" +
              std::to_string(d.us) + ": the " + std::to_string(opt.nranks) +
              "-rank variant of " + opt.algo + " has " +
              std::to_string(variant->nblocks) + " thread blocks per rank");
  }

  // Header.
  std::printf("# ccl-perf: benchmark and check of a cclc-generated library\n");
  std::printf("# library   : %s\n", opt.lib.c_str());
  if (plan)
    std::printf("# algorithm : %s (%s%s, %s, %s; source %s)\n", opt.algo.c_str(),
                env.coll->name,
                env.coll->rooted ? (" root " + std::to_string(env.root)).c_str() : "",
                plan->inplace ? "in-place" : "out-of-place",
                plan->protocol == CCL_PROTO_LL ? "LL" : "Simple",
                plan->source ? plan->source : "?");
  else
    std::printf("# algorithm : %s (plan not visible to ccl-perf; assuming %s)\n",
                opt.algo.c_str(), env.coll->name);
  if (variant)
    std::printf("# variant   : %u ranks, %u thread blocks x %u threads, %u kernels\n",
                variant->nranks, variant->nblocks, variant->threads_per_block,
                variant->num_kernels);
  std::printf("# target    : %s (%s)\n", env.cuda ? "cuda" : "host", targetWhy.c_str());
  std::fputs(defaultsNote.c_str(), stdout);
  if (env.cuda) std::printf("# CUDA driver version %d\n", drv->driverVersion);
  {
    std::vector<size_t> sizes = sweepSizes(opt);
    char step[64];
    if (opt.stepFactor > 1) std::snprintf(step, sizeof step, "%g(factor)", opt.stepFactor);
    else std::snprintf(step, sizeof step, "%zu(bytes)", opt.stepBytes);
    std::printf("# nRanks %d minBytes %zu maxBytes %zu step: %s warmup iters: %d "
                "iters: %d validation: %d graph: %d seed: %llu calls: %d\n",
                opt.nranks, opt.minBytes, opt.maxBytes, step, opt.warmup, opt.iters,
                opt.check ? 1 : 0, opt.graphLaunches, (unsigned long long)opt.seed,
                opt.calls);
  }
  if (opt.check)
    std::printf("# check     : K = %d call%s per rank back to back (no host "
                "synchronisation between them), then one check of all %d results; "
                "two buffer modes, #wrong sums both: separate buffers per call, and "
                "the same buffers refilled with cclMemcpyAsync%s\n",
                opt.calls, opt.calls > 1 ? "s" : "", opt.calls,
                env.cuda && opt.graphLaunches > 0 ? "; eager and as a CUDA graph" : "");
  for (const Delay &d : opt.delays) {
    std::string block = d.block < 0 ? "every thread block" : "thread block " +
                                                                std::to_string(d.block);
    std::printf("# delay     : rank %d, %s: %llu us at the start of every checked call "
                "(--delay, cclCommDebugSetDelay); timed calls run without it\n",
                d.rank, block.c_str(), (unsigned long long)d.us);
  }
  if (!opt.devices.empty()) {
    std::printf("# devices   : %s (--devices)\n", joinInts(opt.devices).c_str());
    if (!sharedGpus.empty())
      std::printf("# devices   : several ranks share GPU %s: the timings are not link "
                  "timings (the ranks share one GPU's SMs and memory)\n",
                  sharedGpus.c_str());
  }
  if (!env.cuda && opt.graphLaunches > 0)
    std::printf("# note: -G %d ignored on the host target (no CUDA graphs)\n",
                opt.graphLaunches);

  // Communicators.
  env.comms.assign(env.n, nullptr);
  cclResult_t rc = cclCommInitAllInProcess(
      env.comms.data(), env.n, env.cuda ? cclTargetCuda : cclTargetHost,
      env.cuda && !opt.devices.empty() ? opt.devices.data() : nullptr);
  if (rc != cclSuccess) fatal(cclError("cclCommInitAllInProcess", -1, rc));
  if (opt.timeoutSet || opt.skipRank >= 0) {
    uint64_t ms = opt.timeoutSet ? opt.timeoutMs : 2000;
    for (int r = 0; r < env.n; r++)
      if ((rc = cclCommSetTimeout(env.comms[r], ms)) != cclSuccess)
        fatal(cclError("cclCommSetTimeout", r, rc));
    std::printf("# timeout   : %llu ms\n", (unsigned long long)ms);
  }
  for (const Delay &d : opt.delays) {
    uint64_t ms = opt.timeoutSet ? opt.timeoutMs : opt.skipRank >= 0 ? 2000 : 0;
    if (ms && d.us >= ms * 1000)
      std::printf("# note      : the delay of rank %d (%llu us) is not shorter than "
                  "the timeout (%llu ms): expect the other ranks to time out\n",
                  d.rank, (unsigned long long)d.us, (unsigned long long)ms);
  }
  if (opt.skipRank >= 0) {
    rc = cclCommDebugSkipLaunches(env.comms[opt.skipRank], 1);
    if (rc != cclSuccess) fatal(cclError("cclCommDebugSkipLaunches", opt.skipRank, rc));
    std::printf("# debug     : rank %d skips its launches (--skip-rank); expect a "
                "timeout\n", opt.skipRank);
  }

  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  std::string err;
  env.devices.assign(env.n, -1);
  if (env.cuda) {
    env.ctxs.assign(env.n, nullptr);
    env.streams.assign(env.n, nullptr);
    env.evStart.assign(env.n, nullptr);
    env.evStop.assign(env.n, nullptr);
  } else {
    env.streams.assign(env.n, nullptr);
  }
  for (int r = 0; r < env.n; r++) {
    if ((rc = cclCommDevice(env.comms[r], &env.devices[r])) != cclSuccess)
      fatal(cclError("cclCommDevice", r, rc));
    if (!env.cuda) {
      std::printf("#  Rank %2d Pid %6d on %s: host thread(s)\n", r, (int)getpid(), host);
      continue;
    }
    cu::CUdevice dev;
    char name[256] = "?";
    if (!env.cu(drv->cuDeviceGet(&dev, env.devices[r]), "cuDeviceGet", r, &err) ||
        !env.cu(drv->cuDevicePrimaryCtxRetain(&env.ctxs[r], dev),
                "cuDevicePrimaryCtxRetain", r, &err) ||
        !env.setRank(r, &err) ||
        !env.cu(drv->cuStreamCreate(&env.streams[r], cu::CU_STREAM_NON_BLOCKING),
                "cuStreamCreate", r, &err) ||
        !env.cu(drv->cuEventCreate(&env.evStart[r], cu::CU_EVENT_DEFAULT),
                "cuEventCreate", r, &err) ||
        !env.cu(drv->cuEventCreate(&env.evStop[r], cu::CU_EVENT_DEFAULT),
                "cuEventCreate", r, &err))
      fatal(err);
    drv->cuDeviceGetName(name, sizeof name - 1, dev);
    std::printf("#  Rank %2d Pid %6d on %s device %2d %s\n", r, (int)getpid(), host,
                env.devices[r], name);
  }

  // Working buffers, sized for the largest message of every dtype (recv
  // holds an in-place call's input and output).
  size_t maxIn = 0, maxBuf = 0;
  for (DType t : opt.dtypes) {
    size_t es = dtypeSize(t);
    size_t count = std::max<size_t>(1, opt.maxBytes / es);
    maxIn = std::max(maxIn, env.coll->inCount(count, env.n) * es);
    maxBuf = std::max(maxBuf, env.coll->inplaceCount(count, env.n) * es);
  }
  env.send.assign(env.n, nullptr);
  env.recv.assign(env.n, nullptr);
  for (int r = 0; r < env.n; r++) {
    if ((rc = cclMemAlloc(env.comms[r], &env.send[r], maxIn)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc));
    if ((rc = cclMemAlloc(env.comms[r], &env.recv[r], maxBuf)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc));
  }
  // The back-to-back check's buffers: 2K + 1 of the largest buffer's size
  // per rank, at most --check-mem (K is reduced for rows that do not fit;
  // at least 3 buffers, K = 1, whatever the cap).
  env.arena.assign(env.n, nullptr);
  if (opt.check) {
    const size_t cap = opt.checkMem ? opt.checkMem
                                    : env.cuda ? kCheckMemCuda : kCheckMemHost;
    const size_t slot = roundUp(maxBuf, kAlign);
    const size_t want = (2 * (size_t)opt.calls + 1) * slot;
    env.arenaBytes = std::max(std::min(cap, want), 3 * slot);
    if (3 * slot > cap)
      std::printf("# note      : the largest rows need 3 buffers of %zu bytes per "
                  "rank (K = 1), more than --check-mem %zu\n", slot, cap);
    for (int r = 0; r < env.n; r++)
      if ((rc = cclMemAlloc(env.comms[r], &env.arena[r], env.arenaBytes)) != cclSuccess)
        fatal(cclError("cclMemAlloc", r, rc) + " (back-to-back check buffers, " +
              std::to_string(env.arenaBytes) + " bytes; see --check-mem and -k)");
    env.hostBuf.resize(slot);
    env.refBuf.resize(slot);
    env.poisonBuf.resize(slot);
  }

  // What the plan supports.
  RowFilter filter;
  if (variant) {
    filter.combo = [variant](DType t, Op op, std::string *why) {
      for (uint32_t k = 0; k < variant->num_kernels; k++)
        if (variant->kernels[k].dtype == (uint32_t)t &&
            variant->kernels[k].redop == (uint32_t)op)
          return true;
      *why = "the plan has no kernel for it";
      return false;
    };
  }
  if (plan && plan->max_bytes) {
    uint64_t maxBytes = plan->max_bytes;
    // max_bytes bounds count * element size (plan.h).
    filter.size = [maxBytes](size_t bytes, std::string *why) {
      if (bytes <= maxBytes) return true;
      *why = "larger than the plan's max_bytes " + std::to_string(maxBytes);
      return false;
    };
  }

  bool failed = false;
  CclBackend cclb(env, entry);
  std::string title = "cclc " + opt.algo + " (" + env.coll->name + ", " +
                      (env.cuda ? "cuda" : "host") + ", " + std::to_string(env.n) +
                      " ranks" + (env.cuda && opt.graphLaunches > 0
                                      ? ", CUDA graphs x" + std::to_string(opt.graphLaunches)
                                      : std::string(env.cuda ? ", eager" : "")) +
                      ")";
  SweepResult mine = sweep(env, cclb, filter, title.c_str(), true);
  failed |= mine.failed || mine.wrong > 0;

  SweepResult theirs;
  bool ranNccl = false;
  if (opt.compareNccl && !mine.failed) {
    std::vector<nccl::ncclComm_t> ncomms(env.n, nullptr);
    nccl::ncclResult_t nr = nc->ncclCommInitAll(ncomms.data(), env.n, env.devices.data());
    if (nr != 0) fatal("ncclCommInitAll failed: " + nc->errorText(nr));
    std::printf("#\n# NCCL %s from %s (NCCL_NVLS_ENABLE=0)\n", nc->versionString().c_str(),
                nc->path.c_str());
    NcclBackend nb(env, nc, std::move(ncomms));
    RowFilter all;
    std::string ntitle = "NCCL " + std::string(env.coll->name) + " (" +
                         std::to_string(env.n) + " ranks" +
                         (opt.graphLaunches > 0
                              ? ", CUDA graphs x" + std::to_string(opt.graphLaunches)
                              : std::string(", eager")) +
                         ", same buffers and streams)";
    // Only the (dtype, op) pairs and sizes cclc ran, for a like-for-like table.
    all.combo = filter.combo;
    all.size = filter.size;
    theirs = sweep(env, nb, all, ntitle.c_str(), false);
    ranNccl = true;
    failed |= theirs.failed || theirs.wrong > 0;
  }

  auto measured = [](const SweepResult &r) {
    for (const Row &row : r.rows)
      for (const PlaceResult &p : row.place)
        if (p.ran) return true;
    return false;
  };
  std::printf("#\n");
  printSummary("", mine, opt.check);
  if (!mine.failed && !measured(mine)) {
    std::printf("# ERROR: nothing was measured (every size or type was skipped)\n");
    failed = true;
  }
  if (ranNccl) {
    printSummary("NCCL ", theirs, opt.check);
    // Per-row time ratios, matched by position (same rows in the same order).
    double logSum = 0;
    int k = 0, faster = 0;
    for (size_t i = 0; i < mine.rows.size() && i < theirs.rows.size(); i++)
      for (int p = 0; p < 2; p++) {
        const PlaceResult &a = mine.rows[i].place[p], &b = theirs.rows[i].place[p];
        if (!a.ran || !b.ran || a.us <= 0 || b.us <= 0) continue;
        logSum += std::log(b.us / a.us);
        k++;
        faster += a.us < b.us;
      }
    double nb = theirs.avgBusbw();
    std::printf("# cclc vs NCCL: avg busbw %.3f vs %.3f GB/s (%.2fx); speedup "
                "(NCCL time / cclc time) geomean %.2fx; cclc faster in %d of %d "
                "measurements\n",
                mine.avgBusbw(), nb, nb > 0 ? mine.avgBusbw() / nb : 0.0,
                k ? std::exp(logSum / k) : 0.0, faster, k);
  }

  if (mine.failed || (ranNccl && theirs.failed)) {
    // The communicator is aborted (or in an unknown state): leave without
    // tearing it down. The error itself was printed where it happened.
    std::printf("# FAILED: %s stopped at the error above\n",
                mine.failed ? "the cclc run" : "the NCCL run");
    std::fflush(stdout);
    _exit(1);
  }

  for (int r = 0; r < env.n; r++) {
    cclMemFree(env.comms[r], env.send[r]);
    cclMemFree(env.comms[r], env.recv[r]);
    if (env.arena[r]) cclMemFree(env.comms[r], env.arena[r]);
    if (env.cuda) {
      env.setRank(r, &err);
      drv->cuEventDestroy(env.evStart[r]);
      drv->cuEventDestroy(env.evStop[r]);
      drv->cuStreamDestroy(env.streams[r]);
    }
  }
  for (int r = 0; r < env.n; r++) cclCommDestroy(env.comms[r]);
  if (env.cuda)
    for (int r = 0; r < env.n; r++) {
      cu::CUdevice dev;
      if (drv->cuDeviceGet(&dev, env.devices[r]) == 0) drv->cuDevicePrimaryCtxRelease(dev);
    }
  std::fflush(stdout);
  return failed ? 1 : 0;
}
