// allpairs_test.cc - the host target running hand-written kernels through
// libcclrt: an all-pairs LL AllReduce that exchanges packets through the
// scratch pointer table (epoch and double-buffered scratch across repeated
// calls), an in-place plan called with distinct buffers, an out-of-place
// plan called with input == output, launches from one thread per rank, and
// a kernel that needs every rank x block thread alive at once.
#include <malloc.h>

#include <atomic>
#include <thread>
#include <vector>

#include "test_util.h"

cclResult_t ccl_launch_allpairs(cclComm_t comm, const void *in, void *out,
                                uint64_t count);

namespace {

constexpr uint64_t kMaxBytes = 4096;
constexpr int kMaxRanks = 8;

// What block 0 of each rank saw (read by the test after synchronizing).
struct Record {
  std::vector<uint32_t> epochs;
  const ccl_dev_ctx *ctx = nullptr;
};
Record g_rec[kMaxRanks];

// All-pairs AllReduce (sum, float32) with LL packets: block b > 0 sends this
// rank's input to rank (rank + b) % n, into slot `rank` of its `recv`
// buffer; block 0 copies input to output and adds every peer's packets.
void allpairs_f32_sum(const ccl_dev_ctx *ctx, const void *input, void *output,
                      uint64_t count, uint32_t block) {
  const uint32_t epoch = kernel_begin(ctx);
  const uint32_t n = ctx->nranks, r = ctx->rank, flag = epoch + 1;
  const uint64_t bytes = count * 4;
  if (block > 0) {
    uint32_t p = (r + block) % n;
    char *dst = scratch_slot(ctx, 0, p, r, n, count, 1, 4, epoch);
    put_packets(dst, static_cast<const char *>(input), bytes, flag);
  } else {
    g_rec[r].ctx = ctx;
    g_rec[r].epochs.push_back(epoch);
    memcpy(output, input, bytes);
    float *o = static_cast<float *>(output);
    for (uint32_t q = 0; q < n; q++) {
      if (q == r)
        continue;
      const char *src = scratch_slot(ctx, 0, r, q, n, count, 1, 4, epoch);
      for (uint64_t i = 0; i * 2 < count; i++) {
        uint64_t payload;
        if (!read_packet(ctx, block, src, i, flag, /*op_id=*/2, &payload))
          goto done;
        float f[2];
        memcpy(f, &payload, 8);
        o[2 * i] += f[0];
        if (2 * i + 1 < count)
          o[2 * i + 1] += f[1];
      }
    }
  }
done:
  kernel_end(ctx);
}

const ccl_op_info kOps[] = {
    {"put_packets", "allpairs_ll.ccl", 10, 5},
    {"copy", "allpairs_ll.ccl", 11, 3},
    {"reduce_packets", "allpairs_ll.ccl", 12, 9},
};
const ccl_kernel_info kApKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "allpairs_f32_sum", allpairs_f32_sum}};
const ccl_scratch_info kRecv2[] = {{"recv", 2, 1}};
const ccl_scratch_info kRecv3[] = {{"recv", 3, 1}};
const ccl_scratch_info kRecv4[] = {{"recv", 4, 1}};
const ccl_variant kApVariants[] = {
    {2, 2, 1, 1, kRecv2, 1, kApKernels},
    {3, 3, 1, 1, kRecv3, 1, kApKernels},
    {4, 4, 1, 1, kRecv4, 1, kApKernels},
};
const ccl_plan kAllpairs = {CCL_PLAN_ABI_VERSION,
                            CCL_TARGET_HOST,
                            "allpairs_ll",
                            "AllReduce",
                            /*inplace=*/0,
                            /*chunks=*/1,
                            CCL_PROTO_LL,
                            kMaxBytes,
                            "allpairs_ll.ccl",
                            3,
                            kApVariants,
                            3,
                            kOps,
                            0,
                            nullptr};

