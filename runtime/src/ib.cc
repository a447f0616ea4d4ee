// ib.cc - the rdma-core verbs transport of port channels between hosts
// (see ib.h): loading libibverbs, opening the device, queue pairs,
// registrations and connecting them. Posting and completions are in
// ib_post.cc.
#include "ib.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#include "bootstrap.h"

namespace cclrt {

uint64_t ibNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

namespace {

constexpr uint32_t kMaxQps = 16;
constexpr uint32_t kRecordMagic = 0x43434c49; // "CCLI"

// An unsigned environment variable in [lo, hi], or `def` when unset.
cclResult_t envNumber(const char *name, uint32_t lo, uint32_t hi, uint32_t def,
                      uint32_t *out) {
  *out = def;
  const char *v = getenv(name);
  if (!v || !*v)
    return cclSuccess;
  char *end = nullptr;
  unsigned long n = strtoul(v, &end, 10);
  if (*end || n < lo || n > hi)
    return setError(cclInvalidArgument,
                    format("%s is '%s'; it must be a number from %u to %u",
                           name, v, lo, hi));
  *out = (uint32_t)n;
  return cclSuccess;
}

const char *portStateName(ibv_port_state s) {
  switch (s) {
  case IBV_PORT_DOWN:
    return "down";
  case IBV_PORT_INIT:
    return "initialising";
  case IBV_PORT_ARMED:
    return "armed";
  case IBV_PORT_ACTIVE:
    return "active";
  default:
    return "not active";
  }
}

// The record of one rank for one plan (little-endian, packed by hand).
struct RecordHead {
  uint32_t magic;
  uint32_t nqps;
  uint8_t gid[16];
  uint16_t lid;
  uint16_t pad;
  uint32_t mtu;
  uint64_t arenaBase, arenaBytes;
  uint32_t rkey;
  uint32_t npeers; // then npeers x (rank, qpn[nqps]) as u32
};

} // namespace

// ---------------------------------------------------------------------------
// Loading libibverbs.
// ---------------------------------------------------------------------------

const Verbs *Verbs::load(std::string *err) {
  static std::once_flag once;
  static Verbs verbs;
  static const Verbs *loaded = nullptr;
  static std::string why;
  std::call_once(once, [] {
    const char *env = getenv("CCL_IBVERBS_LIB");
    const char *path = env && *env ? env : "libibverbs.so.1";
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char *e = dlerror();
      why = format("libibverbs could not be loaded (%s%s): %s", path,
                   env && *env ? ", from CCL_IBVERBS_LIB" : "",
                   e ? e : "unknown error");
      return;
    }
    bool ok = true;
    auto sym = [&](auto *fn, const char *name) {
      void *p = dlsym(h, name);
      if (!p && ok) {
        why = format("%s has no %s", path, name);
        ok = false;
      }
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(p);
    };
    sym(&verbs.getDeviceList, "ibv_get_device_list");
    sym(&verbs.freeDeviceList, "ibv_free_device_list");
    sym(&verbs.getDeviceName, "ibv_get_device_name");
    sym(&verbs.openDevice, "ibv_open_device");
    sym(&verbs.closeDevice, "ibv_close_device");
    sym(&verbs.queryDevice, "ibv_query_device");
    sym(&verbs.queryPort, "ibv_query_port");
    sym(&verbs.queryGid, "ibv_query_gid");
    sym(&verbs.allocPd, "ibv_alloc_pd");
    sym(&verbs.deallocPd, "ibv_dealloc_pd");
    sym(&verbs.regMr, "ibv_reg_mr");
    sym(&verbs.deregMr, "ibv_dereg_mr");
    sym(&verbs.createCq, "ibv_create_cq");
    sym(&verbs.destroyCq, "ibv_destroy_cq");
    sym(&verbs.createQp, "ibv_create_qp");
    sym(&verbs.destroyQp, "ibv_destroy_qp");
    sym(&verbs.modifyQp, "ibv_modify_qp");
    sym(&verbs.wcStatusStr, "ibv_wc_status_str");
    if (ok)
      loaded = &verbs;
  });
  if (!loaded && err)
    *err = why;
  return loaded;
}

