# Port channels on the host target (docs/runtime.md, "The proxy"): the
# stdlib programs whose transfers the proxy executes (ring_rs_overlap,
# written with explicit port channels; ag_allpairs_ce and ring_ce,
# chunk-level programs with channel(port)) at 2, 3, 4 and 8 ranks in one
# process and at 2, 3 and 4 under ccl-run (one process per rank, the peers'
# scratch mapped into each process), every run back to back (K calls per
# rank with no synchronisation) and checked exactly: K = 8, K = 64 with a
# one-slot FIFO and a slow proxy (every request wraps the FIFO), and K = 8
# with rank 1 delayed 2 ms per call. Then the TCP transport: the same
# programs with one process per rank and every rank (or every pair of
# ranks) on its own "host" (CCL_HOST_ID), so that the proxies reach their
# peers over loopback TCP, with 1, 2 and 3 connections per peer, up to
# 4 MiB. Then a stalled proxy and a killed process: each run ends within
# its timeout with a report that names the rank and the port-channel
# operation with its source line.
set -euo pipefail
progs=(reducescatter/ring_rs_overlap allgather/ag_allpairs_ce allreduce/ring_ce)
for p in "${progs[@]}"; do
  cclc "$REPO/stdlib/$p.ccl" --target=host --nranks=2,3,4,8 --dtype=float32 \
      --max-bytes=64K -o "$WORK/$(basename "$p").so"
done
check() { # DESCRIPTION COMMAND...: the command's check must report 0 wrong
  local desc=$1; shift
  if ! "$@" > "$WORK/out.txt" 2>&1 ||
     ! grep -q "Out of bounds values : 0 OK" "$WORK/out.txt"; then
    echo "FAILED: $desc"
    cat "$WORK/out.txt"
    exit 1
  fi
  echo "ok: $desc"
}
common=(--target host -b 4 -e 26244 -f 81 -n 1 -w 0 --timeout-ms 30000)
for p in "${progs[@]}"; do
  name=$(basename "$p")
  lib=$WORK/$name.so
  for g in 2 3 4 8; do
    check "$name -g $g, K = 8" ccl-perf --lib "$lib" --algo "$name" -g "$g" "${common[@]}" -k 8
    check "$name -g $g, K = 8, rank 1 delayed" \
        ccl-perf --lib "$lib" --algo "$name" -g "$g" "${common[@]}" -k 8 --delay 1=2000
  done
  for g in 2 4; do
    check "$name -g $g, K = 64, one-slot FIFO, slow proxy of rank 0" \
        env CCL_PROXY_FIFO_SLOTS=1 ccl-perf --lib "$lib" --algo "$name" -g "$g" \
        "${common[@]}" -k 64 --proxy-delay 0=50
  done
  for n in 2 3 4; do
    check "ccl-run -n $n $name, K = 8" \
        ccl-run -n "$n" ccl-perf --lib "$lib" --algo "$name" "${common[@]}" -k 8
  done
done

# The TCP transport between "hosts" on this machine. hosts N SPLIT LIB ALGO
# CONNS ARGS...: N processes torchrun-style, rank r on host r / SPLIT.
. "$REPO/test/free_port.sh"
hosts() {
  local n=$1 split=$2 lib=$3 algo=$4 conns=$5
  shift 5
  local port pids=() r ok=1
  port=$(free_port)
  for ((r = 0; r < n; r++)); do
    CCL_HOST_ID=host$((r / split)) CCL_TCP_CONNECTIONS=$conns RANK=$r \
      WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port - 1)) \
      timeout 300 ccl-perf --lib "$lib" --algo "$algo" "$@" > "$WORK/tcp.$r" 2>&1 &
    pids+=($!)
  done
  for ((r = 0; r < n; r++)); do wait "${pids[$r]}" || ok=0; done
  if [[ $ok != 1 ]] || ! grep -q "Out of bounds values : 0 OK" "$WORK/tcp.0"; then
    echo "FAILED: over TCP: $algo, $n ranks, $split per host, $conns connections"
    cat "$WORK"/tcp.*
    exit 1
  fi
  echo "ok: over TCP: $algo, $n ranks, $split per host, $conns connection(s) per peer"
}
for p in "${progs[@]}"; do
  name=$(basename "$p")
  cclc "$REPO/stdlib/$p.ccl" --target=host --nranks=2,3,4 --dtype=float32 \
      --max-bytes=4M -o "$WORK/tcp_$name.so"
  tcp=(--target host -b 4 -e 4M -f 32 -n 1 -w 0 --timeout-ms 30000 -k 8)
  hosts 2 1 "$WORK/tcp_$name.so" "$name" 2 "${tcp[@]}"
  hosts 3 1 "$WORK/tcp_$name.so" "$name" 1 "${tcp[@]}"
  hosts 4 2 "$WORK/tcp_$name.so" "$name" 3 "${tcp[@]}" --delay 1=2000
