// fake_libibverbs.cc - a TEST DOUBLE of rdma-core's libibverbs.so.1 for
// machines without an RDMA NIC. It is used only by tests: they dlopen() it
// (the runtime takes its path from CCL_IBVERBS_LIB) in place of the real
// library. Its "NIC" performs RDMA WRITEs between processes of one machine
// by copying bytes over Unix sockets; nothing here touches real hardware.
//
// Model. Each process runs one NIC thread (started at the first
// ibv_open_device) listening on the abstract Unix socket
// "\0ccl-fake-ibv-<pid>". A GID names a process: bytes 0..7 are "CCLFAKE\0",
// bytes 8..15 the pid (little-endian). A QP moved to RTR with such a GID as
// ah_attr.grh.dgid sends to that process: at its first post it connects one
// socket (kept until the QP is destroyed or reset) with an ack-reader thread;
// ibv_post_send writes each WR's header and payload to the socket before it
// returns (so the source may be reused at once). The target checks the
// destination QP (RTR/RTS, remote write allowed) and the rkey (an MR of that
// QP's PD with IBV_ACCESS_REMOTE_WRITE covering the range), applies the
// write with memcpy (an aligned 8-byte write is one release store) and acks;
// only then is the completion queued, so IBV_WC_SUCCESS means the bytes are
// in the target's memory. Writes of one QP are applied in post order. Only
// RC QPs and RDMA_WRITE[_WITH_IMM] exist (the immediate is dropped).
//
// Errors. A failed WR moves its QP to ERR; WRs still outstanding or posted
// later complete with IBV_WC_WR_FLUSH_ERR (signaled or not), or with
// IBV_WC_RETRY_EXC_ERR when the target process is gone (connection refused
// or broken) or drop_after is hit. A write to a QP still in RESET/INIT is
// held ~1 s for it to reach RTR (as a NIC's retries would), then rejected.
// Not modelled: a stopped (not dead) peer stalls post_send of large writes
// once the socket buffer is full.
//
// Environment (read at each call):
//   CCL_FAKE_IBV_DEVICES  number of devices "fake_ibv0", ... (default 1).
//   CCL_FAKE_IBV_FAULT    "open": ibv_open_device fails (ENODEV);
//                         "reg_mr": ibv_reg_mr fails (EFAULT);
//                         "rtr": modifying a QP to RTR fails (ETIMEDOUT);
//                         "rkey": this process, as a target, rejects every
//                           incoming write (remote access error);
//                         "drop_after=N": this process's NIC sends N writes,
//                           then completes every further one with
//                           IBV_WC_RETRY_EXC_ERR.
#include <infiniband/verbs.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <vector>

#define EXPORT extern "C" __attribute__((visibility("default")))

