// cuda_device.cc - the CUDA target's communicator, memory, contexts and
// streams (cuda_device.h; docs/runtime.md, "CUDA target").
#include <cinttypes>
#include <cstddef>
#include <cstdlib>
#include <cstring>

#include "cuda_device.h"
#include "proxy.h"

namespace cclrt {

cclResult_t cuFail(const char *call, CUresult r, const std::string &where) {
  return setError(cclDriverError, format("%s failed%s%s: %s", call,
                                         where.empty() ? "" : " ",
                                         where.c_str(),
                                         cudaErrorText(r).c_str()));
}

namespace {

void restoreContext(void *ctx) {
  cudaDriver()->cuCtxSetCurrent(static_cast<CUcontext>(ctx));
}

} // namespace

std::string cudaLoadMessage(const CudaLoadError &e) {
  switch (e.kind) {
  case CudaLoadError::kNone:
    break;
  case CudaLoadError::kNoLibrary:
    return "CUDA target requested but the CUDA driver (libcuda.so.1) could "
           "not be loaded: " +
           e.detail +
           "; use the host target (--target host) on machines without a GPU";
  case CudaLoadError::kNoGetProcAddress:
    return "the CUDA driver (libcuda.so.1) was loaded but exports neither "
           "cuGetProcAddress_v2 nor cuGetProcAddress (driver older than CUDA "
           "11.3?); install a newer NVIDIA driver";
  case CudaLoadError::kNoEntryPoint:
    return "the CUDA driver (libcuda.so.1) does not provide " + e.detail +
           " (cuGetProcAddress returned " + std::to_string(e.result) +
           "); install a newer NVIDIA driver";
  case CudaLoadError::kInitFailed:
    return "CUDA target requested but cuInit failed: " +
           cudaErrorText(e.result) +
           "; use the host target (--target host) on machines without a "
           "usable GPU";
  }
  return "the CUDA driver is not loaded";
}

CudaDevice::CudaDevice(Shared *s)
    : s_(s), d_(cudaDriver()), ranks_(s->nranks) {}

std::unique_ptr<Device> createCudaDevice(Shared *s) {
  return std::make_unique<CudaDevice>(s);
}

int CudaDevice::ordinal(int rank) const { return s_->ranks[rank]->device; }

SavedContext CudaDevice::saveContext() const {
  SavedContext saved;
  CUcontext prev = nullptr;
  if (d_ && d_->cuCtxGetCurrent(&prev) == CUDA_SUCCESS) {
    saved.restore = restoreContext;
    saved.context = prev;
  }
  return saved;
}

cclResult_t CudaDevice::setCurrent(int rank, const char *fn) {
  if (!d_)
    return setError(cclNoDevice, "the CUDA driver is not loaded");
  CUresult r = d_->cuCtxSetCurrent(ranks_[rank].cuCtx);
  if (r != CUDA_SUCCESS)
    return cuFail("cuCtxSetCurrent", r,
                  format("(%s, rank %d, device %d)", fn, rank,
                         ordinal(rank)));
  return cclSuccess;
}

cclResult_t CudaDevice::init(const int *devices) {
  if (!d_) {
    CudaLoadError e;
    cudaDriver(&e);
    return setError(cclNoDevice, cudaLoadMessage(e));
  }
  const std::vector<int> &local = s_->local;
  int count = 0;
  CUresult cr = d_->cuDeviceGetCount(&count);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuDeviceGetCount", cr, "");
  std::vector<std::vector<int>> same;
  cclResult_t assigned = assignDevices(s_, devices, count, kCudaNames, &same);
  if (assigned != cclSuccess)
    return assigned;
  for (int r : local)
    ranks_[r].sameDevice = std::move(same[r]);
  for (int r : local) {
    Rank &rs = ranks_[r];
    const int dev = ordinal(r);
    if ((cr = d_->cuDeviceGet(&rs.cuDev, dev)) != CUDA_SUCCESS)
      return cuFail("cuDeviceGet", cr, format("(device %d)", dev));
    if ((cr = d_->cuDeviceGetAttribute(
             &rs.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
             rs.cuDev)) != CUDA_SUCCESS ||
        (cr = d_->cuDeviceGetAttribute(
             &rs.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
             rs.cuDev)) != CUDA_SUCCESS ||
        (cr = d_->cuDeviceGetAttribute(
             &rs.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
             rs.cuDev)) != CUDA_SUCCESS)
      return cuFail("cuDeviceGetAttribute", cr,
                    format("(compute capability of device %d)", dev));
    if ((cr = d_->cuDevicePrimaryCtxRetain(&rs.cuCtx, rs.cuDev)) !=
        CUDA_SUCCESS)
      return cuFail("cuDevicePrimaryCtxRetain", cr,
                    format("(device %d)", dev));
    rs.ctxRetained = true;
    cclResult_t res = setCurrent(r, "cclCommInit");
    if (res != cclSuccess)
      return res;
    if ((cr = d_->cuStreamCreate(&rs.internalStream,
                                 CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
      return cuFail("cuStreamCreate", cr, format("(device %d)", dev));
  }
  // Peer access: every rank reaches every other rank's memory. Ranks on
  // the same GPU share its primary context and address each other's
  // memory with plain device pointers; enabling peer access from a context
  // to itself would fail, so only distinct devices are paired (once per
  // pair of contexts; "already enabled" from a second rank is fine). With
  // one process per rank the peers' memory is mapped with the virtual
  // memory API instead, which grants access per mapping (mapPeer).
  for (int r : local) {
    Rank &rs = ranks_[r];
    cclResult_t res = setCurrent(r, "cclCommInit");
    if (res != cclSuccess)
      return res;
    for (int p : local) {
      Rank &ps = ranks_[p];
      if (p == r || ordinal(p) == ordinal(r))
        continue;
      int can = 0;
      if ((cr = d_->cuDeviceCanAccessPeer(&can, rs.cuDev, ps.cuDev)) !=
          CUDA_SUCCESS)
        return cuFail("cuDeviceCanAccessPeer", cr,
                      format("(device %d -> device %d)", ordinal(r),
                             ordinal(p)));
      if (!can)
        return setError(cclUnsupported,
                        format("rank %d (device %d) cannot access the memory "
                               "of rank %d (device %d) directly "
                               "(cuDeviceCanAccessPeer says no); the runtime "
                               "needs peer access (NVLink or PCIe P2P) "
                               "between every pair of GPUs of an in-process "
                               "communicator",
                               r, ordinal(r), p, ordinal(p)));
      cr = d_->cuCtxEnablePeerAccess(ps.cuCtx, 0);
      if (cr != CUDA_SUCCESS && cr != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        return cuFail("cuCtxEnablePeerAccess", cr,
                      format("(device %d -> device %d)", ordinal(r),
                             ordinal(p)));
    }
  }
  // The abort flag (offset 0) and the error record (offset 8): host-mapped
  // pinned memory, portable to every context.
  cclResult_t res = setCurrent(local.front(), "cclCommInit");
  if (res != cclSuccess)
    return res;
  void *hm = nullptr;
  if ((cr = d_->cuMemHostAlloc(&hm, 64,
                               CU_MEMHOSTALLOC_PORTABLE |
                                   CU_MEMHOSTALLOC_DEVICEMAP)) != CUDA_SUCCESS)
    return cuFail("cuMemHostAlloc", cr, "(abort flag and error record)");
  memset(hm, 0, 64);
  s_->hostMapped = hm;
  for (int r : local) {
    Rank &rs = ranks_[r];
    if ((res = setCurrent(r, "cclCommInit")) != cclSuccess)
      return res;
    CUdeviceptr dp = 0;
    if ((cr = d_->cuMemHostGetDevicePointer(&dp, hm, 0)) != CUDA_SUCCESS)
      return cuFail("cuMemHostGetDevicePointer", cr,
                    format("(device %d)", ordinal(r)));
    rs.abortFlagDev = dp;
    rs.errorDev = dp + 8;
  }
  return cclSuccess;
}

void CudaDevice::quiesce() {
  for (int r = 0; r < s_->nranks; r++)
    if (ranks_[r].cuCtx && setCurrent(r, "cclCommDestroy") == cclSuccess)
      d_->cuCtxSynchronize(nullptr); // the current context: the rank's
}

void CudaDevice::teardown() {
  if (!d_)
    return;
  for (int r = 0; r < s_->nranks; r++) {
    Rank &rs = ranks_[r];
    if (rs.internalStream && setCurrent(r, "cclCommDestroy") == cclSuccess)
      d_->cuStreamDestroy(rs.internalStream);
    rs.internalStream = nullptr;
  }
  if (s_->hostMapped) {
    if (!s_->local.empty() && ranks_[s_->local.front()].cuCtx)
      setCurrent(s_->local.front(), "cclCommDestroy");
    d_->cuMemFreeHost(s_->hostMapped);
    s_->hostMapped = nullptr;
  }
  for (Rank &rs : ranks_) {
    if (rs.ctxRetained)
      d_->cuDevicePrimaryCtxRelease(rs.cuDev);
    rs.ctxRetained = false;
    rs.cuCtx = nullptr;
  }
}

// ---------------------------------------------------------------------------
// Memory.
// ---------------------------------------------------------------------------
cclResult_t CudaDevice::allocate(int rank, size_t bytes, void **ptr,
                                 const char *what) {
  *ptr = nullptr;
  cclResult_t r = setCurrent(rank, "cuMemAlloc");
  if (r != cclSuccess)
    return r;
  CUdeviceptr dp = 0;
  CUresult cr = d_->cuMemAlloc(&dp, bytes ? bytes : 1);
  if (cr != CUDA_SUCCESS)
    return setError(cclDriverError,
                    format("cuMemAlloc(%zu bytes) for %s on device %d "
                           "failed: %s",
                           bytes, what, ordinal(rank),
                           cudaErrorText(cr).c_str()));
  *ptr = reinterpret_cast<void *>(dp);
  return cclSuccess;
}

cclResult_t CudaDevice::deallocate(int rank, void *ptr, const char *fn) {
  if (!ptr)
    return cclSuccess;
  // cclMemAlloc memory from the virtual memory API (allocateUser).
  if (isMapping(ptr)) {
    unmapAddress(rank, ptr);
    return cclSuccess;
  }
  cclResult_t r = setCurrent(rank, fn);
  if (r != cclSuccess)
    return r;
  CUresult cr = d_->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  if (cr != CUDA_SUCCESS)
    return setError(cclDriverError,
                    format("%s(rank %d): cuMemFree(%p) failed: %s", fn, rank,
                           ptr, cudaErrorText(cr).c_str()));
  return cclSuccess;
}

// ---------------------------------------------------------------------------
// Port channels: FIFOs in pinned host memory mapped into the rank's context,
// and the copy-engine transport of the rank's proxy.
// ---------------------------------------------------------------------------
cclResult_t CudaDevice::allocateHostMapped(int rank, size_t bytes, void **host,
                                           void **dev, const char *what) {
  *host = *dev = nullptr;
  cclResult_t r = setCurrent(rank, "cclCommInit");
  if (r != cclSuccess)
    return r;
  void *hm = nullptr;
  CUresult cr = d_->cuMemHostAlloc(
      &hm, bytes ? bytes : 1,
      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemHostAlloc", cr,
                  format("(%s, %zu bytes)", what, bytes));
  memset(hm, 0, bytes);
  CUdeviceptr dp = 0;
  if ((cr = d_->cuMemHostGetDevicePointer(&dp, hm, 0)) != CUDA_SUCCESS) {
    d_->cuMemFreeHost(hm);
    return cuFail("cuMemHostGetDevicePointer", cr,
                  format("(%s, device %d)", what, ordinal(rank)));
  }
  *host = hm;
  *dev = reinterpret_cast<void *>(dp);
  return cclSuccess;
}

void CudaDevice::freeHostMapped(int rank, void *host) {
  if (host && setCurrent(rank, "cclCommDestroy") == cclSuccess)
    d_->cuMemFreeHost(host);
}

namespace {

// The proxy's transport between GPUs of this host: one non-blocking stream
// per peer in the rank's context; a put is cuMemcpyAsync on the peer's
// stream (the copy engines move the bytes, no SM does), a counter write is
// cuStreamWriteValue64 on the same stream, so it lands after the copies
// queued before it (the memop's default memory barrier orders it after
// them). All of one port channel's triggers go to one stream.
class CopyEngineTransport final : public Transport {
public:
  CopyEngineTransport(const CudaDriver *d, CUcontext ctx, int rank, int nranks)
      : d_(d), ctx_(ctx), rank_(rank), streams_(nranks, nullptr) {}
  ~CopyEngineTransport() override { drain(); }

  cclResult_t bind() override {
    CUresult cr = d_->cuCtxSetCurrent(ctx_);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuCtxSetCurrent", cr,
                    format("(the proxy of rank %d)", rank_));
    return cclSuccess;
  }
  cclResult_t put(int peer, void *dst, const void *src,
                  uint64_t bytes) override {
    CUstream st = nullptr;
    if (cclResult_t r = stream(peer, &st); r != cclSuccess)
      return r;
    CUresult cr = d_->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                    reinterpret_cast<CUdeviceptr>(src), bytes,
                                    st);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuMemcpyAsync", cr,
                    format("(%" PRIu64 " bytes, %p -> %p)", bytes, src, dst));
    return cclSuccess;
  }
  cclResult_t complete(int peer, uint64_t *addr, uint64_t value) override {
    return signal(peer, addr, value);
  }
  cclResult_t signal(int peer, uint64_t *addr, uint64_t value) override {
    CUstream st = nullptr;
    if (cclResult_t r = stream(peer, &st); r != cclSuccess)
      return r;
    CUresult cr = d_->cuStreamWriteValue64(
        st, reinterpret_cast<CUdeviceptr>(addr), value, 0);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuStreamWriteValue64", cr, format("(at %p)", addr));
    return cclSuccess;
  }
  void drain() override {
    for (CUstream &st : streams_)
      if (st) {
        d_->cuStreamSynchronize(st);
        d_->cuStreamDestroy(st);
        st = nullptr;
      }
  }

private:
  cclResult_t stream(int peer, CUstream *out) {
    CUstream &st = streams_[peer];
    if (!st) {
      // CCL_PROXY_STREAM_PRIORITY=high: the copies and counter writes on
      // the context's highest-priority streams (an experiment knob,
      // docs/runtime.md).
      const char *pri = getenv("CCL_PROXY_STREAM_PRIORITY");
      int least = 0, greatest = 0;
      CUresult cr;
      if (pri && strcmp(pri, "high") == 0 &&
          d_->cuCtxGetStreamPriorityRange(&least, &greatest) == CUDA_SUCCESS)
        cr = d_->cuStreamCreateWithPriority(&st, CU_STREAM_NON_BLOCKING,
                                            greatest);
      else
        cr = d_->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING);
      if (cr != CUDA_SUCCESS) {
        st = nullptr;
        return cuFail("cuStreamCreate", cr,
                      format("(the proxy of rank %d, to rank %d)", rank_,
                             peer));
      }
    }
    *out = st;
    return cclSuccess;
  }

  const CudaDriver *d_;
  CUcontext ctx_;
  int rank_;
  std::vector<CUstream> streams_;
};

} // namespace

namespace {

// A TCP transport thread's access to a GPU rank's memory: the rank's
// context, a non-blocking stream of its own, a pinned staging buffer;
// copies are asynchronous on that stream followed by a wait for it (never
// the legacy default stream, which would wait for the spinning kernels).
class CudaMemoryAccess final : public MemoryAccess {
public:
  CudaMemoryAccess(const CudaDriver *d, CUcontext ctx, int rank)
      : d_(d), ctx_(ctx), rank_(rank) {}
  ~CudaMemoryAccess() override {
    if (stream_) {
      d_->cuStreamSynchronize(stream_);
      d_->cuStreamDestroy(stream_);
    }
    if (staging_)
      d_->cuMemFreeHost(staging_);
  }
  cclResult_t bind() override {
    CUresult cr = d_->cuCtxSetCurrent(ctx_);
    if (cr == CUDA_SUCCESS)
      cr = d_->cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuStreamCreate", cr,
                    format("(the TCP transport of rank %d)", rank_));
    return cclSuccess;
  }
  bool direct() const override { return false; }
  cclResult_t staging(size_t bytes, void **ptr) override {
    if (staging_ && bytes > stagingBytes_)
      return setError(cclInternalError,
                      format("TCP staging of rank %d: %zu bytes asked, %zu "
                             "allocated",
                             rank_, bytes, stagingBytes_));
    if (!staging_) {
      CUresult cr = d_->cuMemHostAlloc(&staging_, bytes, 0);
      if (cr != CUDA_SUCCESS)
        return cuFail("cuMemHostAlloc", cr,
                      format("(TCP staging of rank %d, %zu bytes)", rank_,
                             bytes));
      stagingBytes_ = bytes;
    }
    *ptr = staging_;
    return cclSuccess;
  }
  cclResult_t fromHost(void *dst, const void *src, size_t bytes) override {
    return waited("cuMemcpyHtoDAsync",
                  d_->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                                        src, bytes, stream_),
                  format("(%zu bytes to %p)", bytes, dst));
  }
  cclResult_t toHost(void *dst, const void *src, size_t bytes) override {
    return waited("cuMemcpyDtoHAsync",
                  d_->cuMemcpyDtoHAsync(
                      dst, reinterpret_cast<CUdeviceptr>(src), bytes, stream_),
                  format("(%zu bytes from %p)", bytes, src));
  }
  cclResult_t store(uint64_t *addr, uint64_t value) override {
    return waited("cuStreamWriteValue64",
                  d_->cuStreamWriteValue64(
                      stream_, reinterpret_cast<CUdeviceptr>(addr), value, 0),
                  format("(at %p)", addr));
  }

private:
  // `queued` is what queueing `call` on the stream returned; then waits
  // for the stream. Either failure names `call`.
  cclResult_t waited(const char *call, CUresult queued,
                     const std::string &what) {
    CUresult cr = queued;
    if (cr == CUDA_SUCCESS)
      cr = d_->cuStreamSynchronize(stream_);
    return cr == CUDA_SUCCESS ? cclSuccess : cuFail(call, cr, what);
  }

