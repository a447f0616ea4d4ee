"""Checks of the installed cclc package (run by python_test.sh with the
Python of a fresh virtual environment the package was pip-installed into).

Environment: REPO (the repository: stdlib/), WORK (a scratch directory);
cclc and libcclrt are found as a user's program finds them (PATH, the
library's runpath directories, ...).

Buffers: array.array, ctypes arrays, memoryviews of bytearrays, and NumPy
arrays when NumPy is importable (Debian's python3-numpy, which
scripts/setup.sh installs; the venv sees the system's packages), else a
stand-in that exposes __array_interface__ as NumPy does, so the same code
path runs. PyTorch is used when importable (CPU tensors).
"""
import array
import ctypes
import os
import sys
import unittest

import cclc

REPO = os.environ["REPO"]
WORK = os.environ["WORK"]
STDLIB = os.path.join(REPO, "stdlib")

try:
    import numpy
except ImportError:
    numpy = None
try:
    import torch
except ImportError:
    torch = None


class FakeArray:
    """A float32 vector behind __array_interface__ (what NumPy exposes);
    typestr "<f2" makes it a float16 one of zeros."""

    def __init__(self, values, readonly=False, typestr="<f4"):
        if typestr == "<f4":
            self.data = (ctypes.c_float * len(values))(*values)
        else:
            self.data = (ctypes.c_uint16 * len(values))()
        self.__array_interface__ = {
            "shape": (len(values),), "typestr": typestr, "version": 3, "strides": None,
            "data": (ctypes.addressof(self.data), readonly)}

    def __iter__(self):
        return iter(self.data)


def f32(values, kind):
    """A float32 buffer of `values` of one of the kinds the package takes."""
    if kind == "array":
        return array.array("f", values)
    if kind == "ctypes":
        return (ctypes.c_float * len(values))(*values)
    if kind == "memoryview":
        return memoryview(bytearray(array.array("f", values).tobytes())).cast("f")
    if kind == "numpy":
        if numpy is not None:
            return numpy.array(values, dtype=numpy.float32)
        return FakeArray(values)
    if kind == "torch":
        return torch.tensor(values, dtype=torch.float32)
    raise ValueError(kind)


KINDS = ["array", "ctypes", "memoryview", "numpy"] + (["torch"] if torch is not None else [])


def as_list(buf):
    if torch is not None and isinstance(buf, torch.Tensor):
        return buf.tolist()
    return [float(x) for x in buf]


class Libraries:
    """The libraries every test uses, compiled and loaded once, before any
    communicator exists (creating one prepares the plans loaded so far)."""
    ring = bundle = ap2 = None

    @classmethod
    def get(cls):
        if cls.ring is None:
            out = os.path.join(WORK, "py")
            os.makedirs(out, exist_ok=True)
            cls.ring = cclc.load(cclc.compile(
                os.path.join(STDLIB, "allreduce", "ring.ccl"), os.path.join(out, "libring.so"),
                target="host", nranks=range(2, 5), dtype="float32"))
            cls.bundle = cclc.load(cclc.compile(
                os.path.join(STDLIB, "stdlib.ccl"), os.path.join(out, "libccl_stdlib.so"),
                target="host", nranks="2..4", dtype=["float32"]))
            # allpairs_2p_ll for 2 ranks only: the rank-count error below.
            cls.ap2 = cclc.load(cclc.compile(
                os.path.join(STDLIB, "allreduce", "allpairs_2p_ll.ccl"),
                os.path.join(out, "libap2.so"), target="host", nranks=2, dtype="float32"))
        return cls


