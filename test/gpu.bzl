"""GPU tests: kernels compiled to PTX with the device library, and test
targets that run only where there is a GPU.

A gpu_test is tagged "manual" and "gpu": `bazel test //...` leaves it out,
and on a machine without a GPU it prints "SKIPPED: no GPU on this machine"
(test/gpu_harness.sh). scripts/test.sh runs them when a GPU is present and
lists them as skipped otherwise.
"""

load("//runtime/device:nvptx.bzl", "NVPTX_CLANG_FLAGS")

_LLC_FLAGS = "-march=nvptx64 -mcpu=sm_90 -mattr=+ptx80"

def ptx_kernels(name, src, entries, out, no_calls = False):
    """PTX `out` for sm_90 from the C kernels of `src`.

    `src` is compiled with the device library's flags, linked with its
    bitcode, internalized except for `entries`, optimised (O3) and compiled
    by llc. With `no_calls`, the build fails if the PTX has a call.
    """
    tmp = "$(@D)/" + name
    cmds = [
        "$(location @llvm//:bin/clang) %s -I$$(dirname $(location //runtime/device:ccl_device.h)) -I$$(dirname $$(dirname $(location //runtime:include/ccl/plan.h))) -emit-llvm -c $(location %s) -o %s.kernels.bc" % (NVPTX_CLANG_FLAGS, src, tmp),
        "$(location @llvm//:bin/llvm-link) %s.kernels.bc $(location //runtime/device:bitcode_nvptx) -o %s.linked.bc" % (tmp, tmp),
        "$(location @llvm//:bin/opt) -passes='internalize,default<O3>' -internalize-public-api-list=%s %s.linked.bc -o %s.opt.bc" % (",".join(entries), tmp, tmp),
        "$(location @llvm//:bin/llc) %s %s.opt.bc -o $@" % (_LLC_FLAGS, tmp),
        "rm %s.*.bc" % tmp,
    ]
    if no_calls:
        cmds.append("if grep -qw call $@; then echo 'PTX has calls' >&2; exit 1; fi")
    native.genrule(
        name = name,
        srcs = [
            src,
            "//runtime/device:bitcode_nvptx",
            "//runtime/device:ccl_device.h",
            "//runtime:include/ccl/plan.h",
        ],
        outs = [out],
        cmd = " && ".join(cmds),
        tools = [
            "@llvm//:bin/clang",
            "@llvm//:bin/llc",
            "@llvm//:bin/llvm-link",
            "@llvm//:bin/opt",
        ],
    )

def gpu_test(name, binary, ptx, **kwargs):
    """Runs `binary` with the path of `ptx` where there is a GPU."""
    native.sh_test(
        name = name,
        srcs = ["//test:gpu_harness.sh"],
        args = ["$(rootpath %s)" % binary, "$(rootpath %s)" % ptx],
        data = [binary, ptx, "//test:skip.sh"],
        tags = ["manual", "gpu"],
        **kwargs
    )
