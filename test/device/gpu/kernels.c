/* NVPTX kernels for the GPU smoke test of the device library (BUILD: gpu_test).
 * Compiled with the library's flags, linked with its bitcode, -O3, PTX. */
#include "ccl_device.h"

#define KERNEL __attribute__((nvptx_kernel))

/* Block 0 writes the packets of src into the packet half of this epoch,
 * block 1 unpacks them into dst, blocks >= 2 reduce them into rdst with
 * reduce_packets_<dt>_<op> number `which` (CCL_FOR_EACH_DT_OP order). */
KERNEL void k_ll(const ccl_dev_ctx *ctx, const char *src, uint64_t nelems,
                 uint32_t esize, char *dst, char *rdst, uint32_t which) {
  uint32_t epoch = __ccl_begin(ctx);
  uint32_t flag = epoch + 1;
  uint64_t nbytes = nelems * esize;
  char *pk = __ccl_scratch_ptr(ctx, 0, 0, 0, 1, nelems, 1, esize, epoch, 1);
  uint32_t b = __nvvm_read_ptx_sreg_ctaid_x();
  if (b == 0) {
    __ccl_put_packets(pk, src, nbytes, flag);
  } else if (b == 1) {
    __ccl_unpack_packets(ctx, dst, pk, nbytes, flag, 1);
  } else {
    uint32_t i = 0;
#define X(DT, OP)                                                              \
  if (which == i++)                                                            \
    __ccl_reduce_packets_##DT##_##OP(ctx, rdst, pk, nelems, flag, 2);
    CCL_FOR_EACH_DT_OP(X)
#undef X
  }
  __ccl_end(ctx, epoch);
}

/* Every block waits for packets that never come. */
KERNEL void k_timeout(const ccl_dev_ctx *ctx, const char *pk, char *dst,
                      uint64_t nbytes) {
  uint32_t epoch = __ccl_begin(ctx);
  __ccl_unpack_packets(ctx, dst, pk, nbytes, epoch + 1000, 9);
  __ccl_end(ctx, epoch);
}

/* Local copy / reduce (which == 12: copy of nelems bytes). */
KERNEL void k_local(char *dst, const char *src, uint64_t nelems,
                    uint32_t which) {
  uint32_t i = 0;
#define X(DT, OP)                                                              \
  if (which == i++)                                                            \
    __ccl_reduce_##DT##_##OP(dst, src, nelems);
  CCL_FOR_EACH_DT_OP(X)
#undef X
  if (which == 12)
    __ccl_copy(dst, src, nelems);
  __ccl_barrier();
}

/* dst = base OP src, also stored to fwd unless it is NULL (reduce_base
 * number `which`, CCL_FOR_EACH_DT_OP order). */
KERNEL void k_base(char *dst, const char *base, const char *src, char *fwd,
                   uint64_t nelems, uint32_t which) {
  uint32_t i = 0;
#define X(DT, OP)                                                              \
  if (which == i++)                                                            \
    __ccl_reduce_base_##DT##_##OP(dst, base, src, fwd, nelems);
  CCL_FOR_EACH_DT_OP(X)
#undef X
  __ccl_barrier();
}
