// internal.h - libcclrt's internal state (docs/runtime.md): errors and
// names, the plan registry, communicators and prepared plans, and the
// bodies of the exported functions. What differs between targets is behind
// the Device interface (device.h).
#ifndef CCLRT_INTERNAL_H
#define CCLRT_INTERNAL_H

#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

// The public API is exported; everything else is hidden (-fvisibility=hidden).
#pragma GCC visibility push(default)
#include "ccl/ccl.h"
#pragma GCC visibility pop
#include "cuda_driver.h"
#include "hip_api.h"

namespace cclrt {

class Device;
class Bootstrap;
class Proxy;
class TcpNet;
class IbNet;

// ---------------------------------------------------------------------------
// Host target: pausing waits (host_wait.cc, host.cc; ccl/plan.h).
// ---------------------------------------------------------------------------
// Rounds of a rank's blocks without progress before its worker yields the
// CPU: while the host-kernel threads fit the CPUs, and while they
// outnumber them (the rank waits for others, who need the CPU).
constexpr uint32_t kHostSpinAlone = 64;
constexpr uint32_t kHostSpinShared = 1;
// Then it yields for this long, then sleeps: naps from the first to the
// last timeout, doubling (a nap's end bounds how late a write from another
// process is seen).
constexpr uint64_t kHostYieldNs = 50000;
constexpr uint64_t kHostNapMinNs = 20000;
constexpr uint64_t kHostNapMaxNs = 1000000;
// A host-kernel thread (a rank's worker) started (+1) or ended (-1): sets
// the spin rounds from their number and the CPUs'.
void hostThreadsChanged(int delta);

// What a thread does about rounds without progress: spin, yield, arm on
// the process's doorbell, then sleep on it.
class HostIdle {
public:
  // Progress: disarms, and the next idle round starts the steps anew.
  void reset();
  // One round without progress; true when the thread slept.
  bool idle();

private:
  bool armed_ = false;
  uint32_t seq_ = 0;
  uint32_t rounds_ = 0;
  uint64_t start_ = 0;
  uint64_t nap_ = 0;
};

// From a block running as a fiber of a rank's worker (host.cc): records
// whether the wait is new (`fresh`: progress since the block's last
// pause), runs the rank's other blocks and returns true. False, doing
// nothing, on any other thread.
bool hostPauseFiber(bool fresh);
// In a fiber: whether its worker slept since the fiber's last pause.
int hostFiberSlept();
// Whether the calling code runs as a fiber of a rank's worker.
bool hostInFiber();

// Wakes the sleeping host-kernel threads of the process, if any, after
// the caller's stores (what a host kernel waits for: a signal, a
// completion, the abort flag).
inline void hostRing() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&cclrtHostWaiters, __ATOMIC_RELAXED))
    cclrtHostRing();
}

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
// Whether kernels are compiled for `dtype` (CCL_DTYPE; not CCL_BYTE_DTYPE).
bool isKernelType(uint32_t dtype);

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
  int device = -1; // CUDA or HIP ordinal, -1 on host
  uint64_t timeoutNs = 0;
  // cclCommDebugSetDelay (written under Shared::prepMu, copied into the
  // contexts of the rank's prepared plans).
  uint64_t delayNs = 0;
  uint32_t delayBlock = CCL_DELAY_ALL_BLOCKS;
  // cclCommDebugSetProxyDelay (under Shared::proxyMu).
  uint64_t proxyDelayNs = 0;
  std::atomic<int> skip{0};
  std::atomic<const ccl_plan *> lastPlan{nullptr};
  // PreparedPlan::shift of the last launch (a rooted plan's kernels report
  // their relabelled rank; this maps it back).
  std::atomic<int> lastShift{0};
  // Calls queued on the rank (timeout reports compare the ranks' counts).
  std::atomic<uint64_t> calls{0};
  std::atomic<bool> destroyed{false};
  // The rank's live cclMemAlloc allocations (address -> bytes): cclMemFree
  // frees only these.
  std::mutex userMu;
  std::unordered_map<void *, size_t> userAllocs;
};

