// test_util.h - a tiny check macro and host-kernel helpers for the runtime
// tests. The kernels the tests define are ordinary C++ functions that play
// the role of cclc-generated host kernels: they use the ccl_dev_ctx the
// runtime hands them (scratch table, epoch, abort flag, error record).
#ifndef CCL_TEST_RUNTIME_TEST_UTIL_H
#define CCL_TEST_RUNTIME_TEST_UTIL_H

#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ccl/ccl.h"
#include "ccl/plan.h"

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      g_failures++;                                                            \
    }                                                                          \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                     \
  do {                                                                         \
    std::string a_ = (a), b_ = (b);                                            \
    if (a_ != b_) {                                                            \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s\n  got:      %s\n"        \
                      "  expected: %s\n",                                      \
              __FILE__, __LINE__, #a, #b, a_.c_str(), b_.c_str());             \
      g_failures++;                                                            \
    }                                                                          \
  } while (0)

// A call that must succeed; prints the runtime's message otherwise.
#define CHECK_OK(call)                                                         \
  do {                                                                         \
    cclResult_t r_ = (call);                                                   \
    if (r_ != cclSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__,      \
              #call, (int)r_, cclGetLastError());                              \
      g_failures++;                                                            \
    }                                                                          \
  } while (0)

// A call that must fail with `code`; returns nothing, leaves the message in
// cclGetLastError().
#define CHECK_FAILS(call, code)                                                \
  do {                                                                         \
    cclResult_t r_ = (call);                                                   \
    if (r_ != (code)) {                                                        \
      fprintf(stderr, "%s:%d: %s returned %d, expected %d (%s)\n", __FILE__,  \
              __LINE__, #call, (int)r_, (int)(code), cclGetLastError());       \
      g_failures++;                                                            \
    }                                                                          \
  } while (0)

// The communicator's asynchronous error (cclGetLastError describes it), or
// the failure of cclCommGetAsyncError itself.
static inline cclResult_t asyncError(cclComm_t comm) {
  cclResult_t async = cclInternalError;
  cclResult_t r = cclCommGetAsyncError(comm, &async);
  return r != cclSuccess ? r : async;
}

static inline bool contains(const std::string &s, const std::string &sub) {
  return s.find(sub) != std::string::npos;
}

#define CHECK_CONTAINS(s, sub)                                                 \
  do {                                                                         \
    std::string s_ = (s);                                                      \
    if (!contains(s_, (sub))) {                                                \
      fprintf(stderr, "%s:%d: CHECK failed: \"%s\" does not contain \"%s\"\n", \
              __FILE__, __LINE__, s_.c_str(), std::string(sub).c_str());       \
      g_failures++;                                                            \
    }                                                                          \
  } while (0)

static inline int test_result(const char *name) {
  if (g_failures) {
    fprintf(stderr, "%s: %d check(s) FAILED\n", name, g_failures);
    return 1;
  }
  printf("%s: all checks passed\n", name);
  return 0;
}

// ---------------------------------------------------------------------------
// Host-kernel helpers (the same protocol as the device library's host path).
// ---------------------------------------------------------------------------
static inline uint64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint32_t kernel_begin(const ccl_dev_ctx *ctx) {
  return __atomic_load_n(&ctx->epoch[0], __ATOMIC_ACQUIRE);
}

// The last block to finish advances the epoch.
static inline void kernel_end(const ccl_dev_ctx *ctx) {
  uint32_t done = __atomic_fetch_add(&ctx->epoch[1], 1u, __ATOMIC_ACQ_REL);
  if (done + 1 == ctx->nblocks) {
    __atomic_store_n(&ctx->epoch[1], 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&ctx->epoch[0], ctx->epoch[0] + 1, __ATOMIC_RELEASE);
  }
}

// Reports a timeout the way device code does: claim the record, fill it,
// raise the abort flag (only the block whose claim succeeded: the runtime
// reads the record once it sees the flag).
static inline void report_timeout(const ccl_dev_ctx *ctx, uint32_t block,
                                  uint32_t op_id, uint32_t expected,
                                  uint32_t observed, uint64_t waited) {
  uint32_t zero = CCL_ERR_NONE;
  if (__atomic_compare_exchange_n(&ctx->error->state, &zero, CCL_ERR_TIMEOUT,
                                  false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    ctx->error->rank = ctx->rank;
    ctx->error->block = block;
    ctx->error->op_id = op_id;
    ctx->error->expected = expected;
    ctx->error->observed = observed;
    ctx->error->waited_ns = waited;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(const_cast<uint32_t *>(ctx->abort_flag), 1u,
                     __ATOMIC_RELEASE);
  }
}

// Spins until *flag == expected (or, with at_least, until it reached
// expected: a monotonic counter); returns false on abort or timeout (then
// the record is filled and the abort flag raised).
static inline bool wait_flag(const ccl_dev_ctx *ctx, uint32_t block,
                             const uint32_t *flag, uint32_t expected,
                             uint32_t op_id, bool at_least = false) {
  uint64_t start = 0;
  for (uint64_t n = 0;; n++) {
    uint32_t v = __atomic_load_n(flag, __ATOMIC_ACQUIRE);
    if (v == expected || (at_least && (int32_t)(v - expected) >= 0))
      return true;
    if (n == 0)
      start = now_ns();
    // The rank's other blocks run meanwhile (they are fibers of its
    // worker: a wait that never paused would hold them all up).
    // After a sleep the clock is read at once (a sleep is up to 1 ms).
    bool slept = cclrtHostPause(n == 0) != 0;
    if ((n & 63) != 0 && !slept)
      continue;
    if (__atomic_load_n(const_cast<uint32_t *>(ctx->abort_flag),
                        __ATOMIC_ACQUIRE))
      return false;
    uint64_t timeout = __atomic_load_n(&ctx->timeout_ns, __ATOMIC_RELAXED);
    uint64_t waited = now_ns() - start;
    if (timeout && waited > timeout) {
      report_timeout(ctx, block, op_id, expected, v, waited);
      return false;
    }
  }
}

// LL16 packet: {d0, flag, d1, flag} written as two 8-byte atomic stores.
static inline void put_packets(char *dst, const char *src, uint64_t nbytes,
                               uint32_t flag) {
  for (uint64_t off = 0, i = 0; off < nbytes; off += 8, i++) {
    uint64_t v = 0;
    memcpy(&v, src + off, nbytes - off < 8 ? nbytes - off : 8);
    uint64_t *p = reinterpret_cast<uint64_t *>(dst + i * 16);
    __atomic_store_n(&p[0], (v & 0xffffffffull) | ((uint64_t)flag << 32),
                     __ATOMIC_RELEASE);
    __atomic_store_n(&p[1], (v >> 32) | ((uint64_t)flag << 32),
                     __ATOMIC_RELEASE);
  }
}

// Reads packet i's payload once both flags equal `flag`.
static inline bool read_packet(const ccl_dev_ctx *ctx, uint32_t block,
                               const char *pkts, uint64_t i, uint32_t flag,
                               uint32_t op_id, uint64_t *payload) {
  const uint64_t *p = reinterpret_cast<const uint64_t *>(pkts + i * 16);
  const uint32_t *f0 = reinterpret_cast<const uint32_t *>(&p[0]) + 1;
  const uint32_t *f1 = reinterpret_cast<const uint32_t *>(&p[1]) + 1;
  if (!wait_flag(ctx, block, f0, flag, op_id) ||
      !wait_flag(ctx, block, f1, flag, op_id))
    return false;
  uint64_t a = __atomic_load_n(&p[0], __ATOMIC_ACQUIRE);
  uint64_t b = __atomic_load_n(&p[1], __ATOMIC_ACQUIRE);
  *payload = (a & 0xffffffffull) | (b << 32);
  return true;
}

// Address of slot `slot` of packet scratch buffer `buf` on rank `rank`
// (layout of ccl_scratch_info, half chosen by the epoch parity).
static inline char *scratch_slot(const ccl_dev_ctx *ctx, uint32_t buf,
                                 uint32_t rank, uint32_t slot, uint32_t nslots,
                                 uint64_t count, uint32_t chunks,
                                 uint32_t esize, uint32_t epoch) {
  char *base = static_cast<char *>(ctx->scratch[buf * ctx->nranks + rank]);
  uint64_t unit = (count + chunks - 1) / chunks;
  uint64_t slot_bytes = (unit * esize + 7) / 8 * 16;
  return base + (uint64_t)(epoch & 1) * nslots * slot_bytes +
         (uint64_t)slot * slot_bytes;
}

#endif
