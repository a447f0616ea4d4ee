/* ccl/plan.h - the binary contract between a cclc-generated library, the
 * device primitive library and libcclrt.
 *
 * A library that cclc generates holds one `ccl_plan` per algorithm. A static
 * constructor in the library hands each plan to `cclrtRegisterPlan`; a
 * communicator created afterwards prepares every registered plan of its
 * target (loads device images, resolves kernels, allocates scratch). The
 * library's C entry point then calls `cclrtLaunch`.
 *
 * `ccl_dev_ctx` is what a kernel receives: it is laid out identically for the
 * host, NVPTX and AMDGPU targets (64-bit pointers, natural alignment), and
 * the runtime writes it into device memory (GPU) or host memory (host).
 *
 * Bump CCL_PLAN_ABI_VERSION whenever a struct below changes.
 */
#ifndef CCL_PLAN_H
#define CCL_PLAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCL_PLAN_ABI_VERSION 8u
/* The largest ccl_plan::max_bytes (1 TiB). */
#define CCL_MAX_PLAN_BYTES (1ull << 40)

/* Targets a plan can be compiled for. */
enum {
  CCL_TARGET_HOST = 0,
  CCL_TARGET_NVPTX = 1,
  CCL_TARGET_AMDGPU = 2,
};

/* Element types and reduction operators (same values as cclDataType_t and
 * cclRedOp_t in ccl.h), from the one table in ccl/types.def. */
enum {
#define CCL_DTYPE(ID, CName, code, ...) CCL_DT_##ID = code,
#include "ccl/types.def"
};
enum {
#define CCL_REDOP(ID, CName, code, ...) CCL_OP_##ID = code,
#include "ccl/types.def"
};

/* Protocols. */
enum { CCL_PROTO_SIMPLE = 0, CCL_PROTO_LL = 1 };
/* ccl_plan::inplace: which calls the kernels take as they come. A call in
 * the other form is staged through a copy (docs/runtime.md, "In place and
 * out of place"). CCL_INPLACE_BOTH (an algorithm that `implements
 * C(inplace, outofplace)`): out-of-place code that cclc also proved with
 * the buffers aliased as the collective's in-place layout has them; no
 * call is staged. A runtime older than the value reads it as in place,
 * which stays correct (out-of-place calls are staged). */
enum { CCL_INPLACE_NO = 0, CCL_INPLACE_ONLY = 1, CCL_INPLACE_BOTH = 2 };

/* Kinds of device image. */
enum { CCL_IMAGE_PTX = 0, CCL_IMAGE_CUBIN = 1, CCL_IMAGE_HSACO = 2 };

/* Kinds of channel (ccl_channel_info::kind). */
enum { CCL_CHANNEL_MEMORY = 0, CCL_CHANNEL_PORT = 1 };

/* Error record states. Kernels write CCL_ERR_TIMEOUT; the runtime writes
 * CCL_ERR_REMOTE when another rank of a multi-process communicator failed
 * or the communicator was aborted (kernels only see the abort flag). */
enum { CCL_ERR_NONE = 0, CCL_ERR_TIMEOUT = 1, CCL_ERR_REMOTE = 2 };

/* Written by the first spin-wait that times out (into host-mapped memory on
 * GPUs). `op_id` indexes ccl_plan::ops. For an LL packet wait `expected` and
 * `observed` are flags; for a signal wait, a semaphore acquire or a
 * multi-block barrier they are the low 32 bits of the counter value waited
 * for and of the value last seen. */
typedef struct ccl_error_record {
  uint32_t state;    /* CCL_ERR_* ; claimed with a compare-and-swap 0 -> 1 */
  uint32_t rank;     /* rank that timed out */
  uint32_t block;    /* its thread block */
  uint32_t op_id;    /* the waiting operation */
  uint32_t expected; /* flag value it waited for */
  uint32_t observed; /* flag value it last saw */
  uint64_t waited_ns;
  /* since ABI 4: what the wait waited for (CCL_WAIT_*); the runtime words
   * the report by it. */
  uint32_t wait;
  /* since ABI 4 (was reserved, 0): 1 + the channel a signal wait waited
   * on, 0 for other waits; the runtime names the channel's source rank. */
  uint32_t channel;
} ccl_error_record;

