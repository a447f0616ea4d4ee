/* ccl_device.h - the device primitive library: what cclc-generated kernels
 * call. Written once in freestanding C for the host, NVPTX and AMDGPU
 * targets, compiled to LLVM bitcode at build time, linked into every
 * generated module and inlined (docs/device-library.md).
 *
 * Execution model of one call: every thread of a thread block calls the same
 * sequence of functions (generated code is straight-line per rank and
 * block); a function spreads its work over the block's threads (one thread
 * on the host target). Functions that wait spin on data, poll the timeout
 * and the communicator's abort flag, and on timeout fill ctx->error and
 * raise the abort flag, then return: later waits see the abort flag and
 * return at once, so an aborted kernel always finishes.
 *
 * LL16 packet: 16 bytes {uint32 d0, uint32 flag, uint32 d1, uint32 flag}:
 * 8 payload bytes and two copies of the flag, written by one 16-byte store
 * on GPUs (two 8-byte atomic stores on the host). A tail shorter than 8
 * bytes is zero-padded. The flag of a call is epoch + 1.
 */
#ifndef CCL_DEVICE_H
#define CCL_DEVICE_H

#include "ccl/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start of a kernel: returns the epoch of this call, this block's counter
 * ctx->epoch[block] (the same in all blocks: each block counts its calls).
 * When ctx->delay_ns is not 0 (cclCommDebugSetDelay) and this block is
 * ctx->delay_block (or that is CCL_DELAY_ALL_BLOCKS), every thread then
 * spins for delay_ns on the clock the timeouts use (no block barrier). On
 * the host the block is the one set with
 * __ccl_host_set_block, so a host kernel sets it before calling this. */
uint32_t __ccl_begin(const ccl_dev_ctx *ctx);
/* End of a kernel: thread 0 stores epoch + 1, the value __ccl_begin
 * returned plus one, into this block's counter (no barrier, no fence: the
 * next kernel on the stream sees it). */
void __ccl_end(const ccl_dev_ctx *ctx, uint32_t epoch);
/* Barrier among the threads of this block. */
void __ccl_barrier(void);

/* Address of chunk `index` of a buffer of `count` elements of `esize` bytes
 * split into `nchunks` chunks: base + floor(index * count / nchunks) * esize. */
char *__ccl_chunk_ptr(char *base, uint64_t count, uint32_t esize,
                      uint32_t index, uint32_t nchunks);
/* Number of elements in chunks [index, index + n). */
uint64_t __ccl_chunk_elems(uint64_t count, uint32_t index, uint32_t n,
                           uint32_t nchunks);
/* Address of slot `slot` of scratch buffer `buf` on rank `rank` (see
 * ccl_scratch_info for the layout); for packet buffers the half selected by
 * the epoch's parity. */
char *__ccl_scratch_ptr(const ccl_dev_ctx *ctx, uint32_t buf, uint32_t rank,
                        uint32_t slot, uint32_t nslots, uint64_t count,
                        uint32_t nchunks, uint32_t esize, uint32_t epoch,
                        uint32_t packets);

/* dst[0, nbytes) = src[0, nbytes) (16-byte vectors where the pointers allow
 * it). __ccl_put writes into a peer's scratch, __ccl_get reads a peer's
 * scratch; both are the same copy through a peer pointer. */
void __ccl_copy(char *dst, const char *src, uint64_t nbytes);
void __ccl_put(char *dst, const char *src, uint64_t nbytes);
void __ccl_get(char *dst, const char *src, uint64_t nbytes);
/* dst[0, nbytes) = fwd[0, nbytes) = src[0, nbytes) in one pass (copy and
 * forward; fwd is usually a peer's scratch). */
void __ccl_copy_fwd(char *dst, char *fwd, const char *src, uint64_t nbytes);
/* Elements of `nslots` scratch slots: nslots * ceil(count / nchunks). */
uint64_t __ccl_scratch_elems(uint64_t count, uint32_t nchunks,
                             uint32_t nslots);

