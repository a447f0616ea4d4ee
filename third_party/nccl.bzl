# The NCCL that libcclnccl.so (//shim) is built against: nccl.h and the CUDA
# headers it includes, and libnccl.so.2 for the export-list test. Searched
# in $NCCL_HOME/include, $CUDA_HOME/include, /usr/local/cuda/include,
# /usr/include, /usr/local/include (libnccl.so.2 in their ../lib, lib64 and
# /usr/lib/x86_64-linux-gnu). Without nccl.h, @nccl//:defs.bzl says
# HAVE_NCCL = False and the shim's targets are not defined (CUDA and NCCL
# are optional; docs/nccl-shim.md).

def _find(ctx, dirs, name):
    for d in dirs:
        if d and ctx.path(d + "/" + name).exists:
            return d
    return None

def _nccl_repository_impl(ctx):
    env = ctx.os.environ
    roots = [env.get("NCCL_HOME", ""), env.get("CUDA_HOME", ""), "/usr/local/cuda", "/usr", "/usr/local"]
    incs = [r + "/include" for r in roots if r]
    nccl_inc = _find(ctx, incs, "nccl.h")
    cuda_inc = _find(ctx, incs, "cuda_runtime.h")
    libs = []
    for r in roots:
        if r:
            libs += [r + "/lib", r + "/lib64"]
    libs.append("/usr/lib/x86_64-linux-gnu")
    lib_dir = _find(ctx, libs, "libnccl.so.2")
    have = nccl_inc != None and cuda_inc != None
    build = ['package(default_visibility = ["//visibility:public"])']
    if have:
        ctx.symlink(nccl_inc + "/nccl.h", "nccl_include/nccl.h")
        ctx.symlink(cuda_inc, "cuda_include")
        build.append("""cc_library(
    name = "headers",
    hdrs = ["nccl_include/nccl.h"] + glob(["cuda_include/*.h", "cuda_include/*.hpp", "cuda_include/crt/**", "cuda_include/nv/**"]),
    includes = ["nccl_include", "cuda_include"],
)""")
        build.append('exports_files(["nccl_include/nccl.h"])')
    if lib_dir:
        ctx.symlink(lib_dir + "/libnccl.so.2", "lib/libnccl.so.2")
        build.append('exports_files(["lib/libnccl.so.2"])')
    ctx.file("BUILD", "\n".join(build) + "\n")
    ctx.file("defs.bzl", "HAVE_NCCL = %s\nHAVE_NCCL_LIB = %s\nNCCL_H = %r\n" % (
        have,
        lib_dir != None,
        (nccl_inc + "/nccl.h") if nccl_inc else "",
    ))

nccl_repository = repository_rule(
    implementation = _nccl_repository_impl,
    environ = ["NCCL_HOME", "CUDA_HOME"],
    local = True,
)
