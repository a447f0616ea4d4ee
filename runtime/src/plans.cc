// plans.cc - preparing the registered plans for a communicator
// (docs/runtime.md, "Preparing a plan"): the checks of a plan against the
// communicator, its kernels, scratch buffers, counters, tables and
// contexts on every rank, and releasing them.
#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "device.h"
#include "proxy.h"

namespace cclrt {
namespace {

// Bytes of one scratch buffer for the largest message the plan supports
// (see ccl_scratch_info). The slot size depends on the element size through
// the rounding of ceil(count / chunks), so take the largest over the element
// sizes there are (2 and 4 bytes), each at its largest count.
bool scratchBytes(const ccl_plan *p, const ccl_variant *var,
                  const ccl_scratch_info &si, uint64_t *out) {
  uint64_t best = 0;
  const uint64_t k = var->chunks ? var->chunks : p->chunks ? p->chunks : 1;
  for (uint64_t esize : {2ull, 4ull}) {
    uint64_t count = p->max_bytes / esize;
    uint64_t unit = count / k + (count % k != 0);
    // <= max_bytes + esize <= 2^40 + 4 (CCL_MAX_PLAN_BYTES): no overflow.
    uint64_t slot = unit * esize;
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
std::unique_ptr<PreparedPlan> preparePlan(Shared *s, const ccl_plan *p,
                                          int shift) {
  auto pp = std::make_unique<PreparedPlan>();
  pp->plan = p;
  pp->shift = shift;
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
  if (p->max_bytes > CCL_MAX_PLAN_BYTES) {
    pp->status = PreparedPlan::kFailed;
    pp->failCode = cclInvalidArgument;
    pp->message = format("library for algorithm %s allows calls of up to "
                         "%" PRIu64 " bytes, more than the %llu bytes (1 "
                         "TiB) libcclrt can size buffers for; recompile it "
                         "with a smaller cclc --max-bytes",
                         alg.c_str(), p->max_bytes, CCL_MAX_PLAN_BYTES);
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
  // A table that is NULL although the plan counts entries in it (a
  // corrupt library) is refused before anything reads it.
  auto corrupt = [&](const char *table, uint32_t entries) {
    pp->status = PreparedPlan::kFailed;
    pp->failCode = cclInvalidArgument;
    pp->message = format("library for algorithm %s is corrupt: its %s table "
                         "is NULL although its count is %u",
                         alg.c_str(), table, entries);
    return std::move(pp);
  };
  if (p->num_variants && !p->variants)
    return corrupt("variant", p->num_variants);
  if (p->num_images && !p->images)
    return corrupt("image", p->num_images);
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
  const struct {
    const char *what;
    uint32_t count;
    const void *table;
  } tables[] = {{"scratch buffer", var->num_scratch, var->scratch},
                {"kernel", var->num_kernels, var->kernels},
                {"channel", var->num_channels, var->channels},
                {"semaphore", var->num_semaphores, var->semaphores},
                {"barrier", var->num_barriers, var->barriers}};
  for (const auto &t : tables)
    if (t.count && !t.table)
      return fail(cclInvalidArgument,
                  format("its variant for %u ranks is corrupt: its %s table "
                         "is NULL although its count is %u",
                         var->nranks, t.what, t.count));
  for (uint32_t c = 0; c < var->num_channels; c++) {
    const ccl_channel_info &ch = var->channels[c];
    if (ch.src >= (uint32_t)s->nranks || ch.dst >= (uint32_t)s->nranks ||
        ch.src == ch.dst)
      return fail(cclInvalidArgument,
                  format("its channel %u connects rank %u to rank %u, which "
                         "is not a pair of distinct ranks of %d",
                         c, ch.src, ch.dst, s->nranks));
    if (ch.kind != CCL_CHANNEL_MEMORY && ch.kind != CCL_CHANNEL_PORT)
      return fail(cclInvalidArgument,
                  format("its channel %u (%u -> %u) has an unknown kind %u",
                         c, ch.src, ch.dst, ch.kind));
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
  // From here on, a rank of a multi-process communicator that fails still
  // takes part in the plan's exchanges (it reports its failure there), so
  // that every rank takes the same decision.
  std::string localError;
  cclResult_t localCode = cclSuccess;
  auto failLocal = [&](cclResult_t code, const std::string &msg) {
    if (localCode == cclSuccess) {
      localCode = code;
      localError = msg;
    }
  };
  if (cclResult_t r = dev.loadKernels(pp.get()); r != cclSuccess)
    failLocal(r, cclGetLastError());
  uint64_t staging = 0;
  if (!stagingBytes(p, s->nranks, &staging))
    failLocal(cclInvalidArgument,
              format("its staging buffer (%d x %" PRIu64
                     " bytes) is too large to address",
                     s->nranks, p->max_bytes));
  std::vector<uint64_t> sizes(var->num_scratch);
  for (uint32_t b = 0; b < var->num_scratch; b++)
    if (!scratchBytes(p, var, var->scratch[b], &sizes[b]))
      failLocal(cclInvalidArgument,
                format("scratch buffer %s is too large to address",
                       var->scratch[b].name ? var->scratch[b].name : "?"));
  pp->scratchBytes = 0;
  for (uint64_t b : sizes)
    pp->scratchBytes += b;
  pp->stagingBytes = staging;
  // Simple-protocol counters: set here, never reset afterwards. All start
  // at 0 except the signal counter of a channel with credit (ABI 3), which
  // starts at the credit on the channel's destination rank: its first
  // `credit` waits return at once. Layout per rank: signal[n], consumed[n],
  // sem[2S], barrier[B], then (ABI 4, port channels) fifo_head[n],
  // fifo_tail_seen[n], port_done[n].
  const size_t nchan = var->num_channels;
  const size_t syncWords = 5 * nchan + 2 * (size_t)var->num_semaphores +
                           var->num_barriers;
  auto initialCounters = [&](int r) {
    std::vector<uint64_t> initial(syncWords);
    for (size_t c = 0; c < nchan; c++)
      initial[c] = var->channels[c].dst == (uint32_t)pp->virt(r)
                       ? var->channels[c].credit
                       : 0;
    return initial;
  };
  // Every rank's scratch buffers and counters as this process addresses
  // them (the tables need all of them).
  std::vector<RankMemory> mem(s->nranks);
  if (s->boot) {
    // Multi-process: the exchange also tells the other ranks about a local
    // failure so far; afterwards every rank has taken the same decision.
    cclResult_t res = shareMemory(s, pp.get(), sizes, syncWords,
                                  initialCounters, localCode, localError, &mem);
    if (res != cclSuccess)
      return fail(res, cclGetLastError());
  } else {
    if (localCode != cclSuccess)
      return fail(localCode, localError);
    cclResult_t res =
        allocateMemory(s, pp.get(), sizes, syncWords, initialCounters, &mem);
    if (res != cclSuccess)
      return fail(res, cclGetLastError());
  }
  // A local failure from here on is agreed on with the other ranks of a
  // multi-process communicator (each takes part in one agreement).
  auto failAgreed = [&](cclResult_t code, const std::string &msg) {
    if (s->boot) {
      std::string why;
      agree(s, msg, &why);
    }
    return fail(code, msg);
  };
  for (int r : s->local) {
    PreparedRank &pr = pp->ranks[r];
    if (nchan) {
      // signal[c]: channel c's counter on its destination rank.
      std::vector<uint64_t *> sig(nchan);
      for (size_t c = 0; c < nchan; c++)
        sig[c] = static_cast<uint64_t *>(
                     mem[pp->phys((int)var->channels[c].dst)].sync) +
                 c;
      cclResult_t res =
          dev.allocate(r, nchan * sizeof(uint64_t *), &pr.signalTable,
                       format("signal table of rank %d", r).c_str());
      if (res != cclSuccess)
        return failAgreed(res, cclGetLastError());
      if ((res = dev.upload(r, pr.signalTable, sig.data(),
                            nchan * sizeof(uint64_t *))) != cclSuccess)
        return failAgreed(res, cclGetLastError());
      // Port channels whose source is this rank: FIFOs and the proxy.
      if ((res = preparePorts(s, pp.get(), r, sig, mem, sizes)) !=
          cclSuccess)
        return failAgreed(res, cclGetLastError());
    }
    std::vector<void *> table((size_t)var->num_scratch * s->nranks);
    for (uint32_t b = 0; b < var->num_scratch; b++)
      for (int q = 0; q < s->nranks; q++)
        table[(size_t)b * s->nranks + q] = mem[pp->phys(q)].scratch[b];
    cclResult_t res;
    size_t tableBytes = table.size() * sizeof(void *);
    if ((res = dev.allocate(r, tableBytes ? tableBytes : sizeof(void *),
                            &pr.scratchTable,
                            format("scratch table of rank %d", r).c_str())) !=
        cclSuccess)
      return failAgreed(res, cclGetLastError());
    if (tableBytes &&
        (res = dev.upload(r, pr.scratchTable, table.data(), tableBytes)) !=
            cclSuccess)
      return failAgreed(res, cclGetLastError());
    // One call counter per thread block (ccl_dev_ctx::epoch; a variant
    // without blocks was refused above).
    const size_t epochBytes = var->nblocks * sizeof(uint32_t);
    if ((res = dev.allocate(r, epochBytes, &pr.epoch,
                            format("epoch of rank %d", r).c_str())) !=
        cclSuccess)
      return failAgreed(res, cclGetLastError());
    if ((res = dev.zero(r, pr.epoch, epochBytes)) != cclSuccess)
      return failAgreed(res, cclGetLastError());
    if (staging) {
      if ((res = dev.allocate(
               r, staging, &pr.staging,
               format("staging buffer of rank %d", r).c_str())) != cclSuccess)
        return failAgreed(res, cclGetLastError());
    }
    if ((res = initContext(s, pp.get(), r)) != cclSuccess)
      return failAgreed(res, cclGetLastError());
  }
  if (cclResult_t r = dev.startBlocks(*pp); r != cclSuccess)
    return failAgreed(r, cclGetLastError());
  // Multi-process: ready only when every rank is.
  if (s->boot) {
    std::string why;
    if (!agree(s, std::string(), &why))
      return fail(cclRemoteError, why);
  }
  pp->status = PreparedPlan::kReady;
  return pp;
}

} // namespace

bool isRooted(const ccl_plan *plan) {
  const Collective c = collectiveOf(plan);
  return c == Collective::kBroadcast || c == Collective::kReduce;
}

int provedRoot(const ccl_plan *plan, int nranks) {
  uint32_t root = plan->root;
  for (uint32_t v = 0; v < plan->num_variants && plan->variants; v++)
    if (plan->variants[v].nranks == (uint32_t)nranks &&
        plan->variants[v].root_plus_one)
      root = plan->variants[v].root_plus_one - 1;
  return nranks > 0 ? (int)(root % (uint32_t)nranks) : 0;
}

void releasePlan(Shared *s, PreparedPlan *pp) {
  Device &dev = *s->device;
  releasePorts(s, pp);
  for (size_t r = 0; r < pp->ranks.size(); r++) {
    PreparedRank &pr = pp->ranks[r];
    const int rank = (int)r;
    releaseShared(s, rank, pr);
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
  std::vector<const ccl_plan *> todo;
  {
    std::lock_guard<std::mutex> lk(s->plansMu);
    for (const ccl_plan *p : registeredPlans())
      if (!s->plans.count(p))
        todo.push_back(p);
  }
  // One process per rank: every rank must have the same plans, prepared in
  // the same order (each preparation exchanges memory with the others).
  if (s->boot)
    if (cclResult_t r = agreeOnPlans(s, &todo, firstError))
      return r;
  cclResult_t first = cclSuccess;
  for (const ccl_plan *p : todo) {
    // A rooted plan: one instance per root (every rank prepares them in
    // the same order). Only the instance of the plan's own root is prepared
    // when another one would fail the same way (wrong target or ABI, no
    // variant).
    PreparedSet set;
    const int roots = isRooted(p) ? s->nranks : 1;
    const int own = roots > 1 ? provedRoot(p, s->nranks) : 0;
    for (int root = 0; root < roots; root++) {
      const int shift = (root - own + s->nranks) % s->nranks;
      std::unique_ptr<PreparedPlan> pp = preparePlan(s, p, shift);
      if (first == cclSuccess && (pp->status == PreparedPlan::kFailed ||
                                  pp->status == PreparedPlan::kWrongAbi)) {
        first = pp->failCode;
        *firstError = pp->message;
      }
      const bool stop = pp->status != PreparedPlan::kReady;
      set.push_back(std::move(pp));
      if (stop)
        break;
    }
    std::lock_guard<std::mutex> lk(s->plansMu);
    s->plans[p] = std::move(set);
  }
  return first;
}

PreparedPlan *findPrepared(Shared *s, const ccl_plan *plan, int root) {
  std::lock_guard<std::mutex> lk(s->plansMu);
  auto it = s->plans.find(plan);
  if (it == s->plans.end() || it->second.empty())
    return nullptr;
  const PreparedSet &set = it->second;
  // A set that stopped early holds the failed instance last.
  if (set.size() == 1 || set.back()->status != PreparedPlan::kReady)
    return set.back().get();
  return root >= 0 && (size_t)root < set.size() ? set[root].get() : nullptr;
}

namespace api {

cclResult_t cclCommPlanMemory(cclComm_t comm, uint64_t *scratch_bytes,
                              uint64_t *staging_bytes, int *plans) {
  cclResult_t r = checkComm(comm, "cclCommPlanMemory");
  if (r != cclSuccess)
    return r;
  uint64_t scratch = 0, staging = 0;
  int n = 0;
  {
    Shared *s = comm->shared;
    std::lock_guard<std::mutex> lk(s->plansMu);
    for (const auto &entry : s->plans)
      for (const auto &pp : entry.second)
        if (pp && pp->status == PreparedPlan::kReady) {
          scratch += pp->scratchBytes;
          staging += pp->stagingBytes;
          n++;
        }
  }
  if (scratch_bytes)
    *scratch_bytes = scratch;
  if (staging_bytes)
    *staging_bytes = staging;
  if (plans)
    *plans = n;
  return cclSuccess;
}

cclResult_t cclCommUnpreparedPlan(cclComm_t comm, int index, int *count,
                                  const char **algorithm, const char **why) {
  cclResult_t r = checkComm(comm, "cclCommUnpreparedPlan");
  if (r != cclSuccess)
    return r;
  // One entry per plan (a rooted plan's first instance that failed); plans
  // of other targets are not this machine's to prepare.
  std::vector<const PreparedPlan *> failed;
  {
    Shared *s = comm->shared;
    std::lock_guard<std::mutex> lk(s->plansMu);
    for (const auto &entry : s->plans)
      for (const auto &pp : entry.second)
        if (pp && pp->status != PreparedPlan::kReady &&
            pp->status != PreparedPlan::kWrongTarget) {
          failed.push_back(pp.get());
          break;
        }
  }
  // A plan of another ABI is not read beyond its version.
  auto name = [](const PreparedPlan *pp) {
    return pp->status == PreparedPlan::kWrongAbi || !pp->plan->algorithm
               ? "(a plan of another ABI)"
               : pp->plan->algorithm;
  };
  std::sort(failed.begin(), failed.end(),
            [&](const PreparedPlan *a, const PreparedPlan *b) {
              return std::strcmp(name(a), name(b)) < 0;
            });
  if (count)
    *count = (int)failed.size();
  const bool in = index >= 0 && (size_t)index < failed.size();
  if (algorithm)
    *algorithm = in ? name(failed[index]) : nullptr;
  if (why)
    *why = in ? failed[index]->message.c_str() : nullptr;
  return cclSuccess;
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

} // namespace api
} // namespace cclrt
