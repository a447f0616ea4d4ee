ccl.algorithm @sched_n2 attributes {name = "sched", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
  }
}
