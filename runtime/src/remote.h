// remote.h - how a rank reaches the ranks of other hosts (docs/runtime.md,
// "The proxy"): the proxy's transports there (TCP, tcp.h; rdma-core
// verbs, ib.h), which one each pair of ranks uses for a plan, and their
// part of the plan's exchange record (peers.cc).
//
// CCL_NET picks what this process offers: auto (the default) offers verbs
// when libibverbs finds a device with an active port and the plan's arena
// can be registered with it, and TCP always; ib offers verbs only (an
// error when it cannot); tcp offers TCP only. A pair of ranks uses verbs
// when both offer it, else TCP when both offer that; every rank decides
// from the same records, so both ends agree.
#ifndef CCLRT_REMOTE_H
#define CCLRT_REMOTE_H

#include <string>
#include <vector>

#include "internal.h"

namespace cclrt {

// Before the exchange: sets up the transports this process offers to the
// ranks of `remote` for a plan whose arena on this rank is
// [arena, arena + bytes), and returns this rank's part of the record.
cclResult_t offerRemote(Shared *s, PreparedRank &pr,
                        const std::vector<int> &remote, std::string *record);
// After the exchange (`records` by rank, the parts the ranks offered):
// chooses each pair's transport (pr.net) and connects what is not
// connected yet. The caller agrees with every rank before anything is
// sent.
cclResult_t connectRemote(Shared *s, PreparedRank &pr,
                          const std::vector<int> &remote,
                          const std::vector<std::string> &records);
// The plan's arena is freed: its registrations go.
void releaseRemote(Shared *s, PreparedRank &pr);
// Closes the transports (destroy, after the proxies stopped).
void stopRemote(Shared *s);

// Setup messages for users: printed to stderr when CCL_DEBUG=INFO.
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

} // namespace cclrt

#endif // CCLRT_REMOTE_H
