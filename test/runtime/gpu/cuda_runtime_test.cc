// cuda_runtime_test.cc - libcclrt's CUDA path on real GPUs (run_cuda_test.sh):
// an all-pairs LL AllReduce kernel built from the device library, launched
// through cclrtLaunch on 1-2 GPUs: repeated calls, odd sizes, in-place and
// staged out-of-place calls, CUDA graph capture and replay, a rank that
// never launches (timeout report), image selection and load errors.
#include <dlfcn.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../test_util.h"

namespace {

std::string g_ptx;
std::string last() { return cclGetLastError(); }

const ccl_op_info kOps[] = {
    {"put_packets", "ap_ll.ccl", 10, 5},
    {"copy", "ap_ll.ccl", 11, 3},
    {"reduce_packets", "ap_ll.ccl", 12, 9},
};
const ccl_kernel_info kKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "ap_ll_f32_sum", nullptr}};
const ccl_scratch_info kRecv1[] = {{"recv", 1, 1}};
const ccl_scratch_info kRecv2[] = {{"recv", 2, 1}};
const ccl_variant kVariants[] = {
    {1, 1, 256, 1, kRecv1, 1, kKernels},
    {2, 2, 256, 1, kRecv2, 1, kKernels},
};
const char kJunk[] = "not a cubin";
ccl_image g_images[2];
constexpr uint64_t kMaxBytes = 1 << 20;
ccl_plan g_ap, g_ap_inplace, g_bad_ptx, g_missing_sym;
ccl_image g_bad_image = {CCL_IMAGE_PTX, nullptr, "this is not PTX", 16};
const ccl_kernel_info kMissing[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "no_such_kernel", nullptr}};
const ccl_variant kMissingVariants[] = {
    {1, 1, 32, 0, nullptr, 1, kMissing},
    {2, 1, 32, 0, nullptr, 1, kMissing},
};

void make_plans() {
  // A CUBIN for an architecture no device has (skipped), then the PTX.
  g_images[0] = {CCL_IMAGE_CUBIN, "sm_10", kJunk, sizeof kJunk};
  g_images[1] = {CCL_IMAGE_PTX, nullptr, g_ptx.data(), g_ptx.size()};
  g_ap = {CCL_PLAN_ABI_VERSION, CCL_TARGET_NVPTX, "ap_ll", "AllReduce", 0, 1,
          CCL_PROTO_LL, kMaxBytes, "ap_ll.ccl", 2, kVariants, 3, kOps, 2,
          g_images};
  g_ap_inplace = g_ap;
  g_ap_inplace.algorithm = "ap_ll_inplace";
  g_ap_inplace.inplace = 1;
  g_bad_ptx = g_ap;
  g_bad_ptx.algorithm = "bad_ptx";
  g_bad_ptx.num_images = 1;
  g_bad_ptx.images = &g_bad_image;
  g_missing_sym = g_ap;
  g_missing_sym.algorithm = "missing_sym";
  g_missing_sym.variants = kMissingVariants;
  cclrtRegisterPlan(&g_ap);
  cclrtRegisterPlan(&g_ap_inplace);
  cclrtRegisterPlan(&g_bad_ptx);
  cclrtRegisterPlan(&g_missing_sym);
}

