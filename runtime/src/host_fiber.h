// host_fiber.h - the host target's fibers (docs/runtime.md, "Host target"):
// the stacks a rank's thread blocks run on and the switch between them and
// the rank's worker. host.cc schedules them.
#ifndef CCLRT_HOST_FIBER_H
#define CCLRT_HOST_FIBER_H

#include <cstddef>

// The sanitizers' fiber interfaces (their builds only).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CCL_HOST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define CCL_HOST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(CCL_HOST_ASAN)
#define CCL_HOST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(CCL_HOST_TSAN)
#define CCL_HOST_TSAN 1
#endif
#ifndef CCL_HOST_ASAN
#define CCL_HOST_ASAN 0
#endif
#ifndef CCL_HOST_TSAN
#define CCL_HOST_TSAN 0
#endif
#if CCL_HOST_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if CCL_HOST_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace cclrt {

// A fiber's stack: a mapping of a guard page and then the stack.
struct FiberStack {
  void *map = nullptr;
  size_t mapBytes = 0;
  void *base = nullptr; // the stack's lowest byte
  size_t bytes = 0;
};

// Maps a stack (256 KiB, 1 MiB under a sanitizer). Throws
// std::system_error.
FiberStack mapFiberStack();
void unmapFiberStack(const FiberStack &s);

// The saved stack pointer of a fiber that has not run yet: its first
// switch "returns" into `entry` (which must never return), with the stack
// aligned as at a function's entry.
void *fiberStart(const FiberStack &s, void (*entry)());

} // namespace cclrt

// Saves the caller's callee-saved registers, SSE and x87 control words and
// stack pointer into *save and resumes the context saved in `load`.
extern "C" void ccl_fiber_switch(void **save, void *load);

#endif
