// hip_test.cc - libcclrt's HIP target (cclTargetHip) through the public C
// API, against the test double of the HIP runtime
// (test/runtime/fake_hip/fake_libamdhip64.cc, loaded through
// CCL_HIP_LIBRARY by hip_test.sh). The double cannot run kernels, so what
// is checked is what the runtime asks of HIP: devices, memory and its
// round trips, peer access, code objects picked by architecture, kernels
// resolved, launches (order, grid, block, argument buffer) and IPC
// between processes. One mode per process (HIP is loaded once):
//
//   hip_test inprocess GFX942 GFX90A LOG    communicators of 2 and 4 ranks
//   hip_test nolib                           CCL_HIP_LIBRARY names no file
//   hip_test nodev                           CCL_FAKE_HIP_DEVICES=0
//   hip_test nopeer                          CCL_FAKE_HIP_NO_PEER=1
//   hip_test twoarch                         CCL_FAKE_HIP_EXTRA_ARCH=gfx90a
//   hip_test noarch                          CCL_FAKE_HIP_ARCH=none
//   hip_test rank GFX942 GFX90A LOG          one rank of a job (torchrun's
//                                            variables), IPC with the peer
#include <unistd.h>

#include <cinttypes>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "test/runtime/test_util.h"

namespace {

std::string last() { return cclGetLastError(); }

std::string readFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    out.push_back(l);
  return out;
}

std::vector<std::string> launches(const std::string &log) {
  std::vector<std::string> out;
  for (const std::string &l : lines(readFile(log)))
    if (l.rfind("launch ", 0) == 0)
      out.push_back(l);
  return out;
}

std::string hex(const void *p) {
  char b[32];
  snprintf(b, sizeof b, "%" PRIxPTR, reinterpret_cast<uintptr_t>(p));
  return b;
}

// The plans, over the code objects the test reads at run time.
std::string g_gfx942, g_gfx90a;

const ccl_scratch_info kScratch[] = {{"buf", 2, 0}};
const ccl_kernel_info kPerRank[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "fake_ar", nullptr}};
const ccl_kernel_info kShared[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "one_for_all", nullptr}};
const ccl_kernel_info kMissing[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "missing", nullptr}};
const ccl_channel_info kChannels[] = {{0, 1, CCL_CHANNEL_MEMORY, 0},
                                      {1, 0, CCL_CHANNEL_MEMORY, 1}};
// 2 ranks: per-rank kernels fake_ar_r0/_r1, 2 blocks of 64 threads, two
// channels; 4 ranks: one kernel for all, 3 blocks of 128 threads.
const ccl_variant kVariants[] = {
    {2, 2, 64, 1, kScratch, 1, kPerRank, 2, kChannels, 0, nullptr, 0, nullptr},
    {4, 3, 128, 1, kScratch, 1, kShared, 0, nullptr, 0, nullptr, 0, nullptr}};
const ccl_variant kMissingVariant[] = {
    {2, 1, 64, 1, kScratch, 1, kMissing, 0, nullptr, 0, nullptr, 0, nullptr}};

ccl_image g_images[2], g_only90a[1], g_mislabelled[1];
ccl_plan g_plan, g_wrongArch, g_badImage, g_missing;

ccl_plan makePlan(const char *name, const ccl_variant *v, uint32_t nv,
                  const ccl_image *images, uint32_t ni) {
  return ccl_plan{CCL_PLAN_ABI_VERSION,
                  CCL_TARGET_AMDGPU,
                  name,
                  "AllReduce",
                  0,
                  1,
                  CCL_PROTO_SIMPLE,
                  4096,
                  "hip_test.ccl",
                  nv,
                  v,
                  0,
                  nullptr,
                  ni,
                  images,
                  0};
}