cclResult_t netChoice(NetChoice *out) {
  *out = NetChoice::kAuto;
  const char *v = getenv("CCL_NET");
  if (!v || !*v || strcmp(v, "auto") == 0)
    return cclSuccess;
  if (strcmp(v, "ib") == 0)
    *out = NetChoice::kIb;
  else if (strcmp(v, "tcp") == 0)
    *out = NetChoice::kTcp;
  else
    return setError(cclInvalidArgument,
                    format("CCL_NET is '%s'; it must be auto, ib or tcp", v));
  return cclSuccess;
}

// ---------------------------------------------------------------------------
// Opening the device.
// ---------------------------------------------------------------------------

cclResult_t IbNet::create(Shared *s, std::unique_ptr<IbNet> *out) {
  std::unique_ptr<IbNet> n(new IbNet(s));
  n->me_ = s->boot->rank();
  if (cclResult_t r = n->open(); r != cclSuccess)
    return r;
  *out = std::move(n);
  return cclSuccess;
}

cclResult_t IbNet::open() {
  std::string err;
  v_ = Verbs::load(&err);
  if (!v_)
    return setError(cclSystemError, "the RDMA transport: " + err);
  if (cclResult_t r = envNumber("CCL_IB_QPS", 1, kMaxQps, 2, &qpsPerPeer_);
      r != cclSuccess)
    return r;
  uint32_t gidIndex;
  if (cclResult_t r = envNumber("CCL_IB_GID_INDEX", 0, 255, 0, &gidIndex);
      r != cclSuccess)
    return r;
  gidIndex_ = (int)gidIndex;
  std::string want;
  int wantPort = 0;
  if (const char *d = getenv("CCL_IB_DEVICE"); d && *d) {
    want = d;
    size_t colon = want.find(':');
    if (colon != std::string::npos) {
      wantPort = atoi(want.c_str() + colon + 1);
      want.resize(colon);
      if (wantPort < 1 || wantPort > 255)
        return setError(cclInvalidArgument,
                        format("CCL_IB_DEVICE is '%s'; it must be NAME or "
                               "NAME:PORT with a port from 1",
                               d));
    }
  }
  int num = 0;
  ibv_device **list = v_->getDeviceList(&num);
  if (!list || num <= 0) {
    if (list)
      v_->freeDeviceList(list);
    return setError(cclSystemError,
                    "the RDMA transport: no RDMA device found "
                    "(ibv_get_device_list returned none; is a NIC driver "
                    "loaded?)");
  }
  std::string seen;
  for (int i = 0; i < num && !ctx_; i++) {
    const char *name = v_->getDeviceName(list[i]);
    if (!want.empty() && want != name)
      continue;
    ibv_context *ctx = v_->openDevice(list[i]);
    if (!ctx) {
      seen += format("%s%s (cannot be opened: %s)", seen.empty() ? "" : ", ",
                     name, strerror(errno));
      continue;
    }
    ibv_device_attr da;
    memset(&da, 0, sizeof da);
    if (v_->queryDevice(ctx, &da) != 0) {
      seen +=
          format("%s%s (cannot be queried)", seen.empty() ? "" : ", ", name);
      v_->closeDevice(ctx);
      continue;
    }
    for (int p = 1; p <= da.phys_port_cnt && !ctx_; p++) {
      if (wantPort && p != wantPort)
        continue;
      ibv_port_attr pa;
      memset(&pa, 0, sizeof pa);
      if (v_->queryPort(ctx, (uint8_t)p,
                        reinterpret_cast<_compat_ibv_port_attr *>(&pa)) != 0)
        continue;
      if (pa.state != IBV_PORT_ACTIVE) {
        seen += format("%s%s port %d (%s)", seen.empty() ? "" : ", ", name, p,
                       portStateName(pa.state));
        continue;
      }
      ibv_gid gid;
      memset(&gid, 0, sizeof gid);
      const bool ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
      if (v_->queryGid(ctx, (uint8_t)p, gidIndex_, &gid) != 0 && ethernet) {
        seen += format("%s%s port %d (no GID at index %d; CCL_IB_GID_INDEX)",
                       seen.empty() ? "" : ", ", name, p, gidIndex_);
        continue;
      }
      ctx_ = ctx;
      devName_ = name;
      port_ = (uint8_t)p;
      gid_ = gid;
      lid_ = pa.lid;
      global_ = ethernet || getenv("CCL_IB_GID_INDEX");
      mtu_ = pa.active_mtu;
      depth_ = da.max_qp_wr > 0 && (uint32_t)da.max_qp_wr < 256
                   ? (uint32_t)da.max_qp_wr
                   : 256;
    }
    if (!ctx_)
      v_->closeDevice(ctx);
  }
  v_->freeDeviceList(list);
  if (!ctx_)
    return setError(
        cclSystemError,
        want.empty() ? format("the RDMA transport: no RDMA device with an "
                              "active port (found: %s)",
                              seen.c_str())
                     : format("the RDMA transport: CCL_IB_DEVICE names "
                              "%s%s, which is not an RDMA device with an "
                              "active port (found: %s)",
                              want.c_str(),
                              wantPort ? format(":%d", wantPort).c_str() : "",
                              seen.empty() ? "nothing else" : seen.c_str()));
  pd_ = v_->allocPd(ctx_);
  if (!pd_)
    return setError(cclSystemError,
                    format("the RDMA transport: ibv_alloc_pd on %s: %s",
                           describe().c_str(), strerror(errno)));
  cq_ = v_->createCq(ctx_, (int)(kMaxQps * depth_ * 4), nullptr, nullptr, 0);
  if (!cq_)
    return setError(cclSystemError,
                    format("the RDMA transport: ibv_create_cq on %s: %s",
                           describe().c_str(), strerror(errno)));
  // The signals' source words, registered once.
  sigBuf_ = static_cast<uint64_t *>(calloc(kIbSignalSlots, sizeof(uint64_t)));
  if (!sigBuf_)
    return setError(cclSystemError, "the RDMA transport: out of memory");
  sigWr_.assign(kIbSignalSlots, 0);
  sigMr_ = v_->regMr(pd_, sigBuf_, kIbSignalSlots * sizeof(uint64_t),
                     IBV_ACCESS_LOCAL_WRITE);
  if (!sigMr_)
    return setError(cclSystemError,
                    format("the RDMA transport: registering host memory on "
                           "%s failed: %s",
                           describe().c_str(), strerror(errno)));
  return cclSuccess;
}

