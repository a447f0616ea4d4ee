"""mlir_tblgen: run mlir-tblgen of @llvm over a .td file."""

load("@llvm//:path.bzl", "LLVM_PATH")

def mlir_tblgen(name, src, td_srcs, outs, includes = []):
    """Generates each key of `outs` with the mlir-tblgen flags of its value."""
    cmds = []
    for out, flags in outs.items():
        cmds.append(
            "$(location @llvm//:bin/mlir-tblgen) %s -I %s/include -I $$(dirname $(location %s))/../.. %s $(location %s) -o $(location %s)" %
            (flags, LLVM_PATH, src, " ".join(["-I " + i for i in includes]), src, out),
        )
    native.genrule(
        name = name,
        srcs = [src] + [t for t in td_srcs if t != src],
        outs = list(outs.keys()),
        cmd = " && ".join(cmds),
        tools = ["@llvm//:bin/mlir-tblgen"],
    )
