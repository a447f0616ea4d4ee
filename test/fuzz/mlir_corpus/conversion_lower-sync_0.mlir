ccl.algorithm @sync_n3 attributes {chunks = 1 : i64, collective = #ccl.collective<AllReduce>, name = "sync", nranks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.semaphore @sem_a rank 0
  ccl.semaphore @sem_b rank 0
  ccl.signal @mem_0_2 tb 0
  ccl.signal @mem_1_2 tb 0 relaxed
  ccl.wait @mem_0_2 tb 0
  ccl.release @sem_b tb 0
  ccl.acquire @sem_b tb 1
  ccl.tb_barrier rank 0 tbs [0, 1]
  ccl.tb_barrier rank 0 tbs [1, 2, 3]
  ccl.wait @mem_1_2 tb 0 relaxed
  ccl.wait @mem_0_2 tb 0
}
