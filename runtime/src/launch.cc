// launch.cc - launches (cclrtLaunch: argument checks, the kernel and the
// in-place and out-of-place staging copies around it, buffers.cc) and
// asynchronous device copies (cclMemcpyAsync), queued on the rank's
// device (device.h). Nothing here waits for other work.
#include <cinttypes>

#include "device.h"
#include "proxy.h"

namespace cclrt {

cclResult_t queueLaunch(Shared *s, int rank, PreparedPlan *pp, size_t kernel,
                        const void *input, void *output, size_t count,
                        uint64_t bytes, cclStream_t stream, const char *fn) {
  const ccl_plan *plan = pp->plan;
  auto where = [&] {
    return format("%s(rank %d, algorithm %s)", fn, rank,
                  planName(plan).c_str());
  };
  if (count && (!input || !output))
    return setError(cclInvalidArgument,
                    format("%s: %s is NULL with count %zu", where().c_str(),
                           input ? "output" : "input", count));
  if (const char *why = s->device->streamError(stream))
    return setError(cclInvalidArgument, where() + ": " + why);
  LaunchBuffers lb;
  cclResult_t r = planBuffers(plan, pp->ranks[rank].staging, s->nranks, rank,
                              input, output, bytes, &lb);
  if (r != cclSuccess)
    return setError(r, where() + ": " + cclGetLastError());
  RankState &rs = *s->ranks[rank];
  if (rs.skip.load(std::memory_order_relaxed))
    return cclSuccess;

  rs.lastPlan.store(plan);
  rs.lastShift.store(pp->shift);
  CtxGuard guard(s);
  kickProxy(pp, rank); // its port channels' proxy polls without sleeping
  r = s->device->launch(rank, pp, kernel, lb, count, stream);
  if (r != cclSuccess)
    return setError(r, where() + ": " + cclGetLastError());
  rs.calls.fetch_add(1, std::memory_order_relaxed);
  return cclSuccess;
}

cclResult_t abortedError(Shared *s, const std::string &where) {
  return setError(asyncResult(s),
                  where + ": the communicator was aborted by an earlier "
                          "failure (" +
                      describeAsyncError(s) +
                      "); destroy it and create a new one");
}

namespace api {

cclResult_t cclMemcpyAsync(cclComm_t comm, void *dst, const void *src,
                           size_t bytes, cclStream_t stream) {
  cclResult_t r = checkComm(comm, "cclMemcpyAsync");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  const int rank = comm->rank;
  if (const char *why = s->device->streamError(stream))
    return setError(cclInvalidArgument,
                    format("cclMemcpyAsync(rank %d): %s", rank, why));
  if (bytes == 0)
    return cclSuccess;
  if (!dst || !src)
    return setError(cclInvalidArgument,
                    format("cclMemcpyAsync(rank %d): NULL %s with %zu bytes",
                           rank, dst ? "src" : "dst", bytes));
  if (dst == src)
    return cclSuccess;
  const uintptr_t d = reinterpret_cast<uintptr_t>(dst),
                  sp = reinterpret_cast<uintptr_t>(src);
  if (d < sp + bytes && sp < d + bytes)
    return setError(cclInvalidArgument,
                    format("cclMemcpyAsync(rank %d): the %zu-byte ranges at "
                           "%p (dst) and %p (src) overlap",
                           rank, bytes, dst, src));
  CtxGuard guard(s);
  r = s->device->copyAsync(rank, dst, src, bytes, stream);
  if (r != cclSuccess)
    return setError(r, format("cclMemcpyAsync(rank %d): ", rank) +
                           cclGetLastError());
  return cclSuccess;
}

cclResult_t cclrtLaunch(const ccl_plan *plan, cclComm_t comm, const void *input,
                        void *output, size_t count, cclDataType_t dtype,
                        cclRedOp_t op, cclStream_t stream) {
  // A rooted plan launched without a root runs for the root its variant
  // for the communicator's rank count was written for.
  // (Only rooted plans look it up: this is every AllReduce's launch.)
  int root = 0;
  if (plan && isRooted(plan) && checkComm(comm, "cclrtLaunch") == cclSuccess)
    root = provedRoot(plan, comm->shared->nranks);
  return api::cclrtLaunchRooted(plan, comm, input, output, count, dtype, op,
                                root, stream);
}

cclResult_t cclrtLaunchRooted(const ccl_plan *plan, cclComm_t comm,
                              const void *input, void *output, size_t count,
                              cclDataType_t dtype, cclRedOp_t op, int root,
                              cclStream_t stream) {
  if (!comm)
    return setError(cclInvalidArgument,
                    format("cclrtLaunch(algorithm %s): comm is NULL",
                           planName(plan).c_str()));
  const int rank = comm->rank;
  if (!plan)
    return setError(cclInvalidArgument,
                    format("cclrtLaunch(rank %d): plan is NULL", rank));
  cclResult_t r = checkComm(comm, "cclrtLaunch");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  // The prefix of every message (built only on failure: a launch does not
  // allocate).
  auto where = [&] {
    return format("cclrtLaunch(rank %d, algorithm %s)", rank,
                  planName(plan).c_str());
  };
  if (aborted(s))
    return abortedError(s, where());
  if (isRooted(plan) && (root < 0 || root >= s->nranks))
    return setError(cclInvalidArgument,
                    format("%s: root %d is not a rank of the %d-rank "
                           "communicator",
                           where().c_str(), root, s->nranks));
  PreparedPlan *pp = findPrepared(s, plan, root);
  if (!pp) {
    if (isRegistered(plan))
      return setError(cclInvalidUsage,
                      where() + ": the library was registered after the "
                                "communicator was created; call "
                                "cclCommLoadRegisteredPlans on every rank "
                                "first");
    return setError(cclInvalidUsage,
                    where() + ": the plan was never registered (the "
                              "generated library's constructor must call "
                              "cclrtRegisterPlan)");
  }
  if (pp->status != PreparedPlan::kReady)
    return setError(pp->failCode, where() + ": " + pp->message);
  const size_t esize = dtypeSize(dtype);
  if (!esize)
    return setError(cclInvalidArgument,
                    format("%s: unknown data type %d", where().c_str(),
                           (int)dtype));
  if (op != cclSum && op != cclProd && op != cclMax && op != cclMin)
    return setError(cclInvalidArgument,
                    format("%s: unknown reduction operator %d",
                           where().c_str(), (int)op));
  const ccl_variant *var = pp->variant;
  size_t kernel = var->num_kernels;
  for (uint32_t k = 0; k < var->num_kernels; k++)
    if (var->kernels[k].dtype == (uint32_t)dtype &&
        var->kernels[k].redop == (uint32_t)op) {
      kernel = k;
      break;
    }
  if (kernel == var->num_kernels) {
    std::string list;
    for (uint32_t k = 0; k < var->num_kernels; k++) {
      if (k)
        list += ", ";
      list += dtypeName(var->kernels[k].dtype);
      list += "/";
      list += opName(var->kernels[k].redop);
    }
    return setError(cclUnsupported,
                    format("%s: no kernel for %s/%s with %d ranks; the library "
                           "has %s",
                           where().c_str(), dtypeName(dtype), opName(op),
                           s->nranks,
                           list.empty() ? "no kernels" : list.c_str()));
  }
  // max_bytes bounds count * esize (what the scratch was sized for).
  uint64_t bytes;
  if (__builtin_mul_overflow((uint64_t)count, (uint64_t)esize, &bytes) ||
      bytes > plan->max_bytes)
    return setError(
        cclUnsupported,
        format("%s: message of %zu %s elements (%s bytes) exceeds the "
               "library's limit of %" PRIu64 " bytes per rank; recompile with "
               "cclc --max-bytes to raise it",
               where().c_str(), count, dtypeName(dtype),
               bytes > plan->max_bytes && bytes / esize == count
                   ? std::to_string(bytes).c_str()
                   : "too many",
               plan->max_bytes));
  return queueLaunch(s, rank, pp, kernel, input, output, count, bytes, stream,
                     "cclrtLaunch");
}

} // namespace api
} // namespace cclrt
