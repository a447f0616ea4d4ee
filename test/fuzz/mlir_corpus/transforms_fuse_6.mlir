ccl.algorithm @port_no_forward_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @port_0_1 port 0 -> 1
  ccl.channel @port_0_2 port 0 -> 2
  ccl.put @port_0_1 tb 0 <"buf"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put @port_0_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.put @port_0_1 tb 0 <"buf"[1] [1 : 1]> = <"output"[0] [1 : 1]>
  ccl.signal @port_0_1 tb 0
  ccl.flush @port_0_1 tb 0
  ccl.reduce tb 0 <"output"[0] [0 : 1]> from <"buf"[0] [0 : 1]>
  ccl.put @port_0_2 tb 0 <"buf"[2] [1 : 1]> = <"output"[0] [0 : 1]>
}
