// RUN: %ccl-opt %s -split-input-file -verify-diagnostics
//
// One case per verifier diagnostic of the ccl dialect
// (dialect/lib/CclOps.cpp, dialect/lib/CclDialect.cpp) plus the ODS
// constraints (parent ops, minimum values). The negative thread_block
// rank/tb cases are in invalid-thread-block.mlir (marked to fail: a verifier bug).

// Tests that the protocol is LL or Simple.
// expected-error@+2 {{expected ::ccl::Protocol to be one of: LL, Simple}}
// expected-error@+1 {{failed to parse Ccl_ProtocolAttr parameter 'value'}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Fast>} {

}

// -----

// Tests that the algorithm names the collective it implements: a custom
// one by its declared name, ...
// expected-error@+1 {{'ccl.algorithm' op needs the name of the collective it implements}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
}

// -----

// ... and a built-in one by its kind only.
// expected-error@+1 {{'ccl.algorithm' op implements the built-in AllReduce, so it has no custom_collective}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
}

// -----

// Tests that also_inplace has exactly from, to and offsets.
// expected-error@+1 {{'ccl.algorithm' op also_inplace needs exactly 'from' and 'to' (strings) and 'offsets' (array<i64>)}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, also_inplace = {from = "output", to = "input"}} {
}

// -----

// Tests that also_inplace aliases input and output.
// expected-error@+1 {{'ccl.algorithm' op also_inplace aliases 'input' and 'output', not 'output' and 'output'}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, also_inplace = {from = "output", to = "output", offsets = array<i64: 0, 0>}} {
}

// -----

// Tests that also_inplace is for out-of-place algorithms only.
// expected-error@+1 {{'ccl.algorithm' op is the in-place form already; also_inplace belongs on an out-of-place algorithm}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, inplace = true, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, also_inplace = {from = "output", to = "input", offsets = array<i64: 0, 0>}} {
}

// -----

// Tests that also_inplace has an offset per rank.
// expected-error@+1 {{'ccl.algorithm' op also_inplace has 1 offsets for 2 ranks}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, also_inplace = {from = "output", to = "input", offsets = array<i64: 0>}} {
}

// -----

// Tests that also_inplace keeps the aliased buffer inside the other.
// expected-error@+1 {{'ccl.algorithm' op also_inplace puts input of rank 1 at chunks 2..3 of output, which has 2 chunks}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllGather>, nranks = 2 : i64, chunks = 1 : i64, output_chunks = 2 : i64, protocol = #ccl.protocol<LL>, also_inplace = {from = "input", to = "output", offsets = array<i64: 0, 2>}} {
}

// -----

// Tests that only scratch, channel, thread_block and instructions may appear in an algorithm.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'llvm.mlir.constant' op is not allowed directly inside 'ccl.algorithm'}}
  %0 = llvm.mlir.constant(0 : i32) : i32
}

// -----

// Tests that a scheduled algorithm holds no loose instructions.
// expected-error@+1 {{'ccl.algorithm' op is scheduled, so its operations must be inside 'ccl.thread_block' regions}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that thread_block regions need the scheduled marker.
// expected-error@+1 {{'ccl.algorithm' op holds 'ccl.thread_block' regions but is not marked 'scheduled'}}
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.thread_block rank 0 tb 0 {
  }
}

// -----

// Tests that a channel credit must be positive (no credit: leave it out).
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.channel' op attribute 'credit' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 1}}
  ccl.channel @c memory 0 -> 1 credit 0
}

// -----

// Tests that a channel kind is memory or port ...
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{channel kind must be memory or port, not "nvlink"}}
  ccl.channel @c nvlink 0 -> 1
}

// -----

// ... and that a switch channel is declared with its own op.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{a switch channel connects a rank set; declare it with 'ccl.switch_channel'}}
  ccl.channel @c switch 0 -> 1
}

// -----

