ccl.algorithm @rrin_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rrin", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"s"[1] [0 : 1]>, #ccl.chunk<"input"[2] [0 : 1]>] via [@mem_0_1, @mem_0_2]
}
