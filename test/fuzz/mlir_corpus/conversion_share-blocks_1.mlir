ccl.algorithm @diff_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<AllReduce>, name = "diff", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @recv slots 1
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"recv"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.reduce tb 1 <"output"[0] [1 : 1]> from <"recv"[0] [0 : 1]>
  ccl.reduce tb 1 <"output"[1] [1 : 1]> from <"recv"[1] [0 : 1]>
  ccl.copy tb 1 <"output"[1] [1 : 1]> = <"input"[1] [1 : 1]>
}