/* What a timed-out wait waited for (ccl_error_record::wait). */
enum {
  CCL_WAIT_OTHER = 0,   /* packets, signals, semaphores, barriers: by op */
  CCL_WAIT_FIFO = 1,    /* a free slot of a port channel's FIFO (the proxy
                           takes requests out of it) */
  CCL_WAIT_FLUSH = 2,   /* the proxy to complete the port channel's requests */
};

/* --- Port channels (since ABI 4; docs/runtime.md, "The proxy") ---------
 * A kernel hands a port-channel operation to the host proxy of its rank as
 * a trigger in the channel's FIFO: a ring of ccl_dev_ctx::fifo_slots
 * triggers in pinned host memory that the kernel writes and the proxy
 * reads. Thread 0 of the block that owns the channel's source end is the
 * only producer, the proxy of the rank the only consumer. The k-th trigger
 * of the channel (k = 0, 1, ... over all calls) goes to slot k mod slots;
 * the kernel writes src, dst and bytes, then (after a system fence) `tag`
 * = ((k + 1) << 8) | CCL_TRIGGER_* flags, so the proxy takes a slot whose
 * tag carries the sequence number it expects next. The proxy advances
 * fifo_tail[c] once it has read a trigger (the slot is free again) and,
 * once the trigger's copy has landed and its signal was written, writes
 * k + 1 to port_done[c]. */
typedef struct ccl_trigger {
  uint64_t src;   /* source address on this rank */
  uint64_t dst;   /* destination in the channel's destination rank's
                     scratch, as this rank addresses it */
  uint64_t bytes; /* 0 for a signal alone */
  uint64_t tag;   /* written last: (sequence << 8) | CCL_TRIGGER_* */
} ccl_trigger;

enum {
  CCL_TRIGGER_PUT = 1,    /* copy bytes from src to dst */
  CCL_TRIGGER_SIGNAL = 2, /* then add 1 to the channel's signal counter */
};

/* Per (plan variant, rank) context that every kernel receives. */
typedef struct ccl_dev_ctx {
  uint32_t rank;
  uint32_t nranks;
  uint32_t nblocks;     /* thread blocks per rank of this kernel */
  uint32_t num_scratch; /* scratch buffers of the variant */
  uint64_t timeout_ns;  /* spin-wait timeout; 0 = wait forever */
  /* epoch[b]: the calls thread block b has finished (nblocks counters,
   * each read at its block's start and advanced at its end by that block
   * alone). In device memory of this rank. */
  uint32_t *epoch;
  volatile uint32_t *abort_flag; /* shared by the communicator, host-mapped */
  ccl_error_record *error;       /* shared by the communicator, host-mapped */
  /* scratch[b * nranks + r]: base of scratch buffer b on rank r, as this
   * rank addresses it (peer pointers on GPUs). */
  void *const *scratch;
  /* --- since ABI 2: Simple-protocol synchronisation (docs/runtime.md). All
   * counters are 64-bit, zeroed once at setup and never reset: a call's
   * expected values are derived from what earlier calls left behind, so
   * repeated calls and CUDA graph replays need no host work. */
  uint32_t num_channels;   /* channels of the variant */
  uint32_t num_semaphores; /* semaphores of the variant */
  uint32_t num_barriers;   /* multi-block barriers of the variant */
  uint32_t reserved0;
  /* signal[c]: the signal counter of channel c, which lives in the device
   * memory of the channel's destination rank, as this rank addresses it
   * (a peer pointer on GPUs). A signal adds 1; the same table on every
   * rank. */
  uint64_t *const *signal;
  /* consumed[c] (this rank's memory): how many signals of channel c this
   * rank, as the channel's destination, has waited for in earlier calls.
   * Read by the waiting block, advanced at the end of its part of the
   * kernel. */
  uint64_t *consumed;
  /* semaphore s of this rank: sem[2s] releases, sem[2s+1] acquire tickets
   * (this rank's memory; entries of other ranks' semaphores are unused). */
  uint64_t *sem;
  /* barrier b of this rank: barrier[b] arrivals (this rank's memory). */
  uint64_t *barrier;
  /* --- since ABI 3: a test hook (cclCommDebugSetDelay). When delay_ns is
   * not 0, thread block `delay_block` of this rank (every block when it is
   * CCL_DELAY_ALL_BLOCKS) spins for delay_ns at the start of every call,
   * before its first operation, so that the other ranks run ahead. */
  uint64_t delay_ns;
  uint32_t delay_block;
  /* --- since ABI 4: port channels (see ccl_trigger). Entries of channels
   * this rank is not the source of, or that are memory channels, are
   * unused. */
  uint32_t fifo_slots;            /* triggers per channel FIFO */
  ccl_trigger *fifo;              /* host-mapped: fifo[c * fifo_slots + i] */
  volatile uint64_t *fifo_tail;   /* host-mapped: triggers the proxy took */
  uint64_t *fifo_head;            /* device memory: triggers pushed */
  uint64_t *fifo_tail_seen;       /* device memory: fifo_tail last read */
  volatile uint64_t *port_done;   /* device memory: triggers completed */
} ccl_dev_ctx;

