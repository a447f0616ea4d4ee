#!/usr/bin/env bash
# One process per rank on the host target (docs/runtime.md, "Bootstrap"):
# jobs launched the way torchrun (RANK, WORLD_SIZE, MASTER_ADDR/PORT) and
# MPI/Slurm with CCL_COMM_ID do, checked back to back; and the faults: a
# rank killed with SIGKILL in the middle of a call, a rank that never
# joins, cclCommAbort from another thread ending a hanging call (and a new
# communicator afterwards), strangers on the bootstrap port (garbage, a
# wrong secret, a silent connection), ranks that loaded different plans,
# and two "hosts" (CCL_HOST_ID) that memory channels cannot join. Every
# case ends in bounded time with its message checked, and leaves no
# shared-memory segment, file or process behind.
set -euo pipefail
: "${REPO:?}" "${WORK:?}"
cd "$WORK"
export CCL_BOOTSTRAP_TIMEOUT_MS=4000 CCL_TIMEOUT_MS=20000

cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=host --nranks=2..8 \
  --dtype=float32 -o liballpairs_ll.so
cclc "$REPO/stdlib/allreduce/ring.ccl" --target=host --nranks=2..8 \
  --dtype=float32 -o libring.so
c++ -std=c++17 -O1 -I. -I"$REPO/out/include" \
  "$REPO/test/e2e/multiproc/driver.cc" -o driver -L. -lallpairs_ll \
  -L"$REPO/out/lib" -lcclrt -ldl -lpthread -Wl,-rpath,"$WORK" \
  -Wl,-rpath,"$REPO/out/lib"

fail() { echo "FAIL: $*" >&2; exit 1; }
. "$REPO/test/free_port.sh"
shm_before=$(ls /dev/shm | wc -l)
files_before=$(find "$TMPDIR" -maxdepth 1 | wc -l)

# launch N LOG MODE...: N ranks in the background, torchrun style; their
# output in LOG.R, their pids in PIDS. RANK_ENV, when set, names a function
# that prints more VAR=value words for rank $1 (they override the defaults).
launch() {
  local n=$1 log=$2
  shift 2
  local port extra
  port=$(free_port)
  PIDS=()
  for ((r = 0; r < n; r++)); do
    extra=()
    [[ -n ${RANK_ENV:-} ]] && read -ra extra <<<"$("$RANK_ENV" "$r")"
    env RANK=$r WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 \
      MASTER_PORT=$((port - 1)) "${extra[@]}" \
      timeout 60 ./driver "$@" >"$log.$r" 2>&1 &
    PIDS+=($!)
  done
}
# wait_all: waits for PIDS; STATUS[r] gets rank r's exit status.
wait_all() {
  STATUS=()
  for p in "${PIDS[@]}"; do
    if wait "$p"; then STATUS+=(0); else STATUS+=($?); fi
  done
}
expect() { # expect FILE TEXT
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "$1 lacks: $2"; }
}

# --- Jobs that work: torchrun variables, then CCL_COMM_ID (MPI/Slurm).
for n in 2 3 4 8; do
  launch "$n" ok run 16
  wait_all
  for ((r = 0; r < n; r++)); do
    [[ ${STATUS[$r]} == 0 ]] || { cat ok.$r >&2; fail "run n=$n: rank $r exited ${STATUS[$r]}"; }
  done
  expect ok.0 "rank 0: 16 calls back to back: 0 wrong"
done
port=$(free_port)
PIDS=()
for r in 0 1 2; do
  CCL_COMM_ID=127.0.0.1:$port OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=3 \
    timeout 60 ./driver run 8 >mpi.$r 2>&1 &
  PIDS+=($!)
done
wait_all
[[ "${STATUS[*]}" == "0 0 0" ]] || fail "CCL_COMM_ID job: ${STATUS[*]}"
expect mpi.0 "8 calls back to back: 0 wrong"
echo "ok: jobs of 2, 3, 4, 8 processes (torchrun variables) and 3 (CCL_COMM_ID)"

# --- The same under ccl-run (CCL_UNIQUE_ID), and the example program.
for n in 2 5; do
  ccl-run -n "$n" ./driver run 16 >crun.$n 2>&1 || { cat crun.$n >&2; fail "ccl-run -n $n"; }
  expect crun.$n "rank 0: 16 calls back to back: 0 wrong"
