// tcp.h - the TCP transport of port channels between hosts (docs/runtime.md,
// "The proxy"): a process's connections to the ranks of other hosts
// (several per peer), the threads that apply what arrives, and the
// Transport a proxy uses to reach those ranks.
//
// Every process of a multi-process communicator whose plans have port
// channels to another host listens on the bootstrap's interface; the lower
// rank of each pair opens `connections` TCP connections to the higher one
// and presents the acceptor's 32-byte token (exchanged over the
// authenticated bootstrap). Frames on a connection:
//   PUT      addr, bytes, then the bytes: written at addr (the receiver's
//            memory, inside a registered region)
//   SIGNAL   addr, value, then the sender's PUT count per connection: once
//            that many PUTs of each connection have been applied, value is
//            stored at addr (release)
//   ECHO     addr, value, counts: once the counts are applied, the
//            receiver sends COMPLETE addr, value back on the same connection
//   COMPLETE addr, value: stored at addr in the original sender's memory
// So a signal lands after every put the proxy queued to that peer before
// it, on whichever connection, and a completion count (the proxy's
// port_done) only once they have all been written at the peer.
// On the host target the receiver writes the bytes straight into its
// memory and the sender sends straight from it; on GPUs both go through
// pinned staging buffers (MemoryAccess, device.h): the sender copies a
// piece of the source to the host, then sends it; the receiver receives a
// piece, then copies it to the device; counters are written with
// cuStreamWriteValue64.
#ifndef CCLRT_TCP_H
#define CCLRT_TCP_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device.h"
#include "net.h"
#include "proxy.h"

namespace cclrt {

class TcpNet {
public:
  // Listens on the bootstrap's interface (the address the peers know this
  // process by). Errors set the thread's error.
  static cclResult_t create(Shared *s, std::unique_ptr<TcpNet> *out);
  ~TcpNet(); // stop()
  // What the peers need to connect: the port and the token.
  std::string record() const;
  // Connects to (or waits for the connections of) every rank in `peers`
  // not connected yet, from their records (indexed by rank); bounded by
  // the bootstrap's timeout.
  cclResult_t connect(const std::vector<int> &peers,
                      const std::vector<std::string> &records);
  // Memory PUT, SIGNAL and COMPLETE frames may write: [begin, end).
  void addRegion(uintptr_t begin, uintptr_t end);
  void removeRegion(uintptr_t begin);
  // Closes every connection and joins the threads.
  void stop();

  // Sending (a proxy thread; see the frames above).
  cclResult_t put(int peer, uint64_t dst, const void *src, uint64_t bytes);
  cclResult_t signal(int peer, uint64_t addr, uint64_t value);
  cclResult_t complete(int peer, uint64_t *local, uint64_t value);

private:
  struct Conn {
    net::Fd fd;
    std::mutex sendMu;
    std::thread reader;
    uint64_t putsSent = 0;                // PUT frames sent on it
    std::atomic<uint64_t> putsApplied{0}; // PUT frames received and written
  };
  struct Peer {
    std::vector<std::unique_ptr<Conn>> conns; // `connections_` of them
    int connected = 0;
    size_t next = 0; // round robin of PUT pieces
  };
  TcpNet(Shared *s) : s_(s) {}
  void acceptLoop();
  void readLoop(int peer, Conn *c);
  // Adopts an authenticated connection (index `idx` of `peer`).
  bool adopt(int peer, uint32_t idx, net::Fd fd, std::string *err);
  bool inRegion(uint64_t addr, uint64_t bytes);
  bool waitApplied(int peer, const std::vector<uint64_t> &need);
  bool sendFrame(Conn &c, uint32_t type, uint64_t addr, uint64_t value,
                 const void *body, uint64_t bodyBytes, std::string *err);
  cclResult_t sendOrdered(int peer, uint32_t type, uint64_t addr,
                          uint64_t value);
  // The peer, once all its connections are up; else an error.
  cclResult_t connected(int peer, Peer **out);
  void fail(const std::string &why);

  // The proxy thread's access to this rank's memory (created on its first
  // send, on that thread).
  cclResult_t senderAccess(MemoryAccess **out);

  Shared *s_;
  int me_ = 0;
  std::mutex sendAccessMu_;
  std::unique_ptr<MemoryAccess> sendAccess_;
  uint32_t connections_ = 2;
  uint8_t token_[32] = {};
  uint16_t port_ = 0;
  net::Fd listen_;
  std::thread acceptor_;
  std::atomic<bool> stop_{false};
  std::mutex mu_; // peers_, regions_
  std::condition_variable cv_;
  std::map<int, Peer> peers_;
  std::map<uintptr_t, uintptr_t> regions_;
  std::vector<std::string> records_; // the peers' records (tokens)
};

// The transport of a proxy to ranks of other hosts, over `net`.
class TcpTransport final : public Transport {
public:
  explicit TcpTransport(TcpNet *net) : net_(net) {}
  cclResult_t put(int peer, void *dst, const void *src,
                  uint64_t bytes) override {
    return net_->put(peer, reinterpret_cast<uint64_t>(dst), src, bytes);
  }
  cclResult_t signal(int peer, uint64_t *addr, uint64_t value) override {
    return net_->signal(peer, reinterpret_cast<uint64_t>(addr), value);
  }
  cclResult_t complete(int peer, uint64_t *addr, uint64_t value) override {
    return net_->complete(peer, addr, value);
  }
  void drain() override {}

private:
  TcpNet *net_;
};

} // namespace cclrt

#endif // CCLRT_TCP_H