namespace {

constexpr uint32_t kMaxQpWr = 4096, kMaxSge = 4, kMaxCqe = 65536;
constexpr uint32_t kMaxQp = 1024, kMaxInline = 1024, kMinInline = 64;
constexpr uint64_t kMaxMsg = 1u << 30;
constexpr size_t kChunk = 256 << 10; // the target's copy granularity
constexpr char kGidTag[8] = {'C', 'C', 'L', 'F', 'A', 'K', 'E', '\0'};
using Lock = std::lock_guard<std::mutex>;

template <class T> T *fail(int e) { // NULL-returning verbs report in errno
  errno = e;
  return nullptr;
}

const char *fault() {
  const char *s = getenv("CCL_FAKE_IBV_FAULT");
  return s ? s : "";
}
bool fault_is(const char *f) { return !strcmp(fault(), f); }

// ---- Objects: each derives from the verbs struct it hands out ---------------

struct Pd : ibv_pd {
  std::atomic<int> users{0}; // MRs and QPs
};
struct Mr : ibv_mr {
  int access = 0;
};
struct Completion : ibv_wc {};
struct Cq : ibv_cq {
  std::atomic<int> users{0}; // QPs
  std::mutex mu;
  std::deque<Completion> q; // grows past cqe instead of overflowing
};
struct SendWr { // a send-queue slot, held until acked (or failed)
  uint64_t seq, wr_id;
  uint32_t len;
  bool signaled, done;
  ibv_wc_status status;
};
struct Qp : ibv_qp {
  std::mutex send_mu; // serialises posts, and so the connection's stream
  std::mutex mu;      // guards `state` (of ibv_qp) and the fields below
  std::deque<SendWr> sq;
  uint64_t next_seq = 1;
  ibv_wc_status flush_status = IBV_WC_WR_FLUSH_ERR; // for WRs posted in ERR
  uint32_t max_send_wr = 0, max_inline = 0, dest_qpn = 0;
  bool sig_all = false;
  int access = 0;
  uint64_t dest_pid = 0;
  int fd = -1; // connection to the target's NIC (under send_mu)
  pthread_t reader{};
  bool has_reader = false;
  std::atomic<bool> closing{false};
};

// Process-wide state, leaked on purpose: NIC threads may outlive static
// destruction at exit.
struct Global {
  std::mutex mu; // lock order: Global::mu, then Qp::mu, then Cq::mu
  std::vector<ibv_device *> devices; // never freed: lists point into them
  std::unordered_map<uint32_t, Mr *> by_lkey, by_rkey;
  std::unordered_map<uint32_t, Qp *> qps;
  uint32_t next_qpn = 0;
  uint64_t rng = 0x2545f4914f6cdd1dull;
  pid_t nic_pid = 0; // the process whose NIC thread runs (fork changes it)
  std::atomic<uint64_t> writes_sent{0};
};
Global &G() {
  static Global *g = new Global;
  return *g;
}

uint32_t new_key_locked(Global &g) {
  for (;;) { // xorshift64: random-ish, never 0, unique among lkeys/rkeys
    g.rng ^= g.rng << 13, g.rng ^= g.rng >> 7, g.rng ^= g.rng << 17;
    uint32_t k = (uint32_t)(g.rng >> 16);
    if (k && !g.by_lkey.count(k) && !g.by_rkey.count(k))
      return k;
  }
}

bool in_mr(const ibv_mr &m, uint64_t addr, uint64_t len) {
  uint64_t lo = (uintptr_t)m.addr;
  return addr >= lo && len <= m.length && addr - lo <= m.length - len;
}

// ---- Wire format and socket helpers -----------------------------------------

struct WriteHdr { // followed by `len` payload bytes
  uint32_t magic, dest_qpn;
  uint64_t seq, remote_addr, len;
  uint32_t rkey, pad;
};
struct Ack {
  uint64_t seq;
  uint32_t status, pad;
};
constexpr uint32_t kMagic = 0x43434c57;
enum : uint32_t { kAckOk, kAckRemAccess, kAckFlushed };

socklen_t nic_addr(uint64_t pid, sockaddr_un *a) {
  memset(a, 0, sizeof *a);
  a->sun_family = AF_UNIX; // abstract: sun_path[0] stays '\0'
  int n = snprintf(a->sun_path + 1, sizeof a->sun_path - 1,
                   "ccl-fake-ibv-%" PRIu64, pid);
  return (socklen_t)(offsetof(sockaddr_un, sun_path) + 1 + n);
}

bool read_full(int fd, void *p, size_t n) {
  for (char *c = static_cast<char *>(p); n;) {
    ssize_t r = recv(fd, c, n, 0);
    if (r <= 0 && !(r < 0 && errno == EINTR))
      return false;
    if (r > 0)
      c += r, n -= (size_t)r;
  }
  return true;
}

bool send_all(int fd, iovec *iov, int cnt) {
  while (cnt > 0) {
    msghdr m{};
    m.msg_iov = iov, m.msg_iovlen = (size_t)cnt;
    ssize_t r = sendmsg(fd, &m, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return false;
    for (; cnt > 0 && (size_t)r >= iov->iov_len; ++iov, --cnt)
      r -= (ssize_t)iov->iov_len;
    if (cnt > 0)
      iov->iov_base = (char *)iov->iov_base + r, iov->iov_len -= (size_t)r;
  }
  return true;
}

bool spawn(void *(*fn)(void *), void *arg, pthread_t *joinable) {
  pthread_t t;
  if (pthread_create(&t, nullptr, fn, arg))
    return false;
  if (joinable)
    *joinable = t;
  else
    pthread_detach(t);
  return true;
}

// ---- Target side: the NIC thread and one thread per incoming connection -----

// Whether a write may land: destination QP in RTR/RTS with remote write
// allowed; rkey an MR of that QP's PD with remote write covering the range
// (a zero-length write checks no rkey, as in the IB spec). Checked under the
// lock, copied after it: deregistering an MR that a write is landing in is a
// caller bug, as on real hardware.
enum Verdict { kApply, kReject, kNotReady };
Verdict check_write(const WriteHdr &h) {
  Global &g = G();
  Lock l(g.mu);
  auto qi = g.qps.find(h.dest_qpn);
  if (qi == g.qps.end())
    return kReject;
  Qp *q = qi->second;
  {
    Lock ql(q->mu);
    if (q->state == IBV_QPS_RESET || q->state == IBV_QPS_INIT)
      return kNotReady;
    if ((q->state != IBV_QPS_RTR && q->state != IBV_QPS_RTS) ||
        !(q->access & IBV_ACCESS_REMOTE_WRITE))
      return kReject;
  }
  if (h.len == 0)
    return kApply;
  auto mi = g.by_rkey.find(h.rkey);
  return mi != g.by_rkey.end() &&
                 (mi->second->access & IBV_ACCESS_REMOTE_WRITE) &&
                 mi->second->pd == q->pd &&
                 in_mr(*mi->second, h.remote_addr, h.len)
             ? kApply
             : kReject;
}

// A destination QP still in RESET/INIT is waited for up to ~1 s, as a real
// sender's retries would (the peer may not have reached RTR yet).
bool target_allows(const WriteHdr &h) {
  Verdict v = check_write(h);
  for (int i = 0; v == kNotReady && i < 1000; ++i)
    usleep(1000), v = check_write(h);
  return v == kApply;
}

// Frames of one connection (= one sending QP) are applied and acked in
// order. After a rejected write, later frames are drained unapplied and
// acked as flushed: the sender's QP is in error by then.
void *target_conn(void *arg) {
  int fd = (int)(intptr_t)arg;
  char *buf = nullptr;
  bool rejecting = false;
  WriteHdr h;
  while (read_full(fd, &h, sizeof h) && h.magic == kMagic) {
    bool ok = !rejecting && !fault_is("rkey") && target_allows(h);
    char *dst = (char *)(uintptr_t)h.remote_addr;
    uint64_t left = h.len;
    bool alive = true;
    if (ok && h.len == 8 && h.remote_addr % 8 == 0) {
      uint64_t v; // 64-bit counters: one release store, for acquire pollers
      if ((alive = read_full(fd, &v, 8)))
        __atomic_store_n((uint64_t *)dst, v, __ATOMIC_RELEASE);
      left = 0;
    }
    if (left && !buf && !(buf = static_cast<char *>(malloc(kChunk))))
      break;
    while (alive && left) {
      size_t n = left < kChunk ? (size_t)left : kChunk;
      if ((alive = read_full(fd, buf, n)) && ok) {
        memcpy(dst, buf, n);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        dst += n;
      }
      left -= n;
    }
    Ack a{h.seq, ok ? kAckOk : rejecting ? kAckFlushed : kAckRemAccess, 0};
    rejecting |= !ok;
    iovec iov{&a, sizeof a};
    if (!alive || !send_all(fd, &iov, 1))
      break;
  }
  free(buf);
  close(fd);
  return nullptr;
}

void *nic_listener(void *arg) {
  int lfd = (int)(intptr_t)arg;
  for (;;) { // blocks in accept; lives as long as the process
    int fd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0 && !spawn(target_conn, (void *)(intptr_t)fd, nullptr))
      close(fd);
    if (fd < 0 && errno != EINTR && errno != ECONNABORTED)
      usleep(10000); // e.g. EMFILE: back off rather than spin
  }
  return nullptr;
}

int ensure_nic_locked(Global &g) {
  pid_t pid = getpid();
  if (g.nic_pid == pid) // threads do not survive fork: restart in a child
    return 0;
  sockaddr_un a;
  socklen_t n = nic_addr((uint64_t)pid, &a);
  int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (lfd < 0 || bind(lfd, (sockaddr *)&a, n) || listen(lfd, SOMAXCONN) ||
      !spawn(nic_listener, (void *)(intptr_t)lfd, nullptr)) {
    int e = errno ? errno : EIO;
    if (lfd >= 0)
      close(lfd);
    return e;
  }
  g.nic_pid = pid;
  g.writes_sent = 0;
  g.rng ^= ((uint64_t)pid << 32) ^ (uint64_t)time(nullptr); // keys per process
  return 0;
}

// ---- Sender side ------------------------------------------------------------
// Hands finished WRs at the head of the send queue to the CQ, in post order.
void drain_locked(Qp *q) {
  Cq *cq = static_cast<Cq *>(q->send_cq);
  while (!q->sq.empty() && q->sq.front().done) {
    const SendWr &w = q->sq.front();
    if (w.signaled || w.status != IBV_WC_SUCCESS) { // errors always show
      Completion c{};
      c.wr_id = w.wr_id, c.status = w.status, c.opcode = IBV_WC_RDMA_WRITE;
      c.byte_len = w.len, c.qp_num = q->qp_num;
      Lock l(cq->mu);
      cq->q.push_back(c);
    }
    q->sq.pop_front();
  }
}

// Moves the QP to ERR: its unfinished WRs from index `from` on complete with
// `st`, and WRs posted later with `later`.
void fail_from_locked(Qp *q, size_t from, ibv_wc_status st,
                      ibv_wc_status later) {
  q->state = IBV_QPS_ERR;
  q->flush_status = later;
  for (size_t i = from; i < q->sq.size(); ++i)
    if (!q->sq[i].done)
      q->sq[i].done = true, q->sq[i].status = st;
  drain_locked(q);
}

void *sender_reader(void *arg) {
  Qp *q = static_cast<Qp *>(arg);
  Ack a;
  while (read_full(q->fd, &a, sizeof a)) {
    Lock l(q->mu);
    for (size_t i = 0; i < q->sq.size(); ++i) {
      SendWr &w = q->sq[i];
      if (w.seq != a.seq || w.done) // done: already failed locally
        continue;
      w.done = true;
      w.status = a.status == kAckOk          ? IBV_WC_SUCCESS
                 : a.status == kAckRemAccess ? IBV_WC_REM_ACCESS_ERR
                                             : IBV_WC_WR_FLUSH_ERR;
      if (w.status != IBV_WC_SUCCESS)
        fail_from_locked(q, i + 1, IBV_WC_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR);
      break;
    }
    drain_locked(q);
  }
  if (!q->closing) { // the target died: nothing outstanding will be acked
    Lock l(q->mu);
    fail_from_locked(q, 0, IBV_WC_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR);
  }
  return nullptr;
}

bool qp_connect(Qp *q) { // send_mu held
  sockaddr_un a;
  socklen_t n = nic_addr(q->dest_pid, &a);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), r = -1;
  while (fd >= 0 && (r = connect(fd, (sockaddr *)&a, n)) != 0 && errno == EINTR)
    ;
  q->fd = fd, q->closing = false;
  if (r == 0 && spawn(sender_reader, q, &q->reader))
    return q->has_reader = true;
  if (fd >= 0)
    close(fd);
  q->fd = -1;
  return false;
}

