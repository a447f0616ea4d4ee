// proxy_test.cc - the host proxy of port channels (docs/runtime.md, "The
// proxy") on the host target, under stress, with kernels that push their
// requests through the device library's real __ccl_port_put/_signal/_flush
// (runtime/device, compiled natively):
//  - a ring of ranks, each with kBlocks thread blocks and as many port
//    channels to the next rank (plus one acknowledgement port channel back
//    per block, credit 1); every block puts kPuts separate 4-byte pieces
//    with a signal each per call, so each channel carries
//    kCalls * kPuts requests per run: with a FIFO of 1 or 2 slots it wraps
//    around thousands of times;
//  - calls issued back to back (kCalls per rank, no synchronisation), the
//    inputs different in every call, so a lost request shows as a timeout,
//    a duplicated or reordered one as a wrong value, and the receiver also
//    checks after its last wait of a call that the channel's signal count
//    is exactly what the calls so far sent (a duplicated signal shows there
//    even when the data happens to be right);
//  - the same with a slow proxy (cclCommDebugSetProxyDelay) and with a
//    delayed receiver (cclCommDebugSetDelay), at 2, 3 and 4 ranks;
//  - a stalled proxy: the kernel's wait for a free FIFO slot times out and
//    the report names the rank, the put and its source line, and that it
//    waited for the proxy; destroy then returns.
#include <atomic>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/device/ccl_device.h"
#include "test_util.h"

extern "C" void __ccl_host_set_block(uint32_t block);