std::string IbNet::describe() const {
  return format("RDMA device %s port %u", devName_.c_str(), (unsigned)port_);
}

IbNet::~IbNet() { stop(); }

void IbNet::stop() {
  std::lock_guard<std::mutex> lk(mu_);
  if (stopped_)
    return;
  stopped_ = true;
  if (!v_)
    return;
  for (auto &kv : peers_)
    for (ibv_qp *qp : kv.second.qps)
      if (qp)
        v_->destroyQp(qp);
  peers_.clear();
  for (auto &kv : local_)
    v_->deregMr(kv.second.mr);
  local_.clear();
  if (bounceMr_)
    v_->deregMr(bounceMr_);
  if (sigMr_)
    v_->deregMr(sigMr_);
  if (cq_)
    v_->destroyCq(cq_);
  if (pd_)
    v_->deallocPd(pd_);
  if (ctx_)
    v_->closeDevice(ctx_);
  bounceMr_ = sigMr_ = nullptr;
  cq_ = nullptr;
  pd_ = nullptr;
  ctx_ = nullptr;
  free(sigBuf_);
  sigBuf_ = nullptr;
  mem_.reset(); // frees the bounce buffer
}

// ---------------------------------------------------------------------------
// Queue pairs and registrations.
// ---------------------------------------------------------------------------

cclResult_t IbNet::createQps(int peer) {
  Peer &p = peers_[peer];
  if (!p.qps.empty())
    return cclSuccess;
  for (uint32_t i = 0; i < qpsPerPeer_; i++) {
    ibv_qp_init_attr ia;
    memset(&ia, 0, sizeof ia);
    ia.send_cq = cq_;
    ia.recv_cq = cq_;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = depth_;
    ia.cap.max_recv_wr = 1;
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    ia.cap.max_inline_data = 64;
    ibv_qp *qp = v_->createQp(pd_, &ia);
    if (!qp) { // without inline data
      ia.cap.max_inline_data = 0;
      qp = v_->createQp(pd_, &ia);
    }
    if (!qp)
      return setError(cclSystemError,
                      format("the RDMA transport: creating queue pair %u to "
                             "%s on %s failed: %s",
                             i, s_->boot->describe(peer).c_str(),
                             describe().c_str(), strerror(errno)));
    maxInline_ = std::min(maxInline_, ia.cap.max_inline_data);
    p.qps.push_back(qp);
    p.outstanding.push_back(0);
    ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = port_;
    a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
    if (int e = v_->modifyQp(qp, &a,
                             IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                                 IBV_QP_ACCESS_FLAGS))
      return setError(cclSystemError,
                      format("the RDMA transport: queue pair %u to %s: "
                             "RESET -> INIT failed: %s",
                             i, s_->boot->describe(peer).c_str(), strerror(e)));
  }
  return cclSuccess;
}

