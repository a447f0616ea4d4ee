// bootstrap.cc - rendezvous root, join, links and the monitor
// (bootstrap.h).
#include "bootstrap.h"

#include <cerrno>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace cclrt {
namespace {

constexpr uint32_t kRootRank = 0xffffffffu;
// What a stranger's connection may cost the root or a rank at most.
constexpr uint64_t kHandshakeMs = 5000;
// Ranks wait this much longer than the root for its verdict, so that a
// root's timeout report reaches them before their own timeout.
constexpr uint64_t kRootGraceMs = 3000;
// How long the root of a refused job (ranks that disagree on the rank
// count, a rank that joined twice) still tells ranks that arrive late why,
// before it ends: a rank in the root's process waits for it to end
// (waitAnswered), and used to wait the whole bootstrap timeout.
constexpr uint64_t kRefusedGraceMs = 2000;

void logLine(const std::string &s) {
  fprintf(stderr, "libcclrt: %s\n", s.c_str());
  fflush(stderr);
}

std::string rankList(const std::vector<int> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); i++)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

} // namespace

// The root of one job: accepts ranks until all `nranks` joined (then sends
// everyone the table), the job is refused, or the timeout passes.
class Root {
public:
  Root(net::Fd listen, const wire::UniqueId &id)
      : listen_(std::move(listen)), id_(id) {}
  void run();
  // Waits until every rank that joined has its answer (the table or why
  // the job cannot start).
  void waitAnswered() {
    std::unique_lock<std::mutex> lk(mu_);
    cv_.wait(lk, [this] { return done_; });
  }

private:
  struct Joined {
    std::unique_ptr<net::Link> link;
    wire::RankInfo info;
  };
  void handle(net::Fd fd, const std::string &from);
  void refuseAll(const std::string &why);
  std::string where() const { return wire::addrString(id_.root); }

  net::Fd listen_;
  wire::UniqueId id_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint32_t, Joined> joined_;
  uint32_t nranks_ = 0;
  uint64_t timeoutMs_ = 0;
  std::string refused_; // why the job cannot start
  bool done_ = false;
  int handshakes_ = 0;
};

namespace {
} // namespace

void Root::refuseAll(const std::string &why) {
  // mu_ held.
  if (refused_.empty())
    refused_ = why;
  for (auto &kv : joined_) {
    std::string err;
    kv.second.link->send(wire::kReject, kRootRank, 0, wire::encodeText(why),
                         -1, net::Deadline::in(kHandshakeMs), &err);
  }
  joined_.clear();
}

void Root::handle(net::Fd fd, const std::string &from) {
  auto link = std::make_unique<net::Link>();
  net::Frame f;
  std::string err;
  net::RecvStatus st = net::Link::acceptHandshake(
      std::move(fd), id_.secret, false, net::Deadline::in(kHandshakeMs),
      link.get(), &f, &err);
  wire::RankInfo info;
  if (st == net::RecvStatus::kOk &&
      (f.h.type != wire::kHello ||
       !wire::decodeRankInfo(reinterpret_cast<const uint8_t *>(f.payload.data()),
                             f.payload.size(), &info))) {
    st = net::RecvStatus::kBad;
    err = "its first message is not a valid hello";
  }
  std::unique_lock<std::mutex> lk(mu_);
  handshakes_--;
  cv_.notify_all();
  if (st != net::RecvStatus::kOk) {
    logLine("bootstrap root " + where() + ": dropped a connection from " +
            from + ": " + err);
    return;
  }
  if (done_)
    return;
  if (!refused_.empty()) {
    link->send(wire::kReject, kRootRank, 0, wire::encodeText(refused_), -1,
               net::Deadline::in(kHandshakeMs), &err);
    return;
  }
  if (joined_.empty() && nranks_ == 0) {
    nranks_ = info.nranks;
    timeoutMs_ = info.timeoutMs;
  }
  if (info.nranks != nranks_) {
    refuseAll(format("rank %u says the job has %u ranks, but rank %u said "
                     "%u: every rank must pass the same nranks",
                     info.rank, info.nranks, joined_.begin()->first, nranks_));
    link->send(wire::kReject, kRootRank, 0, wire::encodeText(refused_), -1,
               net::Deadline::in(kHandshakeMs), &err);
    return;
  }
  if (joined_.count(info.rank)) {
    Joined &j = joined_[info.rank];
    refuseAll(format("rank %u joined twice (pid %u on %s and pid %u on %s): "
                     "every rank must pass a distinct rank",
                     info.rank, j.info.pid, j.info.hostId.c_str(), info.pid,
                     info.hostId.c_str()));
    link->send(wire::kReject, kRootRank, 0, wire::encodeText(refused_), -1,
               net::Deadline::in(kHandshakeMs), &err);
    return;
  }
  joined_[info.rank] = Joined{std::move(link), info};
  cv_.notify_all();
}

