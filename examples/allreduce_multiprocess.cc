// One process per rank: each process of a job creates its rank of the
// communicator from what its launcher put in the environment, runs
// allpairs_ll AllReduce K times back to back (no synchronisation between
// the calls), checks its own results, and the ranks gather their counts of
// wrong values over the bootstrap so that rank 0 prints one line.
//
//   out/bin/ccl-run -n 4 examples/allreduce_multiprocess        (bazel-bin/...)
//
// It works under any launcher libcclrt knows (docs/runtime.md,
// "Launchers"): ccl-run, torchrun (with MASTER_ADDR), mpirun or srun (with
// CCL_COMM_ID=host:port of rank 0's host).
#include "liballpairs_ll.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CCL(call)                                                        \
  do {                                                                         \
    cclResult_t r_ = (call);                                                   \
    if (r_ != cclSuccess) {                                                    \
      std::fprintf(stderr, "%s failed: %s\n", #call, cclGetLastError());       \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main() {
  cclConfig_t config = CCL_CONFIG_INITIALIZER;
  config.target = cclTargetHost;
  cclComm_t comm;
  CHECK_CCL(cclCommInitFromEnv(&comm, &config));
  int rank, nranks;
  CHECK_CCL(cclCommRank(comm, &rank));
  CHECK_CCL(cclCommCount(comm, &nranks));

  const size_t count = 1001; // odd: not a multiple of the LL payload
  const int calls = 16;
  // Separate buffers for every call: all calls are queued before the
  // first one is waited for.
  std::vector<std::vector<float>> in(calls, std::vector<float>(count)),
      out(calls, std::vector<float>(count, -1.0f));
  for (int k = 0; k < calls; ++k)
    for (size_t i = 0; i < count; ++i)
      in[k][i] = float((rank + 1) * ((i + k) % 7));
  for (int k = 0; k < calls; ++k)
    CHECK_CCL(ccl_allpairs_ll(comm, in[k].data(), out[k].data(), count,
                              cclFloat32, cclSum, nullptr));
  CHECK_CCL(cclCommSynchronize(comm, nullptr));

  long wrong = 0;
  for (int k = 0; k < calls; ++k)
    for (size_t i = 0; i < count; ++i)
      wrong += out[k][i] != float(nranks * (nranks + 1) / 2 * ((i + k) % 7));
  std::vector<long> all(nranks);
  CHECK_CCL(cclBootstrapAllGather(comm, &wrong, all.data(), sizeof wrong));
  long total = 0;
  for (long w : all)
    total += w;
  CHECK_CCL(cclCommDestroy(comm));
  if (rank == 0)
    std::printf("allpairs_ll AllReduce, %d processes, %d calls of %zu floats "
                "back to back: %ld wrong\n",
                nranks, calls, count, total);
  return total ? 1 : 0;
}
