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

} // namespace
} // namespace cclrt

#define CCLRT_EXPORT(name, params, args)                                       \
  cclResult_t name params {                                                    \
    return cclrt::guarded(#name, [&] { return cclrt::api::name args; });       \
  }

extern "C" {

CCLRT_EXPORT(cclCommInitAllInProcess,
             (cclComm_t * comms, int nranks, cclTarget_t target,
              const int *devices),
             (comms, nranks, target, devices))
CCLRT_EXPORT(cclCommDestroy, (cclComm_t comm), (comm))
CCLRT_EXPORT(cclCommRank, (cclComm_t comm, int *rank), (comm, rank))
CCLRT_EXPORT(cclCommCount, (cclComm_t comm, int *nranks), (comm, nranks))
CCLRT_EXPORT(cclCommTarget, (cclComm_t comm, cclTarget_t *target),
             (comm, target))
CCLRT_EXPORT(cclCommDevice, (cclComm_t comm, int *device), (comm, device))
CCLRT_EXPORT(cclCommLoadRegisteredPlans, (cclComm_t comm), (comm))
CCLRT_EXPORT(cclCommSynchronize, (cclComm_t comm, cclStream_t stream),
             (comm, stream))
CCLRT_EXPORT(cclCommGetAsyncError, (cclComm_t comm), (comm))
CCLRT_EXPORT(cclCommSetTimeout, (cclComm_t comm, uint64_t timeout_ms),
             (comm, timeout_ms))
CCLRT_EXPORT(cclCommDebugSkipLaunches, (cclComm_t comm, int skip),
             (comm, skip))
CCLRT_EXPORT(cclCommDebugSetDelay,
             (cclComm_t comm, int block, uint64_t delay_ns),
             (comm, block, delay_ns))
CCLRT_EXPORT(cclMemAlloc, (cclComm_t comm, void **ptr, size_t bytes),
             (comm, ptr, bytes))
CCLRT_EXPORT(cclMemFree, (cclComm_t comm, void *ptr), (comm, ptr))
CCLRT_EXPORT(cclMemcpyToDevice,
             (cclComm_t comm, void *dst, const void *src, size_t bytes),
             (comm, dst, src, bytes))
CCLRT_EXPORT(cclMemcpyFromDevice,
             (cclComm_t comm, void *dst, const void *src, size_t bytes),
             (comm, dst, src, bytes))
CCLRT_EXPORT(cclMemcpyAsync,
             (cclComm_t comm, void *dst, const void *src, size_t bytes,
              cclStream_t stream),
             (comm, dst, src, bytes, stream))
CCLRT_EXPORT(cclPlanLookup,
             (const char *algorithm, const ccl_plan **plans, size_t capacity,
              size_t *count),
             (algorithm, plans, capacity, count))
CCLRT_EXPORT(cclrtLaunch,
             (const ccl_plan *plan, cclComm_t comm, const void *input,
              void *output, size_t count, cclDataType_t dtype, cclRedOp_t op,
              cclStream_t stream),
             (plan, comm, input, output, count, dtype, op, stream))

} // extern "C"
