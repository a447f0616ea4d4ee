"""A generated library: its entry points and the collectives they run.

A library cclc compiled from one or more `algorithm`s exports
`ccl_<algorithm>(comm, input, output, count, dtype, op, stream)` (with `root`
before `stream` for Broadcast and Reduce); a bundle (a file with `select`
items) also exports NCCL's six entry points (cclAllReduce, ...). The package
reads the exported names from the library's dynamic symbol table and what
each algorithm is (collective, rank counts, kernels, largest message) from
the plan the library registered with libcclrt (cclPlanLookup).
"""

import ctypes
import os
import struct

from ._buffers import Buffer, DataType, RedOp, data_type, red_op, stream_handle
from .runtime import Comm, _whole, runtime

__all__ = ["load", "Library", "Algorithm", "PlanInfo"]

# Collectives by their name in ccl_plan::collective: (input elements,
# output elements) of a call of `count` on n ranks, whether it takes a root.
_SHAPES = {
    "AllReduce": (lambda c, n: c, lambda c, n: c, False),
    "Broadcast": (lambda c, n: c, lambda c, n: c, True),
    "Reduce": (lambda c, n: c, lambda c, n: c, True),
    "AllGather": (lambda c, n: c, lambda c, n: c * n, False),
    "ReduceScatter": (lambda c, n: c * n, lambda c, n: c, False),
    "AllToAll": (lambda c, n: c * n, lambda c, n: c * n, False),
}

# The bundle's NCCL-shaped entry points: Python name -> (symbol, collective).
_BUNDLE = {
    "all_reduce": ("cclAllReduce", "AllReduce"),
    "all_gather": ("cclAllGather", "AllGather"),
    "reduce_scatter": ("cclReduceScatter", "ReduceScatter"),
    "all_to_all": ("cclAllToAll", "AllToAll"),
    "broadcast": ("cclBroadcast", "Broadcast"),
    "reduce": ("cclReduce", "Reduce"),
}
_BUNDLE_SYMBOLS = {sym for sym, _ in _BUNDLE.values()}

# --- ELF: the functions a shared library exports ---------------------------


