// comm.cc - communicators, plan preparation, memory, synchronisation
// (docs/runtime.md). Launches and asynchronous copies are in launch.cc, the
// exported C functions in api.cc.
#include <cinttypes>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include "internal.h"

namespace cclrt {
namespace {

constexpr uint64_t kDefaultTimeoutMs = 30000;

uint64_t msToNs(uint64_t ms) {
  uint64_t ns;
  if (__builtin_mul_overflow(ms, 1000000ull, &ns))
    return UINT64_MAX;
  return ns;
}

uint64_t defaultTimeoutNs() {
  const char *env = getenv("CCL_TIMEOUT_MS");
  if (env && *env) {
    char *end = nullptr;
    unsigned long long v = strtoull(env, &end, 10);
    if (end && *end == '\0')
      return msToNs(v);
    fprintf(stderr,
            "libcclrt: ignoring CCL_TIMEOUT_MS=\"%s\" (not a number of "
            "milliseconds); using %" PRIu64 " ms\n",
            env, kDefaultTimeoutMs);
  }
  return msToNs(kDefaultTimeoutMs);
}

// Bytes of one scratch buffer for the largest message the plan supports
// (see ccl_scratch_info). The slot size depends on the element size through
// the rounding of ceil(count / chunks), so take the largest over the element
// sizes there are (2 and 4 bytes), each at its largest count.
bool scratchBytes(const ccl_plan *p, const ccl_scratch_info &si,
                  uint64_t *out) {
  uint64_t best = 0;
  const uint64_t k = p->chunks ? p->chunks : 1;
  for (uint64_t esize : {2ull, 4ull}) {
    uint64_t count = p->max_bytes / esize;
    uint64_t unit = count / k + (count % k != 0);
    uint64_t slot = unit * esize; // <= max_bytes + esize: no overflow
    if (si.packets)
      slot = (slot + 7) / 8 * 16;
    uint64_t total;
    if (__builtin_mul_overflow(slot, (uint64_t)si.slots, &total) ||
        __builtin_mul_overflow(total, si.packets ? 2ull : 1ull, &total))
      return false;
    if (total > best)
      best = total;
  }
  *out = best;
  return true;
}

void releasePlan(Shared *s, PreparedPlan *pp) {
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    for (void *b : pr.scratch)
      devFree(s, (int)r, b);
    pr.scratch.clear();
    devFree(s, (int)r, pr.scratchTable);
    devFree(s, (int)r, pr.epoch);
    devFree(s, (int)r, pr.ctxDev);
    devFree(s, (int)r, pr.staging);
    devFree(s, (int)r, pr.sync);
    devFree(s, (int)r, pr.signalTable);
    pr.scratchTable = pr.epoch = pr.ctxDev = pr.staging = nullptr;
    pr.sync = pr.signalTable = nullptr;
  }
  if (s->target == cclTargetCuda)
    cudaUnloadModules(s, pp);
}

// Prepares `p` for every rank of `s`. Never fails as a whole: the outcome is
// recorded in the returned PreparedPlan (reported by launches).
std::unique_ptr<PreparedPlan> preparePlan(Shared *s, const ccl_plan *p) {
  auto pp = std::make_unique<PreparedPlan>();
  pp->plan = p;
  const std::string alg = planName(p);
  if (p->abi_version != CCL_PLAN_ABI_VERSION) {
    pp->status = PreparedPlan::kWrongAbi;
    pp->failCode = cclUnsupported;
    pp->message = format("library for algorithm %s was built against plan ABI "
                         "version %u, but this libcclrt implements version "
                         "%u; rebuild it with a cclc that matches libcclrt",
                         alg.c_str(), p->abi_version, CCL_PLAN_ABI_VERSION);
    return pp;
  }
  if (p->target != (uint32_t)s->target) {
    pp->status = PreparedPlan::kWrongTarget;
    pp->failCode = cclUnsupported;
    pp->message = format("library for algorithm %s was built for target %s, "
                         "but the communicator is %s",
                         alg.c_str(), targetName(p->target),
                         targetName(s->target));
    return pp;
  }
  for (uint32_t v = 0; v < p->num_variants; v++)
    if (p->variants[v].nranks == (uint32_t)s->nranks) {
      pp->variant = &p->variants[v];
      break;
    }
  if (!pp->variant) {
    std::string list;
    for (uint32_t v = 0; v < p->num_variants; v++) {
      if (v)
        list += ", ";
      list += std::to_string(p->variants[v].nranks);
    }
    pp->status = PreparedPlan::kNoVariant;
    pp->failCode = cclUnsupported;
    pp->message = format(
        "algorithm %s has no kernel for %d ranks (compiled for %s %s); "
        "recompile with cclc --nranks=%d",
        alg.c_str(), s->nranks, p->num_variants == 1 ? "rank count" : "rank counts",
        list.empty() ? "no rank count" : list.c_str(), s->nranks);
    return pp;
  }
  const ccl_variant *var = pp->variant;
  auto fail = [&](cclResult_t code, const std::string &msg) {
    releasePlan(s, pp.get());
    pp->status = PreparedPlan::kFailed;
    pp->failCode = code;
    pp->message = format("preparing algorithm %s failed: ", alg.c_str()) + msg;
    return std::move(pp);
  };
  if (var->nblocks == 0)
    return fail(cclInvalidArgument, "its variant for " +
                                        std::to_string(var->nranks) +
                                        " ranks has 0 thread blocks");
  for (uint32_t c = 0; c < var->num_channels; c++) {
    const ccl_channel_info &ch = var->channels[c];
    if (ch.src >= (uint32_t)s->nranks || ch.dst >= (uint32_t)s->nranks ||
        ch.src == ch.dst)
      return fail(cclInvalidArgument,
                  format("its channel %u connects rank %u to rank %u, which "
                         "is not a pair of distinct ranks of %d",
                         c, ch.src, ch.dst, s->nranks));
    if (ch.kind != CCL_CHANNEL_MEMORY)
      return fail(cclUnsupported,
                  format("its channel %u (%u -> %u) is a port channel; this "
                         "libcclrt supports memory channels only",
                         c, ch.src, ch.dst));
  }
  for (uint32_t i = 0; i < var->num_semaphores; i++)
    if (var->semaphores[i].rank >= (uint32_t)s->nranks)
      return fail(cclInvalidArgument,
                  format("its semaphore %u is on rank %u, which does not "
                         "exist",
                         i, var->semaphores[i].rank));
  for (uint32_t i = 0; i < var->num_barriers; i++)
    if (var->barriers[i].rank >= (uint32_t)s->nranks ||
        var->barriers[i].nblocks == 0 ||
        var->barriers[i].nblocks > var->nblocks)
      return fail(cclInvalidArgument,
                  format("its barrier %u (rank %u, %u blocks) does not fit "
                         "the variant (%d ranks, %u blocks)",
                         i, var->barriers[i].rank, var->barriers[i].nblocks,
                         s->nranks, var->nblocks));
  pp->ranks.resize(s->nranks);
  if (s->target == cclTargetHost) {
    for (uint32_t k = 0; k < var->num_kernels; k++)
      if (!var->kernels[k].host_fn)
        return fail(cclInvalidArgument,
                    format("its %s/%s kernel has no host function",
                           dtypeName(var->kernels[k].dtype),
                           opName(var->kernels[k].redop)));
  } else {
    cclResult_t r = cudaPrepareModules(s, pp.get());
    if (r == cclSuccess)
      r = cudaCheckCoResidency(s, pp.get(), -1);
    if (r != cclSuccess)
      return fail(r, cclGetLastError());
  }
  uint64_t staging = 0;
  if (!stagingBytes(p, s->nranks, &staging))
    return fail(cclInvalidArgument,
                format("its staging buffer (%d x %" PRIu64
                       " bytes) is too large to address",
                       s->nranks, p->max_bytes));
  // Scratch buffers of every rank (the tables need all of them).
  std::vector<uint64_t> sizes(var->num_scratch);
  for (uint32_t b = 0; b < var->num_scratch; b++)
    if (!scratchBytes(p, var->scratch[b], &sizes[b]))
      return fail(cclInvalidArgument,
                  format("scratch buffer %s is too large to address",
                         var->scratch[b].name ? var->scratch[b].name : "?"));
  for (int r = 0; r < s->nranks; r++) {
    PreparedRank &pr = pp->ranks[r];
    for (uint32_t b = 0; b < var->num_scratch; b++) {
      void *ptr = nullptr;
      std::string what = format("scratch buffer %s of rank %d",
                                var->scratch[b].name ? var->scratch[b].name
                                                     : "?",
                                r);
      cclResult_t res = devAlloc(s, r, sizes[b], &ptr, what.c_str());
      if (res != cclSuccess)
        return fail(res, cclGetLastError());
      pr.scratch.push_back(ptr);
      if ((res = devZero(s, r, ptr, sizes[b])) != cclSuccess)
        return fail(res, cclGetLastError());
    }
  }
  // Simple-protocol counters of every rank (the signal tables need all of
  // them): set here, never reset afterwards. All start at 0 except the
  // signal counter of a channel with credit (ABI 3), which starts at the
  // credit on the channel's destination rank: its first `credit` waits
  // return at once.
  const size_t nchan = var->num_channels;
  const size_t syncWords =
      2 * nchan + 2 * (size_t)var->num_semaphores + var->num_barriers;
  std::vector<uint64_t> initial(syncWords);
  for (int r = 0; r < s->nranks && syncWords; r++) {
    PreparedRank &pr = pp->ranks[r];
    cclResult_t res = devAlloc(s, r, syncWords * sizeof(uint64_t), &pr.sync,
                               format("signal and semaphore counters of "
                                      "rank %d",
                                      r)
                                   .c_str());
    if (res != cclSuccess)
      return fail(res, cclGetLastError());
    bool credited = false;
    for (size_t c = 0; c < nchan; c++) {
      const ccl_channel_info &ch = var->channels[c];
      initial[c] = ch.dst == (uint32_t)r ? ch.credit : 0;
      credited |= initial[c] != 0;
    }
    res = credited ? devUpload(s, r, pr.sync, initial.data(),
                               syncWords * sizeof(uint64_t))
                   : devZero(s, r, pr.sync, syncWords * sizeof(uint64_t));
    if (res != cclSuccess)
      return fail(res, cclGetLastError());
  }
  for (int r = 0; r < s->nranks; r++) {
    PreparedRank &pr = pp->ranks[r];
    RankState &rs = *s->ranks[r];
    if (nchan) {
      // signal[c]: channel c's counter on its destination rank.
      std::vector<uint64_t *> sig(nchan);
      for (size_t c = 0; c < nchan; c++)
        sig[c] = static_cast<uint64_t *>(pp->ranks[var->channels[c].dst].sync) +
                 c;
      cclResult_t res = devAlloc(s, r, nchan * sizeof(uint64_t *),
                                 &pr.signalTable,
                                 format("signal table of rank %d", r).c_str());
      if (res != cclSuccess)
        return fail(res, cclGetLastError());
      if ((res = devUpload(s, r, pr.signalTable, sig.data(),
                           nchan * sizeof(uint64_t *))) != cclSuccess)
        return fail(res, cclGetLastError());
    }
    std::vector<void *> table((size_t)var->num_scratch * s->nranks);
    for (uint32_t b = 0; b < var->num_scratch; b++)
      for (int q = 0; q < s->nranks; q++)
        table[(size_t)b * s->nranks + q] = pp->ranks[q].scratch[b];
    cclResult_t res;
    size_t tableBytes = table.size() * sizeof(void *);
    if ((res = devAlloc(s, r, tableBytes ? tableBytes : sizeof(void *),
                        &pr.scratchTable,
                        format("scratch table of rank %d", r).c_str())) !=
        cclSuccess)
      return fail(res, cclGetLastError());
    if (tableBytes &&
        (res = devUpload(s, r, pr.scratchTable, table.data(), tableBytes)) !=
            cclSuccess)
      return fail(res, cclGetLastError());
    if ((res = devAlloc(s, r, 2 * sizeof(uint32_t), &pr.epoch,
                        format("epoch of rank %d", r).c_str())) != cclSuccess)
      return fail(res, cclGetLastError());
    if ((res = devZero(s, r, pr.epoch, 2 * sizeof(uint32_t))) != cclSuccess)
      return fail(res, cclGetLastError());
    if (staging) {
      if ((res = devAlloc(s, r, staging, &pr.staging,
                          format("staging buffer of rank %d", r).c_str())) !=
          cclSuccess)
        return fail(res, cclGetLastError());
    }
    pr.ctx = std::make_unique<ccl_dev_ctx>();
    ccl_dev_ctx &c = *pr.ctx;
    memset(&c, 0, sizeof c);
    c.rank = r;
    c.nranks = s->nranks;
    c.nblocks = var->nblocks;
    c.num_scratch = var->num_scratch;
    c.timeout_ns = rs.timeoutNs;
    c.delay_ns = rs.delayNs;
    c.delay_block = rs.delayBlock;
    c.epoch = static_cast<uint32_t *>(pr.epoch);
    c.scratch = static_cast<void *const *>(pr.scratchTable);
    c.num_channels = var->num_channels;
    c.num_semaphores = var->num_semaphores;
    c.num_barriers = var->num_barriers;
    if (pr.sync) {
      uint64_t *w = static_cast<uint64_t *>(pr.sync);
      c.signal = static_cast<uint64_t *const *>(pr.signalTable);
      c.consumed = w + nchan;
      c.sem = w + 2 * nchan;
      c.barrier = w + 2 * nchan + 2 * (size_t)var->num_semaphores;
    }
    if (s->target == cclTargetHost) {
      c.abort_flag = s->abortFlag;
      c.error = s->error;
    } else {
      c.abort_flag = reinterpret_cast<volatile uint32_t *>(rs.abortFlagDev);
      c.error = reinterpret_cast<ccl_error_record *>(rs.errorDev);
      if ((res = devAlloc(s, r, sizeof(ccl_dev_ctx), &pr.ctxDev,
                          format("context of rank %d", r).c_str())) !=
          cclSuccess)
        return fail(res, cclGetLastError());
      if ((res = devUpload(s, r, pr.ctxDev, &c, sizeof c)) != cclSuccess)
        return fail(res, cclGetLastError());
    }
  }
  if (s->target == cclTargetHost) {
    for (int r = 0; r < s->nranks; r++) {
      try {
        s->ranks[r]->host->ensureBlocks(var->nblocks);
      } catch (const std::system_error &e) {
        return fail(cclSystemError,
                    format("could not start %u thread-block threads for rank "
                           "%d: %s",
                           var->nblocks, r, e.what()));
      }
    }
  }
  pp->status = PreparedPlan::kReady;
  return pp;
}

// Prepares every registered plan not prepared yet. Returns the first
// failure of a plan of this target (it is also remembered for launches).
cclResult_t loadPlans(Shared *s, std::string *firstError) {
  std::lock_guard<std::mutex> prep(s->prepMu);
  cclResult_t first = cclSuccess;
  for (const ccl_plan *p : registeredPlans()) {
    {
      std::lock_guard<std::mutex> lk(s->plansMu);
      if (s->plans.count(p))
        continue;
    }
    std::unique_ptr<PreparedPlan> pp = preparePlan(s, p);
    if (first == cclSuccess && (pp->status == PreparedPlan::kFailed ||
                                pp->status == PreparedPlan::kWrongAbi)) {
      first = pp->failCode;
      *firstError = pp->message;
    }
    std::lock_guard<std::mutex> lk(s->plansMu);
    s->plans[p] = std::move(pp);
  }
  return first;
}

void teardown(Shared *s) {
  // Stop the host workers first: they finish their queued work.
  for (auto &rs : s->ranks)
    rs->host.reset();
  if (s->target == cclTargetCuda) {
    for (int r = 0; r < s->nranks; r++) {
      RankState &rs = *s->ranks[r];
      if (rs.cuCtx && cudaSetCurrent(s, r, "cclCommDestroy") == cclSuccess) {
        std::string e;
        const CudaDriver *d = cudaDriver(&e, nullptr);
        if (d)
          d->cuCtxSynchronize();
      }
    }
  }
  for (auto &kv : s->plans)
    releasePlan(s, kv.second.get());
  s->plans.clear();
  if (s->target == cclTargetHost)
    free(s->hostMapped);
  s->hostMapped = nullptr;
  if (s->target == cclTargetCuda)
    cudaTeardown(s);
  for (cclComm *h : s->handles)
    delete h;
  delete s;
}

} // namespace

