ccl.algorithm @bars_n1 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Mine", name = "bars", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.tb_barrier rank 0 tbs [1, 2]
}
