// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
// RUN: %ccl-opt %s --ccl-schedule --ccl-verify -split-input-file -verify-diagnostics
//
// Re-verification of fused operations, at the global level and after
// scheduling: the 2-rank ring after --ccl-lower-chunks and --ccl-fuse
// (reduce-send with a fused signal), and the same program with a fusion bug
// planted, which must be a compile error; then the out-of-place ring with
// its copies folded into reduces (`base`), correct and with a wrong or racy
// base.

// Tests that the correctly fused ring proves.
ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, inplace = true, name = "ring", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @mem_1_0_b0 tb 0
  ccl.reduce tb 0 <"input"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0] signal
  ccl.wait @mem_0_1_b0 tb 0
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.put @mem_0_1_b1 tb 1 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.wait @mem_0_1_b1 tb 1
  ccl.reduce tb 1 <"input"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"input"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that a fused reduce-send that lost its signal is caught: rank 1
// waits for a signal nothing sends.
ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, inplace = true, name = "ring", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @mem_1_0_b0 tb 0
  ccl.reduce tb 0 <"input"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0]
  // expected-note@+2 {{counterexample}}
  // expected-error@+1 {{would wait forever}}
  ccl.wait @mem_0_1_b0 tb 0
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.put @mem_0_1_b1 tb 1 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.wait @mem_0_1_b1 tb 1
  ccl.reduce tb 1 <"input"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"input"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that a fused forward into the wrong slot is caught: rank 1 copies
// a slot the forward never wrote.
ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, inplace = true, name = "ring", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @mem_1_0_b0 tb 0
  ccl.reduce tb 0 <"input"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> forward [#ccl.chunk<"xfer"[1] [1 : 1]>] via [@mem_0_1_b0] signal
  ccl.wait @mem_0_1_b0 tb 0
  // expected-error@+1 {{reads xfer[1][0] before anything wrote it}}
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.put @mem_0_1_b1 tb 1 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.wait @mem_0_1_b1 tb 1
  ccl.reduce tb 1 <"input"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"input"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that the out-of-place ring with its copies folded into the
// reduces (`base`, ccl-fuse's 3-address reduce) proves.
ccl.algorithm @ring_oop_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "ring_oop", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> forward [#ccl.chunk<"xfer"[0] [0 : 1]>] via [@mem_1_0_b0] signal
  ccl.wait @mem_1_0_b0 tb 0
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> base <"input"[0] [0 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0] signal
  ccl.wait @mem_0_1_b0 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"xfer"[1] [1 : 1]>] via [@mem_0_1_b1] signal
  ccl.wait @mem_0_1_b1 tb 1
  ccl.reduce tb 1 <"output"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> base <"input"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that a folded copy with the wrong base is caught: rank 0 reduces
// onto its chunk 1 instead of chunk 0 (a chunk of another size, so the
// reduce itself is the error).
ccl.algorithm @ring_oop_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "ring_oop", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> forward [#ccl.chunk<"xfer"[0] [0 : 1]>] via [@mem_1_0_b0] signal
  ccl.wait @mem_1_0_b0 tb 0
  // expected-error@+2 {{with 2 ranks: moves input[0][1] into output[0][0], a chunk of another size: with count = 1 they hold 1 and 0 elements}}
  // expected-note@+1 {{counterexample}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> base <"input"[0] [1 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0] signal
  ccl.wait @mem_0_1_b0 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"xfer"[1] [1 : 1]>] via [@mem_0_1_b1] signal
  ccl.wait @mem_0_1_b1 tb 1
  ccl.reduce tb 1 <"output"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> base <"input"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that a base a peer writes without ordering is a race: rank 0
// reads the slot rank 1's reduce forwards into.
ccl.algorithm @ring_oop_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "ring_oop", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]> forward [#ccl.chunk<"xfer"[0] [0 : 1]>] via [@mem_1_0_b0] signal
  ccl.wait @mem_1_0_b0 tb 0
  // expected-error@+1 {{rank 0 thread block 0 reads xfer[0][1], which the reduce at line}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> base <"xfer"[0] [1 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0] signal
  ccl.wait @mem_0_1_b0 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"xfer"[1] [1 : 1]>] via [@mem_0_1_b1] signal
  ccl.wait @mem_0_1_b1 tb 1
  // expected-note@+1 {{the write is here}}
  ccl.reduce tb 1 <"output"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> base <"input"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}