  const CudaDriver *d_;
  CUcontext ctx_;
  int rank_;
  CUstream stream_ = nullptr;
  void *staging_ = nullptr;
  size_t stagingBytes_ = 0;
};

} // namespace

std::unique_ptr<MemoryAccess> CudaDevice::memoryAccess(int rank) {
  return std::make_unique<CudaMemoryAccess>(d_, ranks_[rank].cuCtx, rank);
}

std::unique_ptr<Transport> CudaDevice::createTransport(int rank) {
  return std::make_unique<CopyEngineTransport>(d_, ranks_[rank].cuCtx, rank,
                                               s_->nranks);
}

// zero, upload and download run on the rank's internal (non-blocking)
// stream and return only when the device has finished. The synchronous
// driver calls are not enough: cuMemcpyHtoD from pageable memory returns
// once the data is staged, before the DMA lands, and cuMemsetD8 is
// asynchronous; neither is ordered with kernels on the caller's
// non-blocking streams, so a collective launched right after could read
// stale input. None of them waits for work on the caller's streams.
template <typename Issue>
cclResult_t CudaDevice::onInternalStream(int rank, const char *call,
                                         size_t bytes, Issue issue) {
  if (!bytes)
    return cclSuccess;
  cclResult_t r = setCurrent(rank, call);
  if (r != cclSuccess)
    return r;
  CUresult cr = issue(ranks_[rank].internalStream);
  if (cr == CUDA_SUCCESS) {
    cr = d_->cuStreamSynchronize(ranks_[rank].internalStream);
    call = "cuStreamSynchronize";
  }
  if (cr != CUDA_SUCCESS)
    return setError(cclDriverError,
                    format("%s(%zu bytes) on device %d failed: %s", call,
                           bytes, ordinal(rank), cudaErrorText(cr).c_str()));
  return cclSuccess;
}

