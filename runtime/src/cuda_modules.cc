// cuda_modules.cc - the CUDA target's kernels (cuda_device.h): the module of
// each rank, picked from the plan's images, its kernels and their
// occupancy, and the checks that all the thread blocks of the ranks on one
// GPU can be resident at once and that ranks sharing a GPU use streams of
// their own.

#include "cuda_device.h"

namespace cclrt {

namespace {

bool archMatches(const char *arch, const std::string &want) {
  if (!arch)
    return false;
  std::string a(arch);
  return a == want || a == want + "a";
}

} // namespace

cclResult_t CudaDevice::loadKernels(PreparedPlan *pp) {
  for (int r : s_->local) {
    cclResult_t res = loadRankKernels(pp, r);
    if (res != cclSuccess)
      return res;
  }
  return checkCoResidency(pp, -1);
}

cclResult_t CudaDevice::loadRankKernels(PreparedPlan *pp, int r) {
  const ccl_plan *p = pp->plan;
  const ccl_variant *var = pp->variant;
  const Rank &rs = ranks_[r];
  const int dev = ordinal(r);
  PreparedRank &pr = pp->ranks[r];
  cclResult_t res = setCurrent(r, "loading a module");
  if (res != cclSuccess)
    return res;
  const std::string want = format("sm_%d%d", rs.ccMajor, rs.ccMinor);
  std::string attempts;
  // The module of the same images in this context, when another plan (of
  // the library) or another root's instance loaded it already.
  const auto key = std::make_pair(rs.cuCtx, (const void *)p->images);
  if (p->images) {
    std::lock_guard<std::mutex> lk(moduleMu_);
    auto it = modules_.find(key);
    if (it != modules_.end()) {
      pr.module = it->second.module;
      it->second.refs++;
    }
  }
  // First a CUBIN built for this device, then PTX (JIT), each in the
  // plan's order of preference.
  for (int pass = 0; pass < 2 && !pr.module; pass++) {
    for (uint32_t i = 0; i < p->num_images && !pr.module; i++) {
      const ccl_image &img = p->images[i];
      if (pass == 0 &&
          !(img.kind == CCL_IMAGE_CUBIN && archMatches(img.arch, want)))
        continue;
      if (pass == 1 && img.kind != CCL_IMAGE_PTX)
        continue;
      std::string ptx;
      const void *data = img.data;
      if (img.kind == CCL_IMAGE_PTX) {
        const char *c = static_cast<const char *>(img.data);
        if (img.size == 0 || c[img.size - 1] != '\0') {
          ptx.assign(c, img.size); // the driver wants NUL-terminated PTX
          data = ptx.c_str();
        }
      }
      static const size_t kLog = 16384;
      std::vector<char> errLog(kLog, 0), infoLog(kLog, 0);
      CUjit_option opts[4] = {CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER,
                              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
      void *vals[4] = {errLog.data(), reinterpret_cast<void *>(kLog),
                       infoLog.data(), reinterpret_cast<void *>(kLog)};
      CUmodule mod = nullptr;
      CUresult cr = d_->cuModuleLoadDataEx(&mod, data, 4, opts, vals);
      if (cr == CUDA_SUCCESS) {
        pr.module = mod;
        std::lock_guard<std::mutex> lk(moduleMu_);
        modules_[key] = LoadedModule{mod, 1};
        break;
      }
      errLog[kLog - 1] = 0;
      attempts += format("; %s image %u (%s) failed: %s%s%s",
                         imageKindName(img.kind), i,
                         img.arch ? img.arch : "any",
                         cudaErrorText(cr).c_str(),
                         errLog[0] ? ": JIT log: " : "", errLog.data());
    }
  }
  if (!pr.module) {
    std::string list;
    for (uint32_t i = 0; i < p->num_images; i++)
      list += format("%s%s%s%s", i ? ", " : "",
                     imageKindName(p->images[i].kind),
                     p->images[i].arch ? " " : "",
                     p->images[i].arch ? p->images[i].arch : "");
    return setError(cclUnsupported,
                    format("no device image of algorithm %s loads on rank "
                           "%d (device %d, %s); the library has [%s]%s",
                           p->algorithm ? p->algorithm : "?", r, dev,
                           want.c_str(), list.c_str(), attempts.c_str()));
  }
  pr.functions.assign(var->num_kernels, nullptr);
  for (uint32_t k = 0; k < var->num_kernels; k++) {
    const char *sym = var->kernels[k].symbol;
    if (!sym)
      return setError(cclInvalidArgument,
                      format("its %s/%s kernel has no symbol",
                             dtypeName(var->kernels[k].dtype),
                             opName(var->kernels[k].redop)));
    // This rank's own kernel (SYMBOL_rR, what cclc emits for GPUs), else
    // one kernel for all ranks (SYMBOL).
    std::string own = format("%s_r%d", sym, pp->virt(r));
    CUresult cr =
        d_->cuModuleGetFunction(&pr.functions[k], pr.module, own.c_str());
    if (cr == CUDA_ERROR_NOT_FOUND)
      cr = d_->cuModuleGetFunction(&pr.functions[k], pr.module, sym);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuModuleGetFunction", cr,
                    format("(kernel %s or %s on device %d)", own.c_str(), sym,
                           dev));
    const int threads =
        var->threads_per_block ? (int)var->threads_per_block : 1;
    int occ = 0;
    cr = d_->cuOccupancyMaxActiveBlocksPerMultiprocessor(
        &occ, pr.functions[k], threads, 0);
    if (cr != CUDA_SUCCESS)
      return cuFail("cuOccupancyMaxActiveBlocksPerMultiprocessor", cr,
                    format("(kernel %s, %d threads per block, device %d)",
                           sym, threads, dev));
    if (k == 0 || occ < pr.blocksPerSM)
      pr.blocksPerSM = occ;
  }
  return cclSuccess;
}

void CudaDevice::unloadKernels(PreparedPlan *pp) {
  if (!d_)
    return;
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    if (!pr.module)
      continue;
    bool last = true;
    {
      std::lock_guard<std::mutex> lk(moduleMu_);
      auto it = modules_.find(
          std::make_pair(ranks_[r].cuCtx, (const void *)pp->plan->images));
      if (it != modules_.end() && it->second.module == pr.module) {
        last = --it->second.refs == 0;
        if (last)
          modules_.erase(it);
      }
    }
    if (last && setCurrent((int)r, "cuModuleUnload") == cclSuccess)
      d_->cuModuleUnload(pr.module);
    pr.module = nullptr;
    pr.functions.clear();
  }
}