void qp_disconnect(Qp *q) { // send_mu held, mu not held
  if (q->fd < 0)
    return;
  q->closing = true;
  shutdown(q->fd, SHUT_RDWR);
  if (q->has_reader)
    pthread_join(q->reader, nullptr);
  close(q->fd);
  q->fd = -1, q->has_reader = false;
}

bool lkeys_cover(Qp *q, const ibv_send_wr *wr) {
  Global &g = G();
  Lock l(g.mu);
  for (int i = 0; i < wr->num_sge; ++i) {
    const ibv_sge &s = wr->sg_list[i];
    auto it = g.by_lkey.find(s.lkey);
    if (s.length && (it == g.by_lkey.end() || it->second->pd != q->pd ||
                     !in_mr(*it->second, s.addr, s.length)))
      return false;
  }
  return true;
}

int post_one(Qp *q, const ibv_send_wr *wr) { // send_mu held
  if ((wr->opcode != IBV_WR_RDMA_WRITE &&
       wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM) ||
      wr->num_sge < 0 || (uint32_t)wr->num_sge > kMaxSge ||
      (wr->num_sge > 0 && !wr->sg_list))
    return EINVAL;
  uint64_t len = 0;
  for (int i = 0; i < wr->num_sge; ++i)
    len += wr->sg_list[i].length;
  bool inl = wr->send_flags & IBV_SEND_INLINE;
  bool sig = q->sig_all || (wr->send_flags & IBV_SEND_SIGNALED);
  SendWr w{0, wr->wr_id, (uint32_t)len, sig, false, IBV_WC_SUCCESS};
  {
    Lock l(q->mu);
    if ((q->state != IBV_QPS_RTS && q->state != IBV_QPS_ERR) ||
        (inl && len > q->max_inline) || len > kMaxMsg)
      return EINVAL;
    if (q->sq.size() >= q->max_send_wr) // unacked WRs hold their slots
      return ENOMEM;
    if (q->state == IBV_QPS_ERR) { // flushed, even if unsignaled
      w.seq = q->next_seq++, w.done = true, w.status = q->flush_status;
      q->sq.push_back(w);
      drain_locked(q);
      return 0;
    }
  }
  uint64_t drop_after = UINT64_MAX;
  sscanf(fault(), "drop_after=%" SCNu64, &drop_after);
  if (!inl && !lkeys_cover(q, wr))
    w.status = IBV_WC_LOC_PROT_ERR;
  else if (G().writes_sent++ >= drop_after || (q->fd < 0 && !qp_connect(q)))
    w.status = IBV_WC_RETRY_EXC_ERR;
  {
    Lock l(q->mu);
    w.seq = q->next_seq++, w.done = w.status != IBV_WC_SUCCESS;
    q->sq.push_back(w);
    if (w.done) { // earlier WRs still finish on their acks
      q->state = IBV_QPS_ERR;
      q->flush_status =
          w.status == IBV_WC_RETRY_EXC_ERR ? w.status : IBV_WC_WR_FLUSH_ERR;
      drain_locked(q);
      return 0;
    }
  }
  WriteHdr h{kMagic, q->dest_qpn,      w.seq, wr->wr.rdma.remote_addr,
             len,    wr->wr.rdma.rkey, 0};
  iovec iov[1 + kMaxSge] = {{&h, sizeof h}};
  for (int i = 0; i < wr->num_sge; ++i)
    iov[1 + i] = {(void *)(uintptr_t)wr->sg_list[i].addr,
                  wr->sg_list[i].length};
  if (!send_all(q->fd, iov, 1 + wr->num_sge)) { // the target is gone
    Lock l(q->mu);
    fail_from_locked(q, 0, IBV_WC_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR);
  }
  return 0;
}

