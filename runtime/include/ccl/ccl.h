/* ccl/ccl.h - public C API of libcclrt, the cclc runtime.
 *
 * Model (docs/runtime.md has the full story):
 *  - A communicator handle is one rank's view. `cclCommInitRank` creates
 *    one rank in each process of a job that meets through a unique id
 *    (one process per rank, as NCCL); `cclCommInitAllInProcess` creates
 *    all ranks of an in-process communicator at once: N host ranks
 *    (threads) for the host target, or N GPUs driven by this process.
 *  - Generated libraries register their plans when they are loaded (linked
 *    or dlopen'ed). Creating a communicator prepares every registered plan of
 *    its target: modules loaded, kernels resolved, scratch allocated, peer
 *    access enabled. Nothing on the launch path allocates or blocks.
 *  - Each rank calls the generated entry point
 *        cclResult_t ccl_<algorithm>(cclComm_t comm, const void *input,
 *                                    void *output, size_t count,
 *                                    cclDataType_t dtype, cclRedOp_t op,
 *                                    cclStream_t stream);
 *    for its own buffers. The launch is asynchronous: on CUDA it is queued
 *    on `stream` (a CUstream; NULL = the legacy default stream) and may be
 *    captured in a CUDA graph; on the host target it is queued on the rank's
 *    worker (`stream` must be NULL).
 *  - `cclCommSynchronize` waits for the rank's queued work and reports an
 *    asynchronous failure (a spin-wait timeout, with rank, thread block,
 *    operation and source line).
 *  - Every call returns a cclResult_t; `cclGetLastError` gives the message of
 *    the last failure on the calling thread, with context.
 */
#ifndef CCL_CCL_H
#define CCL_CCL_H

#include <stddef.h>
#include <stdint.h>

#include "ccl/plan.h"

/* The version of cclc and libcclrt (they are released together). */
#define CCL_VERSION_MAJOR 0
#define CCL_VERSION_MINOR 12
#define CCL_VERSION_PATCH 0
#define CCL_VERSION_STRING "0.12.0"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  cclSuccess = 0,
  cclInvalidArgument = 1, /* bad argument from the caller */
  cclInvalidUsage = 2,    /* call not valid in this state */
  cclUnsupported = 3,     /* no kernel for this rank count/dtype/op/size */
  cclNoDevice = 4,        /* no GPU, no driver, or too few GPUs */
  cclDriverError = 5,     /* the CUDA driver returned an error */
  cclTimeout = 6,         /* a kernel's spin-wait timed out (the communicator
                             aborted), or the bootstrap's connect, join or
                             exchange did */
  cclSystemError = 7,     /* OS call failed (threads, memory, dlopen) */
  cclInternalError = 8,
  cclRemoteError = 9,     /* another rank failed, exited or aborted */
  cclBootstrapError = 10, /* the ranks could not meet or disagree (setup) */
  cclResultIntMin_ = -0x7fffffff - 1, /* not results (see cclDataType_t) */
  cclResultIntMax_ = 0x7fffffff,
} cclResult_t;

/* cclFloat32, cclFloat16, cclBfloat16: kernels are compiled for them.
 * cclInt8, cclUint8, cclInt32, cclUint32, cclInt64, cclUint64, cclFloat64,
 * cclFloat8e4m3, cclFloat8e5m2: served by size by a bundle's AllGather,
 * AllToAll and Broadcast (ccl/types.def). */
typedef enum {
#define CCL_DTYPE(ID, CName, ...) ccl##CName = CCL_DT_##ID,
#include "ccl/types.def"
#define CCL_BYTE_DTYPE(ID, CName, code, ...) ccl##CName = code,
#include "ccl/types.def"
  /* Not types: they make every int a value of the enum, so that a wrong
   * number passed in is an error the runtime reports, not undefined
   * behaviour in C++. */
  cclDataTypeIntMin_ = -0x7fffffff - 1,
  cclDataTypeIntMax_ = 0x7fffffff,
} cclDataType_t;

/* cclSum, cclProd, cclMax, cclMin (ccl/types.def). */
typedef enum {
#define CCL_REDOP(ID, CName, ...) ccl##CName = CCL_OP_##ID,
#include "ccl/types.def"
  cclRedOpIntMin_ = -0x7fffffff - 1, /* not operators (see cclDataType_t) */
  cclRedOpIntMax_ = 0x7fffffff,
} cclRedOp_t;