cclResult_t IbNet::prepare(void *base, uint64_t bytes,
                           const std::vector<int> &peers) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!local_.count(reinterpret_cast<uintptr_t>(base))) {
    ibv_mr *mr = v_->regMr(pd_, base, bytes,
                           IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (!mr)
      return setError(
          cclSystemError,
          format("the RDMA transport: registering %" PRIu64 " bytes of %s "
                 "memory at %p with %s failed: %s%s",
                 bytes, s_->target == cclTargetHost ? "host" : "GPU", base,
                 describe().c_str(), strerror(errno),
                 s_->target == cclTargetHost
                     ? ""
                     : " (GPU memory needs GPUDirect RDMA: the nvidia-peermem "
                       "module; CCL_NET=tcp stages through host memory "
                       "instead)"));
    local_[reinterpret_cast<uintptr_t>(base)] =
        LocalRegion{reinterpret_cast<uintptr_t>(base) + bytes, mr};
  }
  for (int q : peers)
    if (cclResult_t r = createQps(q); r != cclSuccess)
      return r;
  return cclSuccess;
}

std::string IbNet::record(void *base, const std::vector<int> &peers) const {
  RecordHead h;
  memset(&h, 0, sizeof h);
  h.magic = kRecordMagic;
  h.nqps = qpsPerPeer_;
  memcpy(h.gid, gid_.raw, 16);
  h.lid = lid_;
  h.mtu = mtu_;
  auto it = local_.find(reinterpret_cast<uintptr_t>(base));
  if (it != local_.end()) {
    h.arenaBase = reinterpret_cast<uintptr_t>(base);
    h.arenaBytes = it->second.end - h.arenaBase;
    h.rkey = it->second.mr->rkey;
  }
  h.npeers = (uint32_t)peers.size();
  std::string r(reinterpret_cast<const char *>(&h), sizeof h);
  for (int q : peers) {
    uint32_t rank = (uint32_t)q;
    r.append(reinterpret_cast<const char *>(&rank), 4);
    auto p = peers_.find(q);
    for (uint32_t i = 0; i < qpsPerPeer_; i++) {
      uint32_t qpn = p != peers_.end() && i < p->second.qps.size()
                         ? p->second.qps[i]->qp_num
                         : 0;
      r.append(reinterpret_cast<const char *>(&qpn), 4);
    }
  }
  return r;
}

