// RUN: %ccl-opt %s --ccl-fuse -split-input-file | FileCheck %s

// Tests put + signal (+ flush): fires for the same channel, not for another
// channel, not for a relaxed signal.
// CHECK-LABEL: ccl.algorithm @put_signal_n2
// CHECK:         ccl.put @port_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal flush{{$}}
// CHECK-NEXT:    ccl.put @mem_0_1 tb 1 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.signal @mem_0_1b tb 1{{$}}
// CHECK-NEXT:    ccl.put @mem_0_1 tb 1 <"buf"[1] [2 : 1]> = <"input"[0] [2 : 1]>{{$}}
// CHECK-NEXT:    ccl.signal @mem_0_1 tb 1 relaxed
ccl.algorithm @put_signal_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 3
  ccl.channel @port_0_1 port 0 -> 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_1b memory 0 -> 1
  ccl.put @port_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @port_0_1 tb 0
  ccl.flush @port_0_1 tb 0
  ccl.put @mem_0_1 tb 1 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @mem_0_1b tb 1
  ccl.put @mem_0_1 tb 1 <"buf"[1] [2 : 1]> = <"input"[0] [2 : 1]>
  ccl.signal @mem_0_1 tb 1 relaxed
}

// -----

// Tests multi-destination put merging: same source merges into a forward;
// a different source, or an operation of the block in between, does not.
// CHECK-LABEL: ccl.algorithm @multi_put_n3
// CHECK:         ccl.put @mem_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"buf"[2] [0 : 1]>] via [@mem_0_2]{{$}}
// CHECK-NEXT:    ccl.put @mem_0_2 tb 0 <"buf"[2] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @mem_0_1 tb 0 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
ccl.algorithm @multi_put_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.put @mem_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @mem_0_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @mem_0_2 tb 0 <"buf"[2] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @mem_0_1 tb 0 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>
}

// -----

// Tests recv-copy-send and reduce-send with their signals: a put of the
// result merges (and the signal after it), a put of something else does
// not, and neither does a put on another thread block.
// CHECK-LABEL: ccl.algorithm @forward_n3
// CHECK:         ccl.copy tb 0 <"input"[1] [0 : 1]> = <"buf"[1] [0 : 1]> forward [#ccl.chunk<"buf"[2] [0 : 1]>] via [@mem_1_2] signal{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"input"[1] [1 : 1]> from <"buf"[1] [1 : 1]> forward [#ccl.chunk<"buf"[2] [1 : 1]>] via [@mem_1_2] signal{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"input"[1] [2 : 1]> from <"buf"[1] [2 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @mem_1_2 tb 0 <"buf"[2] [2 : 1]> = <"input"[1] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"input"[1] [3 : 1]> = <"buf"[1] [3 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @mem_1_2b tb 1 <"buf"[2] [3 : 1]> = <"input"[1] [3 : 1]>{{$}}
ccl.algorithm @forward_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 4 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 4
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_1_2b memory 1 -> 2
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
  ccl.put @mem_1_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.reduce tb 0 <"input"[1] [1 : 1]> from <"buf"[1] [1 : 1]>
  ccl.put @mem_1_2 tb 0 <"buf"[2] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.signal @mem_1_2 tb 0
  ccl.reduce tb 0 <"input"[1] [2 : 1]> from <"buf"[1] [2 : 1]>
  ccl.put @mem_1_2 tb 0 <"buf"[2] [2 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"input"[1] [3 : 1]> = <"buf"[1] [3 : 1]>
  ccl.put @mem_1_2b tb 1 <"buf"[2] [3 : 1]> = <"input"[1] [3 : 1]>
}

// -----

// Tests the n-ary reduce: consecutive local reduces into the same chunk
// merge; into another chunk, or across ranks (chunk level), they do not.
// CHECK-LABEL: ccl.algorithm @nary_n2
// CHECK:         ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> and [#ccl.chunk<"buf"[0] [1 : 1]>, #ccl.chunk<"buf"[0] [2 : 1]>]{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.reduce <"output"[0] [1 : 1]> from <"input"[1] [1 : 1]>{{$}}
ccl.algorithm @nary_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 3
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [1 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [2 : 1]>
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [0 : 1]>
  ccl.reduce <"output"[0] [1 : 1]> from <"input"[1] [1 : 1]>
}

// -----

// Tests packet reduce-copy-send: the reduced chunk sent as packets merges;
// packets of another chunk do not.
// CHECK-LABEL: ccl.algorithm @packets_n3
// CHECK:         ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]> forward [#ccl.chunk<"recv"[2] [1 : 1]>] via [@mem_1_2]{{$}}
// CHECK-NEXT:    ccl.reduce_packets tb 0 <"output"[1] [1 : 1]> from <"recv"[1] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [2 : 1]> = <"input"[1] [0 : 1]>{{$}}
ccl.algorithm @packets_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [1 : 1]> = <"output"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [1 : 1]> from <"recv"[1] [1 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [2 : 1]> = <"input"[1] [0 : 1]>
}

// -----

