// fake_ibverbs_test.cc - checks the libibverbs test double
// (fake_libibverbs.cc) the way the runtime uses it: dlopen() of the path in
// argv[1], entry points from dlsym, ibv_post_send / ibv_poll_cq as the inline
// functions of <infiniband/verbs.h>. The process forks a child; each side
// opens the device and connects RC QPs to the other over the double's NIC.
// The child mostly serves commands (check its memory, set a fault, ...) sent
// over a socketpair; the parent posts the writes. One line per check; the
// exit status is non-zero if any check fails.
#include <infiniband/verbs.h>

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {

// ---- The library, as a user resolves it ------------------------------------

struct Api {
  decltype(&ibv_get_device_list) get_device_list;
  decltype(&ibv_free_device_list) free_device_list;
  decltype(&ibv_get_device_name) get_device_name;
  decltype(&ibv_open_device) open_device;
  decltype(&ibv_close_device) close_device;
  decltype(&ibv_query_device) query_device;
  decltype(&(ibv_query_port)) query_port;
  decltype(&ibv_query_gid) query_gid;
  decltype(&ibv_alloc_pd) alloc_pd;
  decltype(&ibv_dealloc_pd) dealloc_pd;
  decltype(&(ibv_reg_mr)) reg_mr;
  decltype(&ibv_dereg_mr) dereg_mr;
  decltype(&ibv_create_cq) create_cq;
  decltype(&ibv_destroy_cq) destroy_cq;
  decltype(&ibv_create_qp) create_qp;
  decltype(&ibv_destroy_qp) destroy_qp;
  decltype(&ibv_modify_qp) modify_qp;
  decltype(&ibv_query_qp) query_qp;
  decltype(&ibv_wc_status_str) wc_status_str;
} V;

bool load(const char *path) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return fprintf(stderr, "dlopen: %s\n", dlerror()), false;
  bool ok = true;
  auto sym = [&](auto &fn, const char *name) {
    fn =
        reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(h, name));
    if (!fn)
      fprintf(stderr, "missing %s\n", name), ok = false;
  };
  sym(V.get_device_list, "ibv_get_device_list");
  sym(V.free_device_list, "ibv_free_device_list");
  sym(V.get_device_name, "ibv_get_device_name");
  sym(V.open_device, "ibv_open_device");
  sym(V.close_device, "ibv_close_device");
  sym(V.query_device, "ibv_query_device");
  sym(V.query_port, "ibv_query_port");
  sym(V.query_gid, "ibv_query_gid");
  sym(V.alloc_pd, "ibv_alloc_pd");
  sym(V.dealloc_pd, "ibv_dealloc_pd");
  sym(V.reg_mr, "ibv_reg_mr");
  sym(V.dereg_mr, "ibv_dereg_mr");
  sym(V.create_cq, "ibv_create_cq");
  sym(V.destroy_cq, "ibv_destroy_cq");
  sym(V.create_qp, "ibv_create_qp");
  sym(V.destroy_qp, "ibv_destroy_qp");
  sym(V.modify_qp, "ibv_modify_qp");
  sym(V.query_qp, "ibv_query_qp");
  sym(V.wc_status_str, "ibv_wc_status_str");
  return ok;
}

int g_failures = 0;
void check(bool ok, const char *name, const std::string &detail = "") {
  printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name, detail.empty() ? "" : ": ",
         detail.c_str());
  fflush(stdout);
  g_failures += !ok;
}

double now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

uint8_t pat(size_t i, int seed) {
  return (uint8_t)(i * 131 + seed * 7 + (i >> 9));
}
void fill(char *p, size_t n, int seed) {
  for (size_t i = 0; i < n; ++i)
    p[i] = (char)pat(i, seed);
}
bool matches(const char *p, size_t n, int seed) { // seed < 0: all zero
  for (size_t i = 0; i < n; ++i)
    if ((uint8_t)p[i] != (seed < 0 ? 0 : pat(i, seed)))
      return false;
  return true;
}

// ---- Endpoints
// ---------------------------------------------------------------

constexpr int kNq = 12;      // QPs per side, paired by index
constexpr int kEnomemQp = 7; // created with max_send_wr = kSmallSq
constexpr uint32_t kSmallSq = 16;
constexpr size_t kBufLen = (8u << 20) + 4096, kBuf2Len = 65536;
constexpr size_t kFlags = 8u << 20; // flag words at the end of buf

