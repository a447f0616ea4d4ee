/* ccl_device.c - the device primitive library (see ccl_device.h and
 * docs/device-library.md).
 *
 * Freestanding C11, compiled three ways:
 *   __NVPTX__   clang -target nvptx64-nvidia-cuda  (bitcode, linked into
 *               generated kernels)
 *   __AMDGPU__  clang -target amdgcn-amd-amdhsa    (bitcode)
 *   otherwise   the host (x86-64 Linux): clang bitcode for generated host
 *               kernels, and natively (gcc or clang) for the unit tests.
 *
 * No libc headers on any target. On the host the few libc functions used
 * (clock_gettime) are declared here.
 *
 * Every function is a plain external definition without recursion, varargs or
 * calls to anything outside this file (except clock_gettime and libcclrt's
 * host waits on the host): the compiler links the bitcode, internalizes and
 * inlines it.
 */
#include "ccl_device.h"

#if defined(__NVPTX__)
#define CCL_NVPTX 1
#elif defined(__AMDGPU__) || defined(__AMDGCN__)
#define CCL_AMDGPU 1
#else
#define CCL_HOST 1
#endif

#define CCL_INLINE static inline __attribute__((always_inline))
/* Fully unrolls the next (constant-trip) loop, so that small per-thread
 * arrays stay in registers (not local memory) on GPUs. */
#if defined(__clang__)
#define CCL_UNROLL _Pragma("unroll")
#else
#define CCL_UNROLL _Pragma("GCC unroll 4")
#endif

/* ------------------------------------------------------------------------ */
/* Target layer: thread ids, barrier, fences, clock, 16-byte packet access. */
/* ------------------------------------------------------------------------ */

/* Four 32-bit words, 16-byte aligned: one LL16 packet / one copy unit. */
typedef uint32_t ccl_u32x4 __attribute__((vector_size(16), aligned(16)));

#if defined(CCL_NVPTX)

#define CCL_GLOBAL __attribute__((address_space(1)))

CCL_INLINE uint32_t ccl_tid(void) { return __nvvm_read_ptx_sreg_tid_x(); }
CCL_INLINE uint32_t ccl_nthreads(void) { return __nvvm_read_ptx_sreg_ntid_x(); }
CCL_INLINE uint32_t ccl_block_id(void) { return __nvvm_read_ptx_sreg_ctaid_x(); }
CCL_INLINE void ccl_block_barrier(void) { __nvvm_barrier_sync(0); }
/* fence.sc.sys: also for host-mapped memory (abort flag, error record). */
CCL_INLINE void ccl_fence_system(void) { __nvvm_membar_sys(); }
CCL_INLINE uint64_t ccl_clock_ns(void) {
  return __nvvm_read_ptx_sreg_globaltimer();
}
/* Simple-protocol counters (signals, semaphores, barriers). LLVM's NVPTX
 * backend drops the ordering of an atomicrmw (a release fetch_add becomes a
 * plain relaxed `atom.add`), so release is spelled out: fence.acq_rel.sys,
 * then a relaxed system-scope atom.sys.add (the counter may be in a peer
 * GPU's memory). Waits poll with ld.acquire.sys (or ld.relaxed.sys). */
CCL_INLINE void ccl_fence_release_system(void) {
  __scoped_atomic_thread_fence(__ATOMIC_ACQ_REL, __MEMORY_SCOPE_SYSTEM);
}
CCL_INLINE uint64_t ccl_counter_add(uint64_t *p, uint64_t v) {
  return (uint64_t)__nvvm_atom_sys_add_gen_ll((long long *)p, (long long)v);
}
#define CCL_LOAD(p, order) __scoped_atomic_load_n(p, order, __MEMORY_SCOPE_SYSTEM)
/* Packets live in global memory (local or peer scratch): address them in
 * the global state space so that the stores are st.volatile.global.v4. */
CCL_INLINE void ccl_packet_store(char *dst, uint32_t d0, uint32_t d1,
                                 uint32_t flag) {
  ccl_u32x4 v = {d0, flag, d1, flag};
  *(volatile CCL_GLOBAL ccl_u32x4 *)(CCL_GLOBAL char *)dst = v;
}
CCL_INLINE void ccl_packet_load(const char *src, uint32_t *d0, uint32_t *f0,
                                uint32_t *d1, uint32_t *f1) {
  ccl_u32x4 v =
      *(volatile const CCL_GLOBAL ccl_u32x4 *)(const CCL_GLOBAL char *)src;
  *d0 = v[0];
  *f0 = v[1];
  *d1 = v[2];
  *f1 = v[3];
}

