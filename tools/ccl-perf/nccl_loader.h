// nccl_loader.h - NCCL loaded at run time for `--compare nccl`. The
// prototypes are declared here (no nccl.h needed to build ccl-perf).
//
// Safety rule: NVLink SHARP / multicast must never be
// used by default. checkNcclEnvironment() refuses to go on when the
// environment asks for it, and loadNccl() sets NCCL_NVLS_ENABLE=0 before
// libnccl is loaded.
#ifndef CCL_PERF_NCCL_LOADER_H
#define CCL_PERF_NCCL_LOADER_H

#include <cstddef>
#include <string>

namespace cclperf {
namespace nccl {

typedef int ncclResult_t;  // ncclSuccess == 0
typedef struct ncclComm *ncclComm_t;
enum { ncclFloat16 = 6, ncclFloat32 = 7, ncclBfloat16 = 9 };
enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 };
// NCCL_UNIQUE_ID_BYTES = 128, passed by value.
struct ncclUniqueId {
  char internal[128];
};

struct Nccl {
  ncclResult_t (*ncclGetVersion)(int *version) = nullptr;
  ncclResult_t (*ncclCommInitAll)(ncclComm_t *comms, int ndev,
                                  const int *devlist) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm) = nullptr;
  // One process per rank: rank 0 makes the id, every rank joins with it.
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId *id) = nullptr;
  ncclResult_t (*ncclCommInitRank)(ncclComm_t *comm, int nranks,
                                   ncclUniqueId id, int rank) = nullptr;
  ncclResult_t (*ncclAllReduce)(const void *sendbuff, void *recvbuff,
                                size_t count, int datatype, int op,
                                ncclComm_t comm, void *stream) = nullptr;
  ncclResult_t (*ncclAllGather)(const void *sendbuff, void *recvbuff,
                                size_t sendcount, int datatype,
                                ncclComm_t comm, void *stream) = nullptr;
  ncclResult_t (*ncclReduceScatter)(const void *sendbuff, void *recvbuff,
                                    size_t recvcount, int datatype, int op,
                                    ncclComm_t comm, void *stream) = nullptr;
  // NCCL 2.28 and later only; nullptr when the library lacks it.
  ncclResult_t (*ncclAlltoAll)(const void *sendbuff, void *recvbuff,
                               size_t count, int datatype, ncclComm_t comm,
                               void *stream) = nullptr;
  ncclResult_t (*ncclBroadcast)(const void *sendbuff, void *recvbuff,
                                size_t count, int datatype, int root,
                                ncclComm_t comm, void *stream) = nullptr;
  ncclResult_t (*ncclReduce)(const void *sendbuff, void *recvbuff,
                             size_t count, int datatype, int op, int root,
                             ncclComm_t comm, void *stream) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;
  const char *(*ncclGetErrorString)(ncclResult_t result) = nullptr;

  std::string path;  // what was loaded
  int version = 0;   // e.g. 22703
  std::string versionString() const;
  std::string errorText(ncclResult_t r) const;
};

// Returns false (with the reason) when the environment asks for NVLS /
// multicast: NCCL_NVLS_ENABLE set to anything but 0, or
// CCL_ALLOW_MULTICAST set. Call it before anything else happens.
bool checkNcclEnvironment(std::string *why);

// Sets NCCL_NVLS_ENABLE=0, then loads libnccl.so.2 from $CCL_NCCL_LIBRARY,
// the default library path, or a pip wheel (nvidia/nccl/lib) of a Python
// installation. Returns nullptr and sets *why on failure.
const Nccl *loadNccl(std::string *why);

}  // namespace nccl
}  // namespace cclperf

#endif  // CCL_PERF_NCCL_LOADER_H