void Root::run() {
  net::Deadline deadline = net::Deadline::never();
  bool refusalSeen = false;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (nranks_ && joined_.size() == nranks_) {
        std::vector<wire::RankInfo> all;
        for (auto &kv : joined_)
          all.push_back(kv.second.info);
        std::string table = wire::encodePeers(all), err;
        for (auto &kv : joined_)
          kv.second.link->send(wire::kPeers, kRootRank, 0, table, -1,
                               net::Deadline::in(kHandshakeMs), &err);
        break;
      }
      if (nranks_ && deadline.at == net::Clock::time_point::max())
        deadline = net::Deadline::in(timeoutMs_);
      if (!refused_.empty() && !refusalSeen) {
        refusalSeen = true;
        net::Deadline grace = net::Deadline::in(kRefusedGraceMs);
        if (grace.at < deadline.at)
          deadline = grace;
      }
      if (deadline.passed()) {
        std::vector<int> missing, present;
        for (uint32_t r = 0; r < nranks_; r++)
          (joined_.count(r) ? present : missing).push_back((int)r);
        std::string why =
            refused_.empty()
                ? format("bootstrap timed out after %.1f s: rank%s %s never "
                         "joined (joined: %s)",
                         timeoutMs_ / 1e3, missing.size() == 1 ? "" : "s",
                         rankList(missing).c_str(),
                         present.empty() ? "none" : rankList(present).c_str())
                : refused_;
        logLine("bootstrap root " + where() + ": " + why);
        refuseAll(why);
        break;
      }
    }
    net::Fd fd;
    std::string from, err;
    net::Deadline step = net::Deadline::in(100);
    if (step.at > deadline.at)
      step = deadline;
    if (!net::acceptOne(listen_.get(), step, &fd, &from, &err))
      continue;
    // Each handshake on its own thread: a stranger that stalls holds up
    // only itself (for at most kHandshakeMs).
    std::lock_guard<std::mutex> lk(mu_);
    handshakes_++;
    std::thread([this, f = std::move(fd), from]() mutable {
      handle(std::move(f), from);
    }).detach();
  }
  std::unique_lock<std::mutex> lk(mu_);
  done_ = true;
  listen_.reset();
  cv_.notify_all();
  // Handshakes still running (strangers) end within kHandshakeMs.
  cv_.wait(lk, [this] { return handshakes_ == 0; });
}

uint64_t bootstrapTimeoutMs() {
  const char *env = getenv("CCL_BOOTSTRAP_TIMEOUT_MS");
  if (env && *env) {
    char *end = nullptr;
    unsigned long long v = strtoull(env, &end, 10);
    if (end && *end == '\0' && v > 0)
      return v;
    logLine(std::string("ignoring CCL_BOOTSTRAP_TIMEOUT_MS=\"") + env +
            "\" (not a positive number of milliseconds); using 120000");
  }
  return 120000;
}

void waitAnswered(Root *root) { root->waitAnswered(); }

std::mutex &rootsMu() {
  static std::mutex mu;
  return mu;
}
std::map<std::string, std::weak_ptr<Root>> &liveRoots() {
  static auto *roots = new std::map<std::string, std::weak_ptr<Root>>();
  return *roots;
}

std::shared_ptr<Root> rootInThisProcess(const wire::UniqueId &id) {
  std::lock_guard<std::mutex> lk(rootsMu());
  auto it = liveRoots().find(wire::hex(id.secret, wire::kSecretBytes));
  return it == liveRoots().end() ? nullptr : it->second.lock();
}