#elif defined(CCL_AMDGPU)

/* Memory model (LLVM's AMDGPU backend, AMDGPUUsage "Memory Model"): the
 * system scope is the default, empty sync scope ("" to
 * __builtin_amdgcn_fence, __MEMORY_SCOPE_SYSTEM to the scoped atomics);
 * "agent" covers this GPU only, not a peer GPU or the host. Counters and
 * flags that a peer GPU or the host reads or writes (signals, semaphores,
 * multi-block barriers, the abort flag, the error record, LL packets) are
 * accessed at system scope; the epoch counters, which only their own block
 * touches (once per kernel), with plain accesses. The memory behind them
 * must be fine-grained (coherent across devices): the runtime allocates
 * scratch, counters and flags so (docs/device-library.md, "AMDGPU").
 *
 * Atomics go through global (address space 1) pointers: on a generic
 * pointer the backend must allow for private memory and wraps each atomic
 * in a test of the address with a scratch-memory fallback. Everything the
 * library reaches atomically is global memory (local, peer or host-mapped).
 *
 * ccl_device.c is compiled with -fatomic-remote-memory
 * -fatomic-fine-grained-memory (runtime/device/BUILD): without them clang
 * marks atomicrmw as never touching remote or fine-grained memory. */
#define CCL_GLOBAL __attribute__((address_space(1)))
#define CCL_GLOBAL_PTR(p) ((CCL_GLOBAL __typeof__(*(p)) *)(p))

CCL_INLINE uint32_t ccl_tid(void) { return __builtin_amdgcn_workitem_id_x(); }
/* The kernels carry reqd_work_group_size (cclc's AMDGPU TargetInfo), so the
 * backend folds this to the constant and the kernel needs no hidden
 * arguments. */
CCL_INLINE uint32_t ccl_nthreads(void) {
  return __builtin_amdgcn_workgroup_size_x();
}
CCL_INLINE uint32_t ccl_block_id(void) {
  return __builtin_amdgcn_workgroup_id_x();
}
CCL_INLINE void ccl_block_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
/* Peers and the host (system scope): the abort flag, the error record. */
CCL_INLINE void ccl_fence_system(void) {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "");
}
/* s_memrealtime counts at a constant 100 MHz: 10 ns per tick. */
CCL_INLINE uint64_t ccl_clock_ns(void) {
  return __builtin_amdgcn_s_memrealtime() * 10u;
}
/* LL packets: one 16-byte volatile global store (global_store_dwordx4 with
 * the system-coherence bits: sc0 sc1 on gfx942, glc slc on gfx90a) and
 * one 16-byte volatile load per poll, like NVPTX's v4 accesses. */
CCL_INLINE void ccl_packet_store(char *dst, uint32_t d0, uint32_t d1,
                                 uint32_t flag) {
  ccl_u32x4 v = {d0, flag, d1, flag};
  *(volatile CCL_GLOBAL ccl_u32x4 *)(CCL_GLOBAL char *)dst = v;
}
CCL_INLINE void ccl_packet_load(const char *src, uint32_t *d0, uint32_t *f0,
                                uint32_t *d1, uint32_t *f1) {
  ccl_u32x4 v =
      *(volatile const CCL_GLOBAL ccl_u32x4 *)(const CCL_GLOBAL char *)src;
  *d0 = v[0];
  *f0 = v[1];
  *d1 = v[2];
  *f1 = v[3];
}
/* Simple-protocol counters: a system-scope release fence (the backend
 * writes back the L2: buffer_wbl2, then waits for the stores), then a
 * relaxed system-scope add (global_atomic_add_x2). Waits poll with
 * system-scope acquire loads (the load, then buffer_inv of the caches). */
CCL_INLINE void ccl_fence_release_system(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "");
}
CCL_INLINE uint64_t ccl_counter_add(uint64_t *p, uint64_t v) {
  return __scoped_atomic_fetch_add(CCL_GLOBAL_PTR(p), v, __ATOMIC_RELAXED,
                                   __MEMORY_SCOPE_SYSTEM);
}
#define CCL_LOAD(p, order)                                                     \
  __scoped_atomic_load_n(CCL_GLOBAL_PTR(p), order, __MEMORY_SCOPE_SYSTEM)

