// RUN: %ccl-opt %s --ccl-verify=max-blocks-per-rank=2 -verify-diagnostics
//
// Tests the max-blocks-per-rank option of --ccl-verify: a thread-block
// group counts all of its blocks (tb 1 group 2 uses blocks 1 and 2).

// expected-error@+1 {{rank 1 uses 3 thread blocks, more than max-blocks-per-rank = 2 (the thread blocks of a kernel wait for each other, so all of them must be resident at once)}}
ccl.algorithm @group_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "group", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-note@+1 {{thread block 2 of rank 1 is used here}}
  ccl.copy tb 1 group 2 <"output"[1] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}
