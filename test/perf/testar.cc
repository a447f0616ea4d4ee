// testar.cc - a hand-written stand-in for a cclc-generated library, used to
// test ccl-perf on the host target until the compiler generates real ones.
//
// It defines host-target plans and exports their entry points:
//   ccl_testar          a correct AllReduce, every dtype and op, 1..8 ranks
//   ccl_testar_broken   the same, but drops the last rank's contribution
//                       (so ccl-perf must report #wrong > 0 and exit 1)
//   ccl_testar_sumonly  correct, but only float32 sum kernels (ccl-perf must
//                       skip the other combinations)
//
// Algorithm, per rank r and thread block b (block b owns the element range
// [b*count/nblocks, (b+1)*count/nblocks) on every rank):
//   0. wait until every peer has finished reading my data scratch in the
//      previous call (its done[b] >= epoch);
//   1. copy my input slice into my data scratch, publish ready[b] = epoch+1;
//   2. wait for every peer's ready[b] = epoch+1;
//   3. reduce the slice of every rank's data scratch into my output;
//   4. publish done[b] = epoch+1.
// The last block to finish advances the epoch. The flag words live in the
// scratch buffer "flags" (the runtime zeroes scratch when it allocates it).
// Every wait polls the abort flag and the timeout and fills the error record.
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstring>

#include "ccl/ccl.h"
#include "tools/ccl-perf/dtype.h"