#else /* host */

/* libc, declared here (no libc headers). x86-64 Linux layout. */
struct ccl_timespec {
  long tv_sec;
  long tv_nsec;
};
extern int clock_gettime(int clk, struct ccl_timespec *ts);
#define CCL_CLOCK_MONOTONIC 1

/* The host has no block-id register: the generated host kernel (or whoever
 * runs it) records the block this OS thread runs with __ccl_host_set_block,
 * before __ccl_begin (which picks the block's call counter with it). Error
 * records report 0xFFFFFFFF when it was never set. */
_Thread_local uint32_t __ccl_host_block = 0xFFFFFFFFu;
void __ccl_host_set_block(uint32_t block) { __ccl_host_block = block; }

CCL_INLINE uint32_t ccl_tid(void) { return 0; }
CCL_INLINE uint32_t ccl_nthreads(void) { return 1; }
CCL_INLINE uint32_t ccl_block_id(void) { return __ccl_host_block; }

/* Host target: every failed poll pauses (cclrtHostPause, ccl/plan.h "Host
 * target: pausing waits"): the rank's other thread blocks run, and when
 * none of them makes progress either, the rank's worker spins, yields and
 * sleeps in libcclrt until a writer rings. The block id is the thread's,
 * so a pause keeps it across the other blocks' turns. */
CCL_INLINE int ccl_host_pause(int fresh) {
  uint32_t block = __ccl_host_block;
  int slept = cclrtHostPause(fresh);
  __ccl_host_block = block;
  return slept;
}
CCL_INLINE void ccl_block_barrier(void) {}
CCL_INLINE void ccl_fence_system(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
CCL_INLINE uint64_t ccl_clock_ns(void) {
  struct ccl_timespec ts;
  clock_gettime(CCL_CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* Two 8-byte relaxed atomic stores ({d0, flag} then {d1, flag}); 16-byte
 * atomics would need libatomic. Little-endian: d0 is the low word. */
CCL_INLINE void ccl_packet_store(char *dst, uint32_t d0, uint32_t d1,
                                 uint32_t flag) {
  uint64_t *p = (uint64_t *)dst;
  __atomic_store_n(&p[0], (uint64_t)d0 | ((uint64_t)flag << 32),
                   __ATOMIC_RELAXED);
  __atomic_store_n(&p[1], (uint64_t)d1 | ((uint64_t)flag << 32),
                   __ATOMIC_RELAXED);
}
CCL_INLINE void ccl_packet_load(const char *src, uint32_t *d0, uint32_t *f0,
                                uint32_t *d1, uint32_t *f1) {
  const uint64_t *p = (const uint64_t *)src;
  uint64_t a = __atomic_load_n(&p[0], __ATOMIC_RELAXED);
  uint64_t b = __atomic_load_n(&p[1], __ATOMIC_RELAXED);
  *d0 = (uint32_t)a;
  *f0 = (uint32_t)(a >> 32);
  *d1 = (uint32_t)b;
  *f1 = (uint32_t)(b >> 32);
}
/* C11/GCC atomics: a release fetch_add after a full fence; acquire loads. */
CCL_INLINE void ccl_fence_release_system(void) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
CCL_INLINE uint64_t ccl_counter_add(uint64_t *p, uint64_t v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELEASE);
}
#define CCL_LOAD(p, order) __atomic_load_n(p, order)
#define CCL_GLOBAL

/* After stores to [p, p + n) that another thread of the process may wait
 * for (packets, counters; p NULL: every address, for the abort flag): wakes
 * the sleeping host-kernel threads of the process in libcclrt, if any
 * (ccl/plan.h, "Host target: pausing waits"; the doorbell is the
 * process's, so the address only documents the call). The fence orders
 * the stores before the read of the waiters, as a sleeper's arm orders its
 * count before its last round of polls. */
CCL_INLINE void ccl_ring(const void *p, uint64_t n) {
  (void)p;
  (void)n;
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&cclrtHostWaiters, __ATOMIC_RELAXED))
    cclrtHostRing();
}

#endif

