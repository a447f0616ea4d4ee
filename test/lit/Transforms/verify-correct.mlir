// RUN: %ccl-opt %s --ccl-verify -split-input-file -verify-diagnostics
//
// Correct programs of every kind the dialect can express: --ccl-verify proves
// each against its own contract (ccl.require / ccl.ensure) without a
// diagnostic.

// Tests that the one-phase all-pairs AllReduce with LL packets is proven:
// the packet reads are ordered after the sends by the packet flags. Its
// ranks add in their own orders, which it allows (bits<any>).
ccl.algorithm @allpairs_ll_n3 attributes {bits = #ccl.bits<any>, chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "allpairs_ll", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_2_0 memory 2 -> 0
  ccl.channel @mem_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_2 tb 2 <"recv"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.put_packets @mem_1_0 tb 2 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.put_packets @mem_1_2 tb 1 <"recv"[2] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.put_packets @mem_2_0 tb 1 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.put_packets @mem_2_1 tb 2 <"recv"[1] [2 : 1]> = <"input"[2] [0 : 1]>
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}

// -----

// Tests that a chunk-level ring AllReduce (cross-rank reduce and copy, no
// placement) is proven: every chunk-level operation waits for the earlier
// operations it conflicts with.
ccl.algorithm @ring_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<AllReduce>, name = "ring", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, inplace = true} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
  ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
  ccl.reduce <"input"[2] [0 : 1]> from <"input"[1] [0 : 1]>
  ccl.reduce <"input"[0] [0 : 1]> from <"input"[2] [0 : 1]>
  ccl.copy <"input"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"input"[2] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce <"input"[0] [1 : 1]> from <"input"[2] [1 : 1]>
  ccl.reduce <"input"[1] [1 : 1]> from <"input"[0] [1 : 1]>
  ccl.copy <"input"[2] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.copy <"input"[0] [1 : 1]> = <"input"[2] [1 : 1]>
  ccl.reduce <"input"[1] [2 : 1]> from <"input"[0] [2 : 1]>
  ccl.reduce <"input"[2] [2 : 1]> from <"input"[1] [2 : 1]>
  ccl.copy <"input"[0] [2 : 1]> = <"input"[2] [2 : 1]>
  ccl.copy <"input"[1] [2 : 1]> = <"input"[0] [2 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
  ccl.ensure <"input"[0] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
  ccl.ensure <"input"[1] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
  ccl.ensure <"input"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"input"[2] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
  ccl.ensure <"input"[2] [2 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
}

// -----

// Tests that a channel-level ReduceScatter (put, put with signal, put with
// signal and flush, separate signals, waits, local reduce) is proven, with
// the acknowledgements that make consecutive calls safe: a receiver signals
// a credited channel back once it has reduced a slot, and the sender waits
// for that before it fills the slot again (the first call finds the credit).
ccl.algorithm @rs_n3 attributes {chunks = 3 : i64, collective = #ccl.collective<ReduceScatter>, name = "rs", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, output_chunks = 1 : i64} {
  ccl.scratch @recv slots 3
  ccl.channel @c_0_1 port 0 -> 1
  ccl.channel @c_0_2 memory 0 -> 2
  ccl.channel @c_1_0 memory 1 -> 0
  ccl.channel @c_1_2 memory 1 -> 2
  ccl.channel @c_2_0 port 2 -> 0
  ccl.channel @c_2_1 memory 2 -> 1
  ccl.channel @a_0_1 memory 0 -> 1 credit 1
  ccl.channel @a_0_2 memory 0 -> 2 credit 1
  ccl.channel @a_1_0 memory 1 -> 0 credit 1
  ccl.channel @a_1_2 memory 1 -> 2 credit 1
  ccl.channel @a_2_0 memory 2 -> 0 credit 1
  ccl.channel @a_2_1 memory 2 -> 1 credit 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[0] [2 : 1]> holds <"input"[0] [2 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.require <"input"[1] [2 : 1]> holds <"input"[1] [2 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.require <"input"[2] [1 : 1]> holds <"input"[2] [1 : 1]>
  ccl.require <"input"[2] [2 : 1]> holds <"input"[2] [2 : 1]>
  ccl.wait @a_1_0 tb 0
  ccl.put @c_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [1 : 1]> signal flush
  ccl.wait @a_2_0 tb 0
  ccl.put @c_0_2 tb 0 <"recv"[2] [0 : 1]> = <"input"[0] [2 : 1]>
  ccl.signal @c_0_2 tb 0
  ccl.wait @a_0_1 tb 0
  ccl.put @c_1_0 tb 0 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @a_2_1 tb 0
  ccl.put @c_1_2 tb 0 <"recv"[2] [1 : 1]> = <"input"[1] [2 : 1]> signal
  ccl.wait @a_0_2 tb 0
  ccl.put @c_2_0 tb 0 <"recv"[0] [2 : 1]> = <"input"[2] [0 : 1]> signal flush
  ccl.wait @a_1_2 tb 0
  ccl.put @c_2_1 tb 0 <"recv"[1] [2 : 1]> = <"input"[2] [1 : 1]> signal
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @c_1_0 tb 1
  ccl.reduce tb 1 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.signal @a_0_1 tb 1
  ccl.wait @c_2_0 tb 1
  ccl.reduce tb 1 <"output"[0] [0 : 1]> from <"recv"[0] [2 : 1]>
  ccl.signal @a_0_2 tb 1
  ccl.copy tb 1 <"output"[1] [0 : 1]> = <"input"[1] [1 : 1]>
  ccl.wait @c_0_1 tb 1
  ccl.reduce tb 1 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.signal @a_1_0 tb 1
  ccl.wait @c_2_1 tb 1
  ccl.reduce tb 1 <"output"[1] [0 : 1]> from <"recv"[1] [2 : 1]>
  ccl.signal @a_1_2 tb 1
  ccl.copy tb 1 <"output"[2] [0 : 1]> = <"input"[2] [2 : 1]>
  ccl.wait @c_0_2 tb 1
  ccl.reduce tb 1 <"output"[2] [0 : 1]> from <"recv"[2] [0 : 1]>
  ccl.signal @a_2_0 tb 1
  ccl.wait @c_1_2 tb 1
  ccl.reduce tb 1 <"output"[2] [0 : 1]> from <"recv"[2] [1 : 1]>
  ccl.signal @a_2_1 tb 1
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>, #ccl.chunk<"input"[2] [1 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [2 : 1]>, #ccl.chunk<"input"[1] [2 : 1]>, #ccl.chunk<"input"[2] [2 : 1]>]
}

// -----

// Tests that an AllGather in which each rank gets its peers' chunks after a
// wait for their signal (the peer copied its chunk before signalling) is
// proven; each reader tells the owner when it is done, and the owner's call
// ends only then (the caller may reuse the output as soon as it returns).
ccl.algorithm @ag_get_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllGather>, name = "ag_get", nranks = 3 : i64, protocol = #ccl.protocol<Simple>, output_chunks = 3 : i64} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_0_2 memory 0 -> 2
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.channel @m_1_2 memory 1 -> 2
  ccl.channel @m_2_0 memory 2 -> 0
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.channel @k_0_1 memory 0 -> 1
  ccl.channel @k_0_2 memory 0 -> 2
  ccl.channel @k_1_0 memory 1 -> 0
  ccl.channel @k_1_2 memory 1 -> 2
  ccl.channel @k_2_0 memory 2 -> 0
  ccl.channel @k_2_1 memory 2 -> 1
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
  ccl.signal @k_0_1 tb 2
  ccl.wait @m_2_0 tb 3
  ccl.get @m_0_2 tb 3 <"output"[0] [2 : 1]> = <"output"[2] [2 : 1]>
  ccl.signal @k_0_2 tb 3
  ccl.wait @m_0_1 tb 1
  ccl.get @m_1_0 tb 1 <"output"[1] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @k_1_0 tb 1
  ccl.wait @m_2_1 tb 3
  ccl.get @m_1_2 tb 3 <"output"[1] [2 : 1]> = <"output"[2] [2 : 1]>
  ccl.signal @k_1_2 tb 3
  ccl.wait @m_0_2 tb 1
  ccl.get @m_2_0 tb 1 <"output"[2] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @k_2_0 tb 1
  ccl.wait @m_1_2 tb 2
  ccl.get @m_2_1 tb 2 <"output"[2] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.signal @k_2_1 tb 2
  ccl.wait @k_1_0 tb 0
  ccl.wait @k_2_0 tb 0
  ccl.wait @k_0_1 tb 0
  ccl.wait @k_2_1 tb 0
  ccl.wait @k_0_2 tb 0
  ccl.wait @k_1_2 tb 0
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

// Tests that a semaphore hand-off between two thread blocks and a
// thread-block barrier order the blocks' accesses (two-chunk references are
// checked chunk by chunk).
ccl.algorithm @handoff_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "handoff", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 2
  ccl.semaphore @sem_0 rank 0
  ccl.semaphore @sem_1 rank 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy tb 1 <"tmp"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.release @sem_0 tb 1
  ccl.acquire @sem_0 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.tb_barrier rank 0 tbs [0, 2]
  ccl.copy tb 2 <"output"[0] [1 : 1]> = <"tmp"[0] [1 : 1]>
  ccl.copy tb 1 <"tmp"[1] [0 : 2]> = <"input"[1] [0 : 2]>
  ccl.release @sem_1 tb 1
  ccl.acquire @sem_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[1] [0 : 1]>
  ccl.tb_barrier rank 1 tbs [0, 2]
  ccl.copy tb 2 <"output"[1] [1 : 1]> = <"tmp"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that a switch-channel AllReduce (multimem load-reduce of chunk r on
// rank r, then a multimem store of the result to every member) is proven,
// with a start handshake (a peer's input is read only once the peer is in
// the same call) and an end handshake (a rank returns only once its peers'
// stores into its output have landed).
ccl.algorithm @nvls_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "nvls", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @s_0_1 memory 0 -> 1
  ccl.channel @s_1_0 memory 1 -> 0
  ccl.channel @e_0_1 memory 0 -> 1
  ccl.channel @e_1_0 memory 1 -> 0
  ccl.switch_channel @sw ranks [0, 1]
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.signal @s_0_1 tb 0
  ccl.wait @s_1_0 tb 0
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.signal @e_0_1 tb 0
  ccl.signal @s_1_0 tb 0
  ccl.wait @s_0_1 tb 0
  ccl.multimem_reduce @sw tb 0 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[1] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.signal @e_1_0 tb 0
  ccl.wait @e_1_0 tb 0
  ccl.wait @e_0_1 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}

// -----

// Tests that an AllReduce reading its peers' inputs with read_reduce is
// proven: each rank tells its peers when its input holds this call's data
// (its first signal on each channel) and when it is done reading theirs
// (its second), and reads or returns only after the matching waits. Its
// ranks add in their own orders, which it allows (bits<any>).
ccl.algorithm @readreduce_n3 attributes {bits = #ccl.bits<any>, chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "readreduce", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_0_2 memory 0 -> 2
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.channel @m_1_2 memory 1 -> 2
  ccl.channel @m_2_0 memory 2 -> 0
  ccl.channel @m_2_1 memory 2 -> 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[2] [0 : 1]> holds <"input"[2] [0 : 1]>
  ccl.signal @m_0_1 tb 0
  ccl.signal @m_0_2 tb 0
  ccl.wait @m_1_0 tb 0
  ccl.wait @m_2_0 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@m_0_1, @m_0_2]
  ccl.signal @m_0_1 tb 0
  ccl.signal @m_0_2 tb 0
  ccl.wait @m_1_0 tb 0
  ccl.wait @m_2_0 tb 0
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_2 tb 0
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_2_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[1] [0 : 1]> from [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@m_1_0, @m_1_2]
  ccl.signal @m_1_0 tb 0
  ccl.signal @m_1_2 tb 0
  ccl.wait @m_0_1 tb 0
  ccl.wait @m_2_1 tb 0
  ccl.signal @m_2_0 tb 0
  ccl.signal @m_2_1 tb 0
  ccl.wait @m_0_2 tb 0
  ccl.wait @m_1_2 tb 0
  ccl.copy tb 0 <"output"[2] [0 : 1]> = <"input"[2] [0 : 1]>
  ccl.read_reduce tb 0 <"output"[2] [0 : 1]> from [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>] via [@m_2_0, @m_2_1]
  ccl.signal @m_2_0 tb 0
  ccl.signal @m_2_1 tb 0
  ccl.wait @m_0_2 tb 0
  ccl.wait @m_1_2 tb 0
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
  ccl.ensure <"output"[2] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>]
}

// -----

// Tests that an LL AllGather (put_packets, copy_packets into a second packet
// buffer, unpack_packets in another thread block) is proven.
ccl.algorithm @ag_ll_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllGather>, name = "ag_ll", nranks = 2 : i64, protocol = #ccl.protocol<LL>, output_chunks = 2 : i64} {
  ccl.scratch @recv slots 2
  ccl.scratch @fwd slots 2
  ccl.channel @m_0_1 memory 0 -> 1
  ccl.channel @m_1_0 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.put_packets @m_0_1 tb 1 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy_packets tb 0 <"fwd"[0] [1 : 1]> from <"recv"[0] [1 : 1]>
  ccl.unpack_packets tb 2 <"output"[0] [1 : 1]> from <"fwd"[0] [1 : 1]>
  ccl.put_packets @m_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy_packets tb 0 <"fwd"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.unpack_packets tb 2 <"output"[1] [0 : 1]> from <"fwd"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}
