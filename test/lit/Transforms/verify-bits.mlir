// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// The bits an algorithm promises of its reduced results (--ccl-verify's
// reduction expressions, docs/semantics.md "Rank-consistent results"); more
// cases, from .ccl source, in test/lit/cclc/bits.ccl.

// Tests that an AllReduce whose ranks add their own input first is rejected
// (an AllReduce promises rank consistency unless it says bits<any>), with
// both ranks' expressions and, on each, the first step the other never
// takes.
// expected-error@+1 {{with 3 ranks: AllReduce gives ranks different bits: output[0][0] and output[1][0] both hold input[0][0] + input[1][0] + input[2][0], but rank 0 computes (input[0][0] + input[1][0]) + input[2][0] and rank 1 computes (input[1][0] + input[2][0]) + input[0][0]}}
ccl.algorithm @of_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "of", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.channel @mem_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-note@+1 {{rank 0 computes input[0][0] + input[1][0] here, which rank 1 never does}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  // expected-note@+1 {{rank 1 computes input[1][0] + input[2][0] here, which rank 0 never does}}
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.put_packets @mem_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}

// -----

// Tests that the same algorithm is accepted with bits<any>.
ccl.algorithm @ofany_n3 attributes {bits = #ccl.bits<any>, chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "of", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.channel @mem_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.put_packets @mem_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}

// -----

// Tests that a user-defined collective with bits<rank_consistent> is held
// to it.
// expected-error@+1 {{with 3 ranks: Sum gives ranks different bits}}
ccl.algorithm @sum_n3 attributes {bits = #ccl.bits<rank_consistent>, chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Sum", name = "of", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.channel @mem_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-note@+1 {{rank 0 computes input[0][0] + input[1][0] here, which rank 1 never does}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  // expected-note@+1 {{rank 1 computes input[1][0] + input[2][0] here, which rank 0 never does}}
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.put_packets @mem_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}

// -----

// Tests that a user-defined collective promises nothing by default.
ccl.algorithm @sumany_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Sum", name = "of", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.channel @mem_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.put_packets @mem_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}

// -----

// Tests that a multimem reduce is an order of the switch's own: two ranks
// that each reduce the chunk on the switch may get different bits, even at
// 2 ranks (verify-correct.mlir's nvls_n2, which reduces each chunk once and
// broadcasts the result, is accepted).
// expected-error@+1 {{with 2 ranks: AllReduce gives ranks different bits: output[0][0] and output[1][0] both hold input[0][0] + input[1][0], but rank 0 computes the switch's reduction of input[0][0] + input[1][0] (line}}
ccl.algorithm @twice_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "twice", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @s_0_1 memory 0 -> 1
  ccl.channel @s_1_0 memory 1 -> 0
  ccl.channel @e_0_1 memory 0 -> 1
  ccl.channel @e_1_0 memory 1 -> 0
  ccl.switch_channel @sw ranks [0, 1]
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.signal @s_0_1 tb 0
  ccl.wait @s_1_0 tb 0
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @e_0_1 tb 0
  ccl.wait @e_1_0 tb 0
  ccl.signal @s_1_0 tb 0
  ccl.wait @s_0_1 tb 0
  ccl.multimem_reduce @sw tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.signal @e_1_0 tb 0
  ccl.wait @e_0_1 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}
