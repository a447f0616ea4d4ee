// testar_cuda.cc - a minimal CUDA-target stand-in for a generated library,
// for trying ccl-perf's CUDA paths (streams, events, CUDA graphs, checking,
// the NCCL comparison) on a GPU machine before cclc emits real libraries.
//
//   ccl_testar_copy: AllReduce for ONE rank only (output = input, for every
//   dtype and op), a hand-written PTX kernel that copies count * esize bytes
//   with a grid-stride loop. Correct for -g 1; nothing else.
//
//   ccl-perf --lib libtestar_cuda.so --algo testar_copy -g 1 -d all -o all
//            -b 4 -e 1M -f 4 -G 2 --compare nccl
#include "ccl/ccl.h"

namespace {

#define COPY_KERNEL(NAME, SHIFT)                                           \
  ".visible .entry " NAME "(.param .u64 ctx, .param .u64 in,\n"            \
  "    .param .u64 out, .param .u64 count)\n"                              \
  "{\n"                                                                    \
  "  .reg .pred %p;\n"                                                     \
  "  .reg .u32 %r<8>;\n"                                                   \
  "  .reg .u64 %rd<10>;\n"                                                 \
  "  ld.param.u64 %rd1, [in];\n"                                           \
  "  ld.param.u64 %rd2, [out];\n"                                          \
  "  ld.param.u64 %rd3, [count];\n"                                        \
  "  shl.b64 %rd3, %rd3, " SHIFT ";\n"                                     \
  "  mov.u32 %r1, %ctaid.x;\n"                                             \
  "  mov.u32 %r2, %ntid.x;\n"                                              \
  "  mov.u32 %r3, %tid.x;\n"                                               \
  "  mov.u32 %r4, %nctaid.x;\n"                                            \
  "  mad.lo.u32 %r5, %r1, %r2, %r3;\n"                                     \
  "  mul.lo.u32 %r6, %r4, %r2;\n"                                          \
  "  cvt.u64.u32 %rd4, %r5;\n"                                             \
  "  cvt.u64.u32 %rd5, %r6;\n"                                             \
  "LOOP:\n"                                                                \
  "  setp.ge.u64 %p, %rd4, %rd3;\n"                                        \
  "  @%p bra DONE;\n"                                                      \
  "  add.u64 %rd6, %rd1, %rd4;\n"                                          \
  "  ld.global.u8 %r7, [%rd6];\n"                                          \
  "  add.u64 %rd7, %rd2, %rd4;\n"                                          \
  "  st.global.u8 [%rd7], %r7;\n"                                          \
  "  add.u64 %rd4, %rd4, %rd5;\n"                                          \
  "  bra LOOP;\n"                                                          \
  "DONE:\n"                                                                \
  "  ret;\n"                                                               \
  "}\n"

const char kPtx[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    "\n" COPY_KERNEL("copy4", "2") "\n" COPY_KERNEL("copy2", "1");

#define K(DT, OP, SYM) {DT, OP, SYM, nullptr}
const ccl_kernel_info kKernels[] = {
    K(CCL_DT_FLOAT32, CCL_OP_SUM, "copy4"),  K(CCL_DT_FLOAT32, CCL_OP_PROD, "copy4"),
    K(CCL_DT_FLOAT32, CCL_OP_MAX, "copy4"),  K(CCL_DT_FLOAT32, CCL_OP_MIN, "copy4"),
    K(CCL_DT_FLOAT16, CCL_OP_SUM, "copy2"),  K(CCL_DT_FLOAT16, CCL_OP_PROD, "copy2"),
    K(CCL_DT_FLOAT16, CCL_OP_MAX, "copy2"),  K(CCL_DT_FLOAT16, CCL_OP_MIN, "copy2"),
    K(CCL_DT_BFLOAT16, CCL_OP_SUM, "copy2"), K(CCL_DT_BFLOAT16, CCL_OP_PROD, "copy2"),
    K(CCL_DT_BFLOAT16, CCL_OP_MAX, "copy2"), K(CCL_DT_BFLOAT16, CCL_OP_MIN, "copy2"),
};
const ccl_variant kVariants[] = {
    {1, 8, 256, 0, nullptr, sizeof(kKernels) / sizeof(kKernels[0]), kKernels},
};
const ccl_op_info kOps[] = {{"copy", "test/perf/testar_cuda.cc", 1, 1}};
const ccl_image kImages[] = {{CCL_IMAGE_PTX, "sm_70", kPtx, sizeof(kPtx)}};
const ccl_plan kPlan = {
    CCL_PLAN_ABI_VERSION, CCL_TARGET_NVPTX, "testar_copy", "AllReduce", 0, 1,
    CCL_PROTO_SIMPLE, 1ull << 30, "test/perf/testar_cuda.cc", 1, kVariants, 1,
    kOps, 1, kImages};

__attribute__((constructor)) void registerPlans() { cclrtRegisterPlan(&kPlan); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int ccl_testar_copy(
    cclComm_t comm, const void *input, void *output, size_t count,
    cclDataType_t dtype, cclRedOp_t op, cclStream_t stream) {
  return cclrtLaunch(&kPlan, comm, input, output, count, dtype, op, stream);
}
