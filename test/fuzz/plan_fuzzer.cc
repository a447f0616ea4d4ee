// plan_fuzzer.cc - libFuzzer target for libcclrt's checks of the plan tables
// a generated library hands it (ccl/plan.h): a truncated or corrupted table
// must be refused with an error, never crash the runtime. (A hostile
// library is out of scope: loading it runs its code.)
//
// The input is a plan image (plan_image.h): the structs of ccl/plan.h as
// bytes, with references for pointers, so the fuzzer follows the header
// (a field it gains is fuzzed too) and its seeds are the plans cclc
// generates (test/fuzz/plan_corpus/, written by plan_seeds.cc). Up to
// kMaxPlans plans are decoded into static ccl_plan objects registered once
// (the registry cannot forget a plan; the slots an input leaves unused hold
// a plan of another target, which no communicator prepares). Then an
// in-process host communicator of 2 to 4 ranks is created, which prepares
// them; every rank launches every plan (cclrtLaunch, and cclrtLaunchRooted
// with the input's root); the kernels are a dummy host function, which may
// report the input's error record as a timeout, so that the error report
// reads the plan's tables. The selection table, if any, is handed to
// cclrtCollective; every rank synchronises and reads the asynchronous
// error; the communicator is destroyed.
//
// Traps (a crash for libFuzzer) on ASan/UBSan findings and when:
//  * a call fails with an empty cclGetLastError();
//  * a launch succeeds although the plan breaks a rule the runtime
//    documents (docs/runtime.md, "Preparing a plan"): wrong ABI version or
//    target, max_bytes over CCL_MAX_PLAN_BYTES, no variant for the rank
//    count, and in that variant: 0 thread blocks, a table that is NULL
//    with a non-zero count, a channel that does not connect two distinct
//    ranks or has an unknown kind, a semaphore or barrier on a rank that
//    does not exist, a barrier of 0 or more blocks than the variant has, a
//    kernel without a host function;
//  * cclrtCollective succeeds although every plan of the selection table
//    breaks such a rule.
//
// Allocations over 64 MiB fail (ASan's max_allocation_size_mb, returning
// NULL): the runtime must report them as out of memory, and the fuzzer
// keeps its memory bounded. Run with scripts/fuzz.sh --fuzzer plan.
// plan_replay.cc runs the same function on files, without libFuzzer.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ccl/ccl.h"
#include "ccl/plan.h"
#include "plan_fuzzer.h"
#include "plan_image.h"

extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1:max_allocation_size_mb=64";
}