bool startRoot(const wire::Addr *listenAt, const uint8_t *secret,
               wire::UniqueId *id, std::shared_ptr<Root> *handle) {
  wire::Addr addr;
  std::string why, err;
  if (listenAt) {
    addr = *listenAt;
  } else if (!net::bootstrapAddress(&addr, &why, &err)) {
    setError(cclBootstrapError, err);
    return false;
  }
  net::Fd fd;
  wire::Addr bound;
  if (!net::listenTcp(addr, &fd, &bound, &err)) {
    // The address mode names the root's public address; listen on every
    // interface of that family when it is not one of ours.
    wire::Addr any;
    any.family = addr.family;
    any.port = addr.port;
    std::string err2;
    if (!listenAt || !net::listenTcp(any, &fd, &bound, &err2)) {
      setError(cclBootstrapError,
               "cannot listen for the bootstrap root: " + err);
      return false;
    }
    bound.family = addr.family;
    memcpy(bound.ip, addr.ip, sizeof bound.ip);
  }
  wire::UniqueId made;
  made.root = bound;
  made.rootPid = (uint32_t)getpid();
  made.rootHost = net::processHostKey();
  if (secret)
    memcpy(made.secret, secret, wire::kSecretBytes);
  else if (!net::randomBytes(made.secret, wire::kSecretBytes)) {
    setError(cclSystemError, "getrandom failed");
    return false;
  }
  *id = made;
  auto root = std::make_shared<Root>(std::move(fd), made);
  std::thread([root] { root->run(); }).detach();
  if (handle)
    *handle = root;
  std::lock_guard<std::mutex> lk(rootsMu());
  auto &roots = liveRoots();
  for (auto it = roots.begin(); it != roots.end();)
    it = it->second.expired() ? roots.erase(it) : std::next(it);
  roots[wire::hex(made.secret, wire::kSecretBytes)] = root;
  return true;
}

std::string Bootstrap::hostName(int r) const {
  // The host identity is "hostname/boot id" unless CCL_HOST_ID set it.
  return peers_[r].hostId.substr(0, peers_[r].hostId.find('/'));
}

std::string Bootstrap::describe(int r) const {
  return format("rank %d (pid %u on host %s)", r, peers_[r].pid,
                hostName(r).c_str());
}

