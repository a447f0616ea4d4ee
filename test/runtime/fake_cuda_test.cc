// fake_cuda_test.cc - the CUDA target's error paths that need a GPU with
// particular properties, on CPU machines, against the fake driver
// (fake_cuda/fake_libcuda.cc, loaded as libcuda.so.1 by
// fake_cuda_test.sh): with one process per rank, a device that cannot
// export memory as a POSIX file descriptor fails plan preparation on every
// rank with a message naming the device and the missing capability, and
// cclMemAlloc falls back to ordinary device memory.
#include <cstdlib>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

std::string last() { return cclGetLastError(); }

const ccl_scratch_info kScratch[] = {{"buf", 2, 0}};
const ccl_kernel_info kKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "fake_kernel", nullptr}};
const ccl_variant kVariants[] = {{2, 1, 32, 1, kScratch, 1, kKernels, 0,
                                  nullptr, 0, nullptr, 0, nullptr}};
const char kImage[] = "// fake PTX";
const ccl_image kImages[] = {{CCL_IMAGE_PTX, "sm_90", kImage, sizeof kImage}};
const ccl_plan kPlan = {CCL_PLAN_ABI_VERSION, CCL_TARGET_NVPTX, "fake_ar",
                        "AllReduce", 0, 1, CCL_PROTO_SIMPLE, 4096,
                        "fake.ccl", 1, kVariants, 0, nullptr, 1, kImages, 0};

} // namespace

int main() {
  // fake_cuda_test.sh runs it with FAKE_CUDA_FD_EXPORT=0.
  if (!getenv("FAKE_CUDA_FD_EXPORT")) {
    fprintf(stderr, "run me through fake_cuda_test.sh\n");
    return 2;
  }
  cclrtRegisterPlan(&kPlan);
  cclUniqueId id;
  CHECK_OK(cclGetUniqueId(&id));
  const int n = 2;
  std::vector<cclComm_t> comms(n, nullptr);
  std::vector<cclResult_t> res(n, cclInternalError);
  std::vector<std::thread> th;
  for (int r = 0; r < n; r++)
    th.emplace_back([&, r] {
      cclConfig_t cfg = CCL_CONFIG_INITIALIZER;
      cfg.target = cclTargetCuda;
      cfg.device = 0;
      cfg.bootstrap_timeout_ms = 5000;
      res[r] = cclCommInitRankConfig(&comms[r], n, id, r, &cfg);
    });
  for (auto &t : th)
    t.join();
  for (int r = 0; r < n; r++)
    CHECK_OK(res[r]);
  if (g_failures)
    return test_result("fake_cuda_test");
  float buf[8] = {0};
  for (int r = 0; r < n; r++) {
    cclResult_t lr = cclrtLaunch(&kPlan, comms[r], buf, buf, 4, cclFloat32,
                                 cclSum, nullptr);
    CHECK(lr == cclUnsupported);
    CHECK_CONTAINS(last(), "preparing algorithm fake_ar failed");
    CHECK_CONTAINS(last(), "device 0 cannot share memory with other "
                           "processes: it cannot export memory as a POSIX "
                           "file descriptor "
                           "(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_"
                           "DESCRIPTOR_SUPPORTED is 0)");
    // cclMemAlloc falls back to ordinary device memory.
    void *p = nullptr;
    CHECK_OK(cclMemAlloc(comms[r], &p, 1000));
    CHECK(p != nullptr);
    CHECK_OK(cclMemFree(comms[r], p));
  }
  for (int r = 0; r < n; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
  return test_result("fake_cuda_test");
}