// Tests that a channel's destination rank exists.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.channel' op rank 2 does not exist (nranks = 2)}}
  ccl.channel @c memory 0 -> 2
}

// -----

// Tests that a channel's source rank is not negative.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.channel' op rank -1 does not exist (nranks = 2)}}
  ccl.channel @c memory -1 -> 0
}

// -----

// Tests that a channel connects two different ranks.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.channel' op connects rank 1 to itself}}
  ccl.channel @c memory 1 -> 1
}

// -----

// Tests that a thread block's rank exists.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  // expected-error@+1 {{'ccl.thread_block' op rank 5 does not exist (nranks = 2)}}
  ccl.thread_block rank 5 tb 0 {
  }
}

// -----

// Tests that a thread block holds only instructions and barriers.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    // expected-error@+1 {{'llvm.mlir.constant' op is not allowed inside 'ccl.thread_block'}}
    %0 = llvm.mlir.constant(0 : i32) : i32
  }
}

// -----

// Tests that an instruction sits in the thread block of its rank and tb.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    // expected-error@+1 {{'ccl.copy' op runs on rank 1 thread block 0 but is inside the thread block of rank 0 thread block 0}}
    ccl.copy tb 0 #ccl.chunk<"output"[1][0 : 1]> = #ccl.chunk<"input"[1][0 : 1]>
  }
}

// -----

// Tests that an instruction's tb must match its thread block too.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    // expected-error@+1 {{'ccl.copy' op runs on rank 0 thread block 3 but is inside the thread block of rank 0 thread block 0}}
    ccl.copy tb 3 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
  }
}

// -----

// Tests that a barrier lives inside a thread block.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.barrier' op expects parent op 'ccl.thread_block'}}
  ccl.barrier
}

// -----

// Tests that scratch lives inside an algorithm.
// expected-error@+1 {{'ccl.scratch' op expects parent op 'ccl.algorithm'}}
ccl.scratch @s slots 1

// -----

// Tests that scratch has at least one slot.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.scratch' op attribute 'slots' failed to satisfy constraint}}
  ccl.scratch @s slots 0
}

// -----

// Tests that an algorithm has at least one rank.
// expected-error@+1 {{'ccl.algorithm' op attribute 'nranks' failed to satisfy constraint}}
ccl.algorithm @a_n0 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 0 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
}

// -----

// Tests that an instruction must be inside an algorithm.
// expected-error@+1 {{'ccl.copy' op must be inside a 'ccl.algorithm'}}
ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>

// -----

// Tests that an instruction's thread block is not negative.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.copy' op thread block must be non-negative, not -2}}
  ccl.copy tb -2 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that the destination names a known buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.copy' op destination refers to unknown buffer 'tmp'}}
  ccl.copy tb 0 #ccl.chunk<"tmp"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that the source names a known buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.copy' op source refers to unknown buffer 'tmp'}}
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"tmp"[0][0 : 1]>
}

// -----

// Tests that a channel symbol is not a buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.copy' op source refers to unknown buffer 'mem_0_1'}}
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"mem_0_1"[0][0 : 1]>
}

// -----

// Tests that a chunk reference's rank exists.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.copy' op destination output[2][0]: rank 2 does not exist (nranks = 2)}}
  ccl.copy tb 0 #ccl.chunk<"output"[2][0 : 1]> = #ccl.chunk<"input"[2][0 : 1]>
}

// -----

// Tests that a chunk range lies inside its buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.copy' op source input[0][1] is out of range: buffer 'input' has 1 chunk}}
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"input"[0][1 : 1]>
}

// -----

// Tests that a scratch chunk range lies inside its slots.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.copy' op destination recv[0][2] is out of range: buffer 'recv' has 2 chunks}}
  ccl.copy tb 0 #ccl.chunk<"recv"[0][2 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that source and destination cover the same number of chunks.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 4 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.copy' op copies 1 chunk(s) into 2 chunk(s)}}
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 2]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that source and destination do not overlap.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 4 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.copy' op source and destination overlap: input[0][0:2]}}
  ccl.copy tb 0 #ccl.chunk<"input"[0][1 : 2]> = #ccl.chunk<"input"[0][0 : 2]>
}