std::string planName(const ccl_plan *p) {
  return p && p->algorithm ? p->algorithm : "(unnamed)";
}

// Describes the communicator's asynchronous error (the abort flag is set).
std::string describeAsyncError(Shared *s) {
  volatile ccl_error_record *e = s->error;
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  ccl_error_record rec;
  rec.state = e->state;
  rec.rank = e->rank;
  rec.block = e->block;
  rec.op_id = e->op_id;
  rec.expected = e->expected;
  rec.observed = e->observed;
  rec.waited_ns = e->waited_ns;
  if (rec.state != CCL_ERR_TIMEOUT)
    return format("the communicator was aborted (abort flag raised, error "
                  "record state %u)",
                  rec.state);
  const ccl_plan *p = nullptr;
  if (rec.rank < (uint32_t)s->nranks)
    p = s->ranks[rec.rank]->lastPlan.load();
  for (int r = 0; !p && r < s->nranks; r++)
    p = s->ranks[r]->lastPlan.load();
  std::string block = rec.block == 0xFFFFFFFFu
                          ? std::string("thread block ?")
                          : format("thread block %u", rec.block);
  std::string where;
  if (!p) {
    where = format("in operation %u (no launch recorded to map it to a "
                   "source line)",
                   rec.op_id);
  } else if (rec.op_id >= p->num_ops || !p->ops) {
    where = format("in operation %u (out of range: algorithm %s has %u "
                   "operations)",
                   rec.op_id, planName(p).c_str(), p->num_ops);
  } else {
    const ccl_op_info &op = p->ops[rec.op_id];
    where = format("in %s at %s:%u:%u (algorithm %s)", op.kind ? op.kind : "?",
                   op.file ? op.file : (p->source ? p->source : "?"), op.line,
                   op.col, planName(p).c_str());
  }
  // What the wait waited for, by the kind of operation (counters are
  // cumulative over calls and reported by their low 32 bits).
  std::string kind;
  if (p && rec.op_id < p->num_ops && p->ops && p->ops[rec.op_id].kind)
    kind = p->ops[rec.op_id].kind;
  std::string what;
  if (kind == "wait")
    what = format("waited for signal %u on its channel, %u had arrived",
                  rec.expected, rec.observed);
  else if (kind == "acquire")
    what = format("waited for release %u of the semaphore, %u had happened",
                  rec.expected, rec.observed);
  else if (kind == "tb_barrier")
    what = format("waited for %u arrivals at the barrier, %u had arrived",
                  rec.expected, rec.observed);
  else
    what = format("waited for flag %u, last saw %u", rec.expected,
                  rec.observed);
  return format("rank %u %s timed out after %.2f s %s: %s; the communicator "
                "is aborted",
                rec.rank, block.c_str(), rec.waited_ns / 1e9, where.c_str(),
                what.c_str());
}

