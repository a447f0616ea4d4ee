// driver.cc - one rank of a multi-process job for the fault tests
// (multiproc_faults_test.sh). Built against the installed headers and
// libcclrt, it links a generated host library of allpairs_ll and takes
// its rank from the environment (cclCommInitFromEnv). Modes:
//   run K            K calls back to back, checked; the ranks agree on the
//                    count of wrong values (rank 0 prints it)
//   kill-mid-call V  rank V kills itself (SIGKILL) while every rank is in a
//                    call (rank V's blocks are held in the call by a start
//                    delay); the others must report V and exit cleanly
//   abort-thread     rank 1 never launches, so the others' calls hang;
//                    rank 0 calls cclCommAbort from a second thread, which
//                    ends its hanging cclCommSynchronize; then every rank
//                    makes a new communicator and runs a checked call
//   timeout          rank 1 never launches: the others' kernels time out
//                    (cclTimeout, or cclRemoteError when the other waiting
//                    rank's report came first), rank 1 hears of it
//                    (cclRemoteError)
//   two-hosts        (CCL_HOST_ID differs per rank) the bootstrap works,
//                    launches fail with the missing-transport message
// DRIVER_EXTRA_LIB=LIB makes a rank load another generated library first.
// It prints "rank R: ..." lines the test greps, and exits 0 when the rank
// saw what its mode expects.
#include "liballpairs_ll.h"

#include <chrono>
#include <csignal>
#include <dlfcn.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

int g_rank = -1;

[[noreturn]] void die(const char *what, cclResult_t r) {
  fprintf(stderr, "rank %d: %s failed (%d): %s\n", g_rank, what, (int)r,
          cclGetLastError());
  exit(2);
}

