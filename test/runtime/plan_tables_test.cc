// plan_tables_test.cc - corrupt plan and selection tables (found by
// test/fuzz/plan_fuzzer.cc) are refused with an error on the host target:
// a table that is NULL although its count is not 0 (the plan's variants or
// images, a variant's scratch buffers, kernels, channels, semaphores or
// barriers, a selection table's rows, a row's plans), a variant of more
// thread blocks than the host target runs, a row without an algorithm
// name.
#include "test_util.h"

#include "ccl/plan.h"

namespace {

std::string last() { return cclGetLastError(); }

void nop_kernel(const ccl_dev_ctx *, const void *, void *, uint64_t, uint32_t) {
}

const ccl_kernel_info kKernels[] = {
    {CCL_DT_FLOAT32, CCL_OP_SUM, "k_f32_sum", nop_kernel}};
const ccl_semaphore_info kSemaphores[] = {{0}};

// A variant for 2 ranks, every table present unless the test removes it.
ccl_variant variant() {
  ccl_variant v{};
  v.nranks = 2;
  v.nblocks = 1;
  v.threads_per_block = 1;
  v.num_kernels = 1;
  v.kernels = kKernels;
  v.num_semaphores = 1;
  v.semaphores = kSemaphores;
  return v;
}

ccl_plan plan(const char *name, const ccl_variant *variants) {
  ccl_plan p{};
  p.abi_version = CCL_PLAN_ABI_VERSION;
  p.target = CCL_TARGET_HOST;
  p.algorithm = name;
  p.collective = "AllReduce";
  p.inplace = 1;
  p.chunks = 1;
  p.max_bytes = 1024;
  p.source = "t.ccl";
  p.num_variants = 1;
  p.variants = variants;
  return p;
}

ccl_variant g_ok = variant(), g_noSem = variant(), g_noChan = variant(),
            g_blocks = variant();
ccl_plan g_okPlan = plan("ok", &g_ok);
ccl_plan g_noVariants = plan("no_variants", nullptr);
ccl_plan g_noImages = plan("no_images", &g_ok);
ccl_plan g_noSemPlan = plan("no_sem", &g_noSem);
ccl_plan g_noChanPlan = plan("no_chan", &g_noChan);
ccl_plan g_blocksPlan = plan("blocks", &g_blocks);

void test_plans(cclComm_t *comms) {
  float buf[8] = {};
  CHECK_OK(cclrtLaunch(&g_okPlan, comms[0], buf, buf, 2, cclFloat32, cclSum,
                       nullptr));
  CHECK_FAILS(cclrtLaunch(&g_noVariants, comms[0], buf, buf, 2, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm no_variants): library "
                       "for algorithm no_variants is corrupt: its variant "
                       "table is NULL although its count is 3");
  CHECK_FAILS(cclrtLaunch(&g_noImages, comms[0], buf, buf, 2, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm no_images): library "
                       "for algorithm no_images is corrupt: its image table "
                       "is NULL although its count is 1");
  CHECK_FAILS(cclrtLaunch(&g_noSemPlan, comms[1], buf, buf, 2, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 1, algorithm no_sem): preparing "
                       "algorithm no_sem failed: its variant for 2 ranks is "
                       "corrupt: its semaphore table is NULL although its "
                       "count is 1");
  CHECK_FAILS(cclrtLaunch(&g_noChanPlan, comms[0], buf, buf, 2, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm no_chan): preparing "
                       "algorithm no_chan failed: its variant for 2 ranks is "
                       "corrupt: its channel table is NULL although its "
                       "count is 4");
  CHECK_FAILS(cclrtLaunch(&g_blocksPlan, comms[0], buf, buf, 2, cclFloat32,
                          cclSum, nullptr),
              cclInvalidArgument);
  CHECK_EQ_STR(last(), "cclrtLaunch(rank 0, algorithm blocks): preparing "
                       "algorithm blocks failed: its variant for 2 ranks has "
                       "65536 thread blocks per rank; the host target runs "
                       "at most 1024 (one stack each)");
}

void test_selection(cclComm_t *comms) {
  float buf[8] = {};
  const ccl_plan *const plans[] = {&g_okPlan};
  ccl_selection_row rows[1] = {};
  rows[0].collective = CCL_COLL_ALLREDUCE;
  rows[0].min_ranks = 1;
  rows[0].num_plans = 1;
  rows[0].max_bytes = UINT64_MAX;
  rows[0].algorithm = "ok";
  rows[0].plans = plans;
  rows[0].where = "t.ccl:1:1";
  ccl_selection sel{};
  sel.abi_version = CCL_SELECTION_ABI_VERSION;
  sel.num_rows = 1;
  sel.rows = rows;
  sel.source = "t.ccl";
  CHECK_OK(cclrtCollective(&sel, CCL_COLL_ALLREDUCE, buf, buf, 2, cclFloat32,
                           cclSum, 0, comms[0], nullptr));
  // No row table.
  sel.rows = nullptr;
  CHECK_FAILS(cclrtCollective(&sel, CCL_COLL_ALLREDUCE, buf, buf, 2, cclFloat32,
                              cclSum, 0, comms[0], nullptr),
              cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclAllReduce(rank 0): the library's selection table "
                       "is corrupt: its row table is NULL although its count "
                       "is 1");
  sel.rows = rows;
  sel.num_algorithms = 2;
  CHECK_FAILS(cclrtCollective(&sel, CCL_COLL_ALLREDUCE, buf, buf, 2, cclFloat32,
                              cclSum, 0, comms[0], nullptr),
              cclInvalidUsage);
  CHECK_EQ_STR(last(), "cclAllReduce(rank 0): the library's selection table "
                       "is corrupt: its algorithm table is NULL although its "
                       "count is 2");
  sel.num_algorithms = 0;
  // A row without its plan table or its name serves nothing.
  rows[0].plans = nullptr;
  rows[0].algorithm = nullptr;
  CHECK_FAILS(cclrtCollective(&sel, CCL_COLL_ALLREDUCE, buf, buf, 2, cclFloat32,
                              cclSum, 0, comms[0], nullptr),
              cclUnsupported);
  CHECK_EQ_STR(last(), "cclAllReduce(rank 0): no algorithm of this library "
                       "serves 2 float32 elements (8 bytes), sum on 2 ranks; "
                       "it serves AllReduce: (unnamed) (1.. ranks, any size); "
                       "(unnamed) (row t.ccl:1:1): no host plan");
}

} // namespace

int main() {
  g_noVariants.num_variants = 3;
  g_noImages.num_images = 1;
  g_noSem.semaphores = nullptr;
  g_noChan.num_channels = 4;
  g_blocks.nblocks = 65536;
  for (ccl_plan *p : {&g_okPlan, &g_noVariants, &g_noImages, &g_noSemPlan,
                      &g_noChanPlan, &g_blocksPlan})
    cclrtRegisterPlan(p);
  cclComm_t comms[2];
  CHECK_OK(cclCommInitAllInProcess(comms, 2, cclTargetHost, nullptr));
  test_plans(comms);
  test_selection(comms);
  for (cclComm_t c : comms) {
    CHECK_OK(cclCommSynchronize(c, nullptr));
    CHECK_OK(cclCommDestroy(c));
  }
  return test_result("plan_tables_test");
}