/* Simple-protocol synchronisation. Counters are 64-bit and never reset
 * (ccl_dev_ctx). Every thread of the block calls these; thread 0 does the
 * atomic work.
 *  - signal: block barrier, then (thread 0) a system-scope release fence and
 *    an atomic add of 1 to channel `chan`'s counter in the destination
 *    rank's memory. signal_relaxed: the add only.
 *  - wait: thread 0 polls the counter (acquire; relaxed for wait_relaxed)
 *    until it reaches consumed[chan] + ordinal + 1, where `ordinal` counts
 *    the block's earlier waits on the channel in this call; then a block
 *    barrier. wait_commit adds the block's `nwaits` to consumed[chan] at
 *    the end of its part of the kernel.
 *  - release / acquire: semaphore `sem` of this rank; the k-th acquire (by
 *    ticket) waits for the k-th release.
 *  - tb_barrier: barrier `bar` among `nblocks` blocks of this rank.
 * Waits time out and honour the abort flag like packet waits. */
void __ccl_signal(const ccl_dev_ctx *ctx, uint32_t chan);
void __ccl_signal_relaxed(const ccl_dev_ctx *ctx, uint32_t chan);
void __ccl_wait(const ccl_dev_ctx *ctx, uint32_t chan, uint32_t ordinal,
                uint32_t op_id);
void __ccl_wait_relaxed(const ccl_dev_ctx *ctx, uint32_t chan,
                        uint32_t ordinal, uint32_t op_id);
void __ccl_wait_commit(const ccl_dev_ctx *ctx, uint32_t chan,
                       uint32_t nwaits);
void __ccl_release(const ccl_dev_ctx *ctx, uint32_t sem);
void __ccl_acquire(const ccl_dev_ctx *ctx, uint32_t sem, uint32_t op_id);
void __ccl_tb_barrier(const ccl_dev_ctx *ctx, uint32_t bar, uint32_t nblocks,
                      uint32_t op_id);
/* Port channels (ccl_trigger in ccl/plan.h): thread 0 of the block pushes
 * a trigger into channel `chan`'s FIFO for the rank's host proxy, after a
 * block barrier (the source is complete) and waiting while the FIFO is
 * full; every thread leaves after a block barrier.
 *  - port_put: the proxy copies src[0, nbytes) to dst (a peer's scratch);
 *    flags: CCL_PORT_SIGNAL signals the channel once the copy has landed,
 *    CCL_PORT_FLUSH then waits as port_flush does.
 *  - port_signal: the proxy signals the channel once every earlier put of
 *    the channel has landed.
 *  - port_flush: returns once the proxy completed every earlier trigger of
 *    the channel (the sources may be overwritten, the data has landed).
 * Waits time out and honour the abort flag (ccl_error_record::wait says
 * CCL_WAIT_FIFO or CCL_WAIT_FLUSH). The destination rank waits with
 * __ccl_wait as on a memory channel. */
enum { CCL_PORT_SIGNAL = 1, CCL_PORT_FLUSH = 2 };
void __ccl_port_put(const ccl_dev_ctx *ctx, uint32_t chan, char *dst,
                    const char *src, uint64_t nbytes, uint32_t flags,
                    uint32_t op_id);
void __ccl_port_signal(const ccl_dev_ctx *ctx, uint32_t chan, uint32_t op_id);
void __ccl_port_flush(const ccl_dev_ctx *ctx, uint32_t chan, uint32_t op_id);
/* Writes ceil(nbytes / 8) LL16 packets carrying src[0, nbytes) to dst. */
void __ccl_put_packets(char *dst, const char *src, uint64_t nbytes,
                       uint32_t flag);
/* Zero-payload packets with `flag` for packets [ceil(nbytes/8),
 * ceil(total/8)) of dst: fills the rest of a slot range after a put_packets
 * of nbytes. */
void __ccl_put_packets_pad(char *dst, uint64_t nbytes, uint64_t total,
                           uint32_t flag);
/* Waits for the ceil(nbytes / 8) packets at src and writes them, with the
 * same flag, to dst (both scratch on this rank). */
void __ccl_copy_packets(const ccl_dev_ctx *ctx, char *dst, const char *src,
                        uint64_t nbytes, uint32_t flag, uint32_t op_id);
/* Waits for the packets carrying `nelems` elements at `pkts` and copies the
 * payload to dst. */
