// host_wait.cc - how host-target waits pause (ccl/plan.h, "Host target:
// pausing waits"; docs/runtime.md, "Host target"). A rank's worker thread
// runs the thread blocks of its kernels as fibers (host.cc); a wait whose
// poll failed calls cclrtHostPause, which switches to the next block of the
// rank. When a whole round of the rank's blocks made no progress, the
// worker spins a few rounds, yields its CPU for a while, then sleeps on
// the process's doorbell until a writer rings it (or a nap's timeout: data
// written by another process, one process per rank, cannot ring). A wait
// that runs on a thread of its own (not a fiber: the device library's own
// tests) goes through the same steps with itself as the only block.
//
// One doorbell serves the process: the sleepers are the ranks' workers
// (one per rank of the process, not one per block), so a ring that wakes
// all of them is cheap, and nobody needs to know who waits for what.

#include <atomic>
#include <cerrno>
#include <climits>
#include <ctime>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

extern "C" {
// The threads between an arm and their sleep's end: a writer rings only
// when it is not 0.
uint32_t cclrtHostWaiters = 0;
}

namespace cclrt {
namespace {

// The doorbell: a sequence number writers advance and sleepers block on
// (a futex), on a cache line of its own.
struct alignas(64) Doorbell {
  uint32_t seq = 0;
};
Doorbell gDoorbell;

// Host-kernel threads (the ranks' workers) alive in the process.
std::atomic<int> gThreads{0};
// Rounds without progress before the yields (kHostSpinAlone or
// kHostSpinShared).
std::atomic<uint32_t> gSpinRounds{kHostSpinAlone};

int cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

} // namespace

void hostThreadsChanged(int delta) {
  int n = gThreads.fetch_add(delta, std::memory_order_relaxed) + delta;
  gSpinRounds.store(n > cpus() ? kHostSpinShared : kHostSpinAlone,
                    std::memory_order_relaxed);
}

void HostIdle::reset() {
  if (armed_)
    __atomic_fetch_sub(&cclrtHostWaiters, 1, __ATOMIC_RELAXED);
  armed_ = false;
  rounds_ = 0;
  nap_ = 0;
}

bool HostIdle::idle() {
  if (armed_) {
    // Armed in the round before, and that round made no progress either:
    // sleep until a ring (the word moved on since the arm: at once) or
    // the nap's end.
    timespec ts;
    ts.tv_sec = (time_t)(nap_ / 1000000000u);
    ts.tv_nsec = (long)(nap_ % 1000000000u);
    syscall(SYS_futex, &gDoorbell.seq, FUTEX_WAIT_PRIVATE, seq_, &ts, nullptr,
            0);
    __atomic_fetch_sub(&cclrtHostWaiters, 1, __ATOMIC_RELAXED);
    armed_ = false;
    if (nap_ < kHostNapMaxNs)
      nap_ *= 2;
    return true;
  }
  if (++rounds_ == 1)
    start_ = nowNs();
  if (rounds_ <= gSpinRounds.load(std::memory_order_relaxed))
    return false;
  if (!nap_ && nowNs() - start_ < kHostYieldNs) {
    sched_yield(); // another rank's worker on this CPU runs at once
    return false;
  }
  // Arm: counted among the waiters before the round that follows polls
  // again (a writer that stored before this fence and then read no waiter
  // is seen by that round).
  __atomic_fetch_add(&cclrtHostWaiters, 1, __ATOMIC_SEQ_CST);
  seq_ = __atomic_load_n(&gDoorbell.seq, __ATOMIC_ACQUIRE);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  armed_ = true;
  if (!nap_)
    nap_ = kHostNapMinNs;
  return false;
}

namespace {
// A wait on a thread of its own (not a fiber of a rank's worker).
thread_local HostIdle tAlone;
} // namespace

} // namespace cclrt

extern "C" {

int cclrtHostPause(int fresh) {
  if (cclrt::hostPauseFiber(fresh != 0))
    return cclrt::hostFiberSlept();
  if (fresh)
    cclrt::tAlone.reset();
  return cclrt::tAlone.idle() ? 1 : 0;
}

void cclrtHostDone(void) {
  if (!cclrt::hostInFiber())
    cclrt::tAlone.reset();
}

void cclrtHostRing(void) {
  __atomic_fetch_add(&cclrt::gDoorbell.seq, 1, __ATOMIC_RELEASE);
  syscall(SYS_futex, &cclrt::gDoorbell.seq, FUTEX_WAKE_PRIVATE, INT_MAX,
          nullptr, nullptr, 0);
}

} // extern "C"
