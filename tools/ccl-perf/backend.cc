// backend.cc - the backends and CUDA graphs of a sweep (backend.h).
#include "tools/ccl-perf/backend.h"

#include "tools/ccl-perf/report.h"

namespace cclperf {
namespace {


// `msg` without the first "(rank R)", so that the same asynchronous error
// reported through several ranks compares equal.
std::string withoutRank(const std::string &msg, int r) {
  std::string tag = "(rank " + std::to_string(r) + ")";
  size_t at = msg.find(tag);
  return at == std::string::npos ? msg : msg.substr(0, at) + msg.substr(at + tag.size());
}

// The bundle's NCCL-shaped entry points (ccl.h's generated header).
typedef int (*AllReduceFn)(const void *, void *, size_t, cclDataType_t, cclRedOp_t,
                           cclComm_t, cclStream_t);
typedef int (*MoveFn)(const void *, void *, size_t, cclDataType_t, cclComm_t,
                      cclStream_t);  // AllGather, AllToAll
typedef int (*BroadcastFn)(const void *, void *, size_t, cclDataType_t, int, cclComm_t,
                           cclStream_t);
typedef int (*ReduceFn)(const void *, void *, size_t, cclDataType_t, cclRedOp_t, int,
                        cclComm_t, cclStream_t);

class CclBackend : public Backend {
 public:
  CclBackend(Env &env, const Library &lib) : env_(env), lib_(lib) {}
  const char *label() const override { return "cclc"; }
  bool launchAll(const std::vector<void *> &in, const std::vector<void *> &out,
                 size_t count, DType t, Op op, std::string *err) override {
    for (int r : env_.local) {
      if (!env_.setRank(r, err)) return false;
      int rc = call(env_.comms[r], in[r], out[r], count, (cclDataType_t)t,
                    (cclRedOp_t)op, env_.stream(r));
      if (rc != cclSuccess) {
        *err = cclError(lib_.entryName.c_str(), r, (cclResult_t)rc);
        return false;
      }
    }
    return true;
  }
  bool namesAlgorithm() const override { return lib_.bundleEntry != nullptr; }
  std::string served() const override {
    const char *name = nullptr;
    if (env_.local.empty() ||
        cclCommLastAlgorithm(env_.comms[env_.local.front()], &name) != cclSuccess || !name)
      return "?";
    return name;
  }
  // Every rank is synchronised; an error that several ranks report (an
  // aborted communicator) is reported once, with the ranks that saw it.
  bool syncAll(std::string *err) override {
    bool ok = true;
    std::string first;
    std::vector<int> same;
    for (int r : env_.local) {
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
  int call(cclComm_t c, const void *in, void *out, size_t count, cclDataType_t t,
           cclRedOp_t op, cclStream_t s) const {
    const int root = env_.root;
    if (void *f = lib_.bundleEntry) {
      switch (env_.coll->kind) {
        case CollKind::AllReduce:
        case CollKind::ReduceScatter:
          return ((AllReduceFn)f)(in, out, count, t, op, c, s);
        case CollKind::AllGather:
        case CollKind::AllToAll:
          return ((MoveFn)f)(in, out, count, t, c, s);
        case CollKind::Broadcast:
          return ((BroadcastFn)f)(in, out, count, t, root, c, s);
        case CollKind::Reduce:
          return ((ReduceFn)f)(in, out, count, t, op, root, c, s);
      }
    }
    if (lib_.rootedEntry) return lib_.rootedEntry(c, in, out, count, t, op, root, s);
    return lib_.entry(c, in, out, count, t, op, s);
  }

  Env &env_;
  const Library &lib_;
};

class NcclBackend : public Backend {
 public:
  NcclBackend(Env &env, const nccl::Nccl *nc, std::vector<nccl::ncclComm_t> comms)
      : env_(env), nc_(nc), comms_(std::move(comms)) {}
  ~NcclBackend() override {
    for (auto c : comms_)
      if (c)
        nc_->ncclCommDestroy(c);
  }
  const char *label() const override { return "NCCL"; }
  bool launchAll(const std::vector<void *> &in, const std::vector<void *> &out,
                 size_t count, DType t, Op op, std::string *err) override {
    static const int kType[] = {nccl::ncclFloat32, nccl::ncclFloat16,
                                nccl::ncclBfloat16};
    const int dt = kType[(int)t];
    nccl::ncclResult_t rc = nc_->ncclGroupStart();
    if (rc != 0) return fail("ncclGroupStart", -1, rc, err);
    for (int r : env_.local) {
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
    for (int r : env_.local) {
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

}  // namespace

std::unique_ptr<Backend> makeCclBackend(Env &env, const Library &lib) {
  return std::make_unique<CclBackend>(env, lib);
}

std::unique_ptr<Backend> makeNcclBackend(Env &env, const nccl::Nccl *nc,
                                         std::vector<nccl::ncclComm_t> comms) {
  return std::make_unique<NcclBackend>(env, nc, std::move(comms));
}


// Captures what `queue` puts on the ranks' streams (each rank's work on its
// own stream) into one graph per rank.
bool captureGraphs(Env &env, const std::function<bool(std::string *)> &queue,
                          Graphs *g, std::string *err) {
  const cu::CudaDriver *d = env.drv;
  g->env = &env;
  g->execs.assign(env.n, nullptr);
  std::vector<int> begun;
  bool ok = true;
  for (size_t i = 0; i < env.local.size() && ok; i++) {
    const int r = env.local[i];
    ok = env.setRank(r, err) &&
         env.cu(d->cuStreamBeginCapture(env.streams[r],
                                        cu::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
                "cuStreamBeginCapture", r, err);
    if (ok) begun.push_back(r);
  }
  if (ok) ok = queue(err);
  std::vector<cu::CUgraph> graphs(env.n, nullptr);
  for (int r : begun) {
    std::string e;
    bool endOk = env.setRank(r, &e) &&
                 env.cu(d->cuStreamEndCapture(env.streams[r], &graphs[r]),
                        "cuStreamEndCapture", r, &e);
    if (!endOk && ok) {
      *err = e;
      ok = false;
    }
  }
  for (size_t i = 0; i < env.local.size() && ok; i++) {
    const int r = env.local[i];
    ok = env.setRank(r, err) &&
         env.cu(d->cuGraphInstantiateWithFlags(&g->execs[r], graphs[r], 0),
                "cuGraphInstantiate", r, err);
  }
  for (int r : env.local)
    if (graphs[r]) {
      std::string e;
      env.setRank(r, &e);
      d->cuGraphDestroy(graphs[r]);
    }
  return ok;
}

bool launchGraphs(Env &env, const Graphs &g, std::string *err) {
  for (int r : env.local)
    if (!env.setRank(r, err) ||
        !env.cu(env.drv->cuGraphLaunch(g.execs[r], env.streams[r]), "cuGraphLaunch",
                r, err))
      return false;
  return true;
}

}  // namespace cclperf