typedef enum {
  cclTargetHost = CCL_TARGET_HOST,
  cclTargetCuda = CCL_TARGET_NVPTX,
  /* AMD GPUs through the HIP runtime (libamdhip64.so, loaded at run time;
   * $CCL_HIP_LIBRARY names another path): one GPU per rank, the plan's
   * gfx code objects (docs/runtime.md, "HIP target"). */
  cclTargetHip = CCL_TARGET_AMDGPU,
  cclTargetIntMin_ = -0x7fffffff - 1, /* not targets (see cclDataType_t) */
  cclTargetIntMax_ = 0x7fffffff,
} cclTarget_t;

typedef struct cclComm *cclComm_t;
typedef void *cclStream_t; /* CUstream on CUDA, hipStream_t on HIP; NULL on
                              the host target */

/* CCL_VERSION_CODE: major * 10000 + minor * 100 + patch. */
#define CCL_VERSION_CODE                                                       \
  (CCL_VERSION_MAJOR * 10000 + CCL_VERSION_MINOR * 100 + CCL_VERSION_PATCH)
/* The version of the libcclrt in use (CCL_VERSION_CODE of its build). */
cclResult_t cclGetVersion(int *version);

/* Checks, without mapping it, that the file at `path` is a complete shared
 * library for this machine: an ELF shared object of this process's word
 * size, byte order and machine whose every loaded segment and header table
 * lies within the file. Loading a file cut short (a partial copy, a failed
 * download) kills the process with SIGBUS when a page past its end is
 * touched, so the tools check a generated library with this before they
 * dlopen it (ccl-perf --lib, libcclnccl.so's bundle, cclc.load in Python).
 * cclSuccess, or cclInvalidArgument with cclGetLastError() naming the file
 * and what is wrong with it. A file truncated after this check is not
 * caught. */
cclResult_t cclCheckLibraryFile(const char *path);

/* Message of the last failed call on this thread ("" if none). */
const char *cclGetLastError(void);
const char *cclGetErrorString(cclResult_t result);

/* Creates `nranks` communicator handles, comms[r] for rank r. For the CUDA
 * target, `devices` lists the CUDA device ordinal of each rank (NULL means
 * 0..nranks-1); for the host target it must be NULL. An ordinal may repeat:
 * several ranks then share that GPU (a test mode that lets every GPU code
 * path run on one GPU). Each rank still has its own internal stream, and
 * since the thread blocks of all ranks wait for each other, all the blocks
 * of the ranks that share a GPU must be resident on it at once: plan
 * preparation and every launch check that and fail with cclUnsupported and
 * a message naming the GPU, the ranks and the blocks needed and available
 * when they would not fit. Each rank that shares a GPU must launch (and
 * cclMemcpyAsync) on a stream of its own: NULL and CU_STREAM_LEGACY are
 * refused with cclInvalidArgument for such ranks. At most
 * CCL_MAX_LOCAL_RANKS ranks (host target: each rank is a thread, each of
 * its thread blocks another while a kernel runs). */
#define CCL_MAX_LOCAL_RANKS 1024
cclResult_t cclCommInitAllInProcess(cclComm_t *comms, int nranks,
                                    cclTarget_t target, const int *devices);
/* --- One process per rank (docs/runtime.md, "Bootstrap") ---------------
 *
 * A job of N ranks in N processes (or threads) meets through a unique id:
 * one process calls cclGetUniqueId, hands the 128 bytes to every rank
 * (MPI_Bcast, a file, the environment: ccl-run does it for you), and each
 * rank calls cclCommInitRank with it. The id holds the address and port of
 * a rendezvous listener that cclGetUniqueId starts in the calling process
 * and a fresh random secret that authenticates every bootstrap message. */
#define CCL_UNIQUE_ID_BYTES 128
#define CCL_MAX_RANKS 65536
typedef struct {
  char internal[CCL_UNIQUE_ID_BYTES];
} cclUniqueId;

/* Starts a rendezvous listener (a thread that serves one job, then ends)
 * on the bootstrap interface (CCL_SOCKET_IFNAME, else the interface of the
 * default route, else loopback) and writes its id. */
cclResult_t cclGetUniqueId(cclUniqueId *id);

/* Options of cclCommInitRankConfig. Start from CCL_CONFIG_INITIALIZER and
 * set the fields you need; the zero/negative defaults mean "as
 * cclCommInitRank does". */
