// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// Consecutive calls: --ccl-verify runs each algorithm for several calls back
// to back (a rank starts call k+1 as soon as its own thread blocks finish
// call k; the caller reads each call's results when the rank returns and
// reuses the buffers; signal and semaphore counters carry over). Each case
// below is correct in a single call and wrong when calls follow each other
// without synchronisation; the fixed versions of the first four are in
// verify-correct.mlir.

// Tests that a sender that refills a peer's scratch slot in the next call
// before the peer has reduced it in this one is reported: the sender's call
// ends without waiting for the peer's reduce.
ccl.algorithm @rs_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<ReduceScatter>, name = "rs", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, output_chunks = 1 : i64} {
  ccl.scratch @recv slots 3
  ccl.channel @c_0_1 port 0 -> 1
  ccl.channel @c_0_2 memory 0 -> 2
  ccl.channel @c_1_0 memory 1 -> 0
  ccl.channel @c_1_2 memory 1 -> 2
  ccl.channel @c_2_0 port 2 -> 0
  ccl.channel @c_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
  ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
  // expected-error@+2 {{with 3 ranks: write-after-read race on recv[1][0] between calls: rank 0 thread block 0 writes it in call 2 while rank 1 thread block 1 may still read it in call 1 at line}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 1 thread block 1 ran}}
  ccl.put @c_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal flush
  ccl.put @c_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [2 : 1]>
  ccl.signal @c_0_2 tb 0
  ccl.put @c_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.put @c_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [2 : 1]> signal
  ccl.put @c_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]> signal flush
  ccl.put @c_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [1 : 1]> signal
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @c_1_0 tb 1
  ccl.reduce tb 1 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.wait @c_2_0 tb 1
  ccl.reduce tb 1 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"input"[1] [1 : 1]>
  ccl.wait @c_0_1 tb 1
  // expected-note@+1 {{the other access is here}}
  ccl.reduce tb 1 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.wait @c_2_1 tb 1
  ccl.reduce tb 1 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.copy tb 1 <"output"[2] [0 : 1]> = <"input"[2] [2 : 1]>
  ccl.wait @c_0_2 tb 1
  ccl.reduce tb 1 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.wait @c_1_2 tb 1
  ccl.reduce tb 1 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
}


// -----

// Tests that a rank returning from a call while a peer still gets data
// from its output is reported: the caller reuses the output for the next
// call.
// expected-note@+1 {{the other access is here}}
ccl.algorithm @ag_get_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllGather>, name = "ag_get", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, output_chunks = 3 : i64} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_0_2 memory 0 -> 2
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.channel @m_1_2 memory 1 -> 2
  ccl.channel @m_2_0 memory 2 -> 0
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.signal @m_0_2 tb 0
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_2 tb 0
  ccl.copy tb 0 <"output"[2] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.signal @m_2_0 tb 0
  ccl.signal @m_2_1 tb 0
  ccl.wait @m_1_0 tb 2
  ccl.get @m_0_1 tb 2 <"output"[0] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.wait @m_2_0 tb 3
  ccl.get @m_0_2 tb 3 <"output"[0] [2 : 1]> = <"output"[2] [2 : 1]>
  ccl.wait @m_0_1 tb 1
  // expected-error@+2 {{with 3 ranks: data race on output[0][0] between calls: rank 1 thread block 1 reads it in call 1 at line}}
  // expected-note@+1 {{counterexample}}
  ccl.get @m_1_0 tb 1 <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.wait @m_2_1 tb 3
  ccl.get @m_1_2 tb 3 <"output"[1] [2 : 1]> = <"output"[2] [2 : 1]>
  ccl.wait @m_0_2 tb 1
  ccl.get @m_2_0 tb 1 <"output"[2] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.wait @m_1_2 tb 2
  ccl.get @m_2_1 tb 2 <"output"[2] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [2 : 1]> = [#ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [2 : 1]> = [#ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[2] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[2] [2 : 1]> = [#ccl.chunk<"input"[2] [0 : 1]>]
}


// -----

// Tests that a rank whose result a peer's multimem store writes is reported
// when nothing makes the rank wait for that store before its call returns.
ccl.algorithm @nvls_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "nvls", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.multimem_reduce @sw tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
  // expected-error@+1 {{with 2 ranks: when call 1 returns on rank 0, output[0][1] is not written yet: nothing orders the multimem_broadcast at line}}
  ccl.multimem_broadcast @sw tb 0 <"output"[1] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  // expected-note@+1 {{the postcondition is stated here}}
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}


// -----

// Tests that reading a peer's input with read_reduce is reported when the
// peer can return (and its caller refill the input) before the read.
// expected-note@+1 {{the other access is here}}
ccl.algorithm @readreduce_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "readreduce", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_0_2 memory 0 -> 2
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.channel @m_1_2 memory 1 -> 2
  ccl.channel @m_2_0 memory 2 -> 0
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@m_0_1, @m_0_2]
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  // expected-error@+2 {{with 3 ranks: data race on input[0][0] between calls: rank 1 thread block 0 reads it in call 1 at line}}
  // expected-note@+1 {{counterexample}}
  ccl.read_reduce tb 0 <"output"[1] [0 : 1]> from [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@m_1_0, @m_1_2]
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[2] [0 : 1]> from [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>] via [@m_2_0, @m_2_1]
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}


// -----

// Tests that a semaphore released more often than it is acquired in a call
// is reported: its count carries over, so the next call's acquire would
// return before that call's release.
ccl.algorithm @sem_extra_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "sem_extra", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.semaphore @sem rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.release @sem tb 1
  // expected-error@+1 {{with 1 rank: release #2 of semaphore @sem has no matching acquire in its call: semaphores keep their count from call to call (they are never reset), so the next call's acquire #1 would return at once, before that call's own release}}
  ccl.release @sem tb 1
  // expected-note@+1 {{in call 2 this acquire (#1 of the call) would take release #2 of call 1}}
  ccl.acquire @sem tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that an LL sender that never hears from its receiver is reported: it
// can run two calls ahead and overwrite packets the receiver has not read
// (LL scratch alternates between two copies by call parity).
ccl.algorithm @ll_ahead_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "ll_ahead", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{with 2 ranks: write-after-read race on recv[1][0] between calls: rank 0 thread block 1 writes it in call 3 while rank 1 thread block 0 may still read it in call 1 at line}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 1 thread block 0 ran unpack_packets (line}}
  ccl.put_packets @m_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other access is here}}
  ccl.unpack_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that the LL broadcast above is proven once the receiver acknowledges
// each call over a channel with one credit and the sender waits for the
// acknowledgement before it sends (so it is at most one call ahead).
ccl.algorithm @ll_acked_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "ll_acked", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @ack_1_0 memory 1 -> 0 credit 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @ack_1_0 tb 1
  ccl.put_packets @m_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.unpack_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.signal @ack_1_0 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that an acknowledgement sent before the receiver has read the slot
// does not hide the race between calls.
ccl.algorithm @early_ack_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "early_ack", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @ack_1_0 memory 1 -> 0 credit 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @ack_1_0 tb 1
  // expected-error@+2 {{with 2 ranks: write-after-read race on recv[1][0] between calls: rank 0 thread block 1 writes it in call 2 while rank 1 thread block 0 may still read it in call 1}}
  // expected-note@+1 {{counterexample}}
  ccl.put @m_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.signal @ack_1_0 tb 0
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