void __ccl_unpack_packets(const ccl_dev_ctx *ctx, char *dst, const char *pkts,
                          uint64_t nbytes, uint32_t flag, uint32_t op_id);
/* dst[i] = dst[i] OP payload(pkts)[i] for i < nelems, waiting for each
 * packet. One function per dtype and op, named
 * __ccl_reduce_packets_<f32|f16|bf16>_<sum|prod|max|min>. */
#define CCL_DECLARE_REDUCE_PACKETS(DT, OP)                                    \
  void __ccl_reduce_packets_##DT##_##OP(const ccl_dev_ctx *ctx, char *dst,     \
                                        const char *pkts, uint64_t nelems,     \
                                        uint32_t flag, uint32_t op_id);
/* dst[i] = dst[i] OP src[i] for i < nelems (local reduce), and the n-ary
 * dst[i] = dst[i] OP s0[i] OP ... OP s{nsrc-1}[i] for nsrc <= 8 (read-reduce
 * from peers' scratch over memory channels; more sources take several
 * calls; unused pointers may be NULL). Folded left to right, each step
 * computed in float and rounded to the dtype; 16-byte vectors when every
 * pointer is 16-byte aligned. reduce_fwd also stores the result to fwd in
 * the same pass (reduce and forward). reduce_base computes
 * dst[i] = base[i] OP src[i] (a copy of base into dst folded into the
 * reduction; base may be dst itself), and stores it to fwd too unless fwd
 * is NULL. */
#define CCL_DECLARE_REDUCE(DT, OP)                                             \
  void __ccl_reduce_##DT##_##OP(char *dst, const char *src, uint64_t nelems);  \
  void __ccl_reduce_fwd_##DT##_##OP(char *dst, const char *src, char *fwd,     \
                                    uint64_t nelems);                          \
  void __ccl_reduce_base_##DT##_##OP(char *dst, const char *base,              \
                                     const char *src, char *fwd,               \
                                     uint64_t nelems);                         \
  void __ccl_read_reduce_##DT##_##OP(                                          \
      char *dst, uint32_t nsrc, uint64_t nelems, const char *s0,               \
      const char *s1, const char *s2, const char *s3, const char *s4,          \
      const char *s5, const char *s6, const char *s7);

#define CCL_FOR_EACH_DT_OP(X)                                                  \
  X(f32, sum) X(f32, prod) X(f32, max) X(f32, min)                             \
  X(f16, sum) X(f16, prod) X(f16, max) X(f16, min)                             \
  X(bf16, sum) X(bf16, prod) X(bf16, max) X(bf16, min)

CCL_FOR_EACH_DT_OP(CCL_DECLARE_REDUCE_PACKETS)
CCL_FOR_EACH_DT_OP(CCL_DECLARE_REDUCE)

/* Type-generic forms (host and NVPTX), for the programs that
 * ccl-lower-to-llvm lowers once for every element type and operator (its
 * type-generic option): `kind`
 * is the element type's code * 4 + the operator's code (ccl/types.def:
 * f32 0, f16 1, bf16 2; sum 0, prod 1, max 2, min 3).
 * __ccl_dtype_size gives the kind's element size; each reduction calls
 * the function of its kind with the other arguments (0 for an unknown
 * kind, for which reductions do nothing). */
uint32_t __ccl_dtype_size(uint32_t kind);
void __ccl_reduce_packets_any(uint32_t kind, const ccl_dev_ctx *ctx, char *dst,
                              const char *pkts, uint64_t nelems, uint32_t flag,
                              uint32_t op_id);
void __ccl_reduce_any(uint32_t kind, char *dst, const char *src,
                      uint64_t nelems);
void __ccl_reduce_fwd_any(uint32_t kind, char *dst, const char *src, char *fwd,
                          uint64_t nelems);
void __ccl_reduce_base_any(uint32_t kind, char *dst, const char *base,
                           const char *src, char *fwd, uint64_t nelems);
void __ccl_read_reduce_any(uint32_t kind, char *dst, uint32_t nsrc,
                           uint64_t nelems, const char *s0, const char *s1,
                           const char *s2, const char *s3, const char *s4,
                           const char *s5, const char *s6, const char *s7);

#ifdef __cplusplus
}
#endif

#endif /* CCL_DEVICE_H */
