ccl.algorithm @rrend_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rrend", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @s slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.signal @mem_0_1 tb 1
  ccl.read_reduce tb 0 <"output"[0] [0 : 1]> from [#ccl.chunk<"s"[1] [0 : 1]>] via [@mem_0_1]
}
