// errors_test.cc - launch validation and its messages on the host target:
// rank counts not compiled in, dtype/op without a kernel, oversize
// messages, plans of another target or ABI, late registration, bad
// arguments, destroyed handles; the look-up of registered plans.
#include "test_util.h"

#include <atomic>
#include <thread>

namespace {

std::string last() { return cclGetLastError(); }

int g_calls = 0;
void nop_kernel(const ccl_dev_ctx *, const void *, void *, uint64_t,
                uint32_t) {
  __atomic_fetch_add(&g_calls, 1, __ATOMIC_RELAXED);
}

const ccl_kernel_info kKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "k_f32_sum", nop_kernel},
    {CCL_DT_FLOAT16, CCL_OP_SUM, "k_f16_sum", nop_kernel},
};
const ccl_scratch_info kScratch[] = {{"recv", 2, 0}};
// Compiled for 2 and 4 ranks only.
const ccl_variant kVariants[] = {
    {2, 2, 1, 1, kScratch, 2, kKernels},
    {4, 2, 1, 1, kScratch, 2, kKernels},
};
#define PLAN(name, target, abi, variants, nvariants)                           \
  {abi, target, name, "AllReduce", 0, 2, CCL_PROTO_SIMPLE, 1024, name ".ccl",  \
   nvariants, variants, 0, nullptr, 0, nullptr}
const ccl_plan kAp = PLAN("ap", CCL_TARGET_HOST, CCL_PLAN_ABI_VERSION,
                          kVariants, 2);
const ccl_plan kGpuOnly = PLAN("gpu_only", CCL_TARGET_NVPTX,
                               CCL_PLAN_ABI_VERSION, kVariants, 2);
const ccl_plan kOldAbi = PLAN("old_abi", CCL_TARGET_HOST, 0, kVariants, 2);
const ccl_plan kLate = PLAN("late", CCL_TARGET_HOST, CCL_PLAN_ABI_VERSION,
                            kVariants, 2);
const ccl_plan kNeverRegistered = PLAN("unregistered", CCL_TARGET_HOST,
                                       CCL_PLAN_ABI_VERSION, kVariants, 2);
const ccl_kernel_info kNoHostFn[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "k", nullptr}};
const ccl_variant kNoHostVariants[] = {{2, 1, 1, 0, nullptr, 1, kNoHostFn}};
const ccl_plan kNoHost = PLAN("no_host_fn", CCL_TARGET_HOST,
                              CCL_PLAN_ABI_VERSION, kNoHostVariants, 1);
// Calls of up to 2^64 - 1 bytes: the scratch sizes derived from it would
// wrap around (they did once: a 4-byte call overflowed a 64-byte buffer).
const ccl_plan kHuge = {CCL_PLAN_ABI_VERSION,
                        CCL_TARGET_HOST,
                        "huge",
                        "AllReduce",
                        0,
                        2,
                        CCL_PROTO_SIMPLE,
                        UINT64_MAX,
                        "huge.ccl",
                        2,
                        kVariants,
                        0,
                        nullptr,
                        0,
                        nullptr};
const ccl_variant kOneVariant[] = {{2, 1, 1, 0, nullptr, 1, kKernels}};
const ccl_plan kTwoOnly = PLAN("two_only", CCL_TARGET_HOST,
                               CCL_PLAN_ABI_VERSION, kOneVariant, 1);

