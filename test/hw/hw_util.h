// hw_util.h - what the multi-process GPU test programs (mp_cuda.cc,
// reg_cuda.cc) share: the calling rank for messages, and checks of libcclrt
// and CUDA driver calls that print the failure and exit with status 2.
#ifndef CCL_TEST_HW_UTIL_H
#define CCL_TEST_HW_UTIL_H

#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#include "ccl/ccl.h"

static int g_rank = -1;

#define CCL(call)                                                              \
  do {                                                                         \
    cclResult_t r_ = (call);                                                   \
    if (r_ != cclSuccess) {                                                    \
      fprintf(stderr, "rank %d: %s failed: %s\n", g_rank, #call,              \
              cclGetLastError());                                              \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)
#define CU(call)                                                               \
  do {                                                                         \
    CUresult r_ = (call);                                                      \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = "?";                                                    \
      cuGetErrorString(r_, &s_);                                               \
      fprintf(stderr, "rank %d: %s failed: %s\n", g_rank, #call, s_);          \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

#endif // CCL_TEST_HW_UTIL_H
