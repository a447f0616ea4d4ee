// timeout_test.cc - asynchronous errors: a kernel that reports a timeout the
// way device code does (error record + abort flag) and the exact message
// cclCommSynchronize makes of it; an op id out of range; a rank that never
// launches (cclCommDebugSkipLaunches) so that the others' real spin-waits
// time out; launches on an aborted communicator fail fast.
#include <regex>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

std::string last() { return cclGetLastError(); }

const ccl_op_info kOps[] = {
    {"put_packets", "allpairs_ll.ccl", 10, 5},
    {"copy", "allpairs_ll.ccl", 11, 3},
    {"reduce_packets", "allpairs_ll.ccl", 12, 9},
};

// Rank 1, block 0 "times out" in op `g_fake_op`.
uint32_t g_fake_op = 2;
void fake_timeout(const ccl_dev_ctx *ctx, const void *, void *, uint64_t,
                  uint32_t block) {
  if (ctx->rank == 1 && block == 0)
    report_timeout(ctx, block, g_fake_op, 5, 3, 2000000000ull);
}
const ccl_kernel_info kFakeKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "fake", fake_timeout}};
const ccl_variant kFakeVariants[] = {{3, 2, 1, 0, nullptr, 1, kFakeKernels}};
const ccl_plan kFake = {CCL_PLAN_ABI_VERSION,
                        CCL_TARGET_HOST,
                        "allpairs_ll",
                        "AllReduce",
                        0,
                        1,
                        CCL_PROTO_LL,
                        1024,
                        "allpairs_ll.ccl",
                        1,
                        kFakeVariants,
                        3,
                        kOps,
                        0,
                        nullptr};

// A real exchange: every rank sends one flag word (a call counter) to every
// peer's scratch (block 1), block 0 waits until all peers' words reached
// this call (op 2). A peer may already be a call ahead: hence "at least".
void exchange(const ccl_dev_ctx *ctx, const void *, void *, uint64_t,
              uint32_t block) {
  uint32_t epoch = kernel_begin(ctx);
  uint32_t n = ctx->nranks, r = ctx->rank;
  if (block == 1) {
    for (uint32_t p = 0; p < n; p++) {
      if (p == r)
        continue;
      uint32_t *slot = static_cast<uint32_t *>(ctx->scratch[p]) + r;
      __atomic_store_n(slot, epoch + 1, __ATOMIC_RELEASE);
    }
  } else {
    for (uint32_t q = 0; q < n; q++) {
      if (q == r)
        continue;
      const uint32_t *slot = static_cast<const uint32_t *>(ctx->scratch[r]) + q;
      if (!wait_flag(ctx, block, slot, epoch + 1, 2, /*at_least=*/true))
        break;
    }
  }
  kernel_end(ctx);
}
const ccl_kernel_info kExKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "exchange", exchange}};
const ccl_scratch_info kExScratch[] = {{"flags", 1, 0}};
const ccl_variant kExVariants[] = {{3, 2, 1, 1, kExScratch, 1, kExKernels}};
const ccl_plan kExchange = {CCL_PLAN_ABI_VERSION,
                            CCL_TARGET_HOST,
                            "allpairs_ll",
                            "AllReduce",
                            0,
                            1,
                            CCL_PROTO_LL,
                            1024,
                            "allpairs_ll.ccl",
                            1,
                            kExVariants,
                            3,
                            kOps,
                            0,
                            nullptr};

void test_fake_timeout() {
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  CHECK_OK(asyncError(comms[0]));
  float buf[8];
  // Rank 1 (which reports the timeout) last: launches after it may already
  // see the aborted communicator.
  for (int r : {0, 2, 1})
    CHECK_OK(cclrtLaunch(&kFake, comms[r], buf, buf + 4, 4, cclFloat32,
                         cclSum, nullptr));
  const std::string msg =
      "rank 1 thread block 0 timed out after 2.00 s in reduce_packets at "
      "allpairs_ll.ccl:12:9 (algorithm allpairs_ll): waited for flag 5, last "
      "saw 3; the communicator is aborted";
  // Rank 1 first: the others' kernels wait for nothing and may finish
  // before rank 1 reports.
  for (int r : {1, 0, 2}) {
    CHECK_FAILS(cclCommSynchronize(comms[r], nullptr), cclTimeout);
    CHECK_EQ_STR(last(),
                 "cclCommSynchronize(rank " + std::to_string(r) + "): " + msg);
  }
  CHECK_FAILS(asyncError(comms[2]), cclTimeout);
  CHECK_EQ_STR(last(), "cclCommGetAsyncError(rank 2): " + msg);
  // Every launch now fails fast.
  CHECK_FAILS(cclrtLaunch(&kFake, comms[0], buf, buf + 4, 4, cclFloat32,
                          cclSum, nullptr),
              cclTimeout);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm allpairs_ll): the "
                       "communicator was aborted by an earlier failure (" +
                           msg + "); destroy it and create a new one");
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

void test_op_out_of_range() {
  g_fake_op = 7;
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  float buf[8];
  // Rank 1 (which reports the timeout) last: launches after it may already
  // see the aborted communicator.
  for (int r : {0, 2, 1})
    CHECK_OK(cclrtLaunch(&kFake, comms[r], buf, buf + 4, 4, cclFloat32,
                         cclSum, nullptr));
  CHECK_FAILS(cclCommSynchronize(comms[1], nullptr), cclTimeout);
  CHECK_EQ_STR(last(), "cclCommSynchronize(rank 1): rank 1 thread block 0 "
                       "timed out after 2.00 s in operation 7 (out of range: "
                       "algorithm allpairs_ll has 3 operations): waited for "
                       "flag 5, last saw 3; the communicator is aborted");
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
  g_fake_op = 2;
}

