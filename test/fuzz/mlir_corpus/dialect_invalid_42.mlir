ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>} {
  ccl.copy tb 0 #ccl.chunk<"output"[0][-1 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}