#define CCL_DELAY_ALL_BLOCKS 0xffffffffu

/* Host-target kernel: run once per thread block, each on its own thread. */
typedef void (*ccl_host_kernel_fn)(const ccl_dev_ctx *ctx, const void *input,
                                   void *output, uint64_t count,
                                   uint32_t block);

/* Source location of one operation of the program (for error reports). */
typedef struct ccl_op_info {
  const char *kind; /* "put_packets", "reduce_packets", ... */
  const char *file;
  uint32_t line, col; /* 1-based */
  /* Since ABI 5, for a wait (else 0): 1 + the op id of the operation of the
   * channel's source rank whose signal it waits for (the k-th signalling
   * operation in program order for the k-th wait of a call, counting the
   * channel's credit as signals of the call before), or 0 when the source
   * signals the channel fewer times per call than it is waited on; then
   * source_signals is how many times it does (both 0: unknown). A timeout
   * report names the operation the source rank did not run. */
  uint32_t awaits;
  uint32_t source_signals;
} ccl_op_info;

/* One scratch buffer. Its size for a call of `count` elements is
 * slots * slot_bytes(count), times two when `packets` is set (LL buffers
 * alternate by epoch parity). slot_bytes is the byte size of one chunk unit,
 * ceil(count / chunks) elements, doubled (LL16 carries 8 payload bytes per
 * 16-byte packet and rounded up to whole packets) when `packets` is set. */
typedef struct ccl_scratch_info {
  const char *name;
  uint32_t slots;
  uint32_t packets;
} ccl_scratch_info;

typedef struct ccl_kernel_info {
  uint32_t dtype; /* CCL_DT_* */
  uint32_t redop; /* CCL_OP_* */
  /* Entry name in the device image. A device image may instead hold one
   * entry per rank, SYMBOL_rR for rank R (cclc emits these for GPUs); the
   * runtime takes the rank's own entry when there is one. */
  const char *symbol;
  ccl_host_kernel_fn host_fn;  /* host target only */
} ccl_kernel_info;

/* One channel of a variant (since ABI 2). Its index is its position in
 * ccl_variant::channels, which is also the index the kernels use in
 * ccl_dev_ctx::signal and ::consumed. */
typedef struct ccl_channel_info {
  uint32_t src;  /* rank that puts, gets and signals */
  uint32_t dst;  /* rank that waits; holds the signal counter */
  uint32_t kind; /* CCL_CHANNEL_* (port: since ABI 4) */
  /* since ABI 3: signals the channel holds before the first call. The
   * runtime starts the channel's signal counter at this value, so the first
   * `credit` waits on it return at once (the compiler's acknowledgement
   * channels: a sender waits for the receiver's acknowledgement of the
   * previous call's transfer). */
  uint32_t credit;
} ccl_channel_info;