// In-place plan: output[i] *= rank + 1; records whether input == output.
std::atomic<int> g_inplace_alias_ok{0}, g_inplace_calls{0};
void scale_f32(const ccl_dev_ctx *ctx, const void *input, void *output,
               uint64_t count, uint32_t block) {
  if (input == output)
    g_inplace_alias_ok++;
  g_inplace_calls++;
  float *o = static_cast<float *>(output);
  for (uint64_t i = 0; i < count; i++)
    o[i] *= (float)(ctx->rank + 1);
}
const ccl_kernel_info kScaleKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "scale", scale_f32}};
const ccl_variant kScaleVariants[] = {{2, 1, 1, 0, nullptr, 1, kScaleKernels}};
const ccl_plan kScale = {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, "scale",
                         "AllReduce",          1,               1,
                         CCL_PROTO_SIMPLE,     kMaxBytes,       "scale.ccl",
                         1,                    kScaleVariants,  0,
                         nullptr,              0,               nullptr};

// Barrier over every block of every rank: needs all ranks x blocks threads
// alive at once. `count` is the call index.
constexpr uint32_t kBarrierBlocks = 5;
std::atomic<uint64_t> g_barrier{0};
std::atomic<int> g_barrier_fail{0};
void barrier_kernel(const ccl_dev_ctx *ctx, const void *, void *,
                    uint64_t count, uint32_t) {
  uint64_t target = (uint64_t)ctx->nranks * ctx->nblocks * (count + 1);
  g_barrier++;
  uint64_t deadline = now_ns() + 20ull * 1000000000ull;
  while (g_barrier.load() < target) {
    if (now_ns() > deadline) {
      g_barrier_fail++;
      return;
    }
    cclrtHostPause(0); // the rank's other blocks run meanwhile
  }
}
const ccl_kernel_info kBarrierKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "barrier", barrier_kernel}};
const ccl_variant kBarrierVariants[] = {
    {3, kBarrierBlocks, 1, 0, nullptr, 1, kBarrierKernels}};
const ccl_plan kBarrier = {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, "barrier",
                           "AllReduce",          0,               1,
                           CCL_PROTO_SIMPLE,     1 << 20,         "barrier.ccl",
                           1,                    kBarrierVariants, 0,
                           nullptr,              0,               nullptr};

// Registered by a static constructor, as a generated library does.
__attribute__((constructor)) void register_plans() {
  cclrtRegisterPlan(&kAllpairs);
  cclrtRegisterPlan(&kScale);
  cclrtRegisterPlan(&kBarrier);
}

float input_value(int rank, uint64_t i, int call) {
  return (float)((rank + 1) * 1000 + (int)(i % 500) + call);
}

// Checks output of rank r after an allpairs call.
void check_allreduce(int n, const std::vector<float> &out, uint64_t count,
                     int call) {
  for (uint64_t i = 0; i < count; i++) {
    float expect = 0;
    for (int q = 0; q < n; q++)
      expect += input_value(q, i, call);
    if (out[i] != expect) {
      fprintf(stderr, "n=%d call %d: out[%lu] = %f, expected %f\n", n, call,
              (unsigned long)i, out[i], expect);
      g_failures++;
      return;
    }
  }
}

// Flags of the packets of slot q of rank r's recv buffer, epoch half e.
bool slot_flags_are(const ccl_dev_ctx *ctx, uint32_t q, uint64_t count,
                    uint32_t epoch_half, uint32_t flag) {
  const char *s =
      scratch_slot(ctx, 0, ctx->rank, q, ctx->nranks, count, 1, 4, epoch_half);
  for (uint64_t i = 0; i * 2 < count; i++) {
    uint32_t w[4];
    memcpy(w, s + i * 16, 16);
    if (w[1] != flag || w[3] != flag)
      return false;
  }
  return true;
}

