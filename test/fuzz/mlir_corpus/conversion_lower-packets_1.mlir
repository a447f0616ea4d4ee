ccl.algorithm @rcs_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "rcs", nranks = 3 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]> forward [#ccl.chunk<"recv"[2] [1 : 1]>] via [@mem_1_2]
}
