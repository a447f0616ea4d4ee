// staging_test.cc - in-place and out-of-place calls of AllGather and
// ReduceScatter (cclrtLaunch's staging, docs/runtime.md "In place and out of
// place") on the host target, for 2, 3 and 4 ranks. Four hand-written
// plans, each a real collective whose kernels exchange data through scratch
// with the device library's put, signal and wait (acknowledged with credit-1
// channels, so calls can follow each other without host synchronisation):
//  - ag_oop: out-of-place AllGather (reads input, writes output);
//  - ag_ip:  in-place AllGather: uses only `output` (its own block at
//            output + rank * count, as MSCCLang's index mapping says);
//  - rs_oop: out-of-place ReduceScatter;
//  - rs_ip:  in-place ReduceScatter: uses only `input`, leaves its result
//            in input + rank * count;
//  - ag_both, rs_both: plans of both forms (CCL_INPLACE_BOTH, what cclc
//            emits for `implements C(inplace, outofplace)`): out-of-place
//            code that is also correct on the in-place layout, given the
//            caller's buffers as they are in either form (never staged).
// Each plan is called in place (NCCL's layouts) and out of place,
// alternating, with varying counts (the largest included), twelve calls
// back to back: inputs refilled, outputs and inputs saved with
// cclMemcpyAsync, output buffers poisoned before every call. Checked: every
// result, the caller's input of out-of-place calls unchanged, the buffers
// each kind of kernel was given (in-place kernels the in-place layout,
// out-of-place kernels disjoint buffers, kernels of both forms exactly the
// caller's pointers), and the refusal of other overlaps with its message.
#include <atomic>
#include <vector>

#include "runtime/device/ccl_device.h"
#include "test_util.h"

extern "C" void __ccl_host_set_block(uint32_t block);

namespace {

std::string last() { return cclGetLastError(); }

constexpr int kMaxRanks = 4;
constexpr uint64_t kMaxBytes = 4096;
constexpr uint64_t kMaxCount = kMaxBytes / 4;

// Channel of the ordered pair a -> b (a != b): data channels first, then
// their acknowledgements (b -> a, credit 1).
uint32_t pairIndex(uint32_t n, uint32_t a, uint32_t b) {
  return a * (n - 1) + (b < a ? b : b - 1);
}
uint32_t dataChannel(uint32_t n, uint32_t a, uint32_t b) {
  return pairIndex(n, a, b);
}
uint32_t ackChannel(uint32_t n, uint32_t a, uint32_t b) { // ack of a -> b
  return n * (n - 1) + pairIndex(n, b, a);
}

// What the kernels were given, per kind: violations of the expected
// aliasing.
std::atomic<int> g_bad_alias{0};
std::atomic<int> g_calls{0};

bool disjoint(const void *a, uint64_t na, const void *b, uint64_t nb) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x + na <= y || y + nb <= x;
}

// Sends `nbytes` at `src` to every peer's scratch slot `rank` (after the
// peer's acknowledgement of the previous call), then waits for every peer's
// data in this rank's slots and hands each to `take(peer, slot)`, then
// acknowledges them.
template <typename Take>
void exchange(const ccl_dev_ctx *ctx, uint32_t epoch, uint64_t count,
              const char *(*src_for)(const ccl_dev_ctx *, const void *,
                                     uint64_t, uint32_t),
              const void *buf, Take take) {
  const uint32_t n = ctx->nranks, r = ctx->rank;
  for (uint32_t p = 0; p < n; p++) {
    if (p == r)
      continue;
    __ccl_wait(ctx, ackChannel(n, r, p), 0, 1);
    char *slot = __ccl_scratch_ptr(ctx, 0, p, r, n, count, 1, 4, epoch, 0);
    __ccl_put(slot, src_for(ctx, buf, count, p), count * 4);
    __ccl_signal(ctx, dataChannel(n, r, p));
  }
  for (uint32_t q = 0; q < n; q++) {
    if (q == r)
      continue;
    __ccl_wait(ctx, dataChannel(n, q, r), 0, 0);
    take(q, __ccl_scratch_ptr(ctx, 0, r, q, n, count, 1, 4, epoch, 0));
  }
  // Acknowledge only once every slot is read: slot offsets depend on the
  // count, so a peer's next call (of another count) may write anywhere in
  // this rank's buffer.
  for (uint32_t q = 0; q < n; q++)
    if (q != r)
      __ccl_signal(ctx, ackChannel(n, q, r));
  for (uint32_t p = 0; p < n; p++) {
    if (p == r)
      continue;
    __ccl_wait_commit(ctx, ackChannel(n, r, p), 1);
    __ccl_wait_commit(ctx, dataChannel(n, p, r), 1);
  }
}