typedef struct {
  size_t size;     /* sizeof(cclConfig_t) (set by the initializer) */
  unsigned magic;  /* CCL_CONFIG_MAGIC (set by the initializer) */
  unsigned version; /* CCL_VERSION_CODE (set by the initializer) */
  int target;      /* cclTarget_t, or -1: cclTargetCuda */
  int device;      /* CUDA or HIP ordinal, or -1: the caller's current
                      device */
  /* Bootstrap connect / receive timeout in milliseconds, 0: the
   * environment's CCL_BOOTSTRAP_TIMEOUT_MS, else 120000. */
  uint64_t bootstrap_timeout_ms;
  /* 1: the bundle's entry points serve AllReduce, ReduceScatter and Reduce
   * from the library's deterministic table only (docs/runtime.md,
   * "Deterministic results"): every element is the left fold of the ranks'
   * inputs in rank order, the same bits at every count and from every
   * algorithm of the table. 0: the default table. -1: the environment's
   * CCL_DETERMINISTIC (1 or 0), else 0. Every rank must choose alike. */
  int deterministic;
} cclConfig_t;
#define CCL_CONFIG_MAGIC 0xcc1c0f16u
#define CCL_CONFIG_INITIALIZER                                                 \
  { sizeof(cclConfig_t), CCL_CONFIG_MAGIC, CCL_VERSION_CODE, -1, -1, 0, -1 }

/* Creates rank `rank` of an `nranks`-rank communicator from `id` (1 <=
 * nranks <= CCL_MAX_RANKS). Every
 * rank calls it (collective; blocks until all ranks joined or the
 * bootstrap timeout passed). The ranks check that they loaded the same
 * algorithms (plan variants, rank count, library builds) and fail together
 * with one message if not. Targets the CUDA device current on the calling
 * thread; cclCommInitRankConfig picks the target and device. */
cclResult_t cclCommInitRank(cclComm_t *comm, int nranks, cclUniqueId id,
                            int rank);
cclResult_t cclCommInitRankConfig(cclComm_t *comm, int nranks,
                                  cclUniqueId id, int rank,
                                  const cclConfig_t *config);

/* Creates this process's rank from what its launcher put in the
 * environment (docs/runtime.md, "Launchers"): ccl-run's CCL_RANK,
 * CCL_NRANKS and CCL_UNIQUE_ID; torchrun's RANK and WORLD_SIZE with
 * MASTER_ADDR; Open MPI's OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/PMI_SIZE,
 * Slurm's SLURM_PROCID/SLURM_NTASKS with CCL_COMM_ID=host:port. `config`
 * may be NULL. cclInvalidUsage when no launcher's variables are set. */
cclResult_t cclCommInitFromEnv(cclComm_t *comm, const cclConfig_t *config);
/* The rank and rank count the environment gives this process (as
 * cclCommInitFromEnv reads them), or -1 and -1 when no launcher set them. */
cclResult_t cclGetEnvRank(int *rank, int *nranks);

/* Exchanges `bytes` bytes from every rank over the bootstrap connections
 * (host memory; blocking): recvbuf[r * bytes ...] receives rank r's
 * sendbuf. Every rank calls it, in the same order as its other bootstrap
 * calls (at most 64 MiB per rank). On an in-process communicator, the
 * calls of all ranks meet in-process. For metadata and test harnesses, not
 * for data paths. */
cclResult_t cclBootstrapAllGather(cclComm_t comm, const void *sendbuf,
                                  void *recvbuf, size_t bytes);

/* Aborts the communicator: its kernels stop waiting, a call hanging in
 * another thread returns cclRemoteError, the other ranks are told (their
 * calls fail with cclRemoteError naming this rank), and the handle is
 * destroyed. A new communicator may be created afterwards. */
cclResult_t cclCommAbort(cclComm_t comm);

/* Destroys one rank's handle; the shared state goes with the last one. */
cclResult_t cclCommDestroy(cclComm_t comm);
cclResult_t cclCommRank(cclComm_t comm, int *rank);
cclResult_t cclCommCount(cclComm_t comm, int *nranks);
cclResult_t cclCommTarget(cclComm_t comm, cclTarget_t *target);
/* CUDA or HIP device ordinal of the rank (-1 on the host target). */
cclResult_t cclCommDevice(cclComm_t comm, int *device);

/* Prepares plans registered after the communicator was created (a library
 * dlopen'ed later). Call it on every rank before launching them. */
cclResult_t cclCommLoadRegisteredPlans(cclComm_t comm);

/* Waits for the rank's queued work on `stream` and returns the
 * communicator's asynchronous error, if any. */
cclResult_t cclCommSynchronize(cclComm_t comm, cclStream_t stream);
/* Stores the communicator's asynchronous error in *async_error without
 * waiting (cclSuccess if none; cclTimeout for a spin-wait timeout,
 * cclRemoteError when another rank failed or aborted); cclGetLastError
 * then describes it. Returns cclSuccess when it could look. */
