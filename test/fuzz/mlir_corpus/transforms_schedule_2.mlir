ccl.algorithm @done_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Custom", name = "done", nranks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 9 : i64}
  }
}