namespace {

std::string last() { return cclGetLastError(); }

constexpr uint32_t kBlocks = 4; // data channels per rank
constexpr uint32_t kPuts = 24;  // puts (with signal) per block and call
constexpr uint64_t kCount = kBlocks * kPuts; // floats per rank and call

std::atomic<int> g_bad_count{0};

// Channel indices for n ranks: data channel (r, m) from r to r + 1, then
// the acknowledgement channel (r, m) from r + 1 back to r.
uint32_t dataChan(uint32_t r, uint32_t m) { return r * kBlocks + m; }
uint32_t ackChan(uint32_t n, uint32_t r, uint32_t m) {
  return n * kBlocks + r * kBlocks + m;
}

void ring(const ccl_dev_ctx *ctx, const void *input, void *output,
          uint64_t count, uint32_t block) {
  __ccl_host_set_block(block);
  uint32_t epoch = __ccl_begin(ctx);
  const uint32_t n = ctx->nranks, r = ctx->rank, m = block;
  const uint32_t next = (r + 1) % n, prev = (r + n - 1) % n;
  const char *in = static_cast<const char *>(input);
  char *out = static_cast<char *>(output);
  char *peer = __ccl_scratch_ptr(ctx, 0, next, 0, 1, kCount, 1, 4, epoch, 0);
  char *mine = __ccl_scratch_ptr(ctx, 0, r, 0, 1, kCount, 1, 4, epoch, 0);
  const uint32_t out_ch = dataChan(r, m), in_ch = dataChan(prev, m);
  const uint32_t ack_in = ackChan(n, r, m);    // next -> r
  const uint32_t ack_out = ackChan(n, prev, m); // r -> prev
  // The next rank has copied out what the previous call put there.
  __ccl_wait(ctx, ack_in, 0, /*op_id=*/0);
  for (uint32_t i = 0; i < kPuts; i++) {
    uint64_t off = (uint64_t)(m * kPuts + i) * 4;
    __ccl_port_put(ctx, out_ch, peer + off, in + off, 4, CCL_PORT_SIGNAL,
                   /*op_id=*/1);
  }
  for (uint32_t i = 0; i < kPuts; i++) {
    __ccl_wait(ctx, in_ch, i, /*op_id=*/2);
    uint64_t off = (uint64_t)(m * kPuts + i) * 4;
    __ccl_copy(out + off, mine + off, 4);
  }
  // Every signal of this call has arrived and none of the next (its sender
  // waits for our acknowledgement below): the count is exact.
  uint64_t seen = __atomic_load_n(ctx->signal[in_ch], __ATOMIC_ACQUIRE);
  if (seen != ctx->consumed[in_ch] + kPuts)
    g_bad_count++;
  __ccl_port_signal(ctx, ack_out, /*op_id=*/3);
  __ccl_port_flush(ctx, out_ch, /*op_id=*/4); // our input may be reused
  __ccl_wait_commit(ctx, ack_in, 1);
  __ccl_wait_commit(ctx, in_ch, kPuts);
  __ccl_end(ctx, epoch);
}

const ccl_op_info kOps[] = {{"wait", "proxy.ccl", 3, 5},
                            {"put", "proxy.ccl", 5, 7},
                            {"wait", "proxy.ccl", 8, 7},
                            {"signal", "proxy.ccl", 11, 5},
                            {"flush", "proxy.ccl", 12, 5}};
const ccl_kernel_info kKernels[] = {{CCL_DT_FLOAT32, CCL_OP_SUM, "ring", ring}};
const ccl_scratch_info kScratch[] = {{"recv", 1, 0}};

std::vector<ccl_channel_info> channels(uint32_t n) {
  std::vector<ccl_channel_info> ch(2 * n * kBlocks);
  for (uint32_t r = 0; r < n; r++)
    for (uint32_t m = 0; m < kBlocks; m++) {
      ch[dataChan(r, m)] = {r, (r + 1) % n, CCL_CHANNEL_PORT, 0};
      ch[ackChan(n, r, m)] = {(r + 1) % n, r, CCL_CHANNEL_PORT, 1};
    }
  return ch;
}
const std::vector<ccl_channel_info> kCh2 = channels(2), kCh3 = channels(3),
                                    kCh4 = channels(4);
const ccl_variant kVariants[] = {
    {2, kBlocks, 1, 1, kScratch, 1, kKernels, (uint32_t)kCh2.size(),
     kCh2.data()},
    {3, kBlocks, 1, 1, kScratch, 1, kKernels, (uint32_t)kCh3.size(),
     kCh3.data()},
    {4, kBlocks, 1, 1, kScratch, 1, kKernels, (uint32_t)kCh4.size(),
     kCh4.data()},
};
const ccl_plan kPlan = {CCL_PLAN_ABI_VERSION, CCL_TARGET_HOST, "proxy_ring",
                        "AllReduce", 0, 1, CCL_PROTO_SIMPLE, kCount * 4,
                        "proxy.ccl", 3, kVariants, 5, kOps, 0, nullptr};

__attribute__((constructor)) void register_plans() {
  cclrtRegisterPlan(&kPlan);
}

float value(int call, int rank, uint64_t i) {
  return (float)(call * 100000 + rank * 1000 + (int)i);
}

struct Setup {
  int nranks;
  const char *fifo;        // CCL_PROXY_FIFO_SLOTS, or null for the default
  uint64_t proxyDelayNs;   // on rank 0's proxy
  uint64_t receiverDelayNs; // rank 1's blocks at the start of every call
};

void run(const Setup &s) {
  const int kCalls = 16;
  if (s.fifo)
    setenv("CCL_PROXY_FIFO_SLOTS", s.fifo, 1);
  else
    unsetenv("CCL_PROXY_FIFO_SLOTS");
  std::vector<cclComm_t> comms(s.nranks);
  CHECK_OK(cclCommInitAllInProcess(comms.data(), s.nranks, cclTargetHost,
                                   nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSetTimeout(c, 20000));
  CHECK_OK(cclCommDebugSetProxyDelay(comms[0], s.proxyDelayNs));
  CHECK_OK(cclCommDebugSetDelay(comms[1], -1, s.receiverDelayNs));
  const size_t bytes = kCount * 4;
  std::vector<std::vector<float *>> in(s.nranks), out(s.nranks);
  for (int r = 0; r < s.nranks; r++)
    for (int c = 0; c < kCalls; c++) {
      void *a, *b;
      CHECK_OK(cclMemAlloc(comms[r], &a, bytes));
      CHECK_OK(cclMemAlloc(comms[r], &b, bytes));
      in[r].push_back(static_cast<float *>(a));
      out[r].push_back(static_cast<float *>(b));
      for (uint64_t i = 0; i < kCount; i++) {
        in[r][c][i] = value(c, r, i);
        out[r][c][i] = -1;
      }
    }
  g_bad_count = 0;
  // Back to back: every rank's calls queued with no synchronisation.
  for (int c = 0; c < kCalls; c++)
    for (int r = 0; r < s.nranks; r++)
      CHECK_OK(cclrtLaunch(&kPlan, comms[r], in[r][c], out[r][c], kCount,
                           cclFloat32, cclSum, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSynchronize(c, nullptr));
  int wrong = 0;
  for (int r = 0; r < s.nranks; r++) {
    const int prev = (r + s.nranks - 1) % s.nranks;
    for (int c = 0; c < kCalls; c++)
      for (uint64_t i = 0; i < kCount; i++)
        wrong += out[r][c][i] != value(c, prev, i);
  }
  printf("proxy ring: %d ranks, FIFO %s, proxy delay %llu ns, receiver "
         "delay %llu ns: %d calls x %u requests per channel, %d wrong, %d "
         "inexact signal counts\n",
         s.nranks, s.fifo ? s.fifo : "default",
         (unsigned long long)s.proxyDelayNs,
         (unsigned long long)s.receiverDelayNs, kCalls, kPuts + 1, wrong,
         g_bad_count.load());
  CHECK(wrong == 0);
  CHECK(g_bad_count.load() == 0);
  for (int r = 0; r < s.nranks; r++)
    for (int c = 0; c < kCalls; c++) {
      CHECK_OK(cclMemFree(comms[r], in[r][c]));
      CHECK_OK(cclMemFree(comms[r], out[r][c]));
    }
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
}

// Rank 0's proxy takes nothing: rank 0's second put finds the one-slot FIFO
// full and times out (rank 1 starts 400 ms late, so its waits would time
// out later).
void test_stalled_proxy() {
  setenv("CCL_PROXY_FIFO_SLOTS", "1", 1);
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  for (auto c : comms)
    CHECK_OK(cclCommSetTimeout(c, 1000));
  CHECK_OK(cclCommDebugSetProxyDelay(comms[0], UINT64_MAX));
  CHECK_OK(cclCommDebugSetDelay(comms[1], -1, 400 * 1000000ull));
  std::vector<float> a(kCount, 1.0f), b(kCount), c2(kCount, 2.0f), d(kCount);
  uint64_t t0 = now_ns();
  CHECK_OK(cclrtLaunch(&kPlan, comms[0], a.data(), b.data(), kCount,
                       cclFloat32, cclSum, nullptr));
  CHECK_OK(cclrtLaunch(&kPlan, comms[1], c2.data(), d.data(), kCount,
                       cclFloat32, cclSum, nullptr));
  cclResult_t r = cclCommSynchronize(comms[0], nullptr);
  std::string msg = last();
  printf("stalled proxy: %s\n", msg.c_str());
  CHECK(r == cclTimeout);
  CHECK(contains(msg, "rank 0 thread block "));
  CHECK(contains(msg, "in put at proxy.ccl:5:7 (algorithm proxy_ring)"));
  CHECK(contains(msg, "waited for the proxy of rank 0 to take request 1 "
                      "from the port channel's FIFO, it had taken 0"));
  CHECK(now_ns() - t0 < 10000 * 1000000ull);
  for (auto c : comms)
    cclCommDestroy(c);
  CHECK(now_ns() - t0 < 20000 * 1000000ull);
  unsetenv("CCL_PROXY_FIFO_SLOTS");
}

void test_bad_fifo_setting() {
  setenv("CCL_PROXY_FIFO_SLOTS", "0", 1);
  cclComm_t comms[2];
  CHECK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr) ==
        cclSuccess);
  float x = 0, y = 0;
  cclResult_t r = cclrtLaunch(&kPlan, comms[0], &x, &y, 1, cclFloat32, cclSum,
                              nullptr);
  CHECK(r == cclInvalidArgument);
  CHECK(contains(last(), "CCL_PROXY_FIFO_SLOTS is '0'; it must be a number "
                         "of requests from 1 to 65536"));
  for (auto c : comms)
    CHECK_OK(cclCommDestroy(c));
  unsetenv("CCL_PROXY_FIFO_SLOTS");
}

} // namespace

int main() {
  for (int n : {2, 3, 4})
    run({n, nullptr, 0, 0});
  run({2, "1", 0, 0});
  run({3, "1", 20000, 0});     // tiny FIFO, slow proxy
  run({4, "2", 0, 2000000});   // sender runs ahead of a delayed receiver
  run({4, "1", 5000, 1000000});
  test_stalled_proxy();
  test_bad_fifo_setting();
  return test_result("proxy_test");
}
