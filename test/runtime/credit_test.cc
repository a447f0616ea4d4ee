// credit_test.cc - channel credit (plan ABI 3, ccl_channel_info::credit) on
// the host target, with kernels that wait and signal through the device
// library's real __ccl_wait/__ccl_signal (runtime/device, compiled
// natively):
//  - a channel with credit 2: its receiver's first two waits return with no
//    signal sent, the third waits for the sender's first signal, and so on
//    over several calls launched back to back; without credit the first
//    wait already waits;
//  - the pattern the compiler's acknowledgement channels produce: a sender
//    waits for the receiver's acknowledgement of the previous call before
//    overwriting the receiver's scratch (ack channel with credit 1), twelve
//    calls back to back with the receiver delayed (cclCommDebugSetDelay) so
//    that the sender runs ahead, inputs refilled and outputs saved with
//    cclMemcpyAsync; every call's data arrives intact. With no credit on the
//    ack channel the first call deadlocks and times out.
#include <atomic>
#include <vector>

#include "runtime/device/ccl_device.h"
#include "test_util.h"

extern "C" void __ccl_host_set_block(uint32_t block);

namespace {

std::string last() { return cclGetLastError(); }

constexpr uint64_t kMs = 1000000ull;

// ---------------------------------------------------------------------------
// One channel 0 -> 1: rank 0 signals once per call, rank 1 waits once.
// ---------------------------------------------------------------------------
std::atomic<int> g_waits_done{0};
std::atomic<int> g_signals{0};
// Set by rank 1's kernel, read by the test while that kernel may run.
std::atomic<const ccl_dev_ctx *> g_ctx1{nullptr};

void one_way(const ccl_dev_ctx *ctx, const void *, void *, uint64_t,
             uint32_t block) {
  __ccl_host_set_block(block);
  uint32_t epoch = __ccl_begin(ctx);
  if (ctx->rank == 0) {
    __ccl_signal(ctx, 0);
    g_signals++;
  } else {
    g_ctx1 = ctx;
    __ccl_wait(ctx, 0, 0, /*op_id=*/0);
    __ccl_wait_commit(ctx, 0, 1);
    g_waits_done++;
  }
  __ccl_end(ctx, epoch);
}

const ccl_op_info kOneWayOps[] = {{"wait", "credit.ccl", 3, 5}};
const ccl_kernel_info kOneWayKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "one_way", one_way}};
const ccl_channel_info kCredit2[] = {{0, 1, CCL_CHANNEL_MEMORY, 2}};
const ccl_channel_info kCredit0[] = {{0, 1, CCL_CHANNEL_MEMORY, 0}};
const ccl_variant kCredit2Variants[] = {{2, 1, 1, 0, nullptr, 1,
                                         kOneWayKernels, 1, kCredit2}};
const ccl_variant kCredit0Variants[] = {{2, 1, 1, 0, nullptr, 1,
                                         kOneWayKernels, 1, kCredit0}};
#define PLAN(name, variants, ops, nops, max_bytes)                             \
  {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, name, "AllReduce", 0, 1,             \
   CCL_PROTO_SIMPLE, max_bytes, "credit.ccl", 1, variants, nops, ops, 0,       \
   nullptr}
const ccl_plan kOneWay2 = PLAN("one_way_credit2", kCredit2Variants,
                               kOneWayOps, 1, 64);
const ccl_plan kOneWay0 = PLAN("one_way_credit0", kCredit0Variants,
                               kOneWayOps, 1, 64);

// ---------------------------------------------------------------------------
// Data channel 0 -> 1 (channel 0) and its acknowledgement 1 -> 0 (channel
// 1): rank 0 waits for the ack of the previous call, puts its input into
// rank 1's scratch, signals; rank 1 waits, copies the scratch to its
// output, acknowledges. A wait that was abandoned (the call timed out; in
// test_ack_without_credit both ranks' first waits are) moves no data: both
// ranks would then touch the slot at once, a race ThreadSanitizer reports
// in the test's own kernel.
// ---------------------------------------------------------------------------
bool aborted(const ccl_dev_ctx *ctx) {
  return __atomic_load_n(ctx->abort_flag, __ATOMIC_ACQUIRE) != 0;
}

