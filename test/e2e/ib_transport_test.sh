# The rdma-core verbs transport of port channels between hosts
# (docs/runtime.md, "The proxy"), run against the test double of
# libibverbs (test/runtime/fake_ibverbs: RDMA writes done with memcpy by a
# thread of the target process; no NIC on these machines). One process per
# rank, torchrun-style, every rank (or every pair) on its own "host"
# (CCL_HOST_ID): the three port-channel programs at 2, 3 and 4 ranks with
# 1 to 3 queue pairs per peer, 8 calls back to back, up to 4 MiB, checked
# exactly; how CCL_NET chooses (auto takes RDMA when a device is found and
# TCP when none is; ib refuses to run without one); and the failures: no
# library, no device, a queue pair that does not connect, a registration
# that fails, a peer that rejects the writes (wrong key), a NIC that stops
# sending, a process killed mid-call: each ends with a message that says
# what failed, never a hang or a wrong result.
set -euo pipefail
fake=$REPO/test/runtime/fake_ibverbs/libibverbs.so.1
[[ -f $fake ]] || { echo "FAILED: no test double at $fake"; exit 1; }
export CCL_IBVERBS_LIB=$fake

. "$REPO/test/free_port.sh"
# run N SPLIT TAG LIB ALGO ARGS...: N processes, rank r on host r / SPLIT,
# output in $WORK/TAG.r; the environment of each rank from ENV_r (a
# string of assignments) on top of the caller's. Returns 0 when all exit 0.
run() {
  local n=$1 split=$2 tag=$3 lib=$4 algo=$5
  shift 5
  local port pids=() r ok=0 envr
  port=$(free_port)
  for ((r = 0; r < n; r++)); do
    envr=ENV_$r
    env ${!envr:-} CCL_DEBUG=INFO CCL_HOST_ID=host$((r / split)) RANK=$r \
      WORLD_SIZE=$n MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port - 1)) \
      timeout 300 ccl-perf --lib "$lib" --algo "$algo" "$@" > "$WORK/$tag.$r" 2>&1 &
    pids+=($!)
  done
  for ((r = 0; r < n; r++)); do wait "${pids[$r]}" || ok=1; done
  return $ok
}
expect() { # FILE TEXT: FILE has TEXT (a fixed string)
  grep -qF -- "$2" "$1" || { cat "$1"; echo "FAILED: $1 does not say: $2"; exit 1; }
}
good() { # TAG N: a run that must pass with every result exact
  expect "$WORK/$1.0" "Out of bounds values : 0 OK"
}

progs=(reducescatter/ring_rs_overlap allgather/ag_allpairs_ce allreduce/ring_ce)
args=(--target host -b 4 -e 4M -f 32 -n 1 -w 0 --timeout-ms 30000 -k 8)
for p in "${progs[@]}"; do
  name=$(basename "$p")
  cclc "$REPO/stdlib/$p.ccl" --target=host --nranks=2,3,4 --dtype=float32 \
      --max-bytes=4M -o "$WORK/$name.so"
  lib=$WORK/$name.so
  CCL_NET=ib CCL_IB_QPS=2 run 2 1 ib2 "$lib" "$name" "${args[@]}" ||
    { cat "$WORK"/ib2.*; echo "FAILED: $name over RDMA, 2 ranks"; exit 1; }
  good ib2
  expect "$WORK/ib2.0" "port channels to rank 1 (pid"
  expect "$WORK/ib2.0" "use RDMA device fake_ibv0 port 1"
  echo "ok: $name over RDMA: 2 ranks on 2 hosts, 2 queue pairs per peer"
  CCL_NET=ib CCL_IB_QPS=1 run 3 1 ib3 "$lib" "$name" "${args[@]}" ||
    { cat "$WORK"/ib3.*; echo "FAILED: $name over RDMA, 3 ranks"; exit 1; }
  good ib3
  echo "ok: $name over RDMA: 3 ranks on 3 hosts, 1 queue pair per peer"
  CCL_NET=ib CCL_IB_QPS=3 run 4 2 ib4 "$lib" "$name" "${args[@]}" --delay 1=2000 ||
    { cat "$WORK"/ib4.*; echo "FAILED: $name over RDMA, 4 ranks"; exit 1; }
  good ib4
  # Ranks 0 and 1 share a host: their channel stays on the host's transport.
  expect "$WORK/ib4.0" "use RDMA device fake_ibv0 port 1"
  if grep -q "port channels to rank 1 (" "$WORK/ib4.0"; then
    echo "FAILED: ranks 0 and 1 of one host were connected over the network"; exit 1
  fi
  echo "ok: $name over RDMA: 4 ranks on 2 hosts, 3 queue pairs per peer, rank 1 delayed"
done
lib=$WORK/ring_ce.so

# CCL_NET=auto (the default) takes RDMA when the library finds a device,
# and TCP when it finds none.
run 2 1 auto "$lib" ring_ce "${args[@]}" ||
  { cat "$WORK"/auto.*; echo "FAILED: auto with a device"; exit 1; }
