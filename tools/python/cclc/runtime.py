"""libcclrt through ctypes: the runtime, communicators and their errors.

One libcclrt per process: the first call that needs it loads it (see
_locate.runtime_candidates), and generated libraries loaded afterwards use it
(their DT_NEEDED libcclrt.so is the soname already loaded).
"""

import ctypes
import operator
import os
import threading

from . import _locate
from ._buffers import stream_handle
from .errors import CclError, RuntimeNotFound

__all__ = ["runtime", "runtime_version", "Comm", "CommGroup", "init_all", "init_rank",
           "init_from_env", "get_unique_id", "env_rank", "UNIQUE_ID_BYTES"]

UNIQUE_ID_BYTES = 128
_TARGETS = {"host": 0, "cuda": 1, "hip": 2}
_TARGET_NAMES = {0: "host", 1: "cuda", 2: "hip"}
_CONFIG_MAGIC = 0xcc1c0f16

_c_comm = ctypes.c_void_p
_c_result = ctypes.c_int


class _UniqueId(ctypes.Structure):
    _fields_ = [("internal", ctypes.c_char * UNIQUE_ID_BYTES)]


class _Config(ctypes.Structure):
    # cclConfig_t (ccl/ccl.h)
    _fields_ = [("size", ctypes.c_size_t), ("magic", ctypes.c_uint),
                ("version", ctypes.c_uint), ("target", ctypes.c_int),
                ("device", ctypes.c_int), ("bootstrap_timeout_ms", ctypes.c_uint64),
                ("deterministic", ctypes.c_int)]


# name: (restype, argtypes) of the C API functions the package calls.
_PROTOTYPES = {
    "cclGetVersion": (_c_result, [ctypes.POINTER(ctypes.c_int)]),
    "cclCheckLibraryFile": (_c_result, [ctypes.c_char_p]),
    "cclGetLastError": (ctypes.c_char_p, []),
    "cclGetErrorString": (ctypes.c_char_p, [_c_result]),
    "cclCommInitAllInProcess": (_c_result, [ctypes.POINTER(_c_comm), ctypes.c_int, ctypes.c_int,
                                            ctypes.POINTER(ctypes.c_int)]),
    "cclGetUniqueId": (_c_result, [ctypes.POINTER(_UniqueId)]),
    "cclCommInitRankConfig": (_c_result, [ctypes.POINTER(_c_comm), ctypes.c_int, _UniqueId,
                                          ctypes.c_int, ctypes.POINTER(_Config)]),
    "cclCommInitFromEnv": (_c_result, [ctypes.POINTER(_c_comm), ctypes.POINTER(_Config)]),
    "cclGetEnvRank": (_c_result, [ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int)]),
    "cclBootstrapAllGather": (_c_result, [_c_comm, ctypes.c_void_p, ctypes.c_void_p,
                                          ctypes.c_size_t]),
    "cclCommAbort": (_c_result, [_c_comm]),
    "cclCommDestroy": (_c_result, [_c_comm]),
    "cclCommRank": (_c_result, [_c_comm, ctypes.POINTER(ctypes.c_int)]),
    "cclCommCount": (_c_result, [_c_comm, ctypes.POINTER(ctypes.c_int)]),
    "cclCommTarget": (_c_result, [_c_comm, ctypes.POINTER(ctypes.c_int)]),
    "cclCommDevice": (_c_result, [_c_comm, ctypes.POINTER(ctypes.c_int)]),
    "cclCommLoadRegisteredPlans": (_c_result, [_c_comm]),
    "cclCommSynchronize": (_c_result, [_c_comm, ctypes.c_void_p]),
    "cclCommGetAsyncError": (_c_result, [_c_comm, ctypes.POINTER(_c_result)]),
    "cclCommSetTimeout": (_c_result, [_c_comm, ctypes.c_uint64]),
    "cclCommLastAlgorithm": (_c_result, [_c_comm, ctypes.POINTER(ctypes.c_char_p)]),
    "cclCommPlanMemory": (_c_result, [_c_comm, ctypes.POINTER(ctypes.c_uint64),
                                      ctypes.POINTER(ctypes.c_uint64),
                                      ctypes.POINTER(ctypes.c_int)]),
    "cclCommUnpreparedPlan": (_c_result, [_c_comm, ctypes.c_int,
                                          ctypes.POINTER(ctypes.c_int),
                                          ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_char_p)]),
    "cclDataTypeSize": (ctypes.c_size_t, [ctypes.c_int]),
    "cclPlanLookup": (_c_result, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                  ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
}


