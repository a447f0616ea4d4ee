#!/bin/bash
# Checks the code the device library's bitcode turns into:
#   NVPTX : __ccl_put_packets stores each packet with one 16-byte volatile
#           global store (st.volatile.global.v4.{u32,b32}; LLVM 22 prints b32),
#           packet reads are 16-byte volatile loads, and nothing but the
#           type-generic dispatchers (__ccl_*_any) has a call.
#   AMDGPU: one global_store_dwordx4 per packet, no calls.
#   host  : only clock_gettime, libcclrt's pausing waits (cclrtHostPause,
#           cclrtHostDone, cclrtHostRing) and __tls_get_addr (for the
#           block id) are called outside the library itself; no
#           memcpy/memset/libm/libatomic.
# Usage: bitcode_codegen_test.sh LLC NVPTX.bc AMDGCN.bc HOST.bc
set -u
LLC=$1 NV=$2 AMD=$3 HOST=$4
T=${TEST_TMPDIR:-$(mktemp -d)}
fail=0
err() { echo "FAIL: $*"; fail=1; }

# Body of PTX function $2 in file $1.
ptx_func() {
  awk -v f="$2" '
    /^\.(visible|weak|extern)? ?\.?(func|entry)/ || /^\.func/ { inf = 0 }
    $0 ~ ("[ )]" f "\\(") && /\.func|\.entry/ { inf = 1 }
    inf { print }
    inf && /^}/ { inf = 0 }' "$1"
}
# Body of AMDGPU function $2 in file $1.
amd_func() {
  awk -v f="$2" '
    index($0, f ":") == 1 { inf = 1 }
    inf { print }
    inf && $0 ~ ("^\\.Lfunc_end[0-9]+:") { inf = 0 }' "$1"
}

# ---- NVPTX ----
"$LLC" -march=nvptx64 -mcpu=sm_90 -mattr=+ptx80 "$NV" -o "$T/dev.ptx" ||
  err "llc nvptx"
grep -q '^\.version 8\.0' "$T/dev.ptx" || err "PTX version is not 8.0"
# The type-generic dispatchers (__ccl_*_any) may call the function of
# their kind; nothing else calls.
awk '/^\.(visible )?\.func/ { any = ($0 ~ /__ccl_[a-z_]+_any\(/) }
     !any' "$T/dev.ptx" > "$T/dev-typed.ptx"
grep -n -w 'call' "$T/dev-typed.ptx" && err "PTX has calls"
put=$(ptx_func "$T/dev.ptx" __ccl_put_packets)
[ -n "$put" ] || err "no __ccl_put_packets in the PTX"
nv4=$(grep -cE 'st\.volatile(\.global)?\.v4\.(u32|b32)' <<<"$put")
nst=$(grep -cE '^\s*st\.' <<<"$put")
[ "$nv4" -ge 1 ] || err "__ccl_put_packets: no st.volatile.global.v4 store"
[ "$nst" -eq "$nv4" ] ||
  err "__ccl_put_packets: $nst stores, $nv4 of them 16-byte volatile"
grep -qE 'st\.volatile\.global\.v4\.(u32|b32)' <<<"$put" ||
  err "__ccl_put_packets: the packet store is not in the global space"
for f in __ccl_unpack_packets $(grep -oE '__ccl_reduce_packets_(f32|f16|bf16)_[a-z]+' "$T/dev.ptx" | sort -u); do
  body=$(ptx_func "$T/dev.ptx" "$f")
  [ -n "$body" ] || err "no $f in the PTX"
  grep -qE 'ld\.volatile\.global\.v4\.(u32|b32)' <<<"$body" ||
    err "$f: packets not read with ld.volatile.global.v4"
  grep -qw call <<<"$body" && err "$f has a call"
done
nred=0
for f in $(grep -oE '__ccl_reduce_(packets_)?(f32|f16|bf16)_(sum|prod|max|min)\(' "$T/dev.ptx" | tr -d '(' | sort -u); do
  nred=$((nred + 1))
  ptx_func "$T/dev.ptx" "$f" | grep -qw call && err "$f has a call"
