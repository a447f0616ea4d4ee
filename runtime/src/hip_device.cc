// hip_device.cc - the HIP target's communicator, memory, contexts and
// streams (hip_device.h; docs/runtime.md, "HIP target").
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "hip_device.h"

namespace cclrt {

cclResult_t hipFail(const char *call, hipError_t r, const std::string &where) {
  return setError(cclDriverError,
                  format("%s failed%s%s: %s", call, where.empty() ? "" : " ",
                         where.c_str(), hipErrorText(r).c_str()));
}

namespace {

void restoreDevice(void *dev) {
  if (const HipApi *h = hipApi())
    h->hipSetDevice(static_cast<int>(reinterpret_cast<intptr_t>(dev)));
}

// Host memory both the host and every GPU reach coherently: pinned, mapped
// into the devices' address space, portable to every device, coherent
// (never cached by the GPUs, so a flag written by one side is seen by the
// other without a flush).
constexpr unsigned kHostMappedFlags =
    hipHostMallocMapped | hipHostMallocPortable | hipHostMallocCoherent;

} // namespace

std::string hipLoadMessage(const HipLoadError &e) {
  switch (e.kind) {
  case HipLoadError::kNone:
    break;
  case HipLoadError::kNoLibrary:
    return "HIP target requested but the HIP runtime could not be loaded: "
           "cannot load " +
           e.path +
           (getenv("CCL_HIP_LIBRARY") && *getenv("CCL_HIP_LIBRARY")
                ? " (the path CCL_HIP_LIBRARY names)"
                : " (set CCL_HIP_LIBRARY to the path of libamdhip64.so)") +
           ": " + e.detail +
           "; use the host target (--target host) on machines without an "
           "AMD GPU";
  case HipLoadError::kNoEntryPoint:
    return "the HIP runtime (" + e.path + ") does not provide " + e.detail +
           "; install ROCm 6 or later";
  case HipLoadError::kInitFailed:
    return "HIP target requested but hipInit failed: " +
           hipErrorText(e.result) +
           "; use the host target (--target host) on machines without a "
           "usable AMD GPU";
  }
  return "the HIP runtime is not loaded";
}

HipDevice::HipDevice(Shared *s) : s_(s), h_(hipApi()), ranks_(s->nranks) {}

std::unique_ptr<Device> createHipDevice(Shared *s) {
  return std::make_unique<HipDevice>(s);
}

int HipDevice::ordinal(int rank) const { return s_->ranks[rank]->device; }

SavedContext HipDevice::saveContext() const {
  SavedContext saved;
  int dev = 0;
  if (h_ && h_->hipGetDevice(&dev) == hipSuccess) {
    saved.restore = restoreDevice;
    saved.context = reinterpret_cast<void *>(static_cast<intptr_t>(dev));
  }
  return saved;
}

cclResult_t HipDevice::setCurrent(int rank, const char *fn) const {
  if (!h_)
    return setError(cclNoDevice, "the HIP runtime is not loaded");
  hipError_t r = h_->hipSetDevice(ordinal(rank));
  if (r != hipSuccess)
    return hipFail("hipSetDevice", r,
                   format("(%s, rank %d, device %d)", fn, rank, ordinal(rank)));
  return cclSuccess;
}

cclResult_t HipDevice::init(const int *devices) {
  if (!h_) {
    HipLoadError e;
    hipApi(&e);
    return setError(cclNoDevice, hipLoadMessage(e));
  }
  const std::vector<int> &local = s_->local;
  int count = 0;
  hipError_t hr = h_->hipGetDeviceCount(&count);
  if (hr == hipErrorNoDevice || (hr == hipSuccess && count <= 0))
    return setError(cclNoDevice,
                    format("no AMD GPU: hipGetDeviceCount returned %d "
                           "devices%s%s (check HIP_VISIBLE_DEVICES and "
                           "ROCR_VISIBLE_DEVICES, and that the amdgpu "
                           "driver is loaded)",
                           hr == hipSuccess ? count : 0,
                           hr == hipSuccess ? "" : ", ",
                           hr == hipSuccess ? "" : hipErrorText(hr).c_str()));
  if (hr != hipSuccess)
    return hipFail("hipGetDeviceCount", hr, "");
  std::vector<std::vector<int>> same;
  cclResult_t assigned = assignDevices(s_, devices, count, kHipNames, &same);
  if (assigned != cclSuccess)
    return assigned;
  for (int r : local)
    ranks_[r].sameDevice = std::move(same[r]);
  for (int r : local) {
    Rank &rs = ranks_[r];
    const int dev = ordinal(r);
    cclResult_t res = setCurrent(r, "cclCommInit");
    if (res != cclSuccess)
      return res;
    std::string why;
    if ((hr = hipArchName(h_, dev, &rs.arch, &why)) != hipSuccess)
      return why.empty()
                 ? hipFail("hipGetDeviceProperties", hr,
                           format("(device %d)", dev))
                 : setError(cclDriverError,
                            format("cannot tell the architecture of HIP "
                                   "device %d: %s",
                                   dev, why.c_str()));
    rs.baseArch = hipBaseArch(rs.arch);
    if ((hr = h_->hipDeviceGetAttribute(&rs.cuCount,
                                        hipDeviceAttributeMultiprocessorCount,
                                        dev)) != hipSuccess ||
        (hr = h_->hipDeviceGetAttribute(&rs.maxThreads,
                                        hipDeviceAttributeMaxThreadsPerBlock,
                                        dev)) != hipSuccess)
      return hipFail("hipDeviceGetAttribute", hr,
                     format("(compute units of device %d)", dev));
    if ((hr = h_->hipStreamCreateWithFlags(
             &rs.internalStream, hipStreamNonBlocking)) != hipSuccess) {
      rs.internalStream = nullptr;
      return hipFail("hipStreamCreateWithFlags", hr,
                     format("(device %d)", dev));
    }
  }
  // Peer access between every pair of distinct devices of the local ranks
  // (ranks on one GPU address each other's memory directly). With one
  // process per rank the peers' memory is opened from IPC handles instead.
  for (int r : local) {
    cclResult_t res = setCurrent(r, "cclCommInit");
    if (res != cclSuccess)
      return res;
    for (int p : local) {
      if (p == r || ordinal(p) == ordinal(r))
        continue;
      int can = 0;
      if ((hr = h_->hipDeviceCanAccessPeer(&can, ordinal(r), ordinal(p))) !=
          hipSuccess)
        return hipFail(
            "hipDeviceCanAccessPeer", hr,
            format("(device %d -> device %d)", ordinal(r), ordinal(p)));
      if (!can)
        return setError(cclUnsupported,
                        format("rank %d (device %d) cannot access the memory "
                               "of rank %d (device %d) directly "
                               "(hipDeviceCanAccessPeer says no); the runtime "
                               "needs peer access (xGMI or PCIe P2P) between "
                               "every pair of GPUs of an in-process "
                               "communicator",
                               r, ordinal(r), p, ordinal(p)));
      hr = h_->hipDeviceEnablePeerAccess(ordinal(p), 0);
      if (hr != hipSuccess && hr != hipErrorPeerAccessAlreadyEnabled)
        return hipFail(
            "hipDeviceEnablePeerAccess", hr,
            format("(device %d -> device %d)", ordinal(r), ordinal(p)));
    }
  }
  // The abort flag (offset 0) and the error record (offset 8).
  void *hm = nullptr, *ignored = nullptr;
  cclResult_t res = allocateHostMapped(local.front(), 64, &hm, &ignored,
                                       "the abort flag and error record");
  if (res != cclSuccess)
    return res;
  s_->hostMapped = hm;
  for (int r : local) {
    Rank &rs = ranks_[r];
    if ((res = setCurrent(r, "cclCommInit")) != cclSuccess)
      return res;
    void *dp = nullptr;
    if ((hr = h_->hipHostGetDevicePointer(&dp, hm, 0)) != hipSuccess)
      return hipFail("hipHostGetDevicePointer", hr,
                     format("(abort flag, device %d)", ordinal(r)));
    rs.abortFlagDev = dp;
    rs.errorDev = static_cast<char *>(dp) + 8;
  }
  return cclSuccess;
}

void HipDevice::quiesce() {
  if (!h_)
    return;
  for (int r : s_->local)
    if (ranks_[r].internalStream &&
        setCurrent(r, "cclCommDestroy") == cclSuccess)
      h_->hipDeviceSynchronize();
}

void HipDevice::teardown() {
  if (!h_)
    return;
  for (int r : s_->local) {
    Rank &rs = ranks_[r];
    if (rs.internalStream && setCurrent(r, "cclCommDestroy") == cclSuccess)
      h_->hipStreamDestroy(rs.internalStream);
    rs.internalStream = nullptr;
  }
  if (s_->hostMapped) {
    h_->hipHostFree(s_->hostMapped);
    s_->hostMapped = nullptr;
  }
}

// ---------------------------------------------------------------------------
// Memory. Everything the runtime allocates on a GPU (scratch, counters,
// tables, contexts, staging) is fine-grained: coarse-grained memory is
// coherent only at kernel boundaries, and kernels of other GPUs poll and
// write it while a kernel runs.
// ---------------------------------------------------------------------------
cclResult_t HipDevice::allocate(int rank, size_t bytes, void **ptr,
                                const char *what) {
  *ptr = nullptr;
  cclResult_t r = setCurrent(rank, "hipExtMallocWithFlags");
  if (r != cclSuccess)
    return r;
  hipError_t hr = h_->hipExtMallocWithFlags(ptr, bytes ? bytes : 1,
                                            hipDeviceMallocFinegrained);
  if (hr != hipSuccess) {
    *ptr = nullptr;
    return setError(cclDriverError,
                    format("hipExtMallocWithFlags(%zu bytes, fine-grained) "
                           "for %s on device %d failed: %s",
                           bytes, what, ordinal(rank),
                           hipErrorText(hr).c_str()));
  }
  return cclSuccess;
}

// cclMemAlloc: ordinary (coarse-grained) device memory, which the kernels
// of the rank read and write; peers reach it by IPC when registered.
cclResult_t HipDevice::allocateUser(int rank, size_t bytes, void **ptr) {
  *ptr = nullptr;
  cclResult_t r = setCurrent(rank, "cclMemAlloc");
  if (r != cclSuccess)
    return r;
  hipError_t hr = h_->hipMalloc(ptr, bytes ? bytes : 1);
  if (hr != hipSuccess) {
    *ptr = nullptr;
    return setError(cclDriverError,
                    format("hipMalloc(%zu bytes) on device %d failed: %s",
                           bytes, ordinal(rank), hipErrorText(hr).c_str()));
  }
  return cclSuccess;
}

cclResult_t HipDevice::deallocate(int rank, void *ptr, const char *fn) {
  if (!ptr)
    return cclSuccess;
  cclResult_t r = setCurrent(rank, fn);
  if (r != cclSuccess)
    return r;
  hipError_t hr = h_->hipFree(ptr);
  if (hr != hipSuccess)
    return setError(cclDriverError,
                    format("%s(rank %d): hipFree(%p) failed: %s", fn, rank, ptr,
                           hipErrorText(hr).c_str()));
  return cclSuccess;
}

cclResult_t HipDevice::allocateHostMapped(int rank, size_t bytes, void **host,
                                          void **dev, const char *what) {
  *host = *dev = nullptr;
  cclResult_t r = setCurrent(rank, "cclCommInit");
  if (r != cclSuccess)
    return r;
  void *hm = nullptr;
  hipError_t hr = h_->hipHostMalloc(&hm, bytes ? bytes : 1, kHostMappedFlags);
  if (hr != hipSuccess)
    return hipFail("hipHostMalloc", hr,
                   format("(%s, %zu bytes, mapped and coherent)", what, bytes));
  memset(hm, 0, bytes);
  void *dp = nullptr;
  if ((hr = h_->hipHostGetDevicePointer(&dp, hm, 0)) != hipSuccess) {
    h_->hipHostFree(hm);
    return hipFail("hipHostGetDevicePointer", hr,
                   format("(%s, device %d)", what, ordinal(rank)));
  }
  *host = hm;
  *dev = dp;
  return cclSuccess;
}

void HipDevice::freeHostMapped(int rank, void *host) {
  if (host && h_)
    h_->hipHostFree(host);
}

// zero, upload and download run on the rank's internal non-blocking stream
// and wait for it: done on the device when they return, never ordered
// behind (or waiting for) work on the caller's streams.
template <typename Issue>
cclResult_t HipDevice::onInternalStream(int rank, const char *call,
                                        size_t bytes, Issue issue) {
  if (!bytes)
    return cclSuccess;
  cclResult_t r = setCurrent(rank, call);
  if (r != cclSuccess)
    return r;
  hipError_t hr = issue(ranks_[rank].internalStream);
  if (hr == hipSuccess) {
    hr = h_->hipStreamSynchronize(ranks_[rank].internalStream);
    call = "hipStreamSynchronize";
  }
  if (hr != hipSuccess)
    return setError(cclDriverError,
                    format("%s(%zu bytes) on device %d failed: %s", call, bytes,
                           ordinal(rank), hipErrorText(hr).c_str()));
  return cclSuccess;
}

cclResult_t HipDevice::zero(int rank, void *ptr, size_t bytes) {
  return onInternalStream(rank, "hipMemsetAsync", bytes, [&](hipStream_t st) {
    return h_->hipMemsetAsync(ptr, 0, bytes, st);
  });
}

cclResult_t HipDevice::upload(int rank, void *dst, const void *src,
                              size_t bytes) {
  return onInternalStream(rank, "hipMemcpyAsync", bytes, [&](hipStream_t st) {
    return h_->hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, st);
  });
}