#if !defined(CCL_HOST)
/* GPUs: waits poll, nothing sleeps. */
CCL_INLINE void ccl_ring(const void *p, uint64_t n) {
  (void)p;
  (void)n;
}
#endif

#if !defined(CCL_AMDGPU)
#define CCL_GLOBAL_PTR(p) (p)
#endif

/* Flags the host also writes while kernels run (the abort flag, the start
 * delay) and the epoch counters: volatile accesses on GPUs; on the
 * host, acquire loads and release stores, which order the same way on x86
 * and are what ThreadSanitizer understands (it does not model fences). */
#if defined(CCL_HOST)
#define CCL_FLAG_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define CCL_FLAG_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
#define CCL_FLAG_LOAD(p) (*(p))
#define CCL_FLAG_STORE(p, v) (*(p) = (v))
#endif

/* Shared by all targets: counter loads (system scope on GPUs) and 16-byte
 * data access for copies and reductions (global memory: local or peer
 * device memory, or host-mapped memory). */
CCL_INLINE uint64_t ccl_counter_load_acquire(const uint64_t *p) {
  return CCL_LOAD(p, __ATOMIC_ACQUIRE);
}
CCL_INLINE uint64_t ccl_counter_load_relaxed(const uint64_t *p) {
  return CCL_LOAD(p, __ATOMIC_RELAXED);
}
CCL_INLINE ccl_u32x4 ccl_ld16(const char *p) {
  return *(const CCL_GLOBAL ccl_u32x4 *)(const CCL_GLOBAL char *)p;
}
CCL_INLINE void ccl_st16(char *p, ccl_u32x4 v) {
  *(CCL_GLOBAL ccl_u32x4 *)(CCL_GLOBAL char *)p = v;
}

/* ------------------------------------------------------------------------ */
/* Kernel start / end, barrier.                                             */
/* ------------------------------------------------------------------------ */

/* The start delay (cclCommDebugSetDelay, a test hook): every thread of a
 * selected block reads the setting and spins on the clock for
 * ctx->delay_ns, so the block starts its work late. There is no barrier:
 * a host update racing with the kernel start may delay some threads of a
 * block and not others, which only makes that call's delay partial, and a
 * call without a delay pays two loads that overlap the epoch's instead of
 * a block barrier after them (the barrier used to be on every kernel's
 * critical path). The spin gives up early when the communicator is
 * aborted. */
CCL_INLINE void ccl_start_delay(const ccl_dev_ctx *ctx) {
  uint64_t delay = CCL_FLAG_LOAD((volatile const uint64_t *)&ctx->delay_ns);
  uint32_t sel = CCL_FLAG_LOAD((volatile const uint32_t *)&ctx->delay_block);
  if (delay == 0 || (sel != CCL_DELAY_ALL_BLOCKS && sel != ccl_block_id()))
    return;
  uint64_t start = ccl_clock_ns();
  for (;;) {
    uint64_t waited = ccl_clock_ns() - start;
    if (waited >= delay || CCL_FLAG_LOAD(ctx->abort_flag))
      break;
#if defined(CCL_HOST)
    /* The rank's other blocks run meanwhile (its worker sleeps when none
     * of them has anything to do). */
    ccl_host_pause(0);
#endif
  }
}

uint32_t __ccl_begin(const ccl_dev_ctx *ctx) {
  uint32_t e =
      CCL_FLAG_LOAD((volatile const uint32_t *)&ctx->epoch[ccl_block_id()]);
  ccl_start_delay(ctx);
  return e;
}

/* No barrier and no fence: the next kernel on the stream starts after
 * every thread of this one has finished and sees its stores (on the host,
 * the block's next call runs on the same thread). Nothing else waits for
 * the counter, so the store does not hold the block up. */
void __ccl_end(const ccl_dev_ctx *ctx, uint32_t epoch) {
  if (ccl_tid() == 0)
    CCL_FLAG_STORE(&ctx->epoch[ccl_block_id()], epoch + 1);
}

void __ccl_barrier(void) { ccl_block_barrier(); }

/* ------------------------------------------------------------------------ */
/* Chunk and scratch address math.                                          */
/* ------------------------------------------------------------------------ */

/* floor(i * n / k) without overflowing 64 bits: with n = q*k + r,
 * floor(i*n/k) = i*q + floor(i*r/k), and i*r < k*k < 2^64. */