// Tests multimem load-reduce-store: broadcasting the reduced chunk merges;
// broadcasting another chunk does not.
// CHECK-LABEL: ccl.algorithm @multimem_n2
// CHECK:         ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> broadcast{{$}}
// CHECK-NEXT:    ccl.multimem_reduce @sw tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [1 : 1]>{{$}}
ccl.algorithm @multimem_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.switch_channel @sw ranks [0, 1]
  ccl.multimem_reduce @sw tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [0 : 1]>
  ccl.multimem_reduce @sw tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.multimem_broadcast @sw tb 0 <"output"[0] [0 : 1]> = <"output"[0] [1 : 1]>
}

// -----

// Tests that a put over a port channel never becomes a forward (the proxy
// moves its bytes; a forward is stored by the threads): a second put of the
// same source is not merged into it, and a copy or reduce followed by a port
// put of its result keeps the put. put + signal + flush over the port
// channel still fuse.
// CHECK-LABEL: ccl.algorithm @port_no_forward_n3
// CHECK:         ccl.put @port_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @port_0_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @port_0_1 tb 0 <"buf"[1] [1 : 1]> = <"output"[0] [1 : 1]> signal flush{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.put @port_0_2 tb 0 <"buf"[2] [1 : 1]> = <"output"[0] [0 : 1]>{{$}}
// CHECK-NOT:     forward
ccl.algorithm @port_no_forward_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @port_0_1 port 0 -> 1
  ccl.channel @port_0_2 port 0 -> 2
  ccl.put @port_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @port_0_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.put @port_0_1 tb 0 <"buf"[1] [1 : 1]> = <"output"[0] [1 : 1]>
  ccl.signal @port_0_1 tb 0
  ccl.flush @port_0_1 tb 0
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]>
  ccl.put @port_0_2 tb 0 <"buf"[2] [1 : 1]> = <"output"[0] [0 : 1]>
}

// -----

// Tests that a local copy into a reduce's destination, with only waits of
// the block between them, becomes the reduce's base (one pass: dst = base OP
// src, after the waits), and that the rule leaves alone: a copy separated by
// a signal, a copy that forwards, a copy into another chunk, and a copy on
// another thread block.
// CHECK-LABEL: ccl.algorithm @base_n2
// CHECK:         ccl.wait @mem_1_0 tb 0{{$}}
// CHECK-NEXT:    ccl.wait @mem_1_0b tb 0{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]> base <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.signal @mem_0_1 tb 0{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [1 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]> forward [#ccl.chunk<"buf"[1] [2 : 1]>] via [@mem_0_1]{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [2 : 1]> from <"buf"[0] [2 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [3 : 1]> = <"input"[0] [3 : 1]>{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [4 : 1]> from <"buf"[0] [3 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 1 <"output"[0] [5 : 1]> = <"input"[0] [5 : 1]>{{$}}
// CHECK-NEXT:    ccl.reduce tb 2 <"output"[0] [5 : 1]> from <"buf"[0] [4 : 1]>{{$}}
ccl.algorithm @base_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 6 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 6
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.channel @mem_1_0b memory 1 -> 0
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.wait @mem_1_0 tb 0
  ccl.wait @mem_1_0b tb 0
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @mem_0_1 tb 0
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"buf"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]>
  ccl.put @mem_0_1 tb 0 <"buf"[1] [2 : 1]> = <"output"[0] [2 : 1]>
  ccl.reduce tb 0 <"output"[0] [2 : 1]> from <"buf"[0] [2 : 1]>
  ccl.copy tb 0 <"output"[0] [3 : 1]> = <"input"[0] [3 : 1]>
  ccl.reduce tb 0 <"output"[0] [4 : 1]> from <"buf"[0] [3 : 1]>
  ccl.copy tb 1 <"output"[0] [5 : 1]> = <"input"[0] [5 : 1]>
  ccl.reduce tb 2 <"output"[0] [5 : 1]> from <"buf"[0] [4 : 1]>
}

// -----

// Tests that the fold stays away from in-place aliasing: with input aliased
// onto output, a reduce whose source is (in place) the copy's destination
// keeps the copy, and so does a copy whose base partly overlaps its
// destination; a base equal to the destination in place folds.
// CHECK-LABEL: ccl.algorithm @base_inplace_n2
// CHECK:         ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"input"[0] [0 : 1]>{{$}}
// CHECK-NEXT:    ccl.copy tb 0 <"output"[0] [1 : 2]> = <"input"[0] [2 : 2]>{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [1 : 2]> from <"buf"[0] [1 : 2]>{{$}}
// CHECK-NEXT:    ccl.reduce tb 0 <"output"[0] [3 : 1]> from <"buf"[0] [3 : 1]> base <"input"[0] [3 : 1]>{{$}}
ccl.algorithm @base_inplace_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 4 : i64, protocol = #ccl.protocol<Simple>, also_inplace = {from = "input", to = "output", offsets = array<i64: 0, 0>}} {
  ccl.scratch @buf slots 4
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]>
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [1 : 2]> = <"input"[0] [2 : 2]>
  ccl.reduce tb 0 <"output"[0] [1 : 2]> from <"buf"[0] [1 : 2]>
  ccl.copy tb 0 <"output"[0] [3 : 1]> = <"input"[0] [3 : 1]>
  ccl.reduce tb 0 <"output"[0] [3 : 1]> from <"buf"[0] [3 : 1]>
}
