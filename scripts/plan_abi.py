"""The plan tables of ccl/plan.h (ABI 8) as ctypes structures, for the
scripts and tests that read what a cclc library registers
(scripts/plan-dump.py, test/e2e/amdgpu/plan_images.py), with the names of
its enumerations."""
import ctypes

ABI = 8  # CCL_PLAN_ABI_VERSION
u32, u64, ptr, cstr = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_char_p
TARGETS = {0: "host", 1: "nvptx", 2: "amdgpu"}
IMAGES = {0: "ptx", 1: "cubin", 2: "hsaco"}
DTYPES = {0: "float32", 1: "float16", 2: "bfloat16"}
OPS = {0: "sum", 1: "prod", 2: "max", 3: "min"}
INPLACE = {0: "out-of-place", 1: "in-place", 2: "both"}
CHANNELS = {0: "memory", 1: "port"}


class Scratch(ctypes.Structure):
    _fields_ = [("name", cstr), ("slots", u32), ("packets", u32)]


class Kernel(ctypes.Structure):
    _fields_ = [("dtype", u32), ("op", u32), ("symbol", cstr), ("fn", ptr)]


class Channel(ctypes.Structure):
    _fields_ = [("src", u32), ("dst", u32), ("kind", u32), ("credit", u32)]


class Semaphore(ctypes.Structure):
    _fields_ = [("rank", u32)]


class Barrier(ctypes.Structure):
    _fields_ = [("rank", u32), ("nblocks", u32)]


class Variant(ctypes.Structure):
    _fields_ = [("nranks", u32), ("nblocks", u32), ("threads_per_block", u32),
                ("num_scratch", u32), ("scratch", ctypes.POINTER(Scratch)),
                ("num_kernels", u32), ("kernels", ctypes.POINTER(Kernel)),
                ("num_channels", u32), ("channels", ctypes.POINTER(Channel)),
                ("num_semaphores", u32), ("semaphores", ctypes.POINTER(Semaphore)),
                ("num_barriers", u32), ("barriers", ctypes.POINTER(Barrier)),
                ("chunks", u32), ("root_plus_one", u32)]


class Image(ctypes.Structure):
    _fields_ = [("kind", u32), ("arch", cstr), ("data", ptr), ("size", u64)]


class Plan(ctypes.Structure):
    _fields_ = [("abi_version", u32), ("target", u32), ("algorithm", cstr),
                ("collective", cstr), ("inplace", u32), ("chunks", u32),
                ("protocol", u32), ("max_bytes", u64), ("source", cstr),
                ("num_variants", u32), ("variants", ctypes.POINTER(Variant)),
                ("num_ops", u32), ("ops", ptr),
                ("num_images", u32), ("images", ctypes.POINTER(Image)),
                ("root", u32)]