CCL_INLINE uint64_t ccl_chunk_start(uint64_t n, uint64_t i, uint32_t k) {
  if (k == 0)
    return 0;
  uint64_t q = n / k, r = n % k;
  return i * q + (i * r) / k;
}

char *__ccl_chunk_ptr(char *base, uint64_t count, uint32_t esize,
                      uint32_t index, uint32_t nchunks) {
  return base + ccl_chunk_start(count, index, nchunks) * esize;
}

uint64_t __ccl_chunk_elems(uint64_t count, uint32_t index, uint32_t n,
                           uint32_t nchunks) {
  return ccl_chunk_start(count, (uint64_t)index + n, nchunks) -
         ccl_chunk_start(count, index, nchunks);
}

char *__ccl_scratch_ptr(const ccl_dev_ctx *ctx, uint32_t buf, uint32_t rank,
                        uint32_t slot, uint32_t nslots, uint64_t count,
                        uint32_t nchunks, uint32_t esize, uint32_t epoch,
                        uint32_t packets) {
  char *base = (char *)ctx->scratch[(uint64_t)buf * ctx->nranks + rank];
  uint64_t k = nchunks ? nchunks : 1;
  uint64_t unit = (count + k - 1) / k;
  uint64_t slot_bytes = unit * esize;
  if (packets) {
    slot_bytes = (slot_bytes + 7) / 8 * 16;
    base += (uint64_t)(epoch & 1u) * nslots * slot_bytes;
  }
  return base + (uint64_t)slot * slot_bytes;
}

/* ------------------------------------------------------------------------ */
/* Copy.                                                                    */
/* ------------------------------------------------------------------------ */

/* n 16-byte units from s to d (and to d2 unless it is NULL), spread over
 * the block's threads; all pointers 16-byte aligned. Four independent loads
 * in flight per thread before the stores (a peer store waits for nothing,
 * a load for memory). */
CCL_INLINE void ccl_copy16(char *d, char *d2, const char *s, uint64_t n) {
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  for (uint64_t i = tid; i < n; i += 4 * nt) {
    ccl_u32x4 v[4];
    CCL_UNROLL
    for (int k = 0; k < 4; k++)
      if (i + k * nt < n)
        v[k] = ccl_ld16(s + (i + k * nt) * 16);
    CCL_UNROLL
    for (int k = 0; k < 4; k++)
      if (i + k * nt < n) {
        ccl_st16(d + (i + k * nt) * 16, v[k]);
        if (d2)
          ccl_st16(d2 + (i + k * nt) * 16, v[k]);
      }
  }
}

/* dst[0, nbytes) = src[0, nbytes), spread over the block's threads. The
 * widest unit both pointers can share (16, 4, 2 bytes, decided by
 * dst ^ src) is used for the body, which starts where dst is aligned to
 * it; the bytes before and after the body ("edges") are copied one by one.
 * Never touches a byte outside [src, src + nbytes) or [dst, dst + nbytes).
 * Written as three loops (16-byte vectors, 4/2/1-byte units, edge bytes)
 * to keep the inlined code small: every data operation of a kernel
 * inlines it. A copy onto itself (an algorithm of both forms called in
 * place, where output[r][c] is input[r][c]) reads and writes nothing. */
CCL_INLINE void ccl_copy(char *dst, const char *src, uint64_t nbytes) {
  if (dst == src)
    return;
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  uintptr_t x = (uintptr_t)dst ^ (uintptr_t)src;
  uint32_t shift = (x & 15) == 0 ? 4 : (x & 3) == 0 ? 2 : (x & 1) == 0 ? 1 : 0;
  uint64_t unit = (uint64_t)1 << shift;
  uint64_t head = (unit - ((uintptr_t)dst & (unit - 1))) & (unit - 1);
  if (head > nbytes)
    head = nbytes;
  uint64_t n = (nbytes - head) >> shift;
  char *d = dst + head;
  const char *s = src + head;
  if (shift == 4) {
    ccl_copy16(d, 0, s, n);
  } else {
    for (uint64_t i = tid; i < n; i += nt) {
      if (shift == 2)
        ((uint32_t *)d)[i] = ((const uint32_t *)s)[i];
      else if (shift == 1)
        ((uint16_t *)d)[i] = ((const uint16_t *)s)[i];
      else
        d[i] = s[i];
    }
  }
  /* Edges: [0, head) and [head + n * unit, nbytes). */
  uint64_t body_end = head + (n << shift);
  uint64_t edges = head + (nbytes - body_end);
  for (uint64_t e = tid; e < edges; e += nt) {
    uint64_t off = e < head ? e : body_end + (e - head);
    dst[off] = src[off];
  }
}

