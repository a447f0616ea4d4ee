# Ctrl-C on a terminal: the terminal sends SIGINT to its foreground process
# group, ccl-run and its ranks; ccl-run does not send it again, so each
# rank gets exactly one (a second one would cut short a graceful
# shutdown). Runs ccl-run on a pseudo-terminal with Python's pty module.
source "$LAUNCHER_TESTS/lib.sh"
source "$LAUNCHER_TESTS/../skip.sh"
command -v python3 >/dev/null || skip "no python3 for the pseudo-terminal"

cat >pty_run.py <<'PY'
import os, pty, sys, time
try:
    pid, fd = pty.fork()
except OSError as e:
    print(e)
    sys.exit(77)  # no pseudo-terminals here
if pid == 0:
    os.execvp("ccl-run", ["ccl-run", "-n", "3", "bash", "-c", sys.argv[1]])
deadline = time.time() + 10
while len([f for f in os.listdir(".") if f.startswith("ready.")]) < 3:
    if time.time() > deadline:
        sys.exit("the ranks did not start")
    time.sleep(0.05)
os.write(fd, b"\x03")  # Ctrl-C, as typed
try:
    while os.read(fd, 4096):
        pass
except OSError:  # EIO: the terminal's other side closed
    pass
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
PY
# Each rank blocks SIGINT and takes every SIGINT it gets for a second
# after the first one with sigwaitinfo, noting who sent it: 0 for the
# terminal (SI_KERNEL), else the sender's pid. A SIGINT that ccl-run
# forwarded would come from ccl-run's pid. Two SIGINTs pending at once
# merge into one, so a ccl-run that forwarded it would fail this test in
# about half of the runs (measured), not in every one.
cat >rank.py <<'PY'
import os, signal, time
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGINT])
rank = os.environ["CCL_RANK"]
open("ready." + rank, "w").close()
senders, deadline = [], None
while deadline is None or time.time() < deadline:
    info = signal.sigtimedwait([signal.SIGINT], 0.05)
    if info:
        senders.append(str(0 if info.si_code == 0x80 else info.si_pid))
        deadline = deadline or time.time() + 1
with open("ints." + rank, "w") as f:
    f.write("\n".join(senders) + "\n")
PY
rank='exec python3 rank.py'
set +e
python3 pty_run.py "$rank"
rc=$?
set -e
[ $rc != 77 ] || skip "no pseudo-terminal"
expect_rc 0
for r in 0 1 2; do
  echo "rank $r: SIGINT from" $(cat ints.$r)
  [ "$(cat ints.$r)" = 0 ] || fail "rank $r: expected one SIGINT, from the terminal (0)"
done
echo PASS
