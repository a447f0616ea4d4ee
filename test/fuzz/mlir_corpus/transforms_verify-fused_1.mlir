ccl.algorithm @ring_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, inplace = true, name = "ring", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @xfer slots 2
  ccl.channel @mem_1_0_b0 memory 1 -> 0
  ccl.channel @mem_0_1_b0 memory 0 -> 1
  ccl.channel @mem_0_1_b1 memory 0 -> 1
  ccl.channel @mem_1_0_b1 memory 1 -> 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.put @mem_1_0_b0 tb 0 <"xfer"[0] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.wait @mem_1_0_b0 tb 0
  ccl.reduce tb 0 <"input"[0] [0 : 1]> from <"xfer"[0] [0 : 1]> forward [#ccl.chunk<"xfer"[1] [0 : 1]>] via [@mem_0_1_b0]
  ccl.wait @mem_0_1_b0 tb 0
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"xfer"[1] [0 : 1]>
  ccl.put @mem_0_1_b1 tb 1 <"xfer"[1] [1 : 1]> = <"input"[0] [1 : 1]> signal
  ccl.wait @mem_0_1_b1 tb 1
  ccl.reduce tb 1 <"input"[1] [1 : 1]> from <"xfer"[1] [1 : 1]> forward [#ccl.chunk<"xfer"[0] [1 : 1]>] via [@mem_1_0_b1] signal
  ccl.wait @mem_1_0_b1 tb 1
  ccl.copy tb 1 <"input"[0] [1 : 1]> = <"xfer"[0] [1 : 1]>
  ccl.ensure <"input"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>, #ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"input"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
  ccl.ensure <"input"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>, #ccl.chunk<"input"[1] [1 : 1]>]
}
