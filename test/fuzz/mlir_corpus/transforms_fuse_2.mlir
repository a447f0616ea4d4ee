ccl.algorithm @forward_n3 attributes {name = "a", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 4 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 4
  ccl.channel @mem_1_2 memory 1 -> 2
  ccl.channel @mem_1_2b memory 1 -> 2
  ccl.copy tb 0 <"input"[1] [0 : 1]> = <"buf"[1] [0 : 1]>
  ccl.put @mem_1_2 tb 0 <"buf"[2] [0 : 1]> = <"input"[1] [0 : 1]> signal
  ccl.reduce tb 0 <"input"[1] [1 : 1]> from <"buf"[1] [1 : 1]>
  ccl.put @mem_1_2 tb 0 <"buf"[2] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.signal @mem_1_2 tb 0
  ccl.reduce tb 0 <"input"[1] [2 : 1]> from <"buf"[1] [2 : 1]>
  ccl.put @mem_1_2 tb 0 <"buf"[2] [2 : 1]> = <"input"[1] [0 : 1]>
  ccl.copy tb 0 <"input"[1] [3 : 1]> = <"buf"[1] [3 : 1]>
  ccl.put @mem_1_2b tb 1 <"buf"[2] [3 : 1]> = <"input"[1] [3 : 1]>
}
