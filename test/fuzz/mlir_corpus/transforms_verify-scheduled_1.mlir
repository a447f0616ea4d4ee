ccl.algorithm @lost_handoff_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "lost_handoff", nranks = 1 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @tmp slots 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.thread_block rank 0 tb 0 {
    ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]> {ccl.op_id = 1 : i64}
  }
  ccl.thread_block rank 0 tb 1 {
    ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]> {ccl.op_id = 0 : i64}
  }
}
