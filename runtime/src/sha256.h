// sha256.h - SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), written from
// the standards for the bootstrap (message authentication, plan digests).
#ifndef CCLRT_SHA256_H
#define CCLRT_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>

namespace cclrt {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t n);
  template <typename T> void updateValue(const T &v) { update(&v, sizeof v); }
  // Adds a string with its length, so that ("ab","c") != ("a","bc").
  void updateString(const char *s);
  Digest finish();

private:
  void block(const uint8_t *p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t total_ = 0;
};

// HMAC-SHA-256 of the concatenation of `parts` under `key`.
struct Span {
  const void *data;
  size_t size;
};
Digest hmacSha256(const uint8_t *key, size_t keyLen, const Span *parts,
                  size_t nparts);

// Compares two digests in time independent of where they differ.
bool digestEqual(const uint8_t *a, const uint8_t *b, size_t n);

} // namespace cclrt

#endif // CCLRT_SHA256_H
