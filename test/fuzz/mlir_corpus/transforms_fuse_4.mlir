ccl.algorithm @packets_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 3
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.reduce_packets tb 0 <"output"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [1 : 1]> = <"output"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[1] [1 : 1]> from <"recv"[1] [1 : 1]>
  ccl.put_packets @mem_1_2 tb 0 <"recv"[2] [2 : 1]> = <"input"[1] [0 : 1]>
}
