// shim.h - what the parts of libcclnccl.so share (docs/nccl-shim.md): the
// communicator handle it gives the application, the loaded bundle and real
// NCCL, the unique id's packing, the log.
#ifndef CCLNCCL_SHIM_H
#define CCLNCCL_SHIM_H

#include <nccl.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ccl/ccl.h"

namespace cclnccl {

// --- Environment -------------------------------------------------------
// CCL_NCCL_LOG: 0 silent, 1 warnings (default), 2 one line per call.
int logLevel();
void logLine(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// CCL_NCCL_TARGET=host: the host target, streams NULL (tests on CPUs).
bool hostMode();

// The calling thread's last error (ncclGetLastError), and returning one.
ncclResult_t fail(ncclResult_t r, const std::string &message);
void setLastError(const std::string &message);
const char *lastError();

// --- The bundle (CCL_NCCL_BUNDLE, else libccl_stdlib.so beside the shim).
struct Bundle {
  bool ok = false;
  std::string error; // why it could not be loaded
  std::string path;
  cclResult_t (*allReduce)(const void *, void *, size_t, cclDataType_t,
                           cclRedOp_t, cclComm_t, cclStream_t) = nullptr;
  cclResult_t (*allGather)(const void *, void *, size_t, cclDataType_t,
                           cclComm_t, cclStream_t) = nullptr;
  cclResult_t (*reduceScatter)(const void *, void *, size_t, cclDataType_t,
                               cclRedOp_t, cclComm_t, cclStream_t) = nullptr;
  cclResult_t (*allToAll)(const void *, void *, size_t, cclDataType_t,
                          cclComm_t, cclStream_t) = nullptr;
  cclResult_t (*broadcast)(const void *, void *, size_t, cclDataType_t, int,
                           cclComm_t, cclStream_t) = nullptr;
  cclResult_t (*reduce)(const void *, void *, size_t, cclDataType_t, cclRedOp_t,
                        int, cclComm_t, cclStream_t) = nullptr;
};
const Bundle &bundle();

// --- The real NCCL (real.cc) ---------------------------------------------
// Loaded once: CCL_NCCL_LIBRARY, else the libnccl.so.2 the process already
// has, else dlopen("libnccl.so.2"). NCCL_NVLS_ENABLE=0 is set before.
struct Real {
  void *handle = nullptr;
  std::string error; // why no NCCL is loadable
  std::string path;
};
const Real &real();
// An entry point of the real NCCL (nullptr when none is loaded or it lacks
// it; *why then says so).
void *realSymbol(const char *name, std::string *why);
// Calls into the real NCCL made by the shim on this thread, still running.
// libnccl.so.2 calls some of its own exported functions through the PLT
// (ncclGetUniqueId, ncclCommGetAsyncError, ncclBroadcast, ncclMemAlloc,
// ...), and under LD_PRELOAD those calls reach the shim: while this is
// non-zero they are the real NCCL's own, and go straight back to it.
extern thread_local int insideReal;
template <typename F> struct RealCall;
template <typename R, typename... A> struct RealCall<R (*)(A...)> {
  R (*fn)(A...) = nullptr;
  explicit operator bool() const { return fn != nullptr; }
  R operator()(A... a) const {
    struct Depth {
      Depth() { ++insideReal; }
      ~Depth() { --insideReal; }
    } depth;
    return fn(a...);
  }
};
template <typename F>
RealCall<F> realFn(F, const char *name, std::string *why) {
  return RealCall<F>{reinterpret_cast<F>(realSymbol(name, why))};
}
// The real NCCL's communicators the shim made (shadows). A call with one of
// them comes from the real NCCL (one of its threads) and goes back to it.
void registerRealComm(const void *real);
bool isRealComm(const void *comm);
// Whether a call with `comm` (nullptr: none) is the real NCCL's own call.
inline bool realOwnCall(const void *comm) {
  return insideReal > 0 || (comm && isRealComm(comm));
}
// The first statement of an entry point libnccl.so.2 calls itself: such a
// call goes back to the real FN with ARGS.
#define RETURN_IF_REAL_OWN_CALL(comm, fn, ...)                                 \
  do {                                                                         \
    if (::cclnccl::realOwnCall(comm)) {                                        \
      std::string realWhy;                                                     \
      auto realF = REAL(fn, &realWhy);                                         \
      return realF ? realF(__VA_ARGS__) : ncclSystemError;                     \
    }                                                                          \
  } while (0)
#define REAL(fn, why) ::cclnccl::realFn(&fn, #fn, why)
// The real NCCL's own message for its last failure (or "").
std::string realLastError(void *realComm);

// --- The unique id ---------------------------------------------------------
// Bytes 0..63: the cclc id (cclGetUniqueId writes 60); 64..67 kIdMagic;
// 68 the state of the real id; 72..127 the real NCCL id (NCCL 2.28 writes
// 24 (IPv4) or 40 (IPv6) bytes). Packing refuses ids that do not fit.
enum RealIdState : uint8_t {
  kRealIdPresent = 1,
  kRealIdNoNccl = 2,   // no NCCL loadable where the id was made
  kRealIdFailed = 3,   // the real ncclGetUniqueId failed there
  kRealIdTooLarge = 4, // the real id did not fit
};
constexpr size_t kCclIdBytes = 64, kRealIdOffset = 72,
                 kRealIdBytes = 128 - kRealIdOffset;
struct PackedId {
  cclUniqueId ccl;
  uint8_t realState = 0;
  ncclUniqueId realId;
};
ncclResult_t packId(const cclUniqueId &ccl, const ncclUniqueId *realId,
                    RealIdState state, ncclUniqueId *out);
ncclResult_t unpackId(const ncclUniqueId &in, PackedId *out);
std::string realIdWhy(uint8_t state);

// --- Communicators ---------------------------------------------------------
// The ranks of one ncclCommInitAll: their shadows are made together.
struct Clique;

struct Shadow {
  std::mutex mu;
  enum { kNone, kReady, kFailed } state = kNone;
  ncclComm_t real = nullptr; // the real NCCL's communicator
  ncclResult_t error = ncclSuccess;
  std::string why;
};

} // namespace cclnccl

// The handle the application holds (ncclComm_t of nccl.h).
struct ncclComm {
  uint64_t magic = kMagic;
  static constexpr uint64_t kMagic = 0x63636c6e63636c31ull; // "ccl nccl1"
  int rank = 0, nranks = 0, device = -1;
  cclComm_t ccl = nullptr;  // the cclc communicator; nullptr: forward only
  std::string noCclWhy;     // why there is none
  bool pendingInit = false; // created inside a group, made at ncclGroupEnd
  std::string initError;    // that init failed
  ncclResult_t initResult = ncclSuccess;
  // How the shadow is made: from the real id (a cclc communicator of
  // ncclCommSplit has a fresh one, made at the split), from a clique, or
  // from the parent's shadow (a forwarded ncclCommSplit / ncclCommShrink
  // made it already).
  bool hasRealId = false;
  uint8_t realIdState = 0;
  ncclUniqueId realId{};
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  bool hasConfig = false;
  std::shared_ptr<cclnccl::Clique> clique;
  cclnccl::Shadow shadow;
  std::atomic<bool> revoked{false};
};

namespace cclnccl {
struct Clique {
  std::vector<ncclComm *> comms;
  // ncclCommInitAll's ranks (the real ncclCommInitAll makes their shadows),
  // or the ranks one thread made with ncclCommInitRank in one group (the
  // real ncclCommInitRankConfig, in one real group).
  bool initAll = true;
  std::vector<int> devices; // empty: 0..n-1
  std::mutex mu;
};

// The registry of live handles: a call with another pointer (a real NCCL
// communicator, a destroyed one) is ncclInvalidArgument, never a crash in
// the real NCCL.
void registerComm(ncclComm *c);
void unregisterComm(ncclComm *c);
bool liveComm(const ncclComm *c);

// Makes the shadow communicators of `comms` that have none (together, in one
// real group, so one thread may drive several ranks). Failures are stored in
// each comm's shadow and logged once.
void ensureShadows(const std::vector<ncclComm *> &comms);
} // namespace cclnccl

#endif
