// net.cc - sockets, the bootstrap interface and authenticated links
// (net.h).
#include "net.h"
#include "sha256.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace cclrt {
namespace net {
namespace {

std::string errnoText(const char *what) {
  return std::string(what) + ": " + strerror(errno);
}

void toSockaddr(const wire::Addr &a, sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (a.family == AF_INET6) {
    auto *s6 = reinterpret_cast<sockaddr_in6 *>(ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(a.port);
    memcpy(&s6->sin6_addr, a.ip, 16);
    *len = sizeof *s6;
  } else {
    auto *s4 = reinterpret_cast<sockaddr_in *>(ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(a.port);
    memcpy(&s4->sin_addr, a.ip, 4);
    *len = sizeof *s4;
  }
}

bool fromSockaddr(const sockaddr *sa, wire::Addr *a) {
  *a = wire::Addr();
  if (sa->sa_family == AF_INET) {
    auto *s4 = reinterpret_cast<const sockaddr_in *>(sa);
    a->family = AF_INET;
    a->port = ntohs(s4->sin_port);
    memcpy(a->ip, &s4->sin_addr, 4);
    return true;
  }
  if (sa->sa_family == AF_INET6) {
    auto *s6 = reinterpret_cast<const sockaddr_in6 *>(sa);
    a->family = AF_INET6;
    a->port = ntohs(s6->sin6_port);
    memcpy(a->ip, &s6->sin6_addr, 16);
    return true;
  }
  return false;
}

void unixAddr(const std::string &name, sockaddr_un *un, socklen_t *len) {
  memset(un, 0, sizeof *un);
  un->sun_family = AF_UNIX;
  // Abstract namespace: a leading NUL, no file in the file system.
  memcpy(un->sun_path + 1, name.data(), name.size());
  *len = (socklen_t)(offsetof(sockaddr_un, sun_path) + 1 + name.size());
}

// Waits until fd is readable / writable or the deadline passes.
bool waitFd(int fd, short events, const Deadline &d) {
  for (;;) {
    pollfd p{fd, events, 0};
    int r = poll(&p, 1, d.pollMs());
    if (r > 0)
      return true;
    if (r == 0)
      return false;
    if (errno != EINTR)
      return true; // let the read or write report the error
  }
}

// Reads exactly n bytes. Collects a passed descriptor into *fd when given.
RecvStatus readFull(int fd, void *buf, size_t n, const Deadline &d, Fd *passed,
                    bool atFrameStart, std::string *err) {
  char *p = static_cast<char *>(buf);
  size_t got = 0;
  while (got < n) {
    if (!waitFd(fd, POLLIN, d)) {
      *err = "timed out waiting for data";
      return RecvStatus::kTimeout;
    }
    iovec iov{p + got, n - got};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t r = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN)
        continue;
      *err = errnoText("recv");
      return errno == ECONNRESET && atFrameStart && got == 0
                 ? RecvStatus::kClosed
                 : RecvStatus::kBad;
    }
    for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        int f;
        memcpy(&f, CMSG_DATA(c), sizeof f);
        if (passed && !*passed)
          *passed = Fd(f);
        else
          ::close(f); // unexpected: never leak it
      }
    if (r == 0) {
      *err = got == 0 && atFrameStart ? "connection closed"
                                      : "connection closed inside a frame";
      return got == 0 && atFrameStart ? RecvStatus::kClosed : RecvStatus::kBad;
    }
    got += (size_t)r;
  }
  return RecvStatus::kOk;
}

bool writeFull(int fd, const void *buf, size_t n, int passFd,
               const Deadline &d, std::string *err) {
  const char *p = static_cast<const char *>(buf);
  size_t sent = 0;
  while (sent < n) {
    if (!waitFd(fd, POLLOUT, d)) {
      *err = "timed out sending";
      return false;
    }
    iovec iov{const_cast<char *>(p + sent), n - sent};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (passFd >= 0 && sent == 0) {
      msg.msg_control = control;
      msg.msg_controllen = sizeof control;
      cmsghdr *c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(int));
      memcpy(CMSG_DATA(c), &passFd, sizeof passFd);
    }
    ssize_t r = sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN)
        continue;
      *err = errnoText("send");
      return false;
    }
    sent += (size_t)r;
  }
  return true;
}

