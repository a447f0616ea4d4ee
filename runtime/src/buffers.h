// buffers.h - what a call of a collective moves (docs/runtime.md, "In place
// and out of place"): the collective a plan implements, the staging buffer
// it needs, and the copies and kernel buffers of one launch (buffers.cc).
#ifndef CCLRT_BUFFERS_H
#define CCLRT_BUFFERS_H

#include <cstdint>

#include "internal.h"

namespace cclrt {

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
// the caller's buffers and `bytes` = count * element size. Sets the error
// (without a prefix) and returns cclInvalidArgument for buffers that
// overlap in a way the collective does not accept.
cclResult_t planBuffers(const ccl_plan *plan, void *staging, int nranks,
                        int rank, const void *input, void *output,
                        uint64_t bytes, LaunchBuffers *lb);

} // namespace cclrt

#endif // CCLRT_BUFFERS_H
