// net.h - sockets for the bootstrap (docs/runtime.md, "Bootstrap"):
// deadlines, the bootstrap interface, TCP and abstract Unix-domain
// listeners and connections, and Link: an authenticated, framed connection
// (challenge, session key, a MAC and a sequence number on every frame,
// file descriptors passed on Unix links).
#ifndef CCLRT_NET_H
#define CCLRT_NET_H

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

#include "wire.h"

namespace cclrt {
namespace net {

using Clock = std::chrono::steady_clock;

struct Deadline {
  Clock::time_point at;
  static Deadline in(uint64_t ms);
  static Deadline never() { return {Clock::time_point::max()}; }
  // Milliseconds left for poll(): -1 for never, 0 when passed.
  int pollMs() const;
  bool passed() const { return Clock::now() >= at; }
};

// An owned file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd &&o) noexcept : fd_(o.release()) {}
  Fd &operator=(Fd &&o) noexcept;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset();
  explicit operator bool() const { return fd_ >= 0; }

private:
  int fd_ = -1;
};

// Random bytes from the kernel (getrandom). False if it failed.
bool randomBytes(void *out, size_t n);

// The address ranks listen on: the interface CCL_SOCKET_IFNAME names, else
// the one of the default route, else loopback. *why says which.
bool bootstrapAddress(wire::Addr *out, std::string *why, std::string *err);
// This machine's identity: CCL_HOST_ID, else hostname and boot id.
std::string hostIdentity();
// Parses "host:port" / "[v6]:port" (host resolved with getaddrinfo).
bool parseHostPort(const std::string &s, wire::Addr *out, std::string *err);

// A listening TCP socket on `addr` (port 0: any); *bound gets the address.
bool listenTcp(const wire::Addr &addr, Fd *out, wire::Addr *bound,
               std::string *err);
// A listening abstract Unix socket, name "cclrt-<random>".
bool listenUnix(Fd *out, std::string *name, std::string *err);
// Accepts one connection (waits until `d`). *peer describes it.
bool acceptOne(int listenFd, const Deadline &d, Fd *out, std::string *peer,
               std::string *err);
// Connects, retrying refused connections until `d` (the listener may not be
// up yet). `giveUp`, when set, is asked after each refusal: a non-empty
// answer ends the retries with that error (a listener known to be gone).
bool connectTcp(const wire::Addr &addr, const Deadline &d, Fd *out,
                std::string *err,
                const std::function<std::string()> &giveUp = {});
// 24 bits of a hash of what two processes share exactly when one can look
// the other's pid up: the host identity (hostname and boot id) and the pid
// namespace.
uint32_t processHostKey();
// Whether `addr`'s IP is one of this host's (a socket can be bound to it).
bool isLocalAddress(const wire::Addr &addr);
bool connectUnix(const std::string &name, const Deadline &d, Fd *out,
                 std::string *err);

struct Frame {
  wire::Header h;
  std::string payload;
  Fd fd; // passed with the frame, if any
};

enum class RecvStatus { kOk, kClosed, kTimeout, kBad };

// An authenticated connection to a peer (or the root).
class Link {
public:
  Link() = default;
  Link(Fd fd, const Digest &key, bool unixSocket)
      : fd_(std::move(fd)), key_(key), unix_(unixSocket) {}
  // The acceptor's side: sends a challenge, reads the connector's nonce and
  // first frame (checked against `secret`). kBad with *err naming the
  // cause: "wrong secret", "malformed frame", ...
  static RecvStatus acceptHandshake(Fd fd, const uint8_t *secret,
                                    bool unixSocket, const Deadline &d,
                                    Link *out, Frame *first, std::string *err);
  // The connector's side: reads the challenge and derives the session key;
  // the first frame it sends then authenticates it.
  static bool connectHandshake(Fd fd, const uint8_t *secret, bool unixSocket,
                               const Deadline &d, Link *out, std::string *err);

  // Sends one frame (thread-safe). `passFd` >= 0 goes along (Unix links).
  bool send(uint8_t type, uint32_t from, uint64_t tag,
            const std::string &payload, int passFd, const Deadline &d,
            std::string *err);
  // Receives one frame: checks its header, MAC and sequence number. kClosed:
  // the peer closed the connection before the frame started.
  RecvStatus recv(Frame *f, const Deadline &d, std::string *err);
  int fd() const { return fd_.get(); }
  bool valid() const { return (bool)fd_; }
  void close() { fd_.reset(); }
  // Stops blocking I/O on the link in other threads (shutdown).
  void shutdown();

private:
  Fd fd_;
  Digest key_{};
  bool unix_ = false;
  uint8_t pendingNonce_[wire::kNonceBytes] = {};
  bool sendNonce_ = false; // connector: the nonce goes before the 1st frame
  uint64_t sendSeq_ = 0, recvSeq_ = 0;
  std::mutex sendMu_;
};

} // namespace net
} // namespace cclrt

#endif // CCLRT_NET_H
