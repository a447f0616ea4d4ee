ccl.algorithm @fwdend_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "fwdend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.signal @mem_0_1 tb 0
  ccl.copy tb 1 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"s"[1] [0 : 1]>] via [@mem_0_1]
}
