; Kernels with the signature of cclc's generated GPU kernels
; (ptr ctx, ptr input, ptr output, i64 count; ShareBlocks.cpp), compiled
; into real AMDGPU code objects for the HIP tests (BUILD). Per-rank kernels
; fake_ar_r0 and fake_ar_r1 (what cclc emits when ranks run different
; programs), and one kernel for every rank, one_for_all. The test double
; never runs them; their bodies only keep the arguments alive.

target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @fake_ar_r0(ptr %ctx, ptr %in, ptr %out, i64 %count) {
  store i64 %count, ptr %out
  ret void
}

define amdgpu_kernel void @fake_ar_r1(ptr %ctx, ptr %in, ptr %out, i64 %count) {
  store i64 %count, ptr %out
  ret void
}

define amdgpu_kernel void @one_for_all(ptr %ctx, ptr %in, ptr %out, i64 %count) {
  %v = load i64, ptr %in
  %s = add i64 %v, %count
  store i64 %s, ptr %out
  ret void
}
