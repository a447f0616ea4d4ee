// peers.cc - the memory of every rank as a plan's tables need it
// (docs/runtime.md, "Preparing a plan"): allocated for every rank of an
// in-process communicator, or, for one process per rank, this rank's
// arena exported to its host's peers over the bootstrap and theirs mapped
// here; and the agreement steps that keep every rank's decisions equal.
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "bootstrap.h"
#include "device.h"
#include "remote.h"

namespace cclrt {
namespace {

constexpr uint64_t kArenaAlign = 4096;

uint64_t alignUp(uint64_t x) { return (x + kArenaAlign - 1) / kArenaAlign * kArenaAlign; }

// The exchange record: "E" + error, or "K" + total, sync offset, the
// arena's address in its own process, the scratch offsets and the length
// of the arena's handle (little-endian u64), the handle (targets that
// share memory by handle, Device::exportHandle; none for those that pass
// a descriptor), then, when ranks are on other hosts, the record of the
// transports this rank offers them (remote.cc).
std::string okRecord(uint64_t total, uint64_t syncOff, uint64_t base,
                     const std::vector<uint64_t> &offs,
                     const std::string &handle, const std::string &net) {
  std::string s = "K";
  auto put = [&](uint64_t v) { s.append((const char *)&v, 8); };
  put(total);
  put(syncOff);
  put(base);
  for (uint64_t o : offs)
    put(o);
  put(handle.size());
  return s + handle + net;
}

bool parseRecord(const std::string &s, size_t nscratch, uint64_t *total,
                 uint64_t *syncOff, uint64_t *base, std::vector<uint64_t> *offs,
                 std::string *handle, std::string *net) {
  const size_t fixed = 1 + 8 * (4 + nscratch);
  if (s.size() < fixed || s[0] != 'K')
    return false;
  auto get = [&](size_t i) {
    uint64_t v;
    memcpy(&v, s.data() + 1 + 8 * i, 8);
    return v;
  };
  *total = get(0);
  *syncOff = get(1);
  *base = get(2);
  offs->resize(nscratch);
  for (size_t b = 0; b < nscratch; b++)
    (*offs)[b] = get(3 + b);
  const uint64_t handleBytes = get(3 + nscratch);
  if (handleBytes > s.size() - fixed)
    return false;
  *handle = s.substr(fixed, handleBytes);
  *net = s.substr(fixed + handleBytes);
  return true;
}

} // namespace

cclResult_t Device::allocateExportable(int rank, size_t bytes, void **ptr,
                                       int *fd, const char *what) {
  return setError(cclUnsupported,
                  format("%s: this target cannot share memory between "
                         "processes yet",
                         what));
}

cclResult_t Device::mapPeerHandle(int rank, const std::string &handle,
                                  size_t bytes, void **ptr, const char *what) {
  return setError(cclUnsupported,
                  format("%s: this target cannot map another process's "
                         "memory by handle",
                         what));
}

cclResult_t Device::mapPeer(int rank, int fd, size_t bytes, void **ptr,
                            const char *what) {
  return setError(cclUnsupported,
                  format("%s: this target cannot map another process's "
                         "memory yet",
                         what));
}

cclResult_t allocateMemory(Shared *s, PreparedPlan *pp,
                           const std::vector<uint64_t> &sizes,
                           size_t syncWords,
                           const std::function<std::vector<uint64_t>(int)> &init,
                           std::vector<RankMemory> *mem) {
  Device &dev = *s->device;
  const ccl_variant *var = pp->variant;
  for (int r : s->local) {
    PreparedRank &pr = pp->ranks[r];
    for (uint32_t b = 0; b < var->num_scratch; b++) {
      void *ptr = nullptr;
      std::string what = format("scratch buffer %s of rank %d",
                                var->scratch[b].name ? var->scratch[b].name
                                                     : "?",
                                r);
      cclResult_t res = dev.allocate(r, sizes[b], &ptr, what.c_str());
      if (res != cclSuccess)
        return res;
      pr.scratch.push_back(ptr);
      if ((res = dev.zero(r, ptr, sizes[b])) != cclSuccess)
        return res;
    }
    if (syncWords) {
      cclResult_t res = dev.allocate(
          r, syncWords * sizeof(uint64_t), &pr.sync,
          format("signal and semaphore counters of rank %d", r).c_str());
      if (res != cclSuccess)
        return res;
      std::vector<uint64_t> initial = init(r);
      bool credited = false;
      for (uint64_t v : initial)
        credited |= v != 0;
      res = credited ? dev.upload(r, pr.sync, initial.data(),
                                  syncWords * sizeof(uint64_t))
                     : dev.zero(r, pr.sync, syncWords * sizeof(uint64_t));
      if (res != cclSuccess)
        return res;
    }
    (*mem)[r] = RankMemory{pr.scratch, pr.sync};
  }
  return cclSuccess;
}

bool agree(Shared *s, const std::string &localError, std::string *why) {
  std::vector<std::string> all;
  if (s->boot->allGather(localError, &all) != cclSuccess) {
    *why = cclGetLastError();
    return false;
  }
  for (int q = 0; q < s->nranks; q++)
    if (!all[q].empty()) {
      *why = format("on rank %d: ", q) + all[q];
      return false;
    }
  return true;
}

cclResult_t shareMemory(Shared *s, PreparedPlan *pp,
                        const std::vector<uint64_t> &sizes, size_t syncWords,
                        const std::function<std::vector<uint64_t>(int)> &init,
                        cclResult_t localCode, const std::string &localError,
                        std::vector<RankMemory> *mem) {
  Bootstrap &boot = *s->boot;
  Device &dev = *s->device;
  const int r = boot.rank();
  const ccl_variant *var = pp->variant;
  const std::string alg = planName(pp->plan);
  // Ranks on other hosts are reached only through port channels (the
  // proxy's TCP transport): the same decision on every rank (they share
  // the peer table).
  std::vector<int> remote;
  for (int q = 0; q < s->nranks; q++)
    if (!boot.sameHost(q))
      remote.push_back(q);
  if (!remote.empty()) {
    for (uint32_t c = 0; c < var->num_channels; c++) {
      const int a = pp->phys((int)var->channels[c].src);
      const int b = pp->phys((int)var->channels[c].dst);
      if (boot.peer(a).hostId == boot.peer(b).hostId ||
          var->channels[c].kind == CCL_CHANNEL_PORT)
        continue;
      return setError(
          cclUnsupported,
          format("algorithm %s has a memory channel from rank %d (host %s) "
                 "to rank %d (host %s), which are on different hosts: only "
                 "port channels reach another host (their proxy sends over "
                 "RDMA or TCP); use an algorithm over port channels "
                 "(channel(port))",
                 alg.c_str(), a, boot.hostName(a).c_str(), b,
                 boot.hostName(b).c_str()));
    }
  }
  // This rank's arena: the scratch buffers, then the counters.
  std::vector<uint64_t> offs(var->num_scratch);
  uint64_t total = 0;
  for (uint32_t b = 0; b < var->num_scratch; b++) {
    offs[b] = total;
    total = alignUp(total + sizes[b]);
  }
  const uint64_t syncOff = total;
  total = alignUp(total + syncWords * sizeof(uint64_t));
  if (total == 0)
    total = kArenaAlign;
  PreparedRank &pr = pp->ranks[r];
  std::string status = localError;
  std::string handle; // the arena's, where the target shares by handle
  if (localCode == cclSuccess) {
    std::string what =
        format("scratch memory of rank %d for algorithm %s", r, alg.c_str());
    cclResult_t ar =
        dev.allocateExportable(r, total, &pr.arena, &pr.arenaFd, what.c_str());
    if (ar != cclSuccess) {
      status = cclGetLastError();
      localCode = ar;
    } else {
      pr.arenaBytes = total;
      handle = dev.exportHandle(r, pr.arena);
      char *base = static_cast<char *>(pr.arena);
      for (uint32_t b = 0; b < var->num_scratch; b++)
        pr.scratch.push_back(base + offs[b]);
      pr.sync = base + syncOff;
      std::vector<uint64_t> initial = init(r);
      if (!initial.empty() &&
          dev.upload(r, pr.sync, initial.data(),
                     initial.size() * sizeof(uint64_t)) != cclSuccess) {
        status = cclGetLastError();
        localCode = cclDriverError;
      }
    }
  }
  // The transports to the ranks of other hosts.
  std::string netRecord;
  if (!remote.empty() && localCode == cclSuccess) {
    cclResult_t nr = offerRemote(s, pr, remote, &netRecord);
    if (nr != cclSuccess) {
      status = cclGetLastError();
      localCode = nr;
    }
  }
  // Fault injection for the tests (docs/runtime.md, "Failures"): this
  // process dies where a peer would wait for its memory.
  if (const char *f = getenv("CCL_DEBUG_FAULT"))
    if (strcmp(f, "exit-in-memory-exchange") == 0)
      _exit(66);
  std::vector<std::string> all;
  std::vector<net::Fd> fds;
  cclResult_t res = boot.allGather(
      status.empty()
          ? okRecord(total, syncOff, reinterpret_cast<uint64_t>(pr.arena), offs,
                     handle, netRecord)
          : "E" + status,
      &all, pr.arenaFd, &fds);
  if (res != cclSuccess)
    return res;
  // This rank's own failure first, else the first other rank's.
  if (!status.empty())
    return setError(localCode, status);
  for (int q = 0; q < s->nranks; q++)
    if (!all[q].empty() && all[q][0] == 'E')
      return setError(cclRemoteError,
                      format("preparing it failed on rank %d: ", q) +
                          all[q].substr(1));
  // Map every peer's arena on this host; a peer on another host is known by
  // its own addresses, which only its proxy's TCP frames carry.
  std::string mapError;
  std::vector<std::string> netRecords(s->nranks);
  for (int q = 0; q < s->nranks && mapError.empty(); q++) {
    if (q == r) {
      (*mem)[q] = RankMemory{pr.scratch, pr.sync};
      continue;
    }
    uint64_t qTotal, qSync, qBase;
    std::vector<uint64_t> qOffs;
    std::string qHandle;
    if (!parseRecord(all[q], var->num_scratch, &qTotal, &qSync, &qBase, &qOffs,
                     &qHandle, &netRecords[q]) ||
        qTotal != total || (boot.sameHost(q) && !fds[q] && qHandle.empty())) {
      mapError = format("rank %d sent a malformed memory record or no "
                        "descriptor or handle",
                        q);
      break;
    }
    if (!boot.sameHost(q)) {
      RankMemory &m = (*mem)[q];
      for (uint64_t o : qOffs)
        m.scratch.push_back(reinterpret_cast<char *>(qBase + o));
      m.sync = reinterpret_cast<char *>(qBase + qSync);
      continue;
    }
    void *base = nullptr;
    std::string what = format("scratch memory of rank %d", q);
    if ((fds[q] ? dev.mapPeer(r, fds[q].get(), qTotal, &base, what.c_str())
                : dev.mapPeerHandle(r, qHandle, qTotal, &base, what.c_str())) !=
        cclSuccess) {
      mapError = cclGetLastError();
      break;
    }
    pr.peerMaps.emplace_back(base, qTotal);
    RankMemory &m = (*mem)[q];
    for (uint64_t o : qOffs)
      m.scratch.push_back(static_cast<char *>(base) + o);
    m.sync = static_cast<char *>(base) + qSync;
  }
  // Connections to the other hosts' ranks (once per pair), and this arena
  // as memory their writes may reach.
  netRecords[r] = netRecord;
  if (mapError.empty() && !remote.empty() &&
      connectRemote(s, pr, remote, netRecords) != cclSuccess)
    mapError = cclGetLastError();
  std::string why;
  if (!agree(s, mapError, &why))
    return setError(mapError.empty() ? cclRemoteError : cclSystemError, why);
  return cclSuccess;
}

void releaseShared(Shared *s, int rank, PreparedRank &pr) {
  Device &dev = *s->device;
  for (auto &m : pr.peerMaps)
    dev.unmapPeer(rank, m.first, m.second);
  pr.peerMaps.clear();
  if (pr.arena) {
    releaseRemote(s, pr);
    // scratch[] and sync point into the arena.
    pr.scratch.clear();
    pr.sync = nullptr;
    dev.releaseExportable(rank, pr.arena, pr.arenaBytes, pr.arenaFd);
    pr.arena = nullptr;
    pr.arenaFd = -1;
    pr.arenaBytes = 0;
  }
}

} // namespace cclrt