cclResult_t cclCommGetAsyncError(cclComm_t comm, cclResult_t *async_error);

/* Spin-wait timeout in milliseconds for kernels launched from now on
 * (default: CCL_TIMEOUT_MS from the environment, else 30000; 0 = none). */
cclResult_t cclCommSetTimeout(cclComm_t comm, uint64_t timeout_ms);

/* Memory on the rank's device (device memory on CUDA, host memory on the
 * host target) and copies between it and host memory. A copy returns when
 * it has completed on the device, so a collective launched afterwards on
 * any stream sees the data; it is not ordered with work already queued on
 * the caller's streams (synchronize them first). cclMemFree frees only
 * what cclMemAlloc gave the same rank: any other pointer (freed already,
 * another rank's, never allocated) is cclInvalidArgument. */
cclResult_t cclMemAlloc(cclComm_t comm, void **ptr, size_t bytes);
cclResult_t cclMemFree(cclComm_t comm, void *ptr);
cclResult_t cclMemcpyToDevice(cclComm_t comm, void *dst, const void *src,
                              size_t bytes);
cclResult_t cclMemcpyFromDevice(cclComm_t comm, void *dst, const void *src,
                                size_t bytes);
/* Copies `bytes` between two buffers in the rank's device memory (from
 * cclMemAlloc, or any device memory of the rank's GPU) asynchronously, on
 * `stream`, ordered with the collectives launched on the same stream before
 * and after it (host target: on the rank's worker queue, `stream` NULL).
 * It never blocks: a program can refill a buffer between two collectives
 * without synchronising with the host. */
cclResult_t cclMemcpyAsync(cclComm_t comm, void *dst, const void *src,
                           size_t bytes, cclStream_t stream);

/* --- User buffers shared with the other ranks (docs/runtime.md,
 * "Registering user buffers") -------------------------------------------
 * cclCommRegister makes `bytes` bytes at `buf` (memory of the rank's
 * device) reachable by the other ranks of its host. It is collective:
 * every rank calls it, in the same order as its other collective setup
 * calls (the sizes may differ). A registration is kept per allocation (the
 * one that holds `buf`, found with cuMemGetAddressRange), so any number of
 * buffers at any offsets inside one allocation share one mapping.
 *   cclRegIpc    cudaMalloc / cuMemAlloc memory: a CUDA IPC handle
 *   cclRegVmmFd  virtual-memory allocations (cuMemCreate) whose handle
 *                type allows a POSIX file descriptor: exported, imported
 *                and mapped by the peers
 *   cclRegLocal  a rank of the same process (in-process communicators):
 *                the plain pointer
 *   cclRegStaged anything else (other virtual-memory allocations, host
 *                memory, ranks on other hosts): not shared
 * Collectives are correct on any buffer, registered or not: they stage
 * through scratch (docs/runtime.md says what each path costs). */
typedef struct cclRegistration *cclRegHandle_t;
typedef enum {
  cclRegStaged = 0,
  cclRegIpc = 1,
  cclRegVmmFd = 2,
  cclRegLocal = 3,
} cclRegKind_t;
cclResult_t cclCommRegister(cclComm_t comm, void *buf, size_t bytes,
                            cclRegHandle_t *handle);
/* Releases this rank's registration (not collective); the mappings of
 * the peers' buffers go with the last registration of their allocation. */
cclResult_t cclCommDeregister(cclComm_t comm, cclRegHandle_t handle);
/* Rank `peer`'s buffer of the registration as this rank's device
 * addresses it (*peer_buf NULL when it is staged), and how it is shared
 * (cclRegKind_t). For kernels of your own that read a peer's buffer. */
cclResult_t cclCommRegisteredPeer(cclComm_t comm, cclRegHandle_t handle,
                                  int peer, void **peer_buf, int *kind);

/* The algorithm of the rank's last launch (a bundle's entry points pick
 * one per call; NULL before the first launch). */
cclResult_t cclCommLastAlgorithm(cclComm_t comm, const char **algorithm);

/* Memory that the communicator's prepared plans hold for this rank
 * (device memory of its GPU; host memory on the host target): the scratch
 * buffers, sized for each plan's largest message, in *scratch_bytes; the
 * buffers through which a call of the other form (in place or out of
 * place) is staged, in *staging_bytes; the number of prepared plans in
 * *plans (a Broadcast or Reduce plan counts once per root: each root has
 * its own scratch). Plans are prepared when the communicator is created
 * and by cclCommLoadRegisteredPlans. Any pointer may be NULL. ccl-perf
 * prints it. */
