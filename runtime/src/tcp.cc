// tcp.cc - the TCP transport of port channels between hosts (see tcp.h).
#include "tcp.h"

#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bootstrap.h"

namespace cclrt {
namespace {

enum : uint32_t { kPut = 1, kSignal = 2, kEcho = 3, kComplete = 4 };
constexpr uint32_t kHelloMagic = 0x43434c54; // "CCLT"
constexpr uint64_t kPiece = 1ull << 20;      // PUTs above this are split
constexpr uint32_t kMaxConnections = 16;

struct Header {
  uint32_t type;
  uint32_t ncounts; // u64 counts after the header (SIGNAL, ECHO)
  uint64_t addr;
  uint64_t value; // PUT: bytes
};

struct Hello {
  uint32_t magic;
  uint32_t rank;
  uint32_t index;
  uint32_t pad;
  uint8_t token[32];
};

bool sendAll(int fd, const void *p, size_t n, std::string *err) {
  const char *c = static_cast<const char *>(p);
  while (n) {
    ssize_t k = ::send(fd, c, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR)
        continue;
      *err = std::string("send: ") + strerror(errno);
      return false;
    }
    c += k;
    n -= (size_t)k;
  }
  return true;
}

// Reads exactly n bytes; false on EOF or error (*err says which; empty for
// an orderly EOF before the first byte).
bool recvAll(int fd, void *p, size_t n, std::string *err) {
  char *c = static_cast<char *>(p);
  size_t got = 0;
  while (got < n) {
    ssize_t k = ::recv(fd, c + got, n - got, 0);
    if (k == 0) {
      *err = got ? "the connection closed in the middle of a frame" : "";
      return false;
    }
    if (k < 0) {
      if (errno == EINTR)
        continue;
      *err = std::string("recv: ") + strerror(errno);
      return false;
    }
    got += (size_t)k;
  }
  return true;
}

void tune(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

} // namespace

cclResult_t TcpNet::create(Shared *s, std::unique_ptr<TcpNet> *out) {
  std::unique_ptr<TcpNet> t(new TcpNet(s));
  t->me_ = s->boot->rank();
  if (const char *v = getenv("CCL_TCP_CONNECTIONS"); v && *v) {
    char *end = nullptr;
    unsigned long n = strtoul(v, &end, 10);
    if (*end || n < 1 || n > kMaxConnections)
      return setError(cclInvalidArgument,
                      format("CCL_TCP_CONNECTIONS is '%s'; it must be a "
                             "number of connections per peer from 1 to %u",
                             v, kMaxConnections));
    t->connections_ = (uint32_t)n;
  }
  if (!net::randomBytes(t->token_, sizeof t->token_))
    return setError(cclSystemError, "the TCP transport could not draw a "
                                    "random token");
  wire::Addr addr = s->boot->peer(t->me_).listen;
  addr.port = 0;
  wire::Addr bound;
  std::string err;
  if (!net::listenTcp(addr, &t->listen_, &bound, &err))
    return setError(cclSystemError,
                    "the TCP transport could not listen: " + err);
  t->port_ = bound.port;
  TcpNet *raw = t.get();
  try {
    t->acceptor_ = std::thread([raw] { raw->acceptLoop(); });
  } catch (const std::system_error &e) {
    return setError(cclSystemError,
                    format("could not start the TCP transport's thread: %s",
                           e.what()));
  }
  *out = std::move(t);
  return cclSuccess;
}

TcpNet::~TcpNet() { stop(); }

std::string TcpNet::record() const {
  std::string r(2 + sizeof token_, '\0');
  memcpy(&r[0], &port_, 2);
  memcpy(&r[2], token_, sizeof token_);
  return r;
}

void TcpNet::fail(const std::string &why) {
  if (stop_)
    return;
  recordRemoteFailure(s_, "the TCP transport of rank " + std::to_string(me_) +
                              " failed: " + why,
                      nullptr);
  cv_.notify_all();
}

bool TcpNet::adopt(int peer, uint32_t idx, net::Fd fd, std::string *err) {
  std::lock_guard<std::mutex> lk(mu_);
  Peer &p = peers_[peer];
  if (p.conns.empty())
    p.conns.resize(connections_);
  if (idx >= connections_ || p.conns[idx]) {
    *err = format("rank %d opened connection %u twice or out of range", peer,
                  idx);
    return false;
  }
  tune(fd.get());
  auto c = std::make_unique<Conn>();
  c->fd = std::move(fd);
  Conn *raw = c.get();
  try {
    c->reader = std::thread([this, peer, raw] { readLoop(peer, raw); });
  } catch (const std::system_error &e) {
    *err = e.what();
    return false;
  }
  p.conns[idx] = std::move(c);
  p.connected++;
  cv_.notify_all();
  return true;
}

void TcpNet::acceptLoop() {
  while (!stop_) {
    pollfd pfd{listen_.get(), POLLIN, 0};
    int k = poll(&pfd, 1, 100);
    if (k <= 0 || stop_)
      continue;
    int fd = accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0)
      continue;
    net::Fd conn(fd);
    // The hello, within a second; a stranger is dropped without a word.
    pollfd h{fd, POLLIN, 0};
    Hello hello;
    std::string err;
    if (poll(&h, 1, 1000) != 1 || !recvAll(fd, &hello, sizeof hello, &err) ||
        hello.magic != kHelloMagic ||
        memcmp(hello.token, token_, sizeof token_) != 0 ||
        hello.rank >= (uint32_t)s_->nranks || (int)hello.rank >= me_ ||
        s_->boot->sameHost((int)hello.rank))
      continue;
    if (!adopt((int)hello.rank, hello.index, std::move(conn), &err))
      fail(err);
  }
}