bool aborted(Shared *s) {
  return __atomic_load_n(const_cast<uint32_t *>(s->abortFlag),
                         __ATOMIC_ACQUIRE) != 0;
}

// Common checks of a communicator handle.
cclResult_t checkComm(cclComm_t comm, const char *fn) {
  if (!comm)
    return setError(cclInvalidArgument, format("%s: comm is NULL", fn));
  if (comm->shared->ranks[comm->rank]->destroyed.load())
    return setError(cclInvalidUsage,
                    format("%s(rank %d): the communicator handle was "
                           "destroyed",
                           fn, comm->rank));
  return cclSuccess;
}


// ---------------------------------------------------------------------------
// Device memory helpers.
// ---------------------------------------------------------------------------
cclResult_t devAlloc(Shared *s, int rank, size_t bytes, void **ptr,
                     const char *what) {
  *ptr = nullptr;
  if (s->target == cclTargetHost) {
    size_t n = (bytes + 63) / 64 * 64;
    if (n == 0)
      n = 64;
    void *p = aligned_alloc(64, n);
    if (!p)
      return setError(cclSystemError,
                      format("allocating %zu bytes for %s failed: out of host "
                             "memory",
                             bytes, what));
    *ptr = p;
    return cclSuccess;
  }
  std::string err;
  const CudaDriver *d = cudaDriver(&err, nullptr);
  if (!d)
    return setError(cclNoDevice, err);
  cclResult_t r = cudaSetCurrent(s, rank, "cuMemAlloc");
  if (r != cclSuccess)
    return r;
  CUdeviceptr dp = 0;
  CUresult cr = d->cuMemAlloc(&dp, bytes ? bytes : 1);
  if (cr != CUDA_SUCCESS)
    return setError(cclDriverError,
                    format("cuMemAlloc(%zu bytes) for %s on device %d "
                           "failed: %s",
                           bytes, what, s->ranks[rank]->device,
                           cuErrorString(cr).c_str()));
  *ptr = reinterpret_cast<void *>(dp);
  return cclSuccess;
}