/* A cross-thread-block semaphore (since ABI 2): index = position. */
typedef struct ccl_semaphore_info {
  uint32_t rank; /* the rank whose blocks release and acquire it */
} ccl_semaphore_info;

/* A barrier among several thread blocks of one rank (since ABI 2). */
typedef struct ccl_barrier_info {
  uint32_t rank;
  uint32_t nblocks; /* participating blocks */
} ccl_barrier_info;

/* Everything for one rank count. */
typedef struct ccl_variant {
  uint32_t nranks;
  uint32_t nblocks;
  uint32_t threads_per_block;
  uint32_t num_scratch;
  const ccl_scratch_info *scratch;
  uint32_t num_kernels;
  const ccl_kernel_info *kernels;
  /* since ABI 2 */
  uint32_t num_channels;
  const ccl_channel_info *channels;
  uint32_t num_semaphores;
  const ccl_semaphore_info *semaphores;
  uint32_t num_barriers;
  const ccl_barrier_info *barriers;
  /* since ABI 6: the variant's own chunk count (its kernels' chunk unit
   * is ceil(count / chunks)); its scratch buffers are sized with it. 0: the
   * plan's chunks. */
  uint32_t chunks;
  /* since ABI 8: 1 + the root this variant's kernels were written and
   * proved for: a rooted collective's `root =` argument at this rank
   * count, which may depend on it (`root = nranks - 1`). 0: the plan's
   * root. The runtime relabels the ranks from it (docs/runtime.md,
   * "Roots"). */
  uint32_t root_plus_one;
} ccl_variant;

/* A plan holds the images of every architecture cclc compiled it for
 * among its target's (one AMDGPU plan for --target=gfx942,gfx90a: a
 * CCL_IMAGE_HSACO per architecture, in --target order; an NVPTX target
 * gives a cubin, when ptxas was found, then PTX). The runtime loads the
 * image whose arch matches the device (PTX: JIT for any NVIDIA device);
 * the kernels of all of them have the same names and launch shape. An
 * HSACO image is an HSA code object (ELF shared object, code object
 * version 5) whose kernels take exactly the four kernel arguments (32
 * bytes, no hidden arguments) and must be launched with the variant's
 * threads_per_block (256), which they require. */
typedef struct ccl_image {
  uint32_t kind; /* CCL_IMAGE_* */
  const char *arch; /* "sm_90", "gfx942", "gfx90a" */
  const void *data;
  uint64_t size;
} ccl_image;

typedef struct ccl_plan {
  uint32_t abi_version; /* CCL_PLAN_ABI_VERSION */
  uint32_t target;      /* CCL_TARGET_* */
  const char *algorithm;
  const char *collective; /* "AllReduce", ... */
  uint32_t inplace;       /* CCL_INPLACE_* */
  /* The smallest chunk count of the variants (an algorithm's chunks may
   * depend on the rank count). Scratch is sized with the variant's own
   * ccl_variant::chunks; this count only where a variant has none. */
  uint32_t chunks;
  uint32_t protocol; /* CCL_PROTO_* */
  /* Largest count * element size supported (scratch and staging are sized
   * for it; larger calls are refused): the input bytes per rank of
   * AllReduce, Broadcast, Reduce and AllGather, the output bytes per rank
   * of ReduceScatter (its input is nranks times that), one peer's block of
   * AllToAll. At most CCL_MAX_PLAN_BYTES: libcclrt refuses a larger one, so
   * that no size derived from it (scratch, staging, packets) can overflow. */
  uint64_t max_bytes;
  const char *source; /* path of the .ccl file it was compiled from */
  uint32_t num_variants;
  const ccl_variant *variants;
  uint32_t num_ops;
  const ccl_op_info *ops;
  uint32_t num_images; /* in order of preference */
  const ccl_image *images;
  /* since ABI 3: the collective's root rank (Broadcast, Reduce; 0 for the
   * others), the value of its `root` parameter the algorithm implements,
   * at the smallest rank count; a variant's own is
   * ccl_variant::root_plus_one. */
  uint32_t root;
} ccl_plan;

