// ccl-perf - benchmark and correctness checker for cclc-generated libraries,
// in the style of nccl-tests' all_reduce_perf. docs/ccl-perf.md describes
// the flags, the table and how results are checked.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

[[noreturn]] static void fatal(const std::string &msg) {
  std::fflush(stdout);
  std::fprintf(stderr, "ccl-perf: error: %s\n", msg.c_str());
  std::printf("# ERROR: %s\n", commented(msg).c_str());
  std::fflush(stdout);
  std::fflush(stderr);
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
  std::vector<cclComm_t> comms;
  const cu::Driver *drv = nullptr;
  std::vector<int> devices;
  std::vector<cu::CUcontext> ctxs;
  std::vector<cu::CUstream> streams;  // nullptr on host
  std::vector<cu::CUevent> evStart, evStop;
  std::vector<void *> send, recv;  // per rank, from cclMemAlloc
  std::vector<unsigned char> hostBuf;
  std::vector<float> ref;
  uint64_t checkedRuns = 0;

  bool cu(cu::CUresult r, const char *what, int rank, std::string *err) const {
    if (r == 0) return true;
    *err = std::string(what) + (rank >= 0 ? " on rank " + std::to_string(rank) : "") +
           " failed: " + drv->errorText(r);
    return false;
  }
  bool setRank(int r, std::string *err) const {
    return !cuda || cu(drv->cuCtxSetCurrent(ctxs[r]), "cuCtxSetCurrent", r, err);
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

class CclBackend : public Backend {
 public:
  CclBackend(Env &env, EntryFn fn) : env_(env), fn_(fn) {}
  const char *label() const override { return "cclc"; }
  bool launchAll(const std::vector<void *> &in, const std::vector<void *> &out,
                 size_t count, DType t, Op op, std::string *err) override {
    for (int r = 0; r < env_.n; r++) {
      if (!env_.setRank(r, err)) return false;
      int rc = fn_(env_.comms[r], in[r], out[r], count, (cclDataType_t)t,
                   (cclRedOp_t)op, env_.cuda ? (cclStream_t)env_.streams[r] : nullptr);
      if (rc != cclSuccess) {
        *err = cclError(("ccl_" + env_.opt.algo).c_str(), r, (cclResult_t)rc);
        return false;
      }
    }
    return true;
  }
  bool syncAll(std::string *err) override {
    bool ok = true;
    for (int r = 0; r < env_.n; r++) {
      cclResult_t rc = cclCommSynchronize(
          env_.comms[r], env_.cuda ? (cclStream_t)env_.streams[r] : nullptr);
      if (rc != cclSuccess) {
        std::string e = cclError("cclCommSynchronize", r, rc);
        if (ok) *err = e;
        else *err += "\n  " + e;
        ok = false;
      }
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
    nccl::ncclResult_t rc = nc_->ncclGroupStart();
    if (rc != 0) return fail("ncclGroupStart", -1, rc, err);
    for (int r = 0; r < env_.n; r++) {
      rc = nc_->ncclAllReduce(in[r], out[r], count, kType[(int)t], (int)op,
                              comms_[r], env_.streams[r]);
      if (rc != 0) {
        nc_->ncclGroupEnd();
        return fail("ncclAllReduce", r, rc, err);
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

// Captures `iters` calls of every rank, each rank's on its own stream, into
// one graph per rank.
static bool captureGraphs(Env &env, Backend &b, int iters,
                          const std::vector<void *> &in,
                          const std::vector<void *> &out, size_t count, DType t,
                          Op op, Graphs *g, std::string *err) {
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
  for (int i = 0; i < iters && ok; i++) ok = b.launchAll(in, out, count, t, op, err);
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

// --- One measurement ---------------------------------------------------------

static bool copyIn(Env &env, int r, void *dst, const void *src, size_t bytes,
                   std::string *err) {
  cclResult_t rc = cclMemcpyToDevice(env.comms[r], dst, src, bytes);
  if (rc != cclSuccess) *err = cclError("cclMemcpyToDevice", r, rc);
  return rc == cclSuccess;
}

// Regenerates the inputs, poisons the outputs, runs the collective once
// (eagerly or as a graph replay) and counts wrong output elements.
static bool checkedRun(Env &env, Backend &b, size_t count, DType t, Op op,
                       bool inplace, bool graph, size_t *wrong, std::string *err) {
  const int n = env.n;
  const size_t es = dtypeSize(t);
  const size_t ic = env.coll->inCount(count, n), oc = env.coll->outCount(count, n);
  InputGen gen;
  gen.key = makeKey(env.opt.seed, ++env.checkedRuns);
  gen.op = op;
  gen.nranks = n;
  std::vector<void *> in(n), out(n);
  for (int r = 0; r < n; r++) {
    out[r] = env.recv[r];
    in[r] = inplace ? env.recv[r] : env.send[r];
    if (!inplace) {
      fillPoison(t, env.hostBuf.data(), oc);
      if (!copyIn(env, r, out[r], env.hostBuf.data(), oc * es, err)) return false;
    }
    gen.fill(r, t, env.hostBuf.data(), ic);
    if (!copyIn(env, r, in[r], env.hostBuf.data(), ic * es, err)) return false;
  }
  if (graph) {
    Graphs g;
    if (!captureGraphs(env, b, 1, in, out, count, t, op, &g, err)) return false;
    if (!launchGraphs(env, g, err) || !b.syncAll(err)) return false;
  } else {
    if (!b.launchAll(in, out, count, t, op, err) || !b.syncAll(err)) return false;
  }
  *wrong = 0;
  for (int r = 0; r < n; r++) {
    if (r == 0 || !env.coll->sameOutput) env.coll->reference(gen, r, count, env.ref.data());
    cclResult_t rc = cclMemcpyFromDevice(env.comms[r], env.hostBuf.data(), out[r], oc * es);
    if (rc != cclSuccess) {
      *err = cclError("cclMemcpyFromDevice", r, rc);
      return false;
    }
    *wrong += countMismatches(t, env.hostBuf.data(), env.ref.data(), oc);
  }
  return true;
}

// Average time of one iteration in microseconds.
static bool timedRun(Env &env, Backend &b, size_t count, DType t, Op op,
                     bool inplace, double *us, std::string *err) {
  const int n = env.n;
  const int iters = env.opt.iters;
  std::vector<void *> in(n), out(n);
  for (int r = 0; r < n; r++) {
    out[r] = env.recv[r];
    in[r] = inplace ? env.recv[r] : env.send[r];
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
    if (!captureGraphs(env, b, iters, in, out, count, t, op, &g, err)) return false;
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
  std::string error;
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

static void printRow(const Row &row, bool check) {
  std::printf("%12zu  %12zu  %8s  %6s", row.bytes, row.count,
              dtypeTableName(row.t), opName(row.op));
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

static SweepResult sweep(Env &env, Backend &b, const RowFilter &filter,
                         const char *title) {
  SweepResult res;
  const Options &o = env.opt;
  const int n = env.n;
  const bool canInplace = env.coll->inCount(1, n) == env.coll->outCount(1, n);
  std::vector<std::pair<DType, Op>> combos;
  for (DType t : o.dtypes)
    for (Op op : o.ops) {
      if (!env.coll->reduction && op != o.ops.front()) continue;
      std::string why;
      if (filter.combo && !filter.combo(t, op, &why)) {
        std::printf("# %s: skipping %s %s: %s\n", b.label(), dtypeName(t),
                    opName(op), why.c_str());
        continue;
      }
      combos.push_back({t, op});
    }
  printTableHeader(title);
  for (size_t bytes : sweepSizes(o)) {
    for (auto [t, op] : combos) {
      Row row;
      row.t = t;
      row.op = op;
      size_t es = dtypeSize(t);
      row.count = std::max<size_t>(1, bytes / es);
      size_t ic = env.coll->inCount(row.count, n), oc = env.coll->outCount(row.count, n);
      row.bytes = env.coll->dataBytes(row.count, n, es);
      std::string why;
      if (filter.size && !filter.size(std::max(ic, oc) * es, &why)) {
        std::printf("%12zu  %12zu  %8s  %6s  skipped: %s\n", row.bytes, row.count,
                    dtypeTableName(t), opName(op), why.c_str());
        continue;
      }
      for (int p = 0; p < 2; p++) {
        bool inplace = p == 1;
        if (inplace && !canInplace) continue;
        PlaceResult &pr = row.place[p];
        std::string err;
        bool ok = true;
        if (o.check) {
          size_t w = 0;
          ok = checkedRun(env, b, row.count, t, op, inplace, false, &w, &err);
          pr.wrong += w;
          if (ok && env.cuda && o.graphLaunches > 0) {
            ok = checkedRun(env, b, row.count, t, op, inplace, true, &w, &err);
            pr.wrong += w;
          }
        }
        if (ok) ok = timedRun(env, b, row.count, t, op, inplace, &pr.us, &err);
        if (!ok) {
          printRow(row, o.check);
          res.rows.push_back(row);
          res.failed = true;
          res.error = err;
          std::printf("# ERROR: %s %zu B %s %s %s: %s\n", b.label(), row.bytes,
                      dtypeName(t), opName(op), inplace ? "in-place" : "out-of-place",
                      commented(err).c_str());
          std::fflush(stdout);
          return res;
        }
        pr.ran = true;
        pr.algbw = pr.us > 0 ? (double)row.bytes / (pr.us * 1e3) : 0;
        pr.busbw = pr.algbw * env.coll->busFactor(n);
        res.wrong += pr.wrong;
      }
      res.rows.push_back(row);
      printRow(row, o.check);
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
  if (opt.compareNccl && !env.cuda)
    fatal("--compare nccl needs the cuda target (" + targetWhy + ")");
  if (env.cuda && opt.nranks > drv->deviceCount)
    fatal("-g " + std::to_string(opt.nranks) + " needs " + std::to_string(opt.nranks) +
          " GPUs; the CUDA driver sees " + std::to_string(drv->deviceCount));

  std::string collName = plan && plan->collective ? plan->collective : "AllReduce";
  env.coll = findCollective(collName);
  if (!env.coll) fatal("unknown collective '" + collName + "' in the plan of " + opt.algo);
  if (opt.check && !env.coll->checkable)
    fatal(std::string("ccl-perf cannot check ") + env.coll->name +
          " results yet; run with -c 0");
  if (opt.compareNccl && std::string(env.coll->name) != "AllReduce")
    fatal(std::string("--compare nccl supports AllReduce only, not ") + env.coll->name);

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
  }

  // Header.
  std::printf("# ccl-perf: benchmark and check of a cclc-generated library\n");
  std::printf("# library   : %s\n", opt.lib.c_str());
  if (plan)
    std::printf("# algorithm : %s (%s, %s, %s; source %s)\n", opt.algo.c_str(),
                env.coll->name, plan->inplace ? "in-place" : "out-of-place",
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
  if (env.cuda) std::printf("# CUDA driver version %d\n", drv->driverVersion);
  {
    std::vector<size_t> sizes = sweepSizes(opt);
    char step[64];
    if (opt.stepFactor > 1) std::snprintf(step, sizeof step, "%g(factor)", opt.stepFactor);
    else std::snprintf(step, sizeof step, "%zu(bytes)", opt.stepBytes);
    std::printf("# nRanks %d minBytes %zu maxBytes %zu step: %s warmup iters: %d "
                "iters: %d validation: %d graph: %d seed: %llu\n",
                opt.nranks, opt.minBytes, opt.maxBytes, step, opt.warmup, opt.iters,
                opt.check ? 1 : 0, opt.graphLaunches, (unsigned long long)opt.seed);
  }
  if (!env.cuda && opt.graphLaunches > 0)
    std::printf("# note: -G %d ignored on the host target (no CUDA graphs)\n",
                opt.graphLaunches);

  // Communicators.
  env.comms.assign(env.n, nullptr);
  cclResult_t rc = cclCommInitAllInProcess(env.comms.data(), env.n,
                                           env.cuda ? cclTargetCuda : cclTargetHost,
                                           nullptr);
  if (rc != cclSuccess) fatal(cclError("cclCommInitAllInProcess", -1, rc));
  if (opt.timeoutSet || opt.skipRank >= 0) {
    uint64_t ms = opt.timeoutSet ? opt.timeoutMs : 2000;
    for (int r = 0; r < env.n; r++)
      if ((rc = cclCommSetTimeout(env.comms[r], ms)) != cclSuccess)
        fatal(cclError("cclCommSetTimeout", r, rc));
    std::printf("# timeout   : %llu ms\n", (unsigned long long)ms);
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

  // Buffers, sized for the largest message of every dtype.
  size_t maxIn = 0, maxOut = 0;
  for (DType t : opt.dtypes) {
    size_t es = dtypeSize(t);
    size_t count = std::max<size_t>(1, opt.maxBytes / es);
    maxIn = std::max(maxIn, env.coll->inCount(count, env.n) * es);
    maxOut = std::max(maxOut, env.coll->outCount(count, env.n) * es);
    env.ref.resize(std::max(env.ref.size(), env.coll->outCount(count, env.n)));
  }
  env.hostBuf.resize(std::max(maxIn, maxOut));
  env.send.assign(env.n, nullptr);
  env.recv.assign(env.n, nullptr);
  for (int r = 0; r < env.n; r++) {
    if ((rc = cclMemAlloc(env.comms[r], &env.send[r], maxIn)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc));
    if ((rc = cclMemAlloc(env.comms[r], &env.recv[r], maxOut)) != cclSuccess)
      fatal(cclError("cclMemAlloc", r, rc));
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
  SweepResult mine = sweep(env, cclb, filter, title.c_str());
  failed |= mine.failed || mine.wrong > 0;

  SweepResult theirs;
  bool ranNccl = false;
  if (opt.compareNccl && !mine.failed) {
    std::string why;
    const nccl::Nccl *nc = nccl::loadNccl(&why);
    if (!nc) fatal(why);
    std::vector<nccl::ncclComm_t> ncomms(env.n, nullptr);
    nccl::ncclResult_t nr = nc->ncclCommInitAll(ncomms.data(), env.n, env.devices.data());
    if (nr != 0) fatal("ncclCommInitAll failed: " + nc->errorText(nr));
    std::printf("#\n# NCCL %s from %s (NCCL_NVLS_ENABLE=0)\n", nc->versionString().c_str(),
                nc->path.c_str());
    NcclBackend nb(env, nc, std::move(ncomms));
    RowFilter all;
    std::string ntitle = "NCCL AllReduce (" + std::to_string(env.n) + " ranks" +
                         (opt.graphLaunches > 0
                              ? ", CUDA graphs x" + std::to_string(opt.graphLaunches)
                              : std::string(", eager")) +
                         ", same buffers and streams)";
    // Only the (dtype, op) pairs and sizes cclc ran, for a like-for-like table.
    all.combo = filter.combo;
    all.size = filter.size;
    theirs = sweep(env, nb, all, ntitle.c_str());
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
    // The communicator is aborted (or in an unknown state): report and leave
    // without tearing it down.
    std::printf("# FAILED: %s\n", commented(mine.failed ? mine.error : theirs.error).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "ccl-perf: error: %s\n",
                 (mine.failed ? mine.error : theirs.error).c_str());
    std::fflush(stderr);
    _exit(1);
  }

  for (int r = 0; r < env.n; r++) {
    cclMemFree(env.comms[r], env.send[r]);
    cclMemFree(env.comms[r], env.recv[r]);
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
