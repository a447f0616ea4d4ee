// bootstrap.h - how the ranks of a job in separate processes meet and talk
// outside their kernels (docs/runtime.md, "Bootstrap"): the rendezvous
// root that cclGetUniqueId starts, a rank's join (root, then one
// authenticated link to every other rank: abstract Unix sockets between
// ranks of one host, TCP otherwise), host-side collectives over the links
// (with file descriptors for ranks of the same host), and the monitor
// thread that turns a peer's abort, exit or death into a failure report.
#ifndef CCLRT_BOOTSTRAP_H
#define CCLRT_BOOTSTRAP_H

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "internal.h"
#include "net.h"

namespace cclrt {

// The bootstrap timeout: CCL_BOOTSTRAP_TIMEOUT_MS, else 120 s.
uint64_t bootstrapTimeoutMs();

// Starts a rendezvous root (a detached thread serving one job). With
// `listenAt` (the address mode: CCL_COMM_ID and friends) it listens on that
// port, else on the bootstrap interface with a port of the kernel's
// choosing; `secret` 32 bytes, or null for a fresh random one. Sets the
// error and returns false when it cannot listen. With `handle`, the caller
// can wait until the root has answered every rank that joined
// (Root::waitAnswered): a process that hosts the root for its own rank must
// not exit before then, or the other ranks lose their answer.
class Root;
bool startRoot(const wire::Addr *listenAt, const uint8_t *secret,
               wire::UniqueId *id, std::shared_ptr<Root> *handle = nullptr);
void waitAnswered(Root *root);
// The root of `id` if this process runs it (and it still runs), else null.
std::shared_ptr<Root> rootInThisProcess(const wire::UniqueId &id);

class Bootstrap {
public:
  // Joins the job of `id` as `rank` of `nranks`: rendezvous through the
  // root, then links to every peer. Sets the error (cclBootstrapError,
  // cclTimeout for a timeout, with the missing ranks) on failure.
  static cclResult_t join(const wire::UniqueId &id, int rank, int nranks,
                          uint64_t timeoutMs, std::unique_ptr<Bootstrap> *out);
  ~Bootstrap();

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  const wire::RankInfo &peer(int r) const { return peers_[r]; }
  bool sameHost(int r) const { return peers_[r].hostId == peers_[rank_].hostId; }
  // "rank 2 (pid 4242 on host h1)"
  std::string describe(int r) const;
  // Rank r's host for messages: its identity without the boot id.
  std::string hostName(int r) const;

  // Every rank contributes `mine`; all[r] gets rank r's. With passFd >= 0
  // the descriptor goes to every peer on this host, and (*fds)[r] receives
  // rank r's (same host only). Sets the error on failure (a peer lost, an
  // abort, a timeout).
  cclResult_t allGather(const std::string &mine, std::vector<std::string> *all,
                        int passFd = -1, std::vector<net::Fd> *fds = nullptr);

  // The monitor calls `onFailure` (from its thread) for the first failure:
  // a peer's abort message, or a peer lost without saying goodbye. `tick`
  // runs on the monitor thread about every 50 ms (the communicator checks
  // its abort flag there). Set both once, right after join.
  void startMonitor(std::function<void(const wire::Abort &)> onFailure,
                    std::function<void()> tick);
  // Tells every peer that this communicator failed or was aborted.
  void broadcastAbort(const wire::Abort &a);
  // Makes waiting and future collectives fail with `why`.
  void fail(const std::string &why);
  // Why collectives fail ("" while the links are healthy).
  std::string failure();
  // Says goodbye to every peer, stops the monitor, closes the links.
  void close();

private:
  Bootstrap() = default;
  void monitorLoop();
  // A peer lost (q), or any failure (report): recorded once, waiters
  // woken, onFailure called for the first.
  void lost(int q, const std::string &why);
  void report(const wire::Abort &a);

  int rank_ = 0, nranks_ = 0;
  uint64_t timeoutMs_ = 0;
  std::vector<wire::RankInfo> peers_;
  std::vector<std::unique_ptr<net::Link>> links_; // null for self
  std::mutex mu_;
  std::condition_variable cv_;
  struct Msg {
    std::string payload;
    net::Fd fd;
  };
  std::vector<std::map<uint64_t, Msg>> inbox_; // by peer, by tag
  std::vector<bool> gone_;                      // said goodbye
  std::string failure_;                         // why collectives fail
  uint64_t nextTag_ = 0;
  std::mutex collMu_; // one collective at a time
  std::function<void(const wire::Abort &)> onFailure_;
  std::function<void()> tick_;
  bool reported_ = false;
  std::thread monitor_;
  net::Fd wakeRead_, wakeWrite_;
  std::atomic<bool> stop_{false};
  bool closed_ = false;
};

} // namespace cclrt

#endif // CCLRT_BOOTSTRAP_H
