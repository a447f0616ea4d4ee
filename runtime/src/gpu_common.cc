// gpu_common.cc - what the CUDA and HIP devices share (gpu_common.h).
#include "gpu_common.h"

#include <cinttypes>

namespace cclrt {

const char *imageKindName(uint32_t kind) {
  switch (kind) {
  case CCL_IMAGE_PTX:
    return "ptx";
  case CCL_IMAGE_CUBIN:
    return "cubin";
  case CCL_IMAGE_HSACO:
    return "hsaco";
  }
  return "unknown";
}

std::string rankList(const std::vector<int> &ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); i++)
    out += (i ? ", " : "") + std::to_string(ranks[i]);
  return out;
}

cclResult_t assignDevices(Shared *s, const int *devices, int count,
                          const GpuNames &names,
                          std::vector<std::vector<int>> *sameDevice) {
  const std::vector<int> &local = s->local;
  if (!devices && count < (int)local.size())
    return setError(cclNoDevice,
                    format("the communicator needs %zu GPUs (one per rank) "
                           "but only %d %s device%s visible (check %s)",
                           local.size(), count, names.api,
                           count == 1 ? " is" : "s are", names.visibleVar));
  for (int r : local) {
    int ord = devices ? devices[r] : r;
    if (ord < 0 || ord >= count)
      return setError(devices ? cclInvalidArgument : cclNoDevice,
                      format("devices[%d] is %d, but only %d %s device%s "
                             "visible (ordinals 0..%d)",
                             r, ord, count, names.api,
                             count == 1 ? " is" : "s are", count - 1));
    s->ranks[r]->device = ord;
  }
  sameDevice->assign(s->nranks, {});
  for (int r : local)
    for (int q : local)
      if (s->ranks[q]->device == s->ranks[r]->device)
        (*sameDevice)[r].push_back(q);
  return cclSuccess;
}

bool coResident(const PreparedPlan *pp, const std::vector<int> &sameDevice,
                int units, uint64_t *needed, uint64_t *perUnit) {
  int fewest = -1;
  for (int q : sameDevice)
    if (fewest < 0 || pp->ranks[q].blocksPerSM < fewest)
      fewest = pp->ranks[q].blocksPerSM;
  *needed = (uint64_t)pp->variant->nblocks * sameDevice.size();
  *perUnit = fewest < 0 ? 0 : (uint64_t)fewest;
  return units <= 0 || *needed <= (uint64_t)units * *perUnit;
}

cclResult_t coResidencyError(const PreparedPlan *pp, int dev,
                             const std::string &desc,
                             const std::vector<int> &sameDevice, int units,
                             uint64_t needed, uint64_t perUnit,
                             const GpuNames &names) {
  const ccl_variant *var = pp->variant;
  const size_t n = sameDevice.size();
  return setError(
      cclUnsupported,
      format("device %d (%s) cannot hold the thread blocks of %s at once: "
             "%s%u block%s of %u threads = %" PRIu64
             " blocks must all be resident together (they wait on each "
             "other), but device %d holds at most %" PRIu64 " (%d %ss x "
             "%" PRIu64 " block%s per %s for these kernels); %s",
             dev, desc.c_str(), n == 1 ? "the rank" : "its ranks",
             n == 1 ? "" : format("%zu ranks x ", n).c_str(), var->nblocks,
             var->nblocks == 1 ? "" : "s",
             var->threads_per_block ? var->threads_per_block : 1, needed, dev,
             (uint64_t)units * perUnit, units, names.unit, perUnit,
             perUnit == 1 ? "" : "s", names.unit,
             n == 1 ? "compile with fewer --instances or threads per block"
                    : "put fewer ranks on the GPU, or compile with fewer "
                      "--instances"));
}

cclResult_t sharedStreamError(int rank, int dev,
                              const std::vector<int> &sameDevice,
                              const char *what, const char *streamName) {
  std::vector<int> others;
  for (int q : sameDevice)
    if (q != rank)
      others.push_back(q);
  return setError(cclInvalidArgument,
                  format("rank %d shares device %d with %s: queue its %s on "
                         "a stream of its own (a non-blocking one), not on "
                         "%s, which would serialise the kernels of the ranks "
                         "on the GPU, and they wait for each other",
                         rank, dev, rankList(others).c_str(), what,
                         streamName));
}

} // namespace cclrt