cclResult_t TcpNet::connect(const std::vector<int> &peers,
                            const std::vector<std::string> &records) {
  const net::Deadline d = net::Deadline::in(bootstrapTimeoutMs());
  for (int q : peers) {
    {
      std::lock_guard<std::mutex> lk(mu_);
      if (peers_.count(q) && peers_[q].connected == (int)connections_)
        continue;
    }
    if (q < me_)
      continue; // q connects to us
    const std::string &rec = records[q];
    if (rec.size() != 2 + sizeof token_)
      return setError(cclRemoteError,
                      format("rank %d sent a malformed TCP transport record",
                             q));
    wire::Addr addr = s_->boot->peer(q).listen;
    memcpy(&addr.port, rec.data(), 2);
    for (uint32_t i = 0; i < connections_; i++) {
      net::Fd fd;
      std::string err;
      if (!net::connectTcp(addr, d, &fd, &err))
        return setError(cclSystemError,
                        format("the TCP transport could not connect to %s: ",
                               s_->boot->describe(q).c_str()) +
                            err);
      Hello hello{kHelloMagic, (uint32_t)me_, i, 0, {}};
      memcpy(hello.token, rec.data() + 2, sizeof hello.token);
      if (!sendAll(fd.get(), &hello, sizeof hello, &err) ||
          !adopt(q, i, std::move(fd), &err))
        return setError(cclSystemError,
                        format("the TCP transport's connection to %s: ",
                               s_->boot->describe(q).c_str()) +
                            err);
    }
  }
  // The sender's staging buffer now, while no kernel runs (the proxy thread
  // uses it; the stream and buffer do not depend on the thread).
  MemoryAccess *unused;
  if (cclResult_t r = senderAccess(&unused); r != cclSuccess)
    return r;
  // The lower ranks' connections to us.
  std::unique_lock<std::mutex> lk(mu_);
  for (int q : peers) {
    if (q > me_)
      continue;
    if (!cv_.wait_until(lk, d.at, [&] {
          return (peers_.count(q) &&
                  peers_[q].connected == (int)connections_) ||
                 aborted(s_);
        }) ||
        aborted(s_))
      return setError(cclSystemError,
                      format("the TCP transport: %s did not connect within "
                             "the bootstrap timeout (%" PRIu64 " ms)",
                             s_->boot->describe(q).c_str(),
                             bootstrapTimeoutMs()));
  }
  return cclSuccess;
}

void TcpNet::addRegion(uintptr_t begin, uintptr_t end) {
  std::lock_guard<std::mutex> lk(mu_);
  regions_[begin] = end;
}

