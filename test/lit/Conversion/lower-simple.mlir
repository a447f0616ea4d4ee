// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,bfloat16 redops=sum,max' | FileCheck %s
// RUN: %ccl-opt %s --split-input-file --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum' | FileCheck %s --check-prefix=SM90

// Tests that the Simple-protocol operations lower to their device-library
// calls, channels, semaphores and multi-block barriers passed as their
// indices in the plan's tables (lower-sync.mlir has more of them), each
// block in its block program (rank 0's block 0 is p0; rank 1's blocks 0 and
// 1 are p1 and p2; rank 0 has no block 1):
//  - put into a peer's scratch slot -> __ccl_put (bytes of the source
//    chunk), and `signal` fused after it -> __ccl_signal(ctx, channel);
//    the put block calls nothing dtype- or op-specific, so the four kernels
//    share it, reading the element size and slot layout from their params
//    rows (4 and 262144 for float32, 2 and 524288 for bfloat16);
//  - signal relaxed -> __ccl_signal_relaxed;
//  - wait / wait relaxed -> __ccl_wait(_relaxed)(ctx, channel, ordinal,
//    op_id), where the ordinal counts the block's earlier waits on the
//    channel, and the block ends with __ccl_wait_commit(ctx, channel, n);
//  - local reduce (dtype and op in the name), copy out of scratch;
//  - release / acquire -> __ccl_release(ctx, sem) / __ccl_acquire(ctx, sem,
//    op_id); get -> __ccl_get; read_reduce ->
//    __ccl_read_reduce_<dt>_<op>(dst, n, elems, s0 .. s7) with the unused
//    source pointers null (more than 8 sources: see read_reduce_9 below);
//    tb_barrier -> __ccl_tb_barrier(ctx, index, nblocks, op_id) in every
//    participating block;
//  - the kernel (one for both ranks) switches on the entry's program to a
//    call of it, without stack memory.

