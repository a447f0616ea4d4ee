// delay_test.cc - cclCommDebugSetDelay on the host target, with kernels that
// start and end through the device library's real __ccl_begin/__ccl_end
// (runtime/device, compiled natively): a delayed rank's calls take at least
// the delay each, while a rank that does not wait for it finishes its own
// calls without waiting; one block or every block; a plan prepared later
// gets the rank's setting; 0 turns it off; bad arguments.
#include <vector>

#include "runtime/device/ccl_device.h"
#include "test_util.h"

extern "C" void __ccl_host_set_block(uint32_t block);

namespace {

std::string last() { return cclGetLastError(); }

constexpr int kRanks = 2;
constexpr uint32_t kBlocks = 2;
constexpr int kMaxCalls = 16;

// Per rank, block and call: when the block entered the kernel and when
// __ccl_begin returned (written by the block's thread, read after
// cclCommSynchronize).
struct Times {
  uint64_t enter[kMaxCalls], begun[kMaxCalls];
};
Times g_times[kRanks][kBlocks];
const ccl_dev_ctx *g_ctx[kRanks];

// No communication between ranks: each block records its times and the
// call's epoch into output[block].
void timed_kernel(const ccl_dev_ctx *ctx, const void *, void *output,
                  uint64_t, uint32_t block) {
  __ccl_host_set_block(block); // before __ccl_begin: it selects by block
  uint64_t enter = now_ns();
  uint32_t epoch = __ccl_begin(ctx);
  uint64_t begun = now_ns();
  if (epoch < (uint32_t)kMaxCalls) {
    g_times[ctx->rank][block].enter[epoch] = enter;
    g_times[ctx->rank][block].begun[epoch] = begun;
  }
  if (block == 0) // one writer per rank
    g_ctx[ctx->rank] = ctx;
  static_cast<uint32_t *>(output)[block] = epoch;
  __ccl_end(ctx, epoch);
}

const ccl_kernel_info kKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "timed", timed_kernel}};
const ccl_variant kVariants[] = {
    {kRanks, kBlocks, 1, 0, nullptr, 1, kKernels}};
#define PLAN(name)                                                             \
  {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, name, "AllReduce", 0, 1,             \
   CCL_PROTO_SIMPLE, 1024, name ".ccl", 1, kVariants, 0, nullptr, 0, nullptr}
const ccl_plan kTimed = PLAN("timed");
const ccl_plan kLate = PLAN("timed_late"); // registered after the comm

__attribute__((constructor)) void register_plans() {
  cclrtRegisterPlan(&kTimed);
}

constexpr uint64_t kMs = 1000000ull;

// Launches `calls` calls of `plan` on every rank, rank by rank, call by
// call, without synchronising.
void launch_all(const ccl_plan *plan, cclComm_t *comms, int calls,
                uint32_t out[kRanks][kBlocks]) {
  static float in[4];
  for (int c = 0; c < calls; c++)
    for (int r = 0; r < kRanks; r++)
      CHECK_OK(cclrtLaunch(plan, comms[r], in, out[r], 1, cclFloat32, cclSum,
                           nullptr));
}

