ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"buf"[0] [0 : 1]> forward [#ccl.chunk<"buf"[1][1 : 1]>] via [@mem_0_1, @mem_0_1]
}
