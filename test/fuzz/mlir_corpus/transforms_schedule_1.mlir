ccl.algorithm @deps_n1 attributes {chunks = 4 : i64, collective = #ccl.collective<custom>, custom_collective = "Custom", name = "deps", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 4
  ccl.copy tb 0 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy tb 0 <"tmp"[0] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 0 <"output"[0] [2 : 1]> = <"input"[0] [2 : 1]>
  ccl.copy tb 0 <"output"[0] [0 : 2]> = <"tmp"[0] [0 : 2]>
  ccl.copy tb 0 <"tmp"[0] [1 : 1]> = <"input"[0] [3 : 1]>
  ccl.copy tb 0 <"output"[0] [3 : 1]> = <"input"[0] [3 : 1]>
  ccl.copy tb 1 <"tmp"[0] [3 : 1]> = <"input"[0] [0 : 1]>
}
