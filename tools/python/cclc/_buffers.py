"""Data types, reduction operators, and the buffers a collective is given.

A buffer is a PyTorch tensor (its data_ptr(), on the CPU or a CUDA device),
an object with __cuda_array_interface__ (CUDA memory: CuPy, Numba, ...), one
with __array_interface__ (NumPy arrays: their data pointer, as arr.ctypes.data
gives it), or any object with the buffer protocol (array.array, bytearray,
memoryview, ctypes arrays, ...). None of these libraries is imported here:
objects are recognised by what they have.
"""

import ctypes
import enum
import sys

__all__ = ["DataType", "RedOp", "data_type", "red_op", "Buffer", "stream_handle"]


class DataType(enum.IntEnum):
    """cclDataType_t (ccl/types.def): the value is the C API's."""
    float32 = 0
    float16 = 1
    bfloat16 = 2
    int8 = 3
    uint8 = 4
    int32 = 5
    uint32 = 6
    int64 = 7
    uint64 = 8
    float64 = 9
    float8e4m3 = 10
    float8e5m2 = 11

    @property
    def size(self):
        return _SIZES[self]


_SIZES = {
    DataType.float32: 4, DataType.float16: 2, DataType.bfloat16: 2,
    DataType.int8: 1, DataType.uint8: 1, DataType.int32: 4, DataType.uint32: 4,
    DataType.int64: 8, DataType.uint64: 8, DataType.float64: 8,
    DataType.float8e4m3: 1, DataType.float8e5m2: 1,
}

# Names other libraries give the same types (torch.float8_e4m3fn, NumPy's
# "float" is float64, and so on).
_ALIASES = {
    "float": DataType.float64, "double": DataType.float64, "half": DataType.float16,
    "float8_e4m3fn": DataType.float8e4m3, "float8_e5m2": DataType.float8e5m2,
    "f32": DataType.float32, "f16": DataType.float16, "bf16": DataType.bfloat16,
}


class RedOp(enum.IntEnum):
    """cclRedOp_t (ccl/types.def)."""
    sum = 0
    prod = 1
    max = 2
    min = 3


def _names(enum_type):
    return ", ".join(m.name for m in enum_type)


def data_type(spec):
    """A DataType from a DataType, its C value, a name ("float32"), a NumPy
    dtype or a torch dtype."""
    if isinstance(spec, DataType):
        return spec
    if isinstance(spec, bool):
        raise TypeError("dtype must be a name, a DataType, a NumPy or torch dtype, not a bool")
    if isinstance(spec, int):
        try:
            return DataType(spec)
        except ValueError:
            raise ValueError("dtype %d is not a cclDataType_t (0..%d)" % (spec, len(DataType) - 1)) from None
    name = getattr(spec, "name", None) if not isinstance(spec, str) else spec
    if not isinstance(name, str):
        name = str(spec)
    name = name.lower()
    if name.startswith("torch."):
        name = name[len("torch."):]
    if name in DataType.__members__:
        return DataType[name]
    if name in _ALIASES:
        return _ALIASES[name]
    raise ValueError("no cclDataType_t for %r; the types are %s" % (spec, _names(DataType)))


def red_op(spec):
    """A RedOp from a RedOp, its C value or a name ("sum")."""
    if isinstance(spec, RedOp):
        return spec
    if isinstance(spec, int) and not isinstance(spec, bool):
        try:
            return RedOp(spec)
        except ValueError:
            raise ValueError("op %d is not a cclRedOp_t (0..%d)" % (spec, len(RedOp) - 1)) from None
    if isinstance(spec, str) and spec.lower() in RedOp.__members__:
        return RedOp[spec.lower()]
    raise ValueError("op %r is not one of %s" % (spec, _names(RedOp)))


# --- The element type of an array interface's typestr or a buffer's format.

