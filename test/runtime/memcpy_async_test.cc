// memcpy_async_test.cc - cclMemcpyAsync on the host target: copies are
// queued on the rank's worker with the launches, in order (refill the input,
// run, save the output: eight rounds back to back, no synchronisation in
// between), the call returns while the worker is still busy with earlier
// work, and argument errors.
#include <atomic>
#include <vector>

#include "test_util.h"

namespace {

std::string last() { return cclGetLastError(); }

constexpr int kRanks = 2;

// output[i] = 2 * input[i] + rank.
void twice_kernel(const ccl_dev_ctx *ctx, const void *input, void *output,
                  uint64_t count, uint32_t) {
  const float *in = static_cast<const float *>(input);
  float *out = static_cast<float *>(output);
  for (uint64_t i = 0; i < count; i++)
    out[i] = 2 * in[i] + (float)ctx->rank;
}

// Holds the rank's worker until the test opens the gate (20 s at most).
std::atomic<int> g_gate{0};
std::atomic<int> g_gate_timeouts{0};
void gate_kernel(const ccl_dev_ctx *, const void *, void *, uint64_t,
                 uint32_t) {
  uint64_t deadline = now_ns() + 20000 * 1000000ull;
  while (!g_gate.load()) {
    if (now_ns() > deadline) {
      g_gate_timeouts++;
      return;
    }
    cclrtHostPause(0); // the rank's other blocks run meanwhile
  }
}

const ccl_kernel_info kTwice[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "twice", twice_kernel}};
const ccl_kernel_info kGate[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "gate", gate_kernel}};
const ccl_variant kTwiceVariants[] = {{kRanks, 1, 1, 0, nullptr, 1, kTwice}};
const ccl_variant kGateVariants[] = {{kRanks, 1, 1, 0, nullptr, 1, kGate}};
#define PLAN(name, variants)                                                   \
  {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, name, "AllReduce", 0, 1,             \
   CCL_PROTO_SIMPLE, 1 << 16, name ".ccl", 1, variants, 0, nullptr, 0, nullptr}
const ccl_plan kTwicePlan = PLAN("twice", kTwiceVariants);
const ccl_plan kGatePlan = PLAN("gate", kGateVariants);

__attribute__((constructor)) void register_plans() {
  cclrtRegisterPlan(&kTwicePlan);
  cclrtRegisterPlan(&kGatePlan);
}

float value(int rank, int round, uint64_t i) {
  return (float)(rank * 10000 + round * 100 + (int)(i % 97));
}