// One rank's part of a prepared plan.
struct PreparedRank {
  std::vector<void *> scratch;      // buffer b of this rank (device address)
  void *scratchTable = nullptr;     // device: void*[num_scratch * nranks]
  void *epoch = nullptr;            // device: uint32_t[nblocks]
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
  // HIP target: the code object and one kernel per variant kernel.
  hipModule_t hipModule = nullptr;
  std::vector<hipFunction_t> hipFunctions;
  // The fewest blocks of the variant's threads_per_block that one SM (a
  // compute unit on HIP) holds at once, over this rank's kernels
  // (cuOccupancyMaxActiveBlocksPerMultiprocessor, or HIP's).
  int blocksPerSM = 0;
  // Multi-process communicators (peers.cc): this rank's scratch buffers and
  // counters live in one arena that the other processes of its host map
  // (scratch[] and sync point into it), and the peers' arenas are mapped
  // here.
  void *arena = nullptr;
  size_t arenaBytes = 0;
  int arenaFd = -1;
  std::vector<std::pair<void *, size_t>> peerMaps;
  // Port channels whose source is this rank (proxy.cc): their FIFOs, in
  // memory the host and the rank's kernels both reach (as each addresses
  // it): fifoSlots triggers per channel of the variant, then one tail per
  // channel. The rank's proxy serves them.
  void *fifoHost = nullptr, *fifoDev = nullptr;
  size_t fifoBytes = 0;
  uint32_t fifoSlots = 0;
  Proxy *proxy = nullptr;
  // One process per rank: how port channels reach each rank (remote.cc).
  enum Net : uint8_t { kSameHost, kTcp, kIb };
  std::vector<Net> net; // by rank; empty: every rank on this host
};

// Where one rank's scratch buffers and counters are, as this process
// addresses them (peers.cc).
struct RankMemory {
  std::vector<void *> scratch;
  void *sync = nullptr;
};

struct PreparedPlan {
  enum Status { kReady, kWrongTarget, kWrongAbi, kNoVariant, kFailed };
  const ccl_plan *plan = nullptr;
  Status status = kFailed;
  cclResult_t failCode = cclInternalError;
  std::string message; // why it is not ready
  const ccl_variant *variant = nullptr;
  // Bytes of one rank's scratch buffers (all of them) and staging buffer
  // (cclCommPlanMemory).
  uint64_t scratchBytes = 0;
  uint64_t stagingBytes = 0;
  // Rooted collectives (Broadcast, Reduce) serve every root with one kernel
  // set: the plan is prepared once per root, with its ranks relabelled. The
  // instance for root R runs physical rank p as the plan's rank
  // (p - shift) mod n, shift = (R - plan->root) mod n: its kernels see that
  // rank in ccl_dev_ctx::rank, and its tables index the peers the same way.
  // Each instance has its own scratch, counters and epoch.
  // virt/phys are valid once `ranks` has one entry per rank.
  int shift = 0;
  std::vector<PreparedRank> ranks;
  int virt(int physical) const {
    const int n = (int)ranks.size();
    return (physical - shift + n) % n;
  }
  int phys(int virtualRank) const {
    return (virtualRank + shift) % (int)ranks.size();
  }
};

// The prepared instances of one plan: one, or one per root (index = root)
// for a rooted collective.
using PreparedSet = std::vector<std::unique_ptr<PreparedPlan>>;

// A peer's allocation mapped here for user-buffer registrations: by
// (peer rank, the allocation's base in the peer's address space).
using UserMappingKey = std::pair<int, uint64_t>;
struct UserImport {
  int kind = 0;          // cclRegKind_t
  void *base = nullptr;  // as this rank's device addresses it
  uint64_t size = 0;
  int refs = 0;          // registrations that use it
};

