// init_from_env.cc - a rank of a ccl-run job: creates its communicator
// with cclCommInitFromEnv (host target) and checks, with every other rank
// over the bootstrap, that the communicator's rank and size are the ones
// ccl-run put in the environment and that no two ranks are the same
// process. Rank 0 prints "joined: N ranks, rank R is pid P, ...".
//
// `init_from_env exit R S`: rank R exits with status S before joining
// (the others wait in cclCommInitFromEnv until ccl-run ends them).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ccl/ccl.h"

namespace {

struct Record {
  int commRank, commSize, envRank, envSize, localRank, localSize;
  long pid;
};

int envInt(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::atoi(v) : -1;
}

int fail(const char *what) {
  std::fprintf(stderr, "rank %s: %s failed: %s\n", std::getenv("CCL_RANK"),
               what, cclGetLastError());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 4 && std::strcmp(argv[1], "exit") == 0 &&
      envInt("CCL_RANK") == std::atoi(argv[2]))
    return std::atoi(argv[3]);

  cclConfig_t config = CCL_CONFIG_INITIALIZER;
  config.target = cclTargetHost;
  cclComm_t comm;
  if (cclCommInitFromEnv(&comm, &config) != cclSuccess)
    return fail("cclCommInitFromEnv");
  Record me{};
  if (cclCommRank(comm, &me.commRank) != cclSuccess ||
      cclCommCount(comm, &me.commSize) != cclSuccess)
    return fail("cclCommRank/Count");
  me.envRank = envInt("CCL_RANK");
  me.envSize = envInt("CCL_NRANKS");
  me.localRank = envInt("CCL_LOCAL_RANK");
  me.localSize = envInt("CCL_LOCAL_NRANKS");
  me.pid = (long)getpid();
  std::vector<Record> all(me.commSize);
  if (cclBootstrapAllGather(comm, &me, all.data(), sizeof me) != cclSuccess)
    return fail("cclBootstrapAllGather");
  cclCommDestroy(comm);

  int bad = 0;
  for (int r = 0; r < me.commSize; ++r) {
    const Record &x = all[r];
    if (x.commRank != r || x.envRank != r || x.localRank != r ||
        x.commSize != me.commSize || x.envSize != me.commSize ||
        x.localSize != me.commSize) {
      std::fprintf(stderr, "rank %d: wrong record of rank %d\n", me.commRank,
                   r);
      bad = 1;
    }
    for (int q = 0; q < r; ++q)
      if (all[q].pid == x.pid)
        bad = 1;
  }
  if (me.commRank == 0 && !bad) {
    std::string line = "joined: " + std::to_string(me.commSize) + " ranks";
    for (int r = 0; r < me.commSize; ++r)
      line += ", rank " + std::to_string(r) + " is pid " +
              std::to_string(all[r].pid);
    std::puts(line.c_str());
  }
  return bad;
}