struct Info {
  uint32_t qpn[kNq];
  ibv_gid gid;
  uint64_t addr, addr2;
  uint32_t rkey, rkey2;
};

struct Ep {
  ibv_device **list = nullptr;
  ibv_context *ctx = nullptr;
  ibv_pd *pd = nullptr;
  ibv_cq *cq = nullptr;
  ibv_qp *qp[kNq] = {};
  char *buf = nullptr, *buf2 = nullptr;
  ibv_mr *mr = nullptr, *mr2 = nullptr;
  Info self{}, peer{};
};

bool xfer(int fd, void *p, size_t n, bool out) {
  char *c = static_cast<char *>(p);
  while (n) {
    ssize_t r = out ? write(fd, c, n) : read(fd, c, n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return false;
    c += r, n -= (size_t)r;
  }
  return true;
}

// Moves `qp` from RESET up to `upto` (INIT, RTR or RTS), addressed to the QP
// `dest_qpn` of the process that `gid` names.
int bring_up(ibv_qp *qp, const ibv_gid &gid, uint32_t dest_qpn,
             ibv_qp_state upto = IBV_QPS_RTS) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.pkey_index = 0;
  a.port_num = 1;
  a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  if (int r = V.modify_qp(qp, &a,
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                              IBV_QP_ACCESS_FLAGS))
    return r;
  if (upto == IBV_QPS_INIT)
    return 0;
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_4096;
  a.dest_qp_num = dest_qpn;
  a.rq_psn = 0;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.is_global = 1;
  a.ah_attr.grh.dgid = gid;
  a.ah_attr.grh.sgid_index = 0;
  a.ah_attr.grh.hop_limit = 1;
  a.ah_attr.port_num = 1;
  if (int r = V.modify_qp(qp, &a,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
                              IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                              IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
    return r;
  if (upto == IBV_QPS_RTR)
    return 0;
  a = {};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.sq_psn = 0;
  a.max_rd_atomic = 1;
  return V.modify_qp(qp, &a,
                     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                         IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                         IBV_QP_MAX_QP_RD_ATOMIC);
}

int reconnect_qp(Ep &e, int i) { // RESET, then RESET->INIT->RTR->RTS again
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RESET;
  if (int r = V.modify_qp(e.qp[i], &a, IBV_QP_STATE))
    return r;
  return bring_up(e.qp[i], e.peer.gid, e.peer.qpn[i]);
}

bool setup(Ep &e, int sock) {
  int n = -1;
  e.list = V.get_device_list(&n);
  if (!e.list || n < 1 || !(e.ctx = V.open_device(e.list[0])))
    return false;
  e.pd = V.alloc_pd(e.ctx);
  e.cq = V.create_cq(e.ctx, 4096, nullptr, nullptr, 0);
  if (!e.pd || !e.cq)
    return false;
  for (int i = 0; i < kNq; ++i) {
    ibv_qp_init_attr ia{};
    ia.send_cq = ia.recv_cq = e.cq;
    ia.qp_type = IBV_QPT_RC;
    ia.cap.max_send_wr = i == kEnomemQp ? kSmallSq : 256;
    ia.cap.max_recv_wr = 1;
    ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
    ia.cap.max_inline_data = 64;
    if (!(e.qp[i] = V.create_qp(e.pd, &ia)))
      return false;
    e.self.qpn[i] = e.qp[i]->qp_num;
  }
  e.buf = static_cast<char *>(aligned_alloc(4096, kBufLen));
  e.buf2 = static_cast<char *>(aligned_alloc(4096, kBuf2Len));
  memset(e.buf, 0, kBufLen);
  memset(e.buf2, 0, kBuf2Len);
  int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  e.mr = V.reg_mr(e.pd, e.buf, kBufLen, acc);
  e.mr2 = V.reg_mr(e.pd, e.buf2, kBuf2Len, acc);
  if (!e.mr || !e.mr2 || V.query_gid(e.ctx, 1, 0, &e.self.gid))
    return false;
  e.self.addr = (uintptr_t)e.buf, e.self.rkey = e.mr->rkey;
  e.self.addr2 = (uintptr_t)e.buf2, e.self.rkey2 = e.mr2->rkey;
  if (!xfer(sock, &e.self, sizeof e.self, true) ||
      !xfer(sock, &e.peer, sizeof e.peer, false))
    return false;
  for (int i = 0; i < kNq; ++i)
    if (bring_up(e.qp[i], e.peer.gid, e.peer.qpn[i]))
      return false;
  char ready = 1; // both sides in RTS before the first write
  return xfer(sock, &ready, 1, true) && xfer(sock, &ready, 1, false);
}

int post(ibv_qp *qp, uint64_t wr_id, const void *src, uint32_t len,
         uint32_t lkey, uint64_t raddr, uint32_t rkey, int flags,
         ibv_send_wr **bad = nullptr) {
  ibv_sge sge{(uintptr_t)src, len, lkey};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = len ? &sge : nullptr;
  wr.num_sge = len ? 1 : 0;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = (unsigned)flags;
  wr.wr.rdma.remote_addr = raddr;
  wr.wr.rdma.rkey = rkey;
  ibv_send_wr *b = nullptr;
  int r = ibv_post_send(qp, &wr, &b);
  if (bad)
    *bad = r && b == &wr ? b : nullptr;
  return r;
}

std::vector<ibv_wc> wait_wc(ibv_cq *cq, size_t n, double timeout_s) {
  std::vector<ibv_wc> out;
  double end = now() + timeout_s;
  while (out.size() < n && now() < end) {
    ibv_wc wc[16];
    int k = ibv_poll_cq(cq, (int)std::min<size_t>(16, n - out.size()), wc);
    if (k < 0)
      break;
    out.insert(out.end(), wc, wc + k);
    if (k == 0)
      usleep(100);
  }
  return out;
}

std::string describe(const std::vector<ibv_wc> &w) {
  std::string s = std::to_string(w.size()) + " completions:";
  for (const ibv_wc &c : w)
    s += " [" + std::to_string(c.wr_id) + " " + V.wc_status_str(c.status) + "]";
  return s;
}

bool statuses(const std::vector<ibv_wc> &w,
              const std::vector<std::pair<uint64_t, ibv_wc_status>> &want) {
  if (w.size() != want.size())
    return false;
  for (size_t i = 0; i < w.size(); ++i)
    if (w[i].wr_id != want[i].first || w[i].status != want[i].second)
      return false;
  return true;
}

// ---- Child: serves the parent's commands
// --------------------------------------

enum Cmd : uint32_t { kCheck, kExpectFlags, kDereg2, kSetFault, kDrop, kExit };
struct Msg {
  uint32_t cmd, n;
  uint64_t a[8];
  char s[32];
};

Msg ask(int sock, Msg m) {
  Msg r{};
  if (!xfer(sock, &m, sizeof m, true) || !xfer(sock, &r, sizeof r, false))
    r.n = 0xdead;
  return r;
}

int child(int sock) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  alarm(60);
  Ep e;
  if (!setup(e, sock))
    return 2;
  Msg m;
  while (xfer(sock, &m, sizeof m, false)) {
    Msg r{};
    r.n = 1;
    switch (m.cmd) {
    case kCheck: // a = {off, len, seed (int64; -1 = zero)}
      r.n = matches(e.buf + m.a[0], m.a[1], (int)(int64_t)m.a[2]);
      break;
    case kExpectFlags: { // n flags at kFlags + 64*k with value a[0]+k; on
      // each flag's arrival (acquire load), region k (1 MiB at k MiB, seed
      // a[1]+k) must already be complete.
      bool seen[8] = {};
      unsigned left = m.n;
      double end = now() + 10;
      while (left && now() < end) {
        for (unsigned k = 0; k < m.n; ++k) {
          uint64_t *f = reinterpret_cast<uint64_t *>(e.buf + kFlags + 64 * k);
          if (seen[k] || __atomic_load_n(f, __ATOMIC_ACQUIRE) != m.a[0] + k)
            continue;
          seen[k] = true, --left;
          r.n &= matches(e.buf + (k << 20), 1u << 20, (int)(m.a[1] + k));
        }
        sched_yield();
      }
      r.n &= left == 0;
      break;
    }
    case kDereg2:
      r.n = V.dereg_mr(e.mr2) == 0;
      e.mr2 = nullptr;
      break;
    case kSetFault:
      if (m.s[0])
        setenv("CCL_FAKE_IBV_FAULT", m.s, 1);
      else
        unsetenv("CCL_FAKE_IBV_FAULT");
      break;
    case kDrop: { // as a sender: a[0] = QP index, n writes of 64 bytes
      setenv("CCL_FAKE_IBV_FAULT", "drop_after=3", 1);
      for (unsigned j = 0; j < m.n; ++j) {
        fill(e.buf + 64 * j, 64, 50 + (int)j);
        post(e.qp[m.a[0]], 700 + j, e.buf + 64 * j, 64, e.mr->lkey,
             e.peer.addr + (6u << 20) + 64 * j, e.peer.rkey, IBV_SEND_SIGNALED);
      }
      std::vector<ibv_wc> w = wait_wc(e.cq, m.n, 3);
      unsetenv("CCL_FAKE_IBV_FAULT");
      r.n = (uint32_t)w.size();
      for (size_t j = 0; j < w.size() && j < 8; ++j)
        r.a[j] = (w[j].wr_id << 32) | w[j].status;
      break;
    }
    case kExit:
      xfer(sock, &r, sizeof r, true);
      return 0;
    }
    if (!xfer(sock, &r, sizeof r, true))
      break;
  }
  return 0;
}

// ---- Parent: the checks
// ---------------------------------------------------------

void checks_without_peer() {
  setenv("CCL_FAKE_IBV_DEVICES", "0", 1);
  int n = -1;
  ibv_device **l = V.get_device_list(&n);
  check(l && n == 0 && l[0] == nullptr, "CCL_FAKE_IBV_DEVICES=0: empty list");
  V.free_device_list(l);
  setenv("CCL_FAKE_IBV_DEVICES", "2", 1);
  l = V.get_device_list(&n);
  check(l && n == 2 && !strcmp(V.get_device_name(l[0]), "fake_ibv0") &&
            !strcmp(V.get_device_name(l[1]), "fake_ibv1") && !l[2],
        "CCL_FAKE_IBV_DEVICES=2: fake_ibv0, fake_ibv1");
  V.free_device_list(l);
  unsetenv("CCL_FAKE_IBV_DEVICES");
  l = V.get_device_list(&n);
  check(l && n == 1, "default: one device");
  setenv("CCL_FAKE_IBV_FAULT", "open", 1);
  errno = 0;
  ibv_context *c = V.open_device(l[0]);
  check(!c && errno == ENODEV, "fault open: ibv_open_device fails with ENODEV");
  unsetenv("CCL_FAKE_IBV_FAULT");
  c = V.open_device(l[0]);
  ibv_device_attr da;
  ibv_port_attr pa;
  memset(&pa, 0xab, sizeof pa);
  check(c && V.query_device(c, &da) == 0 && da.max_qp_wr == 4096 &&
            da.max_sge == 4 && da.phys_port_cnt == 1,
        "ibv_query_device limits");
  bool port_ok = V.query_port(c, 1, (_compat_ibv_port_attr *)&pa) == 0 &&
                 pa.state == IBV_PORT_ACTIVE &&
                 pa.link_layer == IBV_LINK_LAYER_ETHERNET && pa.lid == 0 &&
                 pa.active_mtu == IBV_MTU_4096 && pa.gid_tbl_len == 1 &&
                 pa.max_msg_sz == (1u << 30);
  check(port_ok && V.query_port(c, 2, (_compat_ibv_port_attr *)&pa) == EINVAL,
        "ibv_query_port: port 1 active Ethernet, port 2 EINVAL");
  ibv_gid gid;
  uint64_t pid = 0;
  bool gid_ok =
      V.query_gid(c, 1, 0, &gid) == 0 && !memcmp(gid.raw, "CCLFAKE", 8);
  memcpy(&pid, gid.raw + 8, 8); // little-endian host
  check(gid_ok && pid == (uint64_t)getpid() && V.query_gid(c, 1, 1, &gid) != 0,
        "ibv_query_gid: CCLFAKE + pid; index 1 fails");
  V.close_device(c);
  V.free_device_list(l);
}

void checks_with_peer(Ep &e, int sock, pid_t kid) {
  auto check_remote = [&](uint64_t off, uint64_t len, int64_t seed) {
    Msg m{kCheck, 0, {off, len, (uint64_t)seed}, {}};
    return ask(sock, m).n == 1;
  };
  const uint64_t R = e.peer.addr;
  const uint32_t RK = e.peer.rkey, LK = e.mr->lkey;
  const uint64_t kUntouched = 7u << 20; // no write lands there

  // (1) sizes, several QPs: each signaled completion means the bytes landed.
  bool ok = true;
  std::string why;
  const uint32_t sizes[] = {0, 1, 7, 8, 8, 4099, 1u << 20, 4u << 20};
  for (int i = 0; i < 8; ++i) {
    uint32_t len = sizes[i], off = i % 2 ? 3 : 0; // 8 bytes unaligned once
    fill(e.buf, len, i);
    post(e.qp[i % 4], 10 + i, e.buf, len, LK, R + off, RK, IBV_SEND_SIGNALED);
    std::vector<ibv_wc> w = wait_wc(e.cq, 1, 5);
    bool good = w.size() == 1 && w[0].status == IBV_WC_SUCCESS &&
                w[0].wr_id == 10u + i && w[0].opcode == IBV_WC_RDMA_WRITE &&
                w[0].byte_len == len && w[0].qp_num == e.qp[i % 4]->qp_num &&
                check_remote(off, len, i);
    if (!good)
      ok = false, why += " size " + std::to_string(len) + " " + describe(w);
  }
  check(ok, "(1) RDMA WRITE sizes 0..4 MiB land exactly", why);

  // (1) in order per QP: 4 QPs interleaved, 1 MiB in 4 unsignaled writes,
  // then an 8-byte flag; the child checks the data on seeing the flag.
  memset(e.buf, 0, 5u << 20);
  Msg m{kExpectFlags, 4, {0x1000, 20}, {}};
  xfer(sock, &m, sizeof m, true);
  for (int k = 0; k < 4; ++k) {
    fill(e.buf + (k << 20), 1u << 20, 20 + k);
    *reinterpret_cast<uint64_t *>(e.buf + (4u << 20) + 64 * k) = 0x1000 + k;
  }
  for (int part = 0; part < 5; ++part)
    for (int k = 0; k < 4; ++k) {
      uint64_t off = part < 4 ? ((uint64_t)k << 20) + (part << 18) : 0;
      if (part < 4)
        post(e.qp[k], 0, e.buf + off, 1u << 18, LK, R + off, RK, 0);
      else
        post(e.qp[k], 100 + k, e.buf + (4u << 20) + 64 * k, 8, LK,
             R + kFlags + 64 * k, RK, IBV_SEND_SIGNALED);
    }
  std::vector<ibv_wc> w = wait_wc(e.cq, 4, 5);
  Msg r{};
  xfer(sock, &r, sizeof r, false);
  check(r.n == 1 && w.size() == 4,
        "(1) per-QP order: flag implies earlier data", describe(w));

  // (2) inline: the source is read at post time, no lkey needed.
  char small[48];
  fill(small, sizeof small, 30);
  post(e.qp[1], 31, small, sizeof small, 0, R + 4096, RK,
       IBV_SEND_SIGNALED | IBV_SEND_INLINE);
  memset(small, 0xff, sizeof small);
  w = wait_wc(e.cq, 1, 5);
  check(statuses(w, {{31, IBV_WC_SUCCESS}}) && check_remote(4096, 48, 30),
        "(2) IBV_SEND_INLINE", describe(w));

  // (3) unsignaled: no completion; signaled: one.
  fill(e.buf, 128, 40);
  post(e.qp[2], 41, e.buf, 64, LK, R + 8192, RK, 0);
  post(e.qp[2], 42, e.buf + 64, 64, LK, R + 8192 + 64, RK, IBV_SEND_SIGNALED);
  w = wait_wc(e.cq, 1, 5);
  std::vector<ibv_wc> extra = wait_wc(e.cq, 1, 0.05);
  check(statuses(w, {{42, IBV_WC_SUCCESS}}) && extra.empty() &&
            check_remote(8192, 128, 40),
        "(3) unsignaled writes complete silently",
        describe(w) + "; then " + describe(extra));

  // Loopback inside one process; the target QP reaches RTR only 100 ms
  // after the write was posted (within the double's ~1 s retry window).
  ibv_qp_init_attr li{};
  li.send_cq = li.recv_cq = e.cq;
  li.qp_type = IBV_QPT_RC;
  li.cap.max_send_wr = 4;
  ibv_qp *lqa = V.create_qp(e.pd, &li), *lqb = V.create_qp(e.pd, &li);
  ok = lqa && lqb &&
       bring_up(lqb, e.self.gid, lqa->qp_num, IBV_QPS_INIT) == 0 &&
       bring_up(lqa, e.self.gid, lqb->qp_num) == 0;
  fill(e.buf + (5u << 20), 65536, 45);
  double t0 = now();
  post(lqa, 46, e.buf + (5u << 20), 65536, LK, e.self.addr + (7u << 20),
       e.self.rkey, IBV_SEND_SIGNALED);
  std::thread late([&] {
    usleep(100000);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.dest_qp_num = lqa->qp_num;
    a.ah_attr.is_global = 1;
    a.ah_attr.grh.dgid = e.self.gid;
    V.modify_qp(lqb, &a,
                IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                    IBV_QP_MIN_RNR_TIMER);
  });
  w = wait_wc(e.cq, 1, 5);
  double waited = now() - t0;
  late.join();
  check(ok && statuses(w, {{46, IBV_WC_SUCCESS}}) && waited > 0.09 &&
            matches(e.buf + (7u << 20), 65536, 45) && V.destroy_qp(lqa) == 0 &&
            V.destroy_qp(lqb) == 0,
        "loopback in one process; target QP reaching RTR late",
        describe(w) + " after " + std::to_string(waited) + " s");

  // (4) wrong rkey -> REM_ACCESS_ERR, later WRs flushed (unsignaled too).
  post(e.qp[4], 51, e.buf, 64, LK, R + kUntouched, RK ^ 0x5a5a5a5a,
       IBV_SEND_SIGNALED);
  post(e.qp[4], 52, e.buf, 64, LK, R + kUntouched, RK, IBV_SEND_SIGNALED);
  post(e.qp[4], 53, e.buf, 64, LK, R + kUntouched, RK, 0);
  w = wait_wc(e.cq, 3, 5);
  ibv_qp_attr qa;
  ibv_qp_init_attr qia;
  bool err_state = V.query_qp(e.qp[4], &qa, IBV_QP_STATE, &qia) == 0 &&
                   qa.qp_state == IBV_QPS_ERR;
  check(statuses(w, {{51, IBV_WC_REM_ACCESS_ERR},
                     {52, IBV_WC_WR_FLUSH_ERR},
                     {53, IBV_WC_WR_FLUSH_ERR}}) &&
            err_state && check_remote(kUntouched, 64, -1),
        "(4) wrong rkey: remote access error, then flushes", describe(w));
  check(
      !strcmp(V.wc_status_str(IBV_WC_REM_ACCESS_ERR), "remote access error") &&
          !strcmp(V.wc_status_str(IBV_WC_WR_FLUSH_ERR),
                  "Work Request Flushed Error") &&
          !strcmp(V.wc_status_str(IBV_WC_RETRY_EXC_ERR),
                  "transport retry counter exceeded"),
      "ibv_wc_status_str wording");

  // (4) outside the MR (past the end, before the start), deregistered MR;
  // RESET and reconnecting makes the QP usable again.
  struct {
    uint64_t addr;
    uint32_t rkey;
    const char *what;
  } bad[] = {{R + kBufLen - 4, RK, "past end"},
             {R - 8, RK, "before start"},
             {e.peer.addr2, e.peer.rkey2, "deregistered"}};
  ok = true, why.clear();
  for (auto &b : bad) {
    if (b.rkey == e.peer.rkey2)
      ok &= ask(sock, Msg{kDereg2, 0, {}, {}}).n == 1;
    post(e.qp[5], 61, e.buf, 8, LK, b.addr, b.rkey, IBV_SEND_SIGNALED);
    w = wait_wc(e.cq, 1, 5);
    if (!statuses(w, {{61, IBV_WC_REM_ACCESS_ERR}}))
      ok = false, why += std::string(" ") + b.what + " " + describe(w);
    ok &= reconnect_qp(e, 5) == 0;
  }
  post(e.qp[5], 62, e.buf, 8, LK, R + 24576, RK, IBV_SEND_SIGNALED);
  w = wait_wc(e.cq, 1, 5);
  check(ok && statuses(w, {{62, IBV_WC_SUCCESS}}),
        "(4) address outside MR / deregistered MR: remote access error", why);

  // (5) lkey not covering the sg -> LOC_PROT_ERR, then flushes.
  post(e.qp[6], 71, e.buf + kBufLen - 16, 32, LK, R, RK, IBV_SEND_SIGNALED);
  post(e.qp[6], 72, e.buf, 8, LK, R, RK, 0);
  w = wait_wc(e.cq, 2, 5);
  ok = statuses(w, {{71, IBV_WC_LOC_PROT_ERR}, {72, IBV_WC_WR_FLUSH_ERR}});
  why = describe(w);
  ok &= reconnect_qp(e, 6) == 0;
  post(e.qp[6], 73, e.buf, 8, LK ^ 0x80000000u, R, RK, IBV_SEND_SIGNALED);
  w = wait_wc(e.cq, 1, 5);
  check(ok && statuses(w, {{73, IBV_WC_LOC_PROT_ERR}}),
        "(5) lkey not covering the sg: local protection error",
        why + "; " + describe(w));

  // (9) more than max_send_wr outstanding -> ENOMEM (target stopped, so
  // nothing is acked); once it runs again the slots free up.
  int st;
  kill(kid, SIGSTOP);
  waitpid(kid, &st, WUNTRACED);
  ok = true;
  for (uint32_t i = 0; i < kSmallSq; ++i)
    ok &= post(e.qp[kEnomemQp], 80, e.buf, 8, LK, R + 32768, RK, 0) == 0;
  ibv_send_wr *badwr = nullptr;
  int full =
      post(e.qp[kEnomemQp], 81, e.buf, 8, LK, R, RK, IBV_SEND_SIGNALED, &badwr);
  ok &= full == ENOMEM && badwr != nullptr && wait_wc(e.cq, 1, 0.05).empty();
  kill(kid, SIGCONT);
  int again = ENOMEM;
  for (double end = now() + 2; again == ENOMEM && now() < end; usleep(1000))
    again = post(e.qp[kEnomemQp], 82, e.buf, 8, LK, R, RK, IBV_SEND_SIGNALED);
  w = wait_wc(e.cq, 1, 5);
  check(ok && again == 0 && statuses(w, {{82, IBV_WC_SUCCESS}}),
        "(9) past max_send_wr outstanding: ENOMEM, bad_wr set", describe(w));

  // (8) faults.
  setenv("CCL_FAKE_IBV_FAULT", "reg_mr", 1);
  errno = 0;
  ibv_mr *mr = V.reg_mr(e.pd, e.buf, 4096, IBV_ACCESS_LOCAL_WRITE);
  check(!mr && errno == EFAULT, "(8) fault reg_mr: EFAULT");
  unsetenv("CCL_FAKE_IBV_FAULT");
  errno = 0;
  mr = V.reg_mr(e.pd, e.buf, 0, IBV_ACCESS_LOCAL_WRITE);
  int e1 = errno;
  errno = 0;
  ibv_mr *mr0 = V.reg_mr(e.pd, nullptr, 64, IBV_ACCESS_LOCAL_WRITE);
  check(!mr && e1 == EINVAL && !mr0 && errno == EINVAL,
        "ibv_reg_mr: length 0 / NULL address -> EINVAL");

  ibv_qp_init_attr ia{};
  ia.send_cq = ia.recv_cq = e.cq;
  ia.qp_type = IBV_QPT_RC;
  ia.cap.max_send_wr = 4;
  ibv_qp *xq = V.create_qp(e.pd, &ia);
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  int bad_jump = V.modify_qp(xq, &a, IBV_QP_STATE); // RESET -> RTR
  a.qp_state = IBV_QPS_INIT;
  int bad_mask = V.modify_qp(xq, &a, IBV_QP_STATE | IBV_QP_PORT);
  a.port_num = 1;
  a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
  int init = V.modify_qp(xq, &a,
                         IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                             IBV_QP_ACCESS_FLAGS);
  badwr = nullptr;
  int not_rts = post(xq, 90, e.buf, 8, LK, R, RK, IBV_SEND_SIGNALED, &badwr);
  check(
      bad_jump == EINVAL && bad_mask == EINVAL && init == 0 &&
          not_rts == EINVAL && badwr,
      "modify_qp: bad transition / mask -> EINVAL; post before RTS -> EINVAL");
  a = {};
  a.qp_state = IBV_QPS_RTR;
  a.ah_attr.is_global = 1;
  a.ah_attr.grh.dgid = e.peer.gid;
  a.dest_qp_num = e.peer.qpn[0];
  int rtr_mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                 IBV_QP_MIN_RNR_TIMER;
  setenv("CCL_FAKE_IBV_FAULT", "rtr", 1);
  int rtr_fault = V.modify_qp(xq, &a, rtr_mask);
  unsetenv("CCL_FAKE_IBV_FAULT");
  a.ah_attr.is_global = 0;
  int not_global = V.modify_qp(xq, &a, rtr_mask);
  a.ah_attr.is_global = 1;
  int rtr = V.modify_qp(xq, &a, rtr_mask);
  check(rtr_fault == ETIMEDOUT && not_global == EINVAL && rtr == 0,
        "(8) fault rtr: ETIMEDOUT (is_global=0: EINVAL)");
  check(V.destroy_qp(xq) == 0, "ibv_destroy_qp");

  ask(sock, Msg{kSetFault, 0, {}, "rkey"});
  post(e.qp[8], 91, e.buf, 8, LK, R + kUntouched, RK, IBV_SEND_SIGNALED);
  w = wait_wc(e.cq, 1, 5);
  ask(sock, Msg{kSetFault, 0, {}, ""});
  check(statuses(w, {{91, IBV_WC_REM_ACCESS_ERR}}) &&
            check_remote(kUntouched, 8, -1),
        "(8) fault rkey at the target: remote access error", describe(w));

  // The child writes into this process; the bytes are checked after its
  // reply (a cross-process order that ThreadSanitizer cannot see).
  r = ask(sock, Msg{kDrop, 5, {9}, {}});
  ok = r.n == 5;
  for (uint32_t j = 0; j < 5 && ok; ++j) {
    ibv_wc_status want = j < 3 ? IBV_WC_SUCCESS : IBV_WC_RETRY_EXC_ERR;
    ok = r.a[j] == ((uint64_t)(700 + j) << 32 | want) &&
         matches(e.buf + (6u << 20) + 64 * j, 64, j < 3 ? 50 + (int)j : -1);
  }
  check(ok, "(8) fault drop_after=3 (child sends 5): 3 land, 2 retry-exceeded");

  // (6) peer killed: pending and later writes fail with RETRY_EXC_ERR soon.
  kill(kid, SIGSTOP);
  waitpid(kid, &st, WUNTRACED);
  for (int i = 0; i < 10; ++i)
    post(e.qp[0], 200 + i, e.buf, 8, LK, R + 8 * i, RK, IBV_SEND_SIGNALED);
  bool pending = wait_wc(e.cq, 1, 0.1).empty();
  t0 = now();
  kill(kid, SIGKILL);
  waitpid(kid, &st, 0);
  w = wait_wc(e.cq, 10, 3);
  double took = now() - t0;
  ok = pending && w.size() == 10;
  for (size_t i = 0; i < w.size(); ++i)
    ok &= w[i].wr_id == 200 + i && w[i].status == IBV_WC_RETRY_EXC_ERR;
  post(e.qp[0], 220, e.buf, 8, LK, R, RK, 0);                  // connected
  post(e.qp[10], 221, e.buf, 8, LK, R, RK, IBV_SEND_SIGNALED); // never was
  std::vector<ibv_wc> later = wait_wc(e.cq, 2, 3);
  check(ok && took < 1.5 &&
            statuses(later, {{220, IBV_WC_RETRY_EXC_ERR},
                             {221, IBV_WC_RETRY_EXC_ERR}}),
        "(6) peer killed: retry exceeded, no hang",
        describe(w) + " in " + std::to_string(took) + " s; then " +
            describe(later));
}

void teardown(Ep &e) {
  bool ok = V.destroy_cq(e.cq) == EBUSY; // QPs still use it
  for (ibv_qp *q : e.qp)
    ok &= V.destroy_qp(q) == 0;
  ok &= V.dereg_mr(e.mr) == 0 && V.dereg_mr(e.mr2) == 0;
  ok &= V.destroy_cq(e.cq) == 0 && V.dealloc_pd(e.pd) == 0;
  ok &= V.close_device(e.ctx) == 0;
  V.free_device_list(e.list);
  free(e.buf);
  free(e.buf2);
  check(ok, "teardown (destroy_cq in use -> EBUSY)");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !load(argv[1])) {
    fprintf(stderr, "usage: %s path/to/libibverbs.so.1\n", argv[0]);
    return 2;
  }
  alarm(60);
  unsetenv("CCL_FAKE_IBV_FAULT");
  unsetenv("CCL_FAKE_IBV_DEVICES");
  checks_without_peer();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
    return perror("socketpair"), 2;
  pid_t kid = fork();
  if (kid == 0) {
    close(sv[0]);
    _exit(child(sv[1]));
  }
  close(sv[1]);
  Ep e;
  bool up = setup(e, sv[0]);
  check(up, "setup: device, PD, CQ, 12 RC QPs, MRs; QPs to RTS");
  if (up) {
    checks_with_peer(e, sv[0], kid);
    teardown(e);
  } else {
    kill(kid, SIGKILL);
    waitpid(kid, nullptr, 0);
  }
  printf("%s\n", g_failures ? "FAILED" : "PASSED");
  return g_failures ? 1 : 0;
}
