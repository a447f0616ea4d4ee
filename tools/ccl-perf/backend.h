// backend.h - what a sweep runs: cclc's entry point or NCCL, called on
// every rank from one thread (Backend), and CUDA graphs of what a backend
// queues.
#ifndef CCL_PERF_BACKEND_H
#define CCL_PERF_BACKEND_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/ccl-perf/env.h"
#include "tools/ccl-perf/library.h"
#include "tools/ccl-perf/nccl_loader.h"

namespace cclperf {

// One implementation of the collective under test.
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
  // Whether served() names the algorithm of each call (a bundle's entry
  // point), and the algorithm that served the last call.
  virtual bool namesAlgorithm() const { return false; }
  virtual std::string served() const { return ""; }
};

// The library's entry point (ccl_<algo>, or with --coll the bundle's
// cclAllReduce, ...) on env's communicator. `lib` must outlive it.
std::unique_ptr<Backend> makeCclBackend(Env &env, const Library &lib);
// NCCL on env's GPUs and streams, with a communicator of its own: comms
// indexed by rank, those of the ranks this process drives (env.local) set.
std::unique_ptr<Backend> makeNcclBackend(Env &env, const nccl::Nccl *nc,
                                         std::vector<nccl::ncclComm_t> comms);

// One graph per rank, destroyed with this object.
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
bool captureGraphs(Env &env, const std::function<bool(std::string *)> &queue,
                   Graphs *g, std::string *err);
// Launches every rank's graph on its stream.
bool launchGraphs(Env &env, const Graphs &g, std::string *err);

}  // namespace cclperf

#endif  // CCL_PERF_BACKEND_H