cclResult_t CudaDevice::zero(int rank, void *ptr, size_t bytes) {
  return onInternalStream(rank, "cuMemsetD8Async", bytes, [&](CUstream st) {
    return d_->cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(ptr), 0, bytes,
                               st);
  });
}

cclResult_t CudaDevice::upload(int rank, void *dst, const void *src,
                               size_t bytes) {
  return onInternalStream(rank, "cuMemcpyHtoDAsync", bytes, [&](CUstream st) {
    return d_->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src,
                                 bytes, st);
  });
}

cclResult_t CudaDevice::download(int rank, void *dst, const void *src,
                                 size_t bytes) {
  return onInternalStream(rank, "cuMemcpyDtoHAsync", bytes, [&](CUstream st) {
    return d_->cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src),
                                 bytes, st);
  });
}

// ---------------------------------------------------------------------------
// Contexts of prepared plans.
// ---------------------------------------------------------------------------
cclResult_t CudaDevice::placeContext(int rank, PreparedRank &pr) {
  ccl_dev_ctx &c = *pr.ctx;
  const Rank &rs = ranks_[rank];
  c.abort_flag = reinterpret_cast<volatile uint32_t *>(rs.abortFlagDev);
  c.error = reinterpret_cast<ccl_error_record *>(rs.errorDev);
  cclResult_t res = allocate(rank, sizeof(ccl_dev_ctx), &pr.ctxDev,
                             format("context of rank %d", rank).c_str());
  if (res != cclSuccess)
    return res;
  return upload(rank, pr.ctxDev, &c, sizeof c);
}