void registerPlans(const char *gfx942, const char *gfx90a) {
  g_gfx942 = readFile(gfx942);
  g_gfx90a = readFile(gfx90a);
  CHECK(g_gfx942.size() > 64 && g_gfx90a.size() > 64);
  // gfx90a first: the runtime must skip it on a gfx942 device (the double
  // refuses a code object of another architecture).
  g_images[0] = {CCL_IMAGE_HSACO, "gfx90a", g_gfx90a.data(), g_gfx90a.size()};
  g_images[1] = {CCL_IMAGE_HSACO, "gfx942", g_gfx942.data(), g_gfx942.size()};
  g_only90a[0] = g_images[0];
  g_mislabelled[0] = {CCL_IMAGE_HSACO, "gfx942", g_gfx90a.data(),
                      g_gfx90a.size()};
  g_plan = makePlan("hip_ar", kVariants, 2, g_images, 2);
  g_wrongArch = makePlan("only90a", kVariants, 2, g_only90a, 1);
  g_badImage = makePlan("mislabelled", kVariants, 2, g_mislabelled, 1);
  g_missing = makePlan("nosym", kMissingVariant, 1, g_images, 2);
  for (const ccl_plan *p : {&g_plan, &g_wrongArch, &g_badImage, &g_missing})
    cclrtRegisterPlan(p);
}

