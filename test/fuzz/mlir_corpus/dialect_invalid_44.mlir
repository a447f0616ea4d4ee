ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 1 #ccl.chunk<"recv"[1][0 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}
