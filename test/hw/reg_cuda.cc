// reg_cuda.cc - user-buffer registration between processes on the CUDA
// target (cclCommRegister; docs/runtime.md, "Registering user buffers"),
// run by test/hw/multiproc.sh under ccl-run. Every rank makes three
// allocations on its GPU (CCL_LOCAL_RANK modulo the visible GPUs) and
// fills each with a pattern of its own:
//   A  cuMemAlloc (what cudaMalloc gives): shared by an IPC handle
//   B  cuMemCreate with a POSIX file-descriptor handle type (an
//      ncclMemAlloc-style allocator): exported, imported, mapped
//   C  cuMemCreate without a shareable handle type (PyTorch's expandable
//      segments): staged
//   D  cclMemAlloc: the runtime's own shareable memory, mapped
// then registers two buffers at different offsets inside each, and checks
// for every peer that the kind is the expected one and that the bytes read
// through the peer pointer (cuMemcpyDtoH from the mapped address) are the
// peer's pattern at that offset. Registrations inside one allocation share
// one mapping. Rank 0 prints one line; exit 0 when every check passed.
#include <cuda.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hw_util.h"

namespace {

int g_fail = 0;

// A virtual-memory allocation of `size` bytes (a multiple of the
// granularity) on `dev`, mapped read-write; `fd` selects the handle type.
CUdeviceptr vmmAlloc(CUdevice dev, size_t size, bool fd) {
  CUmemAllocationProp prop;
  memset(&prop, 0, sizeof prop);
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.requestedHandleTypes =
      fd ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  CUmemGenericAllocationHandle h;
  CU(cuMemCreate(&h, size, &prop, 0));
  CUdeviceptr va;
  CU(cuMemAddressReserve(&va, size, 0, 0, 0));
  CU(cuMemMap(va, size, 0, h, 0));
  CUmemAccessDesc a;
  a.location = prop.location;
  a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU(cuMemSetAccess(va, size, &a, 1));
  CU(cuMemRelease(h)); // the mapping keeps it
  return va;
}

uint32_t pattern(int rank, int alloc, size_t word) {
  return 0x10000000u * (uint32_t)(alloc + 1) + 0x100000u * (uint32_t)rank +
         (uint32_t)word;
}

void check(bool ok, const char *what, int peer) {
  if (!ok) {
    fprintf(stderr, "rank %d: peer %d: %s\n", g_rank, peer, what);
    g_fail++;
  }
}

} // namespace

int main() {
  CU(cuInit(0));
  int ngpus = 0;
  CU(cuDeviceGetCount(&ngpus));
  const char *lr = getenv("CCL_LOCAL_RANK");
  CUdevice dev;
  CUcontext ctx;
  CU(cuDeviceGet(&dev, (lr ? atoi(lr) : 0) % ngpus));
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));
  cclConfig_t cfg = CCL_CONFIG_INITIALIZER;
  cfg.target = cclTargetCuda;
  cclComm_t comm;
  CCL(cclCommInitFromEnv(&comm, &cfg));
  int n;
  CCL(cclCommRank(comm, &g_rank));
  CCL(cclCommCount(comm, &n));

  CUmemAllocationProp gp;
  memset(&gp, 0, sizeof gp);
  gp.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  gp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  gp.location.id = dev;
  size_t gran = 0;
  CU(cuMemGetAllocationGranularity(&gran, &gp,
                                   CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  const size_t size = 2 * gran;
  CUdeviceptr alloc[4];
  CU(cuMemAlloc(&alloc[0], size));
  alloc[1] = vmmAlloc(dev, size, true);
  alloc[2] = vmmAlloc(dev, size, false);
  void *mine = nullptr;
  CCL(cclMemAlloc(comm, &mine, size));
  alloc[3] = (CUdeviceptr)mine;
  const size_t words = size / 4;
  std::vector<uint32_t> host(words);
  for (int a = 0; a < 4; a++) {
    for (size_t i = 0; i < words; i++)
      host[i] = pattern(g_rank, a, i);
    CU(cuMemcpyHtoD(alloc[a], host.data(), size));
  }
  const int expected[4] = {cclRegIpc, cclRegVmmFd, cclRegStaged,
                           cclRegVmmFd};
  const size_t offsets[2] = {4096, gran + 12288}; // one in each granule
  cclRegHandle_t regs[4][2];
  for (int a = 0; a < 4; a++)
    for (int o = 0; o < 2; o++)
      CCL(cclCommRegister(comm, (void *)(alloc[a] + offsets[o]), 65536,
                          &regs[a][o]));
  int checked = 0;
  for (int a = 0; a < 4; a++)
    for (int o = 0; o < 2; o++)
      for (int q = 0; q < n; q++) {
        void *p = nullptr;
        int kind = -1;
        CCL(cclCommRegisteredPeer(comm, regs[a][o], q, &p, &kind));
        if (q == g_rank) {
          check(kind == cclRegLocal && p == (void *)(alloc[a] + offsets[o]),
                "own buffer", q);
          continue;
        }
        check(kind == expected[a], "kind", q);
        if (expected[a] == cclRegStaged) {
          check(p == nullptr, "a staged buffer has an address", q);
          continue;
        }
        if (!p)
          continue;
        std::vector<uint32_t> got(65536 / 4);
        CU(cuMemcpyDtoH(got.data(), (CUdeviceptr)p, 65536));
        bool same = true;
        for (size_t i = 0; i < got.size(); i++)
          same &= got[i] == pattern(q, a, offsets[o] / 4 + i);
        check(same, "the bytes read through the peer pointer", q);
        checked++;
      }
  for (int a = 0; a < 4; a++)
    for (int o = 0; o < 2; o++)
      CCL(cclCommDeregister(comm, regs[a][o]));
  CCL(cclMemFree(comm, mine));
  long fails = g_fail;
  std::vector<long> all(n);
  CCL(cclBootstrapAllGather(comm, &fails, all.data(), sizeof fails));
  long total = 0;
  for (long f : all)
    total += f;
  CCL(cclCommDestroy(comm));
  printf("rank %d: %d peer buffers read through their mapping, %d failed "
         "checks\n",
         g_rank, checked, g_fail);
  if (g_rank == 0)
    printf("registration, %d processes: cuMemAlloc -> IPC, cuMemCreate "
           "(fd) -> mapped, cuMemCreate (no shareable type) -> staged, "
           "cclMemAlloc -> mapped; %ld "
           "failed checks\n",
           n, total);
  return total ? 1 : 0;
}
