// ringsig.cu - the latency of a signal hop between GPUs, with the device
// library's primitives (fence.acq_rel.sys, atom.add.sys on the peer's
// counter, ld.acquire.sys polls), for B thread blocks per GPU in a ring of
// N GPUs. Block b of GPU g waits for its counter to reach step s, then adds
// one to block b's counter on GPU g+1; a token goes round ROUNDS times.
// Prints microseconds per hop: if it grows with B or N, the links or the
// memory system serialise signals; if not, a slow collective is slow for
// another reason (docs/perf.md, "4 x H200, 2026-11-27c").
//   nvcc -O3 -arch=sm_90 -o ringsig ringsig.cu && ./ringsig
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#include "cuda_check.h"

__device__ unsigned long long load_acquire(unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];"
               : "=l"(v)
               : "l"(p)
               : "memory");
  return v;
}

__device__ unsigned load_acquire32(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
               : "=r"(v)
               : "l"(p)
               : "memory");
  return v;
}

// counters: this GPU's (one 128-byte line per block when spread, else 8
// bytes apart), next: GPU g+1's. host: a flag in pinned host memory that a
// waiting block reads every `every` failed polls (0: never), as the device
// library's waits read the abort flag.
__global__ void hop(unsigned long long *mine, unsigned long long *next,
                    int first, int rounds, int stride, int fence,
                    const unsigned *host, int every) {
  if (threadIdx.x != 0)
    return;
  unsigned long long *c = mine + blockIdx.x * stride;
  unsigned long long *n = next + blockIdx.x * stride;
  for (int s = 0; s < rounds; s++) {
    unsigned polls = 0;
    if (!(first && s == 0))
      while (load_acquire(c) < (unsigned long long)(first ? s : s + 1))
        if (every && ++polls % every == 0 && load_acquire32(host))
          return;
    if (fence)
      asm volatile("fence.acq_rel.sys;" ::: "memory");
    atomicAdd_system(n, 1ull);
  }
}

int main(int argc, char **argv) {
  int ngpu = 0;
  CK(cudaGetDeviceCount(&ngpu));
  const int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  printf("# ringsig: %d GPUs, %d rounds per run, us per hop\n", ngpu, rounds);
  printf("# %5s %7s %7s %6s %6s %10s\n", "gpus", "blocks", "stride", "fence",
         "host", "us/hop");
  for (int i = 0; i < ngpu; i++) {
    CK(cudaSetDevice(i));
    for (int j = 0; j < ngpu; j++)
      if (i != j) {
        cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
        if (e != cudaErrorPeerAccessAlreadyEnabled)
          CK(e);
      }
  }
  const int maxBlocks = 128, maxStride = 16;
  unsigned *host = nullptr;
  CK(cudaHostAlloc((void **)&host, 64,
                   cudaHostAllocPortable | cudaHostAllocMapped));
  *host = 0;
  std::vector<unsigned long long *> ctr(ngpu);
  for (int i = 0; i < ngpu; i++) {
    CK(cudaSetDevice(i));
    CK(cudaMalloc(&ctr[i], maxBlocks * maxStride * 8));
  }
  for (int n = 2; n <= ngpu; n++)
    for (int blocks : {1, 8, 32, 64, 128})
      for (int stride : {1, 16})
        for (int fence : {0, 1})
          for (int every : {0, 64, 1024}) {
            if (every && !(fence && stride == 1))
              continue;
            for (int i = 0; i < n; i++) {
              CK(cudaSetDevice(i));
              CK(cudaMemset(ctr[i], 0, maxBlocks * maxStride * 8));
              CK(cudaDeviceSynchronize());
            }
            auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < n; i++) {
              CK(cudaSetDevice(i));
              hop<<<blocks, 32>>>(ctr[i], ctr[(i + 1) % n], i == 0, rounds,
                                  stride, fence, host, every);
              CK(cudaGetLastError());
            }
            for (int i = 0; i < n; i++) {
              CK(cudaSetDevice(i));
              CK(cudaDeviceSynchronize());
            }
            double us = std::chrono::duration<double, std::micro>(
                            std::chrono::steady_clock::now() - t0)
                            .count();
            printf("  %5d %7d %7d %6d %6d %10.3f\n", n, blocks, stride, fence,
                   every, us / ((double)rounds * n));
          }
  return 0;
}
