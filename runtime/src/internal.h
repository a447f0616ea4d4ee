// internal.h - libcclrt's internal state (docs/runtime.md): errors and
// names, the plan registry, communicators and prepared plans, and the
// bodies of the exported functions. What differs between targets is behind
// the Device interface (device.h).
#ifndef CCLRT_INTERNAL_H
#define CCLRT_INTERNAL_H

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

// The public API is exported; everything else is hidden (-fvisibility=hidden).
#pragma GCC visibility push(default)
#include "ccl/ccl.h"
#pragma GCC visibility pop
#include "cuda_driver.h"

namespace cclrt {

class Device;

// ---------------------------------------------------------------------------
// Errors: thread-local last error (errors.cc).
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
// Plan registry (registry.cc).
// ---------------------------------------------------------------------------
std::vector<const ccl_plan *> registeredPlans();
bool isRegistered(const ccl_plan *plan);

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
  // CUDA target: the module and one function per variant kernel.
  CUmodule module = nullptr;
  std::vector<CUfunction> functions;
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
  Shared();
  ~Shared();
  int nranks = 0;
  cclTarget_t target = cclTargetHost;
  std::vector<std::unique_ptr<RankState>> ranks;
  // What differs between the targets (device.h).
  std::unique_ptr<Device> device;
  // Communicator-wide abort flag and error record (host-mapped on CUDA),
  // allocated by Device::init.
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
// Plans (plans.cc) and their device contexts (contexts.cc).
// ---------------------------------------------------------------------------
// Prepares every registered plan not prepared yet. Returns the first
// failure of a plan of this target (it is also remembered for launches).
cclResult_t loadPlans(Shared *s, std::string *firstError);
// Frees what preparing `pp` allocated.
void releasePlan(Shared *s, PreparedPlan *pp);
// The prepared plan of `plan`, or nullptr when it was never prepared.
PreparedPlan *findPrepared(Shared *s, const ccl_plan *plan);
// Fills rank r's context of `pp` (pp->ranks[r].ctx) from what preparation
// allocated and the rank's settings, then lets the device place it.
cclResult_t initContext(Shared *s, PreparedPlan *pp, int r);
// A timeout in milliseconds as nanoseconds (UINT64_MAX on overflow).
uint64_t msToNs(uint64_t ms);

// Shared by the API functions (comm.cc).
std::string planName(const ccl_plan *p);
std::string describeAsyncError(Shared *s);
bool aborted(Shared *s);
cclResult_t checkComm(cclComm_t comm, const char *fn);

// ---------------------------------------------------------------------------
// The bodies of the exported ccl* functions (comm.cc, contexts.cc, plans.cc,
// launch.cc, registry.cc). They may throw (std::bad_alloc,
// std::system_error); api.cc exports them through `guarded`, which turns any
// exception into an error code and message.
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
cclResult_t cclPlanLookup(const char *algorithm, const ccl_plan **plans,
                          size_t capacity, size_t *count);
cclResult_t cclrtLaunch(const ccl_plan *plan, cclComm_t comm,
                        const void *input, void *output, size_t count,
                        cclDataType_t dtype, cclRedOp_t op,
                        cclStream_t stream);
} // namespace api

} // namespace cclrt

#endif // CCLRT_INTERNAL_H