// ---- ibv_context.ops --------------------------------------------------------
int op_post_send(ibv_qp *qp, ibv_send_wr *wr, ibv_send_wr **bad_wr) {
  Qp *q = static_cast<Qp *>(qp);
  Lock l(q->send_mu);
  for (; wr; wr = wr->next) {
    if (int e = post_one(q, wr)) {
      if (bad_wr)
        *bad_wr = wr;
      return e;
    }
  }
  return 0;
}

int op_post_recv(ibv_qp *, ibv_recv_wr *wr, ibv_recv_wr **bad_wr) {
  if (bad_wr) // there is no receive side: only RDMA WRITE exists
    *bad_wr = wr;
  return EOPNOTSUPP;
}

int op_poll_cq(ibv_cq *ibcq, int n, ibv_wc *wc) {
  Cq *cq = static_cast<Cq *>(ibcq);
  Lock l(cq->mu);
  int k = 0;
  for (; k < n && !cq->q.empty(); ++k, cq->q.pop_front())
    wc[k] = cq->q.front();
  return k;
}

int op_req_notify_cq(ibv_cq *, int) { return EOPNOTSUPP; }

} // namespace

// ---- Exported entry points --------------------------------------------------

EXPORT ibv_device **ibv_get_device_list(int *num_devices) {
  const char *env = getenv("CCL_FAKE_IBV_DEVICES");
  long n = env && *env ? strtol(env, nullptr, 10) : 1;
  n = n < 0 ? 0 : n > 64 ? 64 : n;
  auto **list =
      static_cast<ibv_device **>(calloc((size_t)n + 1, sizeof(void *)));
  if (!list)
    return fail<ibv_device *>(ENOMEM);
  Global &g = G();
  Lock l(g.mu);
  while ((long)g.devices.size() < n) {
    int i = (int)g.devices.size();
    ibv_device *d = new ibv_device{};
    d->node_type = IBV_NODE_CA, d->transport_type = IBV_TRANSPORT_IB;
    snprintf(d->name, sizeof d->name, "fake_ibv%d", i);
    snprintf(d->dev_name, sizeof d->dev_name, "uverbs%d", i);
    g.devices.push_back(d);
  }
  for (long i = 0; i < n; ++i)
    list[i] = g.devices[(size_t)i];
  if (num_devices)
    *num_devices = (int)n;
  return list;
}