done
c++ -std=c++17 -O1 -I. -I"$REPO/out/include" \
  "$REPO/examples/allreduce_multiprocess.cc" -o allreduce_multiprocess -L. \
  -lallpairs_ll -L"$REPO/out/lib" -lcclrt -Wl,-rpath,"$WORK" \
  -Wl,-rpath,"$REPO/out/lib"
ccl-run -n 4 ./allreduce_multiprocess >example.log 2>&1 || { cat example.log >&2; fail "the example"; }
expect example.log "allpairs_ll AllReduce, 4 processes, 16 calls of 1001 floats back to back: 0 wrong"
echo "ok: ccl-run jobs and examples/allreduce_multiprocess.cc"

# --- A rank killed with SIGKILL in the middle of a call.
start=$(date +%s)
launch 4 kill kill-mid-call 2
wait_all
[[ ${STATUS[2]} == 137 ]] || fail "the victim exited ${STATUS[2]}, not by SIGKILL"
for r in 0 1 3; do
  [[ ${STATUS[$r]} == 0 ]] || { cat kill.$r >&2; fail "rank $r exited ${STATUS[$r]}"; }
  expect kill.$r "rank $r: cclCommSynchronize returned cclRemoteError"
  expect kill.$r "rank 2 (pid "
  expect kill.$r "closed its connection without destroying its communicator: the process exited or was killed"
  expect kill.$r "rank $r: destroyed"
done
(( $(date +%s) - start < 15 )) || fail "the survivors took $(( $(date +%s) - start )) s"
echo "ok: SIGKILL mid-call reported by every other rank, which exited cleanly"

# --- A rank that dies while the others wait for its memory (plan
# preparation): their cclCommInitRank fails naming it.
dies_in_exchange() { [[ $1 == 1 ]] && echo CCL_DEBUG_FAULT=exit-in-memory-exchange; }
RANK_ENV=dies_in_exchange launch 3 exch run 1
wait_all
[[ "${STATUS[*]}" == "2 66 2" ]] || { cat exch.* >&2; fail "death in exchange: ${STATUS[*]}"; }
for r in 0 2; do
  expect exch.$r "cclCommInitRank(rank $r): "
  expect exch.$r "rank 1 (pid "
  expect exch.$r "closed its connection without destroying its communicator"
done
echo "ok: a rank that dies in the memory exchange fails the others' init, named"

# --- A rank that never joins: ranks 0..2 of 4.
start=$(date +%s)
of_four() { echo WORLD_SIZE=4; }
RANK_ENV=of_four launch 3 never run 1
wait_all
for r in 0 1 2; do
  [[ ${STATUS[$r]} == 2 ]] || { cat never.$r >&2; fail "rank $r exited ${STATUS[$r]}"; }
  expect never.$r "bootstrap timed out after 4.0 s: rank 3 never joined (joined: 0, 1, 2)"
done
(( $(date +%s) - start < 15 )) || fail "the bootstrap timeout took too long"
echo "ok: a rank that never joins is named by every rank after the timeout"

# --- cclCommAbort from another thread, then a new communicator.
launch 3 abort abort-thread
wait_all
for r in 0 1 2; do
  [[ ${STATUS[$r]} == 0 ]] || { cat abort.$r >&2; fail "abort: rank $r exited ${STATUS[$r]}"; }
  expect abort.$r "rank $r: new communicator after the abort: 0 wrong"
done
for r in 0 2; do
  expect abort.$r "rank $r: hanging cclCommSynchronize returned cclRemoteError"
  expect abort.$r "rank 0 (pid "
  expect abort.$r "aborted the communicator (cclCommAbort)"
done
expect abort.1 "rank 1: asynchronous error cclRemoteError"
echo "ok: cclCommAbort ends a hanging call on every rank; a new communicator works"

# --- A kernel timeout on some ranks reaches the rank that caused it.
launch 3 tmo timeout
wait_all
[[ "${STATUS[*]}" == "0 0 0" ]] || { cat tmo.* >&2; fail "timeout: ${STATUS[*]}"; }
for r in 0 2; do
  grep -qE "rank $r: cclCommSynchronize returned (cclTimeout|cclRemoteError).*rank [02] thread block 0 timed out after 1\.0[0-9] s in reduce_packets at .*allpairs_ll.ccl" tmo.$r ||
    { cat tmo.$r >&2; fail "rank $r's timeout report"; }