cclResult_t CudaDevice::startBlocks(const PreparedPlan &pp) {
  return cclSuccess; // the GPU schedules the blocks of each launch
}

cclResult_t CudaDevice::updateContext(int rank, PreparedRank &pr,
                                      size_t offset, const void *src,
                                      size_t size) {
  return upload(rank, static_cast<char *>(pr.ctxDev) + offset, src, size);
}

cclResult_t CudaDevice::setTimeout(int rank, PreparedRank &pr, uint64_t ns) {
  pr.ctx->timeout_ns = ns;
  return updateContext(rank, pr, offsetof(ccl_dev_ctx, timeout_ns), &ns,
                       sizeof ns);
}

cclResult_t CudaDevice::setDelay(int rank, PreparedRank &pr, uint64_t ns,
                                 uint32_t block) {
  pr.ctx->delay_ns = ns;
  pr.ctx->delay_block = block;
  // delay_ns and delay_block (with fifo_slots, which never changes): one
  // 16-byte write.
  static_assert(offsetof(ccl_dev_ctx, delay_block) ==
                        offsetof(ccl_dev_ctx, delay_ns) + 8 &&
                    offsetof(ccl_dev_ctx, fifo_slots) ==
                        offsetof(ccl_dev_ctx, delay_ns) + 12,
                "delay_ns, delay_block and fifo_slots are adjacent");
  return updateContext(rank, pr, offsetof(ccl_dev_ctx, delay_ns),
                       &pr.ctx->delay_ns, 16);
}