// -----

// Tests that an LL algorithm does not copy plain data into a packet buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.copy' op copies plain data into or out of a packet buffer in an LL algorithm; use the packet operations}}
  ccl.copy tb 0 #ccl.chunk<"recv"[0][0 : 1]> = #ccl.chunk<"input"[1][0 : 1]>
}

// -----

// Tests that put_packets names a channel that exists.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.put_packets' op unknown channel @nope}}
  ccl.put_packets @nope tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that put_packets needs a memory or port channel.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.switch_channel @sw_0_1 ranks [0, 1]
  // expected-error@+1 {{'ccl.put_packets' op needs a memory or port channel, not switch channel @sw_0_1}}
  ccl.put_packets @sw_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that put_packets reads on the channel's source rank.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.put_packets' op source input[1][0] is not on the channel's source rank 0}}
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[1][0 : 1]>
}

// -----

// Tests that put_packets writes on the channel's destination rank.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.put_packets' op destination recv[0][0] is not on the channel's destination rank 1}}
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that put_packets writes into scratch, not output.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.put_packets' op destination output[1][0] must be a scratch buffer (packets carry flags, so they cannot land in input or output)}}
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"output"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that an LL put_packets does not forward packets from scratch.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.put_packets' op source recv[0][0] holds packets; forward them with an unpack first}}
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][1 : 1]> = #ccl.chunk<"recv"[0][0 : 1]>
}

// -----

// Tests that reduce_packets reads a scratch buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{'ccl.reduce_packets' op source input[0][0] must be a scratch buffer holding packets}}
  ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that reduce_packets reads packets on its own rank.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.reduce_packets' op reads packets of rank 1 on rank 0; packets are read where they landed}}
  ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"recv"[1][0 : 1]>
}

// -----

// Tests that an LL reduce_packets does not write into a packet buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.reduce_packets' op destination recv[0][1] must not be a packet buffer}}
  ccl.reduce_packets tb 0 #ccl.chunk<"recv"[0][1 : 1]> from #ccl.chunk<"recv"[0][0 : 1]>
}

// -----

// Tests that a chunk reference names a buffer.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{chunk reference needs a buffer name}}
  ccl.copy tb 0 #ccl.chunk<""[0][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that a chunk reference's rank is not negative.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{chunk reference has negative rank -1}}
  ccl.copy tb 0 #ccl.chunk<"output"[-1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that a chunk reference's index is not negative.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{chunk reference has negative chunk index -1}}
  ccl.copy tb 0 #ccl.chunk<"output"[0][-1 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that a chunk reference covers at least one chunk.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  // expected-error@+1 {{chunk reference must cover at least one chunk, not 0}}
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 0]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that put_packets needs an LL algorithm (packets carry flags and need
// the double-buffered packet scratch).
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.put_packets' op sends LL packets, so the algorithm needs protocol LL}}
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that reduce_packets needs an LL algorithm.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.reduce_packets' op reads LL packets, so the algorithm needs protocol LL}}
  ccl.reduce_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"recv"[0][1 : 1]>
}

// -----

// Tests that a forward names as many channels as destinations.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.copy' op forwards to 1 destination(s) over 2 channel(s)}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]> forward [#ccl.chunk<"buf"[1][1 : 1]>] via [@mem_0_1, @mem_0_1]
}

// -----

// Tests that a forward goes from the operation's rank to the destination's.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_1_0 memory 1 -> 0
  // expected-error@+1 {{'ccl.reduce' op forwards buf[1][1] over channel @mem_1_0 (1 -> 0) from rank 0}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> forward [#ccl.chunk<"buf"[1][1 : 1]>] via [@mem_1_0]
}

// -----