done

# An algorithm over memory channels cannot reach another host: refused when
# its plan is prepared, naming the channel's ranks and hosts.
cclc "$REPO/stdlib/allreduce/ring.ccl" --target=host --nranks=2 --dtype=float32 -o "$WORK/ring.so"
port=$(free_port)
for r in 0 1; do
  CCL_HOST_ID=host$r RANK=$r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port - 1)) \
    timeout 120 ccl-perf --lib "$WORK/ring.so" --algo ring --target host -b 1K -e 1K \
    > "$WORK/mem.$r" 2>&1 &
done
wait || true
grep -q "has a memory channel from rank [01] (host host[01]) to rank [01] (host host[01]), which are on different hosts: only port channels reach another host" "$WORK/mem.0" ||
  { cat "$WORK/mem.0"; echo "FAILED: no refusal of memory channels between hosts"; exit 1; }
echo "ok: memory channels between hosts are refused"

# A stalled proxy: rank 0's proxy takes no requests. Every wait for it (or
# for the data it would have moved) gives up after the timeout, and the
# report names a rank, a thread block and a port-channel operation of the
# program with its line; the run ends instead of hanging.
start=$SECONDS
set +e
timeout 120 ccl-perf --lib "$WORK/ring_rs_overlap.so" --algo ring_rs_overlap \
    --target host -g 4 -b 1K -e 1K --proxy-delay 0=stall --timeout-ms 1000 \
    > "$WORK/stall.txt" 2>&1
rc=$?
set -e
cat "$WORK/stall.txt"
[[ $rc == 1 ]] || { echo "FAILED: the stalled proxy's run exited $rc"; exit 1; }
(( SECONDS - start < 60 )) || { echo "FAILED: the stalled run took $((SECONDS - start)) s"; exit 1; }
grep -qE "rank [0-9] thread block [0-9]+ timed out after 1\.[0-9]+ s in (wait|put|flush|signal) at .*ring_rs_overlap\.ccl:[0-9]+:[0-9]+" "$WORK/stall.txt" ||
  { echo "FAILED: no timeout report naming a port-channel operation"; exit 1; }
echo "ok: stalled proxy -> timeout report"

# A process killed in the middle of a call (one process per rank, launched
# torchrun-style so that nothing ends the survivors for us; rank 2's proxy
# stalls, so every rank is stuck in the first call when rank 2 is killed):
# the other ranks learn it from the bootstrap well before their 60 s
# timeout, abort their kernels, report the dead rank and exit.
port=$(free_port)
pids=()
for r in 0 1 2; do
  RANK=$r WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port - 1)) \
    ccl-perf --lib "$WORK/ring_ce.so" --algo ring_ce --target host \
      -b 64K -e 64K -n 5 -w 0 -c 0 --timeout-ms 60000 --proxy-delay 2=stall \
      > "$WORK/kill.$r" 2>&1 &
  pids+=($!)
done
sleep 3
start=$SECONDS
kill -9 "${pids[2]}"
for r in 0 1; do
  set +e
  wait "${pids[$r]}"
  rc=$?
  set -e
  tail -5 "$WORK/kill.$r"
  [[ $rc != 0 ]] || { echo "FAILED: rank $r exited 0 after rank 2 was killed"; exit 1; }
  grep -qE "rank 2 \(pid [0-9]+" "$WORK/kill.$r" ||
    { echo "FAILED: rank $r does not name the killed rank"; exit 1; }
done
wait "${pids[2]}" || true
(( SECONDS - start < 30 )) || { echo "FAILED: the survivors took $((SECONDS - start)) s"; exit 1; }
echo "ok: killed process -> the others report it and end"