EXPORT void ibv_free_device_list(ibv_device **list) { free(list); }

EXPORT const char *ibv_get_device_name(ibv_device *device) {
  return device ? device->name : nullptr;
}

EXPORT ibv_context *ibv_open_device(ibv_device *device) {
  Global &g = G();
  if (fault_is("open"))
    return fail<ibv_context>(ENODEV);
  Lock l(g.mu);
  bool ours = false;
  for (ibv_device *d : g.devices)
    ours |= d == device;
  if (!ours)
    return fail<ibv_context>(ENODEV);
  if (int e = ensure_nic_locked(g))
    return fail<ibv_context>(e);
  ibv_context *c = new ibv_context{};
  c->device = device;
  c->ops.post_send = op_post_send;
  c->ops.post_recv = op_post_recv;
  c->ops.poll_cq = op_poll_cq;
  c->ops.req_notify_cq = op_req_notify_cq;
  c->cmd_fd = c->async_fd = -1;
  c->num_comp_vectors = 1;
  c->abi_compat = nullptr; // not a verbs_context: no extended ops
  pthread_mutex_init(&c->mutex, nullptr);
  return c;
}

EXPORT int ibv_close_device(ibv_context *ctx) {
  pthread_mutex_destroy(&ctx->mutex);
  delete ctx; // the NIC thread stays: it belongs to the process
  return 0;
}

