// RUN: %ccl-opt %s --split-input-file --verify-diagnostics --ccl-schedule --ccl-lower-to-llvm='target=host'

// Tests every error of the lowering: operations it does not lower (get
// and fused forwards over a port channel, multimem,
// thread-block groups, chunk-level cross-rank copy/reduce), peers'
// input/output, plain data out of packet buffers, and a channel end used by
// two thread blocks of one rank.

// Tests that a get over a port channel is refused: a proxy only puts and
// signals.
ccl.algorithm @getport_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "getport", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @port_0_1 port 0 -> 1
  // expected-error@+1 {{get over a port channel is not supported (@port_0_1 is a port channel): a proxy only puts and signals; use a memory channel}}
  ccl.get @port_0_1 tb 0 <"output"[0] [0 : 1]> = <"s"[1] [0 : 1]>
}

// -----

ccl.algorithm @mmr_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "mmr", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  // expected-error@+1 {{multimem operations (switch channels, NVLink SHARP) are not lowered: they are only allowed behind an explicit opt-in and code generation for them does not exist}}
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

ccl.algorithm @mmb_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "mmb", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  // expected-error@+1 {{multimem operations (switch channels, NVLink SHARP) are not lowered}}
  ccl.multimem_broadcast @sw tb 0 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
}

// -----

ccl.algorithm @xcopy_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "xcopy", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{chunk-level cross-rank copy needs the chunk-lowering pass (input[0][0] to output[1][0])}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
}

// -----

ccl.algorithm @xreduce_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "xreduce", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  // expected-error@+1 {{chunk-level cross-rank reduce needs the chunk-lowering pass (s[0][0] into output[1][0])}}
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"s"[0] [0 : 1]>
}

// -----

ccl.algorithm @xscratch_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "xscratch", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  // A copy out of a peer's scratch is still a chunk-level cross-rank copy.
  // expected-error@+1 {{chunk-level cross-rank copy needs the chunk-lowering pass}}
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"s"[0] [0 : 1]>
}

// -----

ccl.algorithm @putout_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "putout", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{reaching a peer's input/output is not supported; stage through a scratch buffer (output[1][0])}}
  ccl.put @mem_0_1 tb 0 <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
}

// -----

ccl.algorithm @getin_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "getin", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{reaching a peer's input/output is not supported; stage through a scratch buffer (input[1][0])}}
  ccl.get @mem_0_1 tb 0 <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
}

// -----

ccl.algorithm @rrin_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rrin", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  // expected-error@+1 {{reaching a peer's input/output is not supported; stage through a scratch buffer (input[2][0])}}
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"s"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@mem_0_1, @mem_0_2]
}

// -----

ccl.algorithm @llget_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "llget", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{moves plain data out of a packet buffer in an LL algorithm; use the packet operations}}
  ccl.get @mem_0_1 tb 0 <"output"[0] [0 : 1]> = <"s"[1] [0 : 1]>
}

// -----

ccl.algorithm @srcend_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "srcend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-note@+1 {{thread block 0 uses it here}}
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{channel @mem_0_1: its source end (rank 0) is used by thread blocks 0 and 1; each channel end belongs to one thread block (docs/semantics.md, rule 5): use another channel (memory(a -> b, id = N)) for the second block}}
  ccl.signal @mem_0_1 tb 1
}

// -----

ccl.algorithm @dstend_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "dstend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.signal @mem_0_1 tb 0
  ccl.signal @mem_0_1 tb 0
  // expected-note@+1 {{thread block 2 uses it here}}
  ccl.wait @mem_0_1 tb 2
  // expected-error@+1 {{channel @mem_0_1: its destination end (rank 1) is used by thread blocks 2 and 3}}
  ccl.wait @mem_0_1 tb 3
}

// -----

ccl.algorithm @rrend_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rrend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-note@+1 {{thread block 1 uses it here}}
  ccl.signal @mem_0_1 tb 1
  // A read-reduce uses the source end of each of its channels.
  // expected-error@+1 {{channel @mem_0_1: its source end (rank 0) is used by thread blocks 1 and 0}}
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"s"[1] [0 : 1]>] via [@mem_0_1]
}

// -----

// Groups: the scheduler rejects them today; an already scheduled algorithm
// reaches the lowering, which rejects them too.
ccl.algorithm @group_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "group", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    // expected-error@+1 {{thread-block groups are not lowered yet; place the operation on one thread block}}
    ccl.copy tb 0 group 2 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  }
}

// -----

ccl.algorithm @fwdout_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "fwdout", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  // A fused forward reaches the peer like a put: only its scratch.
  // expected-error@+1 {{reaching a peer's input/output is not supported; stage through a scratch buffer (output[2][0])}}
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"output"[2] [0 : 1]>] via [@mem_0_2]
}

// -----

ccl.algorithm @fwdport_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "fwdport", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @port_0_2 port 0 -> 2
  // expected-error@+1 {{a fused forward over port channel @port_0_2 is not supported; forwards store from the threads, over memory channels}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@port_0_2]
}

// -----

ccl.algorithm @fwdend_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "fwdend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-note@+1 {{thread block 0 uses it here}}
  ccl.signal @mem_0_1 tb 0
  // A forward uses the source end of its channel.
  // expected-error@+1 {{channel @mem_0_1: its source end (rank 0) is used by thread blocks 0 and 1}}
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[1] [0 : 1]>] via [@mem_0_1]
}
