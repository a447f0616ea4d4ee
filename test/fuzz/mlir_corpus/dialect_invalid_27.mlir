ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.copy tb 0 #ccl.chunk<"recv"[0][2 : 1]> = #ccl.chunk<"input"[0][0 : 1]>
}