void __ccl_copy(char *dst, const char *src, uint64_t nbytes) {
  ccl_copy(dst, src, nbytes);
}

/* dst[0, nbytes) = fwd[0, nbytes) = src[0, nbytes) in one pass (a copy
 * whose result is forwarded): 16-byte vectors, four per thread in flight,
 * when all three pointers are 16-byte aligned; otherwise two copies from
 * src. */
void __ccl_copy_fwd(char *dst, char *fwd, const char *src, uint64_t nbytes) {
  if (dst == src) { /* in place: only the forward moves data */
    ccl_copy(fwd, src, nbytes);
    return;
  }
  if ((((uintptr_t)dst | (uintptr_t)fwd | (uintptr_t)src) & 15) != 0) {
    ccl_copy(dst, src, nbytes);
    ccl_copy(fwd, src, nbytes);
    return;
  }
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  uint64_t n = nbytes >> 4;
  ccl_copy16(dst, fwd, src, n);
  for (uint64_t off = (n << 4) + tid; off < nbytes; off += nt) {
    dst[off] = src[off];
    fwd[off] = src[off];
  }
}

/* Memory channel put: dst is in a peer's scratch (a peer pointer on GPUs). */
void __ccl_put(char *dst, const char *src, uint64_t nbytes) {
  ccl_copy(dst, src, nbytes);
}

/* Memory channel get: src is in a peer's scratch. */
void __ccl_get(char *dst, const char *src, uint64_t nbytes) {
  ccl_copy(dst, src, nbytes);
}

uint64_t __ccl_scratch_elems(uint64_t count, uint32_t nchunks,
                             uint32_t nslots) {
  uint64_t k = nchunks ? nchunks : 1;
  return (count + k - 1) / k * nslots;
}

/* ------------------------------------------------------------------------ */
/* LL16 packets.                                                            */
/* ------------------------------------------------------------------------ */

/* Payload bytes [off, off + len) of src, len <= 8, little-endian into
 * (d0, d1), zero-padded; reads exactly those bytes. */
CCL_INLINE void ccl_load_payload(const char *src, uint64_t len, uint32_t *d0,
                                 uint32_t *d1) {
  const unsigned char *s = (const unsigned char *)src;
  if (len == 8) {
    uintptr_t a = (uintptr_t)src;
    if ((a & 7) == 0) {
      uint64_t v = *(const uint64_t *)src;
      *d0 = (uint32_t)v;
      *d1 = (uint32_t)(v >> 32);
      return;
    }
    if ((a & 3) == 0) {
      *d0 = ((const uint32_t *)src)[0];
      *d1 = ((const uint32_t *)src)[1];
      return;
    }
    if ((a & 1) == 0) {
      const uint16_t *h = (const uint16_t *)src;
      *d0 = (uint32_t)h[0] | ((uint32_t)h[1] << 16);
      *d1 = (uint32_t)h[2] | ((uint32_t)h[3] << 16);
      return;
    }
  }
  uint64_t v = 0;
  for (uint64_t i = 0; i < len; i++)
    v |= (uint64_t)s[i] << (8 * i);
  *d0 = (uint32_t)v;
  *d1 = (uint32_t)(v >> 32);
}

/* Stores payload (d0, d1) to dst[0, len), len <= 8. */
CCL_INLINE void ccl_store_payload(char *dst, uint64_t len, uint32_t d0,
                                  uint32_t d1) {
  if (len == 8) {
    uintptr_t a = (uintptr_t)dst;
    if ((a & 7) == 0) {
      *(uint64_t *)dst = (uint64_t)d0 | ((uint64_t)d1 << 32);
      return;
    }
    if ((a & 3) == 0) {
      ((uint32_t *)dst)[0] = d0;
      ((uint32_t *)dst)[1] = d1;
      return;
    }
  }
  uint64_t v = (uint64_t)d0 | ((uint64_t)d1 << 32);
  unsigned char *d = (unsigned char *)dst;
  for (uint64_t i = 0; i < len; i++)
    d[i] = (unsigned char)(v >> (8 * i));
}