struct Shared {
  Shared();
  ~Shared();
  int nranks = 0;
  cclTarget_t target = cclTargetHost;
  // The bundle's entry points serve the reducing collectives from the
  // library's deterministic table (cclConfig_t::deterministic,
  // CCL_DETERMINISTIC; select.cc).
  bool deterministic = false;
  // RankState of every rank; only the ranks in `local` are driven by this
  // process (all of them in-process, one with cclCommInitRank).
  std::vector<std::unique_ptr<RankState>> ranks;
  std::vector<int> local;
  // The bootstrap of a multi-process communicator (null in-process).
  std::unique_ptr<Bootstrap> boot;
  // Why the communicator failed when another rank did (error record state
  // CCL_ERR_REMOTE), set once under failMu.
  std::mutex failMu;
  std::string remoteFailure;
  // The local timeout was told to the other ranks.
  std::atomic<bool> timeoutBroadcast{false};
  // API calls in progress on this communicator (cclCommAbort waits for
  // them before it frees anything).
  std::atomic<int> activeCalls{0};
  // cclCommRegister (userbufs.cc): the live registrations, and the peers'
  // allocations mapped here with the registrations that use them.
  std::mutex regMu;
  std::set<struct ::cclRegistration *> registrations;
  std::map<UserMappingKey, UserImport> userImports;
  // cclBootstrapAllGather between the ranks of an in-process communicator.
  std::mutex gatherMu;
  std::condition_variable gatherCv;
  std::vector<std::string> gatherSlots;
  int gatherArrived = 0, gatherLeaving = 0;
  uint64_t gatherRound = 0;
  // What differs between the targets (device.h).
  std::unique_ptr<Device> device;
  // The proxy of each local rank that is the source of a port channel
  // (proxy.h; index = rank, created by the first plan that needs it).
  std::mutex proxyMu;
  std::vector<std::unique_ptr<Proxy>> proxies;
  // One process per rank with ranks on other hosts (remote.h): the TCP
  // transport (tcp.h) and the verbs transport (ib.h), created by the first
  // plan that reaches another host; why verbs are not available.
  std::unique_ptr<TcpNet> tcp;
  std::unique_ptr<IbNet> ib;
  std::string ibWhy;
  // Communicator-wide abort flag and error record (host-mapped on CUDA),
  // allocated by Device::init.
  void *hostMapped = nullptr; // the allocation holding both
  volatile uint32_t *abortFlag = nullptr;
  ccl_error_record *error = nullptr;
  // Preparation (serialised) and the prepared plans (looked up by launches).
  std::mutex prepMu;
  std::mutex plansMu;
  std::unordered_map<const ccl_plan *, PreparedSet> plans;
  std::atomic<int> liveHandles{0};
  // The handles: never freed (newHandle), retired with the shared state.
  std::vector<struct ::cclComm *> handles;
};

} // namespace cclrt

// A communicator handle. Handles are never freed (a few bytes each): once
// its communicator is being freed the handle is retired (then `shared` is
// null) and any call with it is an error, never a use after free, and no
// later handle gets its address (newHandle, checkComm).
struct cclComm {
  cclrt::Shared *shared;
  int rank;
  bool retired = false; // guarded by the handle registry's lock
};