namespace {

using namespace plan_image;

constexpr size_t kMaxPlans = 4;

[[noreturn]] void bug(const std::string &what) {
  std::fprintf(stderr, "plan_fuzzer: %s\n", what.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// Whether the kernel reports the input's error record (set per input,
// before the launches).
bool g_reportTimeout = false;
ccl_error_record g_record;

// The kernel of every plan. When the input asks for it, rank 0, block 0
// claims the error record, fills it with the input's (every field but the
// state) and raises the abort flag, as a timed-out wait does.
void kernel(const ccl_dev_ctx *ctx, const void *, void *, uint64_t,
            uint32_t block) {
  if (!g_reportTimeout || ctx->rank != 0 || block != 0 || !ctx->error)
    return;
  uint32_t zero = CCL_ERR_NONE;
  if (__atomic_compare_exchange_n(&ctx->error->state, &zero, CCL_ERR_TIMEOUT,
                                  false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
    const size_t from = offsetof(ccl_error_record, rank);
    memcpy(reinterpret_cast<char *>(ctx->error) + from,
           reinterpret_cast<const char *>(&g_record) + from,
           sizeof g_record - from);
  }
  __atomic_store_n(const_cast<uint32_t *>(ctx->abort_flag), 1u,
                   __ATOMIC_RELEASE);
}

const ccl_host_kernel_fn kKernels[] = {kernel};

// The registered plans; refilled by every input.
ccl_plan g_plans[kMaxPlans];

// A plan no host communicator prepares (another target).
ccl_plan unusedPlan() {
  ccl_plan p{};
  p.abi_version = CCL_PLAN_ABI_VERSION;
  p.target = CCL_TARGET_NVPTX;
  return p;
}

// The variant of `p` for `nranks`, if its table can be read.
const ccl_variant *variantFor(const ccl_plan &p, uint32_t nranks) {
  if (!p.variants)
    return nullptr;
  for (uint32_t v = 0; v < p.num_variants; v++)
    if (p.variants[v].nranks == nranks)
      return &p.variants[v];
  return nullptr;
}

// The rule of docs/runtime.md ("Preparing a plan") that `p` breaks for a
// host communicator of `nranks` ranks; empty if none.
std::string refusal(const ccl_plan &p, uint32_t nranks) {
  char buf[160];
  if (p.abi_version != CCL_PLAN_ABI_VERSION)
    return "ABI version " + std::to_string(p.abi_version);
  if (p.max_bytes > CCL_MAX_PLAN_BYTES)
    return "max_bytes " + std::to_string(p.max_bytes);
  if (p.target != CCL_TARGET_HOST)
    return "target " + std::to_string(p.target);
  if (p.num_variants && !p.variants)
    return "no variant table";
  const ccl_variant *v = variantFor(p, nranks);
  if (!v)
    return "no variant for " + std::to_string(nranks) + " ranks";
  if (v->nblocks == 0)
    return "0 thread blocks";
  if (v->num_scratch && !v->scratch)
    return "no scratch table";
  if (v->num_kernels && !v->kernels)
    return "no kernel table";
  if (v->num_channels && !v->channels)
    return "no channel table";
  if (v->num_semaphores && !v->semaphores)
    return "no semaphore table";
  if (v->num_barriers && !v->barriers)
    return "no barrier table";
  for (uint32_t c = 0; c < v->num_channels; c++) {
    const ccl_channel_info &ch = v->channels[c];
    if (ch.src >= nranks || ch.dst >= nranks || ch.src == ch.dst ||
        (ch.kind != CCL_CHANNEL_MEMORY && ch.kind != CCL_CHANNEL_PORT)) {
      std::snprintf(buf, sizeof buf, "channel %u (%u -> %u, kind %u)", c,
                    ch.src, ch.dst, ch.kind);
      return buf;
    }
  }
  for (uint32_t s = 0; s < v->num_semaphores; s++)
    if (v->semaphores[s].rank >= nranks) {
      std::snprintf(buf, sizeof buf, "semaphore %u on rank %u", s,
                    v->semaphores[s].rank);
      return buf;
    }
  for (uint32_t b = 0; b < v->num_barriers; b++)
    if (v->barriers[b].rank >= nranks || v->barriers[b].nblocks == 0 ||
        v->barriers[b].nblocks > v->nblocks) {
      std::snprintf(buf, sizeof buf, "barrier %u (rank %u, %u blocks)", b,
                    v->barriers[b].rank, v->barriers[b].nblocks);
      return buf;
    }
  for (uint32_t k = 0; k < v->num_kernels; k++)
    if (!v->kernels[k].host_fn) {
      std::snprintf(buf, sizeof buf, "kernel %u without a host function", k);
      return buf;
    }
  return "";
}

// The C API's enums from plan or input values (the enums span every int).
cclDataType_t dtypeOf(uint32_t v) { return (cclDataType_t)(int32_t)v; }
cclRedOp_t opOf(uint32_t v) { return (cclRedOp_t)(int32_t)v; }

// A failed call must say why.
void expectMessage(cclResult_t r, const char *call) {
  if (r != cclSuccess && !*cclGetLastError())
    bug(std::string(call) + " failed (" + std::to_string(r) +
        ") without a message");
}

PlanFuzzerStats g_stats;

} // namespace

const PlanFuzzerStats &planFuzzerStats() { return g_stats; }

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  for (ccl_plan &p : g_plans) {
    p = unusedPlan();
    cclrtRegisterPlan(&p);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_stats = PlanFuzzerStats();
  if (size > (1u << 20))
    return 0;
  Decoded d;
  d.decode(data, size, g_plans, kMaxPlans, kKernels,
           sizeof kKernels / sizeof kKernels[0]);
  for (size_t i = d.numPlans; i < kMaxPlans; i++)
    g_plans[i] = unusedPlan();
  const PlanCall &call = d.call;
  const int n = 2 + call.nranks % 3;
  g_reportTimeout = call.flags & kCallTimeout;
  g_record = d.record;

  cclComm_t comms[4] = {};
  cclResult_t r = cclCommInitAllInProcess(comms, n, cclTargetHost, nullptr);
  expectMessage(r, "cclCommInitAllInProcess");
  if (r != cclSuccess)
    return 0;

  // Buffers for any collective, per rank: count elements of up to 8 bytes,
  // times the rank count.
  const size_t count = call.count % 65;
  std::vector<std::vector<uint64_t>> in(n), out(n);
  for (int k = 0; k < n; k++) {
    in[k].resize((count + 1) * n);
    out[k].resize((count + 1) * n);
  }
  const bool inPlace = call.flags & kCallInPlace;
  auto launchAll = [&](const ccl_plan &p, cclDataType_t dtype, cclRedOp_t op,
                       bool rooted) {
    int ok = 0;
    for (int k = 0; k < n; k++) {
      void *o = inPlace ? in[k].data() : out[k].data();
      r = rooted ? cclrtLaunchRooted(&p, comms[k], in[k].data(), o, count,
                                     dtype, op, call.root, nullptr)
                 : cclrtLaunch(&p, comms[k], in[k].data(), o, count, dtype, op,
                               nullptr);
      expectMessage(r, rooted ? "cclrtLaunchRooted" : "cclrtLaunch");
      if (r == cclSuccess)
        ok++;
      else if (g_stats.firstError.empty())
        g_stats.firstError = cclGetLastError();
    }
    return ok;
  };
  bool anyValid = false;
  for (size_t i = 0; i < d.numPlans; i++) {
    const ccl_plan &p = g_plans[i];
    const std::string why = refusal(p, (uint32_t)n);
    anyValid |= why.empty();
    cclDataType_t dtype = dtypeOf(call.dtype);
    cclRedOp_t op = opOf(call.redop);
    if (call.flags & kCallKernelType) {
      // The type and operator of one of the variant's kernels.
      const ccl_variant *v = variantFor(p, (uint32_t)n);
      if (v && v->num_kernels && v->kernels) {
        const ccl_kernel_info &k = v->kernels[call.kernel % v->num_kernels];
        dtype = dtypeOf(k.dtype);
        op = opOf(k.redop);
      }
    }
    int ok = launchAll(p, dtype, op, false);
    if (call.flags & kCallRooted)
      ok += launchAll(p, dtype, op, true);
    if (ok && !why.empty())
      bug("cclrtLaunch ran plan " + std::to_string(i) + " with " + why +
          " on " + std::to_string(n) + " ranks");
    g_stats.plans++;
    if (ok == n * ((call.flags & kCallRooted) ? 2 : 1))
      g_stats.plansLaunched++;
  }
  // A bundle's entry point with the selection table.
  if (d.hasSelection && (call.flags & kCallSelection)) {
    const uint32_t coll = call.collective % 7;
    for (int k = 0; k < n; k++) {
      void *o = inPlace ? in[k].data() : out[k].data();
      r = cclrtCollective(&d.selection, coll, in[k].data(), o, count,
                          dtypeOf(call.dtype), opOf(call.redop), call.root,
                          comms[k], nullptr);
      expectMessage(r, "cclrtCollective");
      if (r == cclSuccess && !anyValid)
        bug("cclrtCollective ran although every plan breaks a rule");
      if (r == cclSuccess)
        g_stats.collectives++;
    }
  }
  for (int k = 0; k < n; k++) {
    r = cclCommSynchronize(comms[k], nullptr);
    expectMessage(r, "cclCommSynchronize");
    cclResult_t async = cclSuccess;
    r = cclCommGetAsyncError(comms[k], &async);
    expectMessage(r, "cclCommGetAsyncError");
    if (r == cclSuccess && async != cclSuccess && !*cclGetLastError())
      bug("an asynchronous error without a message");
  }
  for (int k = 0; k < n; k++)
    expectMessage(cclCommDestroy(comms[k]), "cclCommDestroy");
  return 0;
}
