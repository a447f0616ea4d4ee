// internal.h - libcclrt's internal state (docs/runtime.md).
#ifndef CCLRT_INTERNAL_H
#define CCLRT_INTERNAL_H

#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

// The public API is exported; everything else is hidden (-fvisibility=hidden).
#pragma GCC visibility push(default)
#include "ccl/ccl.h"
#pragma GCC visibility pop
#include "cuda_driver.h"

namespace cclrt {

// ---------------------------------------------------------------------------
// Errors: thread-local last error.
// ---------------------------------------------------------------------------
// Records `msg` as the calling thread's last error and returns `code`.
// Never throws (an allocation failure leaves the message empty).
cclResult_t setError(cclResult_t code, const std::string &msg) noexcept;
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::string vformat(const char *fmt, va_list ap);

const char *targetName(uint32_t target);
const char *dtypeName(uint32_t dtype);
const char *opName(uint32_t op);
size_t dtypeSize(uint32_t dtype);

// ---------------------------------------------------------------------------
// Plan registry.
// ---------------------------------------------------------------------------
std::vector<const ccl_plan *> registeredPlans();
bool isRegistered(const ccl_plan *plan);

// ---------------------------------------------------------------------------
// Host target: one worker thread per rank plays the stream; a pool of block
// threads runs the thread blocks of a kernel, one OS thread each.
// ---------------------------------------------------------------------------
struct HostTask {
  enum Kind { kKernel, kCopy } kind;
  ccl_host_kernel_fn fn;
  const ccl_dev_ctx *ctx;
  const void *input;
  void *output;
  uint64_t count;
  uint32_t nblocks;
  // kCopy
  void *dst;
  const void *src;
  size_t bytes;
};

class HostRank {
public:
  explicit HostRank(int rank);
  ~HostRank(); // drains the queue, joins the worker and the block threads
  // Starts the worker thread. Throws std::system_error.
  void start();
  // Grows the block pool to at least n threads. Throws std::system_error.
  void ensureBlocks(uint32_t n);
  // Queues a task (never waits for other work; allocates only when more
  // than the preallocated number of tasks are queued).
  void enqueue(const HostTask &t);
  // Waits until every queued task has finished.
  void drain();

private:
  void workerLoop();
  void blockLoop(uint32_t b, uint64_t seen);
  void runKernel(const HostTask &t);

  int rank_;
  // Task FIFO (a ring that grows only when full).
  std::mutex mu_;
  std::condition_variable cvTask_, cvIdle_;
  std::vector<HostTask> ring_;
  size_t head_ = 0, size_ = 0;
  bool busy_ = false, stop_ = false;
  std::thread worker_;
  // Block pool.
  std::mutex pmu_;
  std::condition_variable pcvStart_, pcvDone_;
  std::vector<std::thread> blocks_;
  uint64_t gen_ = 0;
  HostTask cur_{};
  uint32_t remaining_ = 0;
  bool pstop_ = false;
};

// ---------------------------------------------------------------------------
// Communicator state.
// ---------------------------------------------------------------------------
struct RankState {
  int rank = 0;
  int device = -1; // CUDA ordinal, -1 on host
  uint64_t timeoutNs = 0;
  // cclCommDebugSetDelay (written under Shared::prepMu, copied into the
  // contexts of the rank's prepared plans).
  uint64_t delayNs = 0;
  uint32_t delayBlock = CCL_DELAY_ALL_BLOCKS;
  std::atomic<int> skip{0};
  std::atomic<const ccl_plan *> lastPlan{nullptr};
  std::atomic<bool> destroyed{false};
  // host target
  std::unique_ptr<HostRank> host;
  // CUDA target
  CUdevice cuDev = 0;
  CUcontext cuCtx = nullptr;
  bool ctxRetained = false;
  CUstream internalStream = nullptr; // non-blocking, for ctx updates
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0; ///< streaming multiprocessors (co-residency bound)
  // The ranks on this rank's GPU, in rank order, this one included
  // (several ranks may share a GPU: docs/runtime.md).
  std::vector<int> sameDevice;
  CUdeviceptr abortFlagDev = 0, errorDev = 0; // host-mapped, as seen here
};

// One rank's part of a prepared plan.
struct PreparedRank {
  std::vector<void *> scratch;      // buffer b of this rank (device address)
  void *scratchTable = nullptr;     // device: void*[num_scratch * nranks]
  void *epoch = nullptr;            // device: uint32_t[2]
  void *ctxDev = nullptr;           // device: ccl_dev_ctx (CUDA)
  std::unique_ptr<ccl_dev_ctx> ctx; // host copy; the ctx itself on host
  void *staging = nullptr;          // stagingBytes() of the plan, or none
  // Simple-protocol counters of this rank (device memory, zeroed once):
  // uint64_t signal[num_channels], consumed[num_channels],
  // sem[2 * num_semaphores], barrier[num_barriers].
  void *sync = nullptr;
  void *signalTable = nullptr; // device: uint64_t *[num_channels]
  CUmodule module = nullptr;
  std::vector<CUfunction> functions; // per variant kernel
  // The fewest blocks of the variant's threads_per_block that one SM holds
  // at once, over this rank's kernels (cuOccupancyMaxActiveBlocksPerMultiprocessor).
  int blocksPerSM = 0;
};

struct PreparedPlan {
  enum Status { kReady, kWrongTarget, kWrongAbi, kNoVariant, kFailed };
  const ccl_plan *plan = nullptr;
  Status status = kFailed;
  cclResult_t failCode = cclInternalError;
  std::string message; // why it is not ready
  const ccl_variant *variant = nullptr;
  uint64_t scratchBytes = 0; // per buffer, total
  std::vector<PreparedRank> ranks;
};

struct Shared {
  int nranks = 0;
  cclTarget_t target = cclTargetHost;
  std::vector<std::unique_ptr<RankState>> ranks;
  // Communicator-wide abort flag and error record (host-mapped on CUDA).
  void *hostMapped = nullptr; // the allocation holding both
  volatile uint32_t *abortFlag = nullptr;
  ccl_error_record *error = nullptr;
  // Preparation (serialised) and the prepared plans (looked up by launches).
  std::mutex prepMu;
  std::mutex plansMu;
  std::unordered_map<const ccl_plan *, std::unique_ptr<PreparedPlan>> plans;
  std::atomic<int> liveHandles{0};
  // The handles (freed with the shared state, so that a destroyed handle is
  // still recognised while other ranks' handles live).
  std::vector<struct ::cclComm *> handles;
};

} // namespace cclrt

