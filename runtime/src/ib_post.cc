// ib_post.cc - the rdma-core verbs transport between hosts (see ib.h):
// posting RDMA writes, signals and completions, and waiting for them.
// Opening the device, queue pairs and registrations are in ib.cc.
#include "ib.h"

#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <sched.h>

#include "bootstrap.h"

namespace cclrt {

// ---------------------------------------------------------------------------
// Posting and completions.
// ---------------------------------------------------------------------------

cclResult_t IbNet::failWith(cclResult_t code, const std::string &why) {
  if (failure_.empty())
    failure_ = why;
  return setError(code, failure_);
}

cclResult_t IbNet::progress() {
  ibv_wc wc[kIbPollBatch];
  int n = ibv_poll_cq(cq_, kIbPollBatch, wc);
  if (n < 0)
    return failWith(cclSystemError,
                    format("the RDMA transport: polling the completion queue "
                           "of %s failed",
                           describe().c_str()));
  for (int i = 0; i < n; i++) {
    auto it = inflight_.find(wc[i].wr_id);
    if (it == inflight_.end())
      return failWith(cclInternalError,
                      format("the RDMA transport: a completion of unknown "
                             "work request %" PRIu64,
                             (uint64_t)wc[i].wr_id));
    const Inflight f = it->second;
    inflight_.erase(it);
    Peer &p = peers_[f.peer];
    if (f.qp < p.outstanding.size() && p.outstanding[f.qp])
      p.outstanding[f.qp]--;
    if (f.slot >= 0)
      slotBusy_[(size_t)f.slot] = false;
    if (f.data)
      p.completed++;
    if (wc[i].status != IBV_WC_SUCCESS)
      return failWith(
          cclSystemError,
          format("the RDMA transport: an RDMA write %s %s on queue pair %u "
                 "failed on %s: %s (work completion status %d)",
                 f.data ? "of data to" : "of a signal to",
                 s_->boot->describe(f.peer).c_str(), f.qp, describe().c_str(),
                 v_->wcStatusStr(wc[i].status), (int)wc[i].status));
  }
  return cclSuccess;
}

template <typename P>
cclResult_t IbNet::waitUntil(P pred, const char *what, int peer) {
  const uint64_t timeout = s_->ranks[me_]->timeoutNs;
  const uint64_t start = ibNowNs();
  unsigned spins = 0;
  while (!pred()) {
    if (!failure_.empty())
      return setError(cclSystemError, failure_);
    if (cclResult_t r = progress(); r != cclSuccess)
      return r;
    if (pred())
      break;
    if (aborted(s_))
      return setError(cclRemoteError, "the communicator was aborted");
    if (++spins % 1024 == 0) {
      if (timeout && ibNowNs() - start > timeout)
        return failWith(
            cclTimeout,
            format("the RDMA transport: %s %s did not complete within the "
                   "timeout (%.1f s) on %s",
                   what, s_->boot->describe(peer).c_str(), timeout / 1e9,
                   describe().c_str()));
      sched_yield();
    }
  }
  return cclSuccess;
}

cclResult_t IbNet::post(int peer, uint32_t qpi, uint64_t dst, uint32_t rkey,
                        const void *src, uint32_t lkey, uint64_t bytes,
                        int slot, bool data, bool inlined) {
  Peer &p = peers_[peer];
  if (cclResult_t r = waitUntil([&] { return p.outstanding[qpi] < depth_; },
                                "room in the send queue to", peer);
      r != cclSuccess)
    return r;
  ibv_sge sge;
  sge.addr = reinterpret_cast<uintptr_t>(src);
  sge.length = (uint32_t)bytes;
  sge.lkey = lkey;
  ibv_send_wr wr, *bad = nullptr;
  memset(&wr, 0, sizeof wr);
  const uint64_t id = nextId_++;
  wr.wr_id = id;
  wr.sg_list = &sge;
  wr.num_sge = bytes ? 1 : 0;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED | (inlined ? IBV_SEND_INLINE : 0);
  wr.wr.rdma.remote_addr = dst;
  wr.wr.rdma.rkey = rkey;
  inflight_[id] = Inflight{peer, qpi, slot, data};
  if (int e = ibv_post_send(p.qps[qpi], &wr, &bad)) {
    inflight_.erase(id);
    return failWith(cclSystemError,
                    format("the RDMA transport: posting an RDMA write of "
                           "%" PRIu64 " bytes to %s on queue pair %u: %s",
                           bytes, s_->boot->describe(peer).c_str(), qpi,
                           strerror(e)));
  }
  p.outstanding[qpi]++;
  if (data)
    p.posted++;
  return cclSuccess;
}

cclResult_t IbNet::put(int peer, uint64_t dst, const void *src,
                       uint64_t bytes) {
  MemoryAccess *mem;
  if (cclResult_t r = bounce(&mem); r != cclSuccess)
    return r;
  std::lock_guard<std::mutex> lk(mu_);
  if (!failure_.empty())
    return setError(cclSystemError, failure_);
  auto pit = peers_.find(peer);
  if (pit == peers_.end() || !pit->second.connected)
    return setError(
        cclInternalError,
        format("the RDMA transport: no connection to rank %d", peer));
  Peer &p = pit->second;
  if (bytes == 0)
    return cclSuccess; // nothing lands; a signal after it needs nothing
  uint32_t rkey;
  if (!remoteKey(p, dst, bytes, &rkey))
    return setError(cclInternalError,
                    format("the RDMA transport: %" PRIu64 " bytes at 0x%" PRIx64
                           " are not in a registered arena of %s",
                           bytes, dst, s_->boot->describe(peer).c_str()));
  const char *s = static_cast<const char *>(src);
  ibv_mr *inPlace = localMr(src, bytes);
  for (uint64_t off = 0; off < bytes; off += kIbPiece) {
    const uint64_t n = bytes - off < kIbPiece ? bytes - off : kIbPiece;
    const uint32_t qpi = (uint32_t)(p.next++ % p.qps.size());
    if (inPlace) {
      if (cclResult_t r = post(peer, qpi, dst + off, rkey, s + off,
                               inPlace->lkey, n, -1, true, false);
          r != cclSuccess)
        return r;
      continue;
    }
    // A free bounce slot, then the piece copied into it.
    int slot = -1;
    if (cclResult_t r = waitUntil(
            [&] {
              for (int i = 0; i < kIbSlots; i++)
                if (!slotBusy_[(size_t)i]) {
                  slot = i;
                  return true;
                }
              return false;
            },
            "a free bounce buffer for a write to", peer);
        r != cclSuccess)
      return r;
    char *into = static_cast<char *>(bounce_) + (size_t)slot * kIbPiece;
    if (mem->direct())
      memcpy(into, s + off, n);
    else if (cclResult_t r = mem->toHost(into, s + off, n); r != cclSuccess)
      return failWith(r, cclGetLastError());
    slotBusy_[(size_t)slot] = true;
    if (cclResult_t r = post(peer, qpi, dst + off, rkey, into, bounceMr_->lkey,
                             n, slot, true, false);
        r != cclSuccess)
      return r;
  }
  return cclSuccess;
}

cclResult_t IbNet::signal(int peer, uint64_t addr, uint64_t value) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!failure_.empty())
    return setError(cclSystemError, failure_);
  auto pit = peers_.find(peer);
  if (pit == peers_.end() || !pit->second.connected)
    return setError(
        cclInternalError,
        format("the RDMA transport: no connection to rank %d", peer));
  Peer &p = pit->second;
  uint32_t rkey;
  if ((addr & 7) || !remoteKey(p, addr, 8, &rkey))
    return setError(cclInternalError,
                    format("the RDMA transport: the counter at 0x%" PRIx64
                           " is not in a registered arena of %s",
                           addr, s_->boot->describe(peer).c_str()));
  // Every earlier write to the peer has landed (they may be spread over
  // several queue pairs), then the count.
  const uint64_t need = p.posted;
  if (cclResult_t r = waitUntil([&] { return p.completed >= need; },
                                "the writes before a signal to", peer);
      r != cclSuccess)
    return r;
  // A source word no work request still reads (when the queue pairs take
  // no inline data, the adapter reads it after the post).
  const size_t w = sigSeq_++ % kIbSignalSlots;
  if (cclResult_t r = waitUntil([&] { return !inflight_.count(sigWr_[w]); },
                                "an earlier signal to", peer);
      r != cclSuccess)
    return r;
  sigBuf_[w] = value;
  sigWr_[w] = nextId_;
  return post(peer, 0, addr, rkey, &sigBuf_[w], sigMr_->lkey, 8, -1, false,
              maxInline_ >= 8);
}

cclResult_t IbNet::complete(int peer, uint64_t *local, uint64_t value) {
  MemoryAccess *mem;
  if (cclResult_t r = bounce(&mem); r != cclSuccess)
    return r;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!failure_.empty())
      return setError(cclSystemError, failure_);
    Peer &p = peers_[peer];
    const uint64_t need = p.posted;
    if (cclResult_t r = waitUntil([&] { return p.completed >= need; },
                                  "the writes of a flush to", peer);
        r != cclSuccess)
      return r;
  }
  if (mem->direct()) {
    __atomic_store_n(local, value, __ATOMIC_RELEASE);
    hostRing();
    return cclSuccess;
  }
  return mem->store(local, value);
}

void IbNet::drain() {
  std::lock_guard<std::mutex> lk(mu_);
  if (stopped_ || !failure_.empty())
    return;
  // Bounded by the communicator's timeout; a failure here is already
  // reported by whoever waits for these writes.
  (void)waitUntil([&] { return inflight_.empty(); }, "the last writes of", me_);
}

} // namespace cclrt
