# Sourced by test/shim/*_test.sh from the runfiles root: the shim on the
# host target (CCL_NCCL_TARGET=host) with the host bundle, the tools of
# //tools:dist, a scratch directory as the working directory, and the
# tests' fail and expect.
source test/skip.sh
root=$PWD
dist=$root/tools/dist
export CCL_NCCL_TARGET=host
export CCL_NCCL_BUNDLE=$root/stdlib/host/libccl_stdlib.so
export LD_LIBRARY_PATH=$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
work=${TEST_TMPDIR:-$(mktemp -d)}
cd "$work"
fail() { echo "FAILED: $*"; exit 1; }
expect() {  # FILE TEXT
  grep -qF -- "$2" "$1" || { cat "$1"; fail "$1 lacks: $2"; }
}
