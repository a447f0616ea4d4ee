// A program that links a cclc-generated library and libcclrt: an in-process
// communicator of N host ranks runs allpairs_ll AllReduce and checks it.
//
//   bazel run //examples:allreduce_host -- 4
//
// or, outside Bazel, as README.md shows (the header is the one cclc writes
// next to the library; a block comment, so that the shell's line
// continuations do not continue a // comment):
/*
     out/bin/cclc stdlib/allreduce/allpairs_ll.ccl --target=host \
         --nranks=2..4 --dtype=float32 -o liballpairs_ll.so
     c++ -std=c++17 -I. -Iout/include examples/allreduce_host.cc \
         -o allreduce_host -L. -lallpairs_ll -Lout/lib -lcclrt \
         -Wl,-rpath,'$ORIGIN' -Wl,-rpath,'$ORIGIN/out/lib'
*/
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

int main(int argc, char **argv) {
  int nranks = argc > 1 ? std::atoi(argv[1]) : 4;
  const size_t count = 1000; // not a multiple of the LL packet payload
  std::vector<cclComm_t> comms(nranks);
  CHECK_CCL(cclCommInitAllInProcess(comms.data(), nranks, cclTargetHost, nullptr));

  std::vector<std::vector<float>> in(nranks, std::vector<float>(count)),
      out(nranks, std::vector<float>(count, -1.0f));
  for (int r = 0; r < nranks; ++r)
    for (size_t i = 0; i < count; ++i)
      in[r][i] = float((r + 1) * (i % 7));

  // Each rank calls the entry point for its own buffers; launches are
  // asynchronous, so one thread can issue all of them.
  for (int r = 0; r < nranks; ++r)
    CHECK_CCL(ccl_allpairs_ll(comms[r], in[r].data(), out[r].data(), count,
                              cclFloat32, cclSum, nullptr));
  for (int r = 0; r < nranks; ++r)
    CHECK_CCL(cclCommSynchronize(comms[r], nullptr));

  int wrong = 0;
  for (int r = 0; r < nranks; ++r)
    for (size_t i = 0; i < count; ++i) {
      float want = float(nranks * (nranks + 1) / 2 * (i % 7));
      wrong += out[r][i] != want;
    }
  for (int r = 0; r < nranks; ++r)
    CHECK_CCL(cclCommDestroy(comms[r]));
  std::printf("allpairs_ll AllReduce on %d host ranks, %zu floats: %d wrong\n",
              nranks, count, wrong);
  return wrong ? 1 : 0;
}
