// api.cc - the exported C API of libcclrt (ccl/ccl.h). Each function runs
// its body (cclrt::api: comm.cc, contexts.cc, plans.cc, launch.cc,
// registry.cc) through `guarded`, so that no C++ exception crosses the C
// boundary: an allocation failure becomes cclSystemError, anything else
// cclInternalError, with the function's name in the message.
#include <new>
#include <system_error>

#include "internal.h"

namespace cclrt {
namespace {

template <typename F>
cclResult_t guarded(const char *fn, F &&body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return setError(cclSystemError,
                    std::string(fn) + ": out of host memory");
  } catch (const std::system_error &e) {
    return setError(cclSystemError, std::string(fn) + ": " + e.what());
  } catch (const std::exception &e) {
    return setError(cclInternalError,
                    std::string(fn) + ": internal error: " + e.what());
  } catch (...) {
    return setError(cclInternalError,
                    std::string(fn) + ": internal error (unknown exception)");
  }
}

// Counts a call on a communicator as in progress, so that cclCommAbort in
// another thread waits for it before freeing the communicator.
class ActiveCall {
public:
  explicit ActiveCall(cclComm_t comm) : s_(acquireShared(comm)) {}
  ~ActiveCall() { releaseShared(s_); }

private:
  Shared *s_;
};

} // namespace
} // namespace cclrt

#define CCLRT_EXPORT(name, params, args)                                       \
  cclResult_t name params {                                                    \
    return cclrt::guarded(#name, [&] { return cclrt::api::name args; });       \
  }
// The same for a function whose first argument is a communicator that
// cclCommAbort may end meanwhile.
#define CCLRT_EXPORT_COMM(name, params, args)                                  \
  cclResult_t name params {                                                    \
    return cclrt::guarded(#name, [&] {                                         \
      cclrt::ActiveCall active(comm);                                          \
      return cclrt::api::name args;                                            \
    });                                                                        \
  }

