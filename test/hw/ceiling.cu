// ceiling.cu - the link ceilings between GPU 0 and GPU 1, for the busbw
// tables of docs/perf.md: what the hardware moves with nothing of cclc or
// NCCL in the way.
//
//   nvcc -O3 -arch=sm_90 -o ceiling ceiling.cu && ./ceiling [SIZE_MIB]
//
// Rows (GB/s = bytes moved per direction / time, 1e9 bytes):
//   ce 0->1        cudaMemcpyPeerAsync on a stream of GPU 0 (copy engine)
//   ce 0<->1       both directions at once, each on its own GPU's stream
//   sm write 0->1  a kernel on GPU 0 storing into GPU 1's memory (16-byte
//                  vector stores, every SM)
//   sm write 0<->1 both GPUs at once
//   sm read 1->0   a kernel on GPU 0 loading from GPU 1's memory
// Plain device allocations only (no managed memory, no multicast).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda_check.h"

__global__ void copy16(const int4 *__restrict__ src, int4 *__restrict__ dst,
                       size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += stride)
    dst[i] = src[i];
}

struct Gpu {
  int dev;
  cudaStream_t s;
  void *a, *b; // a: source of its own copies; b: target of the peer's
  cudaEvent_t t0, t1;
  int sms;
};

static double run(std::vector<Gpu> &g, const std::vector<int> &who,
                  size_t bytes, int iters, int kind) {
  // kind 0: copy engine, 1: SM writes to the peer, 2: SM reads the peer
  for (int pass = 0; pass < 2; pass++) { // pass 0 warms up
    for (int i : who) {
      Gpu &x = g[i], &y = g[1 - i];
      CK(cudaSetDevice(x.dev));
      CK(cudaEventRecord(x.t0, x.s));
      for (int it = 0; it < (pass ? iters : 2); it++) {
        if (kind == 0)
          CK(cudaMemcpyPeerAsync(y.b, y.dev, x.a, x.dev, bytes, x.s));
        else if (kind == 1)
          copy16<<<x.sms * 4, 512, 0, x.s>>>((const int4 *)x.a, (int4 *)y.b,
                                             bytes / 16);
        else
          copy16<<<x.sms * 4, 512, 0, x.s>>>((const int4 *)y.b, (int4 *)x.a,
                                             bytes / 16);
      }
      CK(cudaEventRecord(x.t1, x.s));
    }
    for (int i : who) {
      CK(cudaSetDevice(g[i].dev));
      CK(cudaStreamSynchronize(g[i].s));
    }
  }
  double worst = 0;
  for (int i : who) {
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, g[i].t0, g[i].t1));
    worst = ms > worst ? ms : worst;
  }
  return (double)bytes * iters / (worst * 1e-3) / 1e9;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoull(argv[1], nullptr, 10) : 256;
  size_t bytes = mib << 20;
  int n = 0;
  CK(cudaGetDeviceCount(&n));
  if (n < 2) {
    fprintf(stderr, "ceiling: needs 2 GPUs, found %d\n", n);
    return 2;
  }
  std::vector<Gpu> g(2);
  for (int i = 0; i < 2; i++) {
    g[i].dev = i;
    CK(cudaSetDevice(i));
    int can = 0;
    CK(cudaDeviceCanAccessPeer(&can, i, 1 - i));
    if (!can) {
      fprintf(stderr, "ceiling: GPU %d cannot access GPU %d\n", i, 1 - i);
      return 2;
    }
    CK(cudaDeviceEnablePeerAccess(1 - i, 0));
    CK(cudaStreamCreateWithFlags(&g[i].s, cudaStreamNonBlocking));
    CK(cudaMalloc(&g[i].a, bytes));
    CK(cudaMalloc(&g[i].b, bytes));
    CK(cudaMemset(g[i].a, i + 1, bytes));
    CK(cudaEventCreate(&g[i].t0));
    CK(cudaEventCreate(&g[i].t1));
    CK(cudaDeviceGetAttribute(&g[i].sms, cudaDevAttrMultiProcessorCount, i));
  }
  const int iters = 20;
  printf("# link ceilings, GPU 0 and GPU 1, %zu MiB per transfer, %d "
         "transfers, GB/s per direction\n",
         mib, iters);
  printf("ce 0->1          %8.1f\n", run(g, {0}, bytes, iters, 0));
  printf("ce 0<->1         %8.1f\n", run(g, {0, 1}, bytes, iters, 0));
  printf("sm write 0->1    %8.1f\n", run(g, {0}, bytes, iters, 1));
  printf("sm write 0<->1   %8.1f\n", run(g, {0, 1}, bytes, iters, 1));
  printf("sm read 1->0     %8.1f\n", run(g, {0}, bytes, iters, 2));
  printf("sm read 0<->1    %8.1f\n", run(g, {0, 1}, bytes, iters, 2));
  return 0;
}
