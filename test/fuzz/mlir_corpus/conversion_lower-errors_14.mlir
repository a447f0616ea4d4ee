ccl.algorithm @fwdout_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "fwdout", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.put @mem_0_1 tb 0 <"s"[1] [0 : 1]> = <"input"[0] [0 : 1]> forward [#ccl.chunk<"output"[2] [0 : 1]>] via [@mem_0_2]
}
