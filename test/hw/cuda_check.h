// cuda_check.h - CK(call): a CUDA runtime call that prints the failure
// (file, line, call, error) and exits with status 1. For the standalone
// benchmarks built with nvcc next to it on the GPU machine (ceiling.cu,
// ringsig.cu; the build modes of two_gpu.sh and scaling.sh copy it along).
#ifndef CCL_TEST_HW_CUDA_CHECK_H
#define CCL_TEST_HW_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif // CCL_TEST_HW_CUDA_CHECK_H
