// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// --ccl-verify proves each algorithm against its own contract: ccl.require
// seeds the initial state, ccl.ensure is the postcondition. This file holds
// the contract and value errors: no postcondition, a wrong final value
// (missing, double-counted or foreign terms), duplicate contract entries and
// reads of undefined data. Races and visibility: verify-races.mlir; waits and
// signals: verify-sync.mlir; resources and static checks:
// verify-resources.mlir.

// Tests that an algorithm without a postcondition is rejected.
// expected-error@+1 {{algorithm 'nopost' (2 ranks) has no postcondition: without 'ccl.ensure' there is nothing to prove it against}}
ccl.algorithm @nopost_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "nopost", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that a rank that never adds a peer's packets fails the postcondition
// at its ccl.ensure, naming the missing input and where the result was last
// written.
// expected-error@+1 {{with 2 ranks: AllReduce postcondition fails: output[1][0] (rank 1, chunk 0) holds input[1][0] but must hold input[0][0] + input[1][0] (missing: input[0][0])}}
ccl.algorithm @dropped_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "dropped", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  // expected-note@+1 {{last written here}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  // expected-note@+1 {{the postcondition is stated here}}
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that an output never written is reported as such.
// expected-error@+1 {{with 2 ranks: AllReduce postcondition fails: output[0][0] (rank 0, chunk 0) is never written, but must hold input[0][0] + input[1][0]}}
ccl.algorithm @unwritten_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "unwritten", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  // expected-note@+1 {{the postcondition is stated here}}
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that a contribution added twice is reported.
// expected-error@+1 {{with 2 ranks: AllReduce postcondition fails: output[0][0] (rank 0, chunk 0) holds input[0][0] + 2 x input[1][0] but must hold input[0][0] + input[1][0] (counted more than once: input[1][0])}}
ccl.algorithm @twice_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "twice", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  // expected-note@+1 {{last written here}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  // expected-note@+1 {{the postcondition is stated here}}
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that any collective is checked against its own contract: a
// custom collective whose rank 1 receives the wrong rank's chunk is
// reported with the foreign and the missing term; a term repeated in
// ccl.ensure counts twice.
// expected-error@+1 {{with 2 ranks: ToNext postcondition fails: output[1][1] (rank 1, chunk 1) holds input[1][1] but must hold input[0][1] (missing: input[0][1]) (not part of it: input[1][1])}}
ccl.algorithm @to_next_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "ToNext", name = "to_next", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  // expected-note@+1 {{last written here}}
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  // expected-note@+1 {{the postcondition is stated here}}
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// Tests that a move between chunks of different size is an error where it
// happens: a Broadcast that puts the root's chunk 0 into chunk 1 of rank 1
// (two chunks: with count = 1, chunk 0 holds nothing and chunk 1 one
// element, so the put would move too little).
ccl.algorithm @bcast_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<Broadcast>, name = "bcast", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{with 2 ranks: moves input[0][0] into output[1][1], a chunk of another size: with count = 1 they hold 0 and 1 elements (chunk i of a buffer of E elements in k chunks starts at floor(i * E / k)); a value can only move into a chunk of its own size}}
  // expected-note@+1 {{counterexample}}
  ccl.put @m_0_1 tb 0 <"output"[1] [1 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// Tests that a contract asking a chunk to hold a chunk of another size is
// rejected at the ensure: no program can meet it.
ccl.algorithm @rotate_n2 attributes {chunks = 3 : i64, collective = #ccl.collective<custom>, custom_collective = "Rotate", name = "rotate", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{with 2 ranks: output[0][1] is to hold input[0][0], a chunk of another size: with count = 2 they hold 0 and 1 elements}}
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that moves between chunks at the same place of their grids are
// accepted: an AllGather puts input[r][c] into output[p][r * 2 + c] (two
// chunks of count elements, 2n chunks of n * count elements: the same
// boundaries).
ccl.algorithm @gather_grid_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllGather>, name = "gather_grid", nranks = 2 : i64, output_chunks = 4 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.copy <"output"[1] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.copy tb 0 <"output"[1] [2 : 2]> = <"input"[1] [0 : 2]>
  ccl.copy <"output"[0] [2 : 2]> = <"input"[1] [0 : 2]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[0] [2 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [3 : 1]> = [#ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [2 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [3 : 1]> = [#ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that a location with two postconditions is rejected.
ccl.algorithm @twoensure_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "twoensure", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the first one is here}}
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  // expected-error@+1 {{second postcondition for output[0][0]}}
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a location with two preconditions is rejected.
ccl.algorithm @tworequire_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "tworequire", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-note@+1 {{the first one is here}}
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-error@+1 {{second precondition for input[0][0]}}
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that reading a scratch chunk before anything wrote it is reported.
ccl.algorithm @undef_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "undef", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-error@+1 {{reads tmp[0][0] before anything wrote it}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a chunk no ccl.require mentions is undefined: in a Broadcast
// from rank 0, rank 1's input holds nothing.
ccl.algorithm @undefinput_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "undefinput", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{reads input[1][0] before anything wrote it}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that reading data that a put writes only later in program order
// (with nothing ordering the put first) is reported, naming the put.
ccl.algorithm @early_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "early", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{with 2 ranks: rank 1 thread block 0 reads recv[1][0], which the put at line 212 writes, but this operation is not ordered after that put (a signal after the put and a matching wait before this operation would order it)}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  // expected-note@+1 {{the write is here}}
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that reducing into a chunk before anything wrote it is reported.
ccl.algorithm @undefacc_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "undefacc", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  // expected-error@+1 {{reduces into output[0][0] before anything wrote it}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}