void TcpNet::removeRegion(uintptr_t begin) {
  std::lock_guard<std::mutex> lk(mu_);
  regions_.erase(begin);
}

bool TcpNet::inRegion(uint64_t addr, uint64_t bytes) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = regions_.upper_bound((uintptr_t)addr);
  if (it == regions_.begin())
    return false;
  --it;
  return addr >= it->first && addr <= it->second &&
         bytes <= it->second - addr;
}

bool TcpNet::waitApplied(int peer, const std::vector<uint64_t> &need) {
  std::vector<Conn *> conns;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto &c : peers_[peer].conns)
      conns.push_back(c.get());
  }
  for (size_t i = 0; i < need.size() && i < conns.size(); i++)
    while (conns[i]->putsApplied.load(std::memory_order_acquire) < need[i]) {
      if (stop_ || aborted(s_))
        return false;
      sched_yield();
    }
  return true;
}

void TcpNet::readLoop(int peer, Conn *c) {
  const int fd = c->fd.get();
  std::vector<uint64_t> counts;
  std::string err;
  // Its staging buffer now, while no kernel runs (allocating pinned memory
  // may wait for the device).
  std::unique_ptr<MemoryAccess> mem = s_->device->memoryAccess(me_);
  void *stage;
  if (!mem || mem->bind() != cclSuccess ||
      mem->staging(kPiece, &stage) != cclSuccess) {
    fail(std::string("a receiving thread: ") + cclGetLastError());
    return;
  }
  for (;;) {
    Header h;
    if (!recvAll(fd, &h, sizeof h, &err))
      break;
    if (h.ncounts > kMaxConnections) {
      err = "malformed frame";
      break;
    }
    counts.resize(h.ncounts);
    if (h.ncounts && !recvAll(fd, counts.data(), 8 * h.ncounts, &err))
      break;
    if (h.type == kPut) {
      if (!inRegion(h.addr, h.value)) {
        err = format("a PUT of %" PRIu64 " bytes at 0x%" PRIx64
                     " is outside this rank's scratch memory",
                     h.value, h.addr);
        break;
      }
      if (h.value > kPiece) {
        err = format("a PUT of %" PRIu64 " bytes, more than a piece (%" PRIu64
                     ")",
                     h.value, kPiece);
        break;
      }
      void *into = reinterpret_cast<void *>(h.addr);
      if (!mem->direct() && mem->staging(kPiece, &into) != cclSuccess) {
        err = cclGetLastError();
        break;
      }
      if (!recvAll(fd, into, h.value, &err)) {
        if (err.empty())
          err = "the connection closed in the middle of a frame";
        break;
      }
      if (!mem->direct() &&
          mem->fromHost(reinterpret_cast<void *>(h.addr), into, h.value) !=
              cclSuccess) {
        err = cclGetLastError();
        break;
      }
      c->putsApplied.fetch_add(1, std::memory_order_release);
    } else if (h.type == kSignal || h.type == kComplete) {
      if (!inRegion(h.addr, 8) || (h.addr & 7)) {
        err = format("a counter write at 0x%" PRIx64
                     " is outside this rank's counters",
                     h.addr);
        break;
      }
      if (h.type == kSignal && !waitApplied(peer, counts))
        return;
      if (mem->store(reinterpret_cast<uint64_t *>(h.addr), h.value) !=
          cclSuccess) {
        err = cclGetLastError();
        break;
      }
    } else if (h.type == kEcho) {
      if (!waitApplied(peer, counts))
        return;
      if (!sendFrame(*c, kComplete, h.addr, h.value, nullptr, 0, &err))
        break;
    } else {
      err = format("a frame of unknown type %u", h.type);
      break;
    }
  }
  // An orderly close between frames is a peer that destroyed its
  // communicator (a peer that died is the bootstrap monitor's report).
  if (!stop_ && !err.empty())
    fail(format("the connection with %s: %s",
                s_->boot->describe(peer).c_str(), err.c_str()));
}

bool TcpNet::sendFrame(Conn &c, uint32_t type, uint64_t addr, uint64_t value,
                       const void *body, uint64_t bodyBytes,
                       std::string *err) {
  Header h{type, 0, addr, value};
  std::lock_guard<std::mutex> lk(c.sendMu);
  return sendAll(c.fd.get(), &h, sizeof h, err) &&
         (!bodyBytes || sendAll(c.fd.get(), body, bodyBytes, err));
}