#define OK(call)                                                               \
  do {                                                                         \
    cclResult_t r_ = (call);                                                   \
    if (r_ != cclSuccess)                                                      \
      die(#call, r_);                                                          \
  } while (0)

cclComm_t init() {
  cclConfig_t config = CCL_CONFIG_INITIALIZER;
  config.target = cclTargetHost;
  cclComm_t comm;
  OK(cclCommInitFromEnv(&comm, &config));
  OK(cclCommRank(comm, &g_rank));
  return comm;
}

// K checked calls back to back; returns the wrong values of this rank.
long runChecked(cclComm_t comm, int K, size_t count) {
  int n;
  OK(cclCommCount(comm, &n));
  std::vector<std::vector<float>> in(K, std::vector<float>(count)),
      out(K, std::vector<float>(count, -1.0f));
  for (int k = 0; k < K; k++)
    for (size_t i = 0; i < count; i++)
      in[k][i] = float((g_rank + 1) * ((i + 3 * k) % 5));
  for (int k = 0; k < K; k++)
    OK(ccl_allpairs_ll(comm, in[k].data(), out[k].data(), count, cclFloat32,
                       cclSum, nullptr));
  OK(cclCommSynchronize(comm, nullptr));
  long wrong = 0;
  for (int k = 0; k < K; k++)
    for (size_t i = 0; i < count; i++)
      wrong += out[k][i] != float(n * (n + 1) / 2 * ((i + 3 * k) % 5));
  return wrong;
}

// Polls the communicator's asynchronous error until there is one (20 s at
// most): how a rank that launched nothing learns of the others' failure.
cclResult_t awaitAsyncError(cclComm_t comm) {
  cclResult_t async = cclSuccess;
  auto until = Clock::now() + std::chrono::seconds(20);
  while (async == cclSuccess && Clock::now() < until) {
    OK(cclCommGetAsyncError(comm, &async));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return async;
}

// The rank that never launches (its peers' calls wait for its packets):
// queues a call with its launches turned off, then waits to hear of the
// others' failure. 0 when it arrived as cclRemoteError.
int skipAndHear(cclComm_t comm) {
  std::vector<float> in(64, 1.0f), out(64);
  OK(cclCommDebugSkipLaunches(comm, 1));
  OK(ccl_allpairs_ll(comm, in.data(), out.data(), 64, cclFloat32, cclSum,
                     nullptr));
  cclResult_t async = awaitAsyncError(comm);
  printf("rank %d: asynchronous error %s: %s\n", g_rank,
         cclGetErrorString(async), cclGetLastError());
  return async != cclRemoteError;
}

long gatherSum(cclComm_t comm, long mine) {
  int n;
  OK(cclCommCount(comm, &n));
  std::vector<long> all(n);
  OK(cclBootstrapAllGather(comm, &mine, all.data(), sizeof mine));
  long s = 0;
  for (long v : all)
    s += v;
  return s;
}

int modeRun(int K) {
  cclComm_t comm = init();
  long wrong = gatherSum(comm, runChecked(comm, K, 1001));
  OK(cclCommDestroy(comm));
  if (g_rank == 0)
    printf("rank 0: %d calls back to back: %ld wrong\n", K, wrong);
  return wrong ? 1 : 0;
}

int modeKill(int victim) {
  cclComm_t comm = init();
  runChecked(comm, 2, 64); // everyone is up and has run
  std::vector<float> in(64, 1.0f), out(64);
  if (g_rank == victim) {
    // Hold this rank's blocks in the call, then die inside it.
    OK(cclCommDebugSetDelay(comm, -1, 10000000000ull));
    OK(ccl_allpairs_ll(comm, in.data(), out.data(), 64, cclFloat32, cclSum,
                       nullptr));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    printf("rank %d: killing myself (pid %d) in the middle of a call\n",
           g_rank, (int)getpid());
    fflush(stdout);
    kill(getpid(), SIGKILL);
  }
  OK(ccl_allpairs_ll(comm, in.data(), out.data(), 64, cclFloat32, cclSum,
                     nullptr));
  auto t0 = Clock::now();
  cclResult_t r = cclCommSynchronize(comm, nullptr);
  double s = std::chrono::duration<double>(Clock::now() - t0).count();
  printf("rank %d: cclCommSynchronize returned %s after %.2f s: %s\n", g_rank,
         cclGetErrorString(r), s, cclGetLastError());
  fflush(stdout);
  OK(cclCommDestroy(comm));
  printf("rank %d: destroyed\n", g_rank);
  return r == cclRemoteError ? 0 : 1;
}

int modeAbortThread() {
  cclComm_t comm = init();
  runChecked(comm, 2, 64);
  std::vector<float> in(64, 1.0f), out(64);
  int status = 0;
  if (g_rank == 1) {
    // Never launches; learns of rank 0's abort through the bootstrap.
    status |= skipAndHear(comm);
    OK(cclCommDestroy(comm));
  } else {
    OK(ccl_allpairs_ll(comm, in.data(), out.data(), 64, cclFloat32, cclSum,
                       nullptr));
    std::thread aborter;
    if (g_rank == 0)
      aborter = std::thread([comm] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        cclResult_t r = cclCommAbort(comm);
        printf("rank 0: cclCommAbort returned %s\n", cclGetErrorString(r));
        fflush(stdout);
      });
    auto t0 = Clock::now();
    cclResult_t r = cclCommSynchronize(comm, nullptr);
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    printf("rank %d: hanging cclCommSynchronize returned %s after %.2f s: "
           "%s\n",
           g_rank, cclGetErrorString(r), s, cclGetLastError());
    fflush(stdout);
    status |= r != cclRemoteError;
    if (g_rank == 0)
      aborter.join(); // the handle is gone with the abort
    else
      OK(cclCommDestroy(comm));
  }
  // A new communicator in the same process, and a checked job on it.
  cclComm_t again = init();
  long wrong = gatherSum(again, runChecked(again, 4, 257));
  printf("rank %d: new communicator after the abort: %ld wrong\n", g_rank,
         wrong);
  OK(cclCommDestroy(again));
  return status | (wrong != 0);
}

int modeTimeout() {
  cclComm_t comm = init();
  OK(cclCommSetTimeout(comm, 1000));
  runChecked(comm, 1, 64);
  std::vector<float> in(64, 1.0f), out(64);
  int status = 0;
  if (g_rank == 1) {
    // Never launches; the others time out waiting for it, and tell it.
    status = skipAndHear(comm);
  } else {
    OK(ccl_allpairs_ll(comm, in.data(), out.data(), 64, cclFloat32, cclSum,
                       nullptr));
    cclResult_t r = cclCommSynchronize(comm, nullptr);
    printf("rank %d: cclCommSynchronize returned %s: %s\n", g_rank,
           cclGetErrorString(r), cclGetLastError());
    // Its own kernel's timeout, or the other waiting rank's if that came
    // first.
    status = r != cclTimeout && r != cclRemoteError;
  }
  OK(cclCommDestroy(comm));
  return status;
}

int modeTwoHosts() {
  cclComm_t comm = init();
  int n;
  OK(cclCommCount(comm, &n));
  // The bootstrap alone works between the "hosts".
  std::vector<int> ranks(n);
  OK(cclBootstrapAllGather(comm, &g_rank, ranks.data(), sizeof g_rank));
  bool exchanged = true;
  for (int q = 0; q < n; q++)
    exchanged &= ranks[q] == q;
  printf("rank %d: bootstrap all-gather across hosts: %s\n", g_rank,
         exchanged ? "ok" : "WRONG");
  std::vector<float> in(64, 1.0f), out(64);
  cclResult_t r = ccl_allpairs_ll(comm, in.data(), out.data(), 64, cclFloat32,
                                  cclSum, nullptr);
  printf("rank %d: launch returned %s: %s\n", g_rank, cclGetErrorString(r),
         cclGetLastError());
  OK(cclCommDestroy(comm));
  return exchanged && r == cclUnsupported ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  // DRIVER_EXTRA_LIB: a generated library this rank loads besides
  // allpairs_ll (the ranks then disagree about their plans).
  if (const char *extra = getenv("DRIVER_EXTRA_LIB"))
    if (!dlopen(extra, RTLD_NOW | RTLD_GLOBAL)) {
      fprintf(stderr, "driver: %s\n", dlerror());
      return 2;
    }
  std::string mode = argc > 1 ? argv[1] : "run";
  if (mode == "run")
    return modeRun(argc > 2 ? atoi(argv[2]) : 16);
  if (mode == "kill-mid-call")
    return modeKill(argc > 2 ? atoi(argv[2]) : 1);
  if (mode == "abort-thread")
    return modeAbortThread();
  if (mode == "timeout")
    return modeTimeout();
  if (mode == "two-hosts")
    return modeTwoHosts();
  fprintf(stderr, "driver: unknown mode %s\n", mode.c_str());
  return 2;
}