def _from_typestr(typestr):
    """DataType of an __array_interface__ typestr ('<f4'), None when there is
    none (a void or structured type: pass dtype=), or an error message."""
    order, kind, size = typestr[0], typestr[1], int(typestr[2:] or 0)
    native = "<" if sys.byteorder == "little" else ">"
    if order not in ("|", "=", native) and size > 1:
        return "its elements are in non-native byte order (%s)" % typestr
    table = {("f", 8): DataType.float64, ("f", 4): DataType.float32, ("f", 2): DataType.float16,
             ("i", 1): DataType.int8, ("i", 4): DataType.int32, ("i", 8): DataType.int64,
             ("u", 1): DataType.uint8, ("u", 4): DataType.uint32, ("u", 8): DataType.uint64,
             ("b", 1): DataType.uint8}
    if (kind, size) in table:
        return table[(kind, size)]
    if kind == "V":
        return None
    return "its element type %s has no cclDataType_t (the types are %s)" % (typestr, _names(DataType))


_SIGNED = "bhilqn"
_UNSIGNED = "BHILQN?c"


def _from_format(fmt, itemsize):
    """DataType of a buffer-protocol format ('f', '<e', 'B'), None for an
    opaque one, or an error message."""
    f = fmt or "B"
    if f[0] in "@=<>!":
        big = f[0] in ">!"
        if f[0] in "<>!" and itemsize > 1 and big != (sys.byteorder == "big"):
            return "its elements are in non-native byte order (format %r)" % fmt
        f = f[1:]
    if f == "f":
        return DataType.float32
    if f == "d":
        return DataType.float64
    if f == "e":
        return DataType.float16
    if len(f) == 1 and f in _SIGNED + _UNSIGNED:
        signed = f in _SIGNED
        t = {1: (DataType.int8, DataType.uint8), 4: (DataType.int32, DataType.uint32),
             8: (DataType.int64, DataType.uint64)}.get(itemsize)
        if t:
            return t[0] if signed else t[1]
        return "its element type (format %r, %d bytes) has no cclDataType_t (the types are %s)" % (
            fmt, itemsize, _names(DataType))
    return None


class _PyBuffer(ctypes.Structure):
    # Py_buffer (Include/cpython/object.h): the part we read is `buf`.
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.c_void_p),
                ("len", ctypes.c_ssize_t), ("itemsize", ctypes.c_ssize_t),
                ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p),
                ("strides", ctypes.c_void_p), ("suboffsets", ctypes.c_void_p),
                ("internal", ctypes.c_void_p)]


_GetBuffer = ctypes.pythonapi.PyObject_GetBuffer
_GetBuffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_GetBuffer.restype = ctypes.c_int
_ReleaseBuffer = ctypes.pythonapi.PyBuffer_Release
_ReleaseBuffer.argtypes = [ctypes.POINTER(_PyBuffer)]
_ReleaseBuffer.restype = None
_PyBUF_SIMPLE, _PyBUF_WRITABLE = 0, 1


class _Export:
    """A buffer export held while the runtime may use the memory (until the
    communicator is synchronized): the object cannot be resized meanwhile."""

    def __init__(self, obj, writable):
        self.view = _PyBuffer()
        _GetBuffer(obj, ctypes.byref(self.view), _PyBUF_WRITABLE if writable else _PyBUF_SIMPLE)
        self.held = True

    @property
    def pointer(self):
        return self.view.buf or 0

    def release(self):
        if self.held:
            self.held = False
            _ReleaseBuffer(ctypes.byref(self.view))

    def __del__(self):
        self.release()


def _is_torch(obj):
    return type(obj).__module__.split(".")[0] == "torch" and hasattr(obj, "data_ptr")


