#!/usr/bin/env python3
"""Prints the plans a cclc library registers, as text that diffs well.

  scripts/plan-dump.py LIB.so [ALGORITHM...]

Loads libcclrt.so (from LD_LIBRARY_PATH) and LIB.so, whose constructor
registers its plans, and prints for each ALGORITHM (default: every
`ccl_<name>(` entry point the header LIB.h beside it declares) each plan
(cclPlanLookup): target, collective, forms, chunks, protocol, largest
message, root; per variant its rank count, thread blocks, threads per
block, chunks, root (rooted collectives), scratch buffers, kernels (type, operator, symbol),
channels, semaphores and barriers; the operation table's size; and the
images (kind, architecture, bytes; no addresses, no image bytes).
scripts/codegen-snapshot.sh writes one per library so that two snapshots
show what changed in the plans. The structs are those of ccl/plan.h at
ABI 8 (a plan of another ABI is reported, not read).
"""
import ctypes
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plan_abi import (ABI, CHANNELS, DTYPES, IMAGES, INPLACE, OPS,  # noqa: E402
                      TARGETS, Plan, cstr, ptr)


def s(b):
    return b.decode() if b is not None else "(null)"


def dump(plan):
    out = []
    if plan.abi_version != ABI:
        return ["  plan of ABI %d (this dump reads ABI %d)" % (plan.abi_version, ABI)]
    out.append("  plan %s: %s, %s, chunks %d, %s, max_bytes %d, root %d, %d ops" % (
        TARGETS.get(plan.target, plan.target), s(plan.collective),
        INPLACE.get(plan.inplace, plan.inplace), plan.chunks,
        "LL" if plan.protocol else "Simple", plan.max_bytes, plan.root, plan.num_ops))
    for i in range(plan.num_variants):
        v = plan.variants[i]
        out.append("    variant %d ranks: %d blocks x %d threads, chunks %d%s" % (
            v.nranks, v.nblocks, v.threads_per_block, v.chunks,
            ", root %d" % (v.root_plus_one - 1) if v.root_plus_one else ""))
        for j in range(v.num_scratch):
            sc = v.scratch[j]
            out.append("      scratch %s: %d slots%s" % (
                s(sc.name), sc.slots, " (packets)" if sc.packets else ""))
        for j in range(v.num_kernels):
            k = v.kernels[j]
            out.append("      kernel %s/%s: %s%s" % (
                DTYPES.get(k.dtype, k.dtype), OPS.get(k.op, k.op), s(k.symbol),
                " (host function)" if k.fn else ""))
        for j in range(v.num_channels):
            c = v.channels[j]
            out.append("      channel %d: %d -> %d, %s, credit %d" % (
                j, c.src, c.dst, CHANNELS.get(c.kind, c.kind), c.credit))
        for j in range(v.num_semaphores):
            out.append("      semaphore %d: rank %d" % (j, v.semaphores[j].rank))
        for j in range(v.num_barriers):
            b = v.barriers[j]
            out.append("      barrier %d: rank %d, %d blocks" % (j, b.rank, b.nblocks))
    for i in range(plan.num_images):
        img = plan.images[i]
        out.append("    image %s %s: %d bytes" % (
            IMAGES.get(img.kind, img.kind), s(img.arch), img.size))
    return out


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 2
    lib = os.path.abspath(sys.argv[1])
    algorithms = sys.argv[2:]
    if not algorithms:
        header = re.sub(r"\.so$", ".h", lib)
        if not os.path.exists(header):
            print("plan-dump: no algorithms given and no header %s" % header, file=sys.stderr)
            return 2
        algorithms = re.findall(r"^cclResult_t ccl_(\w+)\(", open(header).read(), re.M)
    rt = ctypes.CDLL("libcclrt.so", mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL(lib)
    rt.cclPlanLookup.argtypes = [cstr, ctypes.POINTER(ptr), ctypes.c_size_t,
                                 ctypes.POINTER(ctypes.c_size_t)]
    rc = 0
    for alg in algorithms:
        n = ctypes.c_size_t()
        arr = (ptr * 16)()
        if rt.cclPlanLookup(alg.encode(), arr, 16, ctypes.byref(n)) != 0:
            print("%s: cclPlanLookup failed" % alg)
            rc = 1
            continue
        print("%s: %d plans" % (alg, n.value))
        plans = sorted((Plan.from_address(p) for p in arr[:n.value]), key=lambda p: p.target)
        for p in plans:
            print("\n".join(dump(p)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
