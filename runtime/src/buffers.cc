// buffers.cc - the buffers of a call (buffers.h): NCCL's in-place layouts,
// overlap checks, and the staging copies that let an algorithm compiled in
// place (or out of place) be called either way.
#include <cinttypes>
#include <cstring>

#include "buffers.h"

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
  if (p->inplace == CCL_INPLACE_BOTH)
    return true; // no call is staged
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
  if (plan->inplace == CCL_INPLACE_BOTH)
    return cclSuccess; // proved in both layouts
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

} // namespace cclrt
