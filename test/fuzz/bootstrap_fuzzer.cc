// bootstrap_fuzzer.cc - libFuzzer target for what libcclrt reads from other
// processes (runtime/src/wire.h, net.h): the unique id, frame headers, the
// payload decoders, and Link::recv on a socket pair fed with the input,
// both as raw bytes (the MAC check must reject them) and as a frame with a
// valid MAC around fuzzed header fields and payload (so the checks behind
// the MAC run too). Run with scripts/fuzz.sh --fuzzer bootstrap.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

#include "runtime/src/net.h"
#include "runtime/src/wire.h"

using namespace cclrt;

namespace {

const uint8_t kSecret[wire::kSecretBytes] = {1, 2, 3};

void decodeAll(uint8_t type, const uint8_t *p, size_t n) {
  wire::RankInfo info;
  std::vector<wire::RankInfo> all;
  wire::Abort a;
  std::string text;
  switch (type % 4) {
  case 0:
    if (wire::decodeRankInfo(p, n, &info)) {
      // What decodes must encode to the same bytes.
      std::string again = wire::encodeRankInfo(info);
      if (again.size() != n || memcmp(again.data(), p, n) != 0)
        __builtin_trap();
    }
    break;
  case 1:
    if (wire::decodePeers(p, n, 64, &all) && all.size() > 64)
      __builtin_trap();
    break;
  case 2:
    wire::decodeAbort(p, n, &a);
    break;
  case 3:
    wire::decodeText(p, n, &text);
    break;
  }
}

// Feeds `bytes` to Link::recv through a socket pair.
void recvFrom(const std::string &bytes, const Digest &key) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return;
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t w = write(sv[1], bytes.data() + off, bytes.size() - off);
    if (w <= 0)
      break;
    off += (size_t)w;
  }
  close(sv[1]);
  net::Link link(net::Fd(sv[0]), key, true);
  net::Frame f;
  std::string err;
  while (link.recv(&f, net::Deadline::in(0), &err) == net::RecvStatus::kOk)
    decodeAll(f.h.type, reinterpret_cast<const uint8_t *>(f.payload.data()),
              f.payload.size());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1 || size > 65536)
    return 0;
  const uint8_t mode = data[0];
  data++;
  size--;
  Digest key{};
  memcpy(key.data(), kSecret, sizeof kSecret);
  switch (mode % 4) {
  case 0: { // unique id and header parsers on raw bytes
    uint8_t id[128] = {0};
    memcpy(id, data, size < 128 ? size : 128);
    wire::UniqueId u;
    wire::decodeId(id, &u);
    if (size >= wire::kHeaderBytes) {
      wire::Header h;
      wire::decodeHeader(data, &h);
    }
    break;
  }
  case 1: // payload decoders
    if (size)
      decodeAll(data[0], data + 1, size - 1);
    break;
  case 2: // raw bytes on a link: rejected, never crash
    recvFrom(std::string(reinterpret_cast<const char *>(data), size), key);
    break;
  case 3: { // authenticated frames with fuzzed header fields and payload
    if (size < 16)
      return 0;
    wire::Header h;
    h.type = data[0];
    h.nfds = data[1] & 1;
    memcpy(&h.from, data + 2, 4);
    memcpy(&h.seq, data + 6, 8);
    h.seq = h.seq % 3; // mostly the expected sequence number (1)
    h.tag = data[14];
    const uint8_t *payload = data + 16;
    size_t n = size - 16;
    h.length = (uint32_t)n;
    if (data[15] & 1) // a length that lies
      h.length = (uint32_t)(n + data[15]);
    uint8_t hdr[wire::kHeaderBytes];
    wire::encodeHeader(h, hdr);
    Digest mac = wire::frameMac(key, hdr, payload, n);
    std::string frame(reinterpret_cast<const char *>(hdr), sizeof hdr);
    frame.append(reinterpret_cast<const char *>(payload), n);
    frame.append(reinterpret_cast<const char *>(mac.data()), mac.size());
    recvFrom(frame, key);
    break;
  }
  }
  return 0;
}
