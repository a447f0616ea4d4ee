// RUN: %ccl-opt %s --ccl-lower-chunks=channel=port -split-input-file -verify-diagnostics
// RUN: not %ccl-opt %s --ccl-lower-chunks=channel=dma 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not %ccl-opt %s --ccl-lower-chunks=cross-call=later 2>&1 | FileCheck %s --check-prefix=XCALL

// Tests that port channels are refused for an LL algorithm, whose packets go
// over memory channels.
// expected-error@+1 {{an LL algorithm sends packets over memory channels; --channel=port applies to Simple algorithms}}
ccl.algorithm @ll_n2 attributes {name = "ll", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.copy <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}

// Tests that an unknown channel kind is reported.
// KIND: error: --channel must be memory or port, not 'dma'

// Tests that an unknown cross-call mode is reported.
// XCALL: error: --cross-call must be ack or none, not 'later'

// -----

// Tests that a chunk-level operation that must follow an operation of
// another rank reaching its chunks remotely (a placed put into the scratch
// it copies from) is reported as something the compiler cannot order, not
// as a race.
ccl.algorithm @remote_n2 attributes {name = "remote", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 1
  ccl.channel @m_0_1 memory 0 -> 1
  // expected-note@+1 {{the earlier operation is here}}
  ccl.put @m_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  // expected-error@+1 {{cclc cannot order this chunk-level operation after the put at line 29 (rank 0 reaches rank 1's chunks remotely); place this operation (tb = ...) and synchronise the two explicitly}}
  ccl.copy <"output"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
