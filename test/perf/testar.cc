// testar.cc - a hand-written stand-in for a cclc-generated library, used to
// test ccl-perf on the host target until the compiler generates real ones.
//
// It defines host-target plans (the current plan ABI) and exports their entry
// points:
//   ccl_testar              a correct AllReduce, every dtype and op, 1..8 ranks
//   ccl_testar_broken       the same, but drops the last rank's contribution
//                           (so ccl-perf must report #wrong > 0 and exit 1)
//   ccl_testar_sumonly      correct, but only float32 sum kernels (ccl-perf
//                           must skip the other combinations)
//   ccl_testar_allgather, ccl_testar_reducescatter, ccl_testar_alltoall,
//   ccl_testar_broadcast, ccl_testar_reduce (written for root 1; the
//                           root is an argument of the entry point)
//                           correct, NCCL's buffer conventions, every dtype
//                           (and op for the reductions)
//   ccl_testar_<coll>_broken
//                           each with a deliberate bug (see compute())
//   ccl_testar_allgather_viafloat
//                           an AllGather that moves each element through a
//                           float (load, convert, store): exact for float32,
//                           not for float16/bfloat16 NaN payloads, so a
//                           byte-moving collective must be compared bit for
//                           bit
//   ccl_testar_racy         a Broadcast from root 0 that is correct in any
//                           single call but not back to back: the root
//                           never waits for the readers before it overwrites
//                           the scratch they read (no step 0 below)
//
// Algorithm, per rank r and thread block b (block b owns the element range
// [b*count/nblocks, (b+1)*count/nblocks) of every count-sized block of data):
//   -. the start delay of cclCommDebugSetDelay (ccl_dev_ctx::delay_ns), as
//      a generated kernel's __ccl_begin does;
//   0. wait until every rank that reads my data scratch has finished reading
//      it in the previous call (its done[b] >= epoch);
//   1. if my input is read by anyone: copy my input slice(s) into my data
//      scratch, publish ready[b] = epoch+1;
//   2. wait for the ready[b] = epoch+1 of every rank I read from, compute my
//      output slice(s) from their data scratch;
//   3. publish done[b] = epoch+1.
// Who reads whom: every rank every rank (AllReduce, AllGather,
// ReduceScatter, AllToAll); the root the others (Reduce); the others the
// root (Broadcast). The last block to finish advances the epoch. The flag
// words live in the scratch buffer "flags" (the runtime zeroes scratch when
// it allocates it). Every wait polls the abort flag and the timeout and
// fills the error record.
#include <sched.h>
#include <time.h>

#include <cstdint>
#include <cstring>

#include "ccl/ccl.h"
#include "tools/ccl-perf/dtype.h"

