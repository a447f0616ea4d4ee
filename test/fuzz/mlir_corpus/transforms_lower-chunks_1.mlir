ccl.algorithm @copies_n3 attributes {name = "copies", collective = #ccl.collective<custom>, custom_collective = "Mine", nranks = 3 : i64, chunks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @buf slots 2
  ccl.channel @mem_0_1 memory 0 -> 1
  ccl.copy <"output"[1] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.copy <"output"[1] [1 : 1]> = <"input"[2] [1 : 1]>
  ccl.copy <"buf"[1] [0 : 1]> = <"input"[0] [1 : 1]>
  ccl.copy <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[2] [1 : 1]>]
}