cclResult_t HipDevice::download(int rank, void *dst, const void *src,
                                size_t bytes) {
  return onInternalStream(rank, "hipMemcpyAsync", bytes, [&](hipStream_t st) {
    return h_->hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, st);
  });
}

// ---------------------------------------------------------------------------
// Contexts of prepared plans (as on CUDA: in device memory, updated on the
// internal stream).
// ---------------------------------------------------------------------------
cclResult_t HipDevice::placeContext(int rank, PreparedRank &pr) {
  ccl_dev_ctx &c = *pr.ctx;
  const Rank &rs = ranks_[rank];
  c.abort_flag = static_cast<volatile uint32_t *>(rs.abortFlagDev);
  c.error = static_cast<ccl_error_record *>(rs.errorDev);
  cclResult_t res = allocate(rank, sizeof(ccl_dev_ctx), &pr.ctxDev,
                             format("context of rank %d", rank).c_str());
  if (res != cclSuccess)
    return res;
  return upload(rank, pr.ctxDev, &c, sizeof c);
}

cclResult_t HipDevice::startBlocks(const PreparedPlan &pp) {
  return cclSuccess; // the GPU schedules the blocks of each launch
}

cclResult_t HipDevice::setTimeout(int rank, PreparedRank &pr, uint64_t ns) {
  pr.ctx->timeout_ns = ns;
  return upload(
      rank, static_cast<char *>(pr.ctxDev) + offsetof(ccl_dev_ctx, timeout_ns),
      &ns, sizeof ns);
}

