"""llvm_repository: the installed LLVM/MLIR toolchain as the @llvm repository.

The installation directory is named once, in WORKSPACE. The repository
links its bin/, include/ and lib/ and gets a BUILD file made from
third_party/llvm.BUILD, where %{path} stands for that directory (the
runpath of binaries that link libLLVM.so and libMLIR.so). It also defines
LLVM_PATH in @llvm//:path.bzl, for the few rules that need the directory
itself rather than one of its files.
"""

def _llvm_repository_impl(ctx):
    path = ctx.attr.path
    for entry in ["bin", "include", "lib"]:
        ctx.symlink(path + "/" + entry, entry)
    ctx.template("BUILD.bazel", ctx.attr.build_file, {"%{path}": path})
    ctx.file("path.bzl", "LLVM_PATH = \"%s\"\n" % path)

llvm_repository = repository_rule(
    implementation = _llvm_repository_impl,
    attrs = {
        "path": attr.string(mandatory = True),
        "build_file": attr.label(mandatory = True, allow_single_file = True),
    },
    local = True,
)