// One rank never launches: the others' waits time out after the
// communicator's timeout and every rank reports it.
void test_skipped_rank() {
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  float buf[8];
  // A few good rounds first.
  for (int i = 0; i < 10; i++)
    for (auto c : comms)
      CHECK_OK(cclrtLaunch(&kExchange, c, buf, buf + 4, 4, cclFloat32, cclSum,
                           nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSetTimeout(c, 300));
  CHECK_OK(cclCommDebugSkipLaunches(comms[1], 1));
  uint64_t t0 = now_ns();
  for (auto c : comms)
    CHECK_OK(cclrtLaunch(&kExchange, c, buf, buf + 4, 4, cclFloat32, cclSum,
                         nullptr));
  CHECK_FAILS(cclCommSynchronize(comms[0], nullptr), cclTimeout);
  double secs = (now_ns() - t0) / 1e9;
  CHECK(secs >= 0.3 && secs < 20);
  std::string m = last();
  std::regex re("cclCommSynchronize\\(rank 0\\): rank [02] thread block 0 "
                "timed out after 0\\.[3-9][0-9] s in reduce_packets at "
                "allpairs_ll\\.ccl:12:9 \\(algorithm allpairs_ll\\): waited "
                "for flag 11, last saw 10 \\(rank 1 queued 10 calls on this "
                "communicator, the others 11: it has not made the call the "
                "others wait for\\); the communicator is aborted");
  if (!std::regex_match(m, re)) {
    fprintf(stderr, "unexpected message: %s\n", m.c_str());
    g_failures++;
  }
  for (int r = 1; r < 3; r++) {
    CHECK_FAILS(cclCommSynchronize(comms[r], nullptr), cclTimeout);
    CHECK_CONTAINS(last(), "timed out after");
  }
  // Fails fast from now on, also on the rank that skipped.
  CHECK_OK(cclCommDebugSkipLaunches(comms[1], 0));
  CHECK_FAILS(cclrtLaunch(&kExchange, comms[1], buf, buf + 4, 4, cclFloat32,
                          cclSum, nullptr),
              cclTimeout);
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

// CCL_TIMEOUT_MS may be a fraction of a millisecond, and a timeout under
// 10 ms is reported in microseconds.
void test_sub_millisecond_timeout() {
  setenv("CCL_TIMEOUT_MS", "0.5", 1);
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  unsetenv("CCL_TIMEOUT_MS");
  float buf[8];
  CHECK_OK(cclCommDebugSkipLaunches(comms[1], 1));
  for (auto c : comms)
    CHECK_OK(cclrtLaunch(&kExchange, c, buf, buf + 4, 4, cclFloat32, cclSum,
                         nullptr));
  CHECK_FAILS(cclCommSynchronize(comms[0], nullptr), cclTimeout);
  std::string m = last();
  std::smatch got;
  std::regex re("rank [02] thread block 0 timed out after ([0-9]+)\\.[0-9] "
                "us in reduce_packets at allpairs_ll\\.ccl:12:9 ");
  if (!std::regex_search(m, got, re) || std::stoul(got[1].str()) < 500) {
    fprintf(stderr, "unexpected message: %s\n", m.c_str());
    g_failures++;
  }
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

// Timeout 0 means wait forever; a late launch completes the exchange.
void test_late_rank_completes() {
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSetTimeout(c, 0));
  float buf[8];
  CHECK_OK(cclrtLaunch(&kExchange, comms[0], buf, buf + 4, 4, cclFloat32,
                       cclSum, nullptr));
  CHECK_OK(cclrtLaunch(&kExchange, comms[2], buf, buf + 4, 4, cclFloat32,
                       cclSum, nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK_OK(asyncError(comms[0]));
  CHECK_OK(cclrtLaunch(&kExchange, comms[1], buf, buf + 4, 4, cclFloat32,
                       cclSum, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

// A kernel waits for a rank that never launches and the timeout is 0
// (wait forever): destroy still returns, after the grace period
// (CCL_DESTROY_GRACE_MS), having aborted the pending work.
void test_destroy_aborts_pending() {
  setenv("CCL_DESTROY_GRACE_MS", "300", 1);
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSetTimeout(c, 0));
  float buf[8];
  CHECK_OK(cclrtLaunch(&kExchange, comms[0], buf, buf + 4, 4, cclFloat32,
                       cclSum, nullptr));
  CHECK_OK(cclrtLaunch(&kExchange, comms[2], buf, buf + 4, 4, cclFloat32,
                       cclSum, nullptr));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  uint64_t t0 = now_ns();
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
  double secs = (now_ns() - t0) / 1e9;
  CHECK(secs >= 0.3 && secs < 10);
  unsetenv("CCL_DESTROY_GRACE_MS");
}

} // namespace

int main() {
  cclrtRegisterPlan(&kFake);
  cclrtRegisterPlan(&kExchange);
  test_fake_timeout();
  test_op_out_of_range();
  test_skipped_rank();
  test_sub_millisecond_timeout();
  test_late_rank_completes();
  test_destroy_aborts_pending();
  return test_result("timeout_test");
}
