// ib.h - the rdma-core verbs transport of port channels between hosts
// (docs/runtime.md, "The proxy"): reliable-connected queue pairs to the
// ranks of other hosts (several per peer), RDMA WRITEs for puts and
// signals, and the registrations they need. libibverbs is loaded at run
// time (CCL_IBVERBS_LIB, else libibverbs.so.1), so one build runs on
// machines with and without RDMA.
//
// A put is an RDMA WRITE of pieces (at most kPiece bytes each, round robin
// over the peer's queue pairs) into the peer's arena, whose registration
// key travels with the plan's exchange record. The source is sent in place
// when it lies in memory this process registered (an arena: scratch and
// counters); otherwise it is first copied into a registered bounce buffer
// (host memory; pinned on GPUs), so user buffers are never registered and
// a freed buffer can never leave a stale registration behind.
//
// Ordering: a reliable connection applies the writes of one queue pair in
// order, but not those of different queue pairs. So a signal (an 8-byte
// RDMA WRITE of the channel's new absolute count into the peer's counter)
// is posted only once every earlier write to that peer has completed
// (an RDMA WRITE completes at the sender when the responder has
// acknowledged it), and a completion (the proxy's port_done) is written
// locally once they have. Every work request is signalled; errors in
// completions stop the transport with a message naming the peer, the
// queue pair and the work completion's status.
#ifndef CCLRT_IB_H
#define CCLRT_IB_H

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "device.h"
#include "proxy.h"

namespace cclrt {

// Sizes shared by ib.cc (setup) and ib_post.cc (posting).
constexpr uint64_t kIbPiece = 1ull << 20; // puts above this are split
constexpr int kIbSlots = 8;               // bounce slots of kIbPiece bytes
constexpr uint32_t kIbSignalSlots = 4096; // source words of signals
constexpr int kIbPollBatch = 16;          // completions per poll
// CLOCK_MONOTONIC in nanoseconds (the transport's timeouts).
uint64_t ibNowNs();

// The entry points of libibverbs this transport uses (ibv_post_send and
// ibv_poll_cq are inline in verbs.h: they call the context's ops).
struct Verbs {
  ibv_device **(*getDeviceList)(int *num);
  void (*freeDeviceList)(ibv_device **list);
  const char *(*getDeviceName)(ibv_device *dev);
  ibv_context *(*openDevice)(ibv_device *dev);
  int (*closeDevice)(ibv_context *ctx);
  int (*queryDevice)(ibv_context *ctx, ibv_device_attr *attr);
  // The exported symbol's own type (verbs.h wraps it in a macro that passes
  // a full ibv_port_attr, of which the library writes the compat prefix).
  int (*queryPort)(ibv_context *ctx, uint8_t port, _compat_ibv_port_attr *attr);
  int (*queryGid)(ibv_context *ctx, uint8_t port, int index, ibv_gid *gid);
  ibv_pd *(*allocPd)(ibv_context *ctx);
  int (*deallocPd)(ibv_pd *pd);
  ibv_mr *(*regMr)(ibv_pd *pd, void *addr, size_t length, int access);
  int (*deregMr)(ibv_mr *mr);
  ibv_cq *(*createCq)(ibv_context *ctx, int cqe, void *cqContext,
                      ibv_comp_channel *channel, int vector);
  int (*destroyCq)(ibv_cq *cq);
  ibv_qp *(*createQp)(ibv_pd *pd, ibv_qp_init_attr *attr);
  int (*destroyQp)(ibv_qp *qp);
  int (*modifyQp)(ibv_qp *qp, ibv_qp_attr *attr, int mask);
  const char *(*wcStatusStr)(ibv_wc_status status);

  // Loads the library once; null and *err (why) when it or one of the
  // entry points is missing.
  static const Verbs *load(std::string *err);
};

// Which transport reaches other hosts: CCL_NET = auto (the default: verbs
// when a device with an active port is found and the arena can be
// registered, else TCP), ib (verbs or an error) or tcp.
enum class NetChoice { kAuto, kIb, kTcp };
cclResult_t netChoice(NetChoice *out);

class IbNet {
public:
  // Loads libibverbs and opens the device (CCL_IB_DEVICE=name[:port],
  // else the first device with an active port), its protection domain and
  // completion queue. Errors set the thread's error.
  static cclResult_t create(Shared *s, std::unique_ptr<IbNet> *out);
  ~IbNet(); // stop()

