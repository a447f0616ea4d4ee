ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.copy tb 0 #ccl.chunk<"output"[0][0 : 1]> = #ccl.chunk<"mem_0_1"[0][0 : 1]>
}
