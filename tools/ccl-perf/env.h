// env.h - the state of one ccl-perf run: the options, the collective, the
// communicator and, per rank, its GPU context, stream and events (CUDA) and
// its buffers; and the steps that set them up and tear them down.
#ifndef CCL_PERF_ENV_H
#define CCL_PERF_ENV_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "ccl/ccl.h"
#include "tools/ccl-perf/check.h"
#include "tools/ccl-perf/dtype.h"
#include "tools/ccl-perf/gpu.h"
#include "tools/ccl-perf/options.h"

namespace cclperf {

// Buffers carved from the check's memory start at multiples of this.
constexpr size_t kAlign = 256;
inline size_t roundUp(size_t x, size_t a) { return (x + a - 1) / a * a; }

struct Env {
  Options opt;
  bool cuda = false;
  // "SMs per rank" of the plan for the summary ("" when unknown).
  std::string smNote;
  int n = 1;
  // One process per rank (launched by ccl-run, torchrun, mpirun, srun...):
  // this process is rank `me` of the job's n ranks. false: this process
  // drives all n ranks (the in-process communicator).
  bool multi = false;
  int me = 0;
  // The ranks this process drives: 0..n-1, or {me}. The per-rank vectors
  // below have n entries; only these ranks' are set.
  std::vector<int> local;
  // With one process per rank: an exchange between the ranks failed (a
  // peer is gone, or the communicator is aborted), so the ranks can no
  // longer agree on a report: each reports its own error from then on.
  bool broken = false;
  // With one process per rank: this rank's "#  Rank ..." header line,
  // gathered by rank 0 (openRanks).
  std::string rankLine;
  const Collective *coll = nullptr;
  int root = 0;  // Broadcast, Reduce: the plan's root
  std::vector<cclComm_t> comms;
  const cu::CudaDriver *drv = nullptr;
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
  DType poisonType = DType::Float32;
  uint64_t checkedCalls = 0;
  // --bitwise, one process, AllReduce and Reduce: per (type, operator,
  // in place) the output of the largest count checked so far, of call 0
  // (whose inputs are the same at every count: key makeKey(seed, 0)), and
  // that count; each later row's output must have the same bits in the
  // common prefix (checkedRun's size comparison).
  std::map<std::tuple<int, int, bool>, std::pair<size_t, std::vector<unsigned char>>>
      sizeRef;

  // False (and *err: "WHAT on rank R failed: ...") when a driver call failed.
  bool cu(cu::CUresult r, const char *what, int rank, std::string *err) const;
  // Makes rank r's context current (CUDA).
  bool setRank(int r, std::string *err) const;
  cclStream_t stream(int r) const { return cuda ? (cclStream_t)streams[r] : nullptr; }
  // Whether this process drives rank r.
  bool drives(int r) const { return !multi || r == me; }
  // The host poison pattern of t, at least `count` elements.
  const void *poison(DType t);
};

// The communicator of the -g ranks on the chosen target, with --timeout-ms,
// --skip-rank and their notes in the header (in-process: both steps below).
void openCommunicator(Env &env);
// The communicator alone: all ranks in this process
// (cclCommInitAllInProcess), or this process's rank of the job
// (cclCommInitFromEnv, with `device` on CUDA); failures exit.
void createCommunicator(Env &env, int device = -1);
// --timeout-ms, --skip-rank and --delay on the ranks of this process, and
// their notes in the header.
void configureCommunicator(Env &env);
// Per rank: its device and, on CUDA, its context, stream and events; one
// header line each (with one process per rank: env.rankLine, which rank 0
// prints for every rank after gathering them).
void openRanks(Env &env);
// The working buffers and the check's memory (--check-mem), for the
// largest message of every dtype.
void allocateBuffers(Env &env);
// Frees the buffers, streams and events and destroys the communicator.
void closeAll(Env &env);

// Copies between host and rank r's device memory (complete on return), and
// between two buffers of its device memory queued on its stream.
bool copyIn(Env &env, int r, void *dst, const void *src, size_t bytes,
            std::string *err);
bool copyOut(Env &env, int r, void *dst, const void *src, size_t bytes,
             std::string *err);
bool copyAsync(Env &env, int r, void *dst, const void *src, size_t bytes,
               std::string *err);
// --delay: on before the checked calls, off for the timed ones.
bool setDelays(Env &env, bool on, std::string *err);

}  // namespace cclperf

#endif  // CCL_PERF_ENV_H