void test_rank_count_not_compiled() {
  cclComm_t comms[3];
  CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
  float buf[4] = {};
  CHECK_FAILS(cclrtLaunch(&kAp, comms[1], buf, buf + 2, 2, cclFloat32, cclSum,
                          nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 1, algorithm ap): algorithm ap has "
                       "no kernel for 3 ranks (compiled for rank counts 2, "
                       "4); recompile with cclc --nranks=3");
  CHECK_FAILS(cclrtLaunch(&kTwoOnly, comms[0], buf, buf + 2, 2, cclFloat32,
                          cclSum, nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm two_only): algorithm "
                       "two_only has no kernel for 3 ranks (compiled for "
                       "rank count 2); recompile with cclc --nranks=3");
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

void test_launch_errors() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  static float in[512], out[512];

  // A good launch first.
  CHECK_OK(cclrtLaunch(&kAp, comms[0], in, out, 256, cclFloat32, cclSum,
                       nullptr));
  CHECK_OK(cclrtLaunch(&kAp, comms[1], in, out, 512, cclFloat16, cclSum,
                       nullptr));
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  CHECK(g_calls == 4); // 2 blocks each

  // dtype / op without a kernel.
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], in, out, 8, cclBfloat16, cclMax,
                          nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ap): no kernel for "
                       "bfloat16/max with 2 ranks; the library has "
                       "float32/sum, float16/sum");
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], in, out, 8, (cclDataType_t)99,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ap): unknown data "
                       "type 99");
  // NCCL's other types exist (a bundle serves them by size), but a plan
  // has no kernels for them.
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], in, out, 8, cclFloat64, cclSum,
                          nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ap): no kernel for "
                       "float64/sum with 2 ranks; the library has "
                       "float32/sum, float16/sum");
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], in, out, 8, cclFloat32,
                          (cclRedOp_t)7, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ap): unknown "
                       "reduction operator 7");

  // Oversize: 257 float32 = 1028 bytes > 1024.
  CHECK_FAILS(cclrtLaunch(&kAp, comms[1], in, out, 257, cclFloat32, cclSum,
                          nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 1, algorithm ap): message of 257 "
                       "float32 elements (1028 bytes) exceeds the library's "
                       "limit of 1024 bytes per rank; recompile with cclc "
                       "--max-bytes to raise it");
  CHECK_FAILS(cclrtLaunch(&kAp, comms[1], in, out, SIZE_MAX / 2, cclFloat32,
                          cclSum, nullptr),
              cclUnsupported);
  CHECK_CONTAINS(last(), "(too many bytes) exceeds the library's limit");
  // 512 float16 = 1024 bytes: exactly at the limit.
  CHECK_OK(cclrtLaunch(&kAp, comms[1], in, out, 512, cclFloat16, cclSum,
                       nullptr));

  // Host target: streams must be NULL.
  int fake_stream;
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], in, out, 8, cclFloat32, cclSum,
                          &fake_stream),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ap): stream must be "
                       "NULL on the host target");
  CHECK_FAILS(cclCommSynchronize(comms[0], &fake_stream), cclInvalidArgument);

  // NULL arguments.
  CHECK_FAILS(cclrtLaunch(&kAp, nullptr, in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(algorithm ap): comm is NULL");
  CHECK_FAILS(cclrtLaunch(nullptr, comms[0], in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0): plan is NULL");
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], nullptr, out, 8, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm ap): input is NULL "
                       "with count 8");
  // count 0 with NULL buffers is fine.
  CHECK_OK(cclrtLaunch(&kAp, comms[0], nullptr, nullptr, 0, cclFloat32,
                       cclSum, nullptr));
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));

  // A plan of another target.
  CHECK_FAILS(cclrtLaunch(&kGpuOnly, comms[0], in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm gpu_only): library for "
                       "algorithm gpu_only was built for target cuda, but "
                       "the communicator is host");
  // Another plan ABI.
  CHECK_FAILS(cclrtLaunch(&kOldAbi, comms[0], in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm old_abi): library for "
                       "algorithm old_abi was built against plan ABI version "
                       "0, but this libcclrt implements version 8; rebuild "
                       "it with a cclc that matches libcclrt");
  // A plan whose max_bytes exceeds what libcclrt sizes buffers for.
  CHECK_FAILS(
      cclrtLaunch(&kHuge, comms[0], in, out, 1, cclFloat32, cclSum, nullptr),
      cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm huge): library for "
                       "algorithm huge allows calls of up to "
                       "18446744073709551615 bytes, more than the "
                       "1099511627776 bytes (1 TiB) libcclrt can size buffers "
                       "for; recompile it with a smaller cclc --max-bytes");
  // A plan whose kernel has no host function.
  CHECK_FAILS(cclrtLaunch(&kNoHost, comms[0], in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm no_host_fn): preparing "
                       "algorithm no_host_fn failed: its float32/sum kernel "
                       "has no host function");
  // Never registered.
  CHECK_FAILS(cclrtLaunch(&kNeverRegistered, comms[0], in, out, 8, cclFloat32,
                          cclSum, nullptr),
              cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm unregistered): the "
                       "plan was never registered (the generated library's "
                       "constructor must call cclrtRegisterPlan)");

  // Registered after the communicator: needs cclCommLoadRegisteredPlans.
  cclrtRegisterPlan(&kLate);
  cclrtRegisterPlan(&kLate); // twice is harmless
  CHECK_FAILS(cclrtLaunch(&kLate, comms[0], in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm late): the library was "
                       "registered after the communicator was created; call "
                       "cclCommLoadRegisteredPlans on every rank first");
  for (auto c : comms)
    CHECK_OK(cclCommLoadRegisteredPlans(c));
  g_calls = 0;
  for (auto c : comms)
    CHECK_OK(cclrtLaunch(&kLate, c, in, out, 8, cclFloat32, cclSum, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  CHECK(g_calls == 4);

  // A failed preparation is reported by cclCommLoadRegisteredPlans too.
  static const ccl_plan kNoHostLate = PLAN("no_host_late", CCL_TARGET_HOST,
                                           CCL_PLAN_ABI_VERSION,
                                           kNoHostVariants, 1);
  cclrtRegisterPlan(&kNoHostLate);
  CHECK_FAILS(cclCommLoadRegisteredPlans(comms[1]), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommLoadRegisteredPlans(rank 1): preparing "
                       "algorithm no_host_late failed: its float32/sum kernel "
                       "has no host function");
  CHECK_OK(cclCommLoadRegisteredPlans(comms[0])); // already tried

  // Skipped launches are no-ops.
  g_calls = 0;
  CHECK_OK(cclCommDebugSkipLaunches(comms[0], 1));
  CHECK_OK(cclrtLaunch(&kAp, comms[0], in, out, 8, cclFloat32, cclSum,
                       nullptr));
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  CHECK(g_calls == 0);
  CHECK_OK(cclCommDebugSkipLaunches(comms[0], 0));
  CHECK_OK(cclrtLaunch(&kAp, comms[0], in, out, 8, cclFloat32, cclSum,
                       nullptr));
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  CHECK(g_calls == 2);

  // A destroyed handle, while the other rank's handle lives.
  CHECK_OK(cclCommDestroy(comms[0]));
  CHECK_FAILS(cclrtLaunch(&kAp, comms[0], in, out, 8, cclFloat32, cclSum,
                          nullptr),
              cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0): the communicator handle was "
                       "destroyed");
  CHECK_FAILS(cclCommDestroy(comms[0]), cclInvalidUsage);
  CHECK_OK(cclrtLaunch(&kAp, comms[1], in, out, 8, cclFloat32, cclSum,
                       nullptr));
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  CHECK_OK(cclCommDestroy(comms[1]));

  // Every handle after its communicator is gone (the last handle
  // destroyed): an error, never a use after free (ASan runs this test).
  for (cclComm_t c : comms) {
    int rank = -1;
    CHECK_FAILS(cclCommRank(c, &rank), cclInvalidUsage);
    CHECK(rank == -1);
    CHECK_FAILS(cclrtLaunch(&kAp, c, in, out, 8, cclFloat32, cclSum, nullptr),
                cclInvalidUsage);
    CHECK_FAILS(cclCommDestroy(c), cclInvalidUsage);
    CHECK_FAILS(cclCommAbort(c), cclInvalidUsage);
  }
  CHECK(last().find("the communicator handle was destroyed, and so was its "
                    "communicator") != std::string::npos);
}