namespace {

using cclperf::DType;
using cclperf::Op;

enum { kOpWaitDone = 0, kOpWaitReady = 1 };
const ccl_op_info kOps[] = {
    {"wait(done)", "test/perf/testar.cc", 96, 23},
    {"wait(ready)", "test/perf/testar.cc", 102, 23},
};

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// Waits until *addr >= expected (wrapping compare). false: aborted/timed out.
bool waitFlag(const ccl_dev_ctx *ctx, const uint32_t *addr, uint32_t expected,
              uint32_t block, uint32_t op) {
  uint64_t start = 0;
  for (uint64_t spin = 0;; spin++) {
    uint32_t v = __atomic_load_n(addr, __ATOMIC_ACQUIRE);
    if ((int32_t)(v - expected) >= 0) return true;
    if (*ctx->abort_flag) return false;
    if ((spin & 63) == 63) {
      uint64_t t = nowNs();
      if (!start) start = t;
      if (ctx->timeout_ns && t - start > ctx->timeout_ns) {
        uint32_t zero = CCL_ERR_NONE;
        if (__atomic_compare_exchange_n(&ctx->error->state, &zero, CCL_ERR_TIMEOUT,
                                        false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
          ctx->error->rank = ctx->rank;
          ctx->error->block = block;
          ctx->error->op_id = op;
          ctx->error->expected = expected;
          ctx->error->observed = v;
          ctx->error->waited_ns = t - start;
        }
        __atomic_store_n((uint32_t *)ctx->abort_flag, 1u, __ATOMIC_RELEASE);
        return false;
      }
      sched_yield();
    }
  }
}

float roundTo(DType t, float v) {
  unsigned char buf[4];
  cclperf::storeFromFloat(t, buf, 0, v);
  return cclperf::loadAsFloat(t, buf, 0);
}

template <DType T, Op O, bool Broken>
void kernel(const ccl_dev_ctx *ctx, const void *input, void *output,
            uint64_t count, uint32_t block) {
  const uint32_t n = ctx->nranks, me = ctx->rank, nb = ctx->nblocks;
  const size_t es = cclperf::dtypeSize(T);
  const uint32_t epoch = __atomic_load_n(&ctx->epoch[0], __ATOMIC_ACQUIRE);
  const uint32_t flag = epoch + 1;
  const uint64_t lo = count * block / nb, hi = count * (block + 1) / nb;
  auto data = [&](uint32_t r) { return (char *)ctx->scratch[0 * n + r]; };
  auto flags = [&](uint32_t r) { return (uint32_t *)ctx->scratch[1 * n + r]; };
  bool ok = true;
  for (uint32_t p = 0; p < n && ok; p++)  // 0. peers done with my scratch
    if (p != me) ok = waitFlag(ctx, &flags(p)[2 * block + 1], epoch, block, kOpWaitDone);
  if (ok) {  // 1.
    std::memcpy(data(me) + lo * es, (const char *)input + lo * es, (hi - lo) * es);
    __atomic_store_n(&flags(me)[2 * block], flag, __ATOMIC_RELEASE);
  }
  for (uint32_t p = 0; p < n && ok; p++)  // 2.
    if (p != me) ok = waitFlag(ctx, &flags(p)[2 * block], flag, block, kOpWaitReady);
  if (ok) {  // 3.
    for (uint64_t i = lo; i < hi; i++) {
      float acc = cclperf::loadAsFloat(T, data(0), i);
      for (uint32_t p = 1; p < n; p++) {
        if (Broken && p == n - 1) continue;  // the deliberate bug
        // Reduce in float, round to T after every step like a device kernel.
        acc = roundTo(T, (float)cclperf::applyOp(O, acc, cclperf::loadAsFloat(T, data(p), i)));
      }
      cclperf::storeFromFloat(T, output, i, acc);
    }
    __atomic_store_n(&flags(me)[2 * block + 1], flag, __ATOMIC_RELEASE);  // 4.
  }
  if (__atomic_add_fetch(&ctx->epoch[1], 1u, __ATOMIC_ACQ_REL) == nb) {
    __atomic_store_n(&ctx->epoch[1], 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&ctx->epoch[0], epoch + 1, __ATOMIC_RELEASE);
  }
}

#define KERNEL(T, O, B) \
  { (uint32_t)DType::T, (uint32_t)Op::O, nullptr, &kernel<DType::T, Op::O, B> }
#define ALL_KERNELS(B)                                                        \
  {                                                                           \
    KERNEL(F32, Sum, B), KERNEL(F32, Prod, B), KERNEL(F32, Max, B),           \
        KERNEL(F32, Min, B), KERNEL(F16, Sum, B), KERNEL(F16, Prod, B),       \
        KERNEL(F16, Max, B), KERNEL(F16, Min, B), KERNEL(BF16, Sum, B),       \
        KERNEL(BF16, Prod, B), KERNEL(BF16, Max, B), KERNEL(BF16, Min, B),    \
  }

const ccl_kernel_info kKernels[] = ALL_KERNELS(false);
const ccl_kernel_info kBrokenKernels[] = ALL_KERNELS(true);
const ccl_kernel_info kSumOnlyKernels[] = {KERNEL(F32, Sum, false)};

// "flags" is a packet buffer only so that it is at least 32 bytes for any
// count (2 flag words per block, at most 4 blocks).
const ccl_scratch_info kScratch[] = {{"data", 1, 0}, {"flags", 1, 1}};

#define VARIANT(N, NB, K) \
  { N, NB, 1, 2, kScratch, sizeof(K) / sizeof(K[0]), K }
#define VARIANTS(K)                                                            \
  {                                                                            \
    VARIANT(1, 2, K), VARIANT(2, 2, K), VARIANT(3, 3, K), VARIANT(4, 2, K),    \
        VARIANT(5, 2, K), VARIANT(6, 2, K), VARIANT(7, 3, K), VARIANT(8, 2, K) \
  }
const ccl_variant kVariants[] = VARIANTS(kKernels);
const ccl_variant kBrokenVariants[] = VARIANTS(kBrokenKernels);
const ccl_variant kSumOnlyVariants[] = VARIANTS(kSumOnlyKernels);

#define PLAN(NAME, V)                                                      \
  {                                                                        \
    CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, NAME, "AllReduce", 0, 1,        \
        CCL_PROTO_SIMPLE, 4u << 20, "test/perf/testar.cc",                 \
        sizeof(V) / sizeof(V[0]), V, sizeof(kOps) / sizeof(kOps[0]), kOps, \
        0, nullptr                                                         \
  }
const ccl_plan kPlan = PLAN("testar", kVariants);
const ccl_plan kBrokenPlan = PLAN("testar_broken", kBrokenVariants);
const ccl_plan kSumOnlyPlan = PLAN("testar_sumonly", kSumOnlyVariants);

__attribute__((constructor)) void registerPlans() {
  cclrtRegisterPlan(&kPlan);
  cclrtRegisterPlan(&kBrokenPlan);
  cclrtRegisterPlan(&kSumOnlyPlan);
}

}  // namespace

#define ENTRY(NAME, PLAN)                                                     \
  extern "C" __attribute__((visibility("default"))) int NAME(                 \
      cclComm_t comm, const void *input, void *output, size_t count,          \
      cclDataType_t dtype, cclRedOp_t op, cclStream_t stream) {               \
    return cclrtLaunch(&PLAN, comm, input, output, count, dtype, op, stream); \
  }
ENTRY(ccl_testar, kPlan)
ENTRY(ccl_testar_broken, kBrokenPlan)
ENTRY(ccl_testar_sumonly, kSumOnlyPlan)