void ack_pipe(const ccl_dev_ctx *ctx, const void *input, void *output,
              uint64_t count, uint32_t block) {
  __ccl_host_set_block(block);
  uint32_t epoch = __ccl_begin(ctx);
  const uint64_t nbytes = count * 4;
  char *slot = __ccl_scratch_ptr(ctx, 0, 1, 0, 1, count, 1, 4, epoch, 0);
  if (ctx->rank == 0) {
    __ccl_wait(ctx, 1, 0, /*op_id=*/0);
    if (!aborted(ctx))
      __ccl_put(slot, static_cast<const char *>(input), nbytes);
    __ccl_signal(ctx, 0);
    __ccl_wait_commit(ctx, 1, 1);
  } else {
    __ccl_wait(ctx, 0, 0, /*op_id=*/1);
    if (!aborted(ctx))
      __ccl_copy(static_cast<char *>(output), slot, nbytes);
    __ccl_signal(ctx, 1);
    __ccl_wait_commit(ctx, 0, 1);
  }
  __ccl_end(ctx, epoch);
}

const ccl_op_info kPipeOps[] = {{"wait", "pipe.ccl", 7, 5},
                                {"wait", "pipe.ccl", 9, 5}};
const ccl_kernel_info kPipeKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "ack_pipe", ack_pipe}};
const ccl_scratch_info kPipeScratch[] = {{"buf", 1, 0}};
const ccl_channel_info kPipeChannels[] = {{0, 1, CCL_CHANNEL_MEMORY, 0},
                                          {1, 0, CCL_CHANNEL_MEMORY, 1}};
const ccl_channel_info kPipeNoCredit[] = {{0, 1, CCL_CHANNEL_MEMORY, 0},
                                          {1, 0, CCL_CHANNEL_MEMORY, 0}};
const ccl_variant kPipeVariants[] = {{2, 1, 1, 1, kPipeScratch, 1,
                                      kPipeKernels, 2, kPipeChannels}};
const ccl_variant kPipeNoCreditVariants[] = {
    {2, 1, 1, 1, kPipeScratch, 1, kPipeKernels, 2, kPipeNoCredit}};
constexpr uint64_t kPipeMax = 4096;
const ccl_plan kPipe = PLAN("pipe", kPipeVariants, kPipeOps, 2, kPipeMax);
const ccl_plan kPipeNoAck = PLAN("pipe", kPipeNoCreditVariants, kPipeOps, 2,
                                 kPipeMax);

__attribute__((constructor)) void register_plans() {
  cclrtRegisterPlan(&kOneWay2);
  cclrtRegisterPlan(&kOneWay0);
  cclrtRegisterPlan(&kPipe);
  cclrtRegisterPlan(&kPipeNoAck);
}

// Waits (at most 10 s) until `v` reaches `want`.
bool reaches(const std::atomic<int> &v, int want) {
  uint64_t deadline = now_ns() + 10000 * kMs;
  while (v.load() < want) {
    if (now_ns() > deadline)
      return false;
    sched_yield();
  }
  return true;
}

void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
  nanosleep(&ts, nullptr);
}

void launch(const ccl_plan *plan, cclComm_t comm, int calls) {
  static float buf[2];
  for (int i = 0; i < calls; i++)
    CHECK_OK(cclrtLaunch(plan, comm, buf, buf + 1, 1, cclFloat32, cclSum,
                         nullptr));
}

void test_credit_counts() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  // Two calls on the receiver with no sender at all: the credit covers them.
  launch(&kOneWay2, comms[1], 2);
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  CHECK(g_waits_done.load() == 2);
  CHECK(*g_ctx1.load()->signal[0] == 2);   // the counter started at the credit
  CHECK(g_ctx1.load()->consumed[0] == 2);  // and both waits consumed it
  // Calls 3 and 4 wait for real signals.
  launch(&kOneWay2, comms[1], 2);
  sleep_ms(200);
  CHECK(g_waits_done.load() == 2);
  launch(&kOneWay2, comms[0], 1); // one signal: call 3 goes, call 4 waits
  CHECK(reaches(g_waits_done, 3));
  sleep_ms(100);
  CHECK(g_waits_done.load() == 3);
  // The sender three calls at once, the receiver two more: all match up.
  launch(&kOneWay2, comms[0], 3);
  launch(&kOneWay2, comms[1], 2);
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  CHECK(g_waits_done.load() == 6);
  CHECK(g_signals.load() == 4);
  CHECK(*g_ctx1.load()->signal[0] == 2 + 4);
  CHECK(g_ctx1.load()->consumed[0] == 6);

  // No credit: the first wait already waits for the first signal.
  launch(&kOneWay0, comms[1], 1);
  sleep_ms(150);
  CHECK(g_waits_done.load() == 6);
  CHECK(*g_ctx1.load()->signal[0] == 0);
  launch(&kOneWay0, comms[0], 1);
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  CHECK(g_waits_done.load() == 7);
  CHECK(*g_ctx1.load()->signal[0] == 1 && g_ctx1.load()->consumed[0] == 1);
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