// cclMemFree of a pointer cclMemAlloc did not give the rank (never
// allocated, freed twice, another rank's): an error, never a free().
void test_mem_free_foreign() {
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  void *p = nullptr, *q = nullptr;
  CHECK_OK(cclMemAlloc(comms[0], &p, 1000));
  CHECK_OK(cclMemAlloc(comms[1], &q, 1000));
  int local = 0;
  CHECK_FAILS(cclMemFree(comms[0], &local), cclInvalidArgument);
  CHECK(last().find("is not memory cclMemAlloc gave this rank") !=
        std::string::npos);
  CHECK_FAILS(cclMemFree(comms[0], q), cclInvalidArgument);
  CHECK_OK(cclMemFree(comms[0], p));
  CHECK_FAILS(cclMemFree(comms[0], p), cclInvalidArgument);
  CHECK_OK(cclMemFree(comms[1], q));
  CHECK_OK(cclMemFree(comms[1], nullptr));
  CHECK_OK(cclCommDestroy(comms[0]));
  CHECK_OK(cclCommDestroy(comms[1]));
}

// A pointer no cclCommInit* returned: an error naming it, never a read
// through it.
void test_foreign_handle() {
  alignas(16) unsigned char junk[64];
  memset(junk, 0xab, sizeof junk);
  cclComm_t foreign = reinterpret_cast<cclComm_t>(junk);
  int rank = -1;
  CHECK_FAILS(cclCommRank(foreign, &rank), cclInvalidArgument);
  CHECK(last().find("is not a communicator handle of this process") !=
        std::string::npos);
  CHECK_FAILS(cclCommDestroy(foreign), cclInvalidArgument);
  CHECK_FAILS(cclCommAbort(foreign), cclInvalidArgument);
}