EXPORT int ibv_query_device(ibv_context *ctx, ibv_device_attr *a) {
  if (!ctx || !a)
    return EINVAL;
  memset(a, 0, sizeof *a);
  snprintf(a->fw_ver, sizeof a->fw_ver, "fake-1.0");
  a->node_guid = a->sys_image_guid = (uint64_t)getpid();
  a->max_mr_size = 1ull << 46;
  a->page_size_cap = 4096;
  a->max_qp = (int)kMaxQp, a->max_qp_wr = (int)kMaxQpWr;
  a->max_sge = (int)kMaxSge;
  a->max_cq = 1024, a->max_cqe = (int)kMaxCqe;
  a->max_mr = 1 << 16, a->max_pd = 1024;
  a->max_qp_rd_atom = a->max_qp_init_rd_atom = 16;
  a->max_pkeys = 1, a->phys_port_cnt = 1;
  return 0;
}

// Callers pass a full struct ibv_port_attr; only the prefix that rdma-core's
// struct _compat_ibv_port_attr has (everything before port_cap_flags2) is
// written.
EXPORT int(ibv_query_port)(ibv_context *ctx, uint8_t port,
                           _compat_ibv_port_attr *attr) {
  if (!ctx || !attr || port != 1)
    return EINVAL;
  auto *p = reinterpret_cast<ibv_port_attr *>(attr);
  memset(p, 0, offsetof(ibv_port_attr, port_cap_flags2));
  p->state = IBV_PORT_ACTIVE;
  p->max_mtu = p->active_mtu = IBV_MTU_4096;
  p->gid_tbl_len = 1, p->pkey_tbl_len = 1;
  p->max_msg_sz = (uint32_t)kMaxMsg;
  p->lid = 0;
  p->phys_state = 5;                       // LinkUp
  p->link_layer = IBV_LINK_LAYER_ETHERNET; // so that callers use the GID
  return 0;
}

EXPORT int ibv_query_gid(ibv_context *ctx, uint8_t port, int index,
                         ibv_gid *gid) {
  if (!ctx || !gid || port != 1 || index != 0) {
    errno = EINVAL; // rdma-core returns -1 with errno here
    return -1;
  }
  uint64_t pid = (uint64_t)getpid();
  memcpy(gid->raw, kGidTag, 8);
  for (int i = 0; i < 8; ++i)
    gid->raw[8 + i] = (uint8_t)(pid >> (8 * i));
  return 0;
}

EXPORT ibv_pd *ibv_alloc_pd(ibv_context *ctx) {
  Pd *p = new Pd{};
  p->context = ctx;
  return p;
}

EXPORT int ibv_dealloc_pd(ibv_pd *pd) {
  if (static_cast<Pd *>(pd)->users.load())
    return EBUSY;
  delete static_cast<Pd *>(pd);
  return 0;
}