// ---------------------------------------------------------------------------
// Streams.
// ---------------------------------------------------------------------------
const char *CudaDevice::streamError(cclStream_t stream) const {
  return nullptr; // any CUstream; ranks that share a GPU: checkStream
}

cclResult_t CudaDevice::copyAsync(int rank, void *dst, const void *src,
                                  size_t bytes, cclStream_t stream) {
  cclResult_t res = checkStream(rank, stream, "copies");
  if (res != cclSuccess)
    return res;
  CUresult cr = d_->cuCtxSetCurrent(ranks_[rank].cuCtx);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuCtxSetCurrent", cr, format("(device %d)", ordinal(rank)));
  cr = d_->cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                             reinterpret_cast<CUdeviceptr>(src), bytes,
                             static_cast<CUstream>(stream));
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemcpyDtoDAsync", cr,
                  format("(%zu bytes from %p to %p, device %d)", bytes, src,
                         dst, ordinal(rank)));
  return cclSuccess;
}

cclResult_t CudaDevice::launch(int rank, PreparedPlan *pp, size_t kernel,
                               const LaunchBuffers &lb, uint64_t count,
                               cclStream_t stream) {
  const Rank &rs = ranks_[rank];
  const int dev = ordinal(rank);
  PreparedRank &pr = pp->ranks[rank];
  const ccl_variant *var = pp->variant;
  // The blocks of a rank spin-wait on each other, so all of them must be
  // resident at once: at most one per SM (the verifier checks the same
  // bound at compile time for the target it assumes). Checked before
  // anything is queued.
  if (rs.smCount > 0 && var->nblocks > static_cast<uint32_t>(rs.smCount))
    return setError(cclInvalidUsage,
                    format("the plan runs %u thread blocks per rank, more "
                           "than the %d SMs of device %d; its blocks wait "
                           "on each other and must all be resident "
                           "(compile with fewer --instances)",
                           var->nblocks, rs.smCount, dev));
  // All the blocks of all the ranks on this GPU must fit together
  // (checked when the plan was prepared; checked again here, without
  // allocating, before anything is queued).
  uint64_t needed, perSM;
  if (!coResident(pp, rank, &needed, &perSM))
    return checkCoResidency(pp, rank);
  cclResult_t res = checkStream(rank, stream, "launches");
  if (res != cclSuccess)
    return res;
  CUresult cr = d_->cuCtxSetCurrent(rs.cuCtx);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuCtxSetCurrent", cr, format("(device %d)", dev));
  CUstream st = static_cast<CUstream>(stream);
  auto copy = [&](const CopyOp &c, const char *what) -> cclResult_t {
    if (!c.bytes)
      return cclSuccess;
    CUresult e = d_->cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(c.dst),
                                       reinterpret_cast<CUdeviceptr>(c.src),
                                       c.bytes, st);
    if (e != CUDA_SUCCESS)
      return cuFail("cuMemcpyDtoDAsync", e,
                    format("(%s, %" PRIu64 " bytes, device %d)", what,
                           c.bytes, dev));
    return cclSuccess;
  };
  res = copy(lb.pre, "copy before the kernel");
  if (res != cclSuccess)
    return res;
  CUdeviceptr ctxArg = reinterpret_cast<CUdeviceptr>(pr.ctxDev);
  CUdeviceptr inArg = reinterpret_cast<CUdeviceptr>(lb.input);
  CUdeviceptr outArg = reinterpret_cast<CUdeviceptr>(lb.output);
  uint64_t countArg = count;
  void *params[4] = {&ctxArg, &inArg, &outArg, &countArg};
  cr = d_->cuLaunchKernel(pr.functions[kernel], var->nblocks, 1, 1,
                          var->threads_per_block ? var->threads_per_block : 1,
                          1, 1, 0, st, params, nullptr);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuLaunchKernel", cr,
                  format("(%s, %u blocks x %u threads, device %d)",
                         var->kernels[kernel].symbol, var->nblocks,
                         var->threads_per_block, dev));
  return copy(lb.post, "copy after the kernel");
}

cclResult_t CudaDevice::synchronize(int rank, cclStream_t stream) {
  cclResult_t res = setCurrent(rank, "cclCommSynchronize");
  if (res != cclSuccess)
    return res;
  CUresult cr = d_->cuStreamSynchronize(static_cast<CUstream>(stream));
  if (cr != CUDA_SUCCESS)
    return cuFail("cuStreamSynchronize", cr,
                  format("(cclCommSynchronize, rank %d, device %d)", rank,
                         ordinal(rank)));
  return cclSuccess;
}

} // namespace cclrt