cclResult_t TcpNet::senderAccess(MemoryAccess **out) {
  std::lock_guard<std::mutex> lk(sendAccessMu_);
  if (!sendAccess_) {
    std::unique_ptr<MemoryAccess> m = s_->device->memoryAccess(me_);
    if (!m)
      return cclInternalError;
    void *stage;
    if (cclResult_t r = m->bind(); r != cclSuccess)
      return r;
    if (cclResult_t r = m->staging(kPiece, &stage); r != cclSuccess)
      return r;
    sendAccess_ = std::move(m);
  }
  *out = sendAccess_.get();
  return cclSuccess;
}

cclResult_t TcpNet::connected(int peer, Peer **out) {
  std::lock_guard<std::mutex> lk(mu_);
  auto it = peers_.find(peer);
  if (it == peers_.end() || it->second.connected != (int)connections_)
    return setError(cclInternalError,
                    format("no TCP connection to rank %d", peer));
  *out = &it->second;
  return cclSuccess;
}

cclResult_t TcpNet::put(int peer, uint64_t dst, const void *src,
                        uint64_t bytes) {
  MemoryAccess *mem;
  Peer *p;
  if (cclResult_t r = senderAccess(&mem); r != cclSuccess)
    return r;
  if (cclResult_t r = connected(peer, &p); r != cclSuccess)
    return r;
  const char *s = static_cast<const char *>(src);
  // Pieces of at most kPiece bytes, round robin over the connections (a
  // put of 0 bytes is one empty frame).
  uint64_t off = 0;
  do {
    uint64_t n = bytes - off < kPiece ? bytes - off : kPiece;
    Conn &c = *p->conns[p->next++ % p->conns.size()];
    const void *from = s + off;
    if (!mem->direct() && n) {
      void *stage;
      if (cclResult_t r = mem->staging(kPiece, &stage); r != cclSuccess)
        return r;
      if (cclResult_t r = mem->toHost(stage, s + off, n); r != cclSuccess)
        return r;
      from = stage;
    }
    std::string err;
    if (!sendFrame(c, kPut, dst + off, n, from, n, &err))
      return setError(cclSystemError, err);
    c.putsSent++;
    off += n;
  } while (off < bytes);
  return cclSuccess;
}

cclResult_t TcpNet::sendOrdered(int peer, uint32_t type, uint64_t addr,
                                uint64_t value) {
  Peer *p;
  if (cclResult_t r = connected(peer, &p); r != cclSuccess)
    return r;
  std::vector<uint64_t> counts;
  for (auto &c : p->conns)
    counts.push_back(c->putsSent);
  Conn &c = *p->conns[0];
  Header h{type, (uint32_t)counts.size(), addr, value};
  std::string err;
  std::lock_guard<std::mutex> lk(c.sendMu);
  if (!sendAll(c.fd.get(), &h, sizeof h, &err) ||
      !sendAll(c.fd.get(), counts.data(), 8 * counts.size(), &err))
    return setError(cclSystemError, err);
  return cclSuccess;
}

cclResult_t TcpNet::signal(int peer, uint64_t addr, uint64_t value) {
  return sendOrdered(peer, kSignal, addr, value);
}

cclResult_t TcpNet::complete(int peer, uint64_t *local, uint64_t value) {
  return sendOrdered(peer, kEcho, reinterpret_cast<uint64_t>(local), value);
}

void TcpNet::stop() {
  if (stop_.exchange(true))
    return;
  if (acceptor_.joinable())
    acceptor_.join();
  std::vector<Conn *> conns;
  {
    std::lock_guard<std::mutex> lk(mu_);
    for (auto &kv : peers_)
      for (auto &c : kv.second.conns)
        if (c)
          conns.push_back(c.get());
  }
  for (Conn *c : conns)
    ::shutdown(c->fd.get(), SHUT_RDWR);
  for (Conn *c : conns)
    if (c->reader.joinable())
      c->reader.join();
}

} // namespace cclrt
