// proxy.cc - the host proxy of port channels (see proxy.h and
// docs/runtime.md, "The proxy"): the FIFOs of a prepared plan, the proxy
// thread of each local rank and how it takes triggers.
#include "proxy.h"

#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <sched.h>
#include <system_error>
#include <time.h>

#include "bootstrap.h"
#include "device.h"
#include "ib.h"
#include "remote.h"
#include "tcp.h"

namespace cclrt {
namespace {

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sleepNs(uint64_t ns) {
  timespec ts{(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
  nanosleep(&ts, nullptr);
}

// How long the proxy polls without sleeping after it last took a trigger
// or a launch was queued, and how long it sleeps at most between polls
// afterwards (docs/runtime.md: the first trigger after a long idle time
// waits up to that long).
constexpr uint64_t kSpinNs = 20000000ull;  // 20 ms
constexpr uint64_t kMaxSleepNs = 200000ull; // 200 us
// Triggers taken from one endpoint before the proxy looks at the next.
constexpr int kBudget = 16;

} // namespace

cclResult_t fifoSlots(uint32_t *slots) {
  *slots = 128;
  const char *v = getenv("CCL_PROXY_FIFO_SLOTS");
  if (!v || !*v)
    return cclSuccess;
  char *end = nullptr;
  unsigned long n = strtoul(v, &end, 10);
  if (*end || n < 1 || n > 65536)
    return setError(cclInvalidArgument,
                    format("CCL_PROXY_FIFO_SLOTS is '%s'; it must be a "
                           "number of requests from 1 to 65536",
                           v));
  *slots = (uint32_t)n;
  return cclSuccess;
}

Proxy::Proxy(Shared *s, int rank, std::unique_ptr<Transport> transport)
    : s_(s), rank_(rank), transport_(std::move(transport)) {}

Proxy::~Proxy() { stop(); }

void Proxy::start() {
  kickedNs_ = nowNs();
  const char *st = getenv("CCL_PROXY_STATS");
  stats_ = st && *st && strcmp(st, "0") != 0;
  statStartNs_ = nowNs();
  thread_ = std::thread([this] { loop(); });
}

void Proxy::stop() {
  stop_ = true;
  if (thread_.joinable())
    thread_.join();
}

void Proxy::add(std::vector<PortEndpoint> endpoints) {
  std::lock_guard<std::mutex> lk(mu_);
  for (PortEndpoint &e : endpoints)
    endpoints_.push_back(std::move(e));
}

void Proxy::remove(const PreparedPlan *plan) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<PortEndpoint> keep;
    for (PortEndpoint &e : endpoints_)
      if (e.plan != plan)
        keep.push_back(std::move(e));
    endpoints_.swap(keep);
  }
  // The proxy thread takes triggers only under mu_, so it is done with
  // them. Copies it queued may still be in flight; the plan's kernels have
  // finished (releasePlan runs after them), and a kernel ends only after
  // flushing its port channels (the verifier requires it), so nothing of
  // theirs is.
}

void Proxy::kick() { kickedNs_.store(nowNs(), std::memory_order_relaxed); }

void Proxy::fail(const std::string &why) {
  failed_ = true;
  recordRemoteFailure(s_, format("the proxy of rank %d failed: ", rank_) + why,
                      nullptr);
}

int Proxy::serve(PortEndpoint &e, int budget) {
  int took = 0;
  // Times a transport call when CCL_PROXY_STATS is set.
  auto timed = [&](auto call) {
    if (!stats_)
      return call();
    uint64_t t0 = nowNs();
    cclResult_t r = call();
    uint64_t dt = nowNs() - t0;
    statCalls_++;
    statCallNs_ += dt;
    if (dt > statMaxCallNs_)
      statMaxCallNs_ = dt;
    return r;
  };
  uint64_t lastDone = 0;
  for (; took < budget; took++) {
    ccl_trigger *slot = &e.fifo[e.taken % e.slots];
    const uint64_t tag = __atomic_load_n(&slot->tag, __ATOMIC_ACQUIRE);
    if ((tag >> 8) != e.taken + 1)
      break;
    const uint64_t delay = delayNs_.load(std::memory_order_relaxed);
    if (delay == UINT64_MAX)
      break; // stalled (test hook)
    if (delay)
      sleepNs(delay);
    ccl_trigger t;
    t.src = __atomic_load_n(&slot->src, __ATOMIC_RELAXED);
    t.dst = __atomic_load_n(&slot->dst, __ATOMIC_RELAXED);
    t.bytes = __atomic_load_n(&slot->bytes, __ATOMIC_RELAXED);
    const uint32_t kind = (uint32_t)(tag & 0xff);
    // The slot is free again once read.
    e.taken++;
    __atomic_store_n(const_cast<uint64_t *>(e.tail), e.taken,
                     __ATOMIC_RELEASE);
    hostRing(); // a kernel waiting for a free slot
    if (kind == 0 || (kind & ~(uint32_t)(CCL_TRIGGER_PUT | CCL_TRIGGER_SIGNAL))) {
      fail(format("request %" PRIu64 " of port channel %u (algorithm %s) has "
                  "an unknown kind %u",
                  e.taken, e.channel, e.algorithm.c_str(), kind));
      return -1;
    }
    if ((kind & CCL_TRIGGER_PUT) && t.bytes) {
      bool inside = false;
      for (auto [begin, end] : e.scratch)
        if (t.dst >= begin && t.dst <= end && t.bytes <= end - t.dst) {
          inside = true;
          break;
        }
      if (!inside) {
        fail(format("request %" PRIu64 " of port channel %u (algorithm %s) "
                    "writes %" PRIu64 " bytes at 0x%" PRIx64 ", outside the "
                    "scratch buffers of rank %d",
                    e.taken, e.channel, e.algorithm.c_str(), t.bytes, t.dst,
                    e.peer));
        return -1;
      }
      if (timed([&] {
            return e.transport->put(e.peer, reinterpret_cast<void *>(t.dst),
                                    reinterpret_cast<const void *>(t.src),
                                    t.bytes);
          }) != cclSuccess) {
        fail(format("copying %" PRIu64 " bytes to rank %d for port channel "
                    "%u (algorithm %s): ",
                    t.bytes, e.peer, e.channel, e.algorithm.c_str()) +
             cclGetLastError());
        return -1;
      }
    }
    if (kind & CCL_TRIGGER_SIGNAL) {
      e.signals++;
      if (timed([&] {
            return e.transport->signal(e.peer, e.signal, e.signals);
          }) != cclSuccess) {
        fail(format("signalling rank %d on port channel %u (algorithm %s): ",
                    e.peer, e.channel, e.algorithm.c_str()) +
             cclGetLastError());
        return -1;
      }
    }
    lastDone = e.taken;
  }
  // One completion write covers every trigger taken in this round (they
  // complete in order).
  statRequests_ += (uint64_t)took;
  if (lastDone && timed([&] {
        return e.transport->complete(e.peer, e.done, lastDone);
      }) != cclSuccess) {
    fail(format("completing port channel %u (algorithm %s): ", e.channel,
                e.algorithm.c_str()) +
         cclGetLastError());
    return -1;
  }
  return took;
}

void Proxy::loop() {
  if (transport_->bind() != cclSuccess) {
    fail(cclGetLastError());
    return;
  }
  uint64_t active = nowNs();
  uint64_t sleep = 1000;
  while (!stop_.load(std::memory_order_relaxed)) {
    int took = 0;
    if (!failed_) {
      std::lock_guard<std::mutex> lk(mu_);
      for (PortEndpoint &e : endpoints_) {
        int n = serve(e, kBudget);
        if (n < 0)
          break;
        took += n;
      }
    }
    const uint64_t now = nowNs();
    if (took) {
      statRounds_++;
      active = now;
      sleep = 1000;
      continue;
    }
    const uint64_t kicked = kickedNs_.load(std::memory_order_relaxed);
    const uint64_t last = kicked > active ? kicked : active;
    if (now - last < kSpinNs) {
      if (s_->target == cclTargetHost)
        sched_yield(); // host ranks share the CPUs with the proxy
      continue;
    }
    sleepNs(sleep);
    sleep = sleep * 2 > kMaxSleepNs ? kMaxSleepNs : sleep * 2;
  }
  transport_->drain();
  for (Transport *t : {tcp_.get(), ib_.get()})
    if (t)
      t->drain();
  if (stats_)
    fprintf(stderr,
            "ccl proxy of rank %d: %" PRIu64 " requests in %" PRIu64
            " busy rounds over %.3f s; %" PRIu64 " transport calls, %.3f ms "
            "in all, %.1f us on average, %.1f us at most\n",
            rank_, statRequests_, statRounds_,
            (nowNs() - statStartNs_) / 1e9, statCalls_, statCallNs_ / 1e6,
            statCalls_ ? statCallNs_ / 1e3 / (double)statCalls_ : 0.0,
            statMaxCallNs_ / 1e3);
}

Transport *Proxy::remote(PreparedRank::Net net) {
  std::lock_guard<std::mutex> lk(mu_);
  if (net == PreparedRank::kTcp && !tcp_ && s_->tcp)
    tcp_ = std::make_unique<TcpTransport>(s_->tcp.get());
  if (net == PreparedRank::kIb && !ib_ && s_->ib)
    ib_ = std::make_unique<IbTransport>(s_->ib.get());
  return net == PreparedRank::kTcp ? tcp_.get()
                                   : net == PreparedRank::kIb ? ib_.get()
                                                              : nullptr;
}

// ---------------------------------------------------------------------------
// Preparation.
// ---------------------------------------------------------------------------

cclResult_t preparePorts(Shared *s, PreparedPlan *pp, int r,
                         const std::vector<uint64_t *> &signal,
                         const std::vector<RankMemory> &mem,
                         const std::vector<uint64_t> &scratchSizes) {
  const ccl_variant *var = pp->variant;
  const size_t nchan = var->num_channels;
  const int me = pp->virt(r);
  std::vector<uint32_t> mine;
  for (size_t c = 0; c < nchan; c++)
    if (var->channels[c].kind == CCL_CHANNEL_PORT &&
        var->channels[c].src == (uint32_t)me)
      mine.push_back((uint32_t)c);
  if (mine.empty())
    return cclSuccess;
  uint32_t slots;
  if (cclResult_t res = fifoSlots(&slots); res != cclSuccess)
    return res;
  PreparedRank &pr = pp->ranks[r];
  const size_t fifoBytes = nchan * (size_t)slots * sizeof(ccl_trigger);
  pr.fifoBytes = fifoBytes + nchan * sizeof(uint64_t);
  pr.fifoSlots = slots;
  Device &dev = *s->device;
  cclResult_t res = dev.allocateHostMapped(
      r, pr.fifoBytes, &pr.fifoHost, &pr.fifoDev,
      format("port channel FIFOs of rank %d", r).c_str());
  if (res != cclSuccess)
    return res;
  memset(pr.fifoHost, 0, pr.fifoBytes);
  // The proxy of the rank, started on first use.
  Proxy *proxy;
  {
    std::lock_guard<std::mutex> lk(s->proxyMu);
    if (s->proxies.empty())
      s->proxies.resize(s->nranks);
    if (!s->proxies[r]) {
      std::unique_ptr<Transport> t = dev.createTransport(r);
      if (!t)
        return cclGetLastError()[0] ? cclSystemError : cclInternalError;
      auto p = std::make_unique<Proxy>(s, r, std::move(t));
      p->setDelay(s->ranks[r]->proxyDelayNs);
      try {
        p->start();
      } catch (const std::system_error &e) {
        return setError(cclSystemError,
                        format("could not start the proxy thread of rank %d: "
                               "%s",
                               r, e.what()));
      }
      s->proxies[r] = std::move(p);
    }
    proxy = s->proxies[r].get();
  }
  pr.proxy = proxy;
  const size_t syncBase = 2 * nchan + 2 * (size_t)var->num_semaphores +
                          var->num_barriers;
  uint64_t *myWords = static_cast<uint64_t *>(mem[r].sync);
  std::vector<PortEndpoint> eps;
  for (uint32_t c : mine) {
    PortEndpoint e;
    e.plan = pp;
    e.channel = c;
    e.peer = pp->phys((int)var->channels[c].dst);
    e.transport = !s->boot || s->boot->sameHost(e.peer)
                      ? proxy->local()
                      : proxy->remote((size_t)e.peer < pr.net.size()
                                          ? pr.net[e.peer]
                                          : PreparedRank::kSameHost);
    if (!e.transport)
      return setError(cclInternalError,
                      format("no transport from rank %d to rank %d", r,
                             e.peer));
    e.fifo = static_cast<ccl_trigger *>(pr.fifoHost) + (size_t)c * slots;
    e.tail = reinterpret_cast<volatile uint64_t *>(
                 static_cast<char *>(pr.fifoHost) + fifoBytes) +
             c;
    e.slots = slots;
    e.signal = signal[c];
    e.done = myWords + syncBase + 2 * nchan + c;
    for (size_t b = 0; b < mem[e.peer].scratch.size(); b++) {
      uintptr_t base = reinterpret_cast<uintptr_t>(mem[e.peer].scratch[b]);
      e.scratch.push_back({base, base + scratchSizes[b]});
    }
    e.signals = var->channels[c].credit;
    e.algorithm = planName(pp->plan);
    eps.push_back(std::move(e));
  }
  proxy->add(std::move(eps));
  return cclSuccess;
}

void releasePorts(Shared *s, PreparedPlan *pp) {
  {
    std::lock_guard<std::mutex> lk(s->proxyMu);
    for (auto &p : s->proxies)
      if (p)
        p->remove(pp);
  }
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    if (pr.fifoHost)
      s->device->freeHostMapped((int)r, pr.fifoHost);
    pr.fifoHost = pr.fifoDev = nullptr;
    pr.proxy = nullptr;
  }
}

void stopProxies(Shared *s) {
  std::lock_guard<std::mutex> lk(s->proxyMu);
  for (auto &p : s->proxies)
    if (p)
      p->stop();
  stopRemote(s);
}

void kickProxy(const PreparedPlan *pp, int r) {
  if (Proxy *p = pp->ranks[r].proxy)
    p->kick();
}

namespace api {

cclResult_t cclCommDebugSetProxyDelay(cclComm_t comm, uint64_t delay_ns) {
  cclResult_t r = checkComm(comm, "cclCommDebugSetProxyDelay");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  std::lock_guard<std::mutex> lk(s->proxyMu);
  s->ranks[comm->rank]->proxyDelayNs = delay_ns;
  if ((size_t)comm->rank < s->proxies.size() && s->proxies[comm->rank])
    s->proxies[comm->rank]->setDelay(delay_ns);
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