// The interface of the IPv4 default route (/proc/net/route), or "".
std::string defaultRouteInterface() {
  std::ifstream f("/proc/net/route");
  std::string line;
  std::getline(f, line); // header
  while (std::getline(f, line)) {
    char ifname[64];
    unsigned long dest, gw, flags;
    if (sscanf(line.c_str(), "%63s %lx %lx %lx", ifname, &dest, &gw, &flags) ==
            4 &&
        dest == 0 && (flags & 1 /* RTF_UP */))
      return ifname;
  }
  return "";
}

// The first IPv4 (else IPv6) address of interface `name`.
bool interfaceAddress(const std::string &name, wire::Addr *out) {
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) != 0)
    return false;
  bool found = false;
  for (int want : {AF_INET, AF_INET6})
    for (ifaddrs *i = list; i && !found; i = i->ifa_next)
      if (i->ifa_addr && i->ifa_addr->sa_family == want && name == i->ifa_name &&
          (i->ifa_flags & IFF_UP))
        found = fromSockaddr(i->ifa_addr, out);
  freeifaddrs(list);
  return found;
}

} // namespace

Deadline Deadline::in(uint64_t ms) {
  if (ms > (uint64_t)24 * 3600 * 1000 * 365)
    return never();
  return {Clock::now() + std::chrono::milliseconds(ms)};
}

int Deadline::pollMs() const {
  if (at == Clock::time_point::max())
    return -1;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                  at - Clock::now())
                  .count();
  if (left <= 0)
    return 0;
  return left > 1000000 ? 1000000 : (int)left;
}

Fd &Fd::operator=(Fd &&o) noexcept {
  if (this != &o) {
    reset();
    fd_ = o.release();
  }
  return *this;
}

void Fd::reset() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

bool randomBytes(void *out, size_t n) {
  char *p = static_cast<char *>(out);
  while (n) {
    ssize_t r = getrandom(p, n, 0);
    if (r < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    p += r;
    n -= (size_t)r;
  }
  return true;
}

bool bootstrapAddress(wire::Addr *out, std::string *why, std::string *err) {
  const char *env = getenv("CCL_SOCKET_IFNAME");
  if (env && *env) {
    if (!interfaceAddress(env, out)) {
      *err = std::string("CCL_SOCKET_IFNAME=") + env +
             " names no interface that is up with an IP address";
      return false;
    }
    *why = std::string("interface ") + env + " (CCL_SOCKET_IFNAME)";
    return true;
  }
  std::string dflt = defaultRouteInterface();
  if (!dflt.empty() && interfaceAddress(dflt, out)) {
    *why = "interface " + dflt + " (default route)";
    return true;
  }
  *out = wire::Addr();
  out->family = AF_INET;
  out->ip[0] = 127;
  out->ip[3] = 1;
  *why = "loopback (no default route)";
  return true;
}

std::string hostIdentity() {
  const char *env = getenv("CCL_HOST_ID");
  if (env && *env)
    return std::string(env).substr(0, wire::kMaxHostId);
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  std::string boot;
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::getline(f, boot);
  return (std::string(host) + "/" + boot).substr(0, wire::kMaxHostId);
}

bool parseHostPort(const std::string &s, wire::Addr *out, std::string *err) {
  std::string host, port;
  if (!s.empty() && s[0] == '[') {
    size_t close = s.find(']');
    if (close == std::string::npos || close + 1 >= s.size() ||
        s[close + 1] != ':') {
      *err = "\"" + s + "\" is not [IPv6]:port";
      return false;
    }
    host = s.substr(1, close - 1);
    port = s.substr(close + 2);
  } else {
    size_t colon = s.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      *err = "\"" + s + "\" is not host:port";
      return false;
    }
    host = s.substr(0, colon);
    port = s.substr(colon + 1);
  }
  char *end = nullptr;
  unsigned long p = strtoul(port.c_str(), &end, 10);
  if (port.empty() || *end || p == 0 || p > 65535) {
    *err = "\"" + port + "\" in \"" + s + "\" is not a port (1-65535)";
    return false;
  }
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) {
    *err = "cannot resolve \"" + host + "\": " + gai_strerror(rc);
    return false;
  }
  bool ok = false;
  for (addrinfo *i = res; i && !ok; i = i->ai_next)
    ok = fromSockaddr(i->ai_addr, out);
  freeaddrinfo(res);
  if (!ok) {
    *err = "\"" + host + "\" has no IPv4 or IPv6 address";
    return false;
  }
  out->port = (uint16_t)p;
  return true;
}

