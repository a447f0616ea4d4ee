ccl.algorithm @barrier_n2 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "barrier", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    ccl.tb_barrier rank 0 tbs [0, 1]
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
    ccl.tb_barrier rank 0 tbs [0, 1]
  }
  ccl.thread_block rank 1 tb 0 {
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 2 : i64}
  }
}