bool CudaDevice::coResident(const PreparedPlan *pp, int rank,
                            uint64_t *needed, uint64_t *perSM) const {
  const Rank &rs = ranks_[rank];
  return cclrt::coResident(pp, rs.sameDevice, rs.smCount, needed, perSM);
}

cclResult_t CudaDevice::checkCoResidency(const PreparedPlan *pp,
                                         int rank) const {
  for (int r : s_->local) {
    const Rank &rs = ranks_[r];
    const int dev = ordinal(r);
    // Once per GPU (its first rank), or only for `rank`'s GPU.
    if (rank >= 0 ? r != rank : rs.sameDevice.front() != r)
      continue;
    uint64_t needed, perSM;
    if (coResident(pp, r, &needed, &perSM))
      continue;
    return coResidencyError(pp, dev, rankList(rs.sameDevice), rs.sameDevice,
                            rs.smCount, needed, perSM, kCudaNames);
  }
  return cclSuccess;
}

cclResult_t CudaDevice::checkStream(int rank, cclStream_t stream,
                                    const char *what) const {
  const Rank &rs = ranks_[rank];
  CUstream st = static_cast<CUstream>(stream);
  if (rs.sameDevice.size() < 2 || (st && st != CCLRT_CU_STREAM_LEGACY))
    return cclSuccess;
  return sharedStreamError(rank, ordinal(rank), rs.sameDevice, what,
                           st ? "the legacy default stream (CU_STREAM_LEGACY)"
                              : "the legacy default stream (NULL)");
}

} // namespace cclrt
