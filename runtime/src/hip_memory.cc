// hip_memory.cc - HIP memory that other processes reach (one process per
// rank; docs/runtime.md, "HIP target"): fine-grained device memory shared
// by 64-byte IPC handles (hipIpcGetMemHandle), which travel in the plan's
// exchange record and which the peers open with hipIpcOpenMemHandle; user
// buffers registered the same way; the proxy's copy-engine transport and
// the TCP transport's access to a rank's memory.
#include <cinttypes>
#include <cstring>

#include "hip_device.h"
#include "proxy.h"

namespace cclrt {

// The arena of a plan: fine-grained memory (allocate), zeroed; no file
// descriptor: its IPC handle (exportHandle) goes in the exchange record.
cclResult_t HipDevice::allocateExportable(int rank, size_t bytes, void **ptr,
                                          int *fd, const char *what) {
  *ptr = nullptr;
  *fd = -1;
  cclResult_t res = allocate(rank, bytes, ptr, what);
  if (res != cclSuccess)
    return res;
  hipIpcMemHandle_t h;
  hipError_t hr = h_->hipIpcGetMemHandle(&h, *ptr);
  if (hr != hipSuccess) {
    deallocate(rank, *ptr, "cclCommInit");
    *ptr = nullptr;
    return hipFail("hipIpcGetMemHandle", hr,
                   format("(%s, device %d): the memory cannot be shared with "
                          "other processes",
                          what, ordinal(rank)));
  }
  if ((res = zero(rank, *ptr, bytes)) != cclSuccess) {
    deallocate(rank, *ptr, "cclCommInit");
    *ptr = nullptr;
  }
  return res;
}

std::string HipDevice::exportHandle(int rank, void *ptr) {
  hipIpcMemHandle_t h;
  if (setCurrent(rank, "cclCommInit") != cclSuccess ||
      h_->hipIpcGetMemHandle(&h, ptr) != hipSuccess)
    return ""; // allocateExportable checked that it works
  return std::string(h.reserved, sizeof h.reserved);
}

void HipDevice::releaseExportable(int rank, void *ptr, size_t bytes, int fd) {
  if (ptr)
    deallocate(rank, ptr, "cclCommDestroy");
}

cclResult_t HipDevice::mapPeerHandle(int rank, const std::string &handle,
                                     size_t bytes, void **ptr,
                                     const char *what) {
  *ptr = nullptr;
  hipIpcMemHandle_t h;
  if (handle.size() != sizeof h.reserved)
    return setError(cclInternalError,
                    format("%s: the IPC handle has %zu bytes, not %zu", what,
                           handle.size(), sizeof h.reserved));
  memcpy(h.reserved, handle.data(), sizeof h.reserved);
  cclResult_t res = setCurrent(rank, "cclCommInit");
  if (res != cclSuccess)
    return res;
  hipError_t hr =
      h_->hipIpcOpenMemHandle(ptr, h, hipIpcMemLazyEnablePeerAccess);
  if (hr != hipSuccess) {
    *ptr = nullptr;
    return hipFail(
        "hipIpcOpenMemHandle", hr,
        format("(%s, %zu bytes, device %d)", what, bytes, ordinal(rank)));
  }
  std::lock_guard<std::mutex> lk(ipcMu_);
  ipcOpened_[*ptr] = rank;
  return cclSuccess;
}

void HipDevice::unmapPeer(int rank, void *ptr, size_t bytes) {
  {
    std::lock_guard<std::mutex> lk(ipcMu_);
    if (!ipcOpened_.erase(ptr))
      return;
  }
  if (setCurrent(rank, "cclCommDestroy") == cclSuccess)
    h_->hipIpcCloseMemHandle(ptr);
}

// User buffers: any device allocation of HIP's goes to the peers as an IPC
// handle of the whole allocation.
cclResult_t HipDevice::exportUserBuffer(int rank, void *buf, UserExport *out,
                                        int *fd) {
  *out = UserExport();
  *fd = -1;
  cclResult_t res = setCurrent(rank, "cclCommRegister");
  if (res != cclSuccess)
    return res;
  void *base = nullptr;
  size_t size = 0;
  hipError_t hr = h_->hipMemGetAddressRange(&base, &size, buf);
  if (hr != hipSuccess)
    return hipFail(
        "hipMemGetAddressRange", hr,
        format("(%p is not device memory of device %d?)", buf, ordinal(rank)));
  out->allocBase = base;
  out->allocSize = size;
  hipIpcMemHandle_t h;
  if (h_->hipIpcGetMemHandle(&h, base) == hipSuccess) {
    out->kind = cclRegIpc;
    memcpy(out->ipc, h.reserved, sizeof out->ipc);
  } // else staged: the allocation cannot be shared
  return cclSuccess;
}

cclResult_t HipDevice::importUserBuffer(int rank, const UserExport &e, int fd,
                                        void **base) {
  *base = nullptr;
  if (e.kind != cclRegIpc)
    return setError(cclUnsupported,
                    "the HIP target maps other processes' buffers only "
                    "from IPC handles");
  return mapPeerHandle(rank, std::string(e.ipc, sizeof e.ipc), e.allocSize,
                       base, "a peer's buffer");
}

void HipDevice::releaseUserImport(int rank, int kind, void *base,
                                  uint64_t size) {
  if (kind == cclRegIpc)
    unmapPeer(rank, base, size);
}

namespace {

// The proxy's transport between GPUs of this host: one non-blocking stream
// per peer on the rank's device; a put is hipMemcpyAsync on the peer's
// stream (a copy engine moves the bytes), a counter write is
// hipStreamWriteValue64 on the same stream, so it lands after the copies
// queued before it. All of one port channel's triggers go to one stream.
class HipCopyTransport final : public Transport {
public:
  HipCopyTransport(const HipApi *h, int device, int rank, int nranks)
      : h_(h), device_(device), rank_(rank), streams_(nranks, nullptr) {}
  ~HipCopyTransport() override { drain(); }

