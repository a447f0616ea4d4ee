// hip_run: a cclc library compiled for AMD GPUs, run through libcclrt's HIP
// target against the test double of the HIP runtime (CCL_HIP_LIBRARY names
// test/runtime/fake_hip's libamdhip64.so; it checks and logs launches and
// cannot run kernels). Loads LIB (its constructor registers the plans),
// makes an in-process communicator of NRANKS ranks on the HIP target, one
// device per rank, and calls the entry point ccl_ALGO for every rank CALLS
// times back to back (float32 sum, COUNT elements, out of place) on the
// null stream, then synchronises and destroys. Prints one line per rank:
// "rank R: input 0x... output 0x..." so the script can find the pointers
// in the double's launch log.
//
// Usage: hip_run LIB ALGO NRANKS COUNT CALLS
#include "ccl/ccl.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

typedef cclResult_t (*EntryFn)(cclComm_t, const void *, void *, size_t,
                               cclDataType_t, cclRedOp_t, cclStream_t);

int fail(const char *what) {
  const char *e = cclGetLastError();
  std::fprintf(stderr, "hip_run: %s failed: %s\n", what, e ? e : "?");
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: hip_run LIB ALGO NRANKS COUNT CALLS\n");
    return 2;
  }
  const std::string algo = argv[2];
  const int nranks = std::atoi(argv[3]);
  const size_t count = std::strtoull(argv[4], nullptr, 10);
  const int calls = std::atoi(argv[5]);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    std::fprintf(stderr, "hip_run: cannot load %s: %s\n", argv[1], dlerror());
    return 1;
  }
  auto entry = reinterpret_cast<EntryFn>(dlsym(lib, ("ccl_" + algo).c_str()));
  if (!entry) {
    std::fprintf(stderr, "hip_run: %s has no ccl_%s\n", argv[1], algo.c_str());
    return 1;
  }
  std::vector<cclComm_t> comms(nranks);
  if (cclCommInitAllInProcess(comms.data(), nranks, cclTargetHip, nullptr) !=
      cclSuccess)
    return fail("cclCommInitAllInProcess(cclTargetHip)");
  std::vector<void *> in(nranks), out(nranks);
  for (int r = 0; r < nranks; r++) {
    if (cclMemAlloc(comms[r], &in[r], count * sizeof(float)) != cclSuccess ||
        cclMemAlloc(comms[r], &out[r], count * sizeof(float)) != cclSuccess)
      return fail("cclMemAlloc");
    std::printf("rank %d: input %p output %p\n", r, in[r], out[r]);
  }
  for (int c = 0; c < calls; c++)
    for (int r = 0; r < nranks; r++)
      if (entry(comms[r], in[r], out[r], count, cclFloat32, cclSum, nullptr) !=
          cclSuccess)
        return fail(("ccl_" + algo).c_str());
  for (int r = 0; r < nranks; r++)
    if (cclCommSynchronize(comms[r], nullptr) != cclSuccess)
      return fail("cclCommSynchronize");
  for (int r = 0; r < nranks; r++)
    if (cclCommDestroy(comms[r]) != cclSuccess)
      return fail("cclCommDestroy");
  std::printf("hip_run: %d calls of ccl_%s on %d ranks queued\n", calls,
              algo.c_str(), nranks);
  return 0;
}