cclResult_t IbNet::connectQps(int peer, const uint8_t *gid, uint16_t lid,
                              uint32_t mtu, const uint32_t *qpns) {
  Peer &p = peers_[peer];
  const std::string who = s_->boot->describe(peer);
  for (size_t i = 0; i < p.qps.size(); i++) {
    ibv_qp_attr a;
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = (ibv_mtu)(mtu < mtu_ ? mtu : mtu_);
    a.dest_qp_num = qpns[i];
    a.rq_psn = 0;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.dlid = lid;
    a.ah_attr.sl = 0;
    a.ah_attr.port_num = port_;
    if (global_) {
      a.ah_attr.is_global = 1;
      memcpy(a.ah_attr.grh.dgid.raw, gid, 16);
      a.ah_attr.grh.sgid_index = (uint8_t)gidIndex_;
      a.ah_attr.grh.hop_limit = 255;
    }
    if (int e =
            v_->modifyQp(p.qps[i], &a,
                         IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                             IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                             IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
      return setError(cclSystemError,
                      format("the RDMA transport: queue pair %zu to %s "
                             "(its queue pair %u): INIT -> RTR failed: %s",
                             i, who.c_str(), qpns[i], strerror(e)));
    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = 0;
    a.max_rd_atomic = 1;
    if (int e = v_->modifyQp(p.qps[i], &a,
                             IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                                 IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                 IBV_QP_MAX_QP_RD_ATOMIC))
      return setError(cclSystemError,
                      format("the RDMA transport: queue pair %zu to %s: "
                             "RTR -> RTS failed: %s",
                             i, who.c_str(), strerror(e)));
  }
  p.connected = true;
  return cclSuccess;
}

cclResult_t IbNet::connect(const std::vector<int> &peers,
                           const std::vector<std::string> &records) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (int q : peers) {
      const std::string &rec = records[q];
      RecordHead h;
      if (rec.size() < sizeof h)
        return setError(cclRemoteError,
                        format("%s sent a malformed RDMA record",
                               s_->boot->describe(q).c_str()));
      memcpy(&h, rec.data(), sizeof h);
      if (h.magic != kRecordMagic ||
          rec.size() != sizeof h + (size_t)h.npeers * 4 * (1 + h.nqps))
        return setError(cclRemoteError,
                        format("%s sent a malformed RDMA record",
                               s_->boot->describe(q).c_str()));
      if (h.nqps != qpsPerPeer_)
        return setError(cclInvalidArgument,
                        format("the RDMA transport: %s uses %u queue pairs "
                               "per peer and this rank %u: set CCL_IB_QPS "
                               "alike on every rank",
                               s_->boot->describe(q).c_str(), h.nqps,
                               qpsPerPeer_));
      // Its queue pairs to this rank.
      const char *entries = rec.data() + sizeof h;
      std::vector<uint32_t> qpns;
      for (uint32_t e = 0; e < h.npeers; e++) {
        uint32_t rank;
        memcpy(&rank, entries + (size_t)e * 4 * (1 + h.nqps), 4);
        if ((int)rank != me_)
          continue;
        qpns.resize(h.nqps);
        memcpy(qpns.data(), entries + (size_t)e * 4 * (1 + h.nqps) + 4,
               4 * (size_t)h.nqps);
      }
      if (qpns.empty() || qpns[0] == 0)
        return setError(cclRemoteError,
                        format("%s has no RDMA queue pairs to rank %d",
                               s_->boot->describe(q).c_str(), me_));
      Peer &p = peers_[q];
      if (!p.connected)
        if (cclResult_t r = connectQps(q, h.gid, h.lid, h.mtu, qpns.data());
            r != cclSuccess)
          return r;
      if (h.arenaBytes)
        p.regions[h.arenaBase] =
            RemoteRegion{h.arenaBase + h.arenaBytes, h.rkey, 0};
    }
  }
  // The bounce buffer now, while no kernel runs (pinned memory on GPUs).
  MemoryAccess *unused;
  return bounce(&unused);
}

void IbNet::removeArena(void *base) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = local_.find(reinterpret_cast<uintptr_t>(base));
  if (it == local_.end())
    return;
  if (!stopped_)
    v_->deregMr(it->second.mr);
  local_.erase(it);
}

cclResult_t IbNet::bounce(MemoryAccess **out) {
  std::lock_guard<std::mutex> lk(mu_);
  if (!mem_) {
    std::unique_ptr<MemoryAccess> m = s_->device->memoryAccess(me_);
    if (!m)
      return setError(cclInternalError, "the RDMA transport: no memory "
                                        "access for this rank");
    if (cclResult_t r = m->bind(); r != cclSuccess)
      return r;
    void *buf;
    if (cclResult_t r = m->staging(kIbSlots * kIbPiece, &buf); r != cclSuccess)
      return r;
    bounceMr_ =
        v_->regMr(pd_, buf, kIbSlots * kIbPiece, IBV_ACCESS_LOCAL_WRITE);
    if (!bounceMr_)
      return setError(cclSystemError,
                      format("the RDMA transport: registering its bounce "
                             "buffer with %s failed: %s",
                             describe().c_str(), strerror(errno)));
    bounce_ = buf;
    slotBusy_.assign(kIbSlots, false);
    mem_ = std::move(m);
  }
  *out = mem_.get();
  return cclSuccess;
}

ibv_mr *IbNet::localMr(const void *p, uint64_t n) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = local_.upper_bound(a);
  if (it == local_.begin())
    return nullptr;
  --it;
  return a >= it->first && a <= it->second.end && n <= it->second.end - a
             ? it->second.mr
             : nullptr;
}

bool IbNet::remoteKey(Peer &p, uint64_t addr, uint64_t n, uint32_t *rkey) {
  auto it = p.regions.upper_bound(addr);
  if (it == p.regions.begin())
    return false;
  --it;
  if (addr < it->first || addr > it->second.end || n > it->second.end - addr)
    return false;
  *rkey = it->second.rkey;
  return true;
}

} // namespace cclrt