int inProcess(const char *logPath) {
  // Two ranks on two devices.
  cclComm_t comms[4] = {};
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHip, nullptr));
  if (g_failures)
    return test_result("hip_test inprocess");
  for (int r = 0; r < 2; r++) {
    cclTarget_t t;
    int dev = -1;
    CHECK_OK(cclCommTarget(comms[r], &t));
    CHECK(t == cclTargetHip);
    CHECK_OK(cclCommDevice(comms[r], &dev));
    CHECK(dev == r);
  }
  // Memory round trips: upload, device-to-device, download.
  const size_t n = 1000;
  std::vector<float> src(n), back(n, -1);
  for (size_t i = 0; i < n; i++)
    src[i] = (float)i * 0.5f;
  void *a = nullptr, *b = nullptr;
  CHECK_OK(cclMemAlloc(comms[1], &a, n * sizeof(float)));
  CHECK_OK(cclMemAlloc(comms[1], &b, n * sizeof(float)));
  CHECK_OK(cclMemcpyToDevice(comms[1], a, src.data(), n * sizeof(float)));
  CHECK_OK(cclMemcpyAsync(comms[1], b, a, n * sizeof(float), nullptr));
  CHECK_OK(cclCommSynchronize(comms[1], nullptr));
  CHECK_OK(cclMemcpyFromDevice(comms[1], back.data(), b, n * sizeof(float)));
  CHECK(back == src);
  // Launches: the gfx942 image was loaded, each rank's own kernel, the
  // grid and block of the variant, the 32-byte argument buffer (ctx,
  // input, output, count) in that order.
  CHECK_OK(
      cclrtLaunch(&g_plan, comms[0], a, b, 7, cclFloat32, cclSum, nullptr));
  CHECK_OK(
      cclrtLaunch(&g_plan, comms[1], a, b, 9, cclFloat32, cclSum, nullptr));
  CHECK_OK(
      cclrtLaunch(&g_plan, comms[0], b, a, 3, cclFloat32, cclSum, nullptr));
  std::vector<std::string> l = launches(logPath);
  CHECK(l.size() == 3);
  if (l.size() == 3) {
    CHECK_CONTAINS(l[0], "device=0 kernel=fake_ar_r0 grid=2,1,1 "
                         "block=64,1,1 kernarg=32 segment=32 stream=0 args=");
    CHECK_CONTAINS(l[0], "," + hex(a) + "," + hex(b) + ",7");
    CHECK_CONTAINS(l[1], "device=1 kernel=fake_ar_r1 grid=2,1,1 "
                         "block=64,1,1 kernarg=32 segment=32 stream=0 args=");
    CHECK_CONTAINS(l[1], "," + hex(a) + "," + hex(b) + ",9");
    CHECK_CONTAINS(l[2], "kernel=fake_ar_r0");
    CHECK_CONTAINS(l[2], "," + hex(b) + "," + hex(a) + ",3");
  }
  CHECK_OK(cclCommSynchronize(comms[0], nullptr));
  // The image of another architecture only: named with the device's.
  CHECK_FAILS(
      cclrtLaunch(&g_wrongArch, comms[0], a, b, 7, cclFloat32, cclSum, nullptr),
      cclUnsupported);
  CHECK_CONTAINS(last(), "no device image of algorithm only90a loads on rank "
                         "0 (device 0, gfx942:sramecc+:xnack-): it needs an "
                         "hsaco code object for gfx942, and the library has "
                         "[hsaco gfx90a]");
  // A gfx90a code object labelled gfx942: HIP refuses it.
  CHECK_FAILS(
      cclrtLaunch(&g_badImage, comms[0], a, b, 7, cclFloat32, cclSum, nullptr),
      cclUnsupported);
  CHECK_CONTAINS(last(), "hsaco image 0 (gfx942) failed: "
                         "hipErrorNoBinaryForGpu");
  // A kernel the code object does not have.
  CHECK_FAILS(
      cclrtLaunch(&g_missing, comms[0], a, b, 7, cclFloat32, cclSum, nullptr),
      cclDriverError);
  CHECK_CONTAINS(last(), "hipModuleGetFunction failed (kernel missing_r0 or "
                         "missing on device 0, gfx942:sramecc+:xnack-): "
                         "hipErrorNotFound");
  CHECK(launches(logPath).size() == 3);
  CHECK_OK(cclMemFree(comms[1], a));
  CHECK_OK(cclMemFree(comms[1], b));
  for (int r = 0; r < 2; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
  // What the runtime allocated is fine-grained; only cclMemAlloc's two
  // buffers are not. The abort flag and error record, and the FIFOs, are
  // mapped, portable and coherent host memory.
  int coarse = 0, fine = 0, hostMapped = 0;
  for (const std::string &ln : lines(readFile(logPath))) {
    coarse += contains(ln, "alloc ") && contains(ln, "finegrained=0");
    fine += contains(ln, "alloc ") && contains(ln, "finegrained=1");
    hostMapped +=
        contains(ln, "hostalloc ") && contains(ln, "flags=0x40000003");
  }
  CHECK(coarse == 2);
  CHECK(fine > 4);
  CHECK(hostMapped == 1);

  // Four ranks on four devices: one kernel for all ranks (no _rR entry),
  // with hidden arguments.
  // input == output on an out-of-place plan: the kernel reads the staging
  // copy and writes the buffer.
  CHECK_OK(cclCommInitAllInProcess(comms, 4, cclTargetHip, nullptr));
  if (g_failures)
    return test_result("hip_test inprocess");
  void *bufs[4];
  for (int r = 0; r < 4; r++) {
    CHECK_OK(cclMemAlloc(comms[r], &bufs[r], 64));
    CHECK_OK(cclrtLaunch(&g_plan, comms[r], bufs[r], bufs[r], 4, cclFloat32,
                         cclSum, nullptr));
  }
  l = launches(logPath);
  CHECK(l.size() == 7);
  for (int r = 0; r < 4 && l.size() == 7; r++) {
    CHECK_CONTAINS(l[3 + r], "device=" + std::to_string(r) +
                                 " kernel=one_for_all grid=3,1,1 "
                                 "block=128,1,1 kernarg=32 segment=");
    // Its hidden arguments make the segment larger than the 32 bytes.
    CHECK(!contains(l[3 + r], "segment=32 "));
    CHECK_CONTAINS(l[3 + r], "," + hex(bufs[r]) + ",4");
    CHECK(!contains(l[3 + r], "," + hex(bufs[r]) + "," + hex(bufs[r])));
  }
  for (int r = 0; r < 4; r++) {
    CHECK_OK(cclMemFree(comms[r], bufs[r]));
    CHECK_OK(cclCommDestroy(comms[r]));
  }

  // Four ranks on two devices: ranks sharing a GPU must use streams of
  // their own.
  const int devs[4] = {0, 1, 0, 1};
  CHECK_OK(cclCommInitAllInProcess(comms, 4, cclTargetHip, devs));
  if (g_failures)
    return test_result("hip_test inprocess");
  void *p = nullptr;
  CHECK_OK(cclMemAlloc(comms[2], &p, 64));
  CHECK_FAILS(
      cclrtLaunch(&g_plan, comms[2], p, p, 4, cclFloat32, cclSum, nullptr),
      cclInvalidArgument);
  CHECK_CONTAINS(last(), "rank 2 shares device 0 with rank 0: queue its "
                         "launches on a stream of its own");
  CHECK(launches(logPath).size() == 7);
  CHECK_OK(cclMemFree(comms[2], p));
  for (int r = 0; r < 4; r++)
    CHECK_OK(cclCommDestroy(comms[r]));
  // A device that does not exist.
  const int bad[2] = {0, 5};
  CHECK_FAILS(cclCommInitAllInProcess(comms, 2, cclTargetHip, bad),
              cclInvalidArgument);
  CHECK_CONTAINS(last(), "devices[1] is 5, but only 4 HIP devices are "
                         "visible");
  return test_result("hip_test inprocess");
}

