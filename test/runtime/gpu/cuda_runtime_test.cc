// cuda_runtime_test.cc - libcclrt's CUDA path on real GPUs (BUILD):
// an all-pairs LL AllReduce kernel built from the device library, launched
// through cclrtLaunch on 1-2 GPUs: repeated calls, odd sizes, in-place and
// staged out-of-place calls, CUDA graph capture and replay, a rank that
// never launches (timeout report), image selection and load errors. Then
// 2 and 4 ranks on device 0 (several ranks per GPU): back-to-back calls on
// per-rank streams with cclMemcpyAsync refills and saves, the default
// stream refused, co-residency refused for a plan too wide, the start
// delay followed by CUDA graph replays, channel credit, and the staging
// copies around an in-place ReduceScatter-shaped kernel.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/src/cuda_driver.h"
#include "test/runtime/test_util.h"

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
const ccl_scratch_info kRecv4[] = {{"recv", 4, 1}};
const ccl_variant kVariants[] = {
    {1, 1, 256, 1, kRecv1, 1, kKernels},
    {2, 2, 256, 1, kRecv2, 1, kKernels},
    {4, 4, 256, 1, kRecv4, 1, kKernels},
};
// The same kernel with 100 blocks of 1024 threads per rank: on one GPU,
// 4 ranks need 400 blocks resident at once, more than an H100/H200 holds.
const ccl_variant kWideVariants[] = {
    {2, 100, 1024, 1, kRecv2, 1, kKernels},
    {4, 100, 1024, 1, kRecv4, 1, kKernels},
};
// credit_f32_sum: channel 0 -> 1 with credit 2.
const ccl_kernel_info kCreditKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "credit_f32_sum", nullptr}};
const ccl_channel_info kCreditChannels[] = {{0, 1, CCL_CHANNEL_MEMORY, 2}};
const ccl_variant kCreditVariants[] = {
    {2, 1, 32, 0, nullptr, 1, kCreditKernels, 1, kCreditChannels}};
const ccl_op_info kCreditOps[] = {{"wait", "credit.ccl", 4, 5}};
// double_block_f32_sum: an in-place "ReduceScatter" (uses only input).
const ccl_kernel_info kDoubleKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "double_block_f32_sum", nullptr}};
const ccl_variant kDoubleVariants[] = {
    {2, 1, 256, 0, nullptr, 1, kDoubleKernels},
    {4, 1, 256, 0, nullptr, 1, kDoubleKernels},
};
const char kJunk[] = "not a cubin";
ccl_image g_images[2];
constexpr uint64_t kMaxBytes = 1 << 20;
ccl_plan g_ap, g_ap_inplace, g_bad_ptx, g_missing_sym, g_wide, g_credit,
    g_double;
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
          CCL_PROTO_LL, kMaxBytes, "ap_ll.ccl", 3, kVariants, 3, kOps, 2,
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
  g_wide = g_ap;
  g_wide.algorithm = "ap_ll_wide";
  g_wide.num_variants = 2;
  g_wide.variants = kWideVariants;
  g_credit = g_ap;
  g_credit.algorithm = "credit";
  g_credit.num_variants = 1;
  g_credit.variants = kCreditVariants;
  g_credit.num_ops = 1;
  g_credit.ops = kCreditOps;
  g_credit.max_bytes = 64;
  g_double = g_ap;
  g_double.algorithm = "double_block";
  g_double.collective = "ReduceScatter";
  g_double.inplace = 1;
  g_double.num_variants = 2;
  g_double.variants = kDoubleVariants;
  cclrtRegisterPlan(&g_ap);
  cclrtRegisterPlan(&g_ap_inplace);
  cclrtRegisterPlan(&g_wide);
  cclrtRegisterPlan(&g_credit);
  cclrtRegisterPlan(&g_double);
  cclrtRegisterPlan(&g_bad_ptx);
  cclrtRegisterPlan(&g_missing_sym);
}