void test_allpairs(int n) {
  for (auto &r : g_rec)
    r = Record();
  std::vector<cclComm_t> comms(n);
  CHECK_OK(cclCommInitAllInProcess(comms.data(), n, cclTargetHost, nullptr));
  std::vector<void *> in(n), out(n);
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclMemAlloc(comms[r], &in[r], kMaxBytes));
    CHECK_OK(cclMemAlloc(comms[r], &out[r], kMaxBytes));
    CHECK(((uintptr_t)in[r] & 63) == 0);
  }
  // Counts: the largest, odd ones, one element, an empty message. Each is
  // used for 3 calls in a row so that both scratch halves are checked.
  const uint64_t counts[] = {kMaxBytes / 4, 7, 1, 0, 333, 64};
  int call = 0;
  for (uint64_t count : counts) {
    for (int rep = 0; rep < 3; rep++, call++) {
      for (int r = 0; r < n; r++) {
        std::vector<float> h(count);
        for (uint64_t i = 0; i < count; i++)
          h[i] = input_value(r, i, call);
        CHECK_OK(cclMemcpyToDevice(comms[r], in[r], h.data(), count * 4));
      }
      for (int r = 0; r < n; r++)
        CHECK_OK(ccl_launch_allpairs(comms[r], in[r], out[r], count));
      for (int r = 0; r < n; r++)
        CHECK_OK(cclCommSynchronize(comms[r], nullptr));
      for (int r = 0; r < n; r++) {
        std::vector<float> h(count);
        CHECK_OK(cclMemcpyFromDevice(comms[r], h.data(), out[r], count * 4));
        check_allreduce(n, h, count, call);
        // Epoch: call index, seen at kernel start; advanced by the last block.
        CHECK(g_rec[r].epochs.size() == (size_t)call + 1);
        CHECK(g_rec[r].epochs.back() == (uint32_t)call);
        CHECK(g_rec[r].ctx->epoch[0] == (uint32_t)call + 1);
        CHECK(g_rec[r].ctx->epoch[1] == 0);
        // Scratch halves alternate: this call's packets (flag call + 1) are
        // in half call & 1, the previous call's (flag call) in the other.
        for (int q = 0; q < n; q++) {
          if (q == r || count == 0)
            continue;
          CHECK(slot_flags_are(g_rec[r].ctx, q, count, call, call + 1));
          if (rep > 0)
            CHECK(slot_flags_are(g_rec[r].ctx, q, count, call + 1, call));
        }
      }
    }
  }
  // The contexts: rank, sizes, one scratch table shared by all ranks'
  // views, the communicator's abort flag and error record, the timeout.
  for (int r = 0; r < n; r++) {
    const ccl_dev_ctx *c = g_rec[r].ctx;
    CHECK(c->rank == (uint32_t)r);
    CHECK(c->nranks == (uint32_t)n);
    CHECK(c->nblocks == (uint32_t)n);
    CHECK(c->num_scratch == 1);
    CHECK(c->timeout_ns == 30000ull * 1000000ull);
    CHECK(c->abort_flag == g_rec[0].ctx->abort_flag);
    CHECK(c->error == g_rec[0].ctx->error);
    CHECK(*c->abort_flag == 0);
    for (int q = 0; q < n; q++) {
      CHECK(c->scratch[q] == g_rec[q].ctx->scratch[q]);
      if (q != r)
        CHECK(c->scratch[q] != c->scratch[r]);
      // Size: slots * round8(unit * esize) * 2 * 2 halves, at the largest
      // count (max_bytes / 2 elements of 2 bytes).
      size_t expect = (size_t)n * ((kMaxBytes + 7) / 8 * 16) * 2;
      CHECK(malloc_usable_size(c->scratch[q]) >= expect);
      CHECK(((uintptr_t)c->scratch[q] & 63) == 0);
    }
    CHECK(c->epoch != g_rec[(r + 1) % n].ctx->epoch);
  }
  // cclCommSetTimeout updates the context at once.
  CHECK_OK(cclCommSetTimeout(comms[1], 250));
  CHECK(g_rec[1].ctx->timeout_ns == 250ull * 1000000ull);
  CHECK(g_rec[0].ctx->timeout_ns == 30000ull * 1000000ull);

  // Out-of-place plan called with input == output: the runtime stages the
  // input, the result lands in the buffer.
  const uint64_t count = 100;
  for (int r = 0; r < n; r++) {
    std::vector<float> h(count);
    for (uint64_t i = 0; i < count; i++)
      h[i] = input_value(r, i, 0);
    CHECK_OK(cclMemcpyToDevice(comms[r], out[r], h.data(), count * 4));
  }
  for (int r = 0; r < n; r++)
    CHECK_OK(ccl_launch_allpairs(comms[r], out[r], out[r], count));
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
    std::vector<float> h(count);
    CHECK_OK(cclMemcpyFromDevice(comms[r], h.data(), out[r], count * 4));
    check_allreduce(n, h, count, 0);
  }

  // One thread per rank, many calls in a row without synchronizing.
  const int kCalls = 200;
  for (int r = 0; r < n; r++) {
    std::vector<float> h(count);
    for (uint64_t i = 0; i < count; i++)
      h[i] = input_value(r, i, 5);
    CHECK_OK(cclMemcpyToDevice(comms[r], in[r], h.data(), count * 4));
  }
  std::vector<std::thread> threads;
  for (int r = 0; r < n; r++)
    threads.emplace_back([&, r] {
      for (int i = 0; i < kCalls; i++)
        CHECK_OK(ccl_launch_allpairs(comms[r], in[r], out[r], count));
      CHECK_OK(cclCommSynchronize(comms[r], nullptr));
    });
  for (auto &t : threads)
    t.join();
  for (int r = 0; r < n; r++) {
    std::vector<float> h(count);
    CHECK_OK(cclMemcpyFromDevice(comms[r], h.data(), out[r], count * 4));
    check_allreduce(n, h, count, 5);
    CHECK(g_rec[r].ctx->epoch[0] == (uint32_t)call + 1 + kCalls);
  }
  CHECK_OK(asyncError(comms[0]));
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclMemFree(comms[r], in[r]));
    CHECK_OK(cclMemFree(comms[r], out[r]));
  }
  for (int r = 0; r < n; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
}

