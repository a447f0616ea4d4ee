// errors.cc - the last-error string, message formatting, and the names of
// targets, element types and operators.
#include <cstdio>

#include "ccl/types.h"
#include "internal.h"

namespace cclrt {

namespace {
thread_local std::string tlsLastError;

} // namespace

cclResult_t setError(cclResult_t code, const std::string &msg) noexcept {
  try {
    tlsLastError = msg;
  } catch (...) {
    tlsLastError.clear(); // out of memory: no message, the code still tells
  }
  return code;
}

std::string vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  char buf[512];
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  std::string out;
  if (n < 0) {
    out = fmt;
  } else if (static_cast<size_t>(n) < sizeof buf) {
    out.assign(buf, n);
  } else {
    out.resize(n + 1);
    vsnprintf(&out[0], n + 1, fmt, ap2);
    out.resize(n);
  }
  va_end(ap2);
  return out;
}

std::string format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

const char *targetName(uint32_t target) {
  switch (target) {
  case CCL_TARGET_HOST:
    return "host";
  case CCL_TARGET_NVPTX:
    return "cuda";
  case CCL_TARGET_AMDGPU:
    return "amdgpu";
  }
  return "unknown";
}

const char *dtypeName(uint32_t dtype) {
  if (const ccl::DTypeInfo *d = ccl::dtypeByCode(dtype))
    return d->name;
  if (const ccl::ByteTypeInfo *b = ccl::byteTypeByCode(dtype))
    return b->name;
  return "unknown-dtype";
}

const char *opName(uint32_t op) {
  const ccl::RedOpInfo *o = ccl::redOpByCode(op);
  return o ? o->name : "unknown-op";
}

size_t dtypeSize(uint32_t dtype) {
  if (const ccl::DTypeInfo *d = ccl::dtypeByCode(dtype))
    return d->size;
  if (const ccl::ByteTypeInfo *b = ccl::byteTypeByCode(dtype))
    return b->size;
  return 0;
}

bool isKernelType(uint32_t dtype) { return ccl::dtypeByCode(dtype) != nullptr; }

} // namespace cclrt

extern "C" {

const char *cclGetLastError(void) { return cclrt::tlsLastError.c_str(); }

const char *cclGetErrorString(cclResult_t result) {
  switch (result) {
  case cclSuccess:
    return "cclSuccess: no error";
  case cclInvalidArgument:
    return "cclInvalidArgument: invalid argument";
  case cclInvalidUsage:
    return "cclInvalidUsage: call not valid in this state";
  case cclUnsupported:
    return "cclUnsupported: no kernel for this rank count, type, operator "
           "or size";
  case cclNoDevice:
    return "cclNoDevice: no GPU, no driver, or too few GPUs";
  case cclDriverError:
    return "cclDriverError: the CUDA driver returned an error";
  case cclTimeout:
    return "cclTimeout: a wait timed out (a kernel's spin-wait, which "
           "aborts the communicator; or the ranks' bootstrap: connecting, "
           "joining, an exchange)";
  case cclSystemError:
    return "cclSystemError: an operating-system call failed";
  case cclInternalError:
    return "cclInternalError: internal error in libcclrt";
  case cclRemoteError:
    return "cclRemoteError: another rank failed, exited or aborted the "
           "communicator";
  case cclBootstrapError:
    return "cclBootstrapError: the ranks could not meet, or disagree about "
           "the job";
  case cclResultIntMin_: // not results (they widen the enum to int)
  case cclResultIntMax_:
    break;
  }
  return "unknown cclResult_t";
}

size_t cclDataTypeSize(cclDataType_t dtype) { return cclrt::dtypeSize(dtype); }

} // extern "C"