cclResult_t HipDevice::setDelay(int rank, PreparedRank &pr, uint64_t ns,
                                uint32_t block) {
  pr.ctx->delay_ns = ns;
  pr.ctx->delay_block = block;
  // delay_ns, delay_block and fifo_slots (which never changes): one 16-byte
  // write (cuda_device.cc checks that they are adjacent).
  return upload(
      rank, static_cast<char *>(pr.ctxDev) + offsetof(ccl_dev_ctx, delay_ns),
      &pr.ctx->delay_ns, 16);
}

// ---------------------------------------------------------------------------
// Streams.
// ---------------------------------------------------------------------------
const char *HipDevice::streamError(cclStream_t stream) const {
  return nullptr; // any hipStream_t; ranks that share a GPU: checkStream
}

cclResult_t HipDevice::copyAsync(int rank, void *dst, const void *src,
                                 size_t bytes, cclStream_t stream) {
  cclResult_t res = checkStream(rank, stream, "copies");
  if (res != cclSuccess)
    return res;
  if ((res = setCurrent(rank, "cclMemcpyAsync")) != cclSuccess)
    return res;
  hipError_t hr = h_->hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice,
                                     static_cast<hipStream_t>(stream));
  if (hr != hipSuccess)
    return hipFail("hipMemcpyAsync", hr,
                   format("(%zu bytes from %p to %p, device %d)", bytes, src,
                          dst, ordinal(rank)));
  return cclSuccess;
}

