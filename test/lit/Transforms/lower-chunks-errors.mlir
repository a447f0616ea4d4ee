// RUN: %ccl-opt %s --ccl-lower-chunks=channel=port -split-input-file -verify-diagnostics
// RUN: not %ccl-opt %s --ccl-lower-chunks=channel=dma 2>&1 | FileCheck %s --check-prefix=KIND

// Tests that port channels are refused for an LL algorithm, whose packets go
// over memory channels.
// expected-error@+1 {{an LL algorithm sends packets over memory channels; --channel=port applies to Simple algorithms}}
ccl.algorithm @ll_n2 attributes {name = "ll", collective = "Mine", nranks = 2 : i64, chunks = 1 : i64, protocol = "LL"} {
  ccl.copy <"output"[0] [0 : 1]> = <"input"[1] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
}

// Tests that an unknown channel kind is reported.
// KIND: error: --channel must be memory or port, not 'dma'
