ccl.algorithm @war_n1 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "war", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 1
  ccl.semaphore @sem rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.release @sem tb 1
  ccl.acquire @sem tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.copy tb 1 <"tmp"[0] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy tb 1 <"output"[0] [1 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}
