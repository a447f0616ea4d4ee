ccl.algorithm @dag_n2 attributes {name = "dag", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 2
  ccl.channel @mem_1_0 memory 1 -> 0
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.put_packets @mem_1_0 tb 1 <"recv"[0] [1 : 1]> = <"input"[1] [0 : 1]>
  ccl.reduce_packets tb 0 <"output"[0] [0 : 1]> from <"recv"[0] [1 : 1]>
  ccl.copy tb 2 <"input"[0] [1 : 1]> = <"input"[1] [1 : 1]>
  ccl.copy tb 0 <"input"[0] [0 : 1]> = <"output"[0] [0 : 1]>
}
