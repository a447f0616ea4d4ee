ccl.algorithm @simple_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "simple", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.semaphore @sem_1_0 rank 1
  ccl.put @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]> signal
  ccl.put @mem_0_1 tb 0 <"recv"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @mem_0_1 tb 0 relaxed
  ccl.wait @mem_0_1 tb 0
  ccl.wait @mem_0_1 tb 0 relaxed
  ccl.reduce tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [1 : 1]> = <"recv"[1] [1 : 1]>
  ccl.release @sem_1_0 tb 0
  ccl.acquire @sem_1_0 tb 1
  ccl.get @mem_1_0 tb 1 <"output"[1] [1 : 1]> = <"recv"[0] [1 : 1]>
  ccl.read_reduce tb 1 <"output"[1] [0 : 1]> from [#ccl.chunk<"recv"[0] [0 : 1]>, #ccl.chunk<"recv"[0] [1 : 1]>] via [@mem_1_0, @mem_1_0]
  ccl.tb_barrier rank 1 tbs [0, 1]
}