void test_ordered_with_launches() {
  cclComm_t comms[kRanks];
  CHECK_OK(cclCommInitAllInProcess(comms, kRanks, cclTargetHost, nullptr));
  const int kRounds = 8;
  const uint64_t count = 1001;
  const size_t bytes = count * sizeof(float);
  std::vector<void *> src[kRanks], save[kRanks];
  void *in[kRanks], *out[kRanks];
  for (int r = 0; r < kRanks; r++) {
    CHECK_OK(cclMemAlloc(comms[r], &in[r], bytes));
    CHECK_OK(cclMemAlloc(comms[r], &out[r], bytes));
    for (int k = 0; k < kRounds; k++) {
      void *p;
      std::vector<float> h(count);
      for (uint64_t i = 0; i < count; i++)
        h[i] = value(r, k, i);
      CHECK_OK(cclMemAlloc(comms[r], &p, bytes));
      CHECK_OK(cclMemcpyToDevice(comms[r], p, h.data(), bytes));
      src[r].push_back(p);
      std::vector<float> minus(count, -1.0f);
      CHECK_OK(cclMemAlloc(comms[r], &p, bytes));
      CHECK_OK(cclMemcpyToDevice(comms[r], p, minus.data(), bytes));
      save[r].push_back(p);
    }
  }
  // The gate holds each worker; everything after it is only queued.
  static float dummy[2];
  for (int r = 0; r < kRanks; r++)
    CHECK_OK(cclrtLaunch(&kGatePlan, comms[r], dummy, dummy + 1, 1,
                         cclFloat32, cclSum, nullptr));
  uint64_t t0 = now_ns();
  for (int k = 0; k < kRounds; k++)
    for (int r = 0; r < kRanks; r++) {
      CHECK_OK(cclMemcpyAsync(comms[r], in[r], src[r][k], bytes, nullptr));
      CHECK_OK(cclrtLaunch(&kTwicePlan, comms[r], in[r], out[r], count,
                           cclFloat32, cclSum, nullptr));
      CHECK_OK(cclMemcpyAsync(comms[r], save[r][k], out[r], bytes, nullptr));
    }
  uint64_t queued = now_ns() - t0;
  // Nothing ran yet: the calls returned while the workers were held.
  for (int r = 0; r < kRanks; r++)
    for (int k = 0; k < kRounds; k++)
      CHECK(static_cast<float *>(save[r][k])[0] == -1.0f);
  CHECK(queued < 1000 * 1000000ull);
  g_gate = 1;
  for (int r = 0; r < kRanks; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  CHECK(g_gate_timeouts.load() == 0);
  for (int r = 0; r < kRanks; r++)
    for (int k = 0; k < kRounds; k++) {
      std::vector<float> h(count);
      CHECK_OK(cclMemcpyFromDevice(comms[r], h.data(), save[r][k], bytes));
      int bad = 0;
      for (uint64_t i = 0; i < count; i++)
        if (h[i] != 2 * value(r, k, i) + r && bad++ == 0)
          fprintf(stderr, "rank %d round %d: [%lu] = %f, expected %f\n", r, k,
                  (unsigned long)i, h[i], 2 * value(r, k, i) + r);
      CHECK(bad == 0);
    }

  // Arguments.
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  CHECK_FAILS(cclMemcpyAsync(comms[0], a, a + 4, 16, (cclStream_t)0x10),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclMemcpyAsync(rank 0): stream must be NULL on the "
                       "host target");
  CHECK_FAILS(cclMemcpyAsync(comms[1], nullptr, a, 16, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclMemcpyAsync(rank 1): NULL dst with 16 bytes");
  CHECK_FAILS(cclMemcpyAsync(comms[1], a, nullptr, 16, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclMemcpyAsync(rank 1): NULL src with 16 bytes");
  CHECK_FAILS(cclMemcpyAsync(comms[0], a + 1, a, 8, nullptr),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "cclMemcpyAsync(rank 0): the 8-byte ranges at ");
  CHECK_CONTAINS(last(), " overlap");
  CHECK_FAILS(cclMemcpyAsync(nullptr, a, a + 4, 16, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclMemcpyAsync: comm is NULL");
  // Nothing to copy: empty, or onto itself.
  CHECK_OK(cclMemcpyAsync(comms[0], nullptr, nullptr, 0, nullptr));
  CHECK_OK(cclMemcpyAsync(comms[0], a, a, 32, nullptr));
  // Adjacent ranges do not overlap.
  CHECK_OK(cclMemcpyAsync(comms[0], a + 4, a, 16, nullptr));
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  CHECK(a[4] == 1 && a[7] == 4 && a[0] == 1);

  for (int r = 0; r < kRanks; r++) {
    for (int k = 0; k < kRounds; k++) {
      CHECK_OK(cclMemFree(comms[r], src[r][k]));
      CHECK_OK(cclMemFree(comms[r], save[r][k]));
    }
    CHECK_OK(cclMemFree(comms[r], in[r]));
    CHECK_OK(cclMemFree(comms[r], out[r]));
  }
  CHECK_OK(cclCommDestroy(comms[0]));
  CHECK_FAILS(cclMemcpyAsync(comms[0], a, a + 4, 16, nullptr),
              cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclMemcpyAsync(rank 0): the communicator handle was "
                       "destroyed");
  CHECK_OK(cclCommDestroy(comms[1]));
}

} // namespace

int main() {
  test_ordered_with_launches();
  return test_result("memcpy_async_test");
}