cclResult_t cclCommPlanMemory(cclComm_t comm, uint64_t *scratch_bytes,
                              uint64_t *staging_bytes, int *plans);

/* The plans of the communicator's libraries for its target that could not
 * be prepared on this machine (for example a kernel whose thread blocks do
 * not fit the GPU at once, with several ranks sharing it): their number in
 * *count; for 0 <= index < *count, the index-th one's algorithm and the
 * reason in *algorithm and *why (owned by the communicator, valid until it
 * is destroyed; in the order of the algorithms' names). The selection of a
 * bundle's entry points skips these plans. An index >= *count sets
 * *algorithm and *why to NULL. Any out pointer may be NULL. ccl-perf
 * prints them. */
cclResult_t cclCommUnpreparedPlan(cclComm_t comm, int index, int *count,
                                  const char **algorithm, const char **why);

/* Size of one element of `dtype` in bytes (0 if unknown). */
size_t cclDataTypeSize(cclDataType_t dtype);

/* Looks up the registered plans of `algorithm` (ccl_plan::algorithm): one
 * per target a loaded library was compiled for, in the order they were
 * registered. Stores the first min(count, capacity) of them in plans[] and
 * their number in *count; `plans` may be NULL when `capacity` is 0 (ask for
 * the number first). No plan of that name is not an error: *count is 0.
 * Tools that drive a generated library (ccl-perf) read its plan to learn
 * the collective, the root, the rank counts and kernels it has, and its
 * largest message. cclInvalidArgument when `algorithm` or `count` is NULL,
 * or `plans` is NULL with a capacity. */
cclResult_t cclPlanLookup(const char *algorithm, const ccl_plan **plans,
                          size_t capacity, size_t *count);

/* --- Used by generated libraries ---------------------------------------- */

/* Called by a generated library's static constructor. */
void cclrtRegisterPlan(const ccl_plan *plan);
/* Called by a generated entry point. */
cclResult_t cclrtLaunch(const ccl_plan *plan, cclComm_t comm, const void *input,
                        void *output, size_t count, cclDataType_t dtype,
                        cclRedOp_t op, cclStream_t stream);
/* Called by the generated entry point of a rooted collective (Broadcast,
 * Reduce): one kernel set serves every root. The runtime prepares such a
 * plan once per root and runs rank r as the plan's rank
 * (r - root + plan->root) mod nranks (docs/runtime.md, "Roots"). */
cclResult_t cclrtLaunchRooted(const ccl_plan *plan, cclComm_t comm,
                              const void *input, void *output, size_t count,
                              cclDataType_t dtype, cclRedOp_t op, int root,
                              cclStream_t stream);

/* Called by a bundle's NCCL-shaped entry points (cclAllReduce, ...):
 * picks the algorithm for the call from `selection` (CCL_ALGO may force
 * one) and launches it. `collective` is a CCL_COLL_* value; `op` and `root`
 * are ignored by the collectives that do not take them. */
cclResult_t cclrtCollective(const ccl_selection *selection, uint32_t collective,
                            const void *sendbuff, void *recvbuff, size_t count,
                            cclDataType_t dtype, cclRedOp_t op, int root,
                            cclComm_t comm, cclStream_t stream);

/* Test hook: when set, the rank skips its launches (simulates a rank that
 * never launches; used by the hang-report tests). */
cclResult_t cclCommDebugSkipLaunches(cclComm_t comm, int skip);

/* Test hook: for the kernels launched from now on, thread block `block` of
 * this rank (every block when `block` is -1) spins for `delay_ns`
 * nanoseconds at the start of every call, before its first operation, so
 * that the other ranks (or the other blocks) run ahead: a missing
 * synchronisation between consecutive calls then shows on any machine
 * (ccl-perf --delay). 0 turns it off. */
cclResult_t cclCommDebugSetDelay(cclComm_t comm, int block, uint64_t delay_ns);

/* Test hook: the proxy of this rank (port channels; docs/runtime.md, "The
 * proxy") sleeps `delay_ns` nanoseconds before each request it takes, so
 * that FIFOs fill up and puts complete late; UINT64_MAX stops it taking
 * requests at all (a dead proxy: the kernels' waits time out and name the
 * port-channel operation). 0 turns it off. ccl-perf --proxy-delay. */
cclResult_t cclCommDebugSetProxyDelay(cclComm_t comm, uint64_t delay_ns);

#ifdef __cplusplus
}
#endif

#endif /* CCL_CCL_H */