// What a rank sends to peer p: AllGather its own block, ReduceScatter
// block p of its input.
const char *whole(const ccl_dev_ctx *, const void *buf, uint64_t, uint32_t) {
  return static_cast<const char *>(buf);
}
const char *block_of(const ccl_dev_ctx *, const void *buf, uint64_t count,
                     uint32_t p) {
  return static_cast<const char *>(buf) + (uint64_t)p * count * 4;
}

// The buffers each rank's kernels of both forms were given, in call order
// (each rank's kernels run one after another on its worker).
std::vector<std::pair<const void *, void *>> g_given[kMaxRanks];

// What every kernel here does around its body: the block, the call's
// epoch, the count of kernel calls.
template <typename Body>
void kernel(const ccl_dev_ctx *ctx, uint32_t block, Body body) {
  __ccl_host_set_block(block);
  uint32_t epoch = __ccl_begin(ctx);
  body(epoch);
  g_calls++;
  __ccl_end(ctx, epoch);
}

// Out-of-place AllGather; on the in-place layout (input == output + rank *
// count) the copy of its own block is skipped and the rest holds too.
void ag_body(const ccl_dev_ctx *ctx, uint32_t epoch, const void *input,
             void *output, uint64_t count) {
  char *out = static_cast<char *>(output);
  char *mine = out + (uint64_t)ctx->rank * count * 4;
  if (mine != input)
    __ccl_copy(mine, static_cast<const char *>(input), count * 4);
  exchange(ctx, epoch, count, whole, input, [&](uint32_t q, char *slot) {
    __ccl_copy(out + (uint64_t)q * count * 4, slot, count * 4);
  });
}

void ag_oop(const ccl_dev_ctx *ctx, const void *input, void *output,
            uint64_t count, uint32_t block) {
  kernel(ctx, block, [&](uint32_t epoch) {
    if (count && !disjoint(input, count * 4, output, ctx->nranks * count * 4))
      g_bad_alias++;
    ag_body(ctx, epoch, input, output, count);
  });
}

void ag_both(const ccl_dev_ctx *ctx, const void *input, void *output,
             uint64_t count, uint32_t block) {
  kernel(ctx, block, [&](uint32_t epoch) {
    g_given[ctx->rank].push_back({input, output});
    ag_body(ctx, epoch, input, output, count);
  });
}

// In place: the rank's block is output + rank * count; `input` is not read.
void ag_ip(const ccl_dev_ctx *ctx, const void *input, void *output,
           uint64_t count, uint32_t block) {
  kernel(ctx, block, [&](uint32_t epoch) {
    char *out = static_cast<char *>(output);
    char *mine = out + (uint64_t)ctx->rank * count * 4;
    if (count && input != mine)
      g_bad_alias++;
    exchange(ctx, epoch, count, whole, mine, [&](uint32_t q, char *slot) {
      __ccl_copy(out + (uint64_t)q * count * 4, slot, count * 4);
    });
  });
}

// Out-of-place ReduceScatter; on the in-place layout (output == input +
// rank * count) the copy of its own block is skipped, and the peers' blocks
// it sends are not the one it reduces into.
void rs_body(const ccl_dev_ctx *ctx, uint32_t epoch, const void *input,
             void *output, uint64_t count) {
  char *out = static_cast<char *>(output);
  const char *mine = block_of(ctx, input, count, ctx->rank);
  if (mine != out)
    __ccl_copy(out, mine, count * 4);
  exchange(ctx, epoch, count, block_of, input, [&](uint32_t, char *slot) {
    __ccl_reduce_f32_sum(out, slot, count);
  });
}