int errorCase(const char *mode) {
  cclComm_t comms[2] = {};
  cclResult_t r = cclCommInitAllInProcess(comms, 2, cclTargetHip, nullptr);
  if (strcmp(mode, "nolib") == 0) {
    CHECK(r == cclNoDevice);
    CHECK_CONTAINS(last(), "cclCommInitAllInProcess: HIP target requested "
                           "but the HIP runtime could not be loaded: cannot "
                           "load /nonexistent/libamdhip64.so (the path "
                           "CCL_HIP_LIBRARY names): ");
    CHECK_CONTAINS(last(), "No such file or directory");
    // One process per rank: the rank fails before it joins.
    cclUniqueId id;
    CHECK_OK(cclGetUniqueId(&id));
    cclConfig_t cfg = CCL_CONFIG_INITIALIZER;
    cfg.target = cclTargetHip;
    cclComm_t c = nullptr;
    CHECK_FAILS(cclCommInitRankConfig(&c, 1, id, 0, &cfg), cclNoDevice);
    CHECK_CONTAINS(last(), "cclCommInitRank(rank 0): HIP target "
                           "requested but the HIP runtime could not be "
                           "loaded");
  } else {
    // The modes whose in-process init fails with one result and message.
    // twoarch: the runtime names both architectures and where they lie,
    // and guesses neither.
    struct Expect {
      const char *mode;
      cclResult_t result;
      const char *message;
    };
    static const Expect kExpected[] = {
        {"nodev", cclNoDevice,
         "cclCommInitAllInProcess: no AMD GPU: hipGetDeviceCount returned 0 "
         "devices, hipErrorNoDevice"},
        {"nopeer", cclUnsupported,
         "rank 0 (device 0) cannot access the memory of rank 1 (device 1) "
         "directly (hipDeviceCanAccessPeer says no)"},
        {"twoarch", cclDriverError,
         "cannot tell the architecture of HIP device 0: its properties "
         "(hipGetDeviceProperties) hold more than one architecture name: "
         "gfx942:sramecc+:xnack- (at byte 1160) gfx90a (at byte 1416)"},
        {"noarch", cclDriverError,
         "cannot tell the architecture of HIP device 0: its properties "
         "(hipGetDeviceProperties) hold no gcnArchName of the form gfxNNN"},
    };
    const Expect *e = nullptr;
    for (const Expect &x : kExpected)
      if (strcmp(mode, x.mode) == 0)
        e = &x;
    CHECK(e && "unknown mode");
    if (e) {
      CHECK(r == e->result);
      CHECK_CONTAINS(last(), e->message);
    }
  }
  return test_result(mode);
}

