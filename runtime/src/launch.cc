// launch.cc - launches (cclrtLaunch: argument checks, in-place and
// out-of-place staging, the kernel) and asynchronous device copies
// (cclMemcpyAsync), on the host target's worker queue or a CUDA stream
// (docs/runtime.md). Nothing here waits for other work.
#include <cinttypes>
#include <cstring>

#include "internal.h"

namespace cclrt {

Collective collectiveOf(const ccl_plan *p) {
  const char *c = p ? p->collective : nullptr;
  if (!c)
    return Collective::kOther;
  static const struct {
    const char *name;
    Collective kind;
  } kNames[] = {
      {"AllReduce", Collective::kAllReduce},
      {"Broadcast", Collective::kBroadcast},
      {"Reduce", Collective::kReduce},
      {"AllGather", Collective::kAllGather},
      {"ReduceScatter", Collective::kReduceScatter},
      {"AllToAll", Collective::kAllToAll},
  };
  for (const auto &n : kNames)
    if (strcmp(c, n.name) == 0)
      return n.kind;
  return Collective::kOther;
}

namespace {

// Element counts of a rank's input and output in units of `count`.
uint64_t inputBlocks(Collective c, int nranks) {
  return c == Collective::kReduceScatter || c == Collective::kAllToAll
             ? (uint64_t)nranks
             : 1;
}
uint64_t outputBlocks(Collective c, int nranks) {
  return c == Collective::kAllGather || c == Collective::kAllToAll
             ? (uint64_t)nranks
             : 1;
}

bool overlap(uintptr_t a, uint64_t na, uintptr_t b, uint64_t nb) {
  return na && nb && a < b + nb && b < a + na;
}

} // namespace

bool stagingBytes(const ccl_plan *p, int nranks, uint64_t *out) {
  const Collective c = collectiveOf(p);
  *out = 0;
  if (p->inplace && c != Collective::kReduceScatter)
    return true; // the output is the kernel's buffer
  return !__builtin_mul_overflow(p->max_bytes, inputBlocks(c, nranks), out);
}

cclResult_t planBuffers(const ccl_plan *plan, void *staging, int nranks,
                        int rank, const void *input, void *output,
                        uint64_t bytes, LaunchBuffers *lb) {
  *lb = LaunchBuffers();
  lb->input = input;
  lb->output = output;
  if (bytes == 0)
    return cclSuccess; // nothing to move; the kernel still synchronises
  const Collective c = collectiveOf(plan);
  uint64_t inBytes, outBytes, offset;
  if (__builtin_mul_overflow(bytes, inputBlocks(c, nranks), &inBytes) ||
      __builtin_mul_overflow(bytes, outputBlocks(c, nranks), &outBytes) ||
      __builtin_mul_overflow(bytes, (uint64_t)rank, &offset))
    return setError(cclInvalidArgument,
                    format("buffers of %d x %" PRIu64
                           " bytes are too large to address",
                           nranks, bytes));
  const uintptr_t in = reinterpret_cast<uintptr_t>(input),
                  out = reinterpret_cast<uintptr_t>(output);
  // NCCL's in-place layouts.
  bool inPlaceCall;
  const char *layout;
  switch (c) {
  case Collective::kAllGather:
    inPlaceCall = in == out + offset;
    layout = "input == output + rank * count elements";
    break;
  case Collective::kReduceScatter:
    inPlaceCall = out == in + offset;
    layout = "output == input + rank * count elements";
    break;
  default:
    inPlaceCall = in == out;
    layout = "input == output";
    break;
  }
  if (!inPlaceCall && overlap(in, inBytes, out, outBytes)) {
    std::string here;
    if (c == Collective::kAllGather)
      here = format(" (for rank %d: input == output + %" PRIu64 " bytes)",
                    rank, offset);
    else if (c == Collective::kReduceScatter)
      here = format(" (for rank %d: output == input + %" PRIu64 " bytes)",
                    rank, offset);
    return setError(
        cclInvalidArgument,
        format("input %p (%" PRIu64 " bytes) and output %p (%" PRIu64
               " bytes) overlap; %s takes disjoint buffers or, in place, "
               "%s%s",
               input, inBytes, output, outBytes,
               plan->collective ? plan->collective : "this collective",
               layout, here.c_str()));
  }
  char *stage = static_cast<char *>(staging);
  if (plan->inplace) {
    if (inPlaceCall)
      return cclSuccess;
    switch (c) {
    case Collective::kAllGather:
      // The kernel finds this rank's block in place in the output.
      lb->pre = {static_cast<char *>(output) + offset, input, bytes};
      lb->input = static_cast<char *>(output) + offset;
      break;
    case Collective::kReduceScatter:
      // The result lands in block `rank` of the (scratch copy of the)
      // input; the caller's input must not change.
      lb->pre = {stage, input, inBytes};
      lb->input = stage;
      lb->output = stage + offset;
      lb->post = {output, stage + offset, bytes};
      break;
    default:
      lb->pre = {output, input, inBytes};
      lb->input = output;
      break;
    }
    return cclSuccess;
  }
  if (inPlaceCall) {
    // Out-of-place algorithm: it may assume disjoint buffers.
    lb->pre = {stage, input, inBytes};
    lb->input = stage;
  }
  return cclSuccess;
}

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
  cclResult_t r = checkComm(comm, "cclrtLaunch");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  RankState &rs = *s->ranks[rank];
  // The prefix of every message (built only on failure: a launch does not
  // allocate).
  auto where = [&] {
    return format("cclrtLaunch(rank %d, algorithm %s)", rank,
                  planName(plan).c_str());
  };
  if (aborted(s))
    return setError(cclTimeout, where() + ": the communicator was aborted by "
                                          "an earlier failure (" +
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
  if (count && (!input || !output))
    return setError(cclInvalidArgument,
                    format("%s: %s is NULL with count %zu", where().c_str(),
                           input ? "output" : "input", count));
  if (s->target == cclTargetHost && stream)
    return setError(cclInvalidArgument,
                    where() + ": stream must be NULL on the host target");
  LaunchBuffers lb;
  r = planBuffers(plan, pp->ranks[rank].staging, s->nranks, rank, input,
                  output, bytes, &lb);
  if (r != cclSuccess)
    return setError(r, where() + ": " + cclGetLastError());
  if (rs.skip.load(std::memory_order_relaxed))
    return cclSuccess;

  PreparedRank &pr = pp->ranks[rank];
  rs.lastPlan.store(plan);
  if (s->target == cclTargetHost) {
    HostTask t{};
    if (lb.pre.bytes) {
      t.kind = HostTask::kCopy;
      t.dst = lb.pre.dst;
      t.src = lb.pre.src;
      t.bytes = lb.pre.bytes;
      rs.host->enqueue(t);
    }
    t = HostTask{};
    t.kind = HostTask::kKernel;
    t.fn = var->kernels[kernel].host_fn;
    t.ctx = pr.ctx.get();
    t.input = lb.input;
    t.output = lb.output;
    t.count = count;
    t.nblocks = var->nblocks;
    rs.host->enqueue(t);
    if (lb.post.bytes) {
      t = HostTask{};
      t.kind = HostTask::kCopy;
      t.dst = lb.post.dst;
      t.src = lb.post.src;
      t.bytes = lb.post.bytes;
      rs.host->enqueue(t);
    }
    return cclSuccess;
  }
  CtxGuard guard(s);
  r = cudaLaunch(s, rank, pp, kernel, lb, count, stream);
  if (r != cclSuccess)
    return setError(r, where() + ": " + cclGetLastError());
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
