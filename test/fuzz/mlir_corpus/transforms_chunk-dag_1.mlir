ccl.algorithm @independent_n2 attributes {name = "independent", collective = #ccl.collective<AllReduce>, nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
}
