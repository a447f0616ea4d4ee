"""Checks the plans a library compiled for AMDGPU (and others) registers.

Usage: plan_images.py LIB.so OUTDIR TARGET... -- ALGORITHM...

Loads libcclrt and LIB.so (whose constructor registers its plans), looks up
every ALGORITHM's plans (cclPlanLookup) and checks, per plan target, what
cclc's SharedLibrary.cpp promises (docs/compiler.md, "The shared library"):

* one plan per plan target among TARGETs (gfx942 and gfx90a share the
  AMDGPU plan), with threads per block 256 (AMDGPU), 512 (NVPTX), 1 (host);
* the AMDGPU plan's images: one code object (CCL_IMAGE_HSACO) per AMDGPU
  target, in --target order, each naming its architecture; every
  algorithm's AMDGPU plan points at the same image table;
* every kernel symbol of the plans.

Writes each AMDGPU image to OUTDIR/ARCH.hsaco and the kernel symbols to
OUTDIR/kernels.txt (one per line, sorted) for llvm-readelf to check.
"""
import ctypes
import os
import sys

# The structs of ccl/plan.h: scripts/plan_abi.py (beside the repository's
# scripts, as in the runfiles).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
from plan_abi import ABI as CCL_PLAN_ABI, IMAGES as IMAGE_KIND, Plan, cstr, ptr  # noqa: E402

TARGET = {"host": 0, "sm_90": 1, "gfx942": 2, "gfx90a": 2}
THREADS = {0: 1, 1: 512, 2: 256}


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def main():
    lib, outdir = sys.argv[1], sys.argv[2]
    sep = sys.argv.index("--")
    targets, algorithms = sys.argv[3:sep], sys.argv[sep + 1:]
    amd = [t for t in targets if TARGET[t] == 2]
    want_targets = sorted(set(TARGET[t] for t in targets))
    rt = ctypes.CDLL("libcclrt.so", mode=ctypes.RTLD_GLOBAL)
    ctypes.CDLL(os.path.abspath(lib))
    rt.cclPlanLookup.argtypes = [cstr, ctypes.POINTER(ptr), ctypes.c_size_t,
                                 ctypes.POINTER(ctypes.c_size_t)]
    kernels = set()
    amd_images = set()
    for alg in algorithms:
        n = ctypes.c_size_t()
        arr = (ptr * 16)()
        if rt.cclPlanLookup(alg.encode(), arr, 16, ctypes.byref(n)) != 0:
            fail("cclPlanLookup(%s)" % alg)
        plans = [Plan.from_address(p) for p in arr[:n.value]]
        got = sorted(p.target for p in plans)
        if got != want_targets:
            fail("%s: plans for targets %s, expected one each of %s"
                 % (alg, got, want_targets))
        for p in plans:
            if p.abi_version != CCL_PLAN_ABI:
                fail("%s: plan ABI %d" % (alg, p.abi_version))
            images = [(IMAGE_KIND[p.images[i].kind], p.images[i].arch.decode())
                      for i in range(p.num_images)]
            for v in range(p.num_variants):
                var = p.variants[v]
                if var.threads_per_block != THREADS[p.target]:
                    fail("%s: target %d, %d ranks: %d threads per block"
                         % (alg, p.target, var.nranks, var.threads_per_block))
                if p.target == 2:
                    for k in range(var.num_kernels):
                        kernels.add(var.kernels[k].symbol.decode())
            if p.target != 2:
                continue
            want = [("hsaco", t) for t in amd]
            if images != want:
                fail("%s: AMDGPU images %s, expected %s" % (alg, images, want))
            amd_images.add(ctypes.addressof(p.images.contents))
            for i in range(p.num_images):
                img = p.images[i]
                data = ctypes.string_at(img.data, img.size)
                if data[:4] != b"\x7fELF":
                    fail("%s: image %d is not an ELF file" % (alg, i))
                with open(os.path.join(outdir, img.arch.decode() + ".hsaco"), "wb") as f:
                    f.write(data)
    if amd and len(amd_images) != 1:
        fail("the AMDGPU plans point at %d image tables, expected one shared"
             % len(amd_images))
    with open(os.path.join(outdir, "kernels.txt"), "w") as f:
        f.write("".join(k + "\n" for k in sorted(kernels)))
    print("%d algorithms, plans for %s, %d AMDGPU kernels, images %s"
          % (len(algorithms), want_targets, len(kernels), amd))


main()
