// remote.cc - how a rank reaches the ranks of other hosts (see remote.h).
#include "remote.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>

#include "bootstrap.h"
#include "ib.h"
#include "tcp.h"

namespace cclrt {
namespace {

// The record: u32 length + the TCP transport's record, then u32 length +
// the verbs transport's record; length 0: not offered.
void appendPart(std::string *out, const std::string &part) {
  uint32_t n = (uint32_t)part.size();
  out->append(reinterpret_cast<const char *>(&n), 4);
  out->append(part);
}

bool splitRecord(const std::string &rec, std::string *tcp, std::string *ib) {
  size_t at = 0;
  for (std::string *part : {tcp, ib}) {
    uint32_t n;
    if (rec.size() - at < 4)
      return false;
    memcpy(&n, rec.data() + at, 4);
    at += 4;
    if (rec.size() - at < n)
      return false;
    part->assign(rec, at, n);
    at += n;
  }
  return at == rec.size();
}

} // namespace

void info(const char *fmt, ...) {
  static const bool on = [] {
    const char *v = getenv("CCL_DEBUG");
    return v && strcasecmp(v, "INFO") == 0;
  }();
  if (!on)
    return;
  va_list ap;
  va_start(ap, fmt);
  std::string msg = vformat(fmt, ap);
  va_end(ap);
  fprintf(stderr, "ccl INFO %s\n", msg.c_str());
}

cclResult_t offerRemote(Shared *s, PreparedRank &pr,
                        const std::vector<int> &remote, std::string *record) {
  NetChoice choice;
  if (cclResult_t r = netChoice(&choice); r != cclSuccess)
    return r;
  const int me = s->boot->rank();
  std::lock_guard<std::mutex> lk(s->proxyMu);
  std::string ibRecord, tcpRecord;
  if (choice != NetChoice::kTcp) {
    if (!s->ib && s->ibWhy.empty()) {
      if (IbNet::create(s, &s->ib) != cclSuccess) {
        s->ibWhy = cclGetLastError();
        if (s->ibWhy.empty())
          s->ibWhy = "unknown error";
      } else {
        info("rank %d: %s found for port channels to other hosts", me,
             s->ib->describe().c_str());
      }
    }
    if (!s->ib && choice == NetChoice::kIb)
      return setError(cclSystemError, "CCL_NET=ib, but " + s->ibWhy);
    if (s->ib) {
      if (s->ib->prepare(pr.arena, pr.arenaBytes, remote) == cclSuccess)
        ibRecord = s->ib->record(pr.arena, remote);
      else if (choice == NetChoice::kIb)
        return cclSystemError; // its message stands
      else
        info("rank %d: no RDMA for this plan (%s); TCP instead", me,
             cclGetLastError());
    } else {
      info("rank %d: no RDMA (%s); TCP instead", me, s->ibWhy.c_str());
    }
  }
  if (choice != NetChoice::kIb) {
    if (!s->tcp)
      if (cclResult_t r = TcpNet::create(s, &s->tcp); r != cclSuccess)
        return r;
    tcpRecord = s->tcp->record();
  }
  record->clear();
  appendPart(record, tcpRecord);
  appendPart(record, ibRecord);
  return cclSuccess;
}

cclResult_t connectRemote(Shared *s, PreparedRank &pr,
                          const std::vector<int> &remote,
                          const std::vector<std::string> &records) {
  Bootstrap &boot = *s->boot;
  const int me = boot.rank();
  std::string myTcp, myIb;
  if (!splitRecord(records[me], &myTcp, &myIb))
    return setError(cclInternalError, "this rank's transport record is "
                                      "malformed");
  std::vector<int> tcpPeers, ibPeers;
  std::vector<std::string> tcpRecords(s->nranks), ibRecords(s->nranks);
  pr.net.assign(s->nranks, PreparedRank::kSameHost);
  for (int q : remote) {
    if (!splitRecord(records[q], &tcpRecords[q], &ibRecords[q]))
      return setError(cclRemoteError,
                      format("%s sent a malformed transport record",
                             boot.describe(q).c_str()));
    if (!myIb.empty() && !ibRecords[q].empty()) {
      pr.net[q] = PreparedRank::kIb;
      ibPeers.push_back(q);
      info("rank %d: port channels to %s use %s", me, boot.describe(q).c_str(),
           s->ib->describe().c_str());
    } else if (!myTcp.empty() && !tcpRecords[q].empty()) {
      pr.net[q] = PreparedRank::kTcp;
      tcpPeers.push_back(q);
      info("rank %d: port channels to %s use TCP", me,
           boot.describe(q).c_str());
    } else {
      return setError(
          cclInvalidArgument,
          format("rank %d and %s share no transport between hosts: this rank "
                 "offers %s, that one %s (CCL_NET and the RDMA devices "
                 "decide)",
                 me, boot.describe(q).c_str(),
                 !myIb.empty() ? "RDMA only" : "TCP only",
                 !ibRecords[q].empty()
                     ? "RDMA only"
                     : (!tcpRecords[q].empty() ? "TCP only" : "nothing")));
    }
  }
  if (!ibPeers.empty())
    if (cclResult_t r = s->ib->connect(ibPeers, ibRecords); r != cclSuccess)
      return r;
  if (!tcpPeers.empty()) {
    s->tcp->addRegion(reinterpret_cast<uintptr_t>(pr.arena),
                      reinterpret_cast<uintptr_t>(pr.arena) + pr.arenaBytes);
    if (cclResult_t r = s->tcp->connect(tcpPeers, tcpRecords); r != cclSuccess)
      return r;
  }
  return cclSuccess;
}

void releaseRemote(Shared *s, PreparedRank &pr) {
  if (!pr.arena)
    return;
  if (s->tcp)
    s->tcp->removeRegion(reinterpret_cast<uintptr_t>(pr.arena));
  if (s->ib)
    s->ib->removeArena(pr.arena);
}

void stopRemote(Shared *s) {
  if (s->tcp)
    s->tcp->stop();
  if (s->ib)
    s->ib->stop();
}

} // namespace cclrt
