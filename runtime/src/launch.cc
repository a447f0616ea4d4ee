// launch.cc - launches (cclrtLaunch: argument checks, in-place and
// out-of-place staging, the kernel) and asynchronous device copies
// (cclMemcpyAsync), on the host target's worker queue or a CUDA stream
// (docs/runtime.md). Nothing here waits for other work.
#include <cinttypes>
#include <cstring>

#include "internal.h"

namespace cclrt {
namespace api {

cclResult_t cclMemcpyAsync(cclComm_t comm, void *dst, const void *src,
                           size_t bytes, cclStream_t stream) {
  cclResult_t r = checkComm(comm, "cclMemcpyAsync");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  const int rank = comm->rank;
  if (s->target == cclTargetHost && stream)
    return setError(cclInvalidArgument,
                    format("cclMemcpyAsync(rank %d): stream must be NULL on "
                           "the host target",
                           rank));
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
  if (s->target == cclTargetHost) {
    HostTask t{};
    t.kind = HostTask::kCopy;
    t.dst = dst;
    t.src = src;
    t.bytes = bytes;
    s->ranks[rank]->host->enqueue(t);
    return cclSuccess;
  }
  CtxGuard guard(s);
  r = cudaCopyAsync(s, rank, dst, src, bytes, stream);
  if (r != cclSuccess)
    return setError(r, format("cclMemcpyAsync(rank %d): ", rank) +
                           cclGetLastError());
  return cclSuccess;
}

cclResult_t cclrtLaunch(const ccl_plan *plan, cclComm_t comm, const void *input,
                        void *output, size_t count, cclDataType_t dtype,
                        cclRedOp_t op, cclStream_t stream) {
  if (!comm)
    return setError(cclInvalidArgument,
                    format("cclrtLaunch(algorithm %s): comm is NULL",
                           planName(plan).c_str()));
  const int rank = comm->rank;
  if (!plan)
    return setError(cclInvalidArgument,
                    format("cclrtLaunch(rank %d): plan is NULL", rank));
  const std::string alg = planName(plan);
  cclResult_t r = checkComm(comm, "cclrtLaunch");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  RankState &rs = *s->ranks[rank];
  const std::string ctx = format("cclrtLaunch(rank %d, algorithm %s)", rank,
                                 alg.c_str());
  if (aborted(s))
    return setError(cclTimeout, ctx + ": the communicator was aborted by an "
                                      "earlier failure (" +
                                    describeAsyncError(s) +
                                    "); destroy it and create a new one");
  PreparedPlan *pp = nullptr;
  {
    std::lock_guard<std::mutex> lk(s->plansMu);
    auto it = s->plans.find(plan);
    if (it != s->plans.end())
      pp = it->second.get();
  }
  if (!pp) {
    if (isRegistered(plan))
      return setError(cclInvalidUsage,
                      ctx + ": the library was registered after the "
                            "communicator was created; call "
                            "cclCommLoadRegisteredPlans on every rank first");
    return setError(cclInvalidUsage,
                    ctx + ": the plan was never registered (the generated "
                          "library's constructor must call "
                          "cclrtRegisterPlan)");
  }
  if (pp->status != PreparedPlan::kReady)
    return setError(pp->failCode, ctx + ": " + pp->message);
  const size_t esize = dtypeSize(dtype);
  if (!esize)
    return setError(cclInvalidArgument,
                    format("%s: unknown data type %d", ctx.c_str(), (int)dtype));
  if (op != cclSum && op != cclProd && op != cclMax && op != cclMin)
    return setError(cclInvalidArgument,
                    format("%s: unknown reduction operator %d", ctx.c_str(),
                           (int)op));
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
                           ctx.c_str(), dtypeName(dtype), opName(op),
                           s->nranks,
                           list.empty() ? "no kernels" : list.c_str()));
  }
  uint64_t bytes;
  if (__builtin_mul_overflow((uint64_t)count, (uint64_t)esize, &bytes) ||
      bytes > plan->max_bytes)
    return setError(
        cclUnsupported,
        format("%s: message of %zu %s elements (%s bytes) exceeds the "
               "library's limit of %" PRIu64 " bytes per rank; recompile with "
               "cclc --max-bytes to raise it",
               ctx.c_str(), count, dtypeName(dtype),
               bytes > plan->max_bytes && bytes / esize == count
                   ? std::to_string(bytes).c_str()
                   : "too many",
               plan->max_bytes));
  if (count && (!input || !output))
    return setError(cclInvalidArgument,
                    format("%s: %s is NULL with count %zu", ctx.c_str(),
                           input ? "output" : "input", count));
  if (s->target == cclTargetHost && stream)
    return setError(cclInvalidArgument,
                    ctx + ": stream must be NULL on the host target");
  if (rs.skip.load(std::memory_order_relaxed))
    return cclSuccess;

  PreparedRank &pr = pp->ranks[rank];
  void *copyDst = nullptr;
  const void *copySrc = nullptr;
  size_t copyBytes = 0;
  const void *in = input;
  void *out = output;
  if (plan->inplace) {
    if (input != output) {
      copyDst = output;
      copySrc = input;
      copyBytes = bytes;
      in = output;
    }
  } else if (input == output && bytes) {
    copyDst = pr.staging;
    copySrc = input;
    copyBytes = bytes;
    in = pr.staging;
  }
  rs.lastPlan.store(plan);
  if (s->target == cclTargetHost) {
    HostTask t{};
    if (copyBytes) {
      t.kind = HostTask::kCopy;
      t.dst = copyDst;
      t.src = copySrc;
      t.bytes = copyBytes;
      rs.host->enqueue(t);
    }
    t = HostTask{};
    t.kind = HostTask::kKernel;
    t.fn = var->kernels[kernel].host_fn;
    t.ctx = pr.ctx.get();
    t.input = in;
    t.output = out;
    t.count = count;
    t.nblocks = var->nblocks;
    rs.host->enqueue(t);
    return cclSuccess;
  }
  CtxGuard guard(s);
  r = cudaLaunch(s, rank, pp, kernel, copyDst, copySrc, copyBytes, in, out,
                 count, stream);
  if (r != cclSuccess)
    return setError(r, ctx + ": " + cclGetLastError());
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
