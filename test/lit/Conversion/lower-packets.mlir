// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s

// Tests the LL packet operations besides reduce_packets:
//  - put_packets into a buffer that a copy_packets reads (`recv`) is padded
//    to its whole slot range (__ccl_put_packets, then __ccl_put_packets_pad
//    with the chunk's bytes and the range's capacity); put_packets into
//    another buffer (`other`) is not;
//  - copy_packets forwards the whole slot range with this call's flag
//    (epoch + 1, the epoch being the kernel's __ccl_begin result passed
//    to the block program) and its op id;
//  - unpack_packets writes the destination chunk's bytes.

// Rank 0's block (program 0); the epoch is the program's argument 4.
// CHECK-LABEL: llvm.func internal @ccl_pk_n2_f32_sum__p0(
// CHECK:         %[[DST:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[CAP:.*]] = llvm.call @__ccl_scratch_elems(
// CHECK:         %[[N:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK:         %[[NB:.*]] = llvm.mul %[[N]], %{{.*}} : i64
// CHECK:         %[[FLAG:.*]] = llvm.add %arg4, %{{.*}} : i32
// CHECK-NEXT:    llvm.call @__ccl_put_packets(%[[DST]], %{{.*}}, %[[NB]], %[[FLAG]])
// CHECK-NEXT:    %[[ES:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK-NEXT:    %[[CB:.*]] = llvm.mul %[[CAP]], %[[ES]] : i64
// CHECK-NEXT:    llvm.call @__ccl_put_packets_pad(%[[DST]], %[[NB]], %[[CB]], %[[FLAG]])
// CHECK:         llvm.call @__ccl_put_packets(
// CHECK-NOT:     llvm.call @__ccl_put_packets_pad(
// CHECK:         llvm.return
// Rank 1's block (program 1).
// CHECK-LABEL: llvm.func internal @ccl_pk_n2_f32_sum__p1(
// CHECK:         %[[F:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[R:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[RCAP:.*]] = llvm.call @__ccl_scratch_elems(
// CHECK:         %[[RB:.*]] = llvm.mul %[[RCAP]], %{{.*}} : i64
// CHECK-NEXT:    %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[RFLAG:.*]] = llvm.add %arg4, %[[ONE]] : i32
// CHECK-NEXT:    %[[ID:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_copy_packets(%arg0, %[[F]], %[[R]], %[[RB]], %[[RFLAG]], %[[ID]])
// CHECK:         %[[OUT:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[ON:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK:         %[[OB:.*]] = llvm.mul %[[ON]], %{{.*}} : i64
// CHECK:         llvm.call @__ccl_unpack_packets(%arg0, %[[OUT]], %{{.*}}, %[[OB]], %{{.*}}, %{{.*}})
// The kernel passes its call's epoch (from __ccl_begin) to the programs.
// CHECK-LABEL: llvm.func @ccl_pk_n2_f32_sum(
// CHECK:         %[[EPOCH:.*]] = llvm.call @__ccl_begin(%arg0)
// CHECK:         llvm.call @ccl_pk_n2_f32_sum__p0(%arg0, %arg1, %arg2, %arg3, %[[EPOCH]], %{{.*}})
// CHECK:         llvm.call @ccl_pk_n2_f32_sum__p1(%arg0, %arg1, %arg2, %arg3, %[[EPOCH]], %{{.*}})
ccl.algorithm @pk_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "pk", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 1
  ccl.scratch @fwd slots 1
  ccl.scratch @other slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"other"[1] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy_packets tb 0 <"fwd"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.unpack_packets tb 0 <"output"[1] [1 : 1]> from <"other"[1] [0 : 1]>
}

// -----
// Tests that a fused packet reduce-copy-send (reduce_packets with a
// forward) sends its result on as LL packets with this call's flag, after a
// block barrier.

// CHECK-LABEL: llvm.func internal @ccl_rcs_n3_f32_sum__p0(
// CHECK:         %[[D:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         llvm.call @__ccl_reduce_packets_f32_sum(%arg0, %[[D]],
// CHECK-NEXT:    llvm.call @__ccl_barrier()
// CHECK:         %[[FLAG:.*]] = llvm.add
// CHECK:         %[[F:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         llvm.call @__ccl_put_packets(%[[F]], %[[D]], %{{.*}}, %[[FLAG]])
// CHECK-NOT:     __ccl_signal
ccl.algorithm @rcs_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rcs", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]> forward [#ccl.chunk<"recv"[2] [1 : 1]>] via [@mem_1_2]
}

// -----
// Tests that pack_packets writes the rank's own input as packets of this
// call (the epoch + 1 flag) into its own scratch slot: the stores of
// put_packets (__ccl_put_packets) to a local pointer, with no channel.

// CHECK-LABEL: llvm.func internal @ccl_pack_n2_f32_sum__p0(
// CHECK:         %[[SLOT:.*]] = llvm.call @__ccl_scratch_ptr(%arg0,
// CHECK:         %[[IN:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[N:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK:         %[[FLAG:.*]] = llvm.add %arg4, %{{.*}} : i32
// CHECK-NEXT:    llvm.call @__ccl_put_packets(%[[SLOT]], %[[IN]], %{{.*}}, %[[FLAG]])
// CHECK:         llvm.call @__ccl_unpack_packets(%arg0,
ccl.algorithm @pack_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "pack", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 1
  ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.unpack_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [0 : 1]>
}
