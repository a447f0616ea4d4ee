ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.reduce_packets tb 0 #ccl.chunk<"recv"[0][1 : 1]> from #ccl.chunk<"recv"[0][0 : 1]>
}
