/* GPU smoke test of the device library on NVIDIA (BUILD: gpu_test): loads
 * gpu_test.ptx through the CUDA driver API (the project's run-time loader,
 * runtime/src/cuda_driver.h; no CUDA headers) and checks LL16
 * put/unpack/reduce across blocks of one kernel, epoch advance across
 * launches, timeout -> error record in host-mapped memory + abort, and
 * local copy/reduce, against the host build of the same library. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/device/ccl_device.h"
#include "runtime/src/cuda_driver.h"

using cclrt::CUcontext;
using cclrt::CUdeviceptr;
using cclrt::CUfunction;
using cclrt::CUmodule;
using cclrt::CUresult;

static const cclrt::CudaDriver *D;

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_) {                                                                  \
      fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, r_);         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c);    \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
static uint64_t rs = 88172645463325252ull;
static uint32_t rnd(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (uint32_t)(rs >> 16);
}

extern "C" uint16_t __ccl_f32_to_f16(float f);
extern "C" uint16_t __ccl_f32_to_bf16(float f);

typedef void (*reduce_fn)(char *, const char *, uint64_t);
static reduce_fn host_reduce[12] = {
#define X(DT, OP) __ccl_reduce_##DT##_##OP,
    CCL_FOR_EACH_DT_OP(X)
#undef X
};
static const uint32_t esize_of_which[12] = {4, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2};

static void fill(char *p, uint64_t n, uint32_t which) {
  uint32_t es = esize_of_which[which];
  for (uint64_t i = 0; i < n; i++) {
    float v = (which % 4 == 1) ? 0.5f + (rnd() % 1000) / 666.0f
                               : ((float)(rnd() % 20001) - 10000.0f) / 77.0f;
    if (es == 4)
      memcpy(p + 4 * i, &v, 4);
    else {
      uint16_t h = which < 8 ? __ccl_f32_to_f16(v) : __ccl_f32_to_bf16(v);
      memcpy(p + 2 * i, &h, 2);
    }
  }
}

int main(int argc, char **argv) {
  const char *ptx_path = argc > 1 ? argv[1] : "gpu_test.ptx";
  cclrt::CudaLoadError loadError;
  D = cclrt::cudaDriver(&loadError);
  if (!D) {
    fprintf(stderr, "no usable CUDA driver (load error %d: %s%s%s)\n",
            (int)loadError.kind, loadError.detail.c_str(),
            loadError.result ? ", CUresult " : "",
            loadError.result ? std::to_string(loadError.result).c_str() : "");
    return 2;
  }
  int dev;
  CK(D->cuDeviceGet(&dev, 0));
  CUcontext ctxh;
  CK(D->cuDevicePrimaryCtxRetain(&ctxh, dev));
  CK(D->cuCtxSetCurrent(ctxh));

  FILE *f = fopen(ptx_path, "rb");
  CHECK(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *ptx = static_cast<char *>(calloc(1, len + 1));
  CHECK(fread(ptx, 1, len, f) == (size_t)len);
  fclose(f);
  char log[8192] = {0};
  int opts[2] = {5 /* ERROR_LOG_BUFFER */, 6 /* ERROR_LOG_BUFFER_SIZE */};
  void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
  CUmodule mod;
  CUresult lr = D->cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
  if (lr) {
    fprintf(stderr, "module load %d: %s\n", lr, log);
    return 1;
  }
  CUfunction k_ll, k_timeout, k_local, k_base;
  CK(D->cuModuleGetFunction(&k_ll, mod, "k_ll"));
  CK(D->cuModuleGetFunction(&k_timeout, mod, "k_timeout"));
  CK(D->cuModuleGetFunction(&k_local, mod, "k_local"));
  CK(D->cuModuleGetFunction(&k_base, mod, "k_base"));

  /* Context: epoch + scratch in device memory, abort + error host-mapped. */
  enum { MAXN = 100003 };
  CUdeviceptr d_epoch, d_scratch, d_table, d_ctx, d_src, d_dst, d_rdst;
  /* One call counter per block (ctx->epoch[block]): k_ll runs 3 blocks,
   * k_timeout 4. */
  enum { NB = 4 };
  CK(D->cuMemAlloc(&d_epoch, NB * 4));
  CK(D->cuMemsetD8(d_epoch, 0, NB * 4));
  size_t scratch_bytes = 2 * ((MAXN * 4 + 7) / 8 * 16);
  CK(D->cuMemAlloc(&d_scratch, scratch_bytes));
  CK(D->cuMemsetD8(d_scratch, 0, scratch_bytes));
  CK(D->cuMemAlloc(&d_table, 8));
  CK(D->cuMemcpyHtoD(d_table, &d_scratch, 8));
  CK(D->cuMemAlloc(&d_src, MAXN * 4 + 64));
  CK(D->cuMemAlloc(&d_dst, MAXN * 4 + 64));
  CK(D->cuMemAlloc(&d_rdst, MAXN * 4 + 64));
  void *hmap;
  CK(D->cuMemHostAlloc(&hmap, 4096, 0x2 /* DEVICEMAP */ | 0x1));
  memset(hmap, 0, 4096);
  volatile uint32_t *abort_flag = (volatile uint32_t *)hmap;
  ccl_error_record *err = (ccl_error_record *)((char *)hmap + 64);
  CUdeviceptr d_hmap;
  CK(D->cuMemHostGetDevicePointer(&d_hmap, hmap, 0));

  ccl_dev_ctx c;
  memset(&c, 0, sizeof c);
  c.rank = 5;
  c.nranks = 1;
  c.nblocks = 3;
  c.num_scratch = 1;
  c.timeout_ns = 5000000000ull; /* 5 s: must never fire in the LL test */
  c.epoch = (uint32_t *)(uintptr_t)d_epoch;
  c.abort_flag = (volatile uint32_t *)(uintptr_t)d_hmap;
  c.error = (ccl_error_record *)(uintptr_t)(d_hmap + 64);
  c.scratch = (void *const *)(uintptr_t)d_table;
  CK(D->cuMemAlloc(&d_ctx, sizeof c));
  CK(D->cuMemcpyHtoD(d_ctx, &c, sizeof c));

  char *src = static_cast<char *>(malloc(MAXN * 4)),
       *dst = static_cast<char *>(malloc(MAXN * 4)),
       *rdst = static_cast<char *>(malloc(MAXN * 4)),
       *want = static_cast<char *>(malloc(MAXN * 4));
  uint64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 63, 64, 65, 255, 256, 257,
                      1000, 4097, 65537, MAXN};
  uint32_t launches = 0;
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (uint32_t which = 0; which < 12; which++) {
      uint64_t n = sizes[si];
      uint32_t es = esize_of_which[which];
      fill(src, n, which);
      fill(rdst, n, which);
      memcpy(want, rdst, n * es);
      host_reduce[which](want, src, n);
      CK(D->cuMemcpyHtoD(d_src, src, n * es));
      CK(D->cuMemcpyHtoD(d_rdst, rdst, n * es));
      CK(D->cuMemsetD8(d_dst, 0xee, n * es + 64));
      void *args[] = {&d_ctx, &d_src, &n, &es, &d_dst, &d_rdst, &which};
      CK(D->cuLaunchKernel(k_ll, 3, 1, 1, 256, 1, 1, 0, NULL, args, NULL));
      CK(D->cuCtxSynchronize(nullptr));
      launches++;
      CK(D->cuMemcpyDtoH(dst, d_dst, n * es));
      CK(D->cuMemcpyDtoH(rdst, d_rdst, n * es));
      unsigned char tail[64];
      CK(D->cuMemcpyDtoH(tail, d_dst + n * es, 64));
      for (int i = 0; i < 64; i++)
        CHECK(tail[i] == 0xee);
      if (memcmp(dst, src, n * es)) {
        fprintf(stderr, "unpack mismatch n=%lu\n", (unsigned long)n);
        return 1;
      }
      if (memcmp(rdst, want, n * es)) {
        fprintf(stderr, "reduce_packets %u mismatch n=%lu\n", which,
                (unsigned long)n);
        return 1;
      }
      uint32_t ep[NB];
      CK(D->cuMemcpyDtoH(ep, d_epoch, sizeof ep));
      CHECK(ep[0] == launches && ep[1] == launches && ep[2] == launches &&
            ep[3] == 0);
      CHECK(*abort_flag == 0 && err->state == 0);
    }
  printf("LL put/unpack/reduce over %u launches ok (epoch %u)\n", launches,
         launches);

  /* Timeout: 4 blocks x 128 threads wait for packets that never come. */
  c.nblocks = 4;
  c.timeout_ns = 2000000; /* 2 ms */
  CK(D->cuMemcpyHtoD(d_ctx, &c, sizeof c));
  CUdeviceptr d_pk;
  CK(D->cuMemAlloc(&d_pk, 4096 * 2));
  CK(D->cuMemsetD8(d_pk, 0, 4096 * 2));
  uint64_t nb = 4096;
  void *targs[] = {&d_ctx, &d_pk, &d_dst, &nb};
  uint64_t t0 = now_ns();
  CK(D->cuLaunchKernel(k_timeout, 4, 1, 1, 128, 1, 1, 0, NULL, targs, NULL));
  CK(D->cuCtxSynchronize(nullptr));
  uint64_t t1 = now_ns();
  printf("timeout kernel: %.3f ms; record state=%u rank=%u block=%u op=%u "
         "expected=%u observed=%u waited=%lu ns abort=%u\n",
         (t1 - t0) / 1e6, err->state, err->rank, err->block, err->op_id,
         err->expected, err->observed, (unsigned long)err->waited_ns,
         *abort_flag);
  CHECK(*abort_flag == 1);
  CHECK(err->state == CCL_ERR_TIMEOUT && err->rank == 5 && err->block < 4 &&
        err->op_id == 9 &&
        err->expected == (err->block < 3 ? launches : 0) + 1000 &&
        err->observed == 0 && err->waited_ns >= 2000000 &&
        err->waited_ns < 1000000000ull);
  CHECK(t1 - t0 < 1000000000ull);
  uint32_t ep[NB];
  CK(D->cuMemcpyDtoH(ep, d_epoch, sizeof ep));
  CHECK(ep[0] == launches + 1 && ep[1] == launches + 1 &&
        ep[2] == launches + 1 && ep[3] == 1);
  /* Abort still raised, no timeout: returns at once. */
  c.timeout_ns = 0;
  CK(D->cuMemcpyHtoD(d_ctx, &c, sizeof c));
  t0 = now_ns();
  CK(D->cuLaunchKernel(k_timeout, 4, 1, 1, 128, 1, 1, 0, NULL, targs, NULL));
  CK(D->cuCtxSynchronize(nullptr));
  t1 = now_ns();
  printf("aborted kernel: %.3f ms\n", (t1 - t0) / 1e6);
  CHECK(t1 - t0 < 500000000ull);
  CK(D->cuMemcpyDtoH(ep, d_epoch, sizeof ep));
  CHECK(ep[0] == launches + 2 && ep[1] == launches + 2 &&
        ep[2] == launches + 2 && ep[3] == 2);

  /* Local reduce and copy with many threads. */
  uint64_t lsizes[] = {1, 5, 1000, 4097, 65537};
  for (size_t si = 0; si < 5; si++)
    for (uint32_t which = 0; which < 13; which++)
      for (uint32_t off = 0; off < (which == 12 ? 3u : 1u); off++) {
        uint64_t n = lsizes[si];
        uint32_t es = which == 12 ? 1 : esize_of_which[which];
        uint32_t fw = which == 12 ? 0 : which;
        fill(src, n * es / esize_of_which[fw] + 1, fw);
        fill(rdst, n * es / esize_of_which[fw] + 1, fw);
        memcpy(want, rdst, n * es + off * 7);
        if (which < 12)
          host_reduce[which](want, src, n);
        else
          memcpy(want + off * 7, src + off * 2, n);
        CK(D->cuMemcpyHtoD(d_src, src, n * es + 16));
        CK(D->cuMemcpyHtoD(d_rdst, rdst, n * es + 16));
        CUdeviceptr ds = d_src + off * 2, dd = d_rdst + off * 7;
        void *largs[] = {&dd, &ds, &n, &which};
        CK(D->cuLaunchKernel(k_local, 1, 1, 1, 256, 1, 1, 0, NULL, largs, NULL));
        CK(D->cuCtxSynchronize(nullptr));
        CK(D->cuMemcpyDtoH(rdst, d_rdst, n * es + off * 7));
        if (memcmp(rdst, want, n * es + off * 7)) {
          fprintf(stderr, "local %u mismatch n=%lu off=%u\n", which,
                  (unsigned long)n, off);
          return 1;
        }
      }
  printf("local reduce/copy ok\n");

  /* dst = base OP src (+ fwd) with many threads: base apart from dst, with
   * and without a forward, and base == dst (the accumulating form). The
   * base lives in d_dst, the forward in d_scratch. */
  char *base = static_cast<char *>(malloc(MAXN * 4)),
       *fwd = static_cast<char *>(malloc(MAXN * 4));
  for (size_t si = 0; si < 5; si++)
    for (uint32_t which = 0; which < 12; which++)
      for (uint32_t mode = 0; mode < 3; mode++) {
        uint64_t n = lsizes[si];
        uint32_t es = esize_of_which[which];
        fill(src, n + 1, which);
        fill(base, n + 1, which);
        fill(rdst, n + 1, which);
        memcpy(want, mode == 2 ? rdst : base, n * es);
        host_reduce[which](want, src, n);
        CK(D->cuMemcpyHtoD(d_src, src, n * es));
        CK(D->cuMemcpyHtoD(d_dst, base, n * es));
        CK(D->cuMemcpyHtoD(d_rdst, rdst, n * es));
        CK(D->cuMemsetD8(d_scratch, 0xA5, n * es));
        CUdeviceptr db = mode == 2 ? d_rdst : d_dst;
        CUdeviceptr df = mode == 1 ? d_scratch : 0;
        void *bargs[] = {&d_rdst, &db, &d_src, &df, &n, &which};
        CK(D->cuLaunchKernel(k_base, 1, 1, 1, 256, 1, 1, 0, NULL, bargs, NULL));
        CK(D->cuCtxSynchronize(nullptr));
        CK(D->cuMemcpyDtoH(rdst, d_rdst, n * es));
        CK(D->cuMemcpyDtoH(fwd, d_scratch, n * es));
        bool fwd_ok = true;
        for (uint64_t b = 0; b < n * es; b++)
          fwd_ok &= mode == 1 ? fwd[b] == want[b] : (uint8_t)fwd[b] == 0xA5;
        if (memcmp(rdst, want, n * es) || !fwd_ok) {
          fprintf(stderr, "reduce_base %u mismatch n=%lu mode=%u (%s)\n", which,
                  (unsigned long)n, mode, fwd_ok ? "destination" : "forward");
          return 1;
        }
      }
  printf("reduce_base ok\nGPU PASS\n");
  return 0;
}
