#!/usr/bin/env bash
# cclc's AMDGPU code objects through libcclrt's HIP target, against the test
# double of the HIP runtime (test/runtime/fake_hip: it loads and checks code
# objects, checks and logs launches, and cannot run kernels; no AMD GPU
# runs anything here). allpairs_ll (LL) and ring (Simple), compiled by cclc
# for gfx90a and gfx942 at 2 and 4 ranks, are run by amdgpu/hip_run.cc with
# 3 calls back to back on every rank, on a double that reports a gfx942 and
# then a gfx90a device. Checked in the double's log:
#  - every rank's device loaded a code object, each of the device's own
#    architecture (the double refuses another's);
#  - calls x ranks launches, in the order the calls were queued, each of a
#    kernel of the algorithm (ccl_ALGO...), on the rank's device, with the
#    256 threads the code objects were compiled for (the double refuses any
#    other size than their .reqd_workgroup_size), the same grid on every
#    launch, and the 32 argument bytes the metadata lists (the double
#    refuses another size): the communicator's context, then this rank's
#    input and output pointers (the output twice for ring, an in-place
#    algorithm: the runtime stages the input into the output first) and the
#    element count;
# and that a library with only gfx90a code objects is refused on a gfx942
# device with a message naming both.
set -euo pipefail
: "${REPO:?}" "${WORK:?}"
cd "$WORK"
export CCL_HIP_LIBRARY=$REPO/test/runtime/fake_hip/libamdhip64.so
[ -f "$CCL_HIP_LIBRARY" ] || { echo "FAILED: no test double at $CCL_HIP_LIBRARY"; exit 1; }

for algo in allpairs_ll ring; do
  cclc "$REPO/stdlib/allreduce/$algo.ccl" --target=gfx90a,gfx942 --nranks=2,4 \
    --dtype=float32 --op=sum -o "lib$algo.so"
done
cclc "$REPO/stdlib/allreduce/allpairs_ll.ccl" --target=gfx90a --nranks=2 \
  --dtype=float32 --op=sum -o libonly90a.so
c++ -std=c++17 -O1 -I"$REPO/out/include" "$REPO/test/e2e/amdgpu/hip_run.cc" \
  -o hip_run -L"$REPO/out/lib" -lcclrt -ldl -Wl,-rpath,"$REPO/out/lib"

fail() { echo "FAILED: $*"; exit 1; }
count=1000 calls=3
for arch in gfx942 gfx90a; do
  for algo in allpairs_ll ring; do
    for n in 2 4; do
      what="$algo, $n ranks on $arch"
      log=$WORK/$algo-$n-$arch.log
      rm -f "$log"
      CCL_FAKE_HIP_DEVICES=4 CCL_FAKE_HIP_ARCH="$arch:sramecc+:xnack-" \
        CCL_FAKE_HIP_LOG="$log" ./hip_run "./lib$algo.so" "$algo" "$n" \
        "$count" "$calls" > out.txt 2>&1 || { cat out.txt; fail "$what: hip_run"; }
      # Code objects: one load per rank's device at least, all of $arch.
      for ((r = 0; r < n; r++)); do
        grep -q "^module pid=[0-9]* device=$r arch=$arch kernels=[1-9]" "$log" ||
          fail "$what: no $arch code object loaded on device $r"
      done
      grep '^module ' "$log" | grep -qv "arch=$arch " && fail "$what: a code object of another arch"
      grep -q '^modulefail' "$log" && fail "$what: a code object was refused: $(grep '^modulefail' "$log")"
      # Launches, in queued order: call c, rank r at line c * n + r.
      grep '^launch ' "$log" > launches.txt || true
      [ "$(wc -l < launches.txt)" = $((calls * n)) ] ||
        { cat "$log"; fail "$what: $(wc -l < launches.txt) launches, expected $((calls * n))"; }
      grids=$(sed -n 's/.* grid=\([0-9,]*\) .*/\1/p' launches.txt | sort -u)
      [ "$(wc -l <<<"$grids")" = 1 ] || fail "$what: launches with different grids: $grids"
      i=0
      while read -r line; do
        r=$((i % n))
        ptrs=$(grep "^rank $r: " out.txt)
        in=$(sed 's/.*input 0x\([0-9a-f]*\).*/\1/' <<<"$ptrs")
        out=$(sed 's/.*output 0x\([0-9a-f]*\).*/\1/' <<<"$ptrs")
        # ring is an in-place algorithm: the runtime copies the input into
        # the output and runs the kernel on the output.
        [ "$algo" = ring ] && in=$out
        [[ $line == *" device=$r kernel=ccl_$algo"* ]] ||
          fail "$what: launch $i is not of ccl_$algo on device $r: $line"
        [[ $line == *" block=256,1,1 kernarg=32 "* ]] ||
          fail "$what: launch $i is not 256 threads with 32 argument bytes: $line"
        [[ $line =~ args=[0-9a-f]+,$in,$out,$(printf '%x' $count)$ ]] ||
          fail "$what: launch $i's arguments are not (ctx, $in, $out, $count): $line"
        i=$((i + 1))
      done < launches.txt
      echo "ok: $what: $((calls * n)) launches of $calls calls back to back"
    done
  done
done

# A library without a gfx942 code object on a gfx942 device.
if CCL_FAKE_HIP_DEVICES=2 ./hip_run ./libonly90a.so allpairs_ll 2 "$count" 1 > out.txt 2>&1; then
  fail "the gfx90a-only library ran on a gfx942 device"
fi
grep -q "it needs an hsaco code object for gfx942, and the library has \[hsaco gfx90a\]" out.txt ||
  { cat out.txt; fail "no message naming gfx942 and the library's gfx90a image"; }
echo "ok: a gfx90a-only library on a gfx942 device: $(grep -o 'no device image.*' out.txt | head -1)"