cclResult_t Bootstrap::join(const wire::UniqueId &id, int rank, int nranks,
                            uint64_t timeoutMs,
                            std::unique_ptr<Bootstrap> *out) {
  std::unique_ptr<Bootstrap> b(new Bootstrap());
  b->rank_ = rank;
  b->nranks_ = nranks;
  b->timeoutMs_ = timeoutMs;
  const net::Deadline deadline = net::Deadline::in(timeoutMs);
  const std::string root = wire::addrString(id.root);
  auto fail = [&](cclResult_t code, const std::string &msg) {
    return setError(code, format("bootstrap (rank %d of %d, root %s): ", rank,
                                 nranks, root.c_str()) +
                              msg);
  };
  // This rank's listeners for the links from higher ranks.
  wire::RankInfo me;
  me.rank = rank;
  me.nranks = nranks;
  me.pid = (uint32_t)getpid();
  me.timeoutMs = timeoutMs;
  me.hostId = net::hostIdentity();
  std::string why, err;
  wire::Addr addr;
  if (!net::bootstrapAddress(&addr, &why, &err))
    return fail(cclBootstrapError, err);
  net::Fd tcpListen, unixListen;
  if (!net::listenTcp(addr, &tcpListen, &me.listen, &err) ||
      !net::listenUnix(&unixListen, &me.unixName, &err))
    return fail(cclSystemError, err);

  // Rendezvous. A root on this host (the same host and pid-namespace key,
  // and its address one of ours) whose process has exited never listens
  // again: a stale id (an earlier job's) fails now, not at the bootstrap
  // timeout. A root that has not started yet is waited for.
  bool stale = false;
  const bool rootHere = id.rootPid && id.rootHost == net::processHostKey() &&
                        net::isLocalAddress(id.root);
  auto rootGone = [&]() -> std::string {
    if (!rootHere || kill((pid_t)id.rootPid, 0) == 0 || errno != ESRCH)
      return "";
    stale = true;
    return format("the process that made this unique id (pid %u on this "
                  "host) has exited, so its root will never answer: the id "
                  "is stale (an earlier job's?); pass every rank the id of "
                  "a running cclGetUniqueId caller",
                  id.rootPid);
  };
  net::Fd fd;
  if (!net::connectTcp(id.root, deadline, &fd, &err, rootGone))
    return fail(deadline.passed() && !stale ? cclTimeout : cclBootstrapError,
                stale ? err
                      : err + " (is the root's process running, and is the "
                              "unique id the one it made?)");
  net::Link rootLink;
  if (!net::Link::connectHandshake(std::move(fd), id.secret, false, deadline,
                                   &rootLink, &err) ||
      !rootLink.send(wire::kHello, (uint32_t)rank, 0, wire::encodeRankInfo(me),
                     -1, deadline, &err))
    return fail(cclBootstrapError, "talking to the root: " + err);
  net::Frame f;
  net::Deadline verdict = net::Deadline::in(timeoutMs + kRootGraceMs);
  net::RecvStatus st = rootLink.recv(&f, verdict, &err);
  if (st == net::RecvStatus::kTimeout)
    return fail(cclTimeout,
                format("no answer from the root within %.1f s (not every "
                       "rank joined, and the root did not say which)",
                       (timeoutMs + kRootGraceMs) / 1e3));
  if (st != net::RecvStatus::kOk)
    return fail(cclBootstrapError,
                "the root closed the connection: " + err +
                    " (wrong unique id or secret, or the root's process "
                    "ended)");
  const uint8_t *pl = reinterpret_cast<const uint8_t *>(f.payload.data());
  if (f.h.type == wire::kReject) {
    std::string text;
    wire::decodeText(pl, f.payload.size(), &text);
    return fail(text.find("timed out") != std::string::npos ? cclTimeout
                                                           : cclBootstrapError,
                text);
  }
  if (f.h.type != wire::kPeers ||
      !wire::decodePeers(pl, f.payload.size(), (uint32_t)nranks, &b->peers_) ||
      b->peers_.size() != (size_t)nranks)
    return fail(cclBootstrapError, "the root sent a malformed peer table");
  rootLink.close();

  // Links: connect to every lower rank, accept every higher one.
  b->links_.resize(nranks);
  b->inbox_.resize(nranks);
  b->gone_.assign(nranks, false);
  for (int q = 0; q < rank; q++) {
    const wire::RankInfo &p = b->peers_[q];
    const bool local = p.hostId == me.hostId && !p.unixName.empty();
    net::Fd c;
    bool ok = local ? net::connectUnix(p.unixName, deadline, &c, &err)
                    : net::connectTcp(p.listen, deadline, &c, &err);
    auto link = std::make_unique<net::Link>();
    if (!ok || !net::Link::connectHandshake(std::move(c), id.secret, local,
                                            deadline, link.get(), &err) ||
        !link->send(wire::kLink, (uint32_t)rank, 0, std::string(), -1,
                    deadline, &err))
      return fail(deadline.passed() ? cclTimeout : cclBootstrapError,
                  "linking to " + b->describe(q) + ": " + err);
    b->links_[q] = std::move(link);
  }
  int waiting = nranks - 1 - rank;
  while (waiting > 0) {
    pollfd pf[2] = {{tcpListen.get(), POLLIN, 0}, {unixListen.get(), POLLIN, 0}};
    int n = poll(pf, 2, deadline.pollMs());
    if (n == 0 || deadline.passed()) {
      std::vector<int> missing;
      for (int q = rank + 1; q < nranks; q++)
        if (!b->links_[q])
          missing.push_back(q);
      return fail(cclTimeout,
                  format("timed out waiting for the link%s from rank%s %s",
                         missing.size() == 1 ? "" : "s",
                         missing.size() == 1 ? "" : "s",
                         rankList(missing).c_str()));
    }
    for (int i = 0; i < 2; i++) {
      if (!(pf[i].revents & POLLIN))
        continue;
      net::Fd c;
      std::string from;
      if (!net::acceptOne(pf[i].fd, net::Deadline::in(0), &c, &from, &err))
        continue;
      net::Deadline hs = net::Deadline::in(kHandshakeMs);
      if (hs.at > deadline.at)
        hs = deadline;
      auto link = std::make_unique<net::Link>();
      st = net::Link::acceptHandshake(std::move(c), id.secret, i == 1, hs,
                                      link.get(), &f, &err);
      uint32_t q = f.h.from;
      if (st == net::RecvStatus::kOk &&
          (f.h.type != wire::kLink || q <= (uint32_t)rank ||
           q >= (uint32_t)nranks || b->links_[q])) {
        st = net::RecvStatus::kBad;
        err = "its first message is not a link request from a higher rank "
              "that has no link yet";
      }
      if (st != net::RecvStatus::kOk) {
        logLine(format("bootstrap (rank %d): dropped a connection from %s: ",
                       rank, from.c_str()) +
                err);
        continue;
      }
      b->links_[q] = std::move(link);
      waiting--;
    }
  }
  *out = std::move(b);
  return cclSuccess;
}