void test_rank_delay() {
  cclComm_t comms[kRanks];
  CHECK_OK(cclCommInitAllInProcess(comms, kRanks, cclTargetHost, nullptr));
  uint32_t out[kRanks][kBlocks] = {};
  const uint64_t delay = 250 * kMs;
  const int calls = 3;
  CHECK_OK(cclCommDebugSetDelay(comms[1], -1, delay));
  uint64_t t0 = now_ns();
  launch_all(&kTimed, comms, calls, out);
  uint64_t launched = now_ns() - t0;
  // Launching never waits for the delay.
  CHECK(launched < delay);
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  uint64_t done0 = now_ns() - t0;
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  uint64_t done1 = now_ns() - t0;
  printf("rank delay: launches %.1f ms, rank 0 done after %.1f ms, rank 1 "
         "(delayed %.0f ms per call) after %.1f ms\n",
         launched / 1e6, done0 / 1e6, delay / 1e6, done1 / 1e6);
  // Rank 0 does not wait for rank 1: its calls are over before rank 1's
  // first delay is.
  CHECK(done0 < delay);
  CHECK(done1 >= calls * delay);
  for (int c = 0; c < calls; c++)
    for (uint32_t b = 0; b < kBlocks; b++) {
      const Times &t1 = g_times[1][b], &t0r = g_times[0][b];
      CHECK(t1.begun[c] - t1.enter[c] >= delay);
      CHECK(t0r.begun[c] - t0r.enter[c] < delay);
      // Rank 0 finished every call before rank 1's first one began.
      CHECK(t0r.begun[c] < g_times[1][b].begun[0]);
    }
  for (uint32_t b = 0; b < kBlocks; b++)
    CHECK(out[0][b] == calls - 1 && out[1][b] == calls - 1);
  CHECK(g_ctx[1]->delay_ns == delay);
  CHECK(g_ctx[1]->delay_block == CCL_DELAY_ALL_BLOCKS);
  CHECK(g_ctx[0]->delay_ns == 0);

  // One block: block 1 of rank 0 waits, block 0 and rank 1 do not.
  CHECK_OK(cclCommDebugSetDelay(comms[1], -1, 0));
  CHECK_OK(cclCommDebugSetDelay(comms[0], 1, delay));
  CHECK(g_ctx[0]->delay_block == 1 && g_ctx[0]->delay_ns == delay);
  CHECK(g_ctx[1]->delay_ns == 0);
  t0 = now_ns();
  launch_all(&kTimed, comms, 2, out);
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  done1 = now_ns() - t0;
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  done0 = now_ns() - t0;
  CHECK(done1 < delay);
  CHECK(done0 >= 2 * delay);
  for (int c = calls; c < calls + 2; c++) {
    CHECK(g_times[0][1].begun[c] - g_times[0][1].enter[c] >= delay);
    CHECK(g_times[0][0].begun[c] - g_times[0][0].enter[c] < delay);
    CHECK(g_times[1][1].begun[c] - g_times[1][1].enter[c] < delay);
  }

  // A plan prepared later takes the rank's current setting.
  cclrtRegisterPlan(&kLate);
  for (int r = 0; r < kRanks; r++)
    CHECK_OK(cclCommLoadRegisteredPlans(comms[r]));
  t0 = now_ns();
  launch_all(&kLate, comms, 1, out);
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  CHECK(now_ns() - t0 < delay);
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  CHECK(now_ns() - t0 >= delay);
  CHECK(g_ctx[0]->delay_block == 1 && g_ctx[0]->delay_ns == delay);
  CHECK(g_times[0][1].begun[0] - g_times[0][1].enter[0] >= delay);
  CHECK(g_times[0][0].begun[0] - g_times[0][0].enter[0] < delay);

  // 0 turns it off: five calls well within one delay.
  CHECK_OK(cclCommDebugSetDelay(comms[0], 1, 0));
  t0 = now_ns();
  launch_all(&kTimed, comms, 5, out);
  for (int r = 0; r < kRanks; r++)
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
  CHECK(now_ns() - t0 < delay);
  for (uint32_t b = 0; b < kBlocks; b++)
    CHECK(out[0][b] == calls + 2 + 5 - 1);

  // Errors.
  CHECK_FAILS(cclCommDebugSetDelay(comms[0], -2, delay), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommDebugSetDelay(rank 0): block is -2; it must be "
                       "a thread block index (0, 1, ...) or -1 for every "
                       "block");
  CHECK_FAILS(cclCommDebugSetDelay(nullptr, 0, delay), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommDebugSetDelay: comm is NULL");
  CHECK_OK(cclCommDestroy(comms[1]));
  CHECK_FAILS(cclCommDebugSetDelay(comms[1], 0, delay), cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclCommDebugSetDelay(rank 1): the communicator "
                       "handle was destroyed");
  CHECK_OK(cclCommDestroy(comms[0]));
}

} // namespace

int main() {
  test_rank_delay();
  return test_result("delay_test");
}