// Tests that a forward moves as many chunks as the result has.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  // expected-error@+1 {{'ccl.copy' op forwards 1 chunk(s) into 2 chunk(s)}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]> forward [#ccl.chunk<"buf"[1][0 : 2]>] via [@mem_0_1]
}

// -----

// Tests that an n-ary reduce reads only the destination's rank.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  // expected-error@+1 {{'ccl.reduce' op n-ary source buf[1][1] is not on the destination's rank 0}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> and [#ccl.chunk<"buf"[1][1 : 1]>]
}

// -----

// Tests that a chunk-level (cross-rank) reduce has a single source.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.reduce' op a chunk-level reduce has one source}}
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[1] [0 : 1]> and [#ccl.chunk<"input"[0][1 : 1]>]
}

// -----

// Tests that a chunk-level (cross-rank) reduce has no base: the base is a
// folded local copy, which only a block-level reduce has.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.reduce' op a chunk-level reduce has no base}}
  ccl.reduce <"output"[0] [0 : 1]> from <"input"[1] [0 : 1]> base <"input"[0] [0 : 1]>
}

// -----

// Tests that a reduce with a base has a single source.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  // expected-error@+1 {{'ccl.reduce' op a reduce with a base has one source}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> and [#ccl.chunk<"buf"[0][1 : 1]>] base <"input"[0] [0 : 1]>
}

// -----

// Tests that a base has as many chunks as the destination ...
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  // expected-error@+1 {{'ccl.reduce' op copies 2 chunk(s) into 1 chunk(s)}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> base <"input"[0] [0 : 2]>
}

// -----

// ... does not overlap it ...
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  // expected-error@+1 {{'ccl.reduce' op source and destination overlap: output[0][0]}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> base <"output"[0] [0 : 1]>
}

// -----

// ... and lies on the destination's rank.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  // expected-error@+1 {{'ccl.reduce' op base input[1][0] is not on the destination's rank 0}}
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> base <"input"[1] [0 : 1]>
}

// -----

// Tests that the op id the scheduler records is a non-negative i64.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.op_id' must be a non-negative i64, not "first"}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = "first"}
}

// -----

ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.dag_id' must be a non-negative i64, not -1 : i64}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.dag_id = -1 : i64}
}

// -----

// Tests that the chunk DAG's edges are lists of dag ids.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  // expected-error@+1 {{'ccl.war' must be an array<i64: ...> of dag ids, not [0]}}
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.war = [0]}
}

// -----

// Tests that an attribute with the dialect's prefix is one it declares.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @c memory 1 -> 0
  // expected-error@+1 {{'ccl.ordinal' is not an attribute of the ccl dialect}}
  ccl.wait @c tb 0 {ccl.ordinal = 0 : i64}
}

// -----

// Tests that pack_packets needs the LL protocol.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.pack_packets' op writes LL packets, so the algorithm needs protocol LL}}
  ccl.pack_packets tb 0 #ccl.chunk<"recv"[0][0 : 1]> from #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that pack_packets packs on one rank: a peer's scratch is reached
// with put_packets.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.pack_packets' op packs on one rank: the source input[0][0] and the destination recv[1][0] are on different ranks (send packets to a peer with put_packets)}}
  ccl.pack_packets tb 0 #ccl.chunk<"recv"[1][0 : 1]> from #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that pack_packets writes into a scratch buffer only.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.pack_packets' op destination output[0][0] must be a scratch buffer (packets carry flags, so they cannot land in input or output)}}
  ccl.pack_packets tb 0 #ccl.chunk<"output"[0][0 : 1]> from #ccl.chunk<"input"[0][0 : 1]>
}

// -----

// Tests that pack_packets reads plain data, not packets.
ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  // expected-error@+1 {{'ccl.pack_packets' op source recv[0][1] holds packets already (copy them with copy_packets)}}
  ccl.pack_packets tb 0 #ccl.chunk<"recv"[0][0 : 1]> from #ccl.chunk<"recv"[0][1 : 1]>
}