cclResult_t HipDevice::launch(int rank, PreparedPlan *pp, size_t kernel,
                              const LaunchBuffers &lb, uint64_t count,
                              cclStream_t stream) {
  const Rank &rs = ranks_[rank];
  const int dev = ordinal(rank);
  PreparedRank &pr = pp->ranks[rank];
  const ccl_variant *var = pp->variant;
  const unsigned threads = var->threads_per_block ? var->threads_per_block : 1;
  // The blocks of a rank wait on each other: all must be resident at once.
  if (rs.cuCount > 0 && var->nblocks > static_cast<uint32_t>(rs.cuCount))
    return setError(cclInvalidUsage,
                    format("the plan runs %u thread blocks per rank, more "
                           "than the %d compute units of device %d (%s); its "
                           "blocks wait on each other and must all be "
                           "resident (compile with fewer --instances)",
                           var->nblocks, rs.cuCount, dev, rs.arch.c_str()));
  if (rs.maxThreads > 0 && threads > static_cast<unsigned>(rs.maxThreads))
    return setError(cclInvalidUsage,
                    format("the plan runs %u threads per block, more than "
                           "the %d of device %d (%s)",
                           threads, rs.maxThreads, dev, rs.arch.c_str()));
  uint64_t needed, perCU;
  if (!coResident(pp, rank, &needed, &perCU))
    return checkCoResidency(pp, rank);
  cclResult_t res = checkStream(rank, stream, "launches");
  if (res != cclSuccess)
    return res;
  if ((res = setCurrent(rank, "cclrtLaunch")) != cclSuccess)
    return res;
  hipStream_t st = static_cast<hipStream_t>(stream);
  auto copy = [&](const CopyOp &c, const char *what) -> cclResult_t {
    if (!c.bytes)
      return cclSuccess;
    hipError_t e =
        h_->hipMemcpyAsync(c.dst, c.src, c.bytes, hipMemcpyDeviceToDevice, st);
    if (e != hipSuccess)
      return hipFail(
          "hipMemcpyAsync", e,
          format("(%s, %" PRIu64 " bytes, device %d)", what, c.bytes, dev));
    return cclSuccess;
  };
  if ((res = copy(lb.pre, "copy before the kernel")) != cclSuccess)
    return res;
  // The kernel's explicit arguments, as the generated kernels declare them
  // (compiler/Conversion/CclToLLVM/ShareBlocks.cpp, buildKernel):
  // (ptr ctx, ptr input, ptr output, i64 count), each 8 bytes at offsets
  // 0, 8, 16, 24. The buffer goes through `extra` so that its size is
  // explicit; HIP appends the hidden arguments a kernel asks for.
  struct KernelArgs {
    const void *ctx;
    const void *input;
    void *output;
    uint64_t count;
  } args{pr.ctxDev, lb.input, lb.output, count};
  static_assert(sizeof(KernelArgs) == 32 && offsetof(KernelArgs, count) == 24,
                "the generated kernels' argument layout");
  size_t argBytes = sizeof args;
  void *extra[] = {CCLRT_HIP_LAUNCH_PARAM_BUFFER_POINTER, &args,
                   CCLRT_HIP_LAUNCH_PARAM_BUFFER_SIZE, &argBytes,
                   CCLRT_HIP_LAUNCH_PARAM_END};
  hipError_t hr =
      h_->hipModuleLaunchKernel(pr.hipFunctions[kernel], var->nblocks, 1, 1,
                                threads, 1, 1, 0, st, nullptr, extra);
  if (hr != hipSuccess)
    return hipFail("hipModuleLaunchKernel", hr,
                   format("(%s, %u blocks x %u threads, device %d)",
                          var->kernels[kernel].symbol, var->nblocks, threads,
                          dev));
  return copy(lb.post, "copy after the kernel");
}

cclResult_t HipDevice::synchronize(int rank, cclStream_t stream) {
  cclResult_t res = setCurrent(rank, "cclCommSynchronize");
  if (res != cclSuccess)
    return res;
  hipError_t hr = h_->hipStreamSynchronize(static_cast<hipStream_t>(stream));
  if (hr != hipSuccess)
    return hipFail("hipStreamSynchronize", hr,
                   format("(cclCommSynchronize, rank %d, device %d)", rank,
                          ordinal(rank)));
  return cclSuccess;
}

} // namespace cclrt
