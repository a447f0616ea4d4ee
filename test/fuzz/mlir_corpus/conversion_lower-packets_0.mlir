ccl.algorithm @pk_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "pk", nranks = 2 : i64, protocol = #ccl.protocol<LL>} {
  ccl.scratch @recv slots 1
  ccl.scratch @fwd slots 1
  ccl.scratch @other slots 1
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.put_packets @mem_0_1 tb 0 <"recv"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.put_packets @mem_0_1 tb 0 <"other"[1] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy_packets tb 0 <"fwd"[1] [0 : 1]> from <"recv"[1] [0 : 1]>
  ccl.unpack_packets tb 0 <"output"[1] [1 : 1]> from <"other"[1] [0 : 1]>
}
