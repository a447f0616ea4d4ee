// mp_cuda.cc - one process per rank on the CUDA target (docs/runtime.md,
// "CUDA target"; test/hw/multiproc.sh runs it under ccl-run). Each process
// creates its rank with cclCommInitFromEnv (device: CCL_LOCAL_RANK modulo
// the visible GPUs, so with one GPU every rank shares it), runs K calls of
// a generated AllReduce back to back on its own stream with a separate
// input and output per call, checks every result, and the ranks agree on
// the count of wrong values over the bootstrap; rank 0 prints one line.
//
//   mp_cuda LIB ALGO K COUNT
//
// Built against the CUDA driver API (cuda.h, -lcuda) and libcclrt.
#include <cuda.h>
#include <dlfcn.h>
#include <unistd.h>

#include <execinfo.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "hw_util.h"

namespace {


typedef cclResult_t (*EntryFn)(cclComm_t, const void *, void *, size_t,
                               cclDataType_t, cclRedOp_t, cclStream_t);

// A crash prints its stack (the GPU machine has no debugger).
void onCrash(int sig) {
  void *frames[64];
  int n = backtrace(frames, 64);
  fprintf(stderr, "rank %d: signal %d; stack:\n", g_rank, sig);
  backtrace_symbols_fd(frames, n, 2);
  _exit(128 + sig);
}

} // namespace

int main(int argc, char **argv) {
  signal(SIGSEGV, onCrash);
  signal(SIGBUS, onCrash);
  if (argc != 5) {
    fprintf(stderr, "usage: mp_cuda LIB ALGO K COUNT\n");
    return 2;
  }
  const std::string algo = argv[2];
  const int K = atoi(argv[3]);
  const size_t count = strtoull(argv[4], nullptr, 10);
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "mp_cuda: %s\n", dlerror());
    return 2;
  }
  EntryFn entry = (EntryFn)dlsym(lib, ("ccl_" + algo).c_str());
  if (!entry) {
    fprintf(stderr, "mp_cuda: no ccl_%s in %s\n", algo.c_str(), argv[1]);
    return 2;
  }
  CU(cuInit(0));
  int ngpus = 0;
  CU(cuDeviceGetCount(&ngpus));
  const char *lr = getenv("CCL_LOCAL_RANK");
  const int dev = (lr ? atoi(lr) : 0) % ngpus;
  CUdevice cuDev;
  CUcontext ctx;
  CU(cuDeviceGet(&cuDev, dev));
  CU(cuDevicePrimaryCtxRetain(&ctx, cuDev));
  CU(cuCtxSetCurrent(ctx));

  cclConfig_t cfg = CCL_CONFIG_INITIALIZER;
  cfg.target = cclTargetCuda; // the device: this thread's current one
  cclComm_t comm;
  auto t0 = std::chrono::steady_clock::now();
  CCL(cclCommInitFromEnv(&comm, &cfg));
  double initS = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - t0).count();
  int n, cdev;
  CCL(cclCommRank(comm, &g_rank));
  CCL(cclCommCount(comm, &n));
  CCL(cclCommDevice(comm, &cdev));

  CUstream stream;
  CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  std::vector<void *> in(K), out(K);
  std::vector<float> host(count);
  for (int k = 0; k < K; k++) {
    CCL(cclMemAlloc(comm, &in[k], count * 4));
    CCL(cclMemAlloc(comm, &out[k], count * 4));
    for (size_t i = 0; i < count; i++)
      host[i] = float((g_rank + 1) * ((i + 7 * k) % 9));
    CCL(cclMemcpyToDevice(comm, in[k], host.data(), count * 4));
  }
  t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < K; k++)
    CCL(entry(comm, in[k], out[k], count, cclFloat32, cclSum, stream));
  CCL(cclCommSynchronize(comm, stream));
  double runS = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - t0).count();
  long wrong = 0;
  for (int k = 0; k < K; k++) {
    CCL(cclMemcpyFromDevice(comm, host.data(), out[k], count * 4));
    for (size_t i = 0; i < count; i++)
      wrong += host[i] != float(n * (n + 1) / 2 * ((i + 7 * k) % 9));
  }
  std::vector<long> all(n);
  CCL(cclBootstrapAllGather(comm, &wrong, all.data(), sizeof wrong));
  long total = 0;
  for (long w : all)
    total += w;
  for (int k = 0; k < K; k++) {
    CCL(cclMemFree(comm, in[k]));
    CCL(cclMemFree(comm, out[k]));
  }
  CCL(cclCommDestroy(comm));
  printf("rank %d (pid %d, device %d of %d): init %.2f s, %d calls of %zu "
         "floats in %.3f s (%.1f us per call)\n",
         g_rank, (int)getpid(), cdev, ngpus, initS, K, count, runS,
         runS * 1e6 / K);
  if (g_rank == 0)
    printf("%s, %d processes on %d GPU(s), %d calls back to back of %zu "
           "floats: %ld wrong\n",
           algo.c_str(), n, ngpus < n ? ngpus : n, K, count, total);
  return total ? 1 : 0;
}
