ccl.algorithm @two_chains_n2 attributes {name = "two_chains", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 2 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.copy <"output"[1] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"output"[1] [0 : 1]>
  ccl.copy <"output"[1] [1 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [1 : 1]> = <"output"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
}