class _Runtime:
    def __init__(self, path):
        self.path = path
        self.dll = ctypes.CDLL(path)
        for name, (restype, argtypes) in _PROTOTYPES.items():
            fn = getattr(self.dll, name)
            fn.restype, fn.argtypes = restype, argtypes
            setattr(self, name, fn)
        v = ctypes.c_int()
        self.check("cclGetVersion", self.cclGetVersion(ctypes.byref(v)))
        self.version_code = v.value

    def error(self, call, code):
        """The CclError of a failed call; call it on the thread that made the
        call, right after it (cclGetLastError is per thread)."""
        message = self.cclGetLastError()
        string = self.cclGetErrorString(code)
        return CclError(call, code, string.decode("utf-8", "replace") if string else "",
                        message.decode("utf-8", "replace") if message else "")

    def check(self, call, code):
        if code != 0:
            raise self.error(call, code)


_runtime = None
_runtime_lock = threading.Lock()


def runtime(path=None, library=None):
    """The loaded libcclrt (loads it on the first call).

    path: the libcclrt.so to load (only before it is loaded; naming another
    one afterwards raises RuntimeNotFound). library: a generated library
    about to be loaded, whose directory and ../lib are searched first.
    """
    global _runtime
    with _runtime_lock:
        if _runtime is not None:
            if path is not None and os.path.realpath(os.fspath(path)) != os.path.realpath(_runtime.path):
                raise RuntimeNotFound(
                    "libcclrt is already loaded from %s; a process uses one libcclrt "
                    "(asked for %s)" % (_runtime.path, os.fspath(path)))
            return _runtime
        candidates = ([(os.fspath(path), "runtime=")] if path is not None
                      else _locate.runtime_candidates(library))
        tried = []
        for cand, where in candidates:
            if os.sep in cand and not os.path.exists(cand):
                tried.append("%s (%s): no such file" % (cand, where))
                continue
            try:
                _runtime = _Runtime(cand)
                return _runtime
            except OSError as e:
                tried.append("%s (%s): %s" % (cand, where, e))
            except AttributeError as e:
                tried.append("%s (%s): not libcclrt (%s)" % (cand, where, e))
        raise RuntimeNotFound("cannot load libcclrt.so; tried " + "; ".join(tried) +
                              "; set CCLRT_LIBRARY to its path")