// A thread that keeps using a handle while another destroys the
// communicator's handles: each call succeeds or fails cleanly.
void test_destroy_race() {
  for (int round = 0; round < 20; round++) {
    cclComm_t comms[2];
    CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
    std::atomic<bool> stop{false};
    std::atomic<int> ok{0}, failed{0};
    std::thread user([&] {
      while (!stop.load()) {
        int n = 0;
        if (cclCommCount(comms[1], &n) == cclSuccess && n == 2)
          ok++;
        else
          failed++;
      }
    });
    while (ok.load() == 0)
      std::this_thread::yield();
    CHECK_OK(cclCommDestroy(comms[0]));
    CHECK_OK(cclCommDestroy(comms[1]));
    while (failed.load() == 0)
      std::this_thread::yield();
    stop = true;
    user.join();
  }
}

// cclPlanLookup: every target's plan of a name, in registration order.
void test_plan_lookup() {
  static const ccl_plan kApGpu = PLAN("ap", CCL_TARGET_NVPTX,
                                      CCL_PLAN_ABI_VERSION, kVariants, 2);
  cclrtRegisterPlan(&kApGpu);
  size_t n = 99;
  CHECK_OK(cclPlanLookup("ap", nullptr, 0, &n));
  CHECK(n == 2);
  const ccl_plan *found[3] = {nullptr, nullptr, nullptr};
  CHECK_OK(cclPlanLookup("ap", found, 3, &n));
  CHECK(n == 2 && found[0] == &kAp && found[1] == &kApGpu &&
        found[2] == nullptr);
  // A smaller capacity: the first ones, and the number of all of them.
  found[0] = found[1] = nullptr;
  CHECK_OK(cclPlanLookup("ap", found, 1, &n));
  CHECK(n == 2 && found[0] == &kAp && found[1] == nullptr);
  CHECK_OK(cclPlanLookup("nosuch", found, 3, &n));
  CHECK(n == 0);
  CHECK_FAILS(cclPlanLookup(nullptr, found, 3, &n), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclPlanLookup: algorithm is NULL");
  CHECK_FAILS(cclPlanLookup("ap", found, 3, nullptr), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclPlanLookup(algorithm ap): count is NULL");
  CHECK_FAILS(cclPlanLookup("ap", nullptr, 2, &n), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclPlanLookup(algorithm ap): plans is NULL with "
                       "capacity 2");
}

} // namespace

int main() {
  cclrtRegisterPlan(&kAp);
  cclrtRegisterPlan(&kGpuOnly);
  cclrtRegisterPlan(&kOldAbi);
  cclrtRegisterPlan(&kNoHost);
  cclrtRegisterPlan(&kTwoOnly);
  cclrtRegisterPlan(&kHuge);
  test_rank_count_not_compiled();
  test_launch_errors();
  test_foreign_handle();
  test_destroy_race();
  test_mem_free_foreign();
  test_plan_lookup();
  return test_result("errors_test");
}