extern "C" {

CCLRT_EXPORT(cclCommInitAllInProcess,
             (cclComm_t * comms, int nranks, cclTarget_t target,
              const int *devices),
             (comms, nranks, target, devices))
CCLRT_EXPORT(cclCommDestroy, (cclComm_t comm), (comm))
CCLRT_EXPORT_COMM(cclCommRank, (cclComm_t comm, int *rank), (comm, rank))
CCLRT_EXPORT_COMM(cclCommCount, (cclComm_t comm, int *nranks), (comm, nranks))
CCLRT_EXPORT_COMM(cclCommTarget, (cclComm_t comm, cclTarget_t *target),
             (comm, target))
CCLRT_EXPORT_COMM(cclCommDevice, (cclComm_t comm, int *device), (comm, device))
CCLRT_EXPORT_COMM(cclCommLoadRegisteredPlans, (cclComm_t comm), (comm))
CCLRT_EXPORT_COMM(cclCommSynchronize, (cclComm_t comm, cclStream_t stream),
             (comm, stream))
CCLRT_EXPORT_COMM(cclCommGetAsyncError,
                  (cclComm_t comm, cclResult_t *async_error),
                  (comm, async_error))
CCLRT_EXPORT_COMM(cclBootstrapAllGather,
                  (cclComm_t comm, const void *sendbuf, void *recvbuf,
                   size_t bytes),
                  (comm, sendbuf, recvbuf, bytes))
CCLRT_EXPORT(cclCommAbort, (cclComm_t comm), (comm))
CCLRT_EXPORT_COMM(cclCommRegister,
                  (cclComm_t comm, void *buf, size_t bytes,
                   cclRegHandle_t *handle),
                  (comm, buf, bytes, handle))
CCLRT_EXPORT_COMM(cclCommDeregister, (cclComm_t comm, cclRegHandle_t handle),
                  (comm, handle))
CCLRT_EXPORT_COMM(cclCommRegisteredPeer,
                  (cclComm_t comm, cclRegHandle_t handle, int peer,
                   void **peer_buf, int *kind),
                  (comm, handle, peer, peer_buf, kind))
CCLRT_EXPORT(cclGetVersion, (int *version), (version))
CCLRT_EXPORT(cclCheckLibraryFile, (const char *path), (path))
CCLRT_EXPORT(cclGetUniqueId, (cclUniqueId * id), (id))
CCLRT_EXPORT(cclCommInitRankConfig,
             (cclComm_t * comm, int nranks, cclUniqueId id, int rank,
              const cclConfig_t *config),
             (comm, nranks, id, rank, config))
CCLRT_EXPORT(cclCommInitFromEnv,
             (cclComm_t * comm, const cclConfig_t *config), (comm, config))
CCLRT_EXPORT(cclGetEnvRank, (int *rank, int *nranks), (rank, nranks))

cclResult_t cclCommInitRank(cclComm_t *comm, int nranks, cclUniqueId id,
                            int rank) {
  return cclCommInitRankConfig(comm, nranks, id, rank, nullptr);
}
CCLRT_EXPORT_COMM(cclCommSetTimeout, (cclComm_t comm, uint64_t timeout_ms),
             (comm, timeout_ms))
CCLRT_EXPORT_COMM(cclCommDebugSkipLaunches, (cclComm_t comm, int skip),
             (comm, skip))
CCLRT_EXPORT_COMM(cclCommDebugSetDelay,
             (cclComm_t comm, int block, uint64_t delay_ns),
             (comm, block, delay_ns))
CCLRT_EXPORT_COMM(cclCommDebugSetProxyDelay,
             (cclComm_t comm, uint64_t delay_ns), (comm, delay_ns))
CCLRT_EXPORT_COMM(cclMemAlloc, (cclComm_t comm, void **ptr, size_t bytes),
             (comm, ptr, bytes))
CCLRT_EXPORT_COMM(cclMemFree, (cclComm_t comm, void *ptr), (comm, ptr))
CCLRT_EXPORT_COMM(cclMemcpyToDevice,
             (cclComm_t comm, void *dst, const void *src, size_t bytes),
             (comm, dst, src, bytes))
CCLRT_EXPORT_COMM(cclMemcpyFromDevice,
             (cclComm_t comm, void *dst, const void *src, size_t bytes),
             (comm, dst, src, bytes))
CCLRT_EXPORT_COMM(cclMemcpyAsync,
             (cclComm_t comm, void *dst, const void *src, size_t bytes,
              cclStream_t stream),
             (comm, dst, src, bytes, stream))
CCLRT_EXPORT(cclPlanLookup,
             (const char *algorithm, const ccl_plan **plans, size_t capacity,
              size_t *count),
             (algorithm, plans, capacity, count))
CCLRT_EXPORT_COMM(cclrtLaunch,
             (const ccl_plan *plan, cclComm_t comm, const void *input,
              void *output, size_t count, cclDataType_t dtype, cclRedOp_t op,
              cclStream_t stream),
             (plan, comm, input, output, count, dtype, op, stream))
CCLRT_EXPORT_COMM(cclrtCollective,
                  (const ccl_selection *selection, uint32_t collective,
                   const void *sendbuff, void *recvbuff, size_t count,
                   cclDataType_t dtype, cclRedOp_t op, int root, cclComm_t comm,
                   cclStream_t stream),
                  (selection, collective, sendbuff, recvbuff, count, dtype, op,
                   root, comm, stream))
CCLRT_EXPORT_COMM(cclCommLastAlgorithm,
                  (cclComm_t comm, const char **algorithm), (comm, algorithm))
CCLRT_EXPORT_COMM(cclCommPlanMemory,
                  (cclComm_t comm, uint64_t *scratch_bytes,
                   uint64_t *staging_bytes, int *plans),
                  (comm, scratch_bytes, staging_bytes, plans))
CCLRT_EXPORT_COMM(cclCommUnpreparedPlan,
                  (cclComm_t comm, int index, int *count,
                   const char **algorithm, const char **why),
                  (comm, index, count, algorithm, why))
CCLRT_EXPORT_COMM(cclrtLaunchRooted,
             (const ccl_plan *plan, cclComm_t comm, const void *input,
              void *output, size_t count, cclDataType_t dtype, cclRedOp_t op,
              int root, cclStream_t stream),
             (plan, comm, input, output, count, dtype, op, root, stream))

} // extern "C"
