// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// --ccl-verify runs each global-level algorithm symbolically and proves the
// AllReduce postcondition, reporting the first dropped or doubled
// contribution, wait that never completes, race or read of undefined data.

// Tests that a rank that never adds a peer's packets fails the postcondition,
// naming the missing input and where the result was last written.
// expected-error@+1 {{AllReduce postcondition fails with 2 ranks: output[1][0] (rank 1, chunk 0) holds input[1][0] but must hold the sum of chunk 0 of every rank's input (missing: input[0][0])}}
ccl.algorithm @dropped_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "dropped", nranks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  // expected-note@+1 {{last written here}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
}

// -----

// Tests that an output never written is reported as such.
// expected-error@+1 {{AllReduce postcondition fails with 2 ranks: output[0][0] (rank 0, chunk 0) is never written, but must hold the sum of chunk 0 of every rank's input}}
ccl.algorithm @unwritten_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "unwritten", nranks = 2 : i64, protocol = "LL"} {
}

// -----

// Tests that a contribution added twice is reported.
// expected-error@+1 {{output[0][0] (rank 0, chunk 0) holds input[0][0] + 2 x input[1][0] but must hold the sum of chunk 0 of every rank's input (counted more than once: input[1][0])}}
ccl.algorithm @twice_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "twice", nranks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  // expected-note@+1 {{last written here}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
}

// -----

// Tests that reading packets that no operation sends is reported (the read
// would wait forever).
ccl.algorithm @nosend_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "nosend", nranks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{rank 0 thread block 0 would wait forever for packets in recv[0][1]: no operation sends them}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
}

// -----

// Tests that two ranks that each wait for the other before sending are a
// cyclic wait, with a note where the other block is stuck.
ccl.algorithm @cycle_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "cycle", nranks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{rank 0 thread block 0 would wait forever for packets in recv[0][1]: the send is itself behind a wait that never completes (cyclic wait)}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  // expected-note@+1 {{rank 1 thread block 0 is stuck here}}
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
}

// -----

// Tests that two sends into one scratch slot in the same call are a
// write-write conflict.
ccl.algorithm @twosends_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "twosends", nranks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  // expected-note@+1 {{the other send is here}}
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{two sends write packets into recv[1][0] in the same call (write-write conflict)}}
  ccl.put_packets @mem_0_1 tb 2 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that two thread blocks of one rank writing one chunk race.
ccl.algorithm @race_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "race", nranks = 2 : i64, protocol = "Simple"} {
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{data race on output[0][0]: rank 0 thread block 1 writes it while rank 0 thread block 0 writes it, with nothing ordering the two}}
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

// Tests that a read in one thread block of a chunk another block writes races.
ccl.algorithm @readrace_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "readrace", nranks = 2 : i64, protocol = "Simple"} {
  ccl.scratch @tmp slots 1
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{data race on tmp[0][0]: rank 0 thread block 1 reads it while rank 0 thread block 0 writes it, with nothing ordering the two}}
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
}

// -----

// Tests that reading a scratch chunk before anything wrote it is reported.
ccl.algorithm @undef_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "undef", nranks = 2 : i64, protocol = "Simple"} {
  ccl.scratch @tmp slots 1
  // expected-error@+1 {{reads tmp[0][0] before anything wrote it}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
}

// -----

// Tests that reducing into a chunk before anything wrote it is reported.
ccl.algorithm @undefacc_n2 attributes {chunks = 1 : i64, collective = "AllReduce", name = "undefacc", nranks = 2 : i64, protocol = "LL"} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 "memory" 0 -> 1
  ccl.channel @mem_1_0 "memory" 1 -> 0
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  // expected-error@+1 {{reduces into output[0][0] before anything wrote it}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
}

// -----

// Tests that collectives other than AllReduce are not verified yet.
// expected-error@+1 {{verification of Broadcast is not implemented yet; compile with --no-verify}}
ccl.algorithm @bcast_n2 attributes {chunks = 1 : i64, collective = "Broadcast", name = "bcast", nranks = 2 : i64, protocol = "Simple"} {
}
