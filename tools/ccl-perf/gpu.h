// gpu.h - ccl-perf's view of the CUDA driver (loaded by //runtime:cuda_driver):
// whether a GPU is usable here, and the driver's version and GPU count for
// the header. cuda.h is not needed to build ccl-perf.
#ifndef CCL_PERF_GPU_H
#define CCL_PERF_GPU_H

#include <string>

#include "runtime/src/cuda_driver.h"

namespace cclperf {

// The driver types and entry points ccl-perf uses.
namespace cu = cclrt;

struct Gpus {
  const cu::CudaDriver *drv = nullptr;
  int driverVersion = 0;
  int deviceCount = 0;
};

// Loads the driver (cuInit) and counts the GPUs, once. Returns nullptr and
// sets *why ("cannot load libcuda.so.1 (...)", "the CUDA driver sees no
// GPU") when no GPU is usable.
const Gpus *probeGpus(std::string *why);

}  // namespace cclperf

#endif  // CCL_PERF_GPU_H
