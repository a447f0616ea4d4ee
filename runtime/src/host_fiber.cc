// host_fiber.cc - the host target's fiber stacks and switch (host_fiber.h).
#include "host_fiber.h"

#include <cerrno>
#include <cstdint>
#include <sys/mman.h>
#include <system_error>
#include <unistd.h>

// Switching between a worker and its fibers: the callee-saved registers,
// the SSE and x87 control words and the stack pointer (what the System V
// x86-64 ABI keeps across a call), without the signal-mask system call of
// swapcontext, which made each switch cost more than the wait it served.
#if !defined(__x86_64__)
#error "the host target's fibers are written for x86-64"
#endif
asm(R"(
  .text
  .p2align 4
  .globl ccl_fiber_switch
  .hidden ccl_fiber_switch
  .type ccl_fiber_switch, @function
ccl_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ccl_fiber_switch, .-ccl_fiber_switch
)");

namespace cclrt {

namespace {
// Generous for the generated programs and the device library (a few KiB
// deep), and for a sanitizer's larger frames.
#if CCL_HOST_ASAN || CCL_HOST_TSAN
constexpr size_t kFiberStack = 1 << 20;
#else
constexpr size_t kFiberStack = 256 << 10;
#endif
} // namespace

FiberStack mapFiberStack() {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  FiberStack s;
  s.mapBytes = kFiberStack + page;
  s.map = mmap(nullptr, s.mapBytes, PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (s.map == MAP_FAILED)
    throw std::system_error(errno, std::generic_category(),
                            "mapping the stack of a host thread block");
  // A guard page below the stack: an overflow faults instead of writing
  // into the next mapping.
  if (mprotect(s.map, page, PROT_NONE) != 0) {
    int e = errno;
    munmap(s.map, s.mapBytes);
    throw std::system_error(e, std::generic_category(),
                            "protecting a host thread block's guard page");
  }
  s.base = (char *)s.map + page;
  s.bytes = kFiberStack;
  return s;
}

void unmapFiberStack(const FiberStack &s) {
  if (s.map)
    munmap(s.map, s.mapBytes);
}

void *fiberStart(const FiberStack &s, void (*entry)()) {
  uintptr_t top = ((uintptr_t)s.base + s.bytes) & ~(uintptr_t)15;
  uint64_t *sp = (uint64_t *)top;
  *--sp = 0;                 // entry's return address: none
  *--sp = (uint64_t)entry;   // where the switch returns to
  for (int i = 0; i < 6; i++)
    *--sp = 0;               // rbp, rbx, r12-r15
  *--sp = 0x037F00001F80ull; // x87 control word (high), MXCSR (low)
  return sp;
}

} // namespace cclrt
