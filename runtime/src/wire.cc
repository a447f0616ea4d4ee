// wire.cc - encoders and decoders of the bootstrap's messages (wire.h).
// Integers are little-endian; strings are a 32-bit length and the bytes.
#include "wire.h"

#include <arpa/inet.h>
#include <cstring>
#include <sys/socket.h>

namespace cclrt {
namespace wire {
namespace {

class Writer {
public:
  void u8(uint8_t v) { s_.push_back((char)v); }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void bytes(const void *p, size_t n) { s_.append((const char *)p, n); }
  void str(const std::string &v) {
    u32((uint32_t)v.size());
    s_ += v;
  }
  void addr(const Addr &a) {
    u16(a.family);
    u16(a.port);
    bytes(a.ip, 16);
  }
  std::string take() { return std::move(s_); }

private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; i++)
      s_.push_back((char)(v >> (8 * i)));
  }
  std::string s_;
};

// Reads from untrusted bytes; any overrun sets ok() false and yields zeros.
class Reader {
public:
  Reader(const uint8_t *p, size_t n) : p_(p), n_(n) {}
  uint8_t u8() { return (uint8_t)get(1); }
  uint16_t u16() { return (uint16_t)get(2); }
  uint32_t u32() { return (uint32_t)get(4); }
  uint64_t u64() { return get(8); }
  void bytes(void *out, size_t n) {
    if (!need(n)) {
      memset(out, 0, n);
      return;
    }
    memcpy(out, p_, n);
    skip(n);
  }
  std::string str(size_t max) {
    uint32_t n = u32();
    if (n > max || !need(n)) {
      ok_ = false;
      return std::string();
    }
    std::string s((const char *)p_, n);
    skip(n);
    return s;
  }
  bool addr(Addr *a) {
    a->family = u16();
    a->port = u16();
    bytes(a->ip, 16);
    return ok_ && (a->family == AF_INET || a->family == AF_INET6);
  }
  bool ok() const { return ok_; }
  bool atEnd() const { return ok_ && n_ == 0; }
  size_t left() const { return n_; }

private:
  bool need(size_t n) {
    if (!ok_ || n_ < n)
      ok_ = false;
    return ok_;
  }
  void skip(size_t n) {
    p_ += n;
    n_ -= n;
  }
  uint64_t get(int n) {
    if (!need(n))
      return 0;
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
      v |= (uint64_t)p_[i] << (8 * i);
    skip(n);
    return v;
  }
  const uint8_t *p_;
  size_t n_;
  bool ok_ = true;
};

void writeRankInfo(Writer &w, const RankInfo &r) {
  w.u32(r.rank);
  w.u32(r.nranks);
  w.u32(r.pid);
  w.u64(r.timeoutMs);
  w.str(r.hostId);
  w.addr(r.listen);
  w.str(r.unixName);
}

bool readRankInfo(Reader &rd, RankInfo *r) {
  r->rank = rd.u32();
  r->nranks = rd.u32();
  r->pid = rd.u32();
  r->timeoutMs = rd.u64();
  r->hostId = rd.str(kMaxHostId);
  bool addrOk = rd.addr(&r->listen);
  r->unixName = rd.str(107); // sun_path minus the leading NUL
  return rd.ok() && addrOk && r->nranks >= 1 && r->rank < r->nranks &&
         !r->hostId.empty();
}

} // namespace

void encodeId(const UniqueId &id, uint8_t out[128]) {
  Writer w;
  w.u32(kIdMagic);
  w.u8(kVersion);
  // Flags: 1 = the root's pid (24 bits: Linux pids are below 2^22) and
  // host key follow, the pid's low 16 bits in place of the reserved ones.
  const bool pid = id.rootPid && id.rootPid < (1u << 24);
  w.u8(pid ? 1 : 0);
  w.u16(pid ? (uint16_t)id.rootPid : 0);
  w.addr(id.root);
  w.bytes(id.secret, kSecretBytes);
  if (pid) {
    w.u8((uint8_t)(id.rootPid >> 16));
    w.u8((uint8_t)id.rootHost);
    w.u16((uint16_t)(id.rootHost >> 8));
  }
  std::string s = w.take();
  memset(out, 0, 128);
  memcpy(out, s.data(), s.size());
}

bool decodeId(const uint8_t in[128], UniqueId *id) {
  Reader rd(in, 128);
  if (rd.u32() != kIdMagic || rd.u8() != kVersion)
    return false;
  const uint8_t flags = rd.u8();
  const uint16_t pidLow = rd.u16();
  if (!rd.addr(&id->root) || id->root.port == 0)
    return false;
  rd.bytes(id->secret, kSecretBytes);
  if (flags & 1) {
    id->rootPid = pidLow | (uint32_t)rd.u8() << 16;
    id->rootHost = rd.u8();
    id->rootHost |= (uint32_t)rd.u16() << 8;
  }
  return rd.ok();
}