bool listenTcp(const wire::Addr &addr, Fd *out, wire::Addr *bound,
               std::string *err) {
  Fd fd(socket(addr.family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) {
    *err = errnoText("socket");
    return false;
  }
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage ss;
  socklen_t len;
  toSockaddr(addr, &ss, &len);
  if (bind(fd.get(), reinterpret_cast<sockaddr *>(&ss), len) != 0) {
    *err = errnoText(("bind " + wire::addrString(addr)).c_str());
    return false;
  }
  if (listen(fd.get(), 256) != 0) {
    *err = errnoText("listen");
    return false;
  }
  len = sizeof ss;
  getsockname(fd.get(), reinterpret_cast<sockaddr *>(&ss), &len);
  fromSockaddr(reinterpret_cast<sockaddr *>(&ss), bound);
  *out = std::move(fd);
  return true;
}

bool listenUnix(Fd *out, std::string *name, std::string *err) {
  uint8_t r[12];
  if (!randomBytes(r, sizeof r)) {
    *err = errnoText("getrandom");
    return false;
  }
  *name = "cclrt-" + wire::hex(r, sizeof r);
  Fd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un un;
  socklen_t len;
  unixAddr(*name, &un, &len);
  if (!fd || bind(fd.get(), reinterpret_cast<sockaddr *>(&un), len) != 0 ||
      listen(fd.get(), 256) != 0) {
    *err = errnoText("Unix socket");
    return false;
  }
  *out = std::move(fd);
  return true;
}

bool acceptOne(int listenFd, const Deadline &d, Fd *out, std::string *peer,
               std::string *err) {
  for (;;) {
    if (!waitFd(listenFd, POLLIN, d)) {
      *err = "timed out";
      return false;
    }
    sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int fd = accept4(listenFd, reinterpret_cast<sockaddr *>(&ss), &len,
                     SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED)
        continue;
      *err = errnoText("accept");
      return false;
    }
    wire::Addr a;
    *peer = fromSockaddr(reinterpret_cast<sockaddr *>(&ss), &a)
                ? wire::addrString(a)
                : std::string("a local process");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    *out = Fd(fd);
    return true;
  }
}

namespace {

template <typename MakeAddr>
bool connectRetrying(int family, MakeAddr make, const Deadline &d, Fd *out,
                     const std::string &what, std::string *err,
                     const std::function<std::string()> &giveUp) {
  int delayMs = 10;
  for (;;) {
    Fd fd(socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd) {
      *err = errnoText("socket");
      return false;
    }
    sockaddr_storage ss;
    socklen_t len;
    make(&ss, &len);
    if (connect(fd.get(), reinterpret_cast<sockaddr *>(&ss), len) == 0) {
      if (family != AF_UNIX) {
        int one = 1;
        setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      }
      *out = std::move(fd);
      return true;
    }
    int e = errno;
    if (e != ECONNREFUSED && e != ENOENT && e != EINTR && e != ETIMEDOUT &&
        e != EAGAIN && e != ENETUNREACH && e != EHOSTUNREACH) {
      *err = "connecting to " + what + ": " + strerror(e);
      return false;
    }
    if (e == ECONNREFUSED && giveUp) {
      std::string why = giveUp();
      if (!why.empty()) {
        *err = "connecting to " + what + ": " + why;
        return false;
      }
    }
    if (d.passed()) {
      *err = "connecting to " + what + " timed out (" + strerror(e) + ")";
      return false;
    }
    int left = d.pollMs();
    std::this_thread::sleep_for(std::chrono::milliseconds(
        left >= 0 && left < delayMs ? left : delayMs));
    delayMs = delayMs < 200 ? delayMs * 2 : 200;
  }
}

} // namespace