def runtime_version():
    """The version of the loaded libcclrt as a string ("0.12.0")."""
    code = runtime().version_code
    return "%d.%d.%d" % (code // 10000, code // 100 % 100, code % 100)


def _target_code(target):
    if isinstance(target, int) and not isinstance(target, bool):
        return target  # the runtime checks the value
    if isinstance(target, str):
        t = target.lower()
        if t.startswith("sm_") or t == "gpu":
            t = "cuda"
        if t.startswith("gfx") or t == "amdgpu":
            t = "hip"
        if t in _TARGETS:
            return _TARGETS[t]
    raise ValueError("target %r is not 'host', 'cuda' or 'hip'" % (target,))


class Comm:
    """One rank's communicator handle (cclComm_t).

    A collective launched on it is asynchronous: on the host target it is
    queued on the rank's worker, on CUDA on the stream. Call synchronize()
    before reading a host-target result. The package keeps every buffer of
    a host-target call alive until then.
    """

    def __init__(self, handle, rt):
        self._handle = handle
        self._rt = rt
        self._pending = []  # buffers of queued host-target calls
        self.rank = self._query("cclCommRank")
        self.nranks = self._query("cclCommCount")
        code = self._query("cclCommTarget")
        self.target = _TARGET_NAMES.get(code, str(code))
        device = self._query("cclCommDevice")
        self.device = None if device < 0 else device

    def _query(self, name):
        v = ctypes.c_int()
        self._rt.check(name, getattr(self._rt, name)(self.handle, ctypes.byref(v)))
        return v.value

    @property
    def handle(self):
        """The cclComm_t as an int (for C code of your own)."""
        if self._handle is None:
            raise ValueError("the communicator of rank %s was destroyed" % getattr(self, "rank", "?"))
        return self._handle

    @property
    def destroyed(self):
        return self._handle is None

    def __repr__(self):
        state = "destroyed" if self._handle is None else self.target
        dev = "" if self.device is None else ", device %d" % self.device
        return "<cclc.Comm rank %d of %d, %s%s>" % (self.rank, self.nranks, state, dev)

    def _hold(self, buffers):
        if self.target == "host":
            self._pending.extend(buffers)
        else:
            for b in buffers:
                b.release()

    def _release(self):
        pending, self._pending = self._pending, []
        for b in pending:
            b.release()

    def synchronize(self, stream=None):
        """cclCommSynchronize: waits for the rank's queued work (on `stream`
        on CUDA) and raises the communicator's asynchronous error."""
        code = self._rt.cclCommSynchronize(self.handle, stream_handle(stream))
        if code == 0 or self.target == "host":
            self._release()
        self._rt.check("cclCommSynchronize", code)

    def async_error(self):
        """cclCommGetAsyncError: the communicator's asynchronous error as a
        CclError (not raised), or None."""
        err = _c_result()
        self._rt.check("cclCommGetAsyncError",
                       self._rt.cclCommGetAsyncError(self.handle, ctypes.byref(err)))
        return None if err.value == 0 else self._rt.error("cclCommGetAsyncError", err.value)

    def set_timeout(self, ms):
        """cclCommSetTimeout: the spin-wait timeout of later launches (0: none)."""
        self._rt.check("cclCommSetTimeout", self._rt.cclCommSetTimeout(self.handle, int(ms)))

    def load_registered_plans(self):
        """cclCommLoadRegisteredPlans: prepares the plans of libraries loaded
        after the communicator was created (call it on every rank)."""
        self._rt.check("cclCommLoadRegisteredPlans",
                       self._rt.cclCommLoadRegisteredPlans(self.handle))

    @property
    def last_algorithm(self):
        """The algorithm of the rank's last launch (None before the first)."""
        p = ctypes.c_char_p()
        self._rt.check("cclCommLastAlgorithm",
                       self._rt.cclCommLastAlgorithm(self.handle, ctypes.byref(p)))
        return p.value.decode() if p.value is not None else None

    @property
    def plan_memory(self):
        """cclCommPlanMemory: (scratch bytes, staging bytes, plans) that the
        prepared plans hold on this rank."""
        scratch, staging, plans = ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_int()
        self._rt.check("cclCommPlanMemory",
                       self._rt.cclCommPlanMemory(self.handle, ctypes.byref(scratch),
                                                  ctypes.byref(staging),
                                                  ctypes.byref(plans)))
        return scratch.value, staging.value, plans.value

    @property
    def unprepared_plans(self):
        """cclCommUnpreparedPlan: [(algorithm, why)] of the plans for this
        target that could not be prepared here (the selection skips them)."""
        count = ctypes.c_int()
        self._rt.check("cclCommUnpreparedPlan",
                       self._rt.cclCommUnpreparedPlan(self.handle, 0, ctypes.byref(count),
                                                      None, None))
        out = []
        for i in range(count.value):
            alg, why = ctypes.c_char_p(), ctypes.c_char_p()
            self._rt.check("cclCommUnpreparedPlan",
                           self._rt.cclCommUnpreparedPlan(self.handle, i, None,
                                                          ctypes.byref(alg),
                                                          ctypes.byref(why)))
            if alg.value is not None:
                out.append((alg.value.decode(), (why.value or b"").decode()))
        return out

    def bootstrap_all_gather(self, data):
        """cclBootstrapAllGather: every rank passes `data` (bytes of the same
        length on every rank) and gets the list of all ranks' data. Blocks
        until every rank called it: on an in-process communicator, call it
        from one thread per rank (CommGroup.run(..., threads=True))."""
        data = bytes(data)
        out = ctypes.create_string_buffer(len(data) * self.nranks)
        self._rt.check("cclBootstrapAllGather",
                       self._rt.cclBootstrapAllGather(self.handle, data, out, len(data)))
        raw = out.raw
        return [raw[r * len(data):(r + 1) * len(data)] for r in range(self.nranks)]

    def abort(self):
        """cclCommAbort: stops the communicator's kernels, tells the other
        ranks, and destroys this handle."""
        self._end("cclCommAbort", self._rt.cclCommAbort, self.handle)

    def destroy(self):
        """cclCommDestroy (waits for queued work; a destroyed handle stays
        destroyed, a second call does nothing)."""
        if self._handle is None:
            return
        self._end("cclCommDestroy", self._rt.cclCommDestroy, self._handle)

    def _end(self, name, fn, handle):
        """Ends the handle with cclCommAbort or cclCommDestroy: on success
        it is gone; a failure raises CclError."""
        code = fn(handle)
        if code == 0:
            self._handle = None
            self._release()
        self._rt.check(name, code)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()


class CommGroup(tuple):
    """The ranks of an in-process communicator (cclCommInitAllInProcess):
    a tuple of Comm, rank r at index r."""

    def synchronize(self):
        """Synchronizes every rank; raises the first rank's error after all
        ranks were synchronized."""
        first = None
        for c in self:
            try:
                c.synchronize()
            except CclError as e:
                first = first or e
        if first:
            raise first

    def destroy(self):
        first = None
        for c in self:
            try:
                c.destroy()
            except CclError as e:
                first = first or e
        if first:
            raise first

    def run(self, fn, *per_rank, threads=False, **kwargs):
        """Calls fn(comm, *args, **kwargs) for every rank, where args[i] is
        per_rank[i][rank], and returns the results in rank order.

        Launches are asynchronous and never wait for the other ranks, so one
        thread can issue every rank's collective (threads=False). Calls that
        block until every rank made them (bootstrap_all_gather) need a
        thread per rank: threads=True (ctypes releases the GIL while a C
        function runs). The first exception, in rank order, is raised after
        every rank's call returned.
        """
        for i, seq in enumerate(per_rank):
            if len(seq) != len(self):
                raise ValueError("argument %d of run() has %d items; the group has %d ranks"
                                 % (i + 1, len(seq), len(self)))
        args = [[seq[r] for seq in per_rank] for r in range(len(self))]
        if not threads:
            return [fn(c, *args[c.rank], **kwargs) for c in self]
        results, errors = [None] * len(self), [None] * len(self)

        def body(r):
            try:
                results[r] = fn(self[r], *args[r], **kwargs)
            except BaseException as e:  # re-raised in the caller's thread
                errors[r] = e

        ts = [threading.Thread(target=body, args=(r,), name="cclc-rank-%d" % r)
              for r in range(len(self))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for e in errors:
            if e is not None:
                raise e
        return results

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()


def _whole(what, value):
    """An integer argument: an int (or a numpy integer), never a float or a
    bool that int() would quietly truncate or take."""
    if isinstance(value, bool):
        raise TypeError("%s must be an integer, not %r" % (what, value))
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %r" % (what, value)) from None


def init_all(nranks, target="host", devices=None):
    """cclCommInitAllInProcess: every rank of an `nranks`-rank communicator
    in this process, as a CommGroup. Host target: each rank is a worker
    thread (and a thread per thread block while a kernel runs). CUDA:
    `devices` lists each rank's device ordinal (None: 0..nranks-1).

    Load the generated libraries first: creating the communicator prepares
    the plans registered so far (Comm.load_registered_plans for later ones).
    """
    rt = runtime()
    n = _whole("nranks", nranks)
    comms = (_c_comm * max(n, 1))()
    devs = None
    if devices is not None:
        devices = list(devices)
        if len(devices) != n:
            raise ValueError("devices has %d entries for %d ranks" % (len(devices), n))
        devs = (ctypes.c_int * n)(*[_whole("devices[%d]" % i, d) for i, d in enumerate(devices)])
    rt.check("cclCommInitAllInProcess",
             rt.cclCommInitAllInProcess(comms, n, _target_code(target), devs))
    return CommGroup(Comm(comms[r], rt) for r in range(n))


def get_unique_id():
    """cclGetUniqueId: starts the rendezvous listener in this process and
    returns the job's id (128 bytes) to hand to every rank."""
    rt = runtime()
    uid = _UniqueId()
    rt.check("cclGetUniqueId", rt.cclGetUniqueId(ctypes.byref(uid)))
    return ctypes.string_at(ctypes.addressof(uid), UNIQUE_ID_BYTES)


def _config(target, device, bootstrap_timeout_ms, deterministic=None):
    if deterministic not in (None, True, False):
        raise TypeError("deterministic must be True, False or None (the "
                        "environment's CCL_DETERMINISTIC), not %r" % (deterministic,))
    cfg = _Config(ctypes.sizeof(_Config), _CONFIG_MAGIC, runtime().version_code,
                  -1 if target is None else _target_code(target),
                  -1 if device is None else _whole("device", device),
                  _whole("bootstrap_timeout_ms", bootstrap_timeout_ms or 0),
                  -1 if deterministic is None else int(deterministic))
    return cfg


def init_rank(nranks, unique_id, rank, target=None, device=None, bootstrap_timeout_ms=0,
              deterministic=None):
    """cclCommInitRankConfig: rank `rank` of an `nranks`-rank job that meets
    through `unique_id` (get_unique_id's bytes). Blocks until every rank
    joined. target: "host" or "cuda" (None: CUDA); device: the CUDA ordinal
    (None: the current device). deterministic=True: a bundle serves
    AllReduce, ReduceScatter and Reduce from its deterministic table (the
    same bits at every count; None: CCL_DETERMINISTIC); every rank must
    pass the same."""
    rt = runtime()
    uid_bytes = bytes(unique_id)
    if len(uid_bytes) != UNIQUE_ID_BYTES:
        raise ValueError("unique_id has %d bytes; a cclUniqueId has %d"
                         % (len(uid_bytes), UNIQUE_ID_BYTES))
    uid = _UniqueId()
    ctypes.memmove(ctypes.addressof(uid), uid_bytes, UNIQUE_ID_BYTES)
    comm = _c_comm()
    cfg = _config(target, device, bootstrap_timeout_ms, deterministic)
    rt.check("cclCommInitRankConfig",
             rt.cclCommInitRankConfig(ctypes.byref(comm), _whole("nranks", nranks), uid,
                                      _whole("rank", rank),
                                      ctypes.byref(cfg)))
    return Comm(comm.value, rt)


def init_from_env(target=None, device=None, bootstrap_timeout_ms=0, deterministic=None):
    """cclCommInitFromEnv: this process's rank from its launcher's
    environment (ccl-run, torchrun, mpirun or srun with CCL_COMM_ID;
    docs/runtime.md, "Launchers"). deterministic: as init_rank's."""
    rt = runtime()
    comm = _c_comm()
    cfg = _config(target, device, bootstrap_timeout_ms, deterministic)
    rt.check("cclCommInitFromEnv", rt.cclCommInitFromEnv(ctypes.byref(comm), ctypes.byref(cfg)))
    return Comm(comm.value, rt)


def env_rank():
    """(rank, nranks) as the launcher's environment gives them, or None."""
    rt = runtime()
    r, n = ctypes.c_int(), ctypes.c_int()
    rt.check("cclGetEnvRank", rt.cclGetEnvRank(ctypes.byref(r), ctypes.byref(n)))
    return None if r.value < 0 else (r.value, n.value)
