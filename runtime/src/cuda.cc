// cuda.cc - the CUDA target: contexts, peer access, modules, launches
// (docs/runtime.md, "CUDA target"). Uses only the entry points of
// cuda_driver.h, loaded at run time.
#include <cinttypes>
#include <cstddef>
#include <cstring>

#include "internal.h"

namespace cclrt {

namespace {

const CudaDriver *drv() { return cudaDriver(nullptr, nullptr); }

cclResult_t cuFail(const char *call, CUresult r, const std::string &where) {
  return setError(cclDriverError, format("%s failed%s%s: %s", call,
                                         where.empty() ? "" : " ",
                                         where.c_str(),
                                         cuErrorString(r).c_str()));
}

bool archMatches(const char *arch, const std::string &want) {
  if (!arch)
    return false;
  std::string a(arch);
  return a == want || a == want + "a";
}

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

} // namespace

std::string cuErrorString(CUresult r) {
  const CudaDriver *d = drv();
  const char *name = nullptr, *str = nullptr;
  if (d) {
    if (d->cuGetErrorName(r, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (d->cuGetErrorString(r, &str) != CUDA_SUCCESS)
      str = nullptr;
  }
  std::string out = name ? name : "CUDA error " + std::to_string(r);
  if (str)
    out += std::string(" (") + str + ")";
  return out;
}

CtxGuard::CtxGuard(Shared *s) {
  if (!s || s->target != cclTargetCuda)
    return;
  const CudaDriver *d = drv();
  if (d && d->cuCtxGetCurrent(&prev_) == CUDA_SUCCESS)
    active_ = true;
}

CtxGuard::~CtxGuard() {
  if (active_)
    drv()->cuCtxSetCurrent(prev_);
}

cclResult_t cudaSetCurrent(Shared *s, int rank, const char *fn) {
  const CudaDriver *d = drv();
  if (!d)
    return setError(cclNoDevice, "the CUDA driver is not loaded");
  RankState &rs = *s->ranks[rank];
  CUresult r = d->cuCtxSetCurrent(rs.cuCtx);
  if (r != CUDA_SUCCESS)
    return cuFail("cuCtxSetCurrent",
                  r, format("(%s, rank %d, device %d)", fn, rank, rs.device));
  return cclSuccess;
}

cclResult_t cudaInitComm(Shared *s, const int *devices) {
  std::string err;
  const CudaDriver *d = cudaDriver(&err, nullptr);
  if (!d)
    return setError(cclNoDevice, err);
  int count = 0;
  CUresult cr = d->cuDeviceGetCount(&count);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuDeviceGetCount", cr, "");
  if (!devices && count < s->nranks)
    return setError(cclNoDevice,
                    format("the communicator needs %d GPUs (one per rank) but "
                           "only %d CUDA device%s visible (check "
                           "CUDA_VISIBLE_DEVICES)",
                           s->nranks, count, count == 1 ? " is" : "s are"));
  for (int r = 0; r < s->nranks; r++) {
    int ord = devices ? devices[r] : r;
    if (ord < 0 || ord >= count)
      return setError(devices ? cclInvalidArgument : cclNoDevice,
                      format("devices[%d] is %d, but only %d CUDA device%s "
                             "visible (ordinals 0..%d)",
                             r, ord, count, count == 1 ? " is" : "s are",
                             count - 1));
    s->ranks[r]->device = ord;
  }
  for (int r = 0; r < s->nranks; r++)
    for (int q = 0; q < s->nranks; q++)
      if (s->ranks[q]->device == s->ranks[r]->device)
        s->ranks[r]->sameDevice.push_back(q);
  for (int r = 0; r < s->nranks; r++) {
    RankState &rs = *s->ranks[r];
    if ((cr = d->cuDeviceGet(&rs.cuDev, rs.device)) != CUDA_SUCCESS)
      return cuFail("cuDeviceGet", cr, format("(device %d)", rs.device));
    if ((cr = d->cuDeviceGetAttribute(
             &rs.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
             rs.cuDev)) != CUDA_SUCCESS ||
        (cr = d->cuDeviceGetAttribute(
             &rs.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
             rs.cuDev)) != CUDA_SUCCESS ||
        (cr = d->cuDeviceGetAttribute(
             &rs.smCount, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
             rs.cuDev)) != CUDA_SUCCESS)
      return cuFail("cuDeviceGetAttribute", cr,
                    format("(compute capability of device %d)", rs.device));
    if ((cr = d->cuDevicePrimaryCtxRetain(&rs.cuCtx, rs.cuDev)) !=
        CUDA_SUCCESS)
      return cuFail("cuDevicePrimaryCtxRetain", cr,
                    format("(device %d)", rs.device));
    rs.ctxRetained = true;
    cclResult_t res = cudaSetCurrent(s, r, "cclCommInitAllInProcess");
    if (res != cclSuccess)
      return res;
    if ((cr = d->cuStreamCreate(&rs.internalStream, CU_STREAM_NON_BLOCKING)) !=
        CUDA_SUCCESS)
      return cuFail("cuStreamCreate", cr, format("(device %d)", rs.device));
  }
  // Peer access: every rank reaches every other rank's memory. Ranks on
  // the same GPU share its primary context and address each other's
  // memory with plain device pointers; enabling peer access from a context
  // to itself would fail, so only distinct devices are paired (once per
  // pair of contexts; "already enabled" from a second rank is fine).
  for (int r = 0; r < s->nranks; r++) {
    RankState &rs = *s->ranks[r];
    cclResult_t res = cudaSetCurrent(s, r, "cclCommInitAllInProcess");
    if (res != cclSuccess)
      return res;
    for (int p = 0; p < s->nranks; p++) {
      RankState &ps = *s->ranks[p];
      if (p == r || ps.device == rs.device)
        continue;
      int can = 0;
      if ((cr = d->cuDeviceCanAccessPeer(&can, rs.cuDev, ps.cuDev)) !=
          CUDA_SUCCESS)
        return cuFail("cuDeviceCanAccessPeer", cr,
                      format("(device %d -> device %d)", rs.device,
                             ps.device));
      if (!can)
        return setError(cclUnsupported,
                        format("rank %d (device %d) cannot access the memory "
                               "of rank %d (device %d) directly "
                               "(cuDeviceCanAccessPeer says no); the runtime "
                               "needs peer access (NVLink or PCIe P2P) "
                               "between every pair of GPUs of an in-process "
                               "communicator",
                               r, rs.device, p, ps.device));
      cr = d->cuCtxEnablePeerAccess(ps.cuCtx, 0);
      if (cr != CUDA_SUCCESS && cr != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        return cuFail("cuCtxEnablePeerAccess", cr,
                      format("(device %d -> device %d)", rs.device,
                             ps.device));
    }
  }
  // The abort flag (offset 0) and the error record (offset 8): host-mapped
  // pinned memory, portable to every context.
  cclResult_t res = cudaSetCurrent(s, 0, "cclCommInitAllInProcess");
  if (res != cclSuccess)
    return res;
  void *hm = nullptr;
  if ((cr = d->cuMemHostAlloc(&hm, 64,
                              CU_MEMHOSTALLOC_PORTABLE |
                                  CU_MEMHOSTALLOC_DEVICEMAP)) != CUDA_SUCCESS)
    return cuFail("cuMemHostAlloc", cr, "(abort flag and error record)");
  memset(hm, 0, 64);
  s->hostMapped = hm;
  for (int r = 0; r < s->nranks; r++) {
    RankState &rs = *s->ranks[r];
    if ((res = cudaSetCurrent(s, r, "cclCommInitAllInProcess")) != cclSuccess)
      return res;
    CUdeviceptr dp = 0;
    if ((cr = d->cuMemHostGetDevicePointer(&dp, hm, 0)) != CUDA_SUCCESS)
      return cuFail("cuMemHostGetDevicePointer", cr,
                    format("(device %d)", rs.device));
    rs.abortFlagDev = dp;
    rs.errorDev = dp + 8;
  }
  return cclSuccess;
}

cclResult_t cudaPrepareModules(Shared *s, PreparedPlan *pp) {
  const CudaDriver *d = drv();
  const ccl_plan *p = pp->plan;
  const ccl_variant *var = pp->variant;
  for (int r = 0; r < s->nranks; r++) {
    RankState &rs = *s->ranks[r];
    PreparedRank &pr = pp->ranks[r];
    cclResult_t res = cudaSetCurrent(s, r, "loading a module");
    if (res != cclSuccess)
      return res;
    const std::string want = format("sm_%d%d", rs.ccMajor, rs.ccMinor);
    std::string attempts;
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
        CUresult cr = d->cuModuleLoadDataEx(&mod, data, 4, opts, vals);
        if (cr == CUDA_SUCCESS) {
          pr.module = mod;
          break;
        }
        errLog[kLog - 1] = 0;
        attempts += format("; %s image %u (%s) failed: %s%s%s",
                           imageKindName(img.kind), i,
                           img.arch ? img.arch : "any",
                           cuErrorString(cr).c_str(),
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
                             p->algorithm ? p->algorithm : "?", r, rs.device,
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
      std::string own = format("%s_r%d", sym, r);
      CUresult cr =
          d->cuModuleGetFunction(&pr.functions[k], pr.module, own.c_str());
      if (cr == CUDA_ERROR_NOT_FOUND)
        cr = d->cuModuleGetFunction(&pr.functions[k], pr.module, sym);
      if (cr != CUDA_SUCCESS)
        return cuFail("cuModuleGetFunction", cr,
                      format("(kernel %s or %s on device %d)", own.c_str(),
                             sym, rs.device));
      const int threads =
          var->threads_per_block ? (int)var->threads_per_block : 1;
      int occ = 0;
      cr = d->cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &occ, pr.functions[k], threads, 0);
      if (cr != CUDA_SUCCESS)
        return cuFail("cuOccupancyMaxActiveBlocksPerMultiprocessor", cr,
                      format("(kernel %s, %d threads per block, device %d)",
                             sym, threads, rs.device));
      if (k == 0 || occ < pr.blocksPerSM)
        pr.blocksPerSM = occ;
    }
  }
  return cclSuccess;
}

namespace {

std::string rankList(const std::vector<int> &ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size(); i++)
    out += (i ? ", " : "") + std::to_string(ranks[i]);
  return out;
}

// Whether the blocks of every rank on `rank`'s GPU fit on it at once:
// nblocks per rank, summed over the ranks there, against SMs x the fewest
// blocks per SM of their kernels. No allocation (runs on the launch path).
bool coResident(Shared *s, const PreparedPlan *pp, int rank,
                uint64_t *needed, uint64_t *perSM) {
  const RankState &rs = *s->ranks[rank];
  int fewest = -1;
  for (int q : rs.sameDevice)
    if (fewest < 0 || pp->ranks[q].blocksPerSM < fewest)
      fewest = pp->ranks[q].blocksPerSM;
  *needed = (uint64_t)pp->variant->nblocks * rs.sameDevice.size();
  *perSM = fewest < 0 ? 0 : (uint64_t)fewest;
  return rs.smCount <= 0 || *needed <= (uint64_t)rs.smCount * *perSM;
}

} // namespace

cclResult_t cudaCheckCoResidency(Shared *s, const PreparedPlan *pp,
                                 int rank) {
  for (int r = 0; r < s->nranks; r++) {
    const RankState &rs = *s->ranks[r];
    // Once per GPU (its first rank), or only for `rank`'s GPU.
    if (rank >= 0 ? r != rank : rs.sameDevice.front() != r)
      continue;
    uint64_t needed, perSM;
    if (coResident(s, pp, r, &needed, &perSM))
      continue;
    const ccl_variant *var = pp->variant;
    const size_t n = rs.sameDevice.size();
    return setError(
        cclUnsupported,
        format("device %d (%s) cannot hold the thread blocks of %s at "
               "once: %s%u block%s of %u threads = %" PRIu64
               " blocks must all be resident together (they wait on each "
               "other), but device %d holds at most %" PRIu64 " (%d SMs x "
               "%" PRIu64 " block%s per SM for these kernels); %s",
               rs.device, rankList(rs.sameDevice).c_str(),
               n == 1 ? "the rank" : "its ranks",
               n == 1 ? "" : format("%zu ranks x ", n).c_str(), var->nblocks,
               var->nblocks == 1 ? "" : "s",
               var->threads_per_block ? var->threads_per_block : 1, needed,
               rs.device, (uint64_t)rs.smCount * perSM, rs.smCount, perSM,
               perSM == 1 ? "" : "s",
               n == 1 ? "compile with fewer --instances or threads per "
                        "block"
                      : "put fewer ranks on the GPU, or compile with fewer "
                        "--instances"));
  }
  return cclSuccess;
}

cclResult_t cudaCheckStream(Shared *s, int rank, cclStream_t stream,
                            const char *what) {
  const RankState &rs = *s->ranks[rank];
  CUstream st = static_cast<CUstream>(stream);
  if (rs.sameDevice.size() < 2 || (st && st != CCLRT_CU_STREAM_LEGACY))
    return cclSuccess;
  std::vector<int> others;
  for (int q : rs.sameDevice)
    if (q != rank)
      others.push_back(q);
  return setError(cclInvalidArgument,
                  format("rank %d shares device %d with %s: queue its %s on "
                         "a stream of its own (a non-blocking one), not on "
                         "the legacy default stream (%s), which would "
                         "serialise the kernels of the ranks on the GPU, "
                         "and they wait for each other",
                         rank, rs.device, rankList(others).c_str(), what,
                         st ? "CU_STREAM_LEGACY" : "NULL"));
}

void cudaUnloadModules(Shared *s, PreparedPlan *pp) {
  const CudaDriver *d = drv();
  if (!d)
    return;
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    if (!pr.module)
      continue;
    if (cudaSetCurrent(s, (int)r, "cuModuleUnload") == cclSuccess)
      d->cuModuleUnload(pr.module);
    pr.module = nullptr;
    pr.functions.clear();
  }
}

cclResult_t cudaUpdateCtx(Shared *s, int rank, PreparedRank *pr,
                          size_t offset, const void *src, size_t size) {
  // devUpload runs on the rank's internal stream: it does not wait for
  // kernels queued on the caller's streams (one of them may be spinning).
  return devUpload(s, rank, static_cast<char *>(pr->ctxDev) + offset, src,
                   size);
}

cclResult_t cudaCopyAsync(Shared *s, int rank, void *dst, const void *src,
                          size_t bytes, cclStream_t stream) {
  const CudaDriver *d = drv();
  RankState &rs = *s->ranks[rank];
  cclResult_t res = cudaCheckStream(s, rank, stream, "copies");
  if (res != cclSuccess)
    return res;
  CUresult cr = d->cuCtxSetCurrent(rs.cuCtx);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuCtxSetCurrent", cr, format("(device %d)", rs.device));
  cr = d->cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(dst),
                            reinterpret_cast<CUdeviceptr>(src), bytes,
                            static_cast<CUstream>(stream));
  if (cr != CUDA_SUCCESS)
    return cuFail("cuMemcpyDtoDAsync", cr,
                  format("(%zu bytes from %p to %p, device %d)", bytes, src,
                         dst, rs.device));
  return cclSuccess;
}