float pipe_value(int call, uint64_t i) {
  return (float)(call * 1000 + (int)(i % 777));
}

void test_ack_pipeline() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  const int kCalls = 12;
  const uint64_t count = kPipeMax / 4;
  const size_t bytes = count * 4;
  void *in0, *out1, *dummy[2];
  std::vector<void *> src(kCalls), save(kCalls);
  CHECK_OK(cclMemAlloc(comms[0], &in0, bytes));
  CHECK_OK(cclMemAlloc(comms[1], &out1, bytes));
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclMemAlloc(comms[r], &dummy[r], bytes));
  for (int k = 0; k < kCalls; k++) {
    std::vector<float> h(count);
    for (uint64_t i = 0; i < count; i++)
      h[i] = pipe_value(k, i);
    CHECK_OK(cclMemAlloc(comms[0], &src[k], bytes));
    CHECK_OK(cclMemcpyToDevice(comms[0], src[k], h.data(), bytes));
    CHECK_OK(cclMemAlloc(comms[1], &save[k], bytes));
  }
  // The receiver starts every call 20 ms late: the sender runs ahead and
  // only the acknowledgements keep it from overwriting unread data.
  CHECK_OK(cclCommDebugSetDelay(comms[1], 0, 20 * kMs));
  for (int k = 0; k < kCalls; k++) {
    CHECK_OK(cclMemcpyAsync(comms[0], in0, src[k], bytes, nullptr));
    CHECK_OK(cclrtLaunch(&kPipe, comms[0], in0, dummy[0], count, cclFloat32,
                         cclSum, nullptr));
    CHECK_OK(cclrtLaunch(&kPipe, comms[1], dummy[1], out1, count, cclFloat32,
                         cclSum, nullptr));
    CHECK_OK(cclMemcpyAsync(comms[1], save[k], out1, bytes, nullptr));
  }
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  for (int k = 0; k < kCalls; k++) {
    std::vector<float> h(count);
    CHECK_OK(cclMemcpyFromDevice(comms[1], h.data(), save[k], bytes));
    int bad = 0;
    for (uint64_t i = 0; i < count; i++)
      if (h[i] != pipe_value(k, i) && bad++ == 0)
        fprintf(stderr, "call %d: [%lu] = %f, expected %f\n", k,
                (unsigned long)i, h[i], pipe_value(k, i));
    CHECK(bad == 0);
  }
  for (int k = 0; k < kCalls; k++) {
    CHECK_OK(cclMemFree(comms[0], src[k]));
    CHECK_OK(cclMemFree(comms[1], save[k]));
  }
  CHECK_OK(cclMemFree(comms[0], in0));
  CHECK_OK(cclMemFree(comms[1], out1));
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclMemFree(comms[r], dummy[r]));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

// The same pipeline with no credit on the acknowledgement channel: both
// ranks wait for each other in the first call.
void test_ack_without_credit() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  static float buf[2][4];
  for (int r = 0; r < 2; r++) {
    CHECK_OK(cclCommSetTimeout(comms[r], 300));
    CHECK_OK(cclrtLaunch(&kPipeNoAck, comms[r], buf[r], buf[r] + 2, 2,
                         cclFloat32, cclSum, nullptr));
  }
  CHECK_FAILS(cclCommSynchronize(comms[0], nullptr), cclTimeout);
  CHECK_CONTAINS(last(), "cclCommSynchronize(rank 0): rank ");
  CHECK_CONTAINS(last(), " in wait at pipe.ccl:");
  // Either rank may time out first; its wait is on the other's channel.
  {
    const std::string msg = last();
    const bool r0 = msg.find("): rank 0 thread block") != std::string::npos;
    CHECK_CONTAINS(msg, r0 ? "waited for signal 1 on its channel from rank 1, "
                             "0 had arrived"
                           : "waited for signal 1 on its channel from rank 0, "
                             "0 had arrived");
  }
  CHECK_FAILS(cclCommSynchronize(comms[1], nullptr), cclTimeout);
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

} // namespace

int main() {
  test_credit_counts();
  test_ack_pipeline();
  test_ack_without_credit();
  return test_result("credit_test");
}