struct cclComm {
  cclrt::Shared *shared;
  int rank;
};

namespace cclrt {

// ---------------------------------------------------------------------------
// Collectives: buffer sizes, in-place layouts and staging (launch.cc).
// ---------------------------------------------------------------------------
// The collective a plan implements (ccl_plan::collective). Anything else is
// kOther and handled like AllReduce (input and output of `count` elements,
// in place when input == output).
enum class Collective {
  kAllReduce,
  kBroadcast,
  kReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kOther,
};
Collective collectiveOf(const ccl_plan *p);
// Bytes of the per-rank staging buffer the plan needs (0: none): the input
// of the largest call for out-of-place algorithms (called in place), and
// for in-place ReduceScatter algorithms (called out of place, the
// caller's input must not change). Fails on overflow.
bool stagingBytes(const ccl_plan *p, int nranks, uint64_t *out);

// A copy queued on the stream before or after a kernel (bytes == 0: none).
struct CopyOp {
  void *dst = nullptr;
  const void *src = nullptr;
  uint64_t bytes = 0;
};
// What a launch queues: `pre`, the kernel on (input, output), `post`.
struct LaunchBuffers {
  CopyOp pre, post;
  const void *input = nullptr;
  void *output = nullptr;
};
// Decides the copies and kernel buffers of a call of `plan` on `rank` with
// the caller's buffers and `bytes` = count * element size
// (docs/runtime.md, "In place and out of place"). Sets the error (without
// a prefix) and returns cclInvalidArgument for buffers that overlap in a
// way the collective does not accept.
cclResult_t planBuffers(const ccl_plan *plan, void *staging, int nranks,
                        int rank, const void *input, void *output,
                        uint64_t bytes, LaunchBuffers *lb);

// Memory of a rank's "device" (CUDA device memory or 64-byte aligned host
// memory). Each returns cclSuccess or sets the error.
cclResult_t devAlloc(Shared *s, int rank, size_t bytes, void **ptr,
                     const char *what);
void devFree(Shared *s, int rank, void *ptr);
cclResult_t devZero(Shared *s, int rank, void *ptr, size_t bytes);
cclResult_t devUpload(Shared *s, int rank, void *dst, const void *src,
                      size_t bytes);
cclResult_t devDownload(Shared *s, int rank, void *dst, const void *src,
                        size_t bytes);

// CUDA helpers (cuda.cc).
cclResult_t cudaInitComm(Shared *s, const int *devices);
cclResult_t cudaPrepareModules(Shared *s, PreparedPlan *pp);
void cudaUnloadModules(Shared *s, PreparedPlan *pp);
cclResult_t cudaSetCurrent(Shared *s, int rank, const char *fn);
// Fails with cclUnsupported when the blocks of all the ranks on one GPU
// cannot be resident at once (every GPU, or only `rank`'s when rank >= 0).
cclResult_t cudaCheckCoResidency(Shared *s, const PreparedPlan *pp,
                                 int rank);
// Fails with cclInvalidArgument when `stream` is a default stream and the
// rank shares its GPU with other ranks (their kernels would serialise).
cclResult_t cudaCheckStream(Shared *s, int rank, cclStream_t stream,
                            const char *what);
// Writes bytes [offset, offset + size) of the rank's device context from
// `src` (on the rank's internal stream, waiting for it: it never waits for
// kernels on the caller's streams).
cclResult_t cudaUpdateCtx(Shared *s, int rank, PreparedRank *pr,
                          size_t offset, const void *src, size_t size);
// Queues a device-to-device copy on `stream` in the rank's context.
cclResult_t cudaCopyAsync(Shared *s, int rank, void *dst, const void *src,
                          size_t bytes, cclStream_t stream);
// Queues lb.pre, the kernel and lb.post on `stream`.
cclResult_t cudaLaunch(Shared *s, int rank, PreparedPlan *pp, size_t kernel,
                       const LaunchBuffers &lb, uint64_t count,
                       cclStream_t stream);
cclResult_t cudaStreamSync(Shared *s, int rank, cclStream_t stream);
void cudaTeardown(Shared *s);

// Restores the calling thread's current CUDA context when it goes out of
// scope (public entry points switch to the rank's primary context).
class CtxGuard {
public:
  explicit CtxGuard(Shared *s);
  ~CtxGuard();
  CtxGuard(const CtxGuard &) = delete;
  CtxGuard &operator=(const CtxGuard &) = delete;

private:
  bool active_ = false;
  CUcontext prev_ = nullptr;
};
std::string cuErrorString(CUresult r);

// Shared by the API functions (comm.cc).
std::string planName(const ccl_plan *p);
std::string describeAsyncError(Shared *s);
bool aborted(Shared *s);
cclResult_t checkComm(cclComm_t comm, const char *fn);

// ---------------------------------------------------------------------------
// The bodies of the exported ccl* functions (comm.cc, launch.cc). They may
// throw (std::bad_alloc, std::system_error); api.cc exports them through
// `guarded`, which turns any exception into an error code and message.
// ---------------------------------------------------------------------------
namespace api {
cclResult_t cclCommInitAllInProcess(cclComm_t *comms, int nranks,
                                    cclTarget_t target, const int *devices);
cclResult_t cclCommDestroy(cclComm_t comm);
cclResult_t cclCommRank(cclComm_t comm, int *rank);
cclResult_t cclCommCount(cclComm_t comm, int *nranks);
cclResult_t cclCommTarget(cclComm_t comm, cclTarget_t *target);
cclResult_t cclCommDevice(cclComm_t comm, int *device);
cclResult_t cclCommLoadRegisteredPlans(cclComm_t comm);
cclResult_t cclCommSynchronize(cclComm_t comm, cclStream_t stream);
cclResult_t cclCommGetAsyncError(cclComm_t comm);
cclResult_t cclCommSetTimeout(cclComm_t comm, uint64_t timeout_ms);
cclResult_t cclCommDebugSkipLaunches(cclComm_t comm, int skip);
cclResult_t cclCommDebugSetDelay(cclComm_t comm, int block, uint64_t delay_ns);
cclResult_t cclMemAlloc(cclComm_t comm, void **ptr, size_t bytes);
cclResult_t cclMemFree(cclComm_t comm, void *ptr);
cclResult_t cclMemcpyToDevice(cclComm_t comm, void *dst, const void *src,
                              size_t bytes);
cclResult_t cclMemcpyFromDevice(cclComm_t comm, void *dst, const void *src,
                                size_t bytes);
cclResult_t cclMemcpyAsync(cclComm_t comm, void *dst, const void *src,
                           size_t bytes, cclStream_t stream);
cclResult_t cclrtLaunch(const ccl_plan *plan, cclComm_t comm,
                        const void *input, void *output, size_t count,
                        cclDataType_t dtype, cclRedOp_t op,
                        cclStream_t stream);
} // namespace api

} // namespace cclrt

#endif // CCLRT_INTERNAL_H
