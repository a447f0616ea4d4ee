//===- MemoryGuard.h - stop a compile before it passes its memory -*- C++ -*-===//
//
// A compile that would use more memory than the machine has stops with an
// error naming what it was doing (Activity.h), never by the kernel's OOM
// killer: a thread reads the process's resident memory every few
// milliseconds and, past the limit, prints
//
//   cclc: error: out of memory: ccl-verify of allpairs_ll at 64 ranks
//   needed more than 200 MB (--max-memory=200M)
//
// and exits with status 1.
//
//===----------------------------------------------------------------------===//
#ifndef CCL_SUPPORT_MEMORYGUARD_H
#define CCL_SUPPORT_MEMORYGUARD_H

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace ccl {

class MemoryGuard {
public:
  /// Watches until destroyed; `limit` in bytes, `why` says where the
  /// limit comes from ("--max-memory=200M").
  MemoryGuard(uint64_t limit, std::string why);
  ~MemoryGuard();
  MemoryGuard(const MemoryGuard &) = delete;
  MemoryGuard &operator=(const MemoryGuard &) = delete;

  /// The process's resident memory now, in bytes (0 if unknown).
  static uint64_t residentBytes();
  /// The memory available to a new allocation now (MemAvailable of
  /// /proc/meminfo, at most the cgroup's limit less its usage), in bytes;
  /// 0 if unknown.
  static uint64_t availableBytes();

private:
  void watch();

  uint64_t limit;
  std::string why;
  std::atomic<bool> done{false};
  std::thread thread;
};

} // namespace ccl

#endif // CCL_SUPPORT_MEMORYGUARD_H
