ccl.algorithm @semcycle_n1 attributes {chunks = 1 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "semcycle", nranks = 1 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.semaphore @a rank 0
  ccl.semaphore @b rank 0
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.acquire @a tb 0
  ccl.release @b tb 0
  ccl.acquire @b tb 1
  ccl.release @a tb 1
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"input"[0] [0 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
}
