// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// Liveness checks of --ccl-verify: waits, acquires, packet reads and
// thread-block barriers that nothing lets go on ("would wait forever ... no
// operation signals it"), cyclic waits across ranks and thread blocks
// (a note on every other stuck block), and signals that no wait consumes.

// Tests that a wait with no signal on its channel is reported.
ccl.algorithm @nosignal_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "nosignal", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{rank 1 thread block 0 would wait forever for signal #1 on channel @m_0_1: no operation signals it}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 1 thread block 0 ran nothing yet}}
  ccl.wait @m_0_1 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a second wait with only one signal on the channel is reported.
ccl.algorithm @onesignal_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "onesignal", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  // expected-error@+2 {{rank 1 thread block 0 would wait forever for signal #2 on channel @m_0_1: no operation signals it (the channel has 1 signal in all)}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 1 thread block 0 ran wait (line 26)}}
  ccl.wait @m_0_1 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that an acquire with no release is reported.
ccl.algorithm @norelease_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "norelease", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @sem rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-error@+2 {{rank 0 thread block 0 would wait forever on semaphore @sem (acquire #1): no operation releases it}}
  // expected-note@+1 {{counterexample}}
  ccl.acquire @sem tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that reading packets that no operation sends is reported (the read
// would wait forever).
ccl.algorithm @nosend_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "nosend", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{rank 0 thread block 0 would wait forever for packets in recv[0][1]: no operation sends them}}
  // expected-note@+1 {{counterexample}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that two ranks that each wait for the other's packets before sending
// are a cyclic wait, with a note where the other block is stuck.
ccl.algorithm @cycle_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "cycle", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{rank 0 thread block 0 would wait forever for packets in recv[0][1]: the send is itself behind a wait that never completes (cyclic wait)}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 0 thread block 0 ran copy (line 77); rank 1 thread block 0 ran copy (line 82)}}
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  // expected-note@+1 {{rank 1 thread block 0 is stuck here}}
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that two ranks that each wait for the other's signal before
// signalling are a cyclic wait.
ccl.algorithm @sigcycle_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "sigcycle", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  // expected-error@+2 {{rank 0 thread block 0 would wait forever for signal #1 on channel @m_1_0: the signal is itself behind a wait that never completes (cyclic wait)}}
  // expected-note@+1 {{counterexample}}
  ccl.wait @m_1_0 tb 0
  ccl.signal @m_0_1 tb 0
  // expected-note@+1 {{rank 1 thread block 0 is stuck here}}
  ccl.wait @m_0_1 tb 0
  ccl.signal @m_1_0 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that two thread blocks of one rank that each acquire a semaphore the
// other releases only afterwards are a cyclic wait.
ccl.algorithm @semcycle_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "semcycle", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @a rank 0
  ccl.semaphore @b rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-error@+2 {{rank 0 thread block 0 would wait forever on semaphore @a (acquire #1): the release is itself behind a wait that never completes (cyclic wait)}}
  // expected-note@+1 {{counterexample}}
  ccl.acquire @a tb 0
  ccl.release @b tb 0
  // expected-note@+1 {{rank 0 thread block 1 is stuck here}}
  ccl.acquire @b tb 1
  ccl.release @a tb 1
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a thread-block barrier that one participant can only reach
// after an acquire the other participant releases behind the barrier is a
// cyclic wait.
ccl.algorithm @barcycle_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "barcycle", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @s rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{rank 0 thread block 1 is stuck here}}
  ccl.acquire @s tb 1
  // expected-error@+2 {{rank 0 thread block 0 would wait forever at the thread-block barrier: thread block 1 is itself stuck before it (cyclic wait)}}
  // expected-note@+1 {{counterexample}}
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.release @s tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a chunk-level copy whose implicit synchronisation waits for an
// operation stuck behind a wait is part of a cyclic wait.
ccl.algorithm @chunkcycle_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "chunkcycle", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  // expected-note@+1 {{rank 1 thread block 0 is stuck here}}
  ccl.wait @m_0_1 tb 0
  ccl.copy tb 0 <"tmp"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  // expected-error@+2 {{rank 0 thread block 0 would wait forever before this chunk-level copy: it must run after the copy at line 160, which is itself behind a wait that never completes (cyclic wait)}}
  // expected-note@+1 {{counterexample}}
  ccl.copy <"output"[0] [0 : 1]> = <"tmp"[1] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}

// -----

// Tests that a signal no wait consumes is reported: the next call's first
// wait would return at once.
ccl.algorithm @stale_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "stale", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  // expected-note@+1 {{in call 2 this wait (#1 of the call) would take signal #2 of call 1 and go on before its own call's signal}}
  ccl.wait @m_0_1 tb 0
  // expected-error@+1 {{signal #2 on channel @m_0_1 has no matching wait: a later call would see a stale signal}}
  ccl.signal @m_0_1 tb 0 relaxed
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that at the kernel level a thread-block barrier that a participant
// never reaches (its copy is missing from that block) is reported.
ccl.algorithm @barmissing_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "barmissing", nranks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
    // expected-error@+2 {{rank 0 thread block 0 would wait forever at the thread-block barrier: thread block 1 never reaches it}}
    // expected-note@+1 {{counterexample}}
    ccl.tb_barrier rank 0 tbs [0, 1]
  }
  ccl.thread_block rank 0 tb 1 {
  }
}