// CHECK-DAG:   llvm.mlir.global internal constant @ccl_simple_nN_f32_sum__programs(dense<[0, -1, 1, 2]> : tensor<4xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_simple_nN_f32_max__programs(dense<[0, -1, 3, 4]> : tensor<4xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_simple_nN_f32_sum__params(dense<[4, 262144, 4, 4, 4, 262144, 4, 4]> : tensor<8xi32>)
// CHECK-DAG:   llvm.mlir.global internal constant @ccl_simple_nN_bf16_sum__params(dense<[2, 524288, 2, 2, 2, 524288, 2, 2]> : tensor<8xi32>)
// Rank 0, block 0.
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_f32_sum__p0(
// CHECK-SAME:    %arg5: !llvm.ptr) attributes {passthrough = ["ccl-block-program", "ccl-shared-program"]}
// CHECK:         %[[DST:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[SRC:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[N:.*]] = llvm.call @__ccl_chunk_elems(
// CHECK-NEXT:    %[[EK:.*]] = llvm.mlir.constant(3 : i32) : i32
// CHECK-NEXT:    %[[EP:.*]] = llvm.getelementptr %arg5[%[[EK]]]
// CHECK-NEXT:    %[[E32:.*]] = llvm.load %[[EP]] invariant
// CHECK-NEXT:    %[[ES:.*]] = llvm.sext %[[E32]] : i32 to i64
// CHECK-NEXT:    %[[BYTES:.*]] = llvm.mul %[[N]], %[[ES]] : i64
// CHECK-NEXT:    llvm.call @__ccl_put(%[[DST]], %[[SRC]], %[[BYTES]])
// CHECK-NEXT:    %[[C0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C0]])
// CHECK:         llvm.call @__ccl_put(
// CHECK-NOT:     llvm.call @__ccl_signal(
// CHECK:         llvm.call @__ccl_signal_relaxed(%arg0,
// CHECK-NOT:     __ccl_wait_commit
// CHECK:         llvm.return
// Rank 1, block 0: two waits on channel 0 (ordinals 0 and 1, op ids 3 and
// 4), committed at the end of the block.
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_f32_sum__p1(
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
// CHECK-NEXT:    llvm.return
// Rank 1, block 1.
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_f32_sum__p2(
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
// CHECK-NEXT:    llvm.return
// The other kernels' reducing blocks call the matching reductions.
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_f32_max__p3(
// CHECK:         llvm.call @__ccl_reduce_f32_max(
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_f32_max__p4(
// CHECK:         llvm.call @__ccl_read_reduce_f32_max(
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_bf16_sum__p5(
// CHECK:         llvm.call @__ccl_reduce_bf16_sum(
// CHECK-LABEL: llvm.func internal @ccl_simple_nN_bf16_sum__p6(
// CHECK:         llvm.call @__ccl_read_reduce_bf16_sum(
// CHECK-LABEL: llvm.func @ccl_simple_nN_f32_sum(
// CHECK-NOT:     llvm.alloca
// CHECK:         llvm.switch %{{.*}} : i32, ^[[EXIT:bb[0-9]+]] [
// CHECK-NEXT:      0: ^[[P0:bb[0-9]+]],
// CHECK-NEXT:      1: ^[[P1:bb[0-9]+]],
// CHECK-NEXT:      2: ^[[P2:bb[0-9]+]]
// CHECK-NEXT:    ]
// CHECK:       ^[[P0]]:
// CHECK-NEXT:    llvm.call @ccl_simple_nN_f32_sum__p0(
// CHECK:       ^[[P1]]:
// CHECK-NEXT:    llvm.call @ccl_simple_nN_f32_sum__p1(
// CHECK:       ^[[P2]]:
// CHECK-NEXT:    llvm.call @ccl_simple_nN_f32_sum__p2(
// CHECK-NOT:     llvm.alloca
// CHECK-LABEL: llvm.func @ccl_simple_nN_f32_max(
// CHECK:         llvm.switch
// CHECK-NEXT:      0: ^[[Q0:bb[0-9]+]],
// CHECK-NEXT:      3: ^[[Q3:bb[0-9]+]],
// CHECK-NEXT:      4: ^[[Q4:bb[0-9]+]]
// CHECK:       ^[[Q0]]:
// CHECK-NEXT:    llvm.call @ccl_simple_nN_f32_sum__p0(

// Tests that sm_90, too, has one kernel for both ranks (their blocks are
// three programs, at most twice the two of rank 1), its tables (a few
// bytes, well under 60 KiB) in the constant space (address space 4), and
// the programs' row argument a pointer into it.
// SM90-DAG:    llvm.mlir.global internal constant @ccl_simple_nN_f32_sum__programs(dense<[0, -1, 1, 2]> : tensor<4xi32>) {addr_space = 4 : i32
// SM90-LABEL:  llvm.func internal @ccl_simple_nN_f32_sum__p0(
// SM90-SAME:     %arg5: !llvm.ptr<4>)
// SM90:          llvm.call @__ccl_put(
// SM90:          llvm.call @__ccl_signal(
// SM90-LABEL:  llvm.func internal @ccl_simple_nN_f32_sum__p1(
// SM90:          llvm.call @__ccl_wait(
// SM90:          llvm.call @__ccl_wait_commit(
// SM90-LABEL:  llvm.func ptx_kernelcc @ccl_simple_nN_f32_sum(
// SM90:          llvm.switch
// SM90-NEXT:       0: ^{{bb[0-9]+}},
// SM90-NEXT:       1: ^{{bb[0-9]+}},
// SM90-NEXT:       2: ^{{bb[0-9]+}}
// SM90-NEXT:     ]
// SM90-NOT:    @ccl_simple_n2_f32_sum_r
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

// CHECK-LABEL: llvm.func internal @ccl_rr9_nN_f32_sum__p0(
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

// CHECK-LABEL: llvm.func internal @ccl_fused_nN_f32_sum__p0(
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
// CHECK:         llvm.return
ccl.algorithm @fused_n3 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "fused", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@mem_0_2] signal
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"s"[0] [0 : 1]> and [#ccl.chunk<"s"[0] [1 : 1]>] forward [#ccl.chunk<"s"[1] [1 : 1]>] via [@mem_0_1] signal
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"s"[2] [1 : 1]>] via [@mem_0_2]
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"s"[0] [1 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@mem_0_2] signal
}

// -----

// Tests that a reduce with a base (a local copy the fusion pass folded in)
// is one pass, __ccl_reduce_base_*(dst, base, src, forward, n): without a
// forward, the forward pointer is null and nothing follows; with one
// forward, it is the forward's slot and the fused signal follows; with two,
// the block synchronises and puts the result to each.
// CHECK-LABEL: llvm.func internal @ccl_based_nN_f32_sum__p0(
// CHECK:         %[[D0:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[S0:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[B0:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[Z0:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         llvm.call @__ccl_reduce_base_f32_sum(%[[D0]], %[[B0]], %[[S0]], %[[Z0]],
// CHECK-NOT:     llvm.call @__ccl_barrier()
// CHECK-NOT:     llvm.call @__ccl_put(
// CHECK:         %[[D1:.*]] = llvm.call @__ccl_chunk_ptr(%arg2,
// CHECK:         %[[S1:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         %[[B1:.*]] = llvm.call @__ccl_chunk_ptr(%arg1,
// CHECK:         %[[F1:.*]] = llvm.call @__ccl_scratch_ptr(
// CHECK:         llvm.call @__ccl_reduce_base_f32_sum(%[[D1]], %[[B1]], %[[S1]], %[[F1]],
// CHECK-NEXT:    %[[C1:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    llvm.call @__ccl_signal(%arg0, %[[C1]])
// CHECK:         llvm.call @__ccl_reduce_base_f32_sum(%[[D2:[0-9]+]], %{{.*}}, %{{.*}}, %{{.*}},
// CHECK-NEXT:    llvm.call @__ccl_barrier()
// CHECK:         llvm.call @__ccl_put(%{{.*}}, %[[D2]],
// CHECK:         llvm.call @__ccl_put(%{{.*}}, %[[D2]],
// CHECK:         llvm.return
// SM90-LABEL:  llvm.func internal @ccl_based_nN_f32_sum__p0(
// SM90:          llvm.call @__ccl_reduce_base_f32_sum(
ccl.algorithm @based_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllReduce>, name = "based", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"s"[0] [0 : 1]> base <"input"[0] [0 : 1]>
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"s"[0] [1 : 1]> base <"input"[0] [1 : 1]> forward [#ccl.chunk<"s"[1] [1 : 1]>] via [@mem_0_1] signal
  ccl.reduce tb 0 <"output"[0] [2 : 1]> from <"s"[0] [2 : 1]> base <"input"[0] [2 : 1]> forward [#ccl.chunk<"s"[1] [2 : 1]>, #ccl.chunk<"s"[2] [2 : 1]>] via [@mem_0_1, @mem_0_2]
}