void rs_oop(const ccl_dev_ctx *ctx, const void *input, void *output,
            uint64_t count, uint32_t block) {
  kernel(ctx, block, [&](uint32_t epoch) {
    if (count && !disjoint(input, ctx->nranks * count * 4, output, count * 4))
      g_bad_alias++;
    rs_body(ctx, epoch, input, output, count);
  });
}

void rs_both(const ccl_dev_ctx *ctx, const void *input, void *output,
             uint64_t count, uint32_t block) {
  kernel(ctx, block, [&](uint32_t epoch) {
    g_given[ctx->rank].push_back({input, output});
    rs_body(ctx, epoch, input, output, count);
  });
}

// In place: the result goes to input + rank * count; `output` is not used.
void rs_ip(const ccl_dev_ctx *ctx, const void *input, void *output,
           uint64_t count, uint32_t block) {
  kernel(ctx, block, [&](uint32_t epoch) {
    char *in = const_cast<char *>(static_cast<const char *>(input));
    char *mine = in + (uint64_t)ctx->rank * count * 4;
    if (count && output != mine)
      g_bad_alias++;
    exchange(ctx, epoch, count, block_of, in, [&](uint32_t, char *slot) {
      __ccl_reduce_f32_sum(mine, slot, count);
    });
  });
}

// Variants for 2, 3 and 4 ranks: one block, one scratch buffer of n slots,
// data and credit-1 acknowledgement channels for every ordered pair.
const ccl_scratch_info kScratch[5] = {
    {}, {}, {"recv", 2, 0}, {"recv", 3, 0}, {"recv", 4, 0}};
ccl_channel_info g_channels[5][2 * kMaxRanks * (kMaxRanks - 1)];

const ccl_kernel_info kAgOop[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "ag", ag_oop}};
const ccl_kernel_info kAgIp[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "ag", ag_ip}};
const ccl_kernel_info kRsOop[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "rs", rs_oop}};
const ccl_kernel_info kRsIp[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "rs", rs_ip}};
const ccl_kernel_info kAgBoth[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "ag", ag_both}};
const ccl_kernel_info kRsBoth[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "rs", rs_both}};

#define VARIANTS(kernels)                                                      \
  {{2, 1, 1, 1, &kScratch[2], 1, kernels, 4, g_channels[2]},                   \
   {3, 1, 1, 1, &kScratch[3], 1, kernels, 12, g_channels[3]},                  \
   {4, 1, 1, 1, &kScratch[4], 1, kernels, 24, g_channels[4]}}
const ccl_variant kAgOopV[] = VARIANTS(kAgOop);
const ccl_variant kAgIpV[] = VARIANTS(kAgIp);
const ccl_variant kRsOopV[] = VARIANTS(kRsOop);
const ccl_variant kRsIpV[] = VARIANTS(kRsIp);
const ccl_variant kAgBothV[] = VARIANTS(kAgBoth);
const ccl_variant kRsBothV[] = VARIANTS(kRsBoth);

const ccl_op_info kOps[] = {{"wait", "x.ccl", 1, 1}, {"wait", "x.ccl", 2, 1}};
#define PLAN(name, coll, inplace, variants)                                    \
  {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, name, coll, inplace, 1,              \
   CCL_PROTO_SIMPLE, kMaxBytes, name ".ccl", 3, variants, 2, kOps, 0, nullptr}
const ccl_plan kAgOopPlan = PLAN("ag_oop", "AllGather", 0, kAgOopV);
const ccl_plan kAgIpPlan = PLAN("ag_ip", "AllGather", 1, kAgIpV);
const ccl_plan kRsOopPlan = PLAN("rs_oop", "ReduceScatter", 0, kRsOopV);
const ccl_plan kRsIpPlan = PLAN("rs_ip", "ReduceScatter", 1, kRsIpV);
const ccl_plan kAgBothPlan =
    PLAN("ag_both", "AllGather", CCL_INPLACE_BOTH, kAgBothV);
const ccl_plan kRsBothPlan =
    PLAN("rs_both", "ReduceScatter", CCL_INPLACE_BOTH, kRsBothV);

