// host_wait.cc - where the host target's waits sleep (ccl/plan.h, "Host
// target: sleeping waits"; docs/runtime.md, "Host target"). CCL_HOST_RINGS
// rings per process, one per 4 KiB page of the polled address modulo their
// number: each a 32-bit sequence number that writers advance, a futex on
// it that sleeping waiters block on, and the count of its sleepers. A ring
// wakes every sleeper of its pages (each polls its own data again and
// sleeps on if it is not there yet): the writers do not know who waits for
// what. One ring for the whole process woke every sleeper at every store;
// with hundreds of block threads (8 ranks x 64 blocks, several tests side
// by side) most of the CPU went to the kernel's wake-ups.

#include <atomic>
#include <cerrno>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

extern "C" {
// The threads between cclrtHostArm and cclrtHostSleep/cclrtHostDisarm: a
// writer rings only when it is not 0.
uint32_t cclrtHostWaiters = 0;
// Failed polls before a wait arms (cclrtHostSetThreads sets it).
uint32_t cclrtHostSpinPolls = cclrt::kHostSpinAlone;
}

namespace cclrt {
namespace {

// One ring: its sequence number (the futex word) and its armed waiters, on
// a cache line of its own.
struct alignas(64) Ring {
  uint32_t seq = 0;
  uint32_t sleepers = 0;
};
Ring gRings[CCL_HOST_RINGS];
constexpr unsigned kPageShift = 12;

Ring &ringOf(const void *addr) {
  return gRings[((uintptr_t)addr >> kPageShift) % CCL_HOST_RINGS];
}

// Wakes the sleepers of `r`, if it has any.
void wake(Ring &r) {
  if (!__atomic_load_n(&r.sleepers, __ATOMIC_RELAXED))
    return;
  __atomic_fetch_add(&r.seq, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &r.seq, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

// Host-kernel threads (workers and block threads) alive in the process.
std::atomic<int> gThreads{0};

int cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

} // namespace

void hostThreadsChanged(int delta) {
  int n = gThreads.fetch_add(delta, std::memory_order_relaxed) + delta;
  __atomic_store_n(&cclrtHostSpinPolls,
                   n > cpus() ? kHostSpinShared : kHostSpinAlone,
                   __ATOMIC_RELAXED);
}

} // namespace cclrt

extern "C" {

uint32_t cclrtHostArm(const void *addr) {
  cclrt::Ring &r = cclrt::ringOf(addr);
  __atomic_fetch_add(&r.sleepers, 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&cclrtHostWaiters, 1, __ATOMIC_SEQ_CST);
  // The arm before the poll that follows it (a writer that stored before
  // this fence and then read no waiter is seen by that poll).
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return __atomic_load_n(&r.seq, __ATOMIC_ACQUIRE);
}

void cclrtHostDisarm(const void *addr) {
  __atomic_fetch_sub(&cclrtHostWaiters, 1, __ATOMIC_RELAXED);
  __atomic_fetch_sub(&cclrt::ringOf(addr).sleepers, 1, __ATOMIC_RELAXED);
}

void cclrtHostSleep(const void *addr, uint32_t seq, uint64_t timeout_ns) {
  timespec ts;
  ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
  ts.tv_nsec = (long)(timeout_ns % 1000000000u);
  // Returns at once when a ring came after the arm (the word moved on),
  // on a ring, a signal or the timeout: the caller polls again either way.
  syscall(SYS_futex, &cclrt::ringOf(addr).seq, FUTEX_WAIT_PRIVATE, seq, &ts,
          nullptr, 0);
  cclrtHostDisarm(addr);
}

void cclrtHostRing(const void *addr, uint64_t nbytes) {
  uintptr_t first = (uintptr_t)addr >> cclrt::kPageShift;
  uintptr_t last =
      nbytes ? ((uintptr_t)addr + nbytes - 1) >> cclrt::kPageShift : first;
  if (!addr || last - first + 1 >= CCL_HOST_RINGS) {
    for (cclrt::Ring &r : cclrt::gRings)
      cclrt::wake(r);
    return;
  }
  for (uintptr_t page = first; page <= last; ++page)
    cclrt::wake(cclrt::gRings[page % CCL_HOST_RINGS]);
}

} // extern "C"