  cclResult_t bind() override {
    hipError_t hr = h_->hipSetDevice(device_);
    if (hr != hipSuccess)
      return hipFail("hipSetDevice", hr,
                     format("(the proxy of rank %d)", rank_));
    return cclSuccess;
  }
  cclResult_t put(int peer, void *dst, const void *src,
                  uint64_t bytes) override {
    hipStream_t st = nullptr;
    if (cclResult_t r = stream(peer, &st); r != cclSuccess)
      return r;
    hipError_t hr =
        h_->hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToDevice, st);
    if (hr != hipSuccess)
      return hipFail("hipMemcpyAsync", hr,
                     format("(%" PRIu64 " bytes, %p -> %p)", bytes, src, dst));
    return cclSuccess;
  }
  cclResult_t complete(int peer, uint64_t *addr, uint64_t value) override {
    return signal(peer, addr, value);
  }
  cclResult_t signal(int peer, uint64_t *addr, uint64_t value) override {
    hipStream_t st = nullptr;
    if (cclResult_t r = stream(peer, &st); r != cclSuccess)
      return r;
    hipError_t hr = h_->hipStreamWriteValue64(st, addr, value, 0);
    if (hr != hipSuccess)
      return hipFail("hipStreamWriteValue64", hr, format("(at %p)", addr));
    return cclSuccess;
  }
  void drain() override {
    for (hipStream_t &st : streams_)
      if (st) {
        h_->hipStreamSynchronize(st);
        h_->hipStreamDestroy(st);
        st = nullptr;
      }
  }

private:
  cclResult_t stream(int peer, hipStream_t *out) {
    hipStream_t &st = streams_[peer];
    if (!st) {
      hipError_t hr = h_->hipStreamCreateWithFlags(&st, hipStreamNonBlocking);
      if (hr != hipSuccess) {
        st = nullptr;
        return hipFail(
            "hipStreamCreateWithFlags", hr,
            format("(the proxy of rank %d, to rank %d)", rank_, peer));
      }
    }
    *out = st;
    return cclSuccess;
  }

  const HipApi *h_;
  int device_, rank_;
  std::vector<hipStream_t> streams_;
};

// A TCP transport thread's access to a rank's memory: the rank's device, a
// non-blocking stream of its own, a pinned staging buffer; every copy is
// followed by a wait for that stream.
class HipMemoryAccess final : public MemoryAccess {
public:
  HipMemoryAccess(const HipApi *h, int device, int rank)
      : h_(h), device_(device), rank_(rank) {}
  ~HipMemoryAccess() override {
    if (stream_) {
      h_->hipStreamSynchronize(stream_);
      h_->hipStreamDestroy(stream_);
    }
    if (staging_)
      h_->hipHostFree(staging_);
  }
  cclResult_t bind() override {
    hipError_t hr = h_->hipSetDevice(device_);
    if (hr == hipSuccess)
      hr = h_->hipStreamCreateWithFlags(&stream_, hipStreamNonBlocking);
    if (hr != hipSuccess)
      return hipFail("hipStreamCreateWithFlags", hr,
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
      hipError_t hr = h_->hipHostMalloc(&staging_, bytes, 0);
      if (hr != hipSuccess) {
        staging_ = nullptr;
        return hipFail(
            "hipHostMalloc", hr,
            format("(TCP staging of rank %d, %zu bytes)", rank_, bytes));
      }
      stagingBytes_ = bytes;
    }
    *ptr = staging_;
    return cclSuccess;
  }
  cclResult_t fromHost(void *dst, const void *src, size_t bytes) override {
    return waited(
        "hipMemcpyAsync",
        h_->hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, stream_),
        format("(%zu bytes to %p)", bytes, dst));
  }
  cclResult_t toHost(void *dst, const void *src, size_t bytes) override {
    return waited(
        "hipMemcpyAsync",
        h_->hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, stream_),
        format("(%zu bytes from %p)", bytes, src));
  }
  cclResult_t store(uint64_t *addr, uint64_t value) override {
    return waited("hipStreamWriteValue64",
                  h_->hipStreamWriteValue64(stream_, addr, value, 0),
                  format("(at %p)", addr));
  }

private:
  cclResult_t waited(const char *call, hipError_t queued,
                     const std::string &what) {
    hipError_t hr = queued;
    if (hr == hipSuccess)
      hr = h_->hipStreamSynchronize(stream_);
    return hr == hipSuccess ? cclSuccess : hipFail(call, hr, what);
  }

  const HipApi *h_;
  int device_, rank_;
  hipStream_t stream_ = nullptr;
  void *staging_ = nullptr;
  size_t stagingBytes_ = 0;
};

} // namespace

std::unique_ptr<Transport> HipDevice::createTransport(int rank) {
  return std::make_unique<HipCopyTransport>(h_, ordinal(rank), rank,
                                            s_->nranks);
}

std::unique_ptr<MemoryAccess> HipDevice::memoryAccess(int rank) {
  return std::make_unique<HipMemoryAccess>(h_, ordinal(rank), rank);
}

} // namespace cclrt