class Buffer:
    """One argument buffer of a collective, as the C API gets it.

    pointer, nbytes, dtype (DataType or None when the object has no element
    type of its own), device ("host" or "cuda"), device_index (CUDA ordinal
    or None), torch (the tensor, for its current stream), keep (what must
    stay alive while the call runs).
    """

    def __init__(self, obj, what, writable):
        self.obj = obj
        self.what = what
        self.keep = [obj]
        self.torch = None
        self.device_index = None
        if _is_torch(obj):
            self._torch(obj)
        elif hasattr(obj, "__cuda_array_interface__"):
            self._interface(obj.__cuda_array_interface__, "cuda", writable)
            self.device = "cuda"
        elif hasattr(obj, "__array_interface__") and isinstance(
                obj.__array_interface__.get("data"), tuple):
            self._interface(obj.__array_interface__, "host", writable)
            dtype_name = getattr(getattr(obj, "dtype", None), "name", None)
            if self.dtype is None and dtype_name:  # ml_dtypes' bfloat16, float8_*
                try:
                    self.dtype = data_type(dtype_name)
                except ValueError:
                    pass
        else:
            self._buffer(obj, writable)

    def _fail(self, why, exc=ValueError):
        raise exc("%s: %s" % (self.what, why))

    def _torch(self, t):
        self.torch = t
        if t.is_sparse if hasattr(t, "is_sparse") else False:
            self._fail("a sparse tensor has no contiguous data")
        if not t.is_contiguous():
            self._fail("the tensor is not contiguous (strides %s); pass t.contiguous()"
                       % (tuple(t.stride()),))
        try:
            self.dtype = data_type(t.dtype)
        except ValueError:
            self._fail("the tensor's %s has no cclDataType_t (the types are %s)"
                       % (t.dtype, _names(DataType)), TypeError)
        self.nbytes = t.numel() * t.element_size()
        self.pointer = t.data_ptr()
        if t.device.type == "cuda":
            self.device, self.device_index = "cuda", t.device.index
        elif t.device.type == "cpu":
            self.device = "host"
        else:
            self._fail("the tensor is on %s; libcclrt runs on the host and on CUDA devices"
                       % t.device)

    def _interface(self, ai, device, writable):
        self.device = device
        ptr, readonly = ai["data"]
        if writable and readonly:
            self._fail("the array is read-only; the collective writes it")
        shape = tuple(ai["shape"])
        typestr = ai["typestr"]
        itemsize = int(typestr[2:] or 0)
        n = 1
        for s in shape:
            n *= s
        strides = ai.get("strides")
        if strides is not None and n > 1:
            want, step = [], itemsize
            for s in reversed(shape):
                want.append(step)
                step *= s
            want.reverse()
            if any(d > 1 and a != b for d, a, b in zip(shape, strides, want)):
                self._fail("the array is not C-contiguous (strides %s, shape %s); pass a "
                           "contiguous copy (numpy.ascontiguousarray)" % (tuple(strides), shape))
        t = _from_typestr(typestr)
        if isinstance(t, str):
            self._fail(t, TypeError)
        self.dtype = t
        self.nbytes = n * itemsize
        self.pointer = ptr or 0

    def _buffer(self, obj, writable):
        try:
            mv = memoryview(obj)
        except TypeError:
            self._fail("%s is not a tensor, an array or a buffer (it has neither data_ptr(), "
                       "__array_interface__, __cuda_array_interface__ nor the buffer protocol)"
                       % type(obj).__name__, TypeError)
        self.device = "host"
        if writable and mv.readonly:
            self._fail("the %s object is read-only; the collective writes it (pass a "
                       "writable buffer, or an output)" % type(obj).__name__)
        if not mv.c_contiguous:
            self._fail("the buffer is not C-contiguous (strides %s); pass a contiguous copy"
                       % (mv.strides,))
        t = _from_format(mv.format, mv.itemsize)
        if isinstance(t, str):
            self._fail(t, TypeError)
        self.dtype = t
        self.nbytes = mv.nbytes
        export = _Export(obj, writable)
        self.keep.append(export)
        self.export = export
        self.pointer = export.pointer

    def release(self):
        export = getattr(self, "export", None)
        if export is not None:
            export.release()


def stream_handle(stream):
    """A CUstream as an int (0: NULL) from None, an int, a torch.cuda.Stream
    (.cuda_stream), a CuPy stream (.ptr) or a ctypes.c_void_p."""
    if stream is None:
        return None
    if isinstance(stream, bool):
        raise TypeError("stream must be None, an int (CUstream), a torch.cuda.Stream or a "
                        "ctypes.c_void_p, not a bool")
    if isinstance(stream, int):
        return stream
    if isinstance(stream, ctypes.c_void_p):
        return stream.value or 0
    for attr in ("cuda_stream", "ptr", "handle"):
        v = getattr(stream, attr, None)
        if isinstance(v, int):
            return v
    raise TypeError("stream must be None, an int (CUstream), a torch.cuda.Stream or a "
                    "ctypes.c_void_p, not %s" % type(stream).__name__)
