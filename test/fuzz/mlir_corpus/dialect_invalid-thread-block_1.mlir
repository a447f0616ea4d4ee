ccl.algorithm @a_n2 attributes {name = "a", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<LL>, scheduled} {
  ccl.thread_block rank -1 tb 0 {
  }
}