void devFree(Shared *s, int rank, void *ptr) {
  if (!ptr)
    return;
  if (s->target == cclTargetHost) {
    free(ptr);
    return;
  }
  const CudaDriver *d = cudaDriver(nullptr, nullptr);
  if (!d || cudaSetCurrent(s, rank, "cuMemFree") != cclSuccess)
    return;
  d->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
}

// devZero, devUpload and devDownload run on the rank's internal
// (non-blocking) stream and return only when the device has finished. The
// synchronous driver calls are not enough: cuMemcpyHtoD from pageable
// memory returns once the data is staged, before the DMA lands, and
// cuMemsetD8 is asynchronous; neither is ordered with kernels on the
// caller's non-blocking streams, so a collective launched right after could
// read stale input. None of them waits for work on the caller's streams.
namespace {
/// Waits for `issued`, the result of `call` just queued on the rank's
/// internal stream; reports either failure.
cclResult_t finishOnInternalStream(Shared *s, int rank, const char *call,
                                   size_t bytes, CUresult issued) {
  CUresult cr = issued;
  if (cr == CUDA_SUCCESS) {
    cr = cudaDriver(nullptr, nullptr)
             ->cuStreamSynchronize(s->ranks[rank]->internalStream);
    call = "cuStreamSynchronize";
  }
  if (cr != CUDA_SUCCESS)
    return setError(cclDriverError,
                    format("%s(%zu bytes) on device %d failed: %s", call,
                           bytes, s->ranks[rank]->device,
                           cuErrorString(cr).c_str()));
  return cclSuccess;
}
} // namespace

