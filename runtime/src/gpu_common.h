// gpu_common.h - what the GPU devices (cuda_device.cc, hip_device.cc)
// share: which GPU each rank uses and which ranks share one, whether a
// plan's thread blocks fit on a GPU at once, the rule that ranks sharing a
// GPU need streams of their own, and the names messages use. Each sets the
// thread's error (setError) and returns its code, as Device methods do.
#ifndef CCLRT_GPU_COMMON_H
#define CCLRT_GPU_COMMON_H

#include <cstdint>
#include <string>
#include <vector>

#include "internal.h"

namespace cclrt {

// How a GPU API's messages name it.
struct GpuNames {
  const char *api;        // "CUDA", "HIP"
  const char *visibleVar; // the variable that hides devices
  const char *unit;       // what holds resident blocks: "SM", "compute unit"
};

// "ptx", "cubin", "hsaco" (ccl_image::kind).
const char *imageKindName(uint32_t kind);
// "rank 3", "ranks 0, 2".
std::string rankList(const std::vector<int> &ranks);

// Sets s->ranks[r]->device for every rank this process drives: devices[r],
// or r when `devices` is null, checked against the `count` devices the API
// sees; (*sameDevice)[r] (indexed by rank) becomes the ranks this process
// drives on r's GPU, r included, in rank order (other processes' ranks may
// share it too: they are not counted).
cclResult_t assignDevices(Shared *s, const int *devices, int count,
                          const GpuNames &names,
                          std::vector<std::vector<int>> *sameDevice);

// Whether every thread block of pp's variant for the ranks `sameDevice`
// (those that share a GPU of `units` SMs or compute units) can be resident
// at once, each unit holding the fewest blocks any of their kernels allows
// (PreparedRank::blocksPerSM). A GPU whose unit count is unknown (<= 0)
// passes. *needed and *perUnit say what was compared.
bool coResident(const PreparedPlan *pp, const std::vector<int> &sameDevice,
                int units, uint64_t *needed, uint64_t *perUnit);
// cclUnsupported: device `dev` (described by `desc`, e.g. "gfx942, ranks
// 0, 1") cannot hold the blocks coResident counted.
cclResult_t coResidencyError(const PreparedPlan *pp, int dev,
                             const std::string &desc,
                             const std::vector<int> &sameDevice, int units,
                             uint64_t needed, uint64_t perUnit,
                             const GpuNames &names);

// cclInvalidArgument when `rank` shares its GPU `dev` with other ranks
// (sameDevice) and queues its `what` ("launches", "copies") on a stream
// that serialises them (`streamName`, e.g. "the null stream"): their
// kernels wait for each other.
cclResult_t sharedStreamError(int rank, int dev,
                              const std::vector<int> &sameDevice,
                              const char *what, const char *streamName);

} // namespace cclrt

#endif // CCLRT_GPU_COMMON_H
