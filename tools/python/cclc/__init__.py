"""cclc from Python: compile .ccl programs and run their collectives.

    import cclc
    so = cclc.compile("stdlib/allreduce/ring.ccl", target="host", nranks="2..4",
                      dtype="float32")
    lib = cclc.load(so)                          # registers its plans
    with cclc.init_all(4, target="host") as comms:
        bufs = [array.array("f", [r + 1.0] * 1000) for r in range(4)]
        comms.run(lib.ring, bufs)                # every rank's call, queued
        comms.synchronize()                      # bufs now hold the sums

Buffers are PyTorch tensors (CPU or CUDA: data_ptr() and the current
stream), NumPy arrays (their data pointer), objects with
__cuda_array_interface__, or anything with the buffer protocol; neither
torch nor numpy is needed to import the package. Failures of the C API raise
CclError with libcclrt's code and message; cclc's diagnostics raise
CompileError. docs/python.md has the whole story.
"""

from ._buffers import DataType, RedOp
from ._version import __version__
from .compiler import compile, find_cclc
from .errors import CclcNotFound, CclError, CompileError, Result, RuntimeNotFound
from .library import Algorithm, Library, PlanInfo, load
from .runtime import (Comm, CommGroup, env_rank, get_unique_id, init_all, init_from_env,
                      init_rank, runtime_version)

__all__ = [
    "__version__", "compile", "find_cclc", "load", "Library", "Algorithm", "PlanInfo",
    "init_all", "init_rank", "init_from_env", "get_unique_id", "env_rank", "Comm",
    "CommGroup", "runtime_version", "DataType", "RedOp", "Result", "CclError",
    "CompileError", "CclcNotFound", "RuntimeNotFound",
]