cclResult_t devZero(Shared *s, int rank, void *ptr, size_t bytes) {
  if (!bytes)
    return cclSuccess;
  if (s->target == cclTargetHost) {
    memset(ptr, 0, bytes);
    return cclSuccess;
  }
  const char *call = "cuMemsetD8Async";
  cclResult_t r = cudaSetCurrent(s, rank, call);
  if (r != cclSuccess)
    return r;
  return finishOnInternalStream(
      s, rank, call, bytes,
      cudaDriver(nullptr, nullptr)
          ->cuMemsetD8Async(reinterpret_cast<CUdeviceptr>(ptr), 0, bytes,
                            s->ranks[rank]->internalStream));
}

cclResult_t devUpload(Shared *s, int rank, void *dst, const void *src,
                      size_t bytes) {
  if (!bytes)
    return cclSuccess;
  if (s->target == cclTargetHost) {
    memcpy(dst, src, bytes);
    return cclSuccess;
  }
  const char *call = "cuMemcpyHtoDAsync";
  cclResult_t r = cudaSetCurrent(s, rank, call);
  if (r != cclSuccess)
    return r;
  return finishOnInternalStream(
      s, rank, call, bytes,
      cudaDriver(nullptr, nullptr)
          ->cuMemcpyHtoDAsync(reinterpret_cast<CUdeviceptr>(dst), src, bytes,
                              s->ranks[rank]->internalStream));
}

