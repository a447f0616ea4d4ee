"""mlir_tblgen: run the system mlir-tblgen (LLVM 22) over a .td file."""

def mlir_tblgen(name, src, td_srcs, outs, includes = []):
    """Generates each key of `outs` with the mlir-tblgen flags of its value."""
    cmds = []
    for out, flags in outs.items():
        cmds.append(
            "/usr/lib/llvm-22/bin/mlir-tblgen %s -I /usr/lib/llvm-22/include -I $$(dirname $(location %s))/../.. %s $(location %s) -o $(location %s)" %
            (flags, src, " ".join(["-I " + i for i in includes]), src, out),
        )
    native.genrule(
        name = name,
        srcs = [src] + [t for t in td_srcs if t != src],
        outs = list(outs.keys()),
        cmd = " && ".join(cmds),
    )