EXPORT ibv_mr *(ibv_reg_mr)(ibv_pd * pd, void *addr, size_t length,
                            int access) {
  if (fault_is("reg_mr"))
    return fail<ibv_mr>(EFAULT);
  if (!pd || !addr || !length || // remote write needs local write, as ever
      ((access & IBV_ACCESS_REMOTE_WRITE) &&
       !(access & IBV_ACCESS_LOCAL_WRITE)))
    return fail<ibv_mr>(EINVAL);
  Mr *m = new Mr{};
  m->context = pd->context, m->pd = pd;
  m->addr = addr, m->length = length, m->access = access;
  Global &g = G();
  Lock l(g.mu);
  m->handle = m->lkey = new_key_locked(g);
  g.by_lkey.emplace(m->lkey, m);
  m->rkey = new_key_locked(g);
  g.by_rkey.emplace(m->rkey, m);
  static_cast<Pd *>(pd)->users++;
  return m;
}

EXPORT int ibv_dereg_mr(ibv_mr *mr) {
  {
    Lock l(G().mu);
    G().by_lkey.erase(mr->lkey);
    G().by_rkey.erase(mr->rkey);
  }
  static_cast<Pd *>(mr->pd)->users--;
  delete static_cast<Mr *>(mr);
  return 0;
}

EXPORT ibv_cq *ibv_create_cq(ibv_context *ctx, int cqe, void *cq_context,
                             ibv_comp_channel *, int) { // channel: ignored
  if (!ctx || cqe < 1 || (uint32_t)cqe > kMaxCqe)
    return fail<ibv_cq>(EINVAL);
  Cq *c = new Cq{};
  c->context = ctx, c->cq_context = cq_context, c->cqe = cqe;
  pthread_mutex_init(&c->mutex, nullptr);
  pthread_cond_init(&c->cond, nullptr);
  return c;
}

EXPORT int ibv_destroy_cq(ibv_cq *cq) {
  if (static_cast<Cq *>(cq)->users.load())
    return EBUSY;
  pthread_mutex_destroy(&cq->mutex);
  pthread_cond_destroy(&cq->cond);
  delete static_cast<Cq *>(cq);
  return 0;
}

EXPORT ibv_qp *ibv_create_qp(ibv_pd *pd, ibv_qp_init_attr *a) {
  if (!pd || !a || a->qp_type != IBV_QPT_RC || !a->send_cq || a->srq ||
      a->cap.max_send_wr > kMaxQpWr || a->cap.max_recv_wr > kMaxQpWr ||
      a->cap.max_send_sge > kMaxSge || a->cap.max_recv_sge > kMaxSge ||
      a->cap.max_inline_data > kMaxInline)
    return fail<ibv_qp>(EINVAL);
  if (a->cap.max_inline_data < kMinInline)
    a->cap.max_inline_data = kMinInline; // as drivers do, report what we give
  Qp *q = new Qp{};
  q->context = pd->context, q->qp_context = a->qp_context, q->pd = pd;
  q->send_cq = a->send_cq, q->recv_cq = a->recv_cq;
  q->state = IBV_QPS_RESET, q->qp_type = IBV_QPT_RC;
  q->max_send_wr = a->cap.max_send_wr, q->max_inline = a->cap.max_inline_data;
  q->sig_all = a->sq_sig_all != 0;
  pthread_mutex_init(&q->mutex, nullptr);
  pthread_cond_init(&q->cond, nullptr);
  {
    Global &g = G();
    Lock l(g.mu);
    if (g.qps.size() >= kMaxQp) {
      delete q;
      return fail<ibv_qp>(ENOMEM);
    }
    if (!g.next_qpn) // 24-bit, nonzero, unique in the process
      g.next_qpn = ((uint32_t)getpid() * 977u) & 0xffffff;
    do
      g.next_qpn = (g.next_qpn + 1) & 0xffffff;
    while (!g.next_qpn || g.qps.count(g.next_qpn));
    q->qp_num = q->handle = g.next_qpn;
    g.qps.emplace(q->qp_num, q);
  }
  static_cast<Pd *>(pd)->users++;
  static_cast<Cq *>(a->send_cq)->users++;
  if (a->recv_cq)
    static_cast<Cq *>(a->recv_cq)->users++;
  return q;
}

EXPORT int ibv_destroy_qp(ibv_qp *qp) {
  Qp *q = static_cast<Qp *>(qp);
  {
    Lock l(G().mu); // first, so that incoming writes stop finding it
    G().qps.erase(q->qp_num);
  }
  {
    Lock l(q->send_mu);
    qp_disconnect(q);
  }
  static_cast<Pd *>(q->pd)->users--;
  static_cast<Cq *>(q->send_cq)->users--;
  if (q->recv_cq)
    static_cast<Cq *>(q->recv_cq)->users--;
  pthread_mutex_destroy(&q->mutex);
  pthread_cond_destroy(&q->cond);
  delete q;
  return 0;
}