// For the overlap messages of the other collectives (never runs).
void nop(const ccl_dev_ctx *, const void *, void *, uint64_t, uint32_t) {}
const ccl_kernel_info kNop[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "nop", nop}};
const ccl_variant kNopV[] = {{2, 1, 1, 0, nullptr, 1, kNop}};
const ccl_plan kArPlan = {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, "ar",
                          "AllReduce", 0, 1, CCL_PROTO_SIMPLE, kMaxBytes,
                          "ar.ccl", 1, kNopV, 0, nullptr, 0, nullptr};
const ccl_plan kA2aPlan = {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, "a2a",
                           "AllToAll", 0, 1, CCL_PROTO_SIMPLE, kMaxBytes,
                           "a2a.ccl", 1, kNopV, 0, nullptr, 0, nullptr};

__attribute__((constructor)) void register_plans() {
  for (uint32_t n = 2; n <= kMaxRanks; n++)
    for (uint32_t a = 0; a < n; a++)
      for (uint32_t b = 0; b < n; b++) {
        if (a == b)
          continue;
        g_channels[n][dataChannel(n, a, b)] = {a, b, CCL_CHANNEL_MEMORY, 0};
        g_channels[n][ackChannel(n, a, b)] = {b, a, CCL_CHANNEL_MEMORY, 1};
      }
  cclrtRegisterPlan(&kAgOopPlan);
  cclrtRegisterPlan(&kAgIpPlan);
  cclrtRegisterPlan(&kRsOopPlan);
  cclrtRegisterPlan(&kRsIpPlan);
  cclrtRegisterPlan(&kAgBothPlan);
  cclrtRegisterPlan(&kRsBothPlan);
  cclrtRegisterPlan(&kArPlan);
  cclrtRegisterPlan(&kA2aPlan);
}

float value(int rank, int call, uint64_t i) {
  return (float)(rank * 100000 + call * 1000 + (int)(i % 500));
}

bool collective_is(const ccl_plan *p, const char *c) {
  return strcmp(p->collective, c) == 0;
}

// One rank's device buffers for a run.
struct RankBufs {
  void *in = nullptr, *out = nullptr, *big = nullptr, *poison = nullptr;
  std::vector<void *> src, saveOut, saveIn;
};

void alloc(cclComm_t c, void **p, size_t bytes) {
  CHECK_OK(cclMemAlloc(c, p, bytes));
}

