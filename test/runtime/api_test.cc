// api_test.cc - communicator creation and queries, memory on the host
// target, error strings, and the CUDA target on a machine without a driver.
#include <cstdint>
#include <vector>

#include "runtime/src/cuda_driver.h"
#include "test_util.h"

namespace {

std::string last() { return cclGetLastError(); }

void test_names() {
  CHECK(cclDataTypeSize(cclFloat32) == 4);
  CHECK(cclDataTypeSize(cclFloat16) == 2);
  CHECK(cclDataTypeSize(cclBfloat16) == 2);
  CHECK(cclDataTypeSize((cclDataType_t)42) == 0);
  CHECK_CONTAINS(cclGetErrorString(cclTimeout), "cclTimeout");
  CHECK_CONTAINS(cclGetErrorString(cclNoDevice), "cclNoDevice");
  CHECK_CONTAINS(cclGetErrorString((cclResult_t)99), "unknown");
  CHECK(std::string(cclGetLastError()).empty());
}

void test_init_errors() {
  cclComm_t comms[4];
  CHECK_FAILS(cclCommInitAllInProcess(nullptr, 2, cclTargetHost, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommInitAllInProcess: comms is NULL");
  CHECK_FAILS(cclCommInitAllInProcess(comms, 0, cclTargetHost, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommInitAllInProcess: nranks is 0; one process "
                       "drives 1 to 1024 ranks (use one process per rank "
                       "beyond that)");
  // An upper bound, checked before anything is allocated for the ranks.
  {
    std::vector<cclComm_t> many(20000);
    CHECK_FAILS(
        cclCommInitAllInProcess(many.data(), 20000, cclTargetHost, nullptr),
        cclInvalidArgument);
    CHECK_EQ_STR(last(), "cclCommInitAllInProcess: nranks is 20000; one "
                         "process drives 1 to 1024 ranks (use one process per "
                         "rank beyond that)");
  }
  int devs[2] = {0, 1};
  CHECK_FAILS(cclCommInitAllInProcess(comms, 2, cclTargetHost, devs),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommInitAllInProcess: devices must be NULL for the "
                       "host target");
  CHECK_FAILS(cclCommInitAllInProcess(comms, 2, (cclTarget_t)7, nullptr),
              cclInvalidArgument);
  CHECK_FAILS(cclCommRank(nullptr, nullptr), cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclCommRank: comm is NULL");
  CHECK_FAILS(cclCommSynchronize(nullptr, nullptr), cclInvalidArgument);
  CHECK_FAILS(cclCommDestroy(nullptr), cclInvalidArgument);
}

void test_queries_and_memory() {
  cclComm_t comms[4];
  CHECK_OK(cclCommInitAllInProcess(comms, 4, cclTargetHost, nullptr));
  for (int r = 0; r < 4; r++) {
    int rank = -5, n = -5, dev = -5;
    cclTarget_t t = cclTargetCuda;
    CHECK_OK(cclCommRank(comms[r], &rank));
    CHECK_OK(cclCommCount(comms[r], &n));
    CHECK_OK(cclCommDevice(comms[r], &dev));
    CHECK_OK(cclCommTarget(comms[r], &t));
    CHECK(rank == r && n == 4 && dev == -1 && t == cclTargetHost);
  }
  CHECK_FAILS(cclCommRank(comms[0], nullptr), cclInvalidArgument);
  void *p = nullptr;
  CHECK_OK(cclMemAlloc(comms[2], &p, 1000));
  CHECK(p && ((uintptr_t)p & 63) == 0);
  char src[1000], dst[1000];
  for (int i = 0; i < 1000; i++)
    src[i] = (char)i;
  CHECK_OK(cclMemcpyToDevice(comms[2], p, src, 1000));
  CHECK_OK(cclMemcpyFromDevice(comms[2], dst, p, 1000));
  CHECK(memcmp(src, dst, 1000) == 0);
  CHECK_FAILS(cclMemcpyToDevice(comms[2], nullptr, src, 10),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclMemcpyToDevice(rank 2): NULL dst with 10 bytes");
  CHECK_OK(cclMemcpyToDevice(comms[2], nullptr, nullptr, 0));
  CHECK_OK(cclMemFree(comms[2], p));
  CHECK_OK(cclMemFree(comms[2], nullptr));
  void *z = &p;
  CHECK_OK(cclMemAlloc(comms[1], &z, 0));
  CHECK(z == nullptr);
  CHECK_FAILS(cclMemAlloc(comms[1], nullptr, 8), cclInvalidArgument);
  // Sizes whose rounding would wrap around are refused, not shrunk.
  for (size_t huge : {SIZE_MAX, SIZE_MAX - 10, (size_t)1 << 50}) {
    z = &p;
    CHECK_FAILS(cclMemAlloc(comms[1], &z, huge), cclInvalidArgument);
    CHECK(z == nullptr);
    CHECK_EQ_STR(last(), "cclMemAlloc(rank 1): " + std::to_string(huge) +
                             " bytes is more than any rank's memory (at most "
                             "2^48 bytes)");
  }
  // Synchronize with nothing queued, async error none.
  for (auto c : comms) {
    CHECK_OK(cclCommSynchronize(c, nullptr));
    CHECK_OK(asyncError(c));
    CHECK_OK(cclCommLoadRegisteredPlans(c));
  }
  // Destroy in any order.
  CHECK_OK(cclCommDestroy(comms[2]));
  CHECK_OK(cclCommDestroy(comms[0]));
  CHECK_OK(cclCommDestroy(comms[3]));
  CHECK_OK(cclCommDestroy(comms[1]));
  // Many communicators one after another (threads are joined).
  for (int i = 0; i < 20; i++) {
    CHECK_OK(cclCommInitAllInProcess(comms, 3, cclTargetHost, nullptr));
    for (int r = 0; r < 3; r++)
      CHECK_OK(cclCommDestroy(comms[r]));
  }
}

// On a machine without the CUDA driver: cclNoDevice with the exact message.
void test_cuda_without_driver() {
  cclrt::CudaLoadError loadError;
  if (cclrt::cudaDriver(&loadError) ||
      loadError.kind != cclrt::CudaLoadError::kNoLibrary) {
    printf("libcuda.so.1 is present: skipping the no-driver test\n");
    return;
  }
  const std::string dlerr = loadError.detail;
  cclComm_t comms[2];
  CHECK_FAILS(cclCommInitAllInProcess(comms, 2, cclTargetCuda, nullptr),
              cclNoDevice);
  CHECK_EQ_STR(last(), "cclCommInitAllInProcess: CUDA target requested but "
                       "the CUDA driver (libcuda.so.1) could not be loaded: " +
                           dlerr +
                           "; use the host target (--target host) on "
                           "machines without a GPU");
  CHECK(comms[0] == nullptr && comms[1] == nullptr);
  // The same again (the driver is looked for once).
  CHECK_FAILS(cclCommInitAllInProcess(comms, 1, cclTargetCuda, nullptr),
              cclNoDevice);
  CHECK_CONTAINS(last(), "could not be loaded");
}

} // namespace

int main() {
  test_names();
  test_init_errors();
  test_queries_and_memory();
  test_cuda_without_driver();
  return test_result("api_test");
}
