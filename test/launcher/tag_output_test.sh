# --tag-output: every line a rank writes to stdout or stderr comes out
# whole, on the same stream, with "[R] " in front; an unfinished last line
# gets its newline.
source "$LAUNCHER_TESTS/lib.sh"

ccl_run -n 3 --tag-output bash -c 'echo out $CCL_RANK; echo err $CCL_RANK >&2; printf "last $CCL_RANK"'
expect_rc 0
[ "$(sort <<<"$out")" = "$(printf '[0] last 0\n[0] out 0\n[1] last 1\n[1] out 1\n[2] last 2\n[2] out 2')" ] ||
  fail "stdout: $out"
[ "$(sort <<<"$err")" = "$(printf '[0] err 0\n[1] err 1\n[2] err 2')" ] ||
  fail "stderr: $err"

# Many lines written at once by every rank: none is cut or mixed with
# another rank's.
seq 1 50000 | sed 's/$/ abcdefghijklmnopqrstuvwxyz/' >lines
ccl_run -n 4 --tag-output cat lines
expect_rc 0
for r in 0 1 2 3; do
  diff <(grep "^\[$r\] " "$WORK/stdout" | cut -c5-) lines >/dev/null ||
    fail "rank $r's lines differ from what it wrote"
done
[ "$(wc -l <"$WORK/stdout")" = 200000 ] || fail "$(wc -l <"$WORK/stdout") lines"

# A line longer than 64 KiB is cut into lines of 64 KiB.
head -c 100000 /dev/zero | tr '\0' x >long
echo >>long
ccl_run -n 1 --tag-output cat long
expect_rc 0
lengths=$(awk '{print length($0)}' "$WORK/stdout" | tr '\n' ' ')
[ "$lengths" = "65540 34468 " ] || fail "line lengths: $lengths"

# A failure still gets the output written before it, and ccl-run's own
# message is not tagged.
ccl_run -n 2 --tag-output bash -c 'echo bye $CCL_RANK; [ $CCL_RANK = 1 ] && exit 6; exec sleep 60'
expect_rc 6
grep -qx '\[1\] bye 1' <<<"$out" || fail "stdout: $out"
grep -qx 'ccl-run: rank 1 (pid [0-9]*) exited with status 6; ending the other ranks' <<<"$err" ||
  fail "stderr: $err"

# Without the flag the ranks write to ccl-run's stdout directly.
ccl_run -n 1 bash -c 'echo plain'
expect_out plain
echo PASS
