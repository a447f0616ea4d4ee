// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,bfloat16 redops=sum,max' | FileCheck %s
// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum' | FileCheck %s --check-prefix=SM90

// Tests that the Simple-protocol operations lower to their device-library
// calls, channels, semaphores and multi-block barriers passed as their
// indices in the plan's tables (lower-sync.mlir has more of them):
//  - put into a peer's scratch slot -> __ccl_put (bytes of the source
//    chunk), and `signal` fused after it -> __ccl_signal(ctx, channel);
//  - signal relaxed -> __ccl_signal_relaxed;
//  - wait / wait relaxed -> __ccl_wait(_relaxed)(ctx, channel, ordinal,
//    op_id), where the ordinal counts the block's earlier waits on the
//    channel, and the case ends with __ccl_wait_commit(ctx, channel, n);
//  - local reduce (dtype and op in the name), copy out of scratch;
//  - release / acquire -> __ccl_release(ctx, sem) / __ccl_acquire(ctx, sem,
//    op_id); get -> __ccl_get; read_reduce ->
//    __ccl_read_reduce_<dt>_<op>(dst, n, elems, s0 .. s7) with the unused
//    source pointers null (more than 8 sources: see read_reduce_9 below);
//    tb_barrier -> __ccl_tb_barrier(ctx, index, nblocks, op_id) in every
//    participating block.

// CHECK-LABEL: llvm.func @ccl_simple_n2_f32_sum(
// CHECK-NOT:     llvm.alloca
// CHECK:         llvm.switch
// Rank 0, block 0.
// CHECK:       ^bb1:
// CHECK:         %[[DST:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[SRC:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[N:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK:         %[[BYTES:.*]] = llvm.mul %[[N]], %{{.*}} : i64
// CHECK-NEXT:    llvm.call @__ccl_put(%[[DST]], %[[SRC]], %[[BYTES]])
// CHECK-NEXT:    %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C0]])
// CHECK:         llvm.call @__ccl_put(
// CHECK-NOT:     llvm.call @__ccl_signal(
// CHECK:         llvm.call @__ccl_signal_relaxed(%arg0,
// CHECK-NOT:     __ccl_wait_commit
// CHECK:         llvm.br ^bb4
// Rank 1, block 0: two waits on channel 0 (ordinals 0 and 1, op ids 3 and
// 4), committed at the end of the case.
// CHECK:       ^bb2:
// CHECK-NEXT:    %[[CH:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ORD:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ID:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait(%arg0, %[[CH]], %[[ORD]], %[[ID]])
// CHECK-NEXT:    %[[CH2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[ORD2:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[ID2:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait_relaxed(%arg0, %[[CH2]], %[[ORD2]], %[[ID2]])
// CHECK:         %[[RD:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[RN:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK:         %[[RS:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         llvm.call @__ccl_reduce_f32_sum(%[[RD]], %[[RS]], %[[RN]])
// CHECK:         llvm.call @__ccl_copy(
// CHECK:         %[[SEM:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_release(%arg0, %[[SEM]])
// CHECK:         llvm.call @__ccl_tb_barrier(%arg0,
// CHECK-NEXT:    %[[CCH:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[CN:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_wait_commit(%arg0, %[[CCH]], %[[CN]])
// CHECK-NEXT:    llvm.br ^bb4
// Rank 1, block 1.
// CHECK:       ^bb3:
// CHECK-NEXT:    %[[SEM2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[AID:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_acquire(%arg0, %[[SEM2]], %[[AID]])
// CHECK:         llvm.call @__ccl_get(
// CHECK:         %[[RRD:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[RRN:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK:         %[[S0:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[S1:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[NS:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_read_reduce_f32_sum(%[[RRD]], %[[NS]], %[[RRN]], %[[S0]], %[[S1]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]], %[[NULL]])
// CHECK-NEXT:    %[[B:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[BN:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[BID:.*]] = llvm.mlir.constant({{[0-9]+|-1}} : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_tb_barrier(%arg0, %[[B]], %[[BN]], %[[BID]])
// CHECK-NEXT:    llvm.br ^bb4
// The other kernels of the variant call the matching reductions.
// CHECK-LABEL: llvm.func @ccl_simple_n2_f32_max(
// CHECK:         llvm.call @__ccl_reduce_f32_max(
// CHECK:         llvm.call @__ccl_read_reduce_f32_max(
// CHECK-LABEL: llvm.func @ccl_simple_n2_bf16_sum(
// CHECK:         llvm.call @__ccl_reduce_bf16_sum(
// CHECK:         llvm.call @__ccl_read_reduce_bf16_sum(