def exported_functions(path):
    """Names of the functions a 64-bit little-endian ELF shared library
    defines in its dynamic symbol table."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("%s is not a 64-bit little-endian ELF file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
    names = []
    for sh in sections:
        if sh[1] != 11:  # SHT_DYNSYM
            continue
        offset, size, link, entsize = sh[4], sh[5], sh[6], sh[9] or 24
        strtab = sections[link][4]
        for i in range(1, size // entsize):
            st_name, st_info, _, st_shndx, _, _ = struct.unpack_from(
                "<IBBHQQ", data, offset + i * entsize)
            if st_shndx == 0 or st_info & 0xF != 2 or st_info >> 4 not in (1, 2):
                continue  # undefined, not a function, or local
            end = data.index(b"\0", strtab + st_name)
            names.append(data[strtab + st_name:end].decode("utf-8", "replace"))
    return names


# --- ccl_plan (ccl/plan.h, ABI 8): the fields the package reads ------------

_PLAN_ABI = 8


class _Kernel(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_uint32), ("redop", ctypes.c_uint32),
                ("symbol", ctypes.c_char_p), ("host_fn", ctypes.c_void_p)]


class _Variant(ctypes.Structure):
    _fields_ = [("nranks", ctypes.c_uint32), ("nblocks", ctypes.c_uint32),
                ("threads_per_block", ctypes.c_uint32), ("num_scratch", ctypes.c_uint32),
                ("scratch", ctypes.c_void_p), ("num_kernels", ctypes.c_uint32),
                ("kernels", ctypes.POINTER(_Kernel)), ("num_channels", ctypes.c_uint32),
                ("channels", ctypes.c_void_p), ("num_semaphores", ctypes.c_uint32),
                ("semaphores", ctypes.c_void_p), ("num_barriers", ctypes.c_uint32),
                ("barriers", ctypes.c_void_p), ("chunks", ctypes.c_uint32),
                ("root_plus_one", ctypes.c_uint32)]


class _Plan(ctypes.Structure):
    _fields_ = [("abi_version", ctypes.c_uint32), ("target", ctypes.c_uint32),
                ("algorithm", ctypes.c_char_p), ("collective", ctypes.c_char_p),
                ("inplace", ctypes.c_uint32), ("chunks", ctypes.c_uint32),
                ("protocol", ctypes.c_uint32), ("max_bytes", ctypes.c_uint64),
                ("source", ctypes.c_char_p), ("num_variants", ctypes.c_uint32),
                ("variants", ctypes.POINTER(_Variant)), ("num_ops", ctypes.c_uint32),
                ("ops", ctypes.c_void_p), ("num_images", ctypes.c_uint32),
                ("images", ctypes.c_void_p), ("root", ctypes.c_uint32)]


class PlanInfo:
    """What a registered plan says about an algorithm for one target:
    target ("host", "cuda"), collective ("AllReduce", ...), inplace,
    protocol ("simple", "ll"), max_bytes, source, ranks (the rank counts),
    kernels ({(DataType, RedOp)}), root (at the smallest rank count), roots
    (the root each rank count's variant was written for: {nranks: root})."""

    def __init__(self, plan):
        self.abi_version = plan.abi_version
        self.target = {0: "host", 1: "cuda", 2: "amdgpu"}.get(plan.target, str(plan.target))
        self.algorithm = plan.algorithm.decode()
        self.collective = plan.collective.decode() if plan.collective else "AllReduce"
        self.inplace = bool(plan.inplace)
        self.protocol = {0: "simple", 1: "ll"}.get(plan.protocol, str(plan.protocol))
        self.max_bytes = plan.max_bytes
        self.source = plan.source.decode() if plan.source else None
        self.root = plan.root
        self.ranks = []
        self.kernels = set()
        self.roots = {}
        for i in range(plan.num_variants):
            v = plan.variants[i]
            self.ranks.append(v.nranks)
            self.roots[v.nranks] = v.root_plus_one - 1 if v.root_plus_one else plan.root
            for k in range(v.num_kernels):
                kern = v.kernels[k]
                try:
                    self.kernels.add((DataType(kern.dtype), RedOp(kern.redop)))
                except ValueError:
                    pass
        self.ranks.sort()

    def __repr__(self):
        return ("<PlanInfo %s: %s on %s, ranks %s, %d bytes max>"
                % (self.algorithm, self.collective, self.target, self.ranks, self.max_bytes))


def _plans(rt, name):
    n = ctypes.c_size_t()
    rt.check("cclPlanLookup", rt.cclPlanLookup(name.encode(), None, 0, ctypes.byref(n)))
    if n.value == 0:
        return []
    arr = (ctypes.c_void_p * n.value)()
    rt.check("cclPlanLookup", rt.cclPlanLookup(name.encode(), arr, n.value, ctypes.byref(n)))
    out = []
    for p in arr[:n.value]:
        abi = ctypes.c_uint32.from_address(p).value
        if abi == _PLAN_ABI:  # anything else: the runtime refuses it at launch
            out.append(PlanInfo(_Plan.from_address(p)))
    return out


# --- Calls ------------------------------------------------------------------


def _prepare(comm, collective, what, input, output, count, dtype, op):
    """Checks the arguments the C API cannot check and returns (buffers,
    input pointer, output pointer, count, DataType, RedOp)."""
    if not isinstance(comm, Comm):
        raise TypeError("%s: comm must be a cclc.Comm, not %s" % (what, type(comm).__name__))
    in_elems, out_elems, _ = _SHAPES.get(collective, _SHAPES["AllReduce"])
    src = Buffer(input, "%s: input" % what, writable=output is None)
    dst = src if output is None or output is input else Buffer(output, "%s: output" % what, True)
    for b in (src, dst):
        if b.device != comm.target:
            if b.device == "host":
                raise ValueError("%s is in host memory but rank %d's communicator is on the "
                                 "%s target; pass device memory (a CUDA tensor)"
                                 % (b.what, comm.rank, comm.target))
            raise ValueError("%s is on a CUDA device but rank %d's communicator is on the %s "
                             "target; pass host memory (a CPU tensor, a NumPy array, a buffer)"
                             % (b.what, comm.rank, comm.target))
        if b.device_index is not None and comm.device is not None and b.device_index != comm.device:
            raise ValueError("%s is on cuda:%d but rank %d's communicator uses device %d"
                             % (b.what, b.device_index, comm.rank, comm.device))
    # The element type: the buffers', or dtype= where they have none.
    t = data_type(dtype) if dtype is not None else None
    for b in (src, dst):
        if b.dtype is None:
            continue
        if t is None:
            t = b.dtype
        elif b.dtype != t and not (dtype is not None and b.dtype == DataType.uint8
                                   and _untyped(b)):
            raise TypeError("%s holds %s elements, but the call is for %s%s" % (
                b.what, b.dtype.name, t.name,
                " (dtype=)" if dtype is not None else " (the input's type)"))
    if t is None:
        raise TypeError("%s: the buffers have no element type of their own; pass dtype= "
                        "(one of %s)" % (what, ", ".join(m.name for m in DataType)))
    sizes = []
    for b in (src, dst):
        if b.nbytes % t.size:
            raise ValueError("%s has %d bytes, not a whole number of %s elements (%d bytes each)"
                             % (b.what, b.nbytes, t.name, t.size))
        sizes.append(b.nbytes // t.size)
    n = comm.nranks
    if count is None:
        count = sizes[0] if in_elems(1, n) == 1 else sizes[0] // n
        if in_elems(count, n) != sizes[0]:
            raise ValueError("%s has %d %s elements; the input of %s on %d ranks is %d "
                             "times the count (pass count= to use part of it)"
                             % (src.what, sizes[0], t.name, _a(collective), n, n))
        if out_elems(count, n) != sizes[1]:
            raise ValueError("%s has %d %s elements; %s of %d elements per rank on %d ranks "
                             "writes %d (pass count= to use part of the buffers)"
                             % (dst.what, sizes[1], t.name, _a(collective), count, n,
                                out_elems(count, n)))
    else:
        count = _whole("count", count)
        if count < 0:
            raise ValueError("%s: count is %d" % (what, count))
        for b, need, have in ((src, in_elems(count, n), sizes[0]),
                              (dst, out_elems(count, n), sizes[1])):
            if have < need:
                raise ValueError("%s has %d %s elements; %s of count %d on %d ranks needs %d"
                                 % (b.what, have, t.name, _a(collective), count, n, need))
    try:
        o = red_op(op)
    except ValueError as e:
        raise ValueError("%s: %s" % (what, e)) from None
    return [src] + ([dst] if dst is not src else []), src.pointer, dst.pointer, count, t, o


def _a(collective):
    collective = collective or "AllReduce"
    return ("an " if collective[0] in "AEIOU" else "a ") + collective


def _untyped(b):
    # A bytes-like object (bytearray, bytes, memoryview 'B') that dtype= may
    # reinterpret: only buffers of 1-byte elements without a type of their own.
    return b.torch is None and not hasattr(b.obj, "__array_interface__") and \
        not hasattr(b.obj, "__cuda_array_interface__")


def _stream(comm, buffers, stream):
    if stream is not None:
        return stream_handle(stream)
    if comm.target == "cuda":
        for b in buffers:
            if b.torch is not None and b.device == "cuda":
                import torch  # present: the tensor is one
                return torch.cuda.current_stream(b.torch.device).cuda_stream
    return None


class Algorithm:
    """The entry point ccl_<name> of a generated library.

    alg(comm, input, output=None, *, op="sum", root=None, count=None,
        dtype=None, stream=None)

    runs the algorithm's collective on one rank (see Library's doc for the
    arguments). `plans` lists what the library registered for it (one
    PlanInfo per target); `collective` is the collective's name.
    """

    def __init__(self, library, name, fn, plans):
        self.library = library
        self.name = name
        self.plans = plans
        self.collective = plans[0].collective if plans else None
        rooted = self.collective in ("Broadcast", "Reduce")
        self.rooted = rooted
        fn.restype = ctypes.c_int
        fn.argtypes = ([ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                        ctypes.c_int, ctypes.c_int] + ([ctypes.c_int] if rooted else []) +
                       [ctypes.c_void_p])
        self._fn = fn

    def __repr__(self):
        return "<cclc.Algorithm %s: %s>" % (self.name, self.collective or "no plan registered")

    def __call__(self, comm, input, output=None, *, op="sum", root=None, count=None, dtype=None,
                 stream=None):
        what = "ccl_%s(rank %s)" % (self.name, getattr(comm, "rank", "?"))
        if output is None and self.collective in ("AllGather", "ReduceScatter"):
            raise TypeError("%s: a %s needs an output buffer (in place: pass the output and a "
                            "view of it as the input, NCCL's layout)" % (what, self.collective))
        buffers, inp, out, count, t, o = _prepare(comm, self.collective, what, input, output,
                                                  count, dtype, op)
        args = [comm.handle, inp, out, count, int(t), int(o)]
        if self.rooted:
            args.append(0 if root is None else _whole("root", root))
        elif root is not None:
            raise TypeError("%s: a %s takes no root" % (what, self.collective or "collective"))
        args.append(_stream(comm, buffers, stream))
        code = self._fn(*args)
        if code != 0:
            for b in buffers:
                b.release()
            raise self.library._rt.error("ccl_%s" % self.name, code)
        comm._hold(buffers)


class Library:
    """A loaded generated library (cclc.load).

    lib.algorithms        {name: Algorithm} of its ccl_<name> entry points
    lib.ALGO / lib["ALGO"]  one of them (callable)
    lib.all_reduce(comm, send, recv=None, op="sum", count=None, dtype=None, stream=None)
    lib.all_gather(comm, send, recv, ...), lib.reduce_scatter(comm, send, recv, op=...),
    lib.all_to_all(comm, send, recv=None, ...), lib.broadcast(comm, send, recv=None, root=0),
    lib.reduce(comm, send, recv=None, op="sum", root=0)
                          a bundle's NCCL-shaped entry points (the library
                          picks the algorithm: comm.last_algorithm says which)

    Arguments of every call: `comm` the rank's Comm; the input and output
    buffers (tensors, arrays or buffers; output None: in place, input ==
    output); `op` "sum", "prod", "max", "min"; `count` the elements per
    rank in NCCL's convention (default: from the buffers' sizes, which must
    then match the collective exactly); `dtype` only for buffers without an
    element type (bytearray, a NumPy void array); `stream` a CUstream (default:
    torch's current stream for CUDA tensors, else NULL).
    """

    def __init__(self, path, rt, handle):
        self.path = path
        self._rt = rt
        self._dll = handle
        self.symbols = exported_functions(path)
        self.algorithms = {}
        for sym in self.symbols:
            if sym.startswith("ccl_"):
                name = sym[len("ccl_"):]
                self.algorithms[name] = Algorithm(self, name, getattr(handle, sym),
                                                  _plans(rt, name))
        self.bundle = {sym for sym in self.symbols if sym in _BUNDLE_SYMBOLS}

    def __repr__(self):
        kinds = ", ".join(sorted(self.algorithms))
        return "<cclc.Library %s: %s%s>" % (os.path.basename(self.path), kinds,
                                              "; bundle" if self.bundle else "")

    def __getitem__(self, name):
        try:
            return self.algorithms[name]
        except KeyError:
            raise KeyError("%s has no entry point ccl_%s; it has %s" % (
                self.path, name, ", ".join("ccl_" + a for a in sorted(self.algorithms))
                or "none")) from None

    def __getattr__(self, name):
        if name.startswith("_") or name in _BUNDLE:
            raise AttributeError(name)
        algorithms = self.__dict__.get("algorithms", {})
        if name in algorithms:
            return algorithms[name]
        raise AttributeError("%s has no entry point ccl_%s; it has %s" % (
            self.__dict__.get("path"), name,
            ", ".join("ccl_" + a for a in sorted(algorithms)) or "none"))

    def _bundle_call(self, pyname, comm, send, recv, op, root, count, dtype, stream):
        symbol, collective = _BUNDLE[pyname]
        what = "%s(rank %s)" % (symbol, getattr(comm, "rank", "?"))
        if symbol not in self.bundle:
            raise AttributeError(
                "%s has no entry point %s: NCCL-shaped entry points come with a bundle, "
                "a library compiled from a file with `select` items (stdlib/stdlib.ccl); "
                "call its algorithms instead (%s)" % (
                    self.path, symbol,
                    ", ".join("lib.%s" % a for a in sorted(self.algorithms)) or "none"))
        if recv is None and collective in ("AllGather", "ReduceScatter"):
            raise TypeError("%s: a %s needs a receive buffer" % (what, collective))
        buffers, sp, rp, count, t, o = _prepare(comm, collective, what, send, recv, count,
                                                dtype, op)
        fn = getattr(self._dll, symbol)
        fn.restype = ctypes.c_int
        s = _stream(comm, buffers, stream)
        h = comm.handle
        vp, sz, i = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        if collective in ("AllReduce", "ReduceScatter"):
            fn.argtypes = [vp, vp, sz, i, i, vp, vp]
            code = fn(sp, rp, count, int(t), int(o), h, s)
        elif collective in ("AllGather", "AllToAll"):
            fn.argtypes = [vp, vp, sz, i, vp, vp]
            code = fn(sp, rp, count, int(t), h, s)
        elif collective == "Broadcast":
            fn.argtypes = [vp, vp, sz, i, i, vp, vp]
            code = fn(sp, rp, count, int(t), _whole("root", root), h, s)
        else:  # Reduce
            fn.argtypes = [vp, vp, sz, i, i, i, vp, vp]
            code = fn(sp, rp, count, int(t), int(o), _whole("root", root), h, s)
        if code != 0:
            for b in buffers:
                b.release()
            raise self._rt.error(symbol, code)
        comm._hold(buffers)

    def all_reduce(self, comm, send, recv=None, *, op="sum", count=None, dtype=None, stream=None):
        """cclAllReduce (a bundle's)."""
        self._bundle_call("all_reduce", comm, send, recv, op, 0, count, dtype, stream)

    def all_gather(self, comm, send, recv, *, count=None, dtype=None, stream=None):
        """cclAllGather: recv holds nranks times send."""
        self._bundle_call("all_gather", comm, send, recv, "sum", 0, count, dtype, stream)

    def reduce_scatter(self, comm, send, recv, *, op="sum", count=None, dtype=None, stream=None):
        """cclReduceScatter: send holds nranks times recv."""
        self._bundle_call("reduce_scatter", comm, send, recv, op, 0, count, dtype, stream)

    def all_to_all(self, comm, send, recv=None, *, count=None, dtype=None, stream=None):
        """cclAllToAll: count elements to and from each peer."""
        self._bundle_call("all_to_all", comm, send, recv, "sum", 0, count, dtype, stream)

    def broadcast(self, comm, send, recv=None, *, root=0, count=None, dtype=None, stream=None):
        """cclBroadcast from rank `root`."""
        self._bundle_call("broadcast", comm, send, recv, "sum", root, count, dtype, stream)

    def reduce(self, comm, send, recv=None, *, op="sum", root=0, count=None, dtype=None,
               stream=None):
        """cclReduce to rank `root`."""
        self._bundle_call("reduce", comm, send, recv, op, root, count, dtype, stream)


_loaded = {}


def load(path, runtime_path=None):
    """Loads a generated library (a .so cclc wrote) and returns a Library.

    libcclrt is loaded first if it is not yet (runtime_path, else
    $CCLRT_LIBRARY, else next to the library and in its ../lib, ...; see
    docs/python.md). Loading registers the library's plans: communicators
    created afterwards prepare them; one that exists already needs
    comm.load_registered_plans() on every rank. Loading the same file
    twice returns the same Library.
    """
    path = os.path.abspath(os.fspath(path))
    if not os.path.isfile(path):
        raise FileNotFoundError("no library %s" % path)
    key = os.path.realpath(path)
    if key in _loaded:
        return _loaded[key]
    rt = runtime(runtime_path, library=path)
    # A file cut short would kill the process with SIGBUS when loaded.
    rt.check("cclCheckLibraryFile", rt.cclCheckLibraryFile(os.fsencode(path)))
    handle = ctypes.CDLL(path, mode=os.RTLD_LOCAL | os.RTLD_NOW)
    lib = Library(path, rt, handle)
    _loaded[key] = lib
    return lib