done
expect tmo.1 "rank 1: asynchronous error cclRemoteError"
grep -qE "thread block 0 timed out after 1\.0[0-9] s in reduce_packets" tmo.1 || fail "rank 1's report"
echo "ok: a spin-wait timeout is reported by the ranks that waited and sent to the one that did not launch"

# --- Strangers on the bootstrap port while the job meets: garbage, a
# client with the wrong secret, a connection that never says anything.
port=$(free_port)
secret=$(printf '%064d' 7)
other=$(printf '%064d' 8)
PIDS=()
for r in 0 1; do
  CCL_COMM_ID=127.0.0.1:$port CCL_COMM_SECRET=$secret RANK=$r WORLD_SIZE=3 \
    timeout 60 ./driver run 8 >stranger.$r 2>&1 &
  PIDS+=($!)
done
for _ in $(seq 50); do
  (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
  sleep 0.1
done
exec 4<>/dev/tcp/127.0.0.1/$port # silent until the end
(exec 3<>/dev/tcp/127.0.0.1/$port; head -c 100000 /dev/urandom >&3) 2>/dev/null || true
CCL_COMM_ID=127.0.0.1:$port CCL_COMM_SECRET=$other RANK=2 WORLD_SIZE=3 \
  timeout 60 ./driver run 8 >stranger.wrong 2>&1 && fail "a wrong secret joined"
CCL_COMM_ID=127.0.0.1:$port CCL_COMM_SECRET=$secret RANK=2 WORLD_SIZE=3 \
  timeout 60 ./driver run 8 >stranger.2 2>&1 &
PIDS+=($!)
wait_all
exec 4>&-
[[ "${STATUS[*]}" == "0 0 0" ]] || { cat stranger.* >&2; fail "stranger job: ${STATUS[*]}"; }
expect stranger.0 "8 calls back to back: 0 wrong"
expect stranger.0 "dropped a connection from 127.0.0.1"
expect stranger.0 "message authentication failed (wrong secret: not a rank of this job)"
expect stranger.0 "malformed frame header"
expect stranger.wrong "the root closed the connection"
echo "ok: garbage, a wrong secret and a silent connection are dropped; the job completes"

# --- Ranks that loaded different plans fail together, with one message.
loads_ring() { [[ $1 == 1 ]] && echo "DRIVER_EXTRA_LIB=$WORK/libring.so"; }
RANK_ENV=loads_ring launch 3 plans run 1
wait_all
[[ "${STATUS[*]}" == "2 2 2" ]] || { cat plans.* >&2; fail "plan mismatch: ${STATUS[*]}"; }
msg=$(sed -n 's/.*cclCommInitRank(rank [0-9]): //p' plans.0)
[[ $msg == *"the ranks did not load the same algorithms"*"algorithm ring: rank 1 loaded build "*"ranks 0, 2 did not load it"* ]] ||
  fail "plan mismatch message: $msg"
for r in 1 2; do
  [[ $(sed -n 's/.*cclCommInitRank(rank [0-9]): //p' plans.$r) == "$msg" ]] ||
    fail "rank $r's message differs from rank 0's"
done
echo "ok: different plans: every rank fails with the same message"

# --- Two "hosts" on this machine: the bootstrap works; an algorithm over
# memory channels cannot reach the other host (port channels can, over TCP:
# port_channels_test).
own_host() { echo "CCL_HOST_ID=host$1"; }
RANK_ENV=own_host launch 2 hosts two-hosts
wait_all
[[ "${STATUS[*]}" == "0 0" ]] || { cat hosts.* >&2; fail "two hosts: ${STATUS[*]}"; }
for r in 0 1; do
  expect hosts.$r "rank $r: bootstrap all-gather across hosts: ok"
  expect hosts.$r "rank $r: launch returned cclUnsupported"
  expect hosts.$r "which are on different hosts: only port channels reach another host (their proxy sends over RDMA or TCP); use an algorithm over port channels (channel(port))"
done
echo "ok: two hosts: bootstrap works, launches say memory channels do not reach the other host"

# --- Nothing left behind.
sleep 0.5
[[ $(ls /dev/shm | wc -l) == "$shm_before" ]] || fail "a shared-memory segment was left in /dev/shm"
[[ $(find "$TMPDIR" -maxdepth 1 | wc -l) == "$files_before" ]] || fail "a file was left in $TMPDIR"
! pgrep -f "$WORK/driver" >/dev/null || fail "a rank process is still running"
echo "multiproc_faults_test: all passed"