namespace {

using cclperf::DType;
using cclperf::Op;

enum class Coll { AllReduce, AllGather, ReduceScatter, AllToAll, Broadcast, Reduce };
enum Variant { kCorrect, kBroken, kRacy, kViaFloat };

enum { kOpWaitDone = 0, kOpWaitReady = 1 };

uint64_t nowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

// The start delay (cclCommDebugSetDelay), like __ccl_begin: sleeps in
// slices of at most 1 ms until delay_ns have passed or the communicator is
// aborted.
void startDelay(const ccl_dev_ctx *ctx, uint32_t block) {
  uint64_t delay = __atomic_load_n(&ctx->delay_ns, __ATOMIC_ACQUIRE);
  uint32_t which = __atomic_load_n(&ctx->delay_block, __ATOMIC_ACQUIRE);
  if (!delay || (which != CCL_DELAY_ALL_BLOCKS && which != block)) return;
  const uint64_t end = nowNs() + delay;
  for (uint64_t t = nowNs(); t < end && !*ctx->abort_flag; t = nowNs()) {
    uint64_t left = end - t;
    timespec ts{0, (long)(left < 1000000 ? left : 1000000)};
    nanosleep(&ts, nullptr);
  }
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

// Whether `reader` reads the data scratch of `owner`.
template <Coll C, int Root>
bool reads(uint32_t reader, uint32_t owner) {
  switch (C) {
    case Coll::Broadcast: return owner == (uint32_t)Root;
    case Coll::Reduce: return reader == (uint32_t)Root;
    default: return true;
  }
}

// Data blocks per rank in the data scratch (count elements each).
template <Coll C>
bool blockedInput() {
  return C == Coll::ReduceScatter || C == Coll::AllToAll;
}

// out[j] := op over ranks p (except `skip`) of src(p)[j], for j in [lo, hi),
// in float, rounded to T after every step like a device kernel.
template <DType T, Op O, typename Src>
void reduceInto(void *out, uint64_t lo, uint64_t hi, uint32_t n, uint32_t skip,
                Src src) {
  for (uint64_t i = lo; i < hi; i++) {
    bool first = true;
    float acc = 0;
    for (uint32_t p = 0; p < n; p++) {
      if (p == skip) continue;
      float v = cclperf::loadAsFloat(T, src(p), i);
      acc = first ? v : roundTo(T, (float)cclperf::applyOp<double>(O, acc, v));
      first = false;
    }
    cclperf::storeFromFloat(T, out, i, acc);
  }
}

// Step 2 of rank `me` for its element range [lo, hi) of each block.
// The deliberate bugs (V == kBroken): AllReduce, ReduceScatter and Reduce
// drop the last rank's contribution; AllGather puts rank 0's data into the
// last rank's block; AllToAll takes block p of rank p instead of block me;
// Broadcast leaves the last thread block's range of the non-root outputs
// unwritten.
template <Coll C, DType T, Op O, int V, int Root>
void compute(const ccl_dev_ctx *ctx, void *output, uint64_t count, uint64_t lo,
             uint64_t hi, uint32_t block, char *const *data) {
  const uint32_t n = ctx->nranks, me = ctx->rank;
  const size_t es = cclperf::dtypeSize(T);
  const uint32_t skip = V == kBroken && n > 1 ? n - 1 : n;  // n: none
  char *out = (char *)output;
  switch (C) {
    case Coll::AllReduce:
      reduceInto<T, O>(out, lo, hi, n, skip, [&](uint32_t p) { return data[p]; });
      break;
    case Coll::Reduce:
      if (me == (uint32_t)Root)
        reduceInto<T, O>(out, lo, hi, n, skip, [&](uint32_t p) { return data[p]; });
      break;
    case Coll::ReduceScatter:
      reduceInto<T, O>(out, lo, hi, n, skip,
                       [&](uint32_t p) { return data[p] + me * count * es; });
      break;
    case Coll::AllGather:
      if (V == kViaFloat) {
        for (uint32_t p = 0; p < n; p++)
          for (uint64_t i = lo; i < hi; i++)
            cclperf::storeFromFloat(T, out, p * count + i,
                                    cclperf::loadAsFloat(T, data[p], i));
        break;
      }
      for (uint32_t p = 0; p < n; p++) {
        uint32_t from = V == kBroken && n > 1 && p == n - 1 ? 0 : p;
        std::memcpy(out + (p * count + lo) * es, data[from] + lo * es, (hi - lo) * es);
      }
      break;
    case Coll::AllToAll:
      for (uint32_t p = 0; p < n; p++) {
        uint64_t blk = V == kBroken ? p : me;
        std::memcpy(out + (p * count + lo) * es, data[p] + (blk * count + lo) * es,
                    (hi - lo) * es);
      }
      break;
    case Coll::Broadcast:
      if (V == kBroken && me != (uint32_t)Root && block == ctx->nblocks - 1) break;
      std::memcpy(out + lo * es, data[Root] + lo * es, (hi - lo) * es);
      break;
  }
}

template <Coll C, DType T, Op O, int V, int Root>
void kernel(const ccl_dev_ctx *ctx, const void *input, void *output,
            uint64_t count, uint32_t block) {
  startDelay(ctx, block);
  const uint32_t n = ctx->nranks, me = ctx->rank, nb = ctx->nblocks;
  const size_t es = cclperf::dtypeSize(T);
  const uint32_t epoch = __atomic_load_n(&ctx->epoch[0], __ATOMIC_ACQUIRE);
  const uint32_t flag = epoch + 1;
  const uint64_t lo = count * block / nb, hi = count * (block + 1) / nb;
  // Every rank's data scratch, and its flags: ready[b] = 2b, done[b] = 2b+1.
  char *data[8];
  for (uint32_t p = 0; p < n && p < 8; p++) data[p] = (char *)ctx->scratch[0 * n + p];
  auto flags = [&](uint32_t r) { return (uint32_t *)ctx->scratch[1 * n + r]; };
  bool ok = true;
  // 0. Everyone who reads my scratch is done with the previous call's data.
  // The racy variant skips this: the reuse of the scratch is unprotected.
  for (uint32_t p = 0; p < n && ok && V != kRacy; p++)
    if (p != me && reads<C, Root>(p, me))
      ok = waitFlag(ctx, &flags(p)[2 * block + 1], epoch, block, kOpWaitDone);
  bool staged = false;
  for (uint32_t p = 0; p < n; p++) staged |= reads<C, Root>(p, me);
  if (ok && staged) {  // 1.
    const uint64_t blocks = blockedInput<C>() ? n : 1;
    for (uint64_t q = 0; q < blocks; q++)
      std::memcpy(data[me] + (q * count + lo) * es,
                  (const char *)input + (q * count + lo) * es, (hi - lo) * es);
    __atomic_store_n(&flags(me)[2 * block], flag, __ATOMIC_RELEASE);
  }
  for (uint32_t p = 0; p < n && ok; p++)  // 2.
    if (p != me && reads<C, Root>(me, p))
      ok = waitFlag(ctx, &flags(p)[2 * block], flag, block, kOpWaitReady);
  if (ok) {
    compute<C, T, O, V, Root>(ctx, output, count, lo, hi, block, data);
    __atomic_store_n(&flags(me)[2 * block + 1], flag, __ATOMIC_RELEASE);  // 3.
  }
  if (__atomic_add_fetch(&ctx->epoch[1], 1u, __ATOMIC_ACQ_REL) == nb) {
    __atomic_store_n(&ctx->epoch[1], 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&ctx->epoch[0], epoch + 1, __ATOMIC_RELEASE);
  }
}

// Source lines of the two waits above, for the error reports.
const ccl_op_info kOps[] = {
    {"wait(done)", "test/perf/testar.cc", 224, 12},
    {"wait(ready)", "test/perf/testar.cc", 236, 12},
};

#define KERNEL(C, T, O, V, R) \
  { (uint32_t)DType::T, (uint32_t)Op::O, nullptr, &kernel<Coll::C, DType::T, Op::O, V, R> }
#define ALL_KERNELS(C, V, R)                                                     \
  {                                                                              \
    KERNEL(C, Float32, Sum, V, R), KERNEL(C, Float32, Prod, V, R),                       \
        KERNEL(C, Float32, Max, V, R), KERNEL(C, Float32, Min, V, R),                    \
        KERNEL(C, Float16, Sum, V, R), KERNEL(C, Float16, Prod, V, R),                   \
        KERNEL(C, Float16, Max, V, R), KERNEL(C, Float16, Min, V, R),                    \
        KERNEL(C, Bfloat16, Sum, V, R), KERNEL(C, Bfloat16, Prod, V, R),                 \
        KERNEL(C, Bfloat16, Max, V, R), KERNEL(C, Bfloat16, Min, V, R),                  \
  }
// A collective without an operator needs one kernel per dtype; generated
// libraries have them for the operators they were compiled for (sum by
// default).
#define SUM_KERNELS(C, V, R) \
  { KERNEL(C, Float32, Sum, V, R), KERNEL(C, Float16, Sum, V, R), KERNEL(C, Bfloat16, Sum, V, R) }

const ccl_kernel_info kKernels[] = ALL_KERNELS(AllReduce, kCorrect, 0);
const ccl_kernel_info kBrokenKernels[] = ALL_KERNELS(AllReduce, kBroken, 0);
const ccl_kernel_info kSumOnlyKernels[] = {KERNEL(AllReduce, Float32, Sum, kCorrect, 0)};
const ccl_kernel_info kAgKernels[] = SUM_KERNELS(AllGather, kCorrect, 0);
const ccl_kernel_info kAgBrokenKernels[] = SUM_KERNELS(AllGather, kBroken, 0);
const ccl_kernel_info kAgViaFloatKernels[] = SUM_KERNELS(AllGather, kViaFloat, 0);
const ccl_kernel_info kRsKernels[] = ALL_KERNELS(ReduceScatter, kCorrect, 0);
const ccl_kernel_info kRsBrokenKernels[] = ALL_KERNELS(ReduceScatter, kBroken, 0);
const ccl_kernel_info kA2aKernels[] = SUM_KERNELS(AllToAll, kCorrect, 0);
const ccl_kernel_info kA2aBrokenKernels[] = SUM_KERNELS(AllToAll, kBroken, 0);
const ccl_kernel_info kBcKernels[] = SUM_KERNELS(Broadcast, kCorrect, 1);
const ccl_kernel_info kBcBrokenKernels[] = SUM_KERNELS(Broadcast, kBroken, 1);
const ccl_kernel_info kRedKernels[] = ALL_KERNELS(Reduce, kCorrect, 1);
const ccl_kernel_info kRedBrokenKernels[] = ALL_KERNELS(Reduce, kBroken, 1);
const ccl_kernel_info kRacyKernels[] = SUM_KERNELS(Broadcast, kRacy, 0);

// Scratch: "data" holds S count-sized blocks (one, or nranks for
// ReduceScatter and AllToAll), "flags" the flag words (2 per block; its
// size, max_bytes, is plenty).
template <uint32_t S>
struct Scratch {
  static const ccl_scratch_info v[2];
};
template <uint32_t S>
const ccl_scratch_info Scratch<S>::v[2] = {{"data", S, 0}, {"flags", 1, 0}};

#define NUM(A) (uint32_t)(sizeof(A) / sizeof(A[0]))
#define VARIANT(N, NB, K, S) \
  { N, NB, 1, 2, Scratch<S>::v, NUM(K), K }
#define VARIANTS(K)                                                              \
  {                                                                              \
    VARIANT(1, 2, K, 1), VARIANT(2, 2, K, 1), VARIANT(3, 3, K, 1),               \
        VARIANT(4, 2, K, 1), VARIANT(5, 2, K, 1), VARIANT(6, 2, K, 1),           \
        VARIANT(7, 3, K, 1), VARIANT(8, 2, K, 1)                                 \
  }
#define BLOCKED_VARIANTS(K)                                                      \
  {                                                                              \
    VARIANT(1, 2, K, 1), VARIANT(2, 2, K, 2), VARIANT(3, 3, K, 3),               \
        VARIANT(4, 2, K, 4), VARIANT(5, 2, K, 5), VARIANT(6, 2, K, 6),           \
        VARIANT(7, 3, K, 7), VARIANT(8, 2, K, 8)                                 \
  }
// Root 1 needs at least 2 ranks.
#define ROOTED_VARIANTS(K)                                                       \
  {                                                                              \
    VARIANT(2, 2, K, 1), VARIANT(3, 3, K, 1), VARIANT(4, 2, K, 1),               \
        VARIANT(5, 2, K, 1), VARIANT(6, 2, K, 1), VARIANT(7, 3, K, 1),           \
        VARIANT(8, 2, K, 1)                                                      \
  }
const ccl_variant kVariants[] = VARIANTS(kKernels);
const ccl_variant kBrokenVariants[] = VARIANTS(kBrokenKernels);
const ccl_variant kSumOnlyVariants[] = VARIANTS(kSumOnlyKernels);
const ccl_variant kAgVariants[] = VARIANTS(kAgKernels);
const ccl_variant kAgBrokenVariants[] = VARIANTS(kAgBrokenKernels);
const ccl_variant kAgViaFloatVariants[] = VARIANTS(kAgViaFloatKernels);
const ccl_variant kRsVariants[] = BLOCKED_VARIANTS(kRsKernels);
const ccl_variant kRsBrokenVariants[] = BLOCKED_VARIANTS(kRsBrokenKernels);
const ccl_variant kA2aVariants[] = BLOCKED_VARIANTS(kA2aKernels);
const ccl_variant kA2aBrokenVariants[] = BLOCKED_VARIANTS(kA2aBrokenKernels);
const ccl_variant kBcVariants[] = ROOTED_VARIANTS(kBcKernels);
const ccl_variant kBcBrokenVariants[] = ROOTED_VARIANTS(kBcBrokenKernels);
const ccl_variant kRedVariants[] = ROOTED_VARIANTS(kRedKernels);
const ccl_variant kRedBrokenVariants[] = ROOTED_VARIANTS(kRedBrokenKernels);
const ccl_variant kRacyVariants[] = VARIANTS(kRacyKernels);

// max_bytes: input bytes per rank (4 MiB for the AllReduce plans, 1 MiB for
// the others, to keep the scratch of a 8-rank communicator small).
#define PLAN(NAME, COLL, V, MAX, ROOT)                                           \
  {                                                                              \
    CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, NAME, COLL, 0, 1, CCL_PROTO_SIMPLE,   \
        MAX, "test/perf/testar.cc", NUM(V), V, NUM(kOps), kOps, 0, nullptr, ROOT \
  }
const ccl_plan kPlans[] = {
    PLAN("testar", "AllReduce", kVariants, 4u << 20, 0),
    PLAN("testar_broken", "AllReduce", kBrokenVariants, 4u << 20, 0),
    PLAN("testar_sumonly", "AllReduce", kSumOnlyVariants, 4u << 20, 0),
    PLAN("testar_allgather", "AllGather", kAgVariants, 1u << 20, 0),
    PLAN("testar_allgather_broken", "AllGather", kAgBrokenVariants, 1u << 20, 0),
    PLAN("testar_reducescatter", "ReduceScatter", kRsVariants, 1u << 20, 0),
    PLAN("testar_reducescatter_broken", "ReduceScatter", kRsBrokenVariants, 1u << 20, 0),
    PLAN("testar_alltoall", "AllToAll", kA2aVariants, 1u << 20, 0),
    PLAN("testar_alltoall_broken", "AllToAll", kA2aBrokenVariants, 1u << 20, 0),
    PLAN("testar_broadcast", "Broadcast", kBcVariants, 1u << 20, 1),
    PLAN("testar_broadcast_broken", "Broadcast", kBcBrokenVariants, 1u << 20, 1),
    PLAN("testar_reduce", "Reduce", kRedVariants, 1u << 20, 1),
    PLAN("testar_reduce_broken", "Reduce", kRedBrokenVariants, 1u << 20, 1),
    PLAN("testar_racy", "Broadcast", kRacyVariants, 1u << 20, 0),
    PLAN("testar_allgather_viafloat", "AllGather", kAgViaFloatVariants, 1u << 20, 0),
};

__attribute__((constructor)) void registerPlans() {
  for (const ccl_plan &p : kPlans) cclrtRegisterPlan(&p);
}

}  // namespace

#define ENTRY(NAME, I)                                                          \
  extern "C" __attribute__((visibility("default"))) int NAME(                   \
      cclComm_t comm, const void *input, void *output, size_t count,            \
      cclDataType_t dtype, cclRedOp_t op, cclStream_t stream) {                 \
    return cclrtLaunch(&kPlans[I], comm, input, output, count, dtype, op, stream); \
  }
ENTRY(ccl_testar, 0)
ENTRY(ccl_testar_broken, 1)
ENTRY(ccl_testar_sumonly, 2)
ENTRY(ccl_testar_allgather, 3)
ENTRY(ccl_testar_allgather_broken, 4)
ENTRY(ccl_testar_reducescatter, 5)
ENTRY(ccl_testar_reducescatter_broken, 6)
ENTRY(ccl_testar_alltoall, 7)
ENTRY(ccl_testar_alltoall_broken, 8)
// Broadcast and Reduce take the root at run time, as generated entry points
// do: the runtime runs the plan (written for its own root) with the ranks
// relabelled for the call's root.
#define ROOTED_ENTRY(NAME, I)                                                   \
  extern "C" __attribute__((visibility("default"))) int NAME(                   \
      cclComm_t comm, const void *input, void *output, size_t count,            \
      cclDataType_t dtype, cclRedOp_t op, int root, cclStream_t stream) {       \
    return cclrtLaunchRooted(&kPlans[I], comm, input, output, count, dtype, op, \
                             root, stream);                                     \
  }
ROOTED_ENTRY(ccl_testar_broadcast, 9)
ROOTED_ENTRY(ccl_testar_broadcast_broken, 10)
ROOTED_ENTRY(ccl_testar_reduce, 11)
ROOTED_ENTRY(ccl_testar_reduce_broken, 12)
ROOTED_ENTRY(ccl_testar_racy, 13)
ENTRY(ccl_testar_allgather_viafloat, 14)
// testar's kernels behind an entry point whose plan ccl-perf cannot find
// (no plan is registered or exported as "testar_noplan"): nothing bounds
// its message sizes.
ENTRY(ccl_testar_noplan, 0)
