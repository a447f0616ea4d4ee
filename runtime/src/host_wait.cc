// host_wait.cc - where the host target's waits sleep (ccl/plan.h, "Host
// target: sleeping waits"; docs/runtime.md, "Host target"). One ring per
// process: a 32-bit sequence number that writers advance, and a futex on it
// that sleeping waiters block on. A ring wakes every sleeper of the process
// (each polls its own data again and sleeps on if it is not there yet): the
// writers do not know who waits for what, and a waiter that sleeps only
// when the threads outnumber the cores has little to lose to a spurious
// wake.
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

// The ring's sequence number (the futex word).
uint32_t gSeq = 0;
// Host-kernel threads (workers and block threads) alive in the process.
std::atomic<int> gThreads{0};

long futex(uint32_t *word, int op, uint32_t val, const timespec *timeout) {
  return syscall(SYS_futex, word, op, val, timeout, nullptr, 0);
}

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

uint32_t cclrtHostArm(void) {
  __atomic_fetch_add(&cclrtHostWaiters, 1, __ATOMIC_SEQ_CST);
  // The arm before the poll that follows it (a writer that stored before
  // this fence and then read no waiter is seen by that poll).
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return __atomic_load_n(&cclrt::gSeq, __ATOMIC_ACQUIRE);
}

void cclrtHostDisarm(void) {
  __atomic_fetch_sub(&cclrtHostWaiters, 1, __ATOMIC_RELAXED);
}

void cclrtHostSleep(uint32_t seq, uint64_t timeout_ns) {
  timespec ts;
  ts.tv_sec = (time_t)(timeout_ns / 1000000000u);
  ts.tv_nsec = (long)(timeout_ns % 1000000000u);
  // Returns at once when a ring came after the arm (the word moved on),
  // on a ring, a signal or the timeout: the caller polls again either way.
  cclrt::futex(&cclrt::gSeq, FUTEX_WAIT_PRIVATE, seq, &ts);
  cclrtHostDisarm();
}

void cclrtHostRing(void) {
  __atomic_fetch_add(&cclrt::gSeq, 1, __ATOMIC_RELEASE);
  cclrt::futex(&cclrt::gSeq, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
}

} // extern "C"