good auto
expect "$WORK/auto.1" "use RDMA device fake_ibv0 port 1"
CCL_FAKE_IBV_DEVICES=0 run 2 1 autotcp "$lib" ring_ce "${args[@]}" ||
  { cat "$WORK"/autotcp.*; echo "FAILED: auto without a device"; exit 1; }
good autotcp
expect "$WORK/autotcp.0" "no RDMA (the RDMA transport: no RDMA device found"
expect "$WORK/autotcp.0" "use TCP"
# A registration that fails (GPU memory without GPUDirect, say): auto
# falls back to TCP for the plan.
CCL_FAKE_IBV_FAULT=reg_mr run 2 1 autoreg "$lib" ring_ce "${args[@]}" ||
  { cat "$WORK"/autoreg.*; echo "FAILED: auto with failing registrations"; exit 1; }
good autoreg
expect "$WORK/autoreg.0" "use TCP"
echo "ok: CCL_NET=auto: RDMA with a device, TCP without one or when registration fails"

# Errors of the setup: each rank reports, nobody hangs.
small=(--target host -b 1K -e 1K -n 1 -w 0 --timeout-ms 10000)
fails() { # TAG TEXT ASSIGNMENTS: with these variables set, the 2-rank run
  # fails and rank 0 says TEXT
  local tag=$1 text=$2
  if (export $3; run 2 1 "$tag" "$lib" ring_ce "${small[@]}"); then
    cat "$WORK/$tag".*; echo "FAILED: $tag succeeded"; exit 1
  fi
  expect "$WORK/$tag.0" "$text"
  echo "ok: $tag: $text"
}
fails nodev "CCL_NET=ib, but the RDMA transport: no RDMA device found" \
  "CCL_NET=ib CCL_FAKE_IBV_DEVICES=0"
fails nolib "CCL_NET=ib, but the RDMA transport: libibverbs could not be loaded ($WORK/none.so, from CCL_IBVERBS_LIB)" \
  "CCL_NET=ib CCL_IBVERBS_LIB=$WORK/none.so"
fails nodevice "CCL_IB_DEVICE names mlx5_9, which is not an RDMA device with an active port (found: nothing else)" \
  "CCL_NET=ib CCL_IB_DEVICE=mlx5_9"
fails badnet "CCL_NET is 'rdma'; it must be auto, ib or tcp" \
  "CCL_NET=rdma"
fails badqps "CCL_IB_QPS is '0'; it must be a number from 1 to 16" \
  "CCL_NET=ib CCL_IB_QPS=0"
fails mixed "share no transport between hosts: this rank offers TCP only, that one RDMA only" \
  "ENV_0=CCL_NET=tcp ENV_1=CCL_NET=ib"
fails qps "uses 2 queue pairs per peer and this rank 3: set CCL_IB_QPS alike on every rank" \
  "CCL_NET=ib ENV_0=CCL_IB_QPS=3 ENV_1=CCL_IB_QPS=2"
fails rtr "INIT -> RTR failed" \
  "CCL_NET=ib CCL_FAKE_IBV_FAULT=rtr"
fails regmr "the RDMA transport: registering host memory on RDMA device fake_ibv0 port 1 failed: Bad address" \
  "CCL_NET=ib CCL_FAKE_IBV_FAULT=reg_mr"

# Failures in the middle of calls: the transport reports the work
# completion's status, names the peer, and the run ends within its timeout.
start=$SECONDS
fails rkey "the RDMA transport: an RDMA write of data to rank 1 (pid" \
  "CCL_NET=ib ENV_1=CCL_FAKE_IBV_FAULT=rkey"
expect "$WORK/rkey.0" "remote access error"
fails drop "transport retry counter exceeded" \
  "CCL_NET=ib ENV_0=CCL_FAKE_IBV_FAULT=drop_after=3"
(( SECONDS - start < 90 )) || { echo "FAILED: the failing runs took $((SECONDS - start)) s"; exit 1; }

# A process killed in the middle of a call (rank 2's proxy stalls, so the
# others are stuck in the first call): the survivors report it and end.
port=$(free_port)
pids=()
for r in 0 1 2; do
  CCL_NET=ib CCL_HOST_ID=host$r RANK=$r WORLD_SIZE=3 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port - 1)) \
    ccl-perf --lib "$lib" --algo ring_ce --target host \
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
  [[ $rc != 0 ]] || { cat "$WORK/kill.$r"; echo "FAILED: rank $r exited 0 after rank 2 was killed"; exit 1; }
  grep -qE "rank 2 \(pid [0-9]+" "$WORK/kill.$r" ||
    { cat "$WORK/kill.$r"; echo "FAILED: rank $r does not name the killed rank"; exit 1; }
done
wait "${pids[2]}" || true
(( SECONDS - start < 30 )) || { echo "FAILED: the survivors took $((SECONDS - start)) s"; exit 1; }
echo "ok: killed process -> the others report it and end"
