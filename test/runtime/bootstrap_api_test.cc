// bootstrap_api_test.cc - the one-process-per-rank API (ccl.h "One process
// per rank"; docs/runtime.md "Bootstrap") without other processes: unique
// ids, argument and config errors, the launcher variables, ranks of a
// multi-process communicator as threads of this process (their links and
// host-side all-gather, their failure reports), the in-process all-gather,
// cclCommAbort, cclGetVersion and cclCommGetAsyncError's out-parameter.
// Jobs of separate processes: test/e2e/multiproc_faults_test.sh.
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>
#include <thread>
#include <vector>

#include "runtime/src/cuda_driver.h"
#include "test_util.h"

namespace {

std::string last() { return cclGetLastError(); }

cclConfig_t hostConfig() {
  cclConfig_t c = CCL_CONFIG_INITIALIZER;
  c.target = cclTargetHost;
  c.bootstrap_timeout_ms = 3000;
  return c;
}

void test_version_and_ids() {
  int v = 0;
  CHECK_OK(cclGetVersion(&v));
  CHECK(v == CCL_VERSION_CODE && v == 1200);
  CHECK_FAILS(cclGetVersion(nullptr), cclInvalidArgument);
  CHECK_FAILS(cclGetUniqueId(nullptr), cclInvalidArgument);
  cclUniqueId a, b;
  CHECK_OK(cclGetUniqueId(&a));
  CHECK_OK(cclGetUniqueId(&b));
  // Fresh listener and secret every time.
  CHECK(memcmp(&a, &b, sizeof a) != 0);
  CHECK(sizeof(cclUniqueId) == 128);
}

void test_init_errors() {
  cclUniqueId id;
  CHECK_OK(cclGetUniqueId(&id));
  cclConfig_t cfg = hostConfig();
  cclComm_t comm = nullptr;
  CHECK_FAILS(cclCommInitRankConfig(nullptr, 2, id, 0, &cfg),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommInitRank: comm is NULL");
  CHECK_FAILS(cclCommInitRankConfig(&comm, 2, id, 2, &cfg),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommInitRank: rank 2 of 2 ranks (need 0 <= rank "
                       "< nranks)");
  cclConfig_t bad = cfg;
  bad.magic = 0;
  CHECK_FAILS(cclCommInitRankConfig(&comm, 2, id, 0, &bad),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "config was not set up with CCL_CONFIG_INITIALIZER");
  bad = cfg;
  bad.target = 9;
  CHECK_FAILS(cclCommInitRankConfig(&comm, 2, id, 0, &bad),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "config target 9 is not cclTargetHost, "
                         "cclTargetCuda or cclTargetHip");
  cclUniqueId junk;
  memset(&junk, 0x5a, sizeof junk);
  CHECK_FAILS(cclCommInitRankConfig(&comm, 2, junk, 0, &cfg),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommInitRank(rank 0): the unique id was not made "
                       "by cclGetUniqueId (wrong magic or version)");
  CHECK(comm == nullptr);
}

// The default target is CUDA: without a driver the rank fails before it
// joins, with the driver's message.
void test_cuda_without_driver() {
  cclrt::CudaLoadError loadError;
  if (cclrt::cudaDriver(&loadError) ||
      loadError.kind != cclrt::CudaLoadError::kNoLibrary) {
    printf("libcuda.so.1 is present: skipping the no-driver test\n");
    return;
  }
  cclUniqueId id;
  CHECK_OK(cclGetUniqueId(&id));
  cclComm_t comm = nullptr;
  CHECK_FAILS(cclCommInitRank(&comm, 1, id, 0), cclNoDevice);
  CHECK_EQ_STR(last(), "cclCommInitRank(rank 0): CUDA target requested but "
                       "the CUDA driver (libcuda.so.1) could not be loaded: " +
                           loadError.detail +
                           "; use the host target (--target host) on "
                           "machines without a GPU");
  CHECK(comm == nullptr);
}

void test_launcher_variables() {
  for (const char *v : {"CCL_RANK", "CCL_NRANKS", "CCL_UNIQUE_ID", "RANK",
                        "WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                        "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE",
                        "SLURM_PROCID", "SLURM_NTASKS", "CCL_COMM_ID",
                        "MASTER_ADDR", "MASTER_PORT", "CCL_COMM_PORT"})
    unsetenv(v);
  int rank = 5, n = 5;
  CHECK_OK(cclGetEnvRank(&rank, &n));
  CHECK(rank == -1 && n == -1);
  cclComm_t comm;
  CHECK_FAILS(cclCommInitFromEnv(&comm, nullptr), cclInvalidUsage);
  CHECK_CONTAINS(last(), "no launcher set this process's rank");
  setenv("SLURM_PROCID", "3", 1);
  setenv("SLURM_NTASKS", "8", 1);
  CHECK_OK(cclGetEnvRank(&rank, &n));
  CHECK(rank == 3 && n == 8);
  // Slurm gives no root address.
  CHECK_FAILS(cclCommInitFromEnv(&comm, nullptr), cclInvalidUsage);
  CHECK_CONTAINS(last(), "Slurm gave the rank (3 of 8) but nothing says where "
                         "the bootstrap root is: set CCL_COMM_ID=host:port");
  // torchrun's variables win over Slurm's.
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "2", 1);
  CHECK_OK(cclGetEnvRank(&rank, &n));
  CHECK(rank == 1 && n == 2);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  CHECK_FAILS(cclCommInitFromEnv(&comm, nullptr), cclInvalidUsage);
  CHECK_CONTAINS(last(), "MASTER_ADDR is set but neither CCL_COMM_PORT nor "
                         "MASTER_PORT");
  setenv("RANK", "two", 1);
  CHECK_FAILS(cclGetEnvRank(&rank, &n), cclInvalidArgument);
  CHECK_CONTAINS(last(), "RANK=two and WORLD_SIZE=2 (torchrun) are not a rank "
                         "and a rank count");
  setenv("RANK", "1", 1);
  setenv("CCL_COMM_ID", "127.0.0.1:0", 1);
  CHECK_FAILS(cclCommInitFromEnv(&comm, nullptr), cclInvalidArgument);
  CHECK_CONTAINS(last(), "is not a port (1-65535)");
  setenv("CCL_COMM_ID", "127.0.0.1:4000", 1);
  setenv("CCL_COMM_SECRET", "xyz", 1);
  CHECK_FAILS(cclCommInitFromEnv(&comm, nullptr), cclInvalidArgument);
  CHECK_CONTAINS(last(), "CCL_COMM_SECRET is not 64 hex digits");
  unsetenv("CCL_COMM_SECRET");
  setenv("CCL_UNIQUE_ID", "abc", 1);
  CHECK_FAILS(cclCommInitFromEnv(&comm, nullptr), cclInvalidArgument);
  CHECK_CONTAINS(last(), "CCL_UNIQUE_ID is not 256 hex digits");
  for (const char *v : {"SLURM_PROCID", "SLURM_NTASKS", "RANK", "WORLD_SIZE",
                        "MASTER_ADDR", "CCL_COMM_ID", "CCL_UNIQUE_ID"})
    unsetenv(v);
}

// Runs fn(r) for ranks 0..n-1, each on its own thread, and waits for all:
// collective calls of several ranks of one process must run concurrently.
template <typename Fn> void onEveryRank(int n, Fn fn) {
  std::vector<std::thread> th;
  for (int r = 0; r < n; r++)
    th.emplace_back(fn, r);
  for (auto &t : th)
    t.join();
}

// What each thread's cclCommInitRankConfig returned, and its message.
struct Joins {
  std::vector<cclComm_t> comms;
  std::vector<cclResult_t> res;
  std::vector<std::string> why;
};

// `threads` threads join the job of `id` at once, each with a host config
// and a 20 s bootstrap timeout that `call(t, cfg, nranks, rank)` adjusts.
template <typename Fn>
Joins joinAtOnce(int threads, const cclUniqueId &id, Fn call) {
  Joins j{std::vector<cclComm_t>(threads, nullptr),
          std::vector<cclResult_t>(threads, cclSuccess),
          std::vector<std::string>(threads)};
  onEveryRank(threads, [&](int t) {
    cclConfig_t cfg = hostConfig();
    cfg.bootstrap_timeout_ms = 20000;
    int nranks = threads, rank = t;
    call(t, cfg, nranks, rank);
    j.res[t] = cclCommInitRankConfig(&j.comms[t], nranks, id, rank, &cfg);
    j.why[t] = last();
  });
  return j;
}

// Ranks of one job as threads of this process (each its own communicator,
// linked over the bootstrap as separate processes would be).
void test_ranks_as_threads() {
  const int n = 3;
  cclUniqueId id;
  CHECK_OK(cclGetUniqueId(&id));
  std::vector<cclComm_t> comms(n, nullptr);
  std::vector<cclResult_t> res(n, cclInternalError);
  onEveryRank(n, [&](int r) {
    cclConfig_t cfg = hostConfig();
    res[r] = cclCommInitRankConfig(&comms[r], n, id, r, &cfg);
  });
  for (int r = 0; r < n; r++)
    CHECK_OK(res[r]);
  if (g_failures)
    return;
  int rank = -1, count = -1;
  CHECK_OK(cclCommRank(comms[2], &rank));
  CHECK_OK(cclCommCount(comms[2], &count));
  CHECK(rank == 2 && count == 3);
  // Two all-gathers back to back, of different sizes.
  std::vector<std::vector<int>> got(n, std::vector<int>(n));
  std::vector<std::vector<char>> big(n, std::vector<char>(n * 100000));
  onEveryRank(n, [&](int r) {
    int mine = 10 * r + 1;
    res[r] = cclBootstrapAllGather(comms[r], &mine, got[r].data(),
                                   sizeof mine);
    std::vector<char> b(100000, (char)('a' + r));
    if (res[r] == cclSuccess)
      res[r] = cclBootstrapAllGather(comms[r], b.data(), big[r].data(),
                                     b.size());
  });
  for (int r = 0; r < n; r++) {
    CHECK_OK(res[r]);
    for (int q = 0; q < n; q++) {
      CHECK(got[r][q] == 10 * q + 1);
      CHECK(big[r][q * 100000] == 'a' + q && big[r][q * 100000 + 99999] == 'a' + q);
    }
  }
  CHECK_FAILS(cclBootstrapAllGather(comms[0], nullptr, nullptr, 4),
              cclInvalidArgument);
  CHECK_FAILS(cclBootstrapAllGather(comms[0], &rank, &count,
                                    (64u << 20) + 1),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "at most 64 MiB");
  // Registration on the host target across processes: nothing is shared
  // (the peers' buffers are staged); the rank's own buffer is itself.
  std::vector<std::vector<char>> ubuf(n, std::vector<char>(256));
  std::vector<cclRegHandle_t> regs(n, nullptr);
  onEveryRank(n, [&](int r) {
    res[r] = cclCommRegister(comms[r], ubuf[r].data() + 8, 100, &regs[r]);
  });
  for (int r = 0; r < n; r++) {
    CHECK_OK(res[r]);
    for (int q = 0; q < n; q++) {
      void *p = (void *)1;
      int kind = -1;
      CHECK_OK(cclCommRegisteredPeer(comms[r], regs[r], q, &p, &kind));
      if (q == r)
        CHECK(p == ubuf[r].data() + 8 && kind == cclRegLocal);
      else
        CHECK(p == nullptr && kind == cclRegStaged);
    }
  }
  void *pp;
  int kk;
  CHECK_FAILS(cclCommRegisteredPeer(comms[0], regs[0], 3, &pp, &kk),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommRegisteredPeer(rank 0): peer is not a rank");
  CHECK_FAILS(cclCommRegisteredPeer(comms[0], regs[1], 0, &pp, &kk),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "not a registration of this rank's communicator");
  CHECK_FAILS(cclCommRegister(comms[0], nullptr, 4, &regs[0]),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommRegister(rank 0): buf is NULL");
  for (int r = 0; r < n; r++)
    CHECK_OK(cclCommDeregister(comms[r], regs[r]));
  CHECK_FAILS(cclCommDeregister(comms[0], regs[0]), cclInvalidArgument);
  // Rank 1 aborts: the others learn it, naming rank 1.
  CHECK_OK(cclCommAbort(comms[1]));
  for (int r : {0, 2}) {
    cclResult_t async = cclSuccess;
    for (int i = 0; i < 200 && async == cclSuccess; i++) {
      CHECK_OK(cclCommGetAsyncError(comms[r], &async));
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(async == cclRemoteError);
    CHECK_CONTAINS(last(), "rank 1 (pid ");
    CHECK_CONTAINS(last(), "aborted the communicator (cclCommAbort); the "
                           "communicator is aborted");
    // A host-side collective fails fast too.
    int x = 0, y[3];
    CHECK_FAILS(cclBootstrapAllGather(comms[r], &x, y, sizeof x),
                cclRemoteError);
  }
  CHECK_FAILS(cclCommGetAsyncError(comms[0], nullptr), cclInvalidArgument);
  CHECK_OK(cclCommDestroy(comms[0]));
  CHECK_OK(cclCommDestroy(comms[2]));
}

// A unique id whose maker has exited (an earlier job's, passed on by
// mistake): a rank on the same host is told at once that it is stale,
// rather than retrying the refused connection for the bootstrap timeout.
// The id's maker is a forked child, before this process starts threads.
void test_stale_unique_id() {
  int fds[2];
  CHECK(pipe(fds) == 0);
  pid_t child = fork();
  if (child == 0) {
    cclUniqueId id;
    int ok = cclGetUniqueId(&id) == cclSuccess &&
             write(fds[1], &id, sizeof id) == (ssize_t)sizeof id;
    _exit(ok ? 0 : 1);
  }
  cclUniqueId id;
  CHECK(read(fds[0], &id, sizeof id) == (ssize_t)sizeof id);
  int status = -1;
  CHECK(waitpid(child, &status, 0) == child && status == 0);
  close(fds[0]);
  close(fds[1]);
  cclConfig_t cfg = hostConfig();
  cfg.bootstrap_timeout_ms = 20000;
  cclComm_t comm = nullptr;
  auto t0 = std::chrono::steady_clock::now();
  CHECK_FAILS(cclCommInitRankConfig(&comm, 2, id, 1, &cfg),
              cclBootstrapError);
  double secs = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
  CHECK_CONTAINS(last(), "the process that made this unique id (pid " +
                             std::to_string(child) +
                             " on this host) has exited, so its root will "
                             "never answer: the id is stale");
  CHECK(secs < 5.0);
  // Three ranks given the stale id at once: each is told.
  std::vector<cclResult_t> res(3, cclSuccess);
  std::vector<cclComm_t> comms(3, nullptr);
  std::vector<std::string> why(3);
  std::vector<std::thread> th;
  for (int r = 0; r < 3; r++)
    th.emplace_back([&, r] {
      res[r] = cclCommInitRankConfig(&comms[r], 3, id, r, &cfg);
      why[r] = last();
    });
  for (auto &t : th)
    t.join();
  for (int r = 0; r < 3; r++) {
    CHECK(res[r] == cclBootstrapError);
    CHECK_CONTAINS(why[r], "the id is stale");
  }
  // A live maker (this process) whose rank 0 never comes: not stale, the
  // bootstrap times out as before.
  cclUniqueId live;
  CHECK_OK(cclGetUniqueId(&live));
  cfg.bootstrap_timeout_ms = 1000;
  CHECK_FAILS(cclCommInitRankConfig(&comm, 2, live, 1, &cfg), cclTimeout);
  CHECK_CONTAINS(last(), "rank 0 never joined");
}

// Refused jobs, as threads of the process whose cclGetUniqueId hosts the
// root (ranks that disagree on the rank count; a rank claimed twice): each
// rank is told why at once, and none waits the bootstrap timeout (20 s
// here) for the root to end.
void test_rank_count_disagreement() {
  cclUniqueId id;
  CHECK_OK(cclGetUniqueId(&id));
  auto t0 = std::chrono::steady_clock::now();
  Joins j = joinAtOnce(2, id, [](int r, cclConfig_t &, int &nranks, int &) {
    nranks = 2 + r;
  });
  double secs = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0)
                    .count();
  for (int r = 0; r < 2; r++) {
    CHECK(j.res[r] == cclBootstrapError);
    CHECK_CONTAINS(j.why[r], "every rank must pass the same nranks");
  }
  CHECK(secs < 5.0);

  // Two threads claiming rank 0 of 3, and one rank 1: all three are told,
  // none waits the timeout.
  CHECK_OK(cclGetUniqueId(&id));
  t0 = std::chrono::steady_clock::now();
  j = joinAtOnce(3, id, [](int t, cclConfig_t &, int &, int &rank) {
    rank = t == 2 ? 1 : 0;
  });
  secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
             .count();
  for (int t = 0; t < 3; t++) {
    CHECK(j.res[t] == cclBootstrapError);
    CHECK_CONTAINS(j.why[t], "rank 0 joined twice");
  }
  CHECK(secs < 5.0);
}

// Ranks that ask for different selection tables (cclConfig_t::
// deterministic) would run different algorithms: both fail at creation,
// naming the choice. A value other than -1, 0 or 1 is refused, and a
// config of the header before the field (its size ends there) is taken.
void test_deterministic_disagreement() {
  cclUniqueId id;
  CHECK_OK(cclGetUniqueId(&id));
  Joins j = joinAtOnce(2, id, [](int r, cclConfig_t &cfg, int &, int &) {
    cfg.deterministic = r == 0 ? 1 : 0;
  });
  for (int r = 0; r < 2; r++) {
    CHECK(j.res[r] == cclBootstrapError);
    CHECK_CONTAINS(j.why[r], "the ranks chose different selection tables: "
                             "rank 0 asked for the deterministic one");
    CHECK_CONTAINS(j.why[r], "every rank must choose alike");
  }

  cclConfig_t bad = hostConfig();
  bad.deterministic = 2;
  cclComm_t c = nullptr;
  CHECK(cclCommInitRankConfig(&c, 1, id, 0, &bad) == cclInvalidArgument);
  CHECK_CONTAINS(last(), "config deterministic is 2; it must be 1, 0 or -1");

  // The same choice on both ranks, one of them through an old-size config
  // (which reads CCL_DETERMINISTIC, unset here: off).
  CHECK_OK(cclGetUniqueId(&id));
  j = joinAtOnce(2, id, [](int r, cclConfig_t &cfg, int &, int &) {
    cfg.deterministic = 0;
    if (r == 1)
      cfg.size = offsetof(cclConfig_t, deterministic);
  });
  for (int r = 0; r < 2; r++) {
    if (j.res[r] != cclSuccess)
      fprintf(stderr, "rank %d: %s\n", r, j.why[r].c_str());
    CHECK(j.res[r] == cclSuccess);
  }
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommDestroy(j.comms[r]));
}

void test_in_process() {
  const int n = 4;
  cclComm_t comms[n];
  CHECK_OK(cclCommInitAllInProcess(comms, n, cclTargetHost, nullptr));
  cclResult_t async = cclInternalError;
  CHECK_OK(cclCommGetAsyncError(comms[0], &async));
  CHECK(async == cclSuccess);
  // The in-process all-gather: the ranks' calls meet, three rounds.
  std::vector<cclResult_t> res(n, cclInternalError);
  std::vector<std::vector<long>> got(n, std::vector<long>(3 * n));
  onEveryRank(n, [&](int r) {
    for (int k = 0; k < 3; k++) {
      long mine = 100 * k + r;
      res[r] = cclBootstrapAllGather(comms[r], &mine, &got[r][k * n],
                                     sizeof mine);
      if (res[r] != cclSuccess)
        return;
    }
  });
  for (int r = 0; r < n; r++) {
    CHECK_OK(res[r]);
    for (int k = 0; k < 3; k++)
      for (int q = 0; q < n; q++)
        CHECK(got[r][k * n + q] == 100 * k + q);
  }
  // Registration in-process: every rank's buffer is reachable as it is.
  std::vector<std::vector<float>> ubuf(n, std::vector<float>(64));
  std::vector<cclRegHandle_t> regs(n, nullptr);
  onEveryRank(n, [&](int r) {
    res[r] = cclCommRegister(comms[r], ubuf[r].data() + r, 32, &regs[r]);
  });
  for (int r = 0; r < n; r++) {
    CHECK_OK(res[r]);
    for (int q = 0; q < n; q++) {
      void *p = nullptr;
      int kind = -1;
      CHECK_OK(cclCommRegisteredPeer(comms[r], regs[r], q, &p, &kind));
      CHECK(p == ubuf[q].data() + q && kind == cclRegLocal);
    }
  }
  // Registrations left at destroy are released with the communicator.
  CHECK_OK(cclCommDeregister(comms[0], regs[0]));
  // Abort one handle: the communicator is aborted for every rank.
  CHECK_OK(cclCommAbort(comms[3]));
  CHECK_OK(cclCommGetAsyncError(comms[0], &async));
  CHECK(async == cclRemoteError);
  CHECK_EQ_STR(last(), "cclCommGetAsyncError(rank 0): rank 3 aborted the "
                       "communicator (cclCommAbort); the communicator is "
                       "aborted");
  CHECK_FAILS(cclCommSynchronize(comms[1], nullptr), cclRemoteError);
  // An aborted communicator exchanges nothing (the other ranks may be gone).
  long x = 0, y[4];
  CHECK_FAILS(cclBootstrapAllGather(comms[2], &x, y, sizeof x),
              cclRemoteError);
  CHECK_CONTAINS(last(), "cclBootstrapAllGather(rank 2): rank 3 aborted the "
                         "communicator");
  for (int r = 0; r < 3; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
  // A new one works.
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  CHECK_OK(cclCommGetAsyncError(comms[1], &async));
  CHECK(async == cclSuccess);
  CHECK_OK(cclCommDestroy(comms[0]));
  CHECK_OK(cclCommDestroy(comms[1]));
}

} // namespace

int main() {
  test_stale_unique_id(); // first: it forks
  test_version_and_ids();
  test_init_errors();
  test_cuda_without_driver();
  test_launcher_variables();
  test_ranks_as_threads();
  test_rank_count_disagreement();
  test_deterministic_disagreement();
  test_in_process();
  return test_result("bootstrap_api_test");
}
