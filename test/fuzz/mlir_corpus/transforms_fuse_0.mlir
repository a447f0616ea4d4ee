ccl.algorithm @put_signal_n2 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 3 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 3
  ccl.channel @port_0_1 port 0 -> 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.channel @mem_0_1b memory 0 -> 1
  ccl.put @port_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.signal @port_0_1 tb 0
  ccl.flush @port_0_1 tb 0
  ccl.put @mem_0_1 tb 1 <"buf"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.signal @mem_0_1b tb 1
  ccl.put @mem_0_1 tb 1 <"buf"[1] [2 : 1]> = <"input"[0] [2 : 1]>
  ccl.signal @mem_0_1 tb 1 relaxed
}