namespace cclrt {

// ---------------------------------------------------------------------------
// Plans (plans.cc) and their device contexts (contexts.cc).
// ---------------------------------------------------------------------------
// Prepares every registered plan not prepared yet. Returns the first
// failure of a plan of this target (it is also remembered for launches).
cclResult_t loadPlans(Shared *s, std::string *firstError);
// CCL_DETERMINISTIC: unset or empty 0, else 1 or 0; false with *err for
// any other value (select.cc).
bool deterministicFromEnv(bool *on, std::string *err);
// One process per rank: checks that every rank registered the same plans
// of the communicator's target and sorts `todo` into one order (join.cc).
// cclBootstrapError and *err when they differ.
cclResult_t agreeOnPlans(Shared *s, std::vector<const ccl_plan *> *todo,
                         std::string *err);
// Frees what preparing `pp` allocated.
void releasePlan(Shared *s, PreparedPlan *pp);
// The prepared plan of `plan` for `root` (ignored unless the plan is
// rooted), or nullptr when it was never prepared.
PreparedPlan *findPrepared(Shared *s, const ccl_plan *plan, int root);
// Whether `plan` is prepared once per root (Broadcast, Reduce).
bool isRooted(const ccl_plan *plan);
// The root the variant of `plan` for `nranks` ranks was written and proved
// for (ccl_variant::root_plus_one, else the plan's root), reduced mod
// nranks: the rank the relabelling of a rooted plan starts from.
int provedRoot(const ccl_plan *plan, int nranks);
// Fills rank r's context of `pp` (pp->ranks[r].ctx) from what preparation
// allocated and the rank's settings, then lets the device place it.
cclResult_t initContext(Shared *s, PreparedPlan *pp, int r);
// Queues a checked call of prepared plan `pp` (kernel `kernel` of its
// variant, `bytes` = count * element size within the plan's max_bytes) on
// `rank`: the argument checks that depend on the buffers, the staging
// copies, the kernel. Errors are prefixed "FN(rank R, algorithm A)". The
// tail of cclrtLaunch and of a bundle's entry points (launch.cc).
cclResult_t queueLaunch(Shared *s, int rank, PreparedPlan *pp, size_t kernel,
                        const void *input, void *output, size_t count,
                        uint64_t bytes, cclStream_t stream, const char *fn);
// The error of a call on an aborted communicator, prefixed `where`.
cclResult_t abortedError(Shared *s, const std::string &where);
// A timeout in milliseconds as nanoseconds (UINT64_MAX on overflow).
uint64_t msToNs(uint64_t ms);

// Multi-process plan preparation (peers.cc): this rank's scratch buffers
// and counters in an arena its host's peers map, exchanged with every
// rank (a local failure so far, localCode/localError, is reported there);
// and agreeing on the outcome of a step (false: a rank failed, *why names
// it). Every rank runs the same sequence of these for every plan.
cclResult_t shareMemory(Shared *s, PreparedPlan *pp,
                        const std::vector<uint64_t> &sizes, size_t syncWords,
                        const std::function<std::vector<uint64_t>(int)> &init,
                        cclResult_t localCode, const std::string &localError,
                        std::vector<RankMemory> *mem);
bool agree(Shared *s, const std::string &localError, std::string *why);
// In-process plan preparation: every rank's memory from Device::allocate.
cclResult_t allocateMemory(Shared *s, PreparedPlan *pp,
                           const std::vector<uint64_t> &sizes,
                           size_t syncWords,
                           const std::function<std::vector<uint64_t>(int)> &init,
                           std::vector<RankMemory> *mem);
// Releases every registration of the communicator (destroy).
void releaseUserBuffers(Shared *s);
// The all-gather of an in-process communicator (join.cc): the calls of all
// ranks meet here.
cclResult_t gatherInProcess(Shared *s, int rank, const void *send, void *recv,
                            size_t bytes);
// Frees a rank's arena and unmaps its peers' (releasePlan).
void releaseShared(Shared *s, int rank, PreparedRank &pr);

// Shared by the API functions (comm.cc).
std::string planName(const ccl_plan *p);
std::string describeAsyncError(Shared *s);
// A copy of the communicator's error record (read once the abort flag is
// seen), its state read atomically.
ccl_error_record readErrorRecord(const Shared *s);
bool aborted(Shared *s);
// The result code of the communicator's asynchronous error: cclTimeout for
// a spin-wait timeout, cclRemoteError when another rank failed or the
// communicator was aborted.
cclResult_t asyncResult(Shared *s);
// Records a failure the kernels did not see themselves (another rank's,
// or cclCommAbort): claims the error record (state CCL_ERR_REMOTE, or the
// peer's timeout record when `record` is given), keeps `why`, raises the
// abort flag. The first failure wins.
void recordRemoteFailure(Shared *s, const std::string &why,
                         const ccl_error_record *record);
// One process per rank: once this rank's kernels timed out, sends the
// record to the other ranks (once; the monitor checks about every 50 ms,
// cclCommSynchronize, cclCommGetAsyncError and destroy right away).
void tellPeers(Shared *s);
cclResult_t checkComm(cclComm_t comm, const char *fn);
// The spin-wait timeout of new communicators: CCL_TIMEOUT_MS, else 30 s.
uint64_t defaultTimeoutNs();
// How long destroy waits for queued work before aborting it:
// CCL_DESTROY_GRACE_MS (0 .. 3600000), else 10 s.
uint64_t destroyGraceMs();
// Frees a communicator's state once its last handle is gone (or its
// creation failed): waits for its queued work, releases its plans, closes
// its bootstrap, tears down its device.
void destroyShared(Shared *s);
// A new handle of rank `rank` of `s`, added to s->handles and to the
// process's set of handles checkComm knows.
struct ::cclComm *newHandle(Shared *s, int rank);
// The shared state of a live handle, counted as a call in progress
// (Shared::activeCalls) so that it is not freed before releaseShared; null
// for a handle that is not live (unknown, or its communicator is gone).
Shared *acquireShared(const struct ::cclComm *comm);
void releaseShared(Shared *s);

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
cclResult_t cclCommGetAsyncError(cclComm_t comm, cclResult_t *async_error);
cclResult_t cclGetVersion(int *version);
cclResult_t cclCheckLibraryFile(const char *path);
cclResult_t cclGetUniqueId(cclUniqueId *id);
cclResult_t cclCommInitRankConfig(cclComm_t *comm, int nranks, cclUniqueId id,
                                  int rank, const cclConfig_t *config);
cclResult_t cclCommInitFromEnv(cclComm_t *comm, const cclConfig_t *config);
cclResult_t cclGetEnvRank(int *rank, int *nranks);
cclResult_t cclBootstrapAllGather(cclComm_t comm, const void *sendbuf,
                                  void *recvbuf, size_t bytes);
cclResult_t cclCommAbort(cclComm_t comm);
cclResult_t cclCommRegister(cclComm_t comm, void *buf, size_t bytes,
                            cclRegHandle_t *handle);
cclResult_t cclCommDeregister(cclComm_t comm, cclRegHandle_t handle);
cclResult_t cclCommRegisteredPeer(cclComm_t comm, cclRegHandle_t handle,
                                  int peer, void **peer_buf, int *kind);
cclResult_t cclCommSetTimeout(cclComm_t comm, uint64_t timeout_ms);
cclResult_t cclCommDebugSkipLaunches(cclComm_t comm, int skip);
cclResult_t cclCommDebugSetDelay(cclComm_t comm, int block, uint64_t delay_ns);
cclResult_t cclCommDebugSetProxyDelay(cclComm_t comm, uint64_t delay_ns);
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
cclResult_t cclrtCollective(const ccl_selection *selection, uint32_t collective,
                            const void *sendbuff, void *recvbuff, size_t count,
                            cclDataType_t dtype, cclRedOp_t op, int root,
                            cclComm_t comm, cclStream_t stream);
cclResult_t cclCommLastAlgorithm(cclComm_t comm, const char **algorithm);
cclResult_t cclCommPlanMemory(cclComm_t comm, uint64_t *scratch_bytes,
                              uint64_t *staging_bytes, int *plans);
cclResult_t cclCommUnpreparedPlan(cclComm_t comm, int index, int *count,
                                  const char **algorithm, const char **why);
cclResult_t cclrtLaunchRooted(const ccl_plan *plan, cclComm_t comm,
                              const void *input, void *output, size_t count,
                              cclDataType_t dtype, cclRedOp_t op, int root,
                              cclStream_t stream);
} // namespace api

} // namespace cclrt

#endif // CCLRT_INTERNAL_H
