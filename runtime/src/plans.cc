// plans.cc - preparing the registered plans for a communicator
// (docs/runtime.md, "Preparing a plan"): the checks of a plan against the
// communicator, its kernels, scratch buffers, counters, tables and
// contexts on every rank, and releasing them.
#include <cinttypes>
#include <cstring>

#include "device.h"

namespace cclrt {
namespace {

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
  Device &dev = *s->device;
  if (cclResult_t r = dev.loadKernels(pp.get()); r != cclSuccess)
    return fail(r, cclGetLastError());
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
      cclResult_t res = dev.allocate(r, sizes[b], &ptr, what.c_str());
      if (res != cclSuccess)
        return fail(res, cclGetLastError());
      pr.scratch.push_back(ptr);
      if ((res = dev.zero(r, ptr, sizes[b])) != cclSuccess)
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
    cclResult_t res = dev.allocate(r, syncWords * sizeof(uint64_t), &pr.sync,
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
    res = credited ? dev.upload(r, pr.sync, initial.data(),
                                syncWords * sizeof(uint64_t))
                   : dev.zero(r, pr.sync, syncWords * sizeof(uint64_t));
    if (res != cclSuccess)
      return fail(res, cclGetLastError());
  }
  for (int r = 0; r < s->nranks; r++) {
    PreparedRank &pr = pp->ranks[r];
    if (nchan) {
      // signal[c]: channel c's counter on its destination rank.
      std::vector<uint64_t *> sig(nchan);
      for (size_t c = 0; c < nchan; c++)
        sig[c] = static_cast<uint64_t *>(pp->ranks[var->channels[c].dst].sync) +
                 c;
      cclResult_t res =
          dev.allocate(r, nchan * sizeof(uint64_t *), &pr.signalTable,
                       format("signal table of rank %d", r).c_str());
      if (res != cclSuccess)
        return fail(res, cclGetLastError());
      if ((res = dev.upload(r, pr.signalTable, sig.data(),
                            nchan * sizeof(uint64_t *))) != cclSuccess)
        return fail(res, cclGetLastError());
    }
    std::vector<void *> table((size_t)var->num_scratch * s->nranks);
    for (uint32_t b = 0; b < var->num_scratch; b++)
      for (int q = 0; q < s->nranks; q++)
        table[(size_t)b * s->nranks + q] = pp->ranks[q].scratch[b];
    cclResult_t res;
    size_t tableBytes = table.size() * sizeof(void *);
    if ((res = dev.allocate(r, tableBytes ? tableBytes : sizeof(void *),
                            &pr.scratchTable,
                            format("scratch table of rank %d", r).c_str())) !=
        cclSuccess)
      return fail(res, cclGetLastError());
    if (tableBytes &&
        (res = dev.upload(r, pr.scratchTable, table.data(), tableBytes)) !=
            cclSuccess)
      return fail(res, cclGetLastError());
    if ((res = dev.allocate(r, 2 * sizeof(uint32_t), &pr.epoch,
                            format("epoch of rank %d", r).c_str())) !=
        cclSuccess)
      return fail(res, cclGetLastError());
    if ((res = dev.zero(r, pr.epoch, 2 * sizeof(uint32_t))) != cclSuccess)
      return fail(res, cclGetLastError());
    if (staging) {
      if ((res = dev.allocate(
               r, staging, &pr.staging,
               format("staging buffer of rank %d", r).c_str())) != cclSuccess)
        return fail(res, cclGetLastError());
    }
    if ((res = initContext(s, pp.get(), r)) != cclSuccess)
      return fail(res, cclGetLastError());
  }
  if (cclResult_t r = dev.startBlocks(*pp); r != cclSuccess)
    return fail(r, cclGetLastError());
  pp->status = PreparedPlan::kReady;
  return pp;
}

} // namespace

void releasePlan(Shared *s, PreparedPlan *pp) {
  Device &dev = *s->device;
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    const int rank = (int)r;
    for (void *b : pr.scratch)
      dev.deallocate(rank, b, "cuMemFree");
    pr.scratch.clear();
    for (void **p : {&pr.scratchTable, &pr.epoch, &pr.ctxDev, &pr.staging,
                     &pr.sync, &pr.signalTable}) {
      dev.deallocate(rank, *p, "cuMemFree");
      *p = nullptr;
    }
  }
  dev.unloadKernels(pp);
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

PreparedPlan *findPrepared(Shared *s, const ccl_plan *plan) {
  std::lock_guard<std::mutex> lk(s->plansMu);
  auto it = s->plans.find(plan);
  return it == s->plans.end() ? nullptr : it->second.get();
}

namespace api {

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

} // namespace api
} // namespace cclrt