// The driver, for the few calls the test itself makes (streams, graphs).
const cclrt::CudaDriver *D = nullptr;

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

uint64_t now_ms() { return now_ns() / 1000000ull; }

// Per-rank non-blocking streams in device 0's primary context.
struct Streams {
  std::vector<cclrt::CUstream> s;
  cclrt::CUcontext ctx = nullptr;
  explicit Streams(int n) : s(n) {
    int dev;
    CHECK(D->cuDeviceGet(&dev, 0) == 0);
    CHECK(D->cuDevicePrimaryCtxRetain(&ctx, dev) == 0);
    CHECK(D->cuCtxSetCurrent(ctx) == 0);
    for (auto &st : s)
      CHECK(D->cuStreamCreate(&st, 1 /* non-blocking */) == 0);
  }
  ~Streams() {
    D->cuCtxSetCurrent(ctx);
    for (auto st : s)
      D->cuStreamDestroy(st);
    D->cuDevicePrimaryCtxRelease(0);
  }
};

// n ranks on device 0.
void test_shared_gpu(int n) {
  printf("--- %d ranks on device 0\n", n);
  std::vector<int> devs(n, 0);
  std::vector<cclComm_t> comms(n);
  if (cclCommInitAllInProcess(comms.data(), n, cclTargetCuda, devs.data()) !=
      cclSuccess) {
    fprintf(stderr, "init of %d ranks on device 0 failed: %s\n", n,
            last().c_str());
    g_failures++;
    return;
  }
  for (int r = 0; r < n; r++) {
    int dev = -1;
    CHECK_OK(cclCommDevice(comms[r], &dev));
    CHECK(dev == 0);
    CHECK_OK(cclCommSetTimeout(comms[r], 10000));
  }
  Streams st(n);

  // Back-to-back calls of six sizes, three each: refill (cclMemcpyAsync),
  // launch, save (cclMemcpyAsync), all on the rank's stream, no sync.
  const uint64_t counts[] = {kMaxBytes / 4, 1, 7, 4097, 65536, 3001};
  const int calls = 3 * (int)(sizeof counts / sizeof counts[0]);
  std::vector<void *> in(n), out(n);
  std::vector<std::vector<void *>> src(n), save(n);
  for (int r = 0; r < n; r++) {
    CHECK_OK(cclMemAlloc(comms[r], &in[r], kMaxBytes));
    CHECK_OK(cclMemAlloc(comms[r], &out[r], kMaxBytes));
    for (int k = 0; k < calls; k++) {
      void *p;
      CHECK_OK(cclMemAlloc(comms[r], &p, kMaxBytes));
      fill(comms[r], r, p, kMaxBytes / 4, 100 + k);
      src[r].push_back(p);
      CHECK_OK(cclMemAlloc(comms[r], &p, kMaxBytes));
      save[r].push_back(p);
    }
  }
  uint64_t t0 = now_ms();
  for (int k = 0; k < calls; k++) {
    uint64_t count = counts[k / 3];
    for (int r = 0; r < n; r++) {
      CHECK_OK(cclMemcpyAsync(comms[r], in[r], src[r][k], count * 4,
                              st.s[r]));
      CHECK_OK(cclrtLaunch(&g_ap, comms[r], in[r], out[r], count, cclFloat32,
                           cclSum, st.s[r]));
      CHECK_OK(cclMemcpyAsync(comms[r], save[r][k], out[r], count * 4,
                              st.s[r]));
    }
  }
  uint64_t queued = now_ms() - t0;
  for (int r = 0; r < n; r++)
    CHECK_OK(cclCommSynchronize(comms[r], st.s[r]));
  printf("%d back-to-back calls per rank queued in %lu ms, done after %lu "
         "ms\n",
         calls, (unsigned long)queued, (unsigned long)(now_ms() - t0));
  for (int k = 0; k < calls; k++)
    for (int r = 0; r < n; r++)
      check_sum(comms[r], n, save[r][k], counts[k / 3], 100 + k,
                "same GPU, back to back");

  // The default stream is refused when ranks share the GPU.
  CHECK_FAILS(cclrtLaunch(&g_ap, comms[1], in[1], out[1], 10, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  printf("NULL stream: %s\n", last().c_str());
  CHECK_CONTAINS(last(), "cclrtLaunch(rank 1, algorithm ap_ll): rank 1 "
                         "shares device 0 with rank");
  CHECK_FAILS(cclMemcpyAsync(comms[0], in[0], out[0], 16, nullptr),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "cclMemcpyAsync(rank 0): rank 0 shares device 0 "
                         "with rank");

  // Co-residency: 100 blocks of 1024 threads per rank.
  cclResult_t wr = cclrtLaunch(&g_wide, comms[0], in[0], out[0], 10,
                               cclFloat32, cclSum, st.s[0]);
  printf("wide plan, %d ranks on one GPU: %s\n", n,
         wr == cclSuccess ? "fits" : last().c_str());
  if (n == 4) {
    CHECK(wr == cclUnsupported);
    CHECK_CONTAINS(last(), "cclrtLaunch(rank 0, algorithm ap_ll_wide): "
                           "preparing algorithm ap_ll_wide failed: device 0 "
                           "(ranks 0, 1, 2, 3) cannot hold the thread "
                           "blocks of its ranks at once: 4 ranks x 100 "
                           "blocks of 1024 threads = 400 blocks must all be "
                           "resident together");
  } else if (wr == cclSuccess) {
    for (int r = 1; r < n; r++)
      CHECK_OK(cclrtLaunch(&g_wide, comms[r], in[r], out[r], 10, cclFloat32,
                           cclSum, st.s[r]));
  } else {
    CHECK_CONTAINS(last(), "device 0 (ranks 0, 1) cannot hold");
  }
  for (int r = 0; r < n; r++)
    CHECK_OK(cclCommSynchronize(comms[r], st.s[r]));

  // Start delay in CUDA graph replays: capture two calls per rank, then
  // delay rank 1 by 20 ms (after the capture): each replay waits.
  {
    const uint64_t count = 5000;
    for (int r = 0; r < n; r++)
      fill(comms[r], r, in[r], count, 7);
    std::vector<cclrt::CUgraph> graphs(n);
    std::vector<cclrt::CUgraphExec> execs(n);
    for (int r = 0; r < n; r++) {
      CHECK(D->cuStreamBeginCapture(st.s[r], 1 /* thread local */) == 0);
      for (int i = 0; i < 2; i++)
        CHECK_OK(cclrtLaunch(&g_ap, comms[r], in[r], out[r], count,
                             cclFloat32, cclSum, st.s[r]));
      CHECK(D->cuStreamEndCapture(st.s[r], &graphs[r]) == 0);
      CHECK(D->cuGraphInstantiateWithFlags(&execs[r], graphs[r], 0) == 0);
    }
    const int replays = 3;
    const uint64_t delayMs = 20;
    for (int pass = 0; pass < 2; pass++) {
      CHECK_OK(cclCommDebugSetDelay(comms[1], -1,
                                    pass == 0 ? delayMs * 1000000ull : 0));
      uint64_t t = now_ms();
      for (int rep = 0; rep < replays; rep++)
        for (int r = 0; r < n; r++)
          CHECK(D->cuGraphLaunch(execs[r], st.s[r]) == 0);
      for (int r = 0; r < n; r++)
        CHECK_OK(cclCommSynchronize(comms[r], st.s[r]));
      uint64_t took = now_ms() - t;
      printf("%d graph replays x 2 calls, rank 1 delayed %lu ms per call: "
             "%lu ms\n",
             replays, (unsigned long)(pass == 0 ? delayMs : 0),
             (unsigned long)took);
      if (pass == 0)
        CHECK(took >= replays * 2 * delayMs);
      else
        CHECK(took < replays * 2 * delayMs);
      for (int r = 0; r < n; r++)
        check_sum(comms[r], n, out[r], count, 7, "graph replay, delayed");
    }
    for (int r = 0; r < n; r++) {
      D->cuGraphExecDestroy(execs[r]);
      D->cuGraphDestroy(graphs[r]);
    }
  }

  // Channel credit (2 ranks): rank 1's first two waits need no signal.
  if (n == 2) {
    void *ep[2];
    for (int r = 0; r < 2; r++)
      CHECK_OK(cclMemAlloc(comms[r], &ep[r], 64));
    for (int i = 0; i < 2; i++)
      CHECK_OK(cclrtLaunch(&g_credit, comms[1], in[1], ep[1], 1, cclFloat32,
                           cclSum, st.s[1]));
    CHECK_OK(cclCommSynchronize(comms[1], st.s[1]));
    CHECK_OK(cclrtLaunch(&g_credit, comms[1], in[1], ep[1], 1, cclFloat32,
                         cclSum, st.s[1]));
    uint64_t t = now_ms();
    while (now_ms() - t < 200)
      ;
    CHECK(D->cuStreamQuery(st.s[1]) == 600 /* CUDA_ERROR_NOT_READY */);
    for (int i = 0; i < 3; i++)
      CHECK_OK(cclrtLaunch(&g_credit, comms[0], in[0], ep[0], 1, cclFloat32,
                           cclSum, st.s[0]));
    CHECK_OK(cclrtLaunch(&g_credit, comms[1], in[1], ep[1], 1, cclFloat32,
                         cclSum, st.s[1]));
    for (int r = 0; r < 2; r++)
      CHECK_OK(cclCommSynchronize(comms[r], st.s[r]));
    uint32_t e[2];
    for (int r = 0; r < 2; r++)
      CHECK_OK(cclMemcpyFromDevice(comms[r], &e[r], ep[r], 4));
    CHECK(e[0] == 2 && e[1] == 3); // epochs of the last calls
    printf("credit: 2 waits without signals, then 2 more with 3 signals\n");
    for (int r = 0; r < 2; r++)
      CHECK_OK(cclMemFree(comms[r], ep[r]));
  }

  // Staging around an in-place ReduceScatter-shaped kernel: out of place
  // (input copied to staging, block `rank` copied out after the kernel,
  // the input left alone) and in place, back to back.
  {
    const uint64_t count = 1000;
    std::vector<void *> rsIn(n), rsOut(n), keepIn(n), keepOut(n), big(n),
        keepBig(n);
    for (int r = 0; r < n; r++) {
      for (auto *v : {&rsIn, &rsOut, &keepIn, &keepOut, &big, &keepBig})
        CHECK_OK(cclMemAlloc(comms[r], &(*v)[r], n * count * 4));
      fill(comms[r], r, rsIn[r], n * count, 11);
      fill(comms[r], r, big[r], n * count, 12);
    }
    for (int r = 0; r < n; r++) {
      cclStream_t s = st.s[r];
      CHECK_OK(cclrtLaunch(&g_double, comms[r], rsIn[r], rsOut[r], count,
                           cclFloat32, cclSum, s));
      CHECK_OK(cclMemcpyAsync(comms[r], keepOut[r], rsOut[r], count * 4, s));
      CHECK_OK(cclMemcpyAsync(comms[r], keepIn[r], rsIn[r], n * count * 4,
                              s));
      char *b = static_cast<char *>(big[r]);
      CHECK_OK(cclrtLaunch(&g_double, comms[r], b, b + r * count * 4, count,
                           cclFloat32, cclSum, s));
      CHECK_OK(cclMemcpyAsync(comms[r], keepBig[r], big[r], n * count * 4,
                              s));
    }
    for (int r = 0; r < n; r++)
      CHECK_OK(cclCommSynchronize(comms[r], st.s[r]));
    int bad = 0;
    for (int r = 0; r < n; r++) {
      std::vector<float> o(count), i(n * count), bg(n * count);
      CHECK_OK(cclMemcpyFromDevice(comms[r], o.data(), keepOut[r], count * 4));
      CHECK_OK(cclMemcpyFromDevice(comms[r], i.data(), keepIn[r],
                                   n * count * 4));
      CHECK_OK(cclMemcpyFromDevice(comms[r], bg.data(), keepBig[r],
                                   n * count * 4));
      for (uint64_t j = 0; j < count; j++)
        bad += o[j] != 2 * value(r, r * count + j, 11);
      for (uint64_t j = 0; j < n * count; j++) {
        bad += i[j] != value(r, j, 11);
        bool mine = j / count == (uint64_t)r;
        bad += bg[j] != (mine ? 2 : 1) * value(r, j, 12);
      }
      for (auto *v : {&rsIn, &rsOut, &keepIn, &keepOut, &big, &keepBig})
        CHECK_OK(cclMemFree(comms[r], (*v)[r]));
    }
    CHECK(bad == 0);
    printf("staging around an in-place ReduceScatter kernel: %d wrong\n",
           bad);
  }

  for (int r = 0; r < n; r++) {
    CHECK_OK(cclMemFree(comms[r], in[r]));
    CHECK_OK(cclMemFree(comms[r], out[r]));
    for (int k = 0; k < calls; k++) {
      CHECK_OK(cclMemFree(comms[r], src[r][k]));
      CHECK_OK(cclMemFree(comms[r], save[r][k]));
    }
  }
  CHECK_OK(asyncError(comms[0]));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
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
  D = cclrt::cudaDriver();
  if (!D) {
    fprintf(stderr, "no CUDA driver (libcuda.so.1)\n");
    return 2;
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
    std::vector<cclrt::CUstream> streams(n);
    std::vector<cclrt::CUgraph> graphs(n);
    std::vector<cclrt::CUgraphExec> execs(n);
    for (int r = 0; r < n; r++) {
      int dev;
      cclrt::CUcontext ctx;
      CHECK(D->cuDeviceGet(&dev, r) == 0);
      CHECK(D->cuDevicePrimaryCtxRetain(&ctx, dev) == 0);
      CHECK(D->cuCtxSetCurrent(ctx) == 0);
      CHECK(D->cuStreamCreate(&streams[r], 1 /* non-blocking */) == 0);
      fill(comms[r], r, in[r], count, 3);
    }
    for (int r = 0; r < n; r++) {
      CHECK(D->cuStreamBeginCapture(streams[r], 1 /* thread local */) == 0);
      for (int i = 0; i < 3; i++) {
        CHECK_OK(cclrtLaunch(&g_ap, comms[r], in[r], out[r], count,
                             cclFloat32, cclSum, streams[r]));
        CHECK_OK(cclrtLaunch(&g_ap_inplace, comms[r], in[r], out[r], count,
                             cclFloat32, cclSum, streams[r]));
      }
      CHECK(D->cuStreamEndCapture(streams[r], &graphs[r]) == 0);
      CHECK(D->cuGraphInstantiateWithFlags(&execs[r], graphs[r], 0) == 0);
    }
    for (int rep = 0; rep < 20; rep++)
      for (int r = 0; r < n; r++)
        CHECK(D->cuGraphLaunch(execs[r], streams[r]) == 0);
    for (int r = 0; r < n; r++)
      CHECK_OK(cclCommSynchronize(comms[r], streams[r]));
    for (int r = 0; r < n; r++)
      check_sum(comms[r], n, out[r], count, 3, "graph replay");
    for (int r = 0; r < n; r++) {
      D->cuGraphExecDestroy(execs[r]);
      D->cuGraphDestroy(graphs[r]);
      D->cuStreamDestroy(streams[r]);
      D->cuDevicePrimaryCtxRelease(r);
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
  test_shared_gpu(2);
  test_shared_gpu(4);
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