bool connectTcp(const wire::Addr &addr, const Deadline &d, Fd *out,
                std::string *err, const std::function<std::string()> &giveUp) {
  return connectRetrying(
      addr.family,
      [&](sockaddr_storage *ss, socklen_t *len) { toSockaddr(addr, ss, len); },
      d, out, wire::addrString(addr), err, giveUp);
}

uint32_t processHostKey() {
  char ns[64] = "";
  ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
  ns[n > 0 ? n : 0] = 0;
  Sha256 h;
  h.updateString(hostIdentity().c_str());
  h.updateString(ns);
  Digest d = h.finish();
  return d[0] | (uint32_t)d[1] << 8 | (uint32_t)d[2] << 16;
}

bool isLocalAddress(const wire::Addr &addr) {
  Fd fd(socket(addr.family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd)
    return false;
  wire::Addr any = addr;
  any.port = 0;
  sockaddr_storage ss;
  socklen_t len;
  toSockaddr(any, &ss, &len);
  return bind(fd.get(), reinterpret_cast<sockaddr *>(&ss), len) == 0;
}

bool connectUnix(const std::string &name, const Deadline &d, Fd *out,
                 std::string *err) {
  return connectRetrying(
      AF_UNIX,
      [&](sockaddr_storage *ss, socklen_t *len) {
        unixAddr(name, reinterpret_cast<sockaddr_un *>(ss), len);
      },
      d, out, "Unix socket @" + name, err, {});
}

RecvStatus Link::acceptHandshake(Fd fd, const uint8_t *secret,
                                 bool unixSocket, const Deadline &d, Link *out,
                                 Frame *first, std::string *err) {
  uint8_t challenge[wire::kChallengeBytes];
  uint32_t magic = wire::kChallengeMagic, version = wire::kVersion;
  memcpy(challenge, &magic, 4);
  memcpy(challenge + 4, &version, 4);
  uint8_t *nonce = challenge + 8;
  if (!randomBytes(nonce, wire::kNonceBytes)) {
    *err = errnoText("getrandom");
    return RecvStatus::kBad;
  }
  if (!writeFull(fd.get(), challenge, sizeof challenge, -1, d, err))
    return RecvStatus::kBad;
  uint8_t theirs[wire::kNonceBytes];
  RecvStatus st =
      readFull(fd.get(), theirs, sizeof theirs, d, nullptr, true, err);
  if (st != RecvStatus::kOk)
    return st == RecvStatus::kClosed ? RecvStatus::kBad : st;
  out->fd_ = std::move(fd);
  out->key_ = wire::sessionKey(secret, nonce, theirs);
  out->unix_ = unixSocket;
  out->sendSeq_ = out->recvSeq_ = 0;
  st = out->recv(first, d, err);
  if (st == RecvStatus::kClosed) {
    *err = "connection closed before its first frame";
    return RecvStatus::kBad;
  }
  return st;
}

bool Link::connectHandshake(Fd fd, const uint8_t *secret, bool unixSocket,
                            const Deadline &d, Link *out, std::string *err) {
  uint8_t challenge[wire::kChallengeBytes];
  if (readFull(fd.get(), challenge, sizeof challenge, d, nullptr, false,
               err) != RecvStatus::kOk)
    return false;
  uint32_t magic, version;
  memcpy(&magic, challenge, 4);
  memcpy(&version, challenge + 4, 4);
  if (magic != wire::kChallengeMagic || version != wire::kVersion) {
    *err = "the peer is not a libcclrt bootstrap listener of this version";
    return false;
  }
  if (!randomBytes(out->pendingNonce_, wire::kNonceBytes)) {
    *err = errnoText("getrandom");
    return false;
  }
  out->fd_ = std::move(fd);
  out->key_ = wire::sessionKey(secret, challenge + 8, out->pendingNonce_);
  out->unix_ = unixSocket;
  out->sendNonce_ = true;
  out->sendSeq_ = out->recvSeq_ = 0;
  return true;
}

bool Link::send(uint8_t type, uint32_t from, uint64_t tag,
                const std::string &payload, int passFd, const Deadline &d,
                std::string *err) {
  std::lock_guard<std::mutex> lk(sendMu_);
  if (!fd_) {
    *err = "the link is closed";
    return false;
  }
  if (payload.size() > wire::kMaxPayload) {
    *err = "message too large";
    return false;
  }
  wire::Header h;
  h.type = type;
  h.nfds = passFd >= 0 ? 1 : 0;
  h.from = from;
  h.length = (uint32_t)payload.size();
  h.seq = ++sendSeq_;
  h.tag = tag;
  std::string buf;
  buf.reserve(wire::kNonceBytes + wire::kHeaderBytes + payload.size() +
              wire::kMacBytes);
  if (sendNonce_)
    buf.append((const char *)pendingNonce_, wire::kNonceBytes);
  uint8_t hdr[wire::kHeaderBytes];
  wire::encodeHeader(h, hdr);
  buf.append((const char *)hdr, sizeof hdr);
  buf += payload;
  Digest mac = wire::frameMac(
      key_, hdr, reinterpret_cast<const uint8_t *>(payload.data()),
      payload.size());
  buf.append((const char *)mac.data(), mac.size());
  if (!writeFull(fd_.get(), buf.data(), buf.size(), passFd, d, err))
    return false;
  sendNonce_ = false;
  return true;
}

RecvStatus Link::recv(Frame *f, const Deadline &d, std::string *err) {
  uint8_t hdr[wire::kHeaderBytes];
  f->fd.reset();
  RecvStatus st = readFull(fd_.get(), hdr, sizeof hdr, d, &f->fd, true, err);
  if (st != RecvStatus::kOk)
    return st;
  if (!wire::decodeHeader(hdr, &f->h)) {
    *err = "malformed frame header (not a libcclrt bootstrap message, or an "
           "oversized one)";
    return RecvStatus::kBad;
  }
  f->payload.resize(f->h.length);
  if (f->h.length &&
      (st = readFull(fd_.get(), &f->payload[0], f->h.length, d, &f->fd, false,
                     err)) != RecvStatus::kOk)
    return st == RecvStatus::kTimeout ? st : RecvStatus::kBad;
  uint8_t mac[wire::kMacBytes];
  if ((st = readFull(fd_.get(), mac, sizeof mac, d, &f->fd, false, err)) !=
      RecvStatus::kOk)
    return st == RecvStatus::kTimeout ? st : RecvStatus::kBad;
  Digest want = wire::frameMac(
      key_, hdr, reinterpret_cast<const uint8_t *>(f->payload.data()),
      f->payload.size());
  if (!digestEqual(want.data(), mac, sizeof mac)) {
    *err = "message authentication failed (wrong secret: not a rank of this "
           "job)";
    return RecvStatus::kBad;
  }
  if (f->h.seq != recvSeq_ + 1) {
    *err = "message out of sequence (replayed or lost)";
    return RecvStatus::kBad;
  }
  recvSeq_++;
  if ((f->h.nfds != 0) != (bool)f->fd || (f->fd && !unix_)) {
    *err = "file descriptor missing or unexpected";
    return RecvStatus::kBad;
  }
  return RecvStatus::kOk;
}

void Link::shutdown() {
  if (fd_)
    ::shutdown(fd_.get(), SHUT_RDWR);
}

} // namespace net
} // namespace cclrt