cclResult_t devDownload(Shared *s, int rank, void *dst, const void *src,
                        size_t bytes) {
  if (!bytes)
    return cclSuccess;
  if (s->target == cclTargetHost) {
    memcpy(dst, src, bytes);
    return cclSuccess;
  }
  const char *call = "cuMemcpyDtoHAsync";
  cclResult_t r = cudaSetCurrent(s, rank, call);
  if (r != cclSuccess)
    return r;
  return finishOnInternalStream(
      s, rank, call, bytes,
      cudaDriver(nullptr, nullptr)
          ->cuMemcpyDtoHAsync(dst, reinterpret_cast<CUdeviceptr>(src), bytes,
                              s->ranks[rank]->internalStream));
}

// ---------------------------------------------------------------------------
// The public API: the bodies of the ccl* functions, which api.cc exports
// (it catches exceptions at the boundary).
// ---------------------------------------------------------------------------
namespace api {

cclResult_t cclCommInitAllInProcess(cclComm_t *comms, int nranks,
                                    cclTarget_t target, const int *devices) {
  const char *fn = "cclCommInitAllInProcess";
  if (!comms)
    return setError(cclInvalidArgument, format("%s: comms is NULL", fn));
  if (nranks < 1)
    return setError(cclInvalidArgument,
                    format("%s: nranks is %d; it must be at least 1", fn,
                           nranks));
  for (int r = 0; r < nranks; r++)
    comms[r] = nullptr;
  if (target != cclTargetHost && target != cclTargetCuda)
    return setError(cclInvalidArgument,
                    format("%s: unknown target %d (expected cclTargetHost or "
                           "cclTargetCuda)",
                           fn, (int)target));
  if (target == cclTargetHost && devices)
    return setError(cclInvalidArgument,
                    format("%s: devices must be NULL for the host target", fn));
  Shared *s = new Shared();
  s->nranks = nranks;
  s->target = target;
  CtxGuard guard(s);
  uint64_t timeout = defaultTimeoutNs();
  for (int r = 0; r < nranks; r++) {
    s->ranks.push_back(std::make_unique<RankState>());
    s->ranks[r]->rank = r;
    s->ranks[r]->timeoutNs = timeout;
  }
  if (target == cclTargetHost) {
    s->hostMapped = aligned_alloc(64, 64);
    if (!s->hostMapped) {
      delete s;
      return setError(cclSystemError, format("%s: out of host memory", fn));
    }
    memset(s->hostMapped, 0, 64);
    for (int r = 0; r < nranks; r++) {
      try {
        s->ranks[r]->host = std::make_unique<HostRank>(r);
        s->ranks[r]->host->start();
      } catch (const std::system_error &e) {
        teardown(s);
        return setError(cclSystemError,
                        format("%s: could not start the worker thread of "
                               "rank %d: %s",
                               fn, r, e.what()));
      }
    }
  } else {
    cclResult_t r = cudaInitComm(s, devices);
    if (r != cclSuccess) {
      std::string msg = cclGetLastError();
      teardown(s);
      return setError(r, std::string(fn) + ": " + msg);
    }
  }
  s->abortFlag = static_cast<volatile uint32_t *>(s->hostMapped);
  s->error = reinterpret_cast<ccl_error_record *>(
      static_cast<char *>(s->hostMapped) + 8);
  // Plans are prepared once the abort flag and error record exist.
  std::string firstError;
  loadPlans(s, &firstError); // failures are remembered per plan
  s->liveHandles = nranks;
  for (int r = 0; r < nranks; r++) {
    comms[r] = new cclComm{s, r};
    s->handles.push_back(comms[r]);
  }
  return cclSuccess;
}

cclResult_t cclCommDestroy(cclComm_t comm) {
  cclResult_t r = checkComm(comm, "cclCommDestroy");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  CtxGuard guard(s);
  s->ranks[comm->rank]->destroyed = true;
  if (--s->liveHandles == 0)
    teardown(s);
  return cclSuccess;
}

namespace {
/// The common shape of the getters: check the handle and the out pointer,
/// then store what `get` reads from the communicator.
template <typename T, typename Get>
cclResult_t commQuery(cclComm_t comm, T *out, const char *fn,
                             const char *what, Get get) {
  cclResult_t r = checkComm(comm, fn);
  if (r != cclSuccess)
    return r;
  if (!out)
    return setError(cclInvalidArgument, format("%s: %s is NULL", fn, what));
  *out = get(comm);
  return cclSuccess;
}
} // namespace

cclResult_t cclCommRank(cclComm_t comm, int *rank) {
  return commQuery(comm, rank, "cclCommRank", "rank",
                   [](cclComm_t c) { return c->rank; });
}

cclResult_t cclCommCount(cclComm_t comm, int *nranks) {
  return commQuery(comm, nranks, "cclCommCount", "nranks",
                   [](cclComm_t c) { return c->shared->nranks; });
}

cclResult_t cclCommTarget(cclComm_t comm, cclTarget_t *target) {
  return commQuery(comm, target, "cclCommTarget", "target",
                   [](cclComm_t c) { return c->shared->target; });
}

cclResult_t cclCommDevice(cclComm_t comm, int *device) {
  return commQuery(comm, device, "cclCommDevice", "device", [](cclComm_t c) {
    return c->shared->ranks[c->rank]->device;
  });
}

cclResult_t cclCommLoadRegisteredPlans(cclComm_t comm) {
  cclResult_t r = checkComm(comm, "cclCommLoadRegisteredPlans");
  if (r != cclSuccess)
    return r;
  std::string err;
  CtxGuard guard(comm->shared);
  r = loadPlans(comm->shared, &err);
  if (r != cclSuccess)
    return setError(r, format("cclCommLoadRegisteredPlans(rank %d): ",
                              comm->rank) +
                           err);
  return cclSuccess;
}

cclResult_t cclCommGetAsyncError(cclComm_t comm) {
  cclResult_t r = checkComm(comm, "cclCommGetAsyncError");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  if (!aborted(s))
    return cclSuccess;
  return setError(cclTimeout, format("cclCommGetAsyncError(rank %d): ",
                                     comm->rank) +
                                  describeAsyncError(s));
}

cclResult_t cclCommSynchronize(cclComm_t comm, cclStream_t stream) {
  cclResult_t r = checkComm(comm, "cclCommSynchronize");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  RankState &rs = *s->ranks[comm->rank];
  CtxGuard guard(s);
  if (s->target == cclTargetHost) {
    if (stream)
      return setError(cclInvalidArgument,
                      format("cclCommSynchronize(rank %d): stream must be "
                             "NULL on the host target",
                             comm->rank));
    rs.host->drain();
  } else {
    r = cudaStreamSync(s, comm->rank, stream);
    if (r != cclSuccess) {
      // A failed kernel may still have left a timeout record: prefer it.
      if (!aborted(s))
        return r;
    }
  }
  if (aborted(s))
    return setError(cclTimeout, format("cclCommSynchronize(rank %d): ",
                                       comm->rank) +
                                    describeAsyncError(s));
  return cclSuccess;
}

// Applies `update` to rank `rank`'s context in every prepared plan (the
// caller holds prepMu, so no plan is being prepared meanwhile); an error
// names `what`, the rank and the algorithm.
template <typename F>
static cclResult_t updatePreparedContexts(Shared *s, int rank, const char *what,
                                          F update) {
  std::lock_guard<std::mutex> lk(s->plansMu);
  for (auto &kv : s->plans) {
    PreparedPlan &pp = *kv.second;
    if (pp.status != PreparedPlan::kReady)
      continue;
    cclResult_t r = update(pp.ranks[rank]);
    if (r != cclSuccess)
      return setError(r, format("%s(rank %d, algorithm %s): ", what, rank,
                                planName(pp.plan).c_str()) +
                             cclGetLastError());
  }
  return cclSuccess;
}

cclResult_t cclCommSetTimeout(cclComm_t comm, uint64_t timeout_ms) {
  cclResult_t r = checkComm(comm, "cclCommSetTimeout");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  int rank = comm->rank;
  uint64_t ns = msToNs(timeout_ms);
  CtxGuard guard(s);
  std::lock_guard<std::mutex> prep(s->prepMu);
  s->ranks[rank]->timeoutNs = ns;
  return updatePreparedContexts(
      s, rank, "cclCommSetTimeout", [&](PreparedRank &pr) {
        if (s->target == cclTargetHost) {
          __atomic_store_n(&pr.ctx->timeout_ns, ns, __ATOMIC_RELAXED);
          return cclSuccess;
        }
        pr.ctx->timeout_ns = ns;
        return cudaUpdateCtx(s, rank, &pr, offsetof(ccl_dev_ctx, timeout_ns),
                             &ns, sizeof ns);
      });
}

cclResult_t cclCommDebugSetDelay(cclComm_t comm, int block,
                                 uint64_t delay_ns) {
  cclResult_t r = checkComm(comm, "cclCommDebugSetDelay");
  if (r != cclSuccess)
    return r;
  Shared *s = comm->shared;
  const int rank = comm->rank;
  if (block < -1)
    return setError(cclInvalidArgument,
                    format("cclCommDebugSetDelay(rank %d): block is %d; it "
                           "must be a thread block index (0, 1, ...) or -1 "
                           "for every block",
                           rank, block));
  const uint32_t sel = block == -1 ? CCL_DELAY_ALL_BLOCKS : (uint32_t)block;
  CtxGuard guard(s);
  // Like cclCommSetTimeout: the rank's setting (for plans prepared later)
  // and the context of every prepared plan (read by __ccl_begin at run
  // time, so CUDA graph replays see it too).
  std::lock_guard<std::mutex> prep(s->prepMu);
  s->ranks[rank]->delayNs = delay_ns;
  s->ranks[rank]->delayBlock = sel;
  return updatePreparedContexts(
      s, rank, "cclCommDebugSetDelay", [&](PreparedRank &pr) {
        if (s->target == cclTargetHost) {
          // Off first, so that a block starting meanwhile never pairs the
          // new delay with the old block (or the reverse).
          __atomic_store_n(&pr.ctx->delay_ns, 0, __ATOMIC_RELAXED);
          __atomic_store_n(&pr.ctx->delay_block, sel, __ATOMIC_RELAXED);
          __atomic_store_n(&pr.ctx->delay_ns, delay_ns, __ATOMIC_RELEASE);
          return cclSuccess;
        }
        pr.ctx->delay_ns = delay_ns;
        pr.ctx->delay_block = sel;
        // delay_ns, delay_block and reserved1: one 16-byte write.
        static_assert(offsetof(ccl_dev_ctx, delay_block) ==
                              offsetof(ccl_dev_ctx, delay_ns) + 8 &&
                          sizeof(ccl_dev_ctx) ==
                              offsetof(ccl_dev_ctx, delay_ns) + 16,
                      "the delay fields end the context");
        return cudaUpdateCtx(s, rank, &pr, offsetof(ccl_dev_ctx, delay_ns),
                             &pr.ctx->delay_ns, 16);
      });
}

cclResult_t cclCommDebugSkipLaunches(cclComm_t comm, int skip) {
  cclResult_t r = checkComm(comm, "cclCommDebugSkipLaunches");
  if (r != cclSuccess)
    return r;
  comm->shared->ranks[comm->rank]->skip = skip ? 1 : 0;
  return cclSuccess;
}

cclResult_t cclMemAlloc(cclComm_t comm, void **ptr, size_t bytes) {
  cclResult_t r = checkComm(comm, "cclMemAlloc");
  if (r != cclSuccess)
    return r;
  if (!ptr)
    return setError(cclInvalidArgument, "cclMemAlloc: ptr is NULL");
  *ptr = nullptr;
  if (bytes == 0)
    return cclSuccess;
  CtxGuard guard(comm->shared);
  r = devAlloc(comm->shared, comm->rank, bytes, ptr, "cclMemAlloc");
  if (r != cclSuccess)
    return setError(r, format("cclMemAlloc(rank %d): ", comm->rank) +
                           cclGetLastError());
  return cclSuccess;
}

cclResult_t cclMemFree(cclComm_t comm, void *ptr) {
  cclResult_t r = checkComm(comm, "cclMemFree");
  if (r != cclSuccess)
    return r;
  if (!ptr)
    return cclSuccess;
  Shared *s = comm->shared;
  if (s->target == cclTargetHost) {
    free(ptr);
    return cclSuccess;
  }
  std::string err;
  const CudaDriver *d = cudaDriver(&err, nullptr);
  if (!d)
    return setError(cclNoDevice, err);
  CtxGuard guard(s);
  if ((r = cudaSetCurrent(s, comm->rank, "cclMemFree")) != cclSuccess)
    return r;
  CUresult cr = d->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  if (cr != CUDA_SUCCESS)
    return setError(cclDriverError,
                    format("cclMemFree(rank %d): cuMemFree(%p) failed: %s",
                           comm->rank, ptr, cuErrorString(cr).c_str()));
  return cclSuccess;
}

cclResult_t cclMemcpyToDevice(cclComm_t comm, void *dst, const void *src,
                              size_t bytes) {
  cclResult_t r = checkComm(comm, "cclMemcpyToDevice");
  if (r != cclSuccess)
    return r;
  if (bytes && (!dst || !src))
    return setError(cclInvalidArgument,
                    format("cclMemcpyToDevice(rank %d): NULL %s with %zu "
                           "bytes",
                           comm->rank, dst ? "src" : "dst", bytes));
  CtxGuard guard(comm->shared);
  r = devUpload(comm->shared, comm->rank, dst, src, bytes);
  if (r != cclSuccess)
    return setError(r, format("cclMemcpyToDevice(rank %d): ", comm->rank) +
                           cclGetLastError());
  return cclSuccess;
}

cclResult_t cclMemcpyFromDevice(cclComm_t comm, void *dst, const void *src,
                                size_t bytes) {
  cclResult_t r = checkComm(comm, "cclMemcpyFromDevice");
  if (r != cclSuccess)
    return r;
  if (bytes && (!dst || !src))
    return setError(cclInvalidArgument,
                    format("cclMemcpyFromDevice(rank %d): NULL %s with %zu "
                           "bytes",
                           comm->rank, dst ? "src" : "dst", bytes));
  CtxGuard guard(comm->shared);
  r = devDownload(comm->shared, comm->rank, dst, src, bytes);
  if (r != cclSuccess)
    return setError(r, format("cclMemcpyFromDevice(rank %d): ", comm->rank) +
                           cclGetLastError());
  return cclSuccess;
}

} // namespace api
} // namespace cclrt
