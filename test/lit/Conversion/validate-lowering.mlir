// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32 redops=sum' | FileCheck %s --check-prefix=OK
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,bfloat16 redops=sum,max type-generic=true' | FileCheck %s --check-prefix=OK
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum' | FileCheck %s --check-prefix=OK
// RUN: %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=sm_90 dtypes=float32 redops=sum per-rank-kernels=true' | FileCheck %s --check-prefix=RANK
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=row-entry' 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=program-index' 2>&1 | FileCheck %s --check-prefix=PROG
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=rank-count-select' 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=kernel-name' 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=sm_90 per-rank-kernels=true test-corrupt=kernel-name' 2>&1 | FileCheck %s --check-prefix=NAME-RANK
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=chunk-index' 2>&1 | FileCheck %s --check-prefix=CHUNK
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=scratch-slots' 2>&1 | FileCheck %s --check-prefix=SLOTS
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=channel-index' 2>&1 | FileCheck %s --check-prefix=PEER
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=wait-ordinal' 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,bfloat16 redops=sum,max type-generic=true test-corrupt=kind' 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host dtypes=float32,bfloat16 redops=sum,max type-generic=true test-corrupt=kind-row' 2>&1 | FileCheck %s --check-prefix=KIND-ROW
// RUN: not %ccl-opt %s --ccl-schedule --ccl-lower-to-llvm='target=host test-corrupt=bogus' 2>&1 | FileCheck %s --check-prefix=BOGUS
//
// The translation validation of --ccl-lower-to-llvm (Validation.h) reads
// the module it wrote: the kernel the plan names for each rank, its
// dispatch for each rank count, rank and block, the block program and the
// row it passes, and compares what that runs with the block's own lowered
// code and with the verified operations. Each test-corrupt value damages
// one table or operand kind; the result is an internal compiler error,
// never a module. The input: a ring AllGather at 2 and 3 ranks whose
// blocks share one program (rows of peers, chunks and channels) in one
// kernel that selects its rank count.

// Tests that the intact lowering passes the validation in every form: one
// kernel for both rank counts (host and sm_90, also type-generic).
// OK-LABEL: llvm.func {{.*}}@ccl_ring_nN_f32_sum(
// Tests that per-rank kernels (one per rank of each rank count on a GPU)
// pass it too.
// RANK-LABEL: llvm.func ptx_kernelcc @ccl_ring_n2_f32_sum_r0(
// RANK-LABEL: llvm.func ptx_kernelcc @ccl_ring_n3_f32_sum_r2(

// Tests that a changed value of a row (here the chunk count of the first
// block's scratch pointer) is reported with the call that differs.
// ROW: error: internal compiler error: the code generated for algorithm 'ring_n2' (2 ranks, float32 sum) differs from its verified schedule at rank 0, thread block 0: call 0 of block program 'ccl_ring_nN_f32_sum__p0' with row 0 of 'ccl_ring_nN_f32_sum__params' is __ccl_scratch_ptr(ctx, 0, 1, 0, 1, 262144, 3, 4, epoch, 0), the block's lowered code has __ccl_scratch_ptr(ctx, 0, 1, 0, 1, 262144, 2, 4, epoch, 0); no library is written

// Tests that a programs-table entry naming no program is a block that
// runs nothing.
// PROG: error: internal compiler error: {{.*}}'ring_n2' (2 ranks, float32 sum) {{.*}} at rank 0, thread block 0: kernel 'ccl_ring_nN_f32_sum' runs nothing for the block

// Tests that a kernel selecting the entries of another rank count (rows of
// the 3-rank variant at 2 ranks) is reported.
// SELECT: error: internal compiler error: {{.*}}'ring_n2' (2 ranks, float32 sum) {{.*}} at rank 0, thread block 0: call 0 of block program 'ccl_ring_nN_f32_sum__p0' with row 22 of

// Tests that a kernel the plan names and the module lacks is reported,
// also for a GPU's per-rank kernels.
// NAME: error: internal compiler error: {{.*}}'ring_n2'{{.*}}: the plan names kernel 'ccl_ring_nN_f32_sum' (or 'ccl_ring_nN_f32_sum_r0'), which the module does not define
// NAME-RANK: error: internal compiler error: {{.*}}'ring_n2'{{.*}}: the plan names kernel 'ccl_ring_n2_f32_sum' (or 'ccl_ring_n2_f32_sum_r0'), which the module does not define

// Tests that a pointer to another chunk than the verified operation's is
// reported by the chunk it names (the lowered code and its shared form
// agree: only the schedule tells).
// CHUNK: error: internal compiler error: {{.*}}'ring_n2'{{.*}} at rank 0, thread block 0: its chunk references differ: the schedule has chunk_ptr(input[0], chunks 2) (1 missing), the code has chunk_ptr(input[1], chunks 2) (1 not in the schedule)

// Tests that a scratch pointer laid out for another slot count than the
// plan's scratch buffer is reported.
// SLOTS: error: internal compiler error: {{.*}} its chunk references differ: the schedule has scratch_ptr(buffer 0 of rank 1, slot 0 of 1, chunks 2) (1 missing), the code has scratch_ptr(buffer 0 of rank 1, slot 0 of 2, chunks 2)

// Tests that a signal on another channel (another peer in the plan's
// channel table) is reported.
// PEER: error: internal compiler error: {{.*}} at rank 0, thread block 0: synchronisation call 0 is __ccl_signal(1), the schedule has __ccl_signal(0)

// Tests that a wait expecting another signal of its channel is reported.
// WAIT: error: internal compiler error: {{.*}} at rank 0, thread block 0: synchronisation call 1 is __ccl_wait(1, 1, 1), the schedule has __ccl_wait(1, 0, 1)

// Tests that in a type-generic lowering, where the kernel of each type and
// operator after the first is checked as a copy of the first (the same
// dispatch with its own kind), a copy passing another kind is checked in
// full and reported.
// KIND: error: internal compiler error: {{.*}}'ring_n2' (2 ranks, bfloat16 max) {{.*}} at rank 0, thread block 0: kernel 'ccl_ring_nN_bf16_max' passes kind 11 to its block program, not 10

// Tests that a copy whose dispatch passes another row (the next entry of
// the row table) is checked in full and reported.
// KIND-ROW: error: internal compiler error: {{.*}}'ring_n2' (2 ranks, bfloat16 max) {{.*}} at rank 0, thread block 0: call 1 of block program 'ccl_ring_nN_any__p0' with row 1 of 'ccl_ring_nN_any__params' is

// Tests that an unknown corruption is refused.
// BOGUS: error: unknown test-corrupt value 'bogus'
ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllGather>, name = "ring", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_1_0 tb 0
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"recv"[0] [0 : 1]>
  ccl.put @mem_1_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
}
ccl.algorithm @ring_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllGather>, name = "ring", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @mem_2_0 tb 0
  ccl.copy tb 0 <"output"[0] [2 : 1]> = <"recv"[0] [0 : 1]>
  ccl.put @mem_1_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.put @mem_2_0 tb 0 <"recv"[0] [0 : 1]> = <"input"[2] [0 : 1]> signal
  ccl.wait @mem_1_2 tb 0
  ccl.copy tb 0 <"output"[2] [1 : 1]> = <"recv"[2] [0 : 1]>
}