/* --- Bundled libraries (docs/runtime.md, "Bundles and selection") -------
 * A library compiled from a file with `select` items is a bundle: besides
 * its plans it holds a selection table, and it exports NCCL-shaped entry
 * points (cclAllReduce, cclAllGather, ...) that hand the table to
 * cclrtCollective. The table is data: the first row whose collective, rank
 * range and byte bound hold the call, and whose algorithm's plan for the
 * communicator's target has a kernel for it, serves the call. */
#define CCL_SELECTION_ABI_VERSION 2u

/* Collectives of the NCCL-shaped entry points. */
enum {
  CCL_COLL_ALLREDUCE = 0,
  CCL_COLL_ALLGATHER = 1,
  CCL_COLL_REDUCESCATTER = 2,
  CCL_COLL_ALLTOALL = 3,
  CCL_COLL_BROADCAST = 4,
  CCL_COLL_REDUCE = 5,
  CCL_COLL_COUNT = 6,
};

typedef struct ccl_selection_row {
  uint32_t collective; /* CCL_COLL_* */
  uint32_t min_ranks;
  uint32_t max_ranks;  /* 0: no bound */
  uint32_t num_plans;
  /* The row serves count * element size <= max_bytes (the bytes ccl_plan::
   * max_bytes measures); UINT64_MAX: no bound. */
  uint64_t max_bytes;
  const char *algorithm;
  const ccl_plan *const *plans; /* the algorithm's plan for each target */
  const char *where;            /* FILE:LINE:COL of the row */
} ccl_selection_row;

typedef struct ccl_selection {
  uint32_t abi_version; /* CCL_SELECTION_ABI_VERSION */
  uint32_t num_rows;
  const ccl_selection_row *rows;
  /* Every algorithm of the library, as a row without bounds (what
   * CCL_ALGO may force). */
  uint32_t num_algorithms;
  const ccl_selection_row *algorithms;
  const char *source; /* the .ccl file of the `select` items */
  /* since ABI 2: the rows of the `select C deterministic` items, which a
   * deterministic communicator (CCL_DETERMINISTIC=1,
   * cclConfig_t::deterministic) uses for AllReduce, ReduceScatter and
   * Reduce instead of `rows`; their algorithms promise bits(deterministic). */
  uint32_t num_deterministic_rows;
  const ccl_selection_row *deterministic_rows;
} ccl_selection;

/* --- Host target: pausing waits ----------------------------------------
 * A rank's worker thread runs the thread blocks of a host kernel as
 * fibers (docs/runtime.md, "Host target"). A wait whose poll failed calls
 * cclrtHostPause(fresh) (fresh: its first failed poll, so the block made
 * progress since its last pause), which runs the rank's other blocks and
 * returns when this block's turn comes again: 1 when the worker slept
 * meanwhile (the wait reads its clock then), else 0. A round of the
 * rank's blocks without progress spins, then yields the CPU, then arms
 * (counts the worker in cclrtHostWaiters), runs one more round and sleeps
 * on the process's doorbell until a writer rings it. A writer, after its
 * stores and a full fence, calls cclrtHostRing() when cclrtHostWaiters is
 * not 0. Writers in other processes (one process per rank) cannot ring: a
 * sleep's timeout (20 us doubling to 1 ms) bounds how late their data is
 * seen. A wait that succeeded after pausing calls cclrtHostDone(), which
 * disarms a wait running on a thread of its own (not a fiber). */
extern uint32_t cclrtHostWaiters;
int cclrtHostPause(int fresh);
void cclrtHostDone(void);
void cclrtHostRing(void);

#ifdef __cplusplus
}
#endif

#endif /* CCL_PLAN_H */
