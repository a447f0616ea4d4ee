ccl.algorithm @handoff_n2 attributes {chunks = 2 : i64, collective = #ccl.collective<custom>, custom_collective = "Copy", name = "handoff", nranks = 2 : i64, protocol = #ccl.protocol<Simple>} {
  ccl.scratch @tmp slots 2
  ccl.semaphore @sem_0 rank 0
  ccl.semaphore @sem_1 rank 1
  ccl.require <"input"[0] [0 : 1]> holds <"input"[0] [0 : 1]>
  ccl.require <"input"[0] [1 : 1]> holds <"input"[0] [1 : 1]>
  ccl.require <"input"[1] [0 : 1]> holds <"input"[1] [0 : 1]>
  ccl.require <"input"[1] [1 : 1]> holds <"input"[1] [1 : 1]>
  ccl.copy tb 1 <"tmp"[0] [0 : 2]> = <"input"[0] [0 : 2]>
  ccl.release @sem_0 tb 1
  ccl.acquire @sem_0 tb 0
  ccl.copy tb 0 <"output"[0] [0 : 1]> = <"tmp"[0] [0 : 1]>
  ccl.tb_barrier rank 0 tbs [0, 2]
  ccl.copy tb 2 <"output"[0] [1 : 1]> = <"tmp"[0] [1 : 1]>
  ccl.copy tb 1 <"tmp"[1] [0 : 2]> = <"input"[1] [0 : 2]>
  ccl.release @sem_1 tb 1
  ccl.acquire @sem_1 tb 0
  ccl.copy tb 0 <"output"[1] [0 : 1]> = <"tmp"[1] [0 : 1]>
  ccl.tb_barrier rank 1 tbs [0, 2]
  ccl.copy tb 2 <"output"[1] [1 : 1]> = <"tmp"[1] [1 : 1]>
  ccl.ensure <"output"[0] [0 : 1]> = [#ccl.chunk<"input"[0] [0 : 1]>]
  ccl.ensure <"output"[0] [1 : 1]> = [#ccl.chunk<"input"[0] [1 : 1]>]
  ccl.ensure <"output"[1] [0 : 1]> = [#ccl.chunk<"input"[1] [0 : 1]>]
  ccl.ensure <"output"[1] [1 : 1]> = [#ccl.chunk<"input"[1] [1 : 1]>]
}