class CompileTest(unittest.TestCase):
    def test_library_and_header(self):
        so = cclc.compile(os.path.join(STDLIB, "allreduce", "allpairs_ll.ccl"),
                          os.path.join(WORK, "c1", "liballpairs_ll.so"), nranks=[2, 3])
        self.assertTrue(os.path.isfile(so))
        with open(so[:-3] + ".h") as f:
            header = f.read()
        self.assertIn("cclResult_t ccl_allpairs_ll(cclComm_t comm", header)

    def test_roots_per_rank_count(self):
        # A root that depends on the rank count: each variant's own.
        src = ("algorithm bc_last implements Broadcast(root = nranks - 1) {\n"
               "  for i in 1..nranks { input[root][0].copy(output[(root + i) % nranks][0]); }\n"
               "  input[root][0].copy(output[root][0]);\n}\n")
        lib = cclc.load(cclc.compile(src, os.path.join(WORK, "c2", "libbc_last.so"),
                                     nranks=[2, 3, 4]))
        plan = lib.bc_last.plans[0]
        self.assertEqual(plan.roots, {2: 1, 3: 2, 4: 3})
        self.assertEqual(plan.root, 1)

    def test_program_text_error_has_cclc_diagnostic(self):
        src = ("algorithm bad implements AllReduce(inplace) chunks(nranks) {\n"
               "  let x = input[0][nranks];\n}\n")
        with self.assertRaises(cclc.CompileError) as cm:
            cclc.compile(src, nranks=2)
        e = cm.exception
        self.assertEqual(e.returncode, 1)
        self.assertIn("<string>.ccl:2:20: error: chunk 2 of 'input' does not exist "
                      "('input' has 2 chunks)", e.diagnostics)
        self.assertIn("  let x = input[0][nranks];", str(e))

    def test_file_error_names_the_file(self):
        bad = os.path.join(WORK, "bad.ccl")
        with open(bad, "w") as f:
            f.write("algorithm bad implements AllReduce(inplace) chunks(nranks) {\n  oops\n}\n")
        with self.assertRaises(cclc.CompileError) as cm:
            cclc.compile(bad, nranks=2)
        self.assertIn(bad + ":3:1: error: syntax error", cm.exception.diagnostics)

    def test_library_cut_short(self):
        # A partial copy is refused before it is loaded (it killed the
        # process with SIGBUS), with the reason.
        cut = os.path.join(WORK, "cut.so")
        whole = cclc.compile(os.path.join(STDLIB, "allreduce", "ring.ccl"),
                             os.path.join(WORK, "whole.so"), nranks=2)
        with open(whole, "rb") as f, open(cut, "wb") as g:
            g.write(f.read(20000))
        with self.assertRaises(cclc.CclError) as cm:
            cclc.load(cut)
        self.assertIn(cut + ": cut short: its ", str(cm.exception))
        self.assertIn("but the file has 20000 bytes", str(cm.exception))

    def test_missing_file(self):
        with self.assertRaises(FileNotFoundError):
            cclc.compile(os.path.join(WORK, "nothing.ccl"))

    def test_cclc_argument_and_env(self):
        with self.assertRaises(cclc.CclcNotFound) as cm:
            cclc.compile(os.path.join(STDLIB, "allreduce", "ring.ccl"), cclc="/nonexistent/cclc")
        self.assertIn("/nonexistent/cclc", str(cm.exception))
        real = cclc.find_cclc()
        saved = dict(os.environ)
        try:
            os.environ["PATH"] = "/usr/bin:/bin"
            os.environ["CCLC"] = real
            self.assertEqual(cclc.find_cclc(), real)
            os.environ["CCLC"] = os.path.join(WORK, "no-cclc")
            with self.assertRaises(cclc.CclcNotFound) as cm:
                cclc.find_cclc()
            self.assertIn("$CCLC=", str(cm.exception))
        finally:
            os.environ.clear()
            os.environ.update(saved)


class HostAllReduceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.libs = Libraries.get()

    def test_version(self):
        self.assertEqual(cclc.runtime_version(), cclc.__version__)

    def test_plan_info(self):
        ring = self.libs.ring.ring
        self.assertEqual(ring.collective, "AllReduce")
        self.assertEqual(ring.plans[0].ranks, [2, 3, 4])
        self.assertEqual(ring.plans[0].target, "host")
        self.assertEqual(ring.plans[0].kernels, {(cclc.DataType.float32, cclc.RedOp.sum)})

    def run_ring(self, n, calls, counts, in_place_every=2):
        """`calls` ring AllReduces back to back on every rank, no
        synchronisation between them; exact sums checked afterwards."""
        ring = self.libs.ring.ring
        with cclc.init_all(n, target="host") as comms:
            self.assertEqual([c.rank for c in comms], list(range(n)))
            self.assertTrue(all(c.nranks == n and c.target == "host" for c in comms))
            calls_made = []
            for k in range(calls):
                count = counts[k % len(counts)]
                kind = KINDS[k % len(KINDS)]
                ins = [f32([float((r + 1) * ((i + k) % 11)) for i in range(count)], kind)
                       for r in range(n)]
                in_place = k % in_place_every == 0
                outs = None if in_place else [f32([-1.0] * count, kind) for _ in range(n)]
                if in_place:
                    comms.run(ring, ins)
                else:
                    comms.run(ring, ins, outs)
                calls_made.append((k, count, kind, ins, outs))
            comms.synchronize()
            for c in comms:
                self.assertEqual(c.last_algorithm, "ring")
                scratch, staging, plans = c.plan_memory
                self.assertGreaterEqual(plans, 1)
                self.assertGreater(scratch, 0)
                # Plans of the other libraries loaded here that have no
                # variant for n ranks are listed, with why; ring is not.
                for alg, why in c.unprepared_plans:
                    self.assertNotEqual(alg, "ring")
                    self.assertIn("no kernel for %d ranks" % n, why)
        total = n * (n + 1) // 2
        for k, count, kind, ins, outs in calls_made:
            want = [float(total * ((i + k) % 11)) for i in range(count)]
            for r in range(n):
                got = as_list(ins[r] if outs is None else outs[r])
                self.assertEqual(got, want, "call %d (%s, %d elements) rank %d of %d"
                                 % (k, kind, count, r, n))
                if outs is not None:  # out of place: the input is unchanged
                    self.assertEqual(as_list(ins[r]),
                                     [float((r + 1) * ((i + k) % 11)) for i in range(count)])

    def test_ring_2_ranks(self):
        self.run_ring(2, 12, [1000, 1, 4097, 65536])

    def test_ring_3_ranks(self):
        self.run_ring(3, 12, [1000, 2, 3001, 262144])

    def test_ring_4_ranks(self):
        self.run_ring(4, 12, [1000, 7, 4096, 100003])

    def test_bundle(self):
        b = self.libs.bundle
        n = 3
        with cclc.init_all(n) as comms:
            # AllReduce of two sizes: the selection picks two algorithms.
            small = [f32([float(r + i % 5) for i in range(100)], "numpy") for r in range(n)]
            large = [f32([float(r * 2 + i % 3) for i in range(100000)], "array") for r in range(n)]
            comms.run(b.all_reduce, small)
            comms.synchronize()
            algo_small = comms[0].last_algorithm
            comms.run(b.all_reduce, large)
            # AllGather and ReduceScatter, out of place, queued behind it.
            ag_in = [f32([float(10 * r + i) for i in range(5)], "ctypes") for r in range(n)]
            ag_out = [f32([0.0] * (5 * n), "ctypes") for _ in range(n)]
            comms.run(b.all_gather, ag_in, ag_out)
            rs_in = [f32([float(r + i) for i in range(4 * n)], "array") for r in range(n)]
            rs_out = [f32([0.0] * 4, "array") for _ in range(n)]
            comms.run(b.reduce_scatter, rs_in, rs_out)
            comms.synchronize()
            algo_large = comms[0].last_algorithm
        self.assertNotEqual(algo_small, algo_large)
        for r in range(n):
            self.assertEqual(as_list(small[r]), [float(3 + 3 * (i % 5)) for i in range(100)])
            self.assertEqual(as_list(large[r]), [float(6 + 3 * (i % 3)) for i in range(100000)])
            self.assertEqual(as_list(ag_out[r]), [float(10 * q + i) for q in range(n)
                                                  for i in range(5)])
            self.assertEqual(as_list(rs_out[r]), [float(3 * (4 * r + i) + 3) for i in range(4)])

    def test_c_api_errors(self):
        ring, ap2 = self.libs.ring.ring, self.libs.ap2.allpairs_2p_ll
        with cclc.init_all(3) as comms:
            buf = f32([1.0] * 8, "array")
            with self.assertRaises(cclc.CclError) as cm:
                ring(comms[0], buf, stream=1)
            e = cm.exception
            self.assertEqual(e.code, cclc.Result.InvalidArgument)
            self.assertEqual(e.name, "cclInvalidArgument")
            self.assertEqual(e.message, "cclrtLaunch(rank 0, algorithm ring): stream must be "
                                        "NULL on the host target")
            self.assertEqual(str(e), "ccl_ring failed: cclInvalidArgument: invalid argument: "
                                     "cclrtLaunch(rank 0, algorithm ring): stream must be NULL "
                                     "on the host target")
            with self.assertRaises(cclc.CclError) as cm:
                ap2(comms[1], buf)
            self.assertEqual(cm.exception.code, cclc.Result.Unsupported)
            self.assertIn("algorithm allpairs_2p_ll has no kernel for 3 ranks", cm.exception.message)
            with self.assertRaises(cclc.CclError) as cm:  # above --max-bytes (1M)
                ring(comms[2], f32([0.0] * 262145, "array"))
            self.assertEqual(cm.exception.code, cclc.Result.Unsupported)
            self.assertIn("message of 262145 float32 elements (1048580 bytes) exceeds the "
                          "library's limit of 1048576 bytes per rank", cm.exception.message)
            half = FakeArray([0.0] * 8, typestr="<f2")  # float16: not compiled
            with self.assertRaises(cclc.CclError) as cm:
                ring(comms[0], half)
            self.assertIn("no kernel for float16/sum", cm.exception.message)
            with self.assertRaises(cclc.CclError) as cm:
                self.libs.bundle.broadcast(comms[0], buf, root=7)
            self.assertIn("root 7 is not a rank of the 3-rank communicator", cm.exception.message)
            # The communicator still works after refused calls.
            bufs = [f32([float(r)] * 8, "array") for r in range(3)]
            comms.run(ring, bufs)
            comms.synchronize()
            self.assertEqual(as_list(bufs[1]), [3.0] * 8)

    def test_hip_target_without_hip(self):
        # "hip" (or a gfx architecture) reaches libcclrt's HIP target, which
        # says why it cannot load the HIP runtime.
        os.environ["CCL_HIP_LIBRARY"] = "/nonexistent/libamdhip64.so"
        try:
            for target in ("hip", "gfx942"):
                with self.assertRaises(cclc.CclError) as cm:
                    cclc.init_all(2, target=target)
                self.assertEqual(cm.exception.code, cclc.Result.NoDevice)
                self.assertIn("HIP target requested but the HIP runtime could not be loaded: "
                              "cannot load /nonexistent/libamdhip64.so", cm.exception.message)
        finally:
            del os.environ["CCL_HIP_LIBRARY"]
        with self.assertRaises(ValueError):
            cclc.init_all(2, target="tpu")

    def test_python_checks(self):
        ring = self.libs.ring.ring
        with cclc.init_all(2) as comms:
            c = comms[0]
            cases = [
                (lambda: ring(c, memoryview(array.array("f", [0.0] * 8))[::2]), ValueError,
                 "ccl_ring(rank 0): input: the buffer is not C-contiguous"),
                (lambda: ring(c, bytes(16), dtype="float32"), ValueError,
                 "ccl_ring(rank 0): input: the bytes object is read-only"),
                (lambda: ring(c, FakeArray([1.0] * 4, readonly=True)), ValueError,
                 "ccl_ring(rank 0): input: the array is read-only"),
                (lambda: ring(c, array.array("f", [0.0] * 8), array.array("f", [0.0] * 9)),
                 ValueError, "ccl_ring(rank 0): output has 9 float32 elements; an AllReduce "
                             "of 8 elements per rank on 2 ranks writes 8"),
                (lambda: ring(c, array.array("f", [0.0] * 8), array.array("d", [0.0] * 8)),
                 TypeError, "ccl_ring(rank 0): output holds float64 elements, but the call is "
                            "for float32 (the input's type)"),
                (lambda: ring(c, array.array("h", [0] * 8)), TypeError,
                 "ccl_ring(rank 0): input: its element type (format 'h', 2 bytes) has no "
                 "cclDataType_t"),
                (lambda: ring(c, array.array("f", [0.0] * 8), op="avg"), ValueError,
                 "ccl_ring(rank 0): op 'avg' is not one of sum, prod, max, min"),
                (lambda: ring(c, bytearray(10), dtype="float32"), ValueError,
                 "ccl_ring(rank 0): input has 10 bytes, not a whole number of float32 elements"),
                (lambda: ring(c, array.array("f", [0.0] * 4), count=5), ValueError,
                 "ccl_ring(rank 0): input has 4 float32 elements; an AllReduce of count 5 on "
                 "2 ranks needs 5"),
                (lambda: ring(c, array.array("f", [0.0] * 4), count=2.5), TypeError,
                 "count must be an integer, not 2.5"),
                (lambda: cclc.init_all(2.7), TypeError, "nranks must be an integer, not 2.7"),
                (lambda: cclc.init_all(True), TypeError, "nranks must be an integer, not True"),
                (lambda: ring(c, object()), TypeError,
                 "ccl_ring(rank 0): input: object is not a tensor, an array or a buffer"),
                (lambda: self.libs.ring.all_reduce(c, array.array("f", [0.0])), AttributeError,
                 "has no entry point cclAllReduce: NCCL-shaped entry points come with a bundle"),
                (lambda: self.libs.bundle.all_gather(c, array.array("f", [0.0] * 4),
                                                     array.array("f", [0.0] * 4)), ValueError,
                 "cclAllGather(rank 0): output has 4 float32 elements; an AllGather of 4 "
                 "elements per rank on 2 ranks writes 8"),
            ]
            for fn, exc, text in cases:
                with self.assertRaises(exc) as cm:
                    fn()
                self.assertIn(text, str(cm.exception))
            # A bytearray with dtype= is reinterpreted (no Python error).
            raw = [bytearray(array.array("f", [float(r + 1)] * 4).tobytes()) for r in range(2)]
            comms.run(ring, raw, dtype="float32")
            comms.synchronize()
            self.assertEqual(list(array.array("f", bytes(raw[0]))), [3.0] * 4)

    def test_bootstrap_all_gather_needs_a_thread_per_rank(self):
        with cclc.init_all(4) as comms:
            got = comms.run(lambda c: c.bootstrap_all_gather(bytes([c.rank + 65]) * 3),
                            threads=True)
        for r in range(4):
            self.assertEqual(got[r], [b"AAA", b"BBB", b"CCC", b"DDD"])

    def test_destroyed(self):
        comms = cclc.init_all(2)
        comms.destroy()
        comms.destroy()  # a second destroy does nothing
        with self.assertRaises(ValueError) as cm:
            self.libs.ring.ring(comms[0], array.array("f", [0.0]))
        self.assertIn("was destroyed", str(cm.exception))


if __name__ == "__main__":
    print("python %s; numpy %s; torch %s" % (
        sys.version.split()[0], numpy.__version__ if numpy else "not installed (stand-in)",
        torch.__version__ if torch else "not installed"))
    unittest.main(verbosity=2)