EXPORT int ibv_modify_qp(ibv_qp *qp, ibv_qp_attr *attr, int mask) {
  Qp *q = static_cast<Qp *>(qp);
  if (!attr || !(mask & IBV_QP_STATE))
    return EINVAL;
  ibv_qp_state to = attr->qp_state;
  if (to == IBV_QPS_RESET) { // drops the connection and the send queue
    Lock sl(q->send_mu);
    qp_disconnect(q);
    Lock l(q->mu);
    q->sq.clear();
    q->state = IBV_QPS_RESET, q->flush_status = IBV_WC_WR_FLUSH_ERR;
    return 0;
  }
  Lock l(q->mu);
  if (to == IBV_QPS_ERR) {
    fail_from_locked(q, 0, IBV_WC_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR);
    return 0;
  }
  ibv_qp_state cur = q->state;
  auto has = [mask](int m) { return (mask & m) == m; };
  if (to == IBV_QPS_INIT) {
    if ((cur != IBV_QPS_RESET && cur != IBV_QPS_INIT) ||
        (cur == IBV_QPS_RESET &&
         !has(IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) ||
        ((mask & IBV_QP_PORT) && attr->port_num != 1))
      return EINVAL;
    if (mask & IBV_QP_ACCESS_FLAGS)
      q->access = (int)attr->qp_access_flags;
  } else if (to == IBV_QPS_RTR) {
    if (cur != IBV_QPS_INIT ||
        !has(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) ||
        !attr->ah_attr.is_global ||
        memcmp(attr->ah_attr.grh.dgid.raw, kGidTag, 8))
      return EINVAL;
    if (fault_is("rtr"))
      return ETIMEDOUT;
    q->dest_qpn = attr->dest_qp_num, q->dest_pid = 0;
    for (int i = 0; i < 8; ++i) // the GID's pid names the target process
      q->dest_pid |= (uint64_t)attr->ah_attr.grh.dgid.raw[8 + i] << (8 * i);
  } else if (to == IBV_QPS_RTS) {
    if ((cur != IBV_QPS_RTR && cur != IBV_QPS_RTS) ||
        (cur == IBV_QPS_RTR &&
         !has(IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
              IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)))
      return EINVAL;
  } else {
    return EINVAL;
  }
  q->state = to;
  return 0;
}

EXPORT int ibv_query_qp(ibv_qp *qp, ibv_qp_attr *attr, int,
                        ibv_qp_init_attr *init) {
  Qp *q = static_cast<Qp *>(qp);
  if (!attr || !init)
    return EINVAL;
  memset(attr, 0, sizeof *attr);
  memset(init, 0, sizeof *init);
  Lock l(q->mu);
  attr->qp_state = attr->cur_qp_state = q->state;
  attr->qp_access_flags = (unsigned)q->access;
  attr->dest_qp_num = q->dest_qpn, attr->port_num = 1;
  attr->cap.max_send_wr = init->cap.max_send_wr = q->max_send_wr;
  attr->cap.max_inline_data = init->cap.max_inline_data = q->max_inline;
  init->send_cq = q->send_cq, init->qp_type = IBV_QPT_RC;
  return 0;
}

EXPORT const char *ibv_wc_status_str(ibv_wc_status status) {
  // rdma-core's wording, in enum ibv_wc_status order.
  static const char *const str[] = {"success",
                                    "local length error",
                                    "local QP operation error",
                                    "local EE context operation error",
                                    "local protection error",
                                    "Work Request Flushed Error",
                                    "memory management operation error",
                                    "bad response error",
                                    "local access error",
                                    "remote invalid request error",
                                    "remote access error",
                                    "remote operation error",
                                    "transport retry counter exceeded",
                                    "RNR retry counter exceeded",
                                    "local RDD violation error",
                                    "remote invalid RD request",
                                    "aborted error",
                                    "invalid EE context number",
                                    "invalid EE context state",
                                    "fatal error",
                                    "response timeout error",
                                    "general error"};
  static_assert(IBV_WC_REM_ACCESS_ERR == 10 && IBV_WC_GENERAL_ERR == 21, "");
  unsigned i = (unsigned)status;
  return i < sizeof str / sizeof *str ? str[i] : "unknown";
}