// The few driver calls the test itself makes (streams, graphs).
typedef int CUresult;
struct Drv {
  CUresult (*cuDeviceGet)(int *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(void **, int);
  CUresult (*cuDevicePrimaryCtxRelease)(int);
  CUresult (*cuCtxSetCurrent)(void *);
  CUresult (*cuStreamCreate)(void **, unsigned);
  CUresult (*cuStreamDestroy)(void *);
  CUresult (*cuStreamSynchronize)(void *);
  CUresult (*cuStreamBeginCapture)(void *, int);
  CUresult (*cuStreamEndCapture)(void *, void **);
  CUresult (*cuGraphInstantiateWithFlags)(void **, void *, unsigned long long);
  CUresult (*cuGraphLaunch)(void *, void *);
  CUresult (*cuGraphExecDestroy)(void *);
  CUresult (*cuGraphDestroy)(void *);
} D;

bool load_driver() {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h)
    return false;
  typedef CUresult (*Gpa)(const char *, void **, int, unsigned long long,
                          int *);
  Gpa gpa = (Gpa)dlsym(h, "cuGetProcAddress_v2");
  if (!gpa)
    return false;
  int st;
#define R(name)                                                                \
  if (gpa(#name, (void **)&D.name, 13000, 0, &st) != 0 || !D.name) {          \
    fprintf(stderr, "cannot resolve %s\n", #name);                             \
    return false;                                                              \
  }
  R(cuDeviceGet) R(cuDevicePrimaryCtxRetain) R(cuDevicePrimaryCtxRelease)
  R(cuCtxSetCurrent) R(cuStreamCreate) R(cuStreamDestroy)
  R(cuStreamSynchronize) R(cuStreamBeginCapture) R(cuStreamEndCapture)
  R(cuGraphInstantiateWithFlags) R(cuGraphLaunch) R(cuGraphExecDestroy)
  R(cuGraphDestroy)
#undef R
  return true;
}

float value(int rank, uint64_t i, int call) {
  return (float)((rank + 1) * 100 + (int)(i % 1000) + call);
}

void fill(cclComm_t c, int r, void *buf, uint64_t count, int call) {
  std::vector<float> h(count);
  for (uint64_t i = 0; i < count; i++)
    h[i] = value(r, i, call);
  CHECK_OK(cclMemcpyToDevice(c, buf, h.data(), count * 4));
}

bool check_sum(cclComm_t c, int n, const void *buf, uint64_t count, int call,
               const char *what) {
  std::vector<float> h(count);
  CHECK_OK(cclMemcpyFromDevice(c, h.data(), buf, count * 4));
  for (uint64_t i = 0; i < count; i++) {
    float e = 0;
    for (int q = 0; q < n; q++)
      e += value(q, i, call);
    if (h[i] != e) {
      fprintf(stderr, "%s: count %lu call %d: [%lu] = %f, expected %f\n",
              what, (unsigned long)count, call, (unsigned long)i, h[i], e);
      g_failures++;
      return false;
    }
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s ap_ll.ptx\n", argv[0]);
    return 2;
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  g_ptx = ss.str();
  CHECK(!g_ptx.empty());
  make_plans();
  if (!load_driver()) {
    printf("no CUDA driver: nothing to test\n");
    return 0;
  }

  int n = 2;
  std::vector<cclComm_t> comms(2);
  cclResult_t res = cclCommInitAllInProcess(comms.data(), 2, cclTargetCuda,
                                            nullptr);
  if (res == cclNoDevice) {
    printf("2 ranks: %s\n", last().c_str());
    n = 1;
    comms.resize(1);
    res = cclCommInitAllInProcess(comms.data(), 1, cclTargetCuda, nullptr);
  }
  if (res != cclSuccess) {
    fprintf(stderr, "init failed: %s\n", last().c_str());
    return 1;
  }
  printf("communicator of %d GPU rank(s)\n", n);
  for (int r = 0; r < n; r++) {
    int dev = -1;
    CHECK_OK(cclCommDevice(comms[r], &dev));
    CHECK(dev == r);
  }

  // Load errors are reported at launch.
  float *dummy = nullptr;
  CHECK_OK(cclMemAlloc(comms[0], (void **)&dummy, 64));
  CHECK_FAILS(cclrtLaunch(&g_bad_ptx, comms[0], dummy, dummy + 4, 4,
                          cclFloat32, cclSum, nullptr),
              cclUnsupported);
  printf("bad PTX: %s\n", last().c_str());
  CHECK_CONTAINS(last(), "no device image of algorithm bad_ptx loads");
  CHECK_FAILS(cclrtLaunch(&g_missing_sym, comms[0], dummy, dummy + 4, 4,
                          cclFloat32, cclSum, nullptr),
              cclDriverError);
  printf("missing symbol: %s\n", last().c_str());
  CHECK_CONTAINS(last(), "cuModuleGetFunction failed (kernel no_such_kernel");

  std::vector<void *> in(n), out(n);
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclMemAlloc(comms[r], &in[r], kMaxBytes));
    CHECK_OK(cclMemAlloc(comms[r], &out[r], kMaxBytes));
  }
  // Repeated calls, several sizes (the largest, odd ones, one element).
  int call = 0;
  const uint64_t counts[] = {kMaxBytes / 4, 1, 7, 1000, 4097, 65536};
  for (uint64_t count : counts) {
    for (int rep = 0; rep < 4; rep++, call++) {
      for (int r = 0; r < n; r++)
        fill(comms[r], r, in[r], count, call);
      for (int r = 0; r < n; r++)
        CHECK_OK(cclrtLaunch(&g_ap, comms[r], in[r], out[r], count,
                             cclFloat32, cclSum, nullptr));
      for (int r = 0; r < n; r++)
        CHECK_OK(cclCommSynchronize(comms[r], nullptr));
      for (int r = 0; r < n; r++)
        check_sum(comms[r], n, out[r], count, call, "out of place");
    }
  }
  printf("%d repeated calls checked\n", call);
  // Out-of-place plan with input == output (staged), in-place plan with
  // distinct buffers (copied first), in place for real.
  const uint64_t count = 3001;
  for (int r = 0; r < n; r++)
    fill(comms[r], r, out[r], count, 1);
  for (int r = 0; r < n; r++)
    CHECK_OK(cclrtLaunch(&g_ap, comms[r], out[r], out[r], count, cclFloat32,
                         cclSum, nullptr));
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
    check_sum(comms[r], n, out[r], count, 1, "staged");
  }
  for (int r = 0; r < n; r++)
    fill(comms[r], r, in[r], count, 2);
  for (int r = 0; r < n; r++)
    CHECK_OK(cclrtLaunch(&g_ap_inplace, comms[r], in[r], out[r], count,
                         cclFloat32, cclSum, nullptr));
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclCommSynchronize(comms[r], nullptr));
    check_sum(comms[r], n, out[r], count, 2, "in place, copied");
  }
  printf("in-place and staged calls checked\n");

  // CUDA graphs: capture 6 launches per rank (both plans) on a stream of
  // the rank's primary context, then replay the graph 20 times.
  {
    std::vector<void *> streams(n), graphs(n), execs(n);
    for (int r = 0; r < n; r++) {
      int dev;
      void *ctx;
      CHECK(D.cuDeviceGet(&dev, r) == 0);
      CHECK(D.cuDevicePrimaryCtxRetain(&ctx, dev) == 0);
      CHECK(D.cuCtxSetCurrent(ctx) == 0);
      CHECK(D.cuStreamCreate(&streams[r], 1 /* non-blocking */) == 0);
      fill(comms[r], r, in[r], count, 3);
    }
    for (int r = 0; r < n; r++) {
      CHECK(D.cuStreamBeginCapture(streams[r], 1 /* thread local */) == 0);
      for (int i = 0; i < 3; i++) {
        CHECK_OK(cclrtLaunch(&g_ap, comms[r], in[r], out[r], count,
                             cclFloat32, cclSum, streams[r]));
        CHECK_OK(cclrtLaunch(&g_ap_inplace, comms[r], in[r], out[r], count,
                             cclFloat32, cclSum, streams[r]));
      }
      CHECK(D.cuStreamEndCapture(streams[r], &graphs[r]) == 0);
      CHECK(D.cuGraphInstantiateWithFlags(&execs[r], graphs[r], 0) == 0);
    }
    for (int rep = 0; rep < 20; rep++)
      for (int r = 0; r < n; r++)
        CHECK(D.cuGraphLaunch(execs[r], streams[r]) == 0);
    for (int r = 0; r < n; r++)
      CHECK_OK(cclCommSynchronize(comms[r], streams[r]));
    for (int r = 0; r < n; r++)
      check_sum(comms[r], n, out[r], count, 3, "graph replay");
    for (int r = 0; r < n; r++) {
      D.cuGraphExecDestroy(execs[r]);
      D.cuGraphDestroy(graphs[r]);
      D.cuStreamDestroy(streams[r]);
      D.cuDevicePrimaryCtxRelease(r);
    }
    printf("graph capture and 20 replays checked\n");
  }

  // A rank that never launches: rank 0's reduce_packets times out.
  if (n == 2) {
    for (auto c : comms)
      CHECK_OK(cclCommSetTimeout(c, 200));
    CHECK_OK(cclCommDebugSkipLaunches(comms[1], 1));
    for (int r = 0; r < n; r++)
      CHECK_OK(cclrtLaunch(&g_ap, comms[r], in[r], out[r], 100, cclFloat32,
                           cclSum, nullptr));
    CHECK_FAILS(cclCommSynchronize(comms[0], nullptr), cclTimeout);
    printf("timeout: %s\n", last().c_str());
    CHECK_CONTAINS(last(), "cclCommSynchronize(rank 0): rank 0 thread block "
                           "0 timed out after 0.");
    CHECK_CONTAINS(last(), " s in reduce_packets at ap_ll.ccl:12:9 "
                           "(algorithm ap_ll): waited for flag ");
    CHECK_FAILS(cclCommSynchronize(comms[1], nullptr), cclTimeout);
    CHECK_FAILS(cclrtLaunch(&g_ap, comms[0], in[0], out[0], 100, cclFloat32,
                            cclSum, nullptr),
                cclTimeout);
  }
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclMemFree(comms[r], in[r]));
    CHECK_OK(cclMemFree(comms[r], out[r]));
  }
  CHECK_OK(cclMemFree(comms[0], dummy));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
  // A second communicator after the first is gone.
  CHECK_OK(cclCommInitAllInProcess(comms.data(), n, cclTargetCuda, nullptr));
  for (int r = 0; r < n; r++)
    CHECK_OK(cclrtLaunch(&g_ap, comms[r], nullptr, nullptr, 0, cclFloat32,
                         cclSum, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
  return test_result("cuda_runtime_test");
}
