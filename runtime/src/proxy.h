// proxy.h - the host proxy of port channels (docs/runtime.md, "The
// proxy"). A kernel hands each put, signal and flush on a port channel to
// its rank's proxy as a trigger in the channel's FIFO (ccl_trigger,
// ccl/plan.h); the proxy, a thread the communicator owns for each of its
// local ranks that is the source of a port channel, takes the triggers in
// order and has a Transport execute them: copy engines on GPUs of one host
// (CUDA streams), memcpy on the host target.
#ifndef CCLRT_PROXY_H
#define CCLRT_PROXY_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "internal.h"

namespace cclrt {

// How one rank's proxy moves bytes and writes counters. Every method runs
// on the proxy's thread; a failure sets the thread's error (setError) and
// the proxy stops with it.
class Transport {
public:
  virtual ~Transport() = default;
  // Called on the proxy thread before anything else (CUDA: makes the
  // rank's context current).
  virtual cclResult_t bind() { return cclSuccess; }
  // Queues a copy of `bytes` from `src` (this rank's memory) to `dst` (peer
  // `peer`'s memory, as this process addresses it).
  virtual cclResult_t put(int peer, void *dst, const void *src,
                          uint64_t bytes) = 0;
  // Writes `value` to the 64-bit counter at `addr` in peer `peer`'s memory
  // (as this process addresses it) once every copy queued to `peer` before
  // it has landed (release: a reader that sees the value sees the copies).
  virtual cclResult_t signal(int peer, uint64_t *addr, uint64_t value) = 0;
  // Writes `value` to the counter at `addr` in this rank's memory once
  // every copy queued to `peer` before it has landed.
  virtual cclResult_t complete(int peer, uint64_t *addr, uint64_t value) = 0;
  // Waits until everything queued has completed (or failed).
  virtual void drain() = 0;
};

// One port channel whose source is a local rank: what its proxy needs.
struct PortEndpoint {
  const PreparedPlan *plan = nullptr;
  // The proxy's transport to the peer: the host's (same host) or TCP.
  Transport *transport = nullptr;
  uint32_t channel = 0;
  int peer = 0; // the destination rank (physical)
  ccl_trigger *fifo = nullptr;       // host address of its slots
  volatile uint64_t *tail = nullptr; // host address of fifo_tail[channel]
  uint32_t slots = 0;
  uint64_t *signal = nullptr; // the channel's counter on the peer
  uint64_t *done = nullptr;   // port_done[channel] on this rank
  // The peer's scratch buffers, [begin, end): a trigger's destination must
  // lie in one of them.
  std::vector<std::pair<uintptr_t, uintptr_t>> scratch;
  uint64_t taken = 0;   // triggers taken
  uint64_t signals = 0; // the value of the signal counter written last
  // For messages: the algorithm.
  std::string algorithm;
};

class Proxy {
public:
  Proxy(Shared *s, int rank, std::unique_ptr<Transport> transport);
  // The transport to ranks of this host, and the ones to ranks of other
  // hosts (null when the communicator has no such transport).
  Transport *local() { return transport_.get(); }
  Transport *remote(PreparedRank::Net net);
  ~Proxy(); // stop()
  // Starts the thread. Throws std::system_error.
  void start();
  // Stops the thread, then drains the transport.
  void stop();
  // Serves these endpoints from now on.
  void add(std::vector<PortEndpoint> endpoints);
  // Stops serving the endpoints of `plan` (its kernels have finished).
  void remove(const PreparedPlan *plan);
  // Test hook (cclCommDebugSetProxyDelay): sleep `ns` before each trigger;
  // UINT64_MAX: take none.
  void setDelay(uint64_t ns) { delayNs_.store(ns); }
  // A launch that may push triggers was queued: poll without sleeping for
  // a while.
  void kick();

private:
  void loop();
  // Takes and executes the endpoint's ready triggers (at most `budget`).
  // Returns how many it took; -1 after a failure (reported).
  int serve(PortEndpoint &e, int budget);
  void fail(const std::string &why);

  Shared *s_;
  int rank_;
  std::unique_ptr<Transport> transport_;
  std::unique_ptr<Transport> tcp_, ib_;
  std::mutex mu_; // endpoints_
  std::vector<PortEndpoint> endpoints_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> delayNs_{0};
  std::atomic<uint64_t> kickedNs_{0};
  // CCL_PROXY_STATS=1: what the proxy did, printed to stderr when it stops
  // (requests taken, transport calls and the time spent in them).
  bool stats_ = false;
  uint64_t statRequests_ = 0, statCalls_ = 0, statCallNs_ = 0,
           statMaxCallNs_ = 0, statStartNs_ = 0, statRounds_ = 0;
};

// The FIFO size of new plans: CCL_PROXY_FIFO_SLOTS (1 .. 65536), else 128;
// cclInvalidArgument for another value.
cclResult_t fifoSlots(uint32_t *slots);
// Sets up the port channels of rank r of a prepared plan whose context is
// not filled yet: the FIFOs in host-mapped memory, the rank's proxy
// (started on first use) and its endpoints. `signal` is the plan's signal
// table as this process addresses it, `mem` every rank's memory.
cclResult_t preparePorts(Shared *s, PreparedPlan *pp, int r,
                         const std::vector<uint64_t *> &signal,
                         const std::vector<RankMemory> &mem,
                         const std::vector<uint64_t> &scratchSizes);
// Stops serving the plan's endpoints and frees its FIFOs (releasePlan).
void releasePorts(Shared *s, PreparedPlan *pp);
// Stops every proxy of the communicator (destroy, after quiesce).
void stopProxies(Shared *s);
// A launch of `pp` on rank r was queued (wakes the proxy; no lock).
void kickProxy(const PreparedPlan *pp, int r);

} // namespace cclrt

#endif // CCLRT_PROXY_H
