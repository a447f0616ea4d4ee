ccl.algorithm @multi_put_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_2 memory 0 -> 2
  ccl.put @mem_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @mem_0_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @mem_0_2 tb 0 <"buf"[2] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @mem_0_1 tb 0 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>
}