void test_inplace() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  const uint64_t count = 37;
  float in[2][count], out[2][count];
  for (int r = 0; r < 2; r++)
    for (uint64_t i = 0; i < count; i++) {
      in[r][i] = (float)i;
      out[r][i] = -1;
    }
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclrtLaunch(&kScale, comms[r], in[r], out[r], count, cclFloat32,
                         cclSum, nullptr));
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  for (int r = 0; r < 2; r++)
    for (uint64_t i = 0; i < count; i++) {
      CHECK(out[r][i] == (float)i * (r + 1)); // copied, then run in place
      CHECK(in[r][i] == (float)i);            // input untouched
    }
  // In place for real: no copy, the kernel sees input == output.
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclrtLaunch(&kScale, comms[r], out[r], out[r], count, cclFloat32,
                         cclSum, nullptr));
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  for (int r = 0; r < 2; r++)
    for (uint64_t i = 0; i < count; i++)
      CHECK(out[r][i] == (float)i * (r + 1) * (r + 1));
  CHECK(g_inplace_calls.load() == 4);
  CHECK(g_inplace_alias_ok.load() == 4);
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
}

void test_all_threads_alive() {
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  // `count` is the call index: disjoint buffers of 20 elements.
  static float dummy[40];
  for (int call = 0; call < 20; call++)
    for (int r = 0; r < 3; r++)
      CHECK_OK(cclrtLaunch(&kBarrier, comms[r], dummy, dummy + 20, call,
                           cclFloat32, cclSum, nullptr));
  for (int r = 0; r < 3; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  CHECK(g_barrier.load() == 3ull * kBarrierBlocks * 20);
  CHECK(g_barrier_fail.load() == 0);
  for (int r = 0; r < 3; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
}

void test_env_timeout() {
  setenv("CCL_TIMEOUT_MS", "1234", 1);
  for (auto &r : g_rec)
    r = Record();
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  float a[2][4] = {{1, 2, 3, 4}, {10, 20, 30, 40}}, b[2][4];
  for (int r = 0; r < 2; r++)
    CHECK_OK(ccl_launch_allpairs(comms[r], a[r], b[r], 4));
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  CHECK(g_rec[0].ctx->timeout_ns == 1234ull * 1000000ull);
  CHECK(b[0][3] == 44 && b[1][0] == 11);
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
  // Fractions of a millisecond count (long ones here: a short timeout
  // could fire on a loaded machine); text that is not a non-negative number
  // falls back to the default (30 s).
  const struct {
    const char *env;
    uint64_t ns;
  } cases[] = {{"1000.25", 1000250000ull},
               {"2e3", 2000000000ull},
               {"0", 0ull},
               {"-1", 30000ull * 1000000ull},
               {"5ms", 30000ull * 1000000ull}};
  for (const auto &c : cases) {
    setenv("CCL_TIMEOUT_MS", c.env, 1);
    CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
    for (int r = 0; r < 2; r++)
      CHECK_OK(ccl_launch_allpairs(comms[r], a[r], b[r], 4));
    for (int r = 0; r < 2; r++)
      CHECK_OK(cclCommSynchronize(comms[r], nullptr));
    if (g_rec[0].ctx->timeout_ns != c.ns) {
      fprintf(stderr, "CCL_TIMEOUT_MS=%s gave %llu ns, not %llu\n", c.env,
              (unsigned long long)g_rec[0].ctx->timeout_ns,
              (unsigned long long)c.ns);
      CHECK(false);
    }
    for (int r = 0; r < 2; r++)
      CHECK_OK(cclCommDestroy(comms[r]));
  }
  unsetenv("CCL_TIMEOUT_MS");
}

// cclCommPlanMemory at 2 ranks: allpairs_ll (the 2-rank variant: 2 packet
// slots of the whole message, double-buffered, 16 bytes per 8: 8 x
// kMaxBytes of scratch; out of place, so an in-place call is staged
// through kMaxBytes) and scale (in place, no scratch); barrier has no
// 2-rank variant and is not prepared: cclCommUnpreparedPlan lists it.
void test_plan_memory() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  for (int r = 0; r < 2; r++) {
    uint64_t scratch = 1, staging = 1;
    int plans = -1;
    CHECK_OK(cclCommPlanMemory(comms[r], &scratch, &staging, &plans));
    if (scratch != 8 * kMaxBytes || staging != kMaxBytes || plans != 2) {
      fprintf(stderr,
              "cclCommPlanMemory(rank %d): %llu B scratch, %llu B staging, %d "
              "plans; expected %llu, %llu, 2\n",
              r, (unsigned long long)scratch, (unsigned long long)staging,
              plans, (unsigned long long)(8 * kMaxBytes),
              (unsigned long long)kMaxBytes);
      CHECK(false);
    }
    CHECK_OK(cclCommPlanMemory(comms[r], nullptr, nullptr, nullptr));
    // The one plan not prepared is barrier, with the reason.
    int count = -1;
    const char *algorithm = nullptr, *why = nullptr;
    CHECK_OK(cclCommUnpreparedPlan(comms[r], 0, &count, &algorithm, &why));
    if (count != 1 || !algorithm || strcmp(algorithm, "barrier") != 0 ||
        !why || !strstr(why, "no kernel for 2 ranks")) {
      fprintf(stderr, "cclCommUnpreparedPlan(rank %d): %d plans, %s: %s\n", r,
              count, algorithm ? algorithm : "(null)", why ? why : "(null)");
      CHECK(false);
    }
    CHECK_OK(cclCommUnpreparedPlan(comms[r], 1, nullptr, &algorithm, &why));
    CHECK(algorithm == nullptr && why == nullptr);
    CHECK_OK(cclCommUnpreparedPlan(comms[r], -1, nullptr, nullptr, nullptr));
  }
  CHECK_FAILS(cclCommPlanMemory(nullptr, nullptr, nullptr, nullptr),
              cclInvalidArgument);
  CHECK_FAILS(cclCommUnpreparedPlan(nullptr, 0, nullptr, nullptr, nullptr),
              cclInvalidArgument);
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
}

} // namespace

// The "generated entry point" of the allpairs library.
cclResult_t ccl_launch_allpairs(cclComm_t comm, const void *in, void *out,
                                uint64_t count) {
  return cclrtLaunch(&kAllpairs, comm, in, out, count, cclFloat32, cclSum,
                     nullptr);
}

int main() {
  test_allpairs(2);
  test_allpairs(3);
  test_allpairs(4);
  test_inplace();
  test_all_threads_alive();
  test_env_timeout();
  test_plan_memory();
  return test_result("allpairs_test");
}