cclResult_t cudaLaunch(Shared *s, int rank, PreparedPlan *pp, size_t kernel,
                       const LaunchBuffers &lb, uint64_t count,
                       cclStream_t stream) {
  const CudaDriver *d = drv();
  RankState &rs = *s->ranks[rank];
  PreparedRank &pr = pp->ranks[rank];
  const ccl_variant *var = pp->variant;
  // The blocks of a rank spin-wait on each other, so all of them must be
  // resident at once: at most one per SM (the verifier checks the same
  // bound at compile time for the target it assumes). Checked before
  // anything is queued.
  if (rs.smCount > 0 && var->nblocks > static_cast<uint32_t>(rs.smCount))
    return setError(cclInvalidUsage,
                    format("the plan runs %u thread blocks per rank, more "
                           "than the %d SMs of device %d; its blocks wait "
                           "on each other and must all be resident "
                           "(compile with fewer --instances)",
                           var->nblocks, rs.smCount, rs.device));
  // All the blocks of all the ranks on this GPU must fit together
  // (checked when the plan was prepared; checked again here, without
  // allocating, before anything is queued).
  uint64_t needed, perSM;
  if (!coResident(s, pp, rank, &needed, &perSM))
    return cudaCheckCoResidency(s, pp, rank);
  cclResult_t res = cudaCheckStream(s, rank, stream, "launches");
  if (res != cclSuccess)
    return res;
  CUresult cr = d->cuCtxSetCurrent(rs.cuCtx);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuCtxSetCurrent", cr, format("(device %d)", rs.device));
  CUstream st = static_cast<CUstream>(stream);
  auto copy = [&](const CopyOp &c, const char *what) -> cclResult_t {
    if (!c.bytes)
      return cclSuccess;
    CUresult e = d->cuMemcpyDtoDAsync(reinterpret_cast<CUdeviceptr>(c.dst),
                                      reinterpret_cast<CUdeviceptr>(c.src),
                                      c.bytes, st);
    if (e != CUDA_SUCCESS)
      return cuFail("cuMemcpyDtoDAsync", e,
                    format("(%s, %" PRIu64 " bytes, device %d)", what,
                           c.bytes, rs.device));
    return cclSuccess;
  };
  res = copy(lb.pre, "copy before the kernel");
  if (res != cclSuccess)
    return res;
  CUdeviceptr ctxArg = reinterpret_cast<CUdeviceptr>(pr.ctxDev);
  CUdeviceptr inArg = reinterpret_cast<CUdeviceptr>(lb.input);
  CUdeviceptr outArg = reinterpret_cast<CUdeviceptr>(lb.output);
  uint64_t countArg = count;
  void *params[4] = {&ctxArg, &inArg, &outArg, &countArg};
  cr = d->cuLaunchKernel(pr.functions[kernel], var->nblocks, 1, 1,
                         var->threads_per_block ? var->threads_per_block : 1,
                         1, 1, 0, st, params, nullptr);
  if (cr != CUDA_SUCCESS)
    return cuFail("cuLaunchKernel", cr,
                  format("(%s, %u blocks x %u threads, device %d)",
                         var->kernels[kernel].symbol, var->nblocks,
                         var->threads_per_block, rs.device));
  return copy(lb.post, "copy after the kernel");
}

