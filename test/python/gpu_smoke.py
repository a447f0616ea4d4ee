"""GPU smoke check of the package (manual; needs an NVIDIA GPU and a ring
library compiled for sm_90 at 2 ranks): two ranks on GPU 0, each on its own
stream, buffers in device memory behind __cuda_array_interface__ (torch
CUDA tensors instead when torch is installed), 6 calls back to back.

    cclc stdlib/allreduce/ring.ccl --target=sm_90 --nranks=2 --dtype=float32 -o DIR/libring_gpu.so
    cclc stdlib/allreduce/ring.ccl --target=host --nranks=3 --dtype=float32 -o DIR/libring_host.so
    CCLRT_LIBRARY=.../libcclrt.so python test/python/gpu_smoke.py DIR/libring_gpu.so [DIR/libring_host.so]
"""
import ctypes
import sys

import cclc

try:
    import torch
except ImportError:
    torch = None

cu = ctypes.CDLL("libcuda.so.1")


def ck(r, what):
    if r != 0:
        raise RuntimeError("%s: CUresult %d" % (what, r))


class DeviceArray:
    """float32 device memory with __cuda_array_interface__."""

    def __init__(self, n):
        self.n = n
        p = ctypes.c_uint64()
        ck(cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(4 * n)), "cuMemAlloc")
        self.ptr = p.value
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": "<f4", "version": 3,
                                         "data": (self.ptr, False), "strides": None}

    def upload(self, values):
        a = (ctypes.c_float * self.n)(*values)
        ck(cu.cuMemcpyHtoD_v2(ctypes.c_uint64(self.ptr), a, ctypes.c_size_t(4 * self.n)), "HtoD")

    def download(self):
        a = (ctypes.c_float * self.n)()
        ck(cu.cuMemcpyDtoH_v2(a, ctypes.c_uint64(self.ptr), ctypes.c_size_t(4 * self.n)), "DtoH")
        return list(a)


lib = cclc.load(sys.argv[1])
n, calls, count = 2, 6, 4099
comms = cclc.init_all(n, target="cuda", devices=[0, 0])
print(comms)
ck(cu.cuInit(0), "cuInit")
dev = ctypes.c_int()
ck(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p()
ck(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "retain")
ck(cu.cuCtxSetCurrent(ctx), "setcurrent")
streams = []
for r in range(n):
    s = ctypes.c_void_p()
    ck(cu.cuStreamCreate(ctypes.byref(s), 1), "cuStreamCreate")  # non-blocking
    streams.append(s.value)
bufs = []
for k in range(calls):
    row = []
    for r in range(n):
        b = DeviceArray(count)
        b.upload([float((r + 1) * ((i + k) % 7)) for i in range(count)])
        row.append(b)
    bufs.append(row)
for k in range(calls):
    for r in range(n):
        lib.ring(comms[r], bufs[k][r], stream=streams[r])
for r in range(n):
    comms[r].synchronize(streams[r])
total = n * (n + 1) // 2
wrong = sum(x != total * ((i + k) % 7) for k in range(calls) for r in range(n)
            for i, x in enumerate(bufs[k][r].download()))
print("__cuda_array_interface__: %d calls x %d ranks on GPU 0: %d wrong" % (calls, n, wrong))
try:
    lib.ring(comms[0], bufs[0][0])  # NULL stream on a shared GPU
except cclc.CclError as e:
    print("expected:", e)
try:
    lib.ring(comms[0], bytearray(16), dtype="float32", stream=streams[0])
except ValueError as e:
    print("expected:", e)
if torch is not None:
    # torch CUDA tensors, each rank's calls on a torch stream of its own (the
    # package takes torch's current stream), back to back.
    ss = [torch.cuda.Stream(device=0) for _ in range(n)]
    ts = [[torch.tensor([float((r + 1) * ((i + k) % 7)) for i in range(count)],
                        device="cuda:0") for r in range(n)] for k in range(calls)]
    torch.cuda.synchronize()
    for k in range(calls):
        for r in range(n):
            with torch.cuda.stream(ss[r]):
                lib.ring(comms[r], ts[k][r])
    torch.cuda.synchronize()
    twrong = sum(int((ts[k][r].cpu() != torch.tensor(
        [float(total * ((i + k) % 7)) for i in range(count)])).sum())
        for k in range(calls) for r in range(n))
    print("torch %s CUDA tensors: %d calls x %d ranks on GPU 0: %d wrong"
          % (torch.__version__, calls, n, twrong))
    wrong += twrong
    if len(sys.argv) > 2:  # a host-target ring library: torch CPU tensors
        host = cclc.load(sys.argv[2])
        with cclc.init_all(3, target="host") as hc:
            cts = [[torch.full((1001,), float(r + k), dtype=torch.float32) for r in range(3)]
                   for k in range(calls)]
            for k in range(calls):
                hc.run(host.ring, cts[k])
            hc.synchronize()
        hwrong = sum(int((cts[k][r] != float(3 + 3 * k)).sum())
                     for k in range(calls) for r in range(3))
        print("torch CPU tensors, host target: %d calls x 3 ranks: %d wrong" % (calls, hwrong))
        wrong += hwrong
else:
    print("torch not installed")
comms.destroy()
sys.exit(1 if wrong else 0)
