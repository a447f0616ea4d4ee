// fuzz: instances=2 channel=port
ccl.algorithm @two_n2 attributes {name = "two", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, output_chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.semaphore @sem rank 1
  ccl.put @mem_0_1 tb 1 <"buf"[1] [0 : 2]> = <"input"[0] [0 : 2]> signal
  ccl.wait @mem_0_1 tb 0
  ccl.release @sem tb 0
  ccl.acquire @sem tb 1
  ccl.tb_barrier rank 1 tbs [0, 1]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
