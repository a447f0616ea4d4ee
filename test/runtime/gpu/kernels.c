/* NVPTX kernels for the runtime's GPU test (BUILD). The first, an all-pairs
 * LL AllReduce (float32, sum) written against the device library the way
 * cclc generates it: block b > 0 puts this rank's input as packets into
 * slot `rank` of rank (rank + b) % n's `recv` buffer; block 0 copies input
 * to output and reduces every peer's packets (op 2). Parameters are those
 * libcclrt passes: (ctx, input, output, count). */
#include "ccl_device.h"

#define KERNEL __attribute__((nvptx_kernel))

KERNEL void ap_ll_f32_sum(const ccl_dev_ctx *ctx, const char *input,
                          char *output, uint64_t count) {
  uint32_t epoch = __ccl_begin(ctx);
  uint32_t flag = epoch + 1;
  uint32_t n = ctx->nranks, r = ctx->rank;
  uint32_t b = __nvvm_read_ptx_sreg_ctaid_x();
  uint64_t nbytes = count * 4;
  if (b > 0) {
    uint32_t p = (r + b) % n;
    char *dst = __ccl_scratch_ptr(ctx, 0, p, r, n, count, 1, 4, epoch, 1);
    __ccl_put_packets(dst, input, nbytes, flag);
  } else {
    __ccl_copy(output, input, nbytes);
    __ccl_barrier();
    for (uint32_t q = 0; q < n; q++) {
      if (q == r)
        continue;
      const char *src =
          __ccl_scratch_ptr(ctx, 0, r, q, n, count, 1, 4, epoch, 1);
      __ccl_reduce_packets_f32_sum(ctx, output, src, count, flag, 2);
    }
  }
  __ccl_end(ctx, epoch);
}

/* One channel, rank 0 -> rank 1 (the plan may give it credit): rank 0
 * signals once per call, rank 1 waits once (op 0); both write the call's
 * epoch to output[0] (as a uint32). */
KERNEL void credit_f32_sum(const ccl_dev_ctx *ctx, const char *input,
                           char *output, uint64_t count) {
  uint32_t epoch = __ccl_begin(ctx);
  if (ctx->rank == 0) {
    __ccl_signal(ctx, 0);
  } else {
    __ccl_wait(ctx, 0, 0, 0);
    __ccl_wait_commit(ctx, 0, 1);
  }
  if (__nvvm_read_ptx_sreg_tid_x() == 0 && count)
    *(uint32_t *)output = epoch;
  __ccl_end(ctx, epoch);
}

/* A stand-in for an in-place ReduceScatter algorithm, without
 * communication: it uses only `input` and doubles block `rank` of it (where
 * an in-place ReduceScatter leaves its result). For the runtime's staging
 * copies around the kernel. */
KERNEL void double_block_f32_sum(const ccl_dev_ctx *ctx, const char *input,
                                 char *output, uint64_t count) {
  uint32_t epoch = __ccl_begin(ctx);
  float *b = (float *)input + (uint64_t)ctx->rank * count;
  for (uint64_t i = __nvvm_read_ptx_sreg_tid_x(); i < count;
       i += __nvvm_read_ptx_sreg_ntid_x())
    b[i] *= 2.0f;
  __ccl_end(ctx, epoch);
}