Bootstrap::~Bootstrap() { close(); }

void Bootstrap::startMonitor(std::function<void(const wire::Abort &)> onFailure,
                             std::function<void()> tick) {
  onFailure_ = std::move(onFailure);
  tick_ = std::move(tick);
  int p[2];
  if (pipe2(p, O_CLOEXEC) == 0) {
    wakeRead_ = net::Fd(p[0]);
    wakeWrite_ = net::Fd(p[1]);
  }
  monitor_ = std::thread([this] { monitorLoop(); });
}

void Bootstrap::lost(int q, const std::string &why) {
  wire::Abort a;
  a.kind = 3;
  a.rank = (uint32_t)q;
  a.text = why;
  report(a);
}

void Bootstrap::report(const wire::Abort &a) {
  std::function<void(const wire::Abort &)> cb;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (failure_.empty())
      failure_ = a.text;
    if (!reported_) {
      reported_ = true;
      cb = onFailure_;
    }
  }
  cv_.notify_all();
  if (cb)
    cb(a);
}

void Bootstrap::monitorLoop() {
  std::vector<bool> open(nranks_, false);
  for (int q = 0; q < nranks_; q++)
    open[q] = links_[q] != nullptr;
  while (!stop_.load()) {
    std::vector<pollfd> pf;
    std::vector<int> who;
    pf.push_back({wakeRead_.get(), POLLIN, 0});
    who.push_back(-1);
    for (int q = 0; q < nranks_; q++)
      if (open[q]) {
        pf.push_back({links_[q]->fd(), POLLIN, 0});
        who.push_back(q);
      }
    int n = poll(pf.data(), pf.size(), 50);
    if (stop_.load())
      break;
    if (tick_)
      tick_();
    if (n <= 0)
      continue;
    for (size_t i = 1; i < pf.size(); i++) {
      if (!pf[i].revents)
        continue;
      const int q = who[i];
      net::Frame f;
      std::string err;
      net::RecvStatus st =
          links_[q]->recv(&f, net::Deadline::in(timeoutMs_), &err);
      if (st == net::RecvStatus::kOk && f.h.from != (uint32_t)q) {
        st = net::RecvStatus::kBad;
        err = "a message claims to come from another rank";
      }
      if (st != net::RecvStatus::kOk) {
        open[q] = false;
        bool bye;
        {
          std::lock_guard<std::mutex> lk(mu_);
          bye = gone_[q];
        }
        if (bye || stop_.load())
          continue;
        lost(q, st == net::RecvStatus::kClosed
                    ? describe(q) + " closed its connection without destroying "
                                    "its communicator: the process exited or "
                                    "was killed"
                    : "the bootstrap link with " + describe(q) +
                          " failed: " + err);
        continue;
      }
      const uint8_t *pl = reinterpret_cast<const uint8_t *>(f.payload.data());
      if (f.h.type == wire::kData) {
        std::lock_guard<std::mutex> lk(mu_);
        Msg &m = inbox_[q][f.h.tag];
        m.payload = std::move(f.payload);
        m.fd = std::move(f.fd);
        cv_.notify_all();
      } else if (f.h.type == wire::kBye) {
        std::lock_guard<std::mutex> lk(mu_);
        gone_[q] = true;
        open[q] = false;
        cv_.notify_all();
      } else if (f.h.type == wire::kAbort) {
        wire::Abort a;
        if (!wire::decodeAbort(pl, f.payload.size(), &a)) {
          lost(q, "the bootstrap link with " + describe(q) +
                      " failed: malformed abort message");
          continue;
        }
        report(a);
      } else {
        lost(q, format("the bootstrap link with %s failed: unexpected message "
                       "type %u",
                       describe(q).c_str(), f.h.type));
        open[q] = false;
      }
    }
  }
}