done
[ "$nred" -eq 24 ] || err "expected 24 reduce functions in the PTX, found $nred"
nrr=0
for f in $(grep -oE '__ccl_read_reduce_(f32|f16|bf16)_(sum|prod|max|min)\(' "$T/dev.ptx" | tr -d '(' | sort -u); do
  nrr=$((nrr + 1))
  body=$(ptx_func "$T/dev.ptx" "$f")
  grep -qw call <<<"$body" && err "$f has a call"
  grep -qE 'ld\.global\.v4\.(u32|b32)' <<<"$body" || err "$f: no 16-byte loads"
done
[ "$nrr" -eq 12 ] || err "expected 12 read_reduce functions in the PTX, found $nrr"
# Simple protocol: the signal is a release (fence.acq_rel.sys, then the
# system-scope atomic add, after a block barrier); waits poll with acquire
# loads; put/get copy with 16-byte global loads and stores.
sig=$(ptx_func "$T/dev.ptx" __ccl_signal)
grep -qE 'barrier\.sync|bar\.sync' <<<"$sig" || err "__ccl_signal: no block barrier"
awk '/fence\.acq_rel\.sys/ { f = 1 } /atom\.sys\.add\.u64/ { if (f) ok = 1; exit } END { exit !ok }' \
  <<<"$sig" || err "__ccl_signal: no fence.acq_rel.sys before atom.sys.add.u64"
for f in __ccl_wait __ccl_acquire __ccl_tb_barrier; do
  ptx_func "$T/dev.ptx" "$f" | grep -q 'ld\.acquire\.sys' || err "$f: no ld.acquire.sys"
done
for f in __ccl_put __ccl_get __ccl_copy; do
  body=$(ptx_func "$T/dev.ptx" "$f")
  grep -qE 'st\.global\.v4\.(u32|b32)' <<<"$body" &&
    grep -qE 'ld\.global\.v4\.(u32|b32)' <<<"$body" ||
    err "$f: no 16-byte global loads and stores"
done

# ---- AMDGPU ----
"$LLC" -mtriple=amdgcn-amd-amdhsa -mcpu=gfx942 "$AMD" -o "$T/dev.s" ||
  err "llc amdgcn"
# A call is s_swappc; a tail call jumps to a function's address, which the
# code computes from a relocation. (s_setpc_b64 alone is also a return,
# through whichever SGPR pair holds the return address.)
grep -nE 's_swappc|@rel32@(lo|hi)|@gotpcrel' "$T/dev.s" &&
  err "AMDGPU code has calls"
aput=$(amd_func "$T/dev.s" __ccl_put_packets)
[ -n "$aput" ] || err "no __ccl_put_packets in the AMDGPU code"
[ "$(grep -cE '_store_' <<<"$aput")" -eq 1 ] &&
  grep -q 'global_store_dwordx4' <<<"$aput" ||
  err "__ccl_put_packets: not exactly one global_store_dwordx4"

# ---- host ----
"$LLC" -relocation-model=pic "$HOST" -o "$T/host.s" || err "llc host"
# Calls of functions the library defines itself (the type-generic forms
# call the typed ones) are not calls out of it.
defined=$(grep -oE '^[A-Za-z_][A-Za-z0-9_.]*:' "$T/host.s" | tr -d :)
bad=$(grep -oE '(call|jmp)q?\s+[A-Za-z_][A-Za-z0-9_.]*(@PLT)?' "$T/host.s" |
  awk '{print $2}' | sed 's/@PLT//' | grep -vE '^\.L' |
  grep -vxF -f <(echo "$defined") |
  grep -vxE 'clock_gettime|__tls_get_addr|cclrtHost(Pause|Done|Ring)' | sort -u)
[ -z "$bad" ] || err "host bitcode calls: $bad"

if [ "$fail" -ne 0 ]; then exit 1; fi
echo PASS
