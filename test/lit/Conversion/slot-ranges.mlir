// RUN: %ccl-opt %s --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum max-bytes=4096' | FileCheck %s
//
// Scratch slots are laid out for the largest message (max-bytes 4096 =
// 1024 float32 elements: the layout count passed to __ccl_scratch_ptr), so
// a slot's place does not depend on the call's count; an operation that
// moves several chunks from or into scratch becomes one operation per chunk.

// Tests that a put of two input chunks into two scratch slots is two puts,
// one per slot (the chunks' sizes differ when the count is not a multiple
// of the chunk count, so a contiguous copy would not match the slots), that
// only the second carries the signal, and that a two-chunk copy between the
// input and the output stays one copy (all in rank 0's block program).
// CHECK-LABEL: llvm.func internal @ccl_split_nN_f32_sum__p0(
// CHECK:         %[[LAYOUT:.*]] = llvm.mlir.constant(1024 : i64) : i64
// CHECK:         llvm.call @__ccl_scratch_ptr(%arg0, %{{.*}}, %{{.*}}, %[[SLOT0:.*]], %{{.*}}, %[[LAYOUT]],
// CHECK:         llvm.call @__ccl_put(
// CHECK-NOT:     llvm.call @__ccl_signal(
// CHECK:         llvm.call @__ccl_scratch_ptr(
// CHECK:         llvm.call @__ccl_put(
// CHECK-NOT:     llvm.call @__ccl_put(
// CHECK:         llvm.call @__ccl_signal(
// CHECK-NOT:     llvm.call @__ccl_put(
// CHECK:         llvm.call @__ccl_copy(
// CHECK-NOT:     llvm.call @__ccl_copy(
// CHECK:         llvm.return
ccl.algorithm @split_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Mine", name = "split", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.thread_block rank 0 tb 0 {
    ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 2]> = <"input"[0] [0 : 2]> signal {ccl.op_id = 0 : i64}
    ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]> {ccl.op_id = 1 : i64}
  }
  ccl.thread_block rank 1 tb 0 {
    ccl.wait @mem_0_1 tb 0 {ccl.op_id = 2 : i64}
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]> {ccl.op_id = 3 : i64}
    ccl.copy tb 0 <"output"[1] [1 : 1]> = <"recv"[1] [1 : 1]> {ccl.op_id = 4 : i64}
  }
}