void __ccl_put_packets(char *dst, const char *src, uint64_t nbytes,
                       uint32_t flag) {
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  uint64_t npkts = (nbytes + 7) / 8;
  for (uint64_t i = tid; i < npkts; i += nt) {
    uint64_t off = i * 8;
    uint64_t len = nbytes - off < 8 ? nbytes - off : 8;
    uint32_t d0, d1;
    ccl_load_payload(src + off, len, &d0, &d1);
    ccl_packet_store(dst + i * 16, d0, d1, flag);
  }
  ccl_ring(dst, npkts * 16);
}

/* The spin-wait loop of every wait: ccl_device_spin.inc, part of this
 * translation unit. */
#include "ccl_device_spin.inc"

/* Waits for the packet at p to carry `flag` in both flag words. Returns 1
 * with the payload in (d0, d1), or 0 when the wait was abandoned. */
CCL_INLINE int ccl_wait_packet(const ccl_dev_ctx *ctx, const char *p,
                               uint32_t flag, uint32_t op_id, uint32_t *d0,
                               uint32_t *d1) {
  ccl_spin s = CCL_SPIN_INIT;
  for (;;) {
    uint32_t f0, f1;
    ccl_packet_load(p, d0, &f0, d1, &f1);
    if (f0 == flag && f1 == flag)
      return ccl_spin_done(&s);
    if (!ccl_spin_fail(ctx, &s, flag, f0 != flag ? f0 : f1, op_id))
      return 0;
  }
}

void __ccl_unpack_packets(const ccl_dev_ctx *ctx, char *dst, const char *pkts,
                          uint64_t nbytes, uint32_t flag, uint32_t op_id) {
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  uint64_t npkts = (nbytes + 7) / 8;
  for (uint64_t i = tid; i < npkts; i += nt) {
    uint32_t d0, d1;
    if (!ccl_wait_packet(ctx, pkts + i * 16, flag, op_id, &d0, &d1))
      return;
    uint64_t off = i * 8;
    uint64_t len = nbytes - off < 8 ? nbytes - off : 8;
    ccl_store_payload(dst + off, len, d0, d1);
  }
}

/* Pads a put_packets into a slot range: zero-payload packets carrying
 * `flag` for packet indices [ceil(nbytes / 8), ceil(total / 8)), so that the
 * whole range holds this call's packets (copy_packets forwards whole slot
 * ranges and waits for every packet of them). */
void __ccl_put_packets_pad(char *dst, uint64_t nbytes, uint64_t total,
                           uint32_t flag) {
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  uint64_t first = (nbytes + 7) / 8, end = (total + 7) / 8;
  for (uint64_t i = first + tid; i < end; i += nt)
    ccl_packet_store(dst + i * 16, 0, 0, flag);
  ccl_ring(dst + first * 16, end > first ? (end - first) * 16 : 0);
}

void __ccl_copy_packets(const ccl_dev_ctx *ctx, char *dst, const char *src,
                        uint64_t nbytes, uint32_t flag, uint32_t op_id) {
  uint64_t tid = ccl_tid(), nt = ccl_nthreads();
  uint64_t npkts = (nbytes + 7) / 8;
  for (uint64_t i = tid; i < npkts; i += nt) {
    uint32_t d0, d1;
    if (!ccl_wait_packet(ctx, src + i * 16, flag, op_id, &d0, &d1))
      break;
    ccl_packet_store(dst + i * 16, d0, d1, flag);
  }
  ccl_ring(dst, npkts * 16);
}

/* ------------------------------------------------------------------------ */
/* Simple protocol: signals, waits, semaphores, multi-block barriers.       */
/* ------------------------------------------------------------------------ */

/* Thread 0's spin until *p >= want. Returns 0 when the wait was abandoned
 * (abort raised, or this wait timed out and raised it). */
/* chan1: 1 + the channel whose signals it waits for, 0 for other counters
 * (ccl_error_record::channel). */