void encodeHeader(const Header &h, uint8_t out[kHeaderBytes]) {
  Writer w;
  w.u32(h.magic);
  w.u8(h.version);
  w.u8(h.type);
  w.u16(h.nfds);
  w.u32(h.from);
  w.u32(h.length);
  w.u64(h.seq);
  w.u64(h.tag);
  std::string s = w.take();
  memcpy(out, s.data(), s.size() < kHeaderBytes ? s.size() : kHeaderBytes);
}

bool decodeHeader(const uint8_t in[kHeaderBytes], Header *h) {
  Reader rd(in, kHeaderBytes);
  h->magic = rd.u32();
  h->version = rd.u8();
  h->type = rd.u8();
  h->nfds = rd.u16();
  h->from = rd.u32();
  h->length = rd.u32();
  h->seq = rd.u64();
  h->tag = rd.u64();
  return rd.ok() && h->magic == kFrameMagic && h->version == kVersion &&
         h->type >= kHello && h->type <= kBye && h->length <= kMaxPayload &&
         h->nfds <= 1;
}

Digest frameMac(const Digest &key, const uint8_t header[kHeaderBytes],
                const uint8_t *payload, size_t length) {
  Span parts[2] = {{header, kHeaderBytes}, {payload, length}};
  return hmacSha256(key.data(), key.size(), parts, 2);
}

Digest sessionKey(const uint8_t secret[kSecretBytes],
                  const uint8_t acceptorNonce[kNonceBytes],
                  const uint8_t connectorNonce[kNonceBytes]) {
  static const char kLabel[] = "cclrt link";
  Span parts[3] = {{kLabel, sizeof kLabel - 1},
                   {acceptorNonce, kNonceBytes},
                   {connectorNonce, kNonceBytes}};
  return hmacSha256(secret, kSecretBytes, parts, 3);
}

std::string encodeRankInfo(const RankInfo &r) {
  Writer w;
  writeRankInfo(w, r);
  return w.take();
}

bool decodeRankInfo(const uint8_t *p, size_t n, RankInfo *r) {
  Reader rd(p, n);
  return readRankInfo(rd, r) && rd.atEnd();
}

std::string encodePeers(const std::vector<RankInfo> &all) {
  Writer w;
  w.u32((uint32_t)all.size());
  for (const RankInfo &r : all)
    writeRankInfo(w, r);
  return w.take();
}

bool decodePeers(const uint8_t *p, size_t n, uint32_t maxRanks,
                 std::vector<RankInfo> *all) {
  Reader rd(p, n);
  uint32_t count = rd.u32();
  // Each entry takes at least 48 bytes: a count beyond what is left is a lie.
  if (!rd.ok() || count == 0 || count > maxRanks || count > rd.left() / 48)
    return false;
  all->assign(count, RankInfo());
  for (uint32_t i = 0; i < count; i++)
    if (!readRankInfo(rd, &(*all)[i]) || (*all)[i].rank != i ||
        (*all)[i].nranks != count)
      return false;
  return rd.atEnd();
}

std::string encodeAbort(const Abort &a) {
  Writer w;
  w.u32(a.kind);
  w.u32(a.rank);
  w.bytes(a.record, sizeof a.record);
  w.str(a.text.size() > kMaxText ? a.text.substr(0, kMaxText) : a.text);
  return w.take();
}

bool decodeAbort(const uint8_t *p, size_t n, Abort *a) {
  Reader rd(p, n);
  a->kind = rd.u32();
  a->rank = rd.u32();
  rd.bytes(a->record, sizeof a->record);
  a->text = rd.str(kMaxText);
  return rd.atEnd() && a->kind >= 1 && a->kind <= 3;
}

std::string encodeText(const std::string &s) {
  Writer w;
  w.str(s.size() > kMaxText ? s.substr(0, kMaxText) : s);
  return w.take();
}

bool decodeText(const uint8_t *p, size_t n, std::string *s) {
  Reader rd(p, n);
  *s = rd.str(kMaxText);
  return rd.atEnd();
}

std::string addrString(const Addr &a) {
  char buf[INET6_ADDRSTRLEN] = "?";
  inet_ntop(a.family == AF_INET6 ? AF_INET6 : AF_INET, a.ip, buf, sizeof buf);
  return a.family == AF_INET6 ? "[" + std::string(buf) + "]:" + std::to_string(a.port)
                              : std::string(buf) + ":" + std::to_string(a.port);
}

std::string hex(const uint8_t *p, size_t n) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(2 * n, '0');
  for (size_t i = 0; i < n; i++) {
    s[2 * i] = kDigits[p[i] >> 4];
    s[2 * i + 1] = kDigits[p[i] & 15];
  }
  return s;
}

bool unhex(const char *s, uint8_t *out, size_t n) {
  auto digit = [](char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  };
  if (!s || strlen(s) != 2 * n)
    return false;
  for (size_t i = 0; i < n; i++) {
    int hi = digit(s[2 * i]), lo = digit(s[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

} // namespace wire
} // namespace cclrt
