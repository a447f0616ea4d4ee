# The ranks inherit the file descriptors ccl-run inherited, and none of
# ccl-run's own: the signalfd, the rendezvous listener's sockets, the
# other ranks' output pipes (--tag-output). A rank holding one would keep
# it open past ccl-run's end or another rank's.
source "$LAUNCHER_TESTS/lib.sh"

# The descriptors of the process that runs it, with what they are: find
# lists its own, and the one it reads the directory with is left out.
list='exec find /proc/self/fd/ -mindepth 1 -maxdepth 1 -printf "%f %l\n" >fds.${CCL_RANK-base}'
fds() {
  grep -v -e '^[012] ' -e ' /proc/[0-9]*/fd$' "fds.$1" | sort
}
touch marker
# What a program started here without ccl-run gets (whatever the test
# runner passed on, and fd 9).
bash -c "$list" 9<marker >stdout 2>stderr
fds base | grep -qx "9 $WORK/marker" || fail "the baseline lacks fd 9"
for flags in "" "--tag-output"; do
  rm -f fds.[0-9]
  ccl_run -n 3 $flags bash -c "$list" 9<marker
  expect_rc 0
  for r in 0 1 2; do
    [ "$(fds $r)" = "$(fds base)" ] ||
      fail "rank $r ($flags): descriptors differ from a direct start:
$(diff <(fds base) <(fds $r))"
  done
done
fds base
echo PASS
