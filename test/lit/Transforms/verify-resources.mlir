// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// Static checks of --ccl-verify: thread blocks per rank (default
// max-blocks-per-rank = 132), one thread block per channel end and per
// semaphore end, one packet writer per LL scratch slot and call, and, at the
// kernel level, a ccl.barrier between dependent operations of a block.

// Tests that a rank using more thread blocks than can be co-resident (133
// with the default limit of 132) is rejected.
// expected-error@+1 {{rank 0 uses 133 thread blocks, more than max-blocks-per-rank = 132 (the thread blocks of a kernel wait for each other, so all of them must be resident at once)}}
ccl.algorithm @manyblocks_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "manyblocks", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{thread block 132 of rank 0 is used here}}
  ccl.copy tb 132 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that signals on one channel from two thread blocks are rejected:
// the k-th wait could not be matched with a definite signal.
ccl.algorithm @twosignallers_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "twosignallers", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other thread block uses it here}}
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  // expected-error@+1 {{channel @m_0_1 is signalled by rank 0 thread blocks 0 and 1; the k-th wait is matched with the k-th signal, so each end must belong to one thread block}}
  ccl.signal @m_0_1 tb 1
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_0_1 tb 0
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that waits on one channel from two thread blocks are rejected.
ccl.algorithm @twowaiters_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<Broadcast>, name = "twowaiters", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.put @m_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.signal @m_0_1 tb 0
  // expected-note@+1 {{the other thread block uses it here}}
  ccl.wait @m_0_1 tb 0
  // expected-error@+1 {{channel @m_0_1 is waited on by rank 1 thread blocks 0 and 1; the k-th wait is matched with the k-th signal, so each end must belong to one thread block}}
  ccl.wait @m_0_1 tb 1
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a semaphore released by two thread blocks is rejected (the
// k-th acquire is matched with the k-th release).
ccl.algorithm @tworeleasers_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "tworeleasers", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @sem rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other thread block uses it here}}
  ccl.release @sem tb 1
  // expected-error@+1 {{semaphore @sem is released by rank 0 thread blocks 1 and 2; the k-th acquire is matched with the k-th release, so each end must belong to one thread block}}
  ccl.release @sem tb 2
  ccl.acquire @sem tb 0
  ccl.acquire @sem tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that a semaphore acquired by two thread blocks is rejected.
ccl.algorithm @twoacquirers_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "twoacquirers", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @sem rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.release @sem tb 1
  ccl.release @sem tb 1
  // expected-note@+1 {{the other thread block uses it here}}
  ccl.acquire @sem tb 0
  // expected-error@+1 {{semaphore @sem is acquired by rank 0 thread blocks 0 and 2; the k-th acquire is matched with the k-th release, so each end must belong to one thread block}}
  ccl.acquire @sem tb 2
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that two sends into one scratch slot in the same call are a
// write-write conflict, even from one thread block: the reader cannot tell
// the two calls' packets apart.
ccl.algorithm @twosends_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "twosends", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  // expected-note@+1 {{the other send is here}}
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{two sends write packets into recv[1][0] in the same call (write-write conflict)}}
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}

// -----

// Tests that at the kernel level two dependent operations of one thread
// block need a ccl.barrier between them.
ccl.algorithm @nobarrier_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "nobarrier", nranks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    // expected-note@+1 {{the earlier operation is here}}
    ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
    // expected-error@+1 {{rank 0 thread block 0 touches tmp[0][0], which the copy at line 109 of the same block also touches, with no ccl.barrier between them (the block's threads split the two operations differently)}}
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
}

// -----

// Tests that at the kernel level a packet read of packets its own block
// packed needs no ccl.barrier: it waits for each packet's flag.
ccl.algorithm @packown_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "packown", nranks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.scratch @recv slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
    ccl.unpack_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
}

// -----

// Tests that at the kernel level a pack_packets of plain data another
// operation of its block wrote still needs a ccl.barrier (only packet reads
// wait for flags).
ccl.algorithm @packplain_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "packplain", nranks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.scratch @recv slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    // expected-note@+1 {{the earlier operation is here}}
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
    // expected-error@+1 {{rank 0 thread block 0 touches output[0][0], which the copy at line 140 of the same block also touches, with no ccl.barrier between them (the block's threads split the two operations differently)}}
    ccl.pack_packets tb 0 <"recv"[0] [0 : 1]> from <"output"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
}
