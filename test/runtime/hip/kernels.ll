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

; one_for_all reads its group size from the hidden arguments, as generated
; kernels do (ccl_nthreads): its kernarg segment is larger than the 32
; bytes of explicit arguments a launch passes.
declare ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()

define amdgpu_kernel void @one_for_all(ptr %ctx, ptr %in, ptr %out, i64 %count) {
  %hidden = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
  %gsp = getelementptr i8, ptr addrspace(4) %hidden, i64 12
  %gs = load i16, ptr addrspace(4) %gsp
  %gs64 = zext i16 %gs to i64
  %s = add i64 %gs64, %count
  store i64 %s, ptr %out
  ret void
}
