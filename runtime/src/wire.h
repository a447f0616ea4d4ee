// wire.h - the bootstrap's wire format (docs/runtime.md, "Bootstrap"):
// the unique id, frames and the payloads of each message type, as pure
// encoders and decoders. Decoders take untrusted bytes: they check every
// length against what is left and against the limits below, and return
// false on anything malformed (they never read out of bounds, allocate
// more than the input justifies, or throw on bad input).
// test/fuzz/bootstrap_fuzzer.cc fuzzes them.
#ifndef CCLRT_WIRE_H
#define CCLRT_WIRE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sha256.h"

namespace cclrt {
namespace wire {

constexpr uint32_t kIdMagic = 0x75434343;    // "CCCu"
constexpr uint32_t kFrameMagic = 0x62434343; // "CCCb"
constexpr uint32_t kChallengeMagic = 0x63434343; // "CCCc"
constexpr uint8_t kVersion = 2; // 2: the timeout record of Abort grew to 40 bytes (plan ABI 4)
// The largest payload of a frame (cclBootstrapAllGather allows 64 MiB per
// rank; the rest is the plan-exchange records).
constexpr uint32_t kMaxPayload = (64u << 20) + 4096;
constexpr size_t kMaxHostId = 255;
constexpr size_t kMaxText = 4096;
constexpr size_t kSecretBytes = 32;
constexpr size_t kNonceBytes = 16;
constexpr size_t kMacBytes = 32;
constexpr size_t kHeaderBytes = 32;
constexpr size_t kChallengeBytes = 4 + 4 + kNonceBytes;

// An IPv4 or IPv6 socket address, family AF_INET / AF_INET6.
struct Addr {
  uint16_t family = 0;
  uint16_t port = 0; // host byte order
  uint8_t ip[16] = {}; // 4 bytes used for IPv4
};

// The 128 bytes of cclUniqueId.
struct UniqueId {
  Addr root;
  uint8_t secret[kSecretBytes] = {};
  // The process that hosts the root (cclGetUniqueId's caller) and where it
  // runs (net::processHostKey, 24 bits): a rank on that host can tell that
  // the root's process has exited. rootPid 0: not known (ids of earlier
  // libraries, or made from an address). Both fit the id's first 64 bytes,
  // all that libcclnccl.so keeps of it beside the real NCCL's id.
  uint32_t rootPid = 0;
  uint32_t rootHost = 0;
};
void encodeId(const UniqueId &id, uint8_t out[128]);
bool decodeId(const uint8_t in[128], UniqueId *id);

enum Type : uint8_t {
  kHello = 1,  // rank -> root: RankInfo
  kPeers = 2,  // root -> rank: every RankInfo, by rank
  kReject = 3, // root -> rank: why the job cannot start (text)
  kLink = 4,   // rank -> rank, first frame of a mesh link: the sender's rank
  kData = 5,   // a bootstrap collective's contribution (tag = the call)
  kAbort = 6,  // the sender's communicator failed or was aborted: Abort
  kBye = 7,    // the sender destroyed its communicator normally
};

struct Header {
  uint32_t magic = kFrameMagic;
  uint8_t version = kVersion;
  uint8_t type = 0;
  uint16_t nfds = 0; // file descriptors passed with the frame (SCM_RIGHTS)
  uint32_t from = 0; // the sender's rank (the root sends ~0u)
  uint32_t length = 0; // payload bytes
  uint64_t seq = 0;    // 1, 2, ... per direction of a link
  uint64_t tag = 0;
};
void encodeHeader(const Header &h, uint8_t out[kHeaderBytes]);
// Checks magic, version, type and the payload limit.
bool decodeHeader(const uint8_t in[kHeaderBytes], Header *h);

// The MAC of a frame under a link's session key.
Digest frameMac(const Digest &key, const uint8_t header[kHeaderBytes],
                const uint8_t *payload, size_t length);
// A link's session key: HMAC(secret, "cclrt link" | acceptor nonce |
// connector nonce).
Digest sessionKey(const uint8_t secret[kSecretBytes],
                  const uint8_t acceptorNonce[kNonceBytes],
                  const uint8_t connectorNonce[kNonceBytes]);

// What a rank tells the root about itself.
struct RankInfo {
  uint32_t rank = 0, nranks = 0, pid = 0;
  uint64_t timeoutMs = 0;
  std::string hostId;  // ranks with equal host ids share memory
  Addr listen;         // its mesh listener (TCP)
  std::string unixName; // its mesh listener (abstract Unix socket), "" if none
};
std::string encodeRankInfo(const RankInfo &r);
bool decodeRankInfo(const uint8_t *p, size_t n, RankInfo *r);
std::string encodePeers(const std::vector<RankInfo> &all);
// At most `maxRanks` entries; entry i must have rank i.
bool decodePeers(const uint8_t *p, size_t n, uint32_t maxRanks,
                 std::vector<RankInfo> *all);

struct Abort {
  uint32_t kind = 0; // 1: a spin-wait timed out (record), 2: cclCommAbort,
                     // 3: a rank lost a peer
  uint32_t rank = 0; // the rank the failure is about
  uint8_t record[40] = {}; // the ccl_error_record of a timeout
  std::string text;
};
std::string encodeAbort(const Abort &a);
bool decodeAbort(const uint8_t *p, size_t n, Abort *a);

std::string encodeText(const std::string &s); // kReject
bool decodeText(const uint8_t *p, size_t n, std::string *s);

// "1.2.3.4:5", "[::1]:5"
std::string addrString(const Addr &a);
std::string hex(const uint8_t *p, size_t n);
bool unhex(const char *s, uint8_t *out, size_t n); // exactly 2n hex digits

} // namespace wire
} // namespace cclrt

#endif // CCLRT_WIRE_H