cclResult_t cudaStreamSync(Shared *s, int rank, cclStream_t stream) {
  const CudaDriver *d = drv();
  cclResult_t res = cudaSetCurrent(s, rank, "cclCommSynchronize");
  if (res != cclSuccess)
    return res;
  CUresult cr = d->cuStreamSynchronize(static_cast<CUstream>(stream));
  if (cr != CUDA_SUCCESS)
    return cuFail("cuStreamSynchronize", cr,
                  format("(cclCommSynchronize, rank %d, device %d)", rank,
                         s->ranks[rank]->device));
  return cclSuccess;
}

void cudaTeardown(Shared *s) {
  const CudaDriver *d = drv();
  if (!d)
    return;
  for (int r = 0; r < s->nranks; r++) {
    RankState &rs = *s->ranks[r];
    if (rs.internalStream && cudaSetCurrent(s, r, "cclCommDestroy") ==
                                 cclSuccess)
      d->cuStreamDestroy(rs.internalStream);
    rs.internalStream = nullptr;
  }
  if (s->hostMapped) {
    if (s->nranks > 0 && s->ranks[0]->cuCtx)
      cudaSetCurrent(s, 0, "cclCommDestroy");
    d->cuMemFreeHost(s->hostMapped);
    s->hostMapped = nullptr;
  }
  for (int r = 0; r < s->nranks; r++) {
    RankState &rs = *s->ranks[r];
    if (rs.ctxRetained)
      d->cuDevicePrimaryCtxRelease(rs.cuDev);
    rs.ctxRetained = false;
    rs.cuCtx = nullptr;
  }
}

} // namespace cclrt