cclResult_t Bootstrap::allGather(const std::string &mine,
                                 std::vector<std::string> *all, int passFd,
                                 std::vector<net::Fd> *fds) {
  std::lock_guard<std::mutex> coll(collMu_);
  uint64_t tag;
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (!failure_.empty())
      return setError(cclRemoteError, failure_);
    tag = ++nextTag_;
  }
  const net::Deadline d = net::Deadline::in(timeoutMs_);
  for (int q = 0; q < nranks_; q++) {
    if (q == rank_)
      continue;
    std::string err;
    if (!links_[q]->send(wire::kData, (uint32_t)rank_, tag, mine,
                         sameHost(q) ? passFd : -1, d, &err)) {
      // The peer is gone (the monitor may not have seen it yet): the same
      // report as the monitor's.
      bool bye;
      {
        std::lock_guard<std::mutex> lk(mu_);
        bye = gone_[q];
      }
      lost(q, bye ? describe(q) + " destroyed its communicator"
                  : describe(q) + " closed its connection without destroying "
                                  "its communicator: the process exited or "
                                  "was killed (" + err + ")");
      return setError(cclRemoteError, failure());
    }
  }
  all->assign(nranks_, std::string());
  if (fds) {
    fds->clear();
    fds->resize(nranks_);
  }
  (*all)[rank_] = mine;
  std::unique_lock<std::mutex> lk(mu_);
  for (int q = 0; q < nranks_; q++) {
    if (q == rank_)
      continue;
    auto ready = [&] {
      return inbox_[q].count(tag) || !failure_.empty() || gone_[q];
    };
    if (!cv_.wait_until(lk, d.at, ready))
      return setError(cclTimeout,
                      format("timed out after %.1f s waiting for %s in a "
                             "bootstrap exchange (it is slow, stuck, or "
                             "calls a different sequence of collective "
                             "setup functions)",
                             timeoutMs_ / 1e3, describe(q).c_str()));
    auto it = inbox_[q].find(tag);
    if (it == inbox_[q].end())
      return setError(cclRemoteError,
                      !failure_.empty()
                          ? failure_
                          : describe(q) + " destroyed its communicator");
    (*all)[q] = std::move(it->second.payload);
    if (fds)
      (*fds)[q] = std::move(it->second.fd);
    inbox_[q].erase(it);
  }
  return cclSuccess;
}

void Bootstrap::broadcastAbort(const wire::Abort &a) {
  std::string payload = wire::encodeAbort(a);
  for (int q = 0; q < (int)links_.size(); q++) {
    if (q == rank_ || !links_[q])
      continue;
    std::string err;
    links_[q]->send(wire::kAbort, (uint32_t)rank_, 0, payload, -1,
                    net::Deadline::in(1000), &err); // best effort
  }
}

void Bootstrap::fail(const std::string &why) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    if (failure_.empty())
      failure_ = why;
  }
  cv_.notify_all();
}

std::string Bootstrap::failure() {
  std::lock_guard<std::mutex> lk(mu_);
  return failure_;
}

void Bootstrap::close() {
  if (closed_)
    return;
  closed_ = true;
  for (int q = 0; q < (int)links_.size(); q++) {
    if (q == rank_ || !links_[q])
      continue;
    std::string err;
    links_[q]->send(wire::kBye, (uint32_t)rank_, 0, std::string(), -1,
                    net::Deadline::in(1000), &err);
  }
  stop_ = true;
  if (wakeWrite_) {
    char c = 1;
    (void)!write(wakeWrite_.get(), &c, 1);
  }
  if (monitor_.joinable())
    monitor_.join();
  for (auto &l : links_)
    if (l)
      l->close();
}

} // namespace cclrt