CCL_INLINE int ccl_wait_counter(const ccl_dev_ctx *ctx, const uint64_t *p,
                                uint64_t want, int acquire, uint32_t op_id,
                                uint32_t chan1) {
  ccl_spin s = CCL_SPIN_INIT;
  for (;;) {
    uint64_t v = acquire ? ccl_counter_load_acquire(p)
                         : ccl_counter_load_relaxed(p);
    if (v >= want)
      return ccl_spin_done(&s);
    if (!ccl_spin_fail_for(ctx, &s, (uint32_t)want, (uint32_t)v, op_id,
                           CCL_WAIT_OTHER, chan1))
      return 0;
  }
}

void __ccl_signal(const ccl_dev_ctx *ctx, uint32_t chan) {
  /* Every thread's earlier stores (the puts) are issued ... */
  ccl_block_barrier();
  if (ccl_tid() == 0) {
    /* ... and ordered before the counter, for any observer (release). */
    ccl_fence_release_system();
    ccl_counter_add(ctx->signal[chan], 1);
    ccl_ring(ctx->signal[chan], sizeof(uint64_t));
  }
}

void __ccl_signal_relaxed(const ccl_dev_ctx *ctx, uint32_t chan) {
  if (ccl_tid() == 0) {
    ccl_counter_add(ctx->signal[chan], 1);
    ccl_ring(ctx->signal[chan], sizeof(uint64_t));
  }
}

CCL_INLINE void ccl_wait(const ccl_dev_ctx *ctx, uint32_t chan,
                         uint32_t ordinal, uint32_t op_id, int acquire) {
  if (ccl_tid() == 0) {
    uint64_t want = ctx->consumed[chan] + ordinal + 1;
    ccl_wait_counter(ctx, ctx->signal[chan], want, acquire, op_id, chan + 1);
  }
  /* The rest of the block goes on only after thread 0's acquire. */
  ccl_block_barrier();
}

void __ccl_wait(const ccl_dev_ctx *ctx, uint32_t chan, uint32_t ordinal,
                uint32_t op_id) {
  ccl_wait(ctx, chan, ordinal, op_id, 1);
}

void __ccl_wait_relaxed(const ccl_dev_ctx *ctx, uint32_t chan,
                        uint32_t ordinal, uint32_t op_id) {
  ccl_wait(ctx, chan, ordinal, op_id, 0);
}

void __ccl_wait_commit(const ccl_dev_ctx *ctx, uint32_t chan, uint32_t nwaits) {
  if (ccl_tid() == 0)
    ctx->consumed[chan] += nwaits;
}

void __ccl_release(const ccl_dev_ctx *ctx, uint32_t sem) {
  ccl_block_barrier();
  if (ccl_tid() == 0) {
    ccl_fence_release_system();
    ccl_counter_add(&ctx->sem[2 * (uint64_t)sem], 1);
    ccl_ring(&ctx->sem[2 * (uint64_t)sem], sizeof(uint64_t));
  }
}

void __ccl_acquire(const ccl_dev_ctx *ctx, uint32_t sem, uint32_t op_id) {
  if (ccl_tid() == 0) {
    uint64_t *c = &ctx->sem[2 * (uint64_t)sem];
    /* Tickets: the k-th acquire (in ticket order) waits for k releases. */
    uint64_t ticket = ccl_counter_add(c + 1, 1);
    ccl_wait_counter(ctx, c, ticket + 1, 1, op_id, 0);
  }
  ccl_block_barrier();
}

void __ccl_tb_barrier(const ccl_dev_ctx *ctx, uint32_t bar, uint32_t nblocks,
                      uint32_t op_id) {
  ccl_block_barrier();
  if (ccl_tid() == 0) {
    uint64_t *c = &ctx->barrier[bar];
    ccl_fence_release_system();
    /* Arrival t belongs to phase t / nblocks: no block arrives at phase
     * k + 1 before all of phase k has arrived, so phases never mix. */
    uint64_t t = ccl_counter_add(c, 1);
    ccl_ring(c, sizeof *c);
    uint64_t n = nblocks ? nblocks : 1;
    ccl_wait_counter(ctx, c, (t / n + 1) * n, 1, op_id, 0);
  }
  ccl_block_barrier();
}

/* Port channels: triggers for the host proxy (ccl_device_port.inc, part of
 * this translation unit). */
#include "ccl_device_port.inc"

/* Element types (float16 and bfloat16 conversions) and the reductions
 * built on them: ccl_device_reduce.inc, part of this translation unit. */
#include "ccl_device_reduce.inc"