  // For one plan: registers this rank's arena [base, base + bytes)
  // (remote writes land there; puts from it are sent in place) and creates
  // the queue pairs to the peers of `peers` that have none yet.
  cclResult_t prepare(void *base, uint64_t bytes,
                      const std::vector<int> &peers);
  // What the peers need (after prepare): the port's address, the arena's
  // key and the queue pair numbers for each peer of `peers`.
  std::string record(void *base, const std::vector<int> &peers) const;
  // Connects the queue pairs of the peers not connected yet, from their
  // records (indexed by rank), and learns their arenas' keys. The caller
  // makes sure every rank is ready (an agreement step) before anything is
  // written.
  cclResult_t connect(const std::vector<int> &peers,
                      const std::vector<std::string> &records);
  // Drops the arena's registration (releasePlan) and the peers' arena keys
  // learnt with it.
  void removeArena(void *base);
  // Destroys the queue pairs and everything else.
  void stop();
  // Device name and port, for messages.
  std::string describe() const;

  // Sending (the proxy thread; see the header comment).
  cclResult_t put(int peer, uint64_t dst, const void *src, uint64_t bytes);
  cclResult_t signal(int peer, uint64_t addr, uint64_t value);
  cclResult_t complete(int peer, uint64_t *local, uint64_t value);
  void drain();

private:
  struct LocalRegion {
    uintptr_t end;
    ibv_mr *mr;
  };
  struct RemoteRegion {
    uint64_t end;
    uint32_t rkey;
    uintptr_t localArena; // the arena whose record taught it
  };
  struct Peer {
    std::vector<ibv_qp *> qps;
    std::vector<uint32_t> outstanding; // per queue pair
    bool connected = false;
    uint64_t posted = 0;                      // data writes posted
    uint64_t completed = 0;                   // data writes completed
    size_t next = 0;                          // round robin of pieces
    std::map<uint64_t, RemoteRegion> regions; // by base
  };
  struct Inflight {
    int peer;
    uint32_t qp;
    int slot;  // bounce slot, -1: none
    bool data; // a put piece (counted in posted/completed)
  };
  IbNet(Shared *s) : s_(s) {}
  cclResult_t open();
  cclResult_t createQps(int peer);
  cclResult_t connectQps(int peer, const uint8_t *gid, uint16_t lid,
                         uint32_t mtu, const uint32_t *qpns);
  // Posts one RDMA WRITE to the peer's queue pair `qp` (waiting for room).
  cclResult_t post(int peer, uint32_t qp, uint64_t dst, uint32_t rkey,
                   const void *src, uint32_t lkey, uint64_t bytes, int slot,
                   bool data, bool inlined);
  // Takes completions; an error completion fails the transport.
  cclResult_t progress();
  // Progresses until pred() holds, the communicator aborts or the
  // communicator's timeout passes.
  template <typename P>
  cclResult_t waitUntil(P pred, const char *what, int peer);
  // The local registration covering [p, p + n), or null.
  ibv_mr *localMr(const void *p, uint64_t n);
  // The peer's key for [addr, addr + n); false when none covers it.
  bool remoteKey(Peer &p, uint64_t addr, uint64_t n, uint32_t *rkey);
  cclResult_t failWith(cclResult_t code, const std::string &why);
  cclResult_t bounce(MemoryAccess **mem);

  Shared *s_;
  int me_ = 0;
  const Verbs *v_ = nullptr;
  std::mutex mu_; // everything below
  ibv_context *ctx_ = nullptr;
  ibv_pd *pd_ = nullptr;
  ibv_cq *cq_ = nullptr;
  std::string devName_;
  uint8_t port_ = 1;
  int gidIndex_ = 0;
  ibv_gid gid_{};
  uint16_t lid_ = 0;
  bool global_ = false; // the link layer needs GIDs (RoCE)
  uint32_t mtu_ = 0;    // ibv_mtu
  uint32_t qpsPerPeer_ = 2;
  uint32_t depth_ = 256;            // send work requests per queue pair
  uint32_t maxInline_ = UINT32_MAX; // what every queue pair accepts inline
  std::map<int, Peer> peers_;
  std::map<uintptr_t, LocalRegion> local_;
  // The bounce buffer (slots of kPiece bytes) and the signals' sources.
  std::unique_ptr<MemoryAccess> mem_;
  void *bounce_ = nullptr;
  ibv_mr *bounceMr_ = nullptr;
  std::vector<bool> slotBusy_;
  uint64_t *sigBuf_ = nullptr;
  ibv_mr *sigMr_ = nullptr;
  uint64_t sigSeq_ = 0;
  std::vector<uint64_t> sigWr_; // the work request that last used a word
  uint64_t nextId_ = 1;
  std::map<uint64_t, Inflight> inflight_;
  std::string failure_; // set once: the transport is stopped
  bool stopped_ = false;
};

// The transport of a proxy to ranks of other hosts over verbs.
class IbTransport final : public Transport {
public:
  explicit IbTransport(IbNet *net) : net_(net) {}
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
  void drain() override { net_->drain(); }

private:
  IbNet *net_;
};

} // namespace cclrt

#endif // CCLRT_IB_H
