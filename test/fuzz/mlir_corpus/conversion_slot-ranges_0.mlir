ccl.algorithm @split_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Mine", name = "split", nranks = 2 : i64, protocol = #ccl.protocol<Simple>, scheduled} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.thread_block rank 0 tb 0 {
    ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 2]> = <"input"[0] [0 : 2]> signal {ccl.op_id = 0 : i64}
    ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]> {ccl.op_id = 1 : i64}
  }
  ccl.thread_block rank 1 tb 0 {
    ccl.wait @mem_0_1 tb 0 {ccl.op_id = 2 : i64}
    ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]> {ccl.op_id = 3 : i64}
    ccl.copy tb 0 <"output"[1] [1 : 1]> = <"recv"[1] [1 : 1]> {ccl.op_id = 4 : i64}
  }
}