// One rank of a two-process job: plans prepared with the peer's arena
// opened from its IPC handle, then a registered buffer written by one
// process and read by the other, both ways.
int oneRank(const char *logPath) {
  int rank = -1, nranks = -1;
  CHECK_OK(cclGetEnvRank(&rank, &nranks));
  CHECK(nranks == 2);
  cclConfig_t cfg = CCL_CONFIG_INITIALIZER;
  cfg.target = cclTargetHip;
  cfg.device = rank;
  cclComm_t comm = nullptr;
  CHECK_OK(cclCommInitFromEnv(&comm, &cfg));
  if (g_failures)
    return test_result("hip_test rank");
  const int peer = 1 - rank;
  // The plan of two ranks was prepared (its arenas shared): it launches.
  void *buf = nullptr;
  const size_t n = 256;
  CHECK_OK(cclMemAlloc(comm, &buf, n * sizeof(uint32_t)));
  CHECK_OK(
      cclrtLaunch(&g_plan, comm, buf, buf, 5, cclFloat32, cclSum, nullptr));
  std::vector<uint32_t> mine(n), seen(n), want(n);
  for (size_t i = 0; i < n; i++) {
    mine[i] = 1000u * (rank + 1) + (uint32_t)i;
    want[i] = 1000u * (peer + 1) + (uint32_t)i;
  }
  CHECK_OK(cclMemcpyToDevice(comm, buf, mine.data(), n * sizeof(uint32_t)));
  cclRegHandle_t reg = nullptr;
  CHECK_OK(cclCommRegister(comm, buf, n * sizeof(uint32_t), &reg));
  void *peerBuf = nullptr;
  int kind = -1;
  CHECK_OK(cclCommRegisteredPeer(comm, reg, peer, &peerBuf, &kind));
  CHECK(kind == cclRegIpc);
  CHECK(peerBuf != nullptr && peerBuf != buf);
  if (g_failures)
    return test_result("hip_test rank");
  // Read what the peer wrote into its own buffer.
  CHECK_OK(
      cclMemcpyFromDevice(comm, seen.data(), peerBuf, n * sizeof(uint32_t)));
  CHECK(seen == want);
  // Write into the peer's buffer; after a barrier, read our own: the
  // peer's write is there.
  char token = 0, tokens[2];
  CHECK_OK(cclBootstrapAllGather(comm, &token, tokens, 1));
  uint32_t stamp[2] = {0xabc00000u + (uint32_t)rank, 77};
  CHECK_OK(cclMemcpyToDevice(comm, static_cast<char *>(peerBuf) + 64, stamp,
                             sizeof stamp));
  CHECK_OK(cclBootstrapAllGather(comm, &token, tokens, 1));
  uint32_t got[2] = {};
  CHECK_OK(cclMemcpyFromDevice(comm, got, static_cast<char *>(buf) + 64,
                               sizeof got));
  CHECK(got[0] == 0xabc00000u + (uint32_t)peer && got[1] == 77);
  CHECK_OK(cclCommDeregister(comm, reg));
  CHECK_OK(cclMemFree(comm, buf));
  CHECK_OK(cclCommDestroy(comm));
  // This process's launch: its own kernel on its own device.
  int found = 0;
  for (const std::string &l : launches(logPath))
    found += contains(l, "pid=" + std::to_string(getpid()) + " device=" +
                             std::to_string(rank) + " kernel=fake_ar_r" +
                             std::to_string(rank) + " grid=2,1,1");
  CHECK(found == 1);
  return test_result("hip_test rank");
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || !getenv("CCL_HIP_LIBRARY")) {
    fprintf(stderr, "run me through hip_test.sh\n");
    return 2;
  }
  const std::string mode = argv[1];
  if ((mode == "inprocess" || mode == "rank") && argc == 5) {
    registerPlans(argv[2], argv[3]);
    return mode == "inprocess" ? inProcess(argv[4]) : oneRank(argv[4]);
  }
  return errorCase(argv[1]);
}
