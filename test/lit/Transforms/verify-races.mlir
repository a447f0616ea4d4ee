// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// Happens-before checks of --ccl-verify: a read of data another rank wrote
// before a signal and a matching wait made it visible, data races between
// thread blocks (read-write, write-write, write-after-read), and port-channel
// put sources overwritten before a flush. Each error names both operations,
// with a note on the other one and a counterexample trace.

// Tests that a put followed by a relaxed signal does not make its data
// visible: the relaxed signal only counts.
ccl.algorithm @relaxed_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "relaxed", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the put is here}}
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @m_0_1 tb 0 relaxed
  ccl.wait @m_0_1 tb 0
  // expected-error@+2 {{rank 1 thread block 0 reads recv[1][0] before the data is visible: the put by rank 0 thread block 0 at line 16 that writes it is not ordered before this read (a signal after it and a matching wait before the read would order it)}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 0 thread block 0 ran put (line 16), signal (line 17); rank 1 thread block 0 ran wait (line 18)}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a wait orders only its own thread block: thread block 1 of the
// receiver reads without waiting.
ccl.algorithm @otherblock_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "otherblock", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the put is here}}
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  // expected-error@+2 {{rank 1 thread block 1 reads recv[1][0] before the data is visible: the put by rank 0 thread block 0 at line 36}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a signal covers only the signalling thread block's puts: the
// put runs on thread block 1, the signal on thread block 0.
ccl.algorithm @otherputter_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "otherputter", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the put is here}}
  ccl.put @m_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.wait @m_0_1 tb 0
  // expected-error@+2 {{rank 1 thread block 0 reads recv[1][0] before the data is visible: the put by rank 0 thread block 1 at line 55}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a multimem store into a peer is not visible there without a
// signal and a wait.
ccl.algorithm @mmvisible_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "mmvisible", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the multimem_broadcast is here}}
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{rank 1 thread block 0 reads output[1][0] before the data is visible: the multimem_broadcast by rank 0 thread block 0 at line 74}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"output"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that two thread blocks of one rank writing one chunk conflict.
ccl.algorithm @ww_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "ww", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{write-write conflict on output[0][0]: rank 0 thread block 1 writes it while rank 0 thread block 0 writes it at line 87, with nothing ordering the two}}
  // expected-note@+1 {{counterexample, the last steps of the thread blocks involved: rank 0 thread block 0 ran copy (line 87); rank 0 thread block 1 ran nothing yet}}
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a read in one thread block of a chunk another block writes
// races.
ccl.algorithm @raw_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "raw", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{data race on tmp[0][0]: rank 0 thread block 1 reads it while rank 0 thread block 0 writes it at line 102, with nothing ordering the two}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that overwriting a chunk that another thread block may still be
// reading is a write-after-read race: the semaphore orders the first write
// before the read, but nothing orders the read before the second write.
ccl.algorithm @war_n1 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "war", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.semaphore @sem rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.release @sem tb 1
  ccl.acquire @sem tb 0
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  // expected-error@+2 {{write-after-read race on tmp[0][0]: rank 0 thread block 1 writes it while rank 0 thread block 0 may still read it at line 123, with nothing ordering the two}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// Tests that a put into a peer's scratch slot that the peer may still be
// reading (the second round reuses the slot without a "slot free" signal)
// is a write-after-read race.
ccl.algorithm @reuse_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<Broadcast>, name = "reuse", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  // expected-note@+1 {{the other access is here}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  // expected-error@+2 {{write-after-read race on recv[1][0]: rank 0 thread block 0 writes it while rank 1 thread block 0 may still read it at line 146, with nothing ordering the two}}
  // expected-note@+1 {{counterexample}}
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// Tests that two ranks putting into the same chunk of a third conflict.
ccl.algorithm @twoputs_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Gather", name = "twoputs", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  // expected-note@+1 {{the other access is here}}
  ccl.put @m_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  // expected-error@+2 {{write-write conflict on recv[1][0]: rank 2 thread block 0 writes it while rank 0 thread block 0 writes it at line 166, with nothing ordering the two}}
  // expected-note@+1 {{counterexample}}
  ccl.put @m_2_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[2] [0 : 1]> signal
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_2_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a chunk-level copy is ordered only after earlier operations: a
// channel-level read on another thread block after it still races with it.
ccl.algorithm @chunklater_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "chunklater", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other access is here}}
  ccl.copy <"tmp"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+2 {{data race on tmp[1][0]: rank 1 thread block 1 reads it while rank 1 thread block 0 writes it at line 185}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"tmp"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that overwriting the source of a port-channel put before the
// putting thread block flushed the channel is reported.
ccl.algorithm @noflush_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<Broadcast>, name = "noflush", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.channel @p_0_1 port 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-note@+1 {{the put is here}}
  ccl.put @p_0_1 tb 0 <"output"[1] [0 : 1]> = <"tmp"[0] [0 : 1]> signal
  // expected-error@+2 {{overwrites tmp[0][0] while the port-channel put at line 203 may still read it: rank 0 thread block 0 has not flushed @p_0_1 since that put}}
  // expected-note@+1 {{counterexample}}
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.flush @p_0_1 tb 0
  ccl.put @p_0_1 tb 0 <"output"[1] [1 : 1]> = <"tmp"[0] [0 : 1]> signal flush
  ccl.wait @p_0_1 tb 0
  ccl.wait @p_0_1 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}

// -----

// Tests that the same program with the flush before the overwrite passes
// the race check, and that a port-channel put that is never flushed is
// reported (the kernel could end while the proxy still reads the source).
ccl.algorithm @neverflushed_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<Broadcast>, name = "neverflushed", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.channel @p_0_1 port 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @p_0_1 tb 0 <"output"[1] [0 : 1]> = <"tmp"[0] [0 : 1]> signal
  ccl.flush @p_0_1 tb 0
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  // expected-error@+1 {{the port-channel put of tmp[0][0] on @p_0_1 is never flushed: the kernel may end while the proxy still reads its source}}
  ccl.put @p_0_1 tb 0 <"output"[1] [1 : 1]> = <"tmp"[0] [0 : 1]> signal
  ccl.wait @p_0_1 tb 0
  ccl.wait @p_0_1 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}
