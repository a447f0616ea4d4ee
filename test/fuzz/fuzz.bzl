"""ccl_fuzzer: a libFuzzer binary of test/fuzz (scripts/fuzz.sh builds it)."""

def ccl_fuzzer(name, srcs, deps, copts = []):
    """A libFuzzer target, built only with --config=fuzz (clang).

    --config=fuzz compiles everything with -fsanitize=fuzzer-no-link and
    links with ASan/UBSan; only these binaries get libFuzzer's main. Tagged
    "manual" so that `bazel build //...` with the default gcc toolchain,
    which has no libFuzzer, leaves them out.
    """
    native.cc_binary(
        name = name,
        srcs = srcs,
        copts = copts,
        linkopts = ["-fsanitize=fuzzer,address,undefined"],
        tags = ["manual"],
        deps = deps,
    )
