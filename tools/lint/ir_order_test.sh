#!/usr/bin/env bash
# Tests that the tree's compiler has no call whose arguments build IR in an
# order the host compiler picks (ir_order.py), and that the check reports a
# planted one (the call d7b9634 fixed, and one through a builder the file
# declares under another name) and leaves braced lists, one
# building argument and comments alone.
set -euo pipefail
script=$(readlink -f "$1")
root=$(cd "$(dirname "$script")/../.." && pwd)
if ! git -C "$root" rev-parse --git-dir > /dev/null 2>&1; then
  echo "SKIPPED: $root is not a git checkout; the check reads its tracked files"
  exit 0
fi
python3 "$script" "$root" || { echo "FAILED: the calls above build IR in the host compiler's order"; exit 1; }

tree=${TEST_TMPDIR:-$(mktemp -d)}/planted
mkdir -p "$tree"
cat > "$tree/bad.cpp" <<'CPP'
Value f(OpBuilder &b, Location loc) {
  return LLVM::SelectOp::create(
      b, loc, inRange,
      loadEntry(b, loc, tables.address(b, loc, name, programOf), at),
      i32(b, loc, -1));
}
void h(Block *entry) {
  OpBuilder cb = OpBuilder::atBlockEnd(entry);
  store(cb, loc, load(cb, loc, p), i32(cb, loc, 0));
  char q = '"'; g(i32(cb, loc, 1), i32(cb, loc, 2)); char r = '"';
}
CPP
cat > "$tree/good.cpp" <<'CPP'
Value g(OpBuilder &b, Location loc) {
  callLib(b, loc, "f", {i32(b, loc, 1), i32(b, loc, 2)});
  Value none = i32(b, loc, -1);
  // f(i32(b, loc, 1), i32(b, loc, 2)) in a comment
  log("i32(b, loc, 1), i32(b, loc, 2)");
  return LLVM::SelectOp::create(b, loc, inRange, load(b, loc, at), none);
}
CPP
if python3 "$script" "$tree" bad.cpp > "$tree/bad.txt"; then
  cat "$tree/bad.txt"; echo "FAILED: the planted call was not reported"; exit 1
fi
# The second and third through a builder named where the file declares
# it, the third between quote characters (not a string).
for at in 2 9 10; do
  grep -q "bad.cpp:$at: 2 arguments build IR" "$tree/bad.txt" ||
    { cat "$tree/bad.txt"; echo "FAILED: the report does not name bad.cpp:$at"; exit 1; }
done
python3 "$script" "$tree" good.cpp > "$tree/good.txt" ||
  { cat "$tree/good.txt"; echo "FAILED: a call with one building argument, or a braced list, was reported"; exit 1; }
echo "ok: the tree, a planted call, and what is left alone"
