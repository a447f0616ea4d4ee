ccl.algorithm @fused_n3 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "fused", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@mem_0_2] signal
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"s"[0] [0 : 1]> and [#ccl.chunk<"s"[0] [1 : 1]>] forward [#ccl.chunk<"s"[1] [1 : 1]>] via [@mem_0_1] signal
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]> forward [#ccl.chunk<"s"[2] [1 : 1]>] via [@mem_0_2]
  ccl.reduce tb 0 <"output"[0] [1 : 1]> from <"s"[0] [1 : 1]> forward [#ccl.chunk<"s"[2] [0 : 1]>] via [@mem_0_2] signal
}
