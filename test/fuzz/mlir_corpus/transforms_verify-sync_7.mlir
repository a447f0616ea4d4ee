ccl.algorithm @barcycle_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "barcycle", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @s rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.acquire @s tb 1
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.release @s tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
