// hip_modules.cc - the HIP target's kernels (hip_device.h): the code object
// of each rank, picked from the plan's images by the device's gfx
// architecture, its kernels and their occupancy, and the checks that all
// the thread blocks of the ranks on one GPU can be resident at once and
// that ranks sharing a GPU use streams of their own.

#include "hip_device.h"

namespace cclrt {

cclResult_t HipDevice::loadKernels(PreparedPlan *pp) {
  for (int r : s_->local) {
    cclResult_t res = loadRankKernels(pp, r);
    if (res != cclSuccess)
      return res;
  }
  return checkCoResidency(pp, -1);
}

// The image of kind CCL_IMAGE_HSACO whose arch is the device's architecture
// without its feature suffixes (a code object built for "gfx942" runs on a
// "gfx942:sramecc+:xnack-" device; cclc builds for the base architecture),
// first in the plan's order. A code object cannot be translated for
// another architecture, so there is no fallback.
cclResult_t HipDevice::loadRankKernels(PreparedPlan *pp, int r) {
  const ccl_plan *p = pp->plan;
  const ccl_variant *var = pp->variant;
  const Rank &rs = ranks_[r];
  const int dev = ordinal(r);
  PreparedRank &pr = pp->ranks[r];
  cclResult_t res = setCurrent(r, "loading a code object");
  if (res != cclSuccess)
    return res;
  const auto key = std::make_pair(dev, (const void *)p->images);
  if (p->images) {
    std::lock_guard<std::mutex> lk(moduleMu_);
    auto it = modules_.find(key);
    if (it != modules_.end()) {
      pr.hipModule = it->second.module;
      it->second.refs++;
    }
  }
  std::string attempts;
  for (uint32_t i = 0; i < p->num_images && !pr.hipModule; i++) {
    const ccl_image &img = p->images[i];
    if (img.kind != CCL_IMAGE_HSACO || !img.arch || rs.baseArch != img.arch)
      continue;
    hipModule_t mod = nullptr;
    hipError_t hr = h_->hipModuleLoadData(&mod, img.data);
    if (hr == hipSuccess) {
      pr.hipModule = mod;
      std::lock_guard<std::mutex> lk(moduleMu_);
      modules_[key] = LoadedModule{mod, 1};
      break;
    }
    attempts += format("; hsaco image %u (%s) failed: %s", i, img.arch,
                       hipErrorText(hr).c_str());
  }
  if (!pr.hipModule) {
    std::string list;
    for (uint32_t i = 0; i < p->num_images; i++)
      list +=
          format("%s%s%s%s", i ? ", " : "", imageKindName(p->images[i].kind),
                 p->images[i].arch ? " " : "",
                 p->images[i].arch ? p->images[i].arch : "");
    return setError(
        cclUnsupported,
        format("no device image of algorithm %s loads on rank %d (device "
               "%d, %s): it needs an hsaco code object for %s, and the "
               "library has [%s]%s; recompile with cclc --target %s",
               p->algorithm ? p->algorithm : "?", r, dev, rs.arch.c_str(),
               rs.baseArch.c_str(), list.c_str(), attempts.c_str(),
               rs.baseArch.c_str()));
  }
  pr.hipFunctions.assign(var->num_kernels, nullptr);
  const int threads = var->threads_per_block ? (int)var->threads_per_block : 1;
  for (uint32_t k = 0; k < var->num_kernels; k++) {
    const char *sym = var->kernels[k].symbol;
    if (!sym)
      return setError(cclInvalidArgument,
                      format("its %s/%s kernel has no symbol",
                             dtypeName(var->kernels[k].dtype),
                             opName(var->kernels[k].redop)));
    // This rank's own kernel (SYMBOL_rR), else one kernel for all ranks.
    std::string own = format("%s_r%d", sym, pp->virt(r));
    hipError_t hr = h_->hipModuleGetFunction(&pr.hipFunctions[k], pr.hipModule,
                                             own.c_str());
    if (hr != hipSuccess)
      hr = h_->hipModuleGetFunction(&pr.hipFunctions[k], pr.hipModule, sym);
    if (hr != hipSuccess)
      return hipFail("hipModuleGetFunction", hr,
                     format("(kernel %s or %s on device %d, %s)", own.c_str(),
                            sym, dev, rs.arch.c_str()));
    int occ = 0;
    hr = h_->hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
        &occ, pr.hipFunctions[k], threads, 0);
    if (hr != hipSuccess)
      return hipFail("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", hr,
                     format("(kernel %s, %d threads per block, device %d)", sym,
                            threads, dev));
    if (k == 0 || occ < pr.blocksPerSM)
      pr.blocksPerSM = occ;
  }
  return cclSuccess;
}

void HipDevice::unloadKernels(PreparedPlan *pp) {
  if (!h_)
    return;
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    if (!pr.hipModule)
      continue;
    bool last = true;
    {
      std::lock_guard<std::mutex> lk(moduleMu_);
      auto it = modules_.find(
          std::make_pair(ordinal((int)r), (const void *)pp->plan->images));
      if (it != modules_.end() && it->second.module == pr.hipModule) {
        last = --it->second.refs == 0;
        if (last)
          modules_.erase(it);
      }
    }
    if (last && setCurrent((int)r, "hipModuleUnload") == cclSuccess)
      h_->hipModuleUnload(pr.hipModule);
    pr.hipModule = nullptr;
    pr.hipFunctions.clear();
  }
}

bool HipDevice::coResident(const PreparedPlan *pp, int rank, uint64_t *needed,
                           uint64_t *perCU) const {
  const Rank &rs = ranks_[rank];
  return cclrt::coResident(pp, rs.sameDevice, rs.cuCount, needed, perCU);
}

cclResult_t HipDevice::checkCoResidency(const PreparedPlan *pp,
                                        int rank) const {
  for (int r : s_->local) {
    const Rank &rs = ranks_[r];
    const int dev = ordinal(r);
    if (rank >= 0 ? r != rank : rs.sameDevice.front() != r)
      continue;
    uint64_t needed, perCU;
    if (coResident(pp, r, &needed, &perCU))
      continue;
    return coResidencyError(pp, dev, rs.arch + ", " + rankList(rs.sameDevice),
                            rs.sameDevice, rs.cuCount, needed, perCU,
                            kHipNames);
  }
  return cclSuccess;
}

// Ranks that share a GPU must each queue their work on a stream of their
// own: on the null stream their kernels would run one after the other,
// and they wait for each other.
cclResult_t HipDevice::checkStream(int rank, cclStream_t stream,
                                   const char *what) const {
  const Rank &rs = ranks_[rank];
  if (rs.sameDevice.size() < 2 || stream)
    return cclSuccess;
  return sharedStreamError(rank, ordinal(rank), rs.sameDevice, what,
                           "the null stream");
}

} // namespace cclrt
