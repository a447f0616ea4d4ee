# cclc on a full file system: the output's (ld.lld, which maps its output,
# used to die of SIGBUS with its crash dump), TMPDIR's (LLVM's stream used
# to abort with "IO failure on output stream"), and a device that is always
# full. Each is one clear error naming the place, exit status 1, and
# nothing left behind. The small file systems are tmpfs mounts in a user
# and mount namespace of this test (unshare -rm); where the kernel allows
# none, the test says SKIPPED.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! unshare -rm true 2>/dev/null; then
  echo "SKIPPED: no user and mount namespace (unshare -rm) for a small file system"
  exit 0
fi
src=$REPO/stdlib/allreduce/ring.ccl

# expect_full NAME PATTERN CCLC-ARGS...: cclc fails with PATTERN, no crash.
expect_full() {
  local name=$1 pattern=$2
  shift 2
  if cclc "$src" --target=host --nranks=2..4 "$@" > "$WORK/$name.out" 2>&1; then
    fail "$name: cclc succeeded"
  fi
  cat "$WORK/$name.out"
  grep -q -- "$pattern" "$WORK/$name.out" || fail "$name: no '$pattern'"
  if grep -qE "Bus error|PLEASE submit|LLVM ERROR|Stack dump" "$WORK/$name.out"; then
    fail "$name: a crash report"
  fi
}

export -f expect_full fail
export src WORK
unshare -rm bash -euo pipefail -c '
  mkdir -p "$WORK/small" "$WORK/tiny" "$WORK/tmp" "$WORK/one"
  # An output file system of 40 KiB: the library needs about 77 KiB.
  mount -t tmpfs -o size=40k tmpfs "$WORK/small"
  expect_full small "no space left on the file system of .*/small.: [0-9]* bytes are free, and the library needs about [0-9]*; nothing was written" -o "$WORK/small/ring.so"
  test -z "$(ls -A "$WORK/small")" || { ls -la "$WORK/small"; fail "small: files left behind"; }
  # One page free: the same, also for a library in a folder of it.
  mount -t tmpfs -o size=4k tmpfs "$WORK/tiny"
  mkdir "$WORK/tiny/lib"
  expect_full tiny "no space left on the file system of .*/tiny/lib.:" -o "$WORK/tiny/lib/ring.so"
  test -z "$(ls -A "$WORK/tiny/lib")" || fail "tiny: files left behind"
  # A full TMPDIR: the objects cclc hands to ld.lld cannot be written.
  mount -t tmpfs -o size=8k tmpfs "$WORK/tmp"
  TMPDIR=$WORK/tmp expect_full tmpdir "cannot write .*/tmp/cclc-.*: No space left on device" -o "$WORK/ring.so"
  test -z "$(ls -A "$WORK/tmp")" || { ls -la "$WORK/tmp"; fail "tmpdir: temporary files left behind"; }
  test ! -e "$WORK/ring.so" || fail "tmpdir: a library was written"
  # A device that is always full (written in place, as /dev/null is).
  expect_full devfull "no space left on the device of ./dev/full. (ld.lld could not write the library); nothing was written" -o /dev/full
  # Room enough: the same compile succeeds.
  mount -t tmpfs -o size=1m tmpfs "$WORK/one"
  cclc "$src" --target=host --nranks=2..4 -o "$WORK/one/ring.so"
  test -s "$WORK/one/ring.so" && test -s "$WORK/one/ring.h"
'
echo "full disk: 4 cases refused with their message, 1 compile with room: ok"