// SM90-LABEL: llvm.func ptx_kernelcc @ccl_simple_n2_f32_sum_r0(
// SM90:         llvm.call @__ccl_put(
// SM90:         llvm.call @__ccl_signal(
// SM90-LABEL: llvm.func ptx_kernelcc @ccl_simple_n2_f32_sum_r1(
// SM90:         llvm.call @__ccl_wait(
// SM90:         llvm.call @__ccl_wait_commit(
ccl.algorithm @simple_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "simple", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.semaphore @sem_1_0 rank 1
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @mem_0_1 tb 0 <"recv"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @mem_0_1 tb 0 relaxed
  ccl.wait @mem_0_1 tb 0
  ccl.wait @mem_0_1 tb 0 relaxed
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"recv"[1] [1 : 1]>
  ccl.release @sem_1_0 tb 0
  ccl.acquire @sem_1_0 tb 1
  ccl.get @mem_1_0 tb 1 <"output"[1] [1 : 1]> = <"recv"[0] [1 : 1]>
  ccl.read_reduce tb 1 <"output"[1] [0 : 1]> from [#ccl.chunk<"recv"[0] [0 : 1]>, #ccl.chunk<"recv"[0] [1 : 1]>] via [@mem_1_0, @mem_1_0]
  ccl.tb_barrier rank 1 tbs [0, 1]
}

// -----
// Tests that a read-reduce with more than 8 sources takes several library
// calls (8 sources, then the rest), with a block barrier between them.

// CHECK-LABEL: llvm.func @ccl_rr9_n10_f32_sum(
// CHECK:         llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[N8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_read_reduce_f32_sum(%{{.*}}, %[[N8]],
// CHECK-NEXT:    llvm.call @__ccl_barrier()
// CHECK-NEXT:    %[[N1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_read_reduce_f32_sum(%{{[0-9]+}}, %[[N1]], %{{[0-9]+}}, %{{[0-9]+}}, %[[Z:[0-9]+]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]], %[[Z]])
ccl.algorithm @rr9_n10 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rr9", nranks = 10 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @c1 memory 0 -> 1
  ccl.channel @c2 memory 0 -> 2
  ccl.channel @c3 memory 0 -> 3
  ccl.channel @c4 memory 0 -> 4
  ccl.channel @c5 memory 0 -> 5
  ccl.channel @c6 memory 0 -> 6
  ccl.channel @c7 memory 0 -> 7
  ccl.channel @c8 memory 0 -> 8
  ccl.channel @c9 memory 0 -> 9
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"s"[1] [0 : 1]>, #ccl.chunk<"s"[2] [0 : 1]>, #ccl.chunk<"s"[3] [0 : 1]>, #ccl.chunk<"s"[4] [0 : 1]>, #ccl.chunk<"s"[5] [0 : 1]>, #ccl.chunk<"s"[6] [0 : 1]>, #ccl.chunk<"s"[7] [0 : 1]>, #ccl.chunk<"s"[8] [0 : 1]>, #ccl.chunk<"s"[9] [0 : 1]>] via [@c1, @c2, @c3, @c4, @c5, @c6, @c7, @c8, @c9]
}

// -----
// Tests the fused forms the fusion pass produces:
//  - a multi-destination put (`forward [...] via [...]`) puts the same
//    source into every destination, and its `signal` then signals every
//    destination's channel, after all the puts;
//  - an n-ary local reduce (`and [...]`) is one read-reduce call over all
//    sources; with a forward, the block synchronises (the result was just
//    written) and puts the result to the forward destination, and the fused
//    `signal` signals the forward channel;
//  - a copy with one forward (receive-copy-send) writes the copy and the
//    forward in one pass (__ccl_copy_fwd, no barrier, no second read);
//    without `signal` there is no signal;
//  - a two-operand reduce with one forward (reduce-send) likewise, in one
//    pass (__ccl_reduce_fwd_*), then its signal.

// CHECK-LABEL: llvm.func @ccl_fused_n3_f32_sum(
// CHECK:       ^bb1:
// CHECK:         %[[SRC:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         llvm.call @__ccl_put(%{{.*}}, %[[SRC]],
// CHECK:         %[[F:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         llvm.call @__ccl_put(%[[F]], %[[SRC]],
// CHECK-NEXT:    %[[C01:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C01]])
// CHECK-NEXT:    %[[C02:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C02]])
// CHECK:         llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT:    %[[N2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_read_reduce_f32_sum(%[[RD:[0-9]+]], %[[N2]],
// CHECK-NEXT:    llvm.call @__ccl_barrier()
// CHECK:         llvm.call @__ccl_put(%{{.*}}, %[[RD]],
// CHECK-NEXT:    %[[C01B:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C01B]])
// CHECK:         %[[CD:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[CS:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[CF:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK-NOT:     llvm.call @__ccl_barrier()
// CHECK:         llvm.call @__ccl_copy_fwd(%[[CD]], %[[CF]], %[[CS]],
// CHECK-NOT:     llvm.call @__ccl_signal(
// CHECK-NOT:     llvm.call @__ccl_put(
// CHECK:         %[[RD2:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[RS2:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[RF2:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK-NOT:     llvm.call @__ccl_barrier()
// CHECK:         llvm.call @__ccl_reduce_fwd_f32_sum(%[[RD2]], %[[RS2]], %[[RF2]],
// CHECK-NEXT:    %[[C02C:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C02C]])
// CHECK-NOT:     llvm.call @__ccl_put(
// CHECK:         llvm.br
ccl.algorithm @fused_n3 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "fused", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@mem_0_2] signal
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"s"[0] [0 : 1]> and [#ccl.chunk<"s"[0] [1 : 1]>] forward [#ccl.chunk<"s"[1] [1 : 1]>] via [@mem_0_1] signal
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"s"[2] [1 : 1]>] via [@mem_0_2]
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"s"[0] [1 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@mem_0_2] signal
}