// Runs `calls` calls of `plan` on n ranks, alternately in place (odd calls)
// and out of place, back to back; checks everything at the end.
void run_plan(const ccl_plan *plan, int n) {
  const bool ag = collective_is(plan, "AllGather");
  std::vector<cclComm_t> comms(n);
  CHECK_OK(cclCommInitAllInProcess(comms.data(), n, cclTargetHost, nullptr));
  const uint64_t counts[] = {kMaxCount, 7, 300, 1, kMaxCount, 513,
                             64,        kMaxCount, 2, 100, 999, kMaxCount};
  const int calls = sizeof counts / sizeof counts[0];
  const size_t bigBytes = n * kMaxBytes;
  std::vector<RankBufs> rb(n);
  for (int r = 0; r < n; r++) {
    RankBufs &b = rb[r];
    alloc(comms[r], &b.in, bigBytes);
    alloc(comms[r], &b.out, bigBytes);
    alloc(comms[r], &b.big, bigBytes);
    alloc(comms[r], &b.poison, bigBytes);
    std::vector<float> poison(bigBytes / 4, -7.0f);
    CHECK_OK(cclMemcpyToDevice(comms[r], b.poison, poison.data(), bigBytes));
    for (int k = 0; k < calls; k++) {
      // The call's input: count elements (AllGather) or n blocks.
      std::vector<float> h(bigBytes / 4);
      for (uint64_t i = 0; i < h.size(); i++)
        h[i] = value(r, k, i);
      void *p;
      alloc(comms[r], &p, bigBytes);
      CHECK_OK(cclMemcpyToDevice(comms[r], p, h.data(), bigBytes));
      b.src.push_back(p);
      alloc(comms[r], &p, bigBytes);
      b.saveOut.push_back(p);
      alloc(comms[r], &p, bigBytes);
      b.saveIn.push_back(p);
    }
  }
  const int before = g_calls.load();
  for (auto &g : g_given)
    g.clear();
  // The buffers of each rank's calls, as the caller passed them.
  std::vector<std::vector<std::pair<const void *, void *>>> passed(n);
  for (int k = 0; k < calls; k++) {
    const uint64_t count = counts[k];
    const uint64_t bytes = count * 4;
    const bool inPlace = k % 2 == 1;
    for (int r = 0; r < n; r++) {
      RankBufs &b = rb[r];
      cclComm_t c = comms[r];
      const uint64_t inBytes = ag ? bytes : n * bytes;
      const uint64_t outBytes = ag ? n * bytes : bytes;
      char *big = static_cast<char *>(b.big);
      const void *input;
      void *output;
      if (!inPlace) {
        CHECK_OK(cclMemcpyAsync(c, b.in, b.src[k], inBytes, nullptr));
        CHECK_OK(cclMemcpyAsync(c, b.out, b.poison, outBytes, nullptr));
        input = b.in;
        output = b.out;
      } else if (ag) {
        CHECK_OK(cclMemcpyAsync(c, big, b.poison, n * bytes, nullptr));
        CHECK_OK(cclMemcpyAsync(c, big + r * bytes, b.src[k], bytes,
                                nullptr));
        input = big + r * bytes;
        output = big;
      } else {
        CHECK_OK(cclMemcpyAsync(c, big, b.src[k], n * bytes, nullptr));
        input = big;
        output = big + r * bytes;
      }
      passed[r].push_back({input, output});
      CHECK_OK(cclrtLaunch(plan, c, input, output, count, cclFloat32, cclSum,
                           nullptr));
      CHECK_OK(cclMemcpyAsync(c, b.saveOut[k], output, outBytes, nullptr));
      if (!inPlace)
        CHECK_OK(cclMemcpyAsync(c, b.saveIn[k], input, inBytes, nullptr));
    }
  }
  for (int r = 0; r < n; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  CHECK(g_calls.load() - before == calls * n);
  if (plan->inplace == CCL_INPLACE_BOTH)
    for (int r = 0; r < n; r++) {
      // Nothing staged: the kernel ran on the caller's buffers, in place
      // and out of place alike.
      CHECK(g_given[r].size() == (size_t)calls);
      for (int k = 0; k < calls && k < (int)g_given[r].size(); k++)
        if (g_given[r][k] != passed[r][k]) {
          fprintf(stderr,
                  "%s, %d ranks, call %d (%s): rank %d's kernel got input "
                  "%p, output %p; the caller passed %p, %p\n",
                  plan->algorithm, n, k, k % 2 ? "in place" : "out of place", r,
                  g_given[r][k].first, g_given[r][k].second, passed[r][k].first,
                  passed[r][k].second);
          g_failures++;
        }
    }
  for (int k = 0; k < calls; k++) {
    const uint64_t count = counts[k];
    const bool inPlace = k % 2 == 1;
    for (int r = 0; r < n; r++) {
      const uint64_t outElems = ag ? n * count : count;
      std::vector<float> out(outElems);
      CHECK_OK(cclMemcpyFromDevice(comms[r], out.data(), rb[r].saveOut[k],
                                   outElems * 4));
      int bad = 0;
      for (uint64_t i = 0; i < outElems; i++) {
        float expect = 0;
        if (ag) {
          expect = value((int)(i / count), k, i % count);
        } else {
          for (int p = 0; p < n; p++)
            expect += value(p, k, r * count + i);
        }
        if (out[i] != expect && bad++ == 0)
          fprintf(stderr,
                  "%s, %d ranks, call %d (count %lu, %s): rank %d "
                  "output[%lu] = %f, expected %f\n",
                  plan->algorithm, n, k, (unsigned long)count,
                  inPlace ? "in place" : "out of place", r, (unsigned long)i,
                  out[i], expect);
      }
      CHECK(bad == 0);
      if (!inPlace) {
        // The caller's input is untouched.
        const uint64_t inElems = ag ? count : n * count;
        std::vector<float> in(inElems);
        CHECK_OK(cclMemcpyFromDevice(comms[r], in.data(), rb[r].saveIn[k],
                                     inElems * 4));
        for (uint64_t i = 0; i < inElems; i++)
          if (in[i] != value(r, k, i)) {
            fprintf(stderr, "%s, %d ranks, call %d: rank %d input[%lu] "
                            "changed\n",
                    plan->algorithm, n, k, r, (unsigned long)i);
            g_failures++;
            break;
          }
      }
    }
  }
  CHECK(g_bad_alias.load() == 0);
  CHECK_OK(asyncError(comms[0]));
  for (int r = 0; r < n; r++) {
    RankBufs &b = rb[r];
    for (void *p : {b.in, b.out, b.big, b.poison})
      CHECK_OK(cclMemFree(comms[r], p));
    for (int k = 0; k < calls; k++) {
      CHECK_OK(cclMemFree(comms[r], b.src[k]));
      CHECK_OK(cclMemFree(comms[r], b.saveOut[k]));
      CHECK_OK(cclMemFree(comms[r], b.saveIn[k]));
    }
  }
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

// Overlaps other than the in-place layouts are refused, before anything is
// queued; count 0 accepts any pointers.
void test_overlap_refused() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  static float buf[4 * kMaxCount];
  char *b = reinterpret_cast<char *>(buf);
  char p[64];
  auto ptr = [&](const void *q) {
    snprintf(p, sizeof p, "%p", q);
    return std::string(p);
  };
  // AllGather, rank 1, 10 elements: in place is input == output + 40 bytes.
  CHECK_FAILS(cclrtLaunch(&kAgOopPlan, comms[1], b + 44, b, 10, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 1, algorithm ag_oop): input " +
                           ptr(b + 44) + " (40 bytes) and output " + ptr(b) +
                           " (80 bytes) overlap; AllGather takes disjoint "
                           "buffers or, in place, input == output + rank * "
                           "count elements (for rank 1: input == output + "
                           "40 bytes)");
  CHECK_FAILS(cclrtLaunch(&kAgIpPlan, comms[0], b + 40, b, 10, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "(for rank 0: input == output + 0 bytes)");
  // ReduceScatter, rank 1: in place is output == input + 40 bytes.
  CHECK_FAILS(cclrtLaunch(&kRsIpPlan, comms[1], b, b + 36, 10, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 1, algorithm rs_ip): input " +
                           ptr(b) + " (80 bytes) and output " + ptr(b + 36) +
                           " (40 bytes) overlap; ReduceScatter takes "
                           "disjoint buffers or, in place, output == input + "
                           "rank * count elements (for rank 1: output == "
                           "input + 40 bytes)");
  // Equal sizes: only input == output.
  CHECK_FAILS(cclrtLaunch(&kArPlan, comms[0], b + 4, b, 10, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ar): input " +
                           ptr(b + 4) + " (40 bytes) and output " + ptr(b) +
                           " (40 bytes) overlap; AllReduce takes disjoint "
                           "buffers or, in place, input == output");
  // AllToAll: n * count on both sides.
  CHECK_FAILS(cclrtLaunch(&kA2aPlan, comms[1], b + 76, b, 10, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "(80 bytes) and output " + ptr(b) + " (80 bytes) "
                         "overlap; AllToAll takes disjoint buffers or, in "
                         "place, input == output");
  // Adjacent is fine (nothing runs: the nop plan; AllGather on rank 1 with
  // input right after the output).
  CHECK_OK(cclrtLaunch(&kArPlan, comms[0], b + 40, b, 10, cclFloat32, cclSum,
                       nullptr));
  CHECK_OK(cclrtLaunch(&kA2aPlan, comms[0], b + 80, b, 10, cclFloat32,
                       cclSum, nullptr));
  CHECK_OK(cclrtLaunch(&kArPlan, comms[0], b, b, 0, cclFloat32, cclSum,
                       nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

} // namespace

int main() {
  for (int n = 2; n <= kMaxRanks; n++) {
    run_plan(&kAgOopPlan, n);
    run_plan(&kAgIpPlan, n);
    run_plan(&kRsOopPlan, n);
    run_plan(&kRsIpPlan, n);
    run_plan(&kAgBothPlan, n);
    run_plan(&kRsBothPlan, n);
  }
  test_overlap_refused();
  return test_result("staging_test");
}
